//! Launch descriptions: which pointer is which tensor, the grid, the sizes.
//!
//! Architecture invariant: this module only reads and evaluates the TOML contract of
//! docs/launch.md; it knows nothing of kernels. [`Launch::instantiate`]
//! turns a launch plus size overrides into a fully concrete [`Instance`].

use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::path::{Path, PathBuf};

/// An error in a launch file, with the file it came from.
#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct LaunchError {
    pub file: String,
    pub message: String,
}

/// How a tensor argument is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    #[default]
    In,
    Out,
    Inout,
}

/// An integer or an expression over sizes, as written in TOML (`4` or `"cdiv(N, 4)"`).
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum IntOrExpr {
    Int(i64),
    Expr(String),
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ArgToml {
    Tensor {
        tensor: String,
        shape: Vec<IntOrExpr>,
        #[serde(default)]
        role: Role,
        #[serde(default)]
        dtype: Option<String>,
        /// The values an integer tensor's elements take (`"0..N"`, `["0..N", -100]`).
        #[serde(default)]
        values: Option<ValuesToml>,
    },
    Scalar {
        scalar: String,
    },
    Value {
        value: f64,
    },
    Int(IntOrExpr),
    /// A PTX struct parameter passed by value (`.param .b8 p[24]`): each field bound by
    /// its byte offset, `{ fields = { 0 = { tensor = "x", ... }, 16 = "N" } }`.
    Fields {
        fields: BTreeMap<String, ArgToml>,
    },
}

/// The launch key of the field of struct parameter `param` at byte `offset`.
pub fn field_key(param: &str, offset: u64) -> String {
    format!("{param}+{offset}")
}

/// The struct parameter and byte offset a [`field_key`] names; `None` for other keys.
pub fn field_of(key: &str) -> Option<(&str, u64)> {
    let (param, off) = key.rsplit_once('+')?;
    Some((param, off.parse().ok()?))
}

/// `values = "0..N"` or `values = ["0..N", -100]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum ValuesToml {
    One(IntOrExpr),
    Many(Vec<IntOrExpr>),
}

/// One item of a tensor's `values`: a value, or a range `lo..hi` (half-open, as in
/// Rust and Python's `range`) or `lo..=hi`, each end an expression over sizes.
#[derive(Clone, Debug)]
pub enum ValueItem {
    One(Expr),
    Range(Expr, Expr, bool),
}

/// Most values a tensor's `values` may declare: a gather splits its proof over them.
pub const MAX_DECLARED_VALUES: usize = 1 << 16;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LaunchToml {
    grid: Option<Vec<IntOrExpr>>,
    block: Option<Vec<IntOrExpr>>,
    cta: Option<Vec<i64>>,
    dynamic_shared: Option<IntOrExpr>,
    #[serde(default)]
    sizes: BTreeMap<String, i64>,
    #[serde(default)]
    args: BTreeMap<String, ArgToml>,
}

/// Dynamic shared memory assumed where a launch does not give `dynamic_shared`: 48 KiB,
/// the most a kernel gets without opting in to more (`cudaFuncAttributeMaxDynamicShared
/// MemorySize`). Triton's kernels declare all their shared memory this way.
pub const DEFAULT_DYNAMIC_SHARED: u64 = 48 * 1024;

/// A parsed launch description (sizes still symbolic).
#[derive(Clone, Debug)]
pub struct Launch {
    /// Where it was read from, for messages.
    pub file: String,
    pub grid: Vec<Expr>,
    pub block: Vec<Expr>,
    pub cta: Vec<i64>,
    /// PTX: bytes of dynamic shared memory (what unsized `.extern .shared` arrays get).
    pub dynamic_shared: Option<Expr>,
    /// The default instance.
    pub sizes: BTreeMap<String, i64>,
    pub args: BTreeMap<String, ArgBinding>,
}

/// What one kernel parameter is bound to.
#[derive(Clone, Debug)]
pub enum ArgBinding {
    Tensor {
        tensor: String,
        shape: Vec<Expr>,
        role: Role,
        dtype: Dtype,
        /// The declared values of an integer tensor's elements (`values = …`).
        values: Option<Vec<ValueItem>>,
    },
    /// A real-valued argument kept symbolic (`{ scalar = "eps" }`).
    Scalar(String),
    /// A real-valued argument fixed to a number.
    Value(f64),
    /// An integer argument.
    Int(Expr),
}

/// A launch with every size fixed.
#[derive(Clone, Debug, PartialEq)]
pub struct Instance {
    pub sizes: BTreeMap<String, i64>,
    /// Programs (CTAs) per axis, always three entries (missing axes are 1).
    pub grid: [i64; 3],
    /// PTX: threads per CTA per axis (missing axes are 1; `[0, 1, 1]` when the launch
    /// gives no `block`, so the kernel's `.reqntid`/`.maxntid` decides).
    pub block: [i64; 3],
    /// PTX: the one CTA to analyse, if the launch names one.
    pub cta: Option<[i64; 3]>,
    /// PTX: bytes of dynamic shared memory; `None`: the launch does not say (the
    /// executor then assumes [`DEFAULT_DYNAMIC_SHARED`]).
    pub dynamic_shared: Option<u64>,
    /// Distinct tensors, in order of first mention in `args`.
    pub tensors: Vec<TensorDecl>,
    pub args: BTreeMap<String, ArgValue>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct TensorDecl {
    pub name: String,
    pub shape: Vec<usize>,
    pub role: Role,
    /// The element type (`dtype = "int64"` in the launch; float32 by default).
    pub dtype: Dtype,
    /// The values an integer input's elements take, sorted and distinct (`values =
    /// "0..N"` in the launch); `None`: every value of the dtype. A load at an address
    /// computed from such an element is split over these values (a gather).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub values: Option<Vec<i64>>,
}

/// The element type of a launch tensor: how many bytes an element takes and whether its
/// elements are reals (floats) or integers (exact, within the type's range).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    #[default]
    F32,
    F16,
    Bf16,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
}

impl Dtype {
    /// Every dtype, for messages and tests.
    pub const ALL: [Dtype; 13] = [
        Dtype::F32,
        Dtype::F16,
        Dtype::Bf16,
        Dtype::F64,
        Dtype::I8,
        Dtype::I16,
        Dtype::I32,
        Dtype::I64,
        Dtype::U8,
        Dtype::U16,
        Dtype::U32,
        Dtype::U64,
        Dtype::Bool,
    ];

    /// Read a launch `dtype`: NumPy/PyTorch names (`float32`, `int64`, `bool`, …) or
    /// PTX-style short ones (`f32`, `s64`/`i64`, `u8`, …).
    pub fn parse(s: &str) -> Option<Dtype> {
        Some(match s.trim().trim_start_matches("torch.") {
            "float32" | "f32" | "float" => Dtype::F32,
            "float16" | "f16" | "half" => Dtype::F16,
            "bfloat16" | "bf16" => Dtype::Bf16,
            "float64" | "f64" | "double" => Dtype::F64,
            "int8" | "i8" | "s8" => Dtype::I8,
            "int16" | "i16" | "s16" => Dtype::I16,
            "int32" | "i32" | "s32" => Dtype::I32,
            "int64" | "i64" | "s64" | "long" => Dtype::I64,
            "uint8" | "u8" => Dtype::U8,
            "uint16" | "u16" => Dtype::U16,
            "uint32" | "u32" => Dtype::U32,
            "uint64" | "u64" => Dtype::U64,
            "bool" => Dtype::Bool,
            _ => return None,
        })
    }

    /// The NumPy name (`float32`, `int64`, `bool`).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "float32",
            Dtype::F16 => "float16",
            Dtype::Bf16 => "bfloat16",
            Dtype::F64 => "float64",
            Dtype::I8 => "int8",
            Dtype::I16 => "int16",
            Dtype::I32 => "int32",
            Dtype::I64 => "int64",
            Dtype::U8 => "uint8",
            Dtype::U16 => "uint16",
            Dtype::U32 => "uint32",
            Dtype::U64 => "uint64",
            Dtype::Bool => "bool",
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            Dtype::I8 | Dtype::U8 | Dtype::Bool => 1,
            Dtype::F16 | Dtype::Bf16 | Dtype::I16 | Dtype::U16 => 2,
            Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
            Dtype::F64 | Dtype::I64 | Dtype::U64 => 8,
        }
    }

    /// Whether elements are reals (a float type).
    pub fn is_float(self) -> bool {
        matches!(self, Dtype::F32 | Dtype::F16 | Dtype::Bf16 | Dtype::F64)
    }

    /// The integers an element of an integer dtype can hold (`None` for floats); a
    /// `bool` holds 0 and 1.
    pub fn int_range(self) -> Option<(i128, i128)> {
        let bits = 8 * self.bytes() as u32;
        match self {
            Dtype::Bool => Some((0, 1)),
            Dtype::U8 | Dtype::U16 | Dtype::U32 | Dtype::U64 => Some((0, (1i128 << bits) - 1)),
            Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64 => {
                Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
            }
            _ => None,
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl TensorDecl {
    /// A real `v` made a value this tensor's elements can take: for an integer tensor
    /// the nearest declared value (ties to the smaller), else `v` rounded and clamped to
    /// the dtype's range; a real tensor's `v` is unchanged. The refuter's points, the
    /// cross-check and counterexample files pick integer inputs this way.
    pub fn fit(&self, v: f64) -> f64 {
        match (&self.values, self.dtype.int_range()) {
            (Some(vals), _) => fit_declared(vals, v),
            (None, Some((lo, hi))) if v.is_finite() => v.round().clamp(lo as f64, hi as f64),
            (None, Some((lo, _))) => lo as f64,
            (None, None) => v,
        }
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Row-major multi-index of a flat offset (which must be in bounds).
    pub fn unravel(&self, mut flat: usize) -> Vec<i64> {
        let mut index = vec![0i64; self.shape.len()];
        for (slot, &dim) in index.iter_mut().zip(&self.shape).rev() {
            if dim > 0 {
                *slot = (flat % dim) as i64;
                flat /= dim;
            }
        }
        index
    }
}

impl Instance {
    /// The NumPy dtype `lift run` writes tensor `name` as: its own for integer and bool
    /// tensors, float64 for every float tensor (concrete runs compute in f64, the
    /// reals approximated) and for names that are no tensor.
    pub fn npy_dtype(&self, name: &str) -> &'static str {
        match self.tensors.iter().find(|t| t.name == name) {
            Some(t) if !t.dtype.is_float() => t.dtype.name(),
            _ => "float64",
        }
    }
}

/// The concrete value of one kernel parameter.
#[derive(Clone, Debug, PartialEq)]
pub enum ArgValue {
    /// Index into [`Instance::tensors`].
    Tensor(usize),
    Scalar(String),
    Value(f64),
    Int(i64),
}

impl Launch {
    /// Read a launch file.
    pub fn from_file(path: &Path) -> Result<Launch, LaunchError> {
        let text = std::fs::read_to_string(path).map_err(|e| LaunchError {
            file: path.display().to_string(),
            message: format!("cannot read launch file: {e}"),
        })?;
        Launch::parse(&text, &path.display().to_string())
    }

    /// Parse launch TOML; `file` names it in messages.
    pub fn parse(text: &str, file: &str) -> Result<Launch, LaunchError> {
        let err = |message: String| LaunchError {
            file: file.to_string(),
            message,
        };
        let raw: LaunchToml = toml::from_str(text).map_err(|e| err(e.to_string()))?;
        let expr = |e: &IntOrExpr, what: &str| -> Result<Expr, LaunchError> {
            match e {
                IntOrExpr::Int(i) => Ok(Expr::Int(*i)),
                IntOrExpr::Expr(s) => Expr::parse(s).map_err(|m| err(format!("{what}: {m}"))),
            }
        };
        let grid = raw
            .grid
            .unwrap_or_default()
            .iter()
            .map(|g| expr(g, "grid"))
            .collect::<Result<Vec<_>, _>>()?;
        if grid.len() > 3 {
            return Err(err(format!("grid has {} axes; at most 3", grid.len())));
        }
        let block = raw
            .block
            .unwrap_or_default()
            .iter()
            .map(|b| expr(b, "block"))
            .collect::<Result<Vec<_>, _>>()?;
        let dynamic_shared = raw
            .dynamic_shared
            .as_ref()
            .map(|d| expr(d, "dynamic_shared"))
            .transpose()?;
        let binding = |name: &str, a: ArgToml| -> Result<ArgBinding, LaunchError> {
            Ok(match a {
                ArgToml::Tensor {
                    tensor,
                    shape,
                    role,
                    dtype,
                    values,
                } => ArgBinding::Tensor {
                    values: values
                        .map(|v| value_items(v, &format!("args.{name}.values")))
                        .transpose()
                        .map_err(err)?,
                    dtype: match dtype {
                        None => Dtype::F32,
                        Some(d) => Dtype::parse(&d).ok_or_else(|| {
                            err(format!(
                                "args.{name}: unknown dtype \"{d}\" (known: {})",
                                Dtype::ALL.map(Dtype::name).join(", ")
                            ))
                        })?,
                    },
                    tensor,
                    shape: shape
                        .iter()
                        .map(|d| expr(d, &format!("args.{name}.shape")))
                        .collect::<Result<_, _>>()?,
                    role,
                },
                ArgToml::Scalar { scalar } => ArgBinding::Scalar(scalar),
                ArgToml::Value { value } => ArgBinding::Value(value),
                ArgToml::Int(e) => ArgBinding::Int(expr(&e, &format!("args.{name}"))?),
                ArgToml::Fields { .. } => {
                    return Err(err(format!(
                        "args.{name}: fields nest only one level (give every field of a nested struct by its byte offset in the outer one)"
                    )))
                }
            })
        };
        let mut args = BTreeMap::new();
        for (name, a) in raw.args {
            match a {
                ArgToml::Fields { fields } => {
                    if fields.is_empty() {
                        return Err(err(format!("args.{name}: `fields` binds no field")));
                    }
                    for (off, f) in fields {
                        let offset: u64 = off.parse().map_err(|_| {
                            err(format!(
                                "args.{name}.fields: `{off}` is not a byte offset (fields are keyed by their offset in the struct: 0, 8, 16, ...)"
                            ))
                        })?;
                        let key = field_key(&name, offset);
                        let b = binding(&key, f)?;
                        args.insert(key, b);
                    }
                }
                a => {
                    let b = binding(&name, a)?;
                    args.insert(name, b);
                }
            }
        }
        Ok(Launch {
            file: file.to_string(),
            grid,
            block,
            cta: raw.cta.unwrap_or_default(),
            dynamic_shared,
            sizes: raw.sizes,
            args,
        })
    }

    /// The launch file beside a kernel: `dir/kernel.launch.toml` for `dir/kernel.ttir`.
    pub fn beside(kernel: &Path) -> PathBuf {
        kernel.with_extension("launch.toml")
    }

    /// Fix every size: the launch's defaults, then `overrides` on top.
    pub fn instantiate(&self, overrides: &BTreeMap<String, i64>) -> Result<Instance, LaunchError> {
        let err = |message: String| LaunchError {
            file: self.file.clone(),
            message,
        };
        let mut sizes = self.sizes.clone();
        for (k, v) in overrides {
            sizes.insert(k.clone(), *v);
        }
        let eval = |e: &Expr, what: &str| e.eval(&sizes).map_err(|m| err(format!("{what}: {m}")));
        let mut grid = [1i64; 3];
        for (axis, g) in self.grid.iter().enumerate() {
            grid[axis] = eval(g, "grid")?;
            if grid[axis] < 0 {
                return Err(err(format!(
                    "grid axis {axis} is {} (negative)",
                    grid[axis]
                )));
            }
        }
        let mut block = [0i64, 1, 1];
        for (axis, b) in self.block.iter().enumerate().take(3) {
            block[axis] = eval(b, "block")?;
            if block[axis] <= 0 {
                return Err(err(format!(
                    "block axis {axis} is {} (must be positive)",
                    block[axis]
                )));
            }
        }
        let cta = match self.cta.as_slice() {
            [] => None,
            c if c.len() <= 3 => {
                let mut v = [0i64; 3];
                v[..c.len()].copy_from_slice(c);
                Some(v)
            }
            c => return Err(err(format!("cta has {} entries; at most 3", c.len()))),
        };
        if let Some(c) = cta {
            for axis in 0..3 {
                if !(0..grid[axis]).contains(&c[axis]) {
                    return Err(err(format!(
                        "cta = {c:?} lies outside the grid {grid:?} (axis {axis}: {} is not in 0..{})",
                        c[axis], grid[axis]
                    )));
                }
            }
        }
        let dynamic_shared = match &self.dynamic_shared {
            Some(e) => {
                let v = eval(e, "dynamic_shared")?;
                Some(
                    u64::try_from(v)
                        .map_err(|_| err(format!("dynamic_shared is {v} bytes (negative)")))?,
                )
            }
            None => None,
        };
        let mut tensors: Vec<TensorDecl> = Vec::new();
        let mut args = BTreeMap::new();
        for (name, binding) in &self.args {
            let value = match binding {
                ArgBinding::Tensor {
                    tensor,
                    shape,
                    role,
                    dtype,
                    values,
                } => {
                    let values = match values {
                        None => None,
                        Some(items) => Some(
                            declared_values(items, *dtype, *role, &|e: &Expr| {
                                eval(e, &format!("values of {tensor}"))
                            })
                            .map_err(|m| err(format!("values of {tensor}: {m}")))?,
                        ),
                    };
                    let mut dims = Vec::with_capacity(shape.len());
                    for d in shape {
                        let v = eval(d, &format!("shape of {tensor}"))?;
                        if v < 0 {
                            return Err(err(format!("tensor {tensor} has negative extent {v}")));
                        }
                        dims.push(v as usize);
                    }
                    match tensors.iter().position(|t| &t.name == tensor) {
                        Some(i)
                            if tensors[i].shape != dims
                                || tensors[i].role != *role
                                || tensors[i].dtype != *dtype
                                || tensors[i].values != values =>
                        {
                            return Err(err(format!(
                                "tensor {tensor} is bound twice with different shapes, roles, dtypes or values"
                            )))
                        }
                        Some(i) => ArgValue::Tensor(i),
                        None => {
                            tensors.push(TensorDecl {
                                name: tensor.clone(),
                                shape: dims,
                                role: *role,
                                dtype: *dtype,
                                values,
                            });
                            ArgValue::Tensor(tensors.len() - 1)
                        }
                    }
                }
                ArgBinding::Scalar(s) => ArgValue::Scalar(s.clone()),
                ArgBinding::Value(v) => ArgValue::Value(*v),
                ArgBinding::Int(e) => ArgValue::Int(eval(e, &format!("args.{name}"))?),
            };
            args.insert(name.clone(), value);
        }
        Ok(Instance {
            sizes,
            grid,
            block,
            cta,
            dynamic_shared,
            tensors,
            args,
        })
    }

    /// Size names that appear as a whole extent of some tensor, with the tensor and
    /// axis: used to read sizes off input arrays.
    pub fn size_axes(&self) -> Vec<(String, String, usize)> {
        let mut out = Vec::new();
        for binding in self.args.values() {
            if let ArgBinding::Tensor { tensor, shape, .. } = binding {
                for (axis, d) in shape.iter().enumerate() {
                    if let Expr::Size(name) = d {
                        out.push((name.clone(), tensor.clone(), axis));
                    }
                }
            }
        }
        out
    }
}

/// Integer expressions over sizes: literals, names, `+ - * // %`, parentheses,
/// `cdiv(a, b)`, `min(a, b)`, `max(a, b)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Int(i64),
    Size(String),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    FloorDiv,
    Mod,
    CeilDiv,
    Min,
    Max,
}

impl Expr {
    pub fn parse(text: &str) -> Result<Expr, String> {
        let tokens = tokenize(text)?;
        let mut p = ExprParser { tokens, pos: 0 };
        let e = p.sum()?;
        match p.tokens.get(p.pos) {
            None => Ok(e),
            Some(t) => Err(format!("unexpected '{t}' in expression '{text}'")),
        }
    }

    pub fn eval(&self, sizes: &BTreeMap<String, i64>) -> Result<i64, String> {
        Ok(match self {
            Expr::Int(i) => *i,
            Expr::Size(name) => *sizes.get(name).ok_or_else(|| {
                let known: Vec<&str> = sizes.keys().map(|s| s.as_str()).collect();
                format!(
                    "unknown size '{name}' (known: {}); give it with --size {name}=…",
                    known.join(", ")
                )
            })?,
            Expr::Neg(e) => e.eval(sizes)?.checked_neg().ok_or("overflow")?,
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(sizes)?, b.eval(sizes)?);
                let nonzero = |b: i64| {
                    if b == 0 {
                        Err(format!("division by zero in {self}"))
                    } else {
                        Ok(b)
                    }
                };
                match op {
                    BinOp::Add => a.checked_add(b).ok_or("overflow")?,
                    BinOp::Sub => a.checked_sub(b).ok_or("overflow")?,
                    BinOp::Mul => a.checked_mul(b).ok_or("overflow")?,
                    BinOp::FloorDiv => a.div_euclid(nonzero(b)?),
                    BinOp::Mod => a.rem_euclid(nonzero(b)?),
                    BinOp::CeilDiv => {
                        let b = nonzero(b)?;
                        -((-a).div_euclid(b))
                    }
                    BinOp::Min => a.min(b),
                    BinOp::Max => a.max(b),
                }
            }
        })
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(i) => write!(f, "{i}"),
            Expr::Size(s) => write!(f, "{s}"),
            Expr::Neg(e) => write!(f, "-({e})"),
            Expr::Bin(op, a, b) => match op {
                BinOp::CeilDiv => write!(f, "cdiv({a}, {b})"),
                BinOp::Min => write!(f, "min({a}, {b})"),
                BinOp::Max => write!(f, "max({a}, {b})"),
                _ => {
                    let sym = match op {
                        BinOp::Add => "+",
                        BinOp::Sub => "-",
                        BinOp::Mul => "*",
                        BinOp::FloorDiv => "//",
                        _ => "%",
                    };
                    write!(f, "({a} {sym} {b})")
                }
            },
        }
    }
}

/// The declared value nearest to `v` (ties to the smaller; NaN gives the smallest).
pub fn fit_declared(vals: &[i64], v: f64) -> f64 {
    let Some(&first) = vals.first() else {
        return v;
    };
    if !v.is_finite() {
        return if v == f64::INFINITY {
            *vals.last().unwrap_or(&first) as f64
        } else {
            first as f64
        };
    }
    let k = vals.partition_point(|&x| (x as f64) < v);
    let pick = match (k.checked_sub(1).map(|i| vals[i]), vals.get(k)) {
        (Some(a), Some(&b)) => {
            if v - a as f64 <= b as f64 - v {
                a
            } else {
                b
            }
        }
        (Some(a), None) => a,
        (None, Some(&b)) => b,
        (None, None) => first,
    };
    pick as f64
}

/// Reads a tensor's `values` items (syntax only; evaluated per instance).
fn value_items(v: ValuesToml, what: &str) -> Result<Vec<ValueItem>, String> {
    let items = match v {
        ValuesToml::One(x) => vec![x],
        ValuesToml::Many(xs) => xs,
    };
    let parse = |e: &str| Expr::parse(e.trim()).map_err(|m| format!("{what}: {m}"));
    items
        .into_iter()
        .map(|item| match item {
            IntOrExpr::Int(i) => Ok(ValueItem::One(Expr::Int(i))),
            IntOrExpr::Expr(text) => match text.split_once("..") {
                Some((lo, hi)) => {
                    let (hi, inclusive) = match hi.strip_prefix('=') {
                        Some(h) => (h, true),
                        None => (hi, false),
                    };
                    Ok(ValueItem::Range(parse(lo)?, parse(hi)?, inclusive))
                }
                None => Ok(ValueItem::One(parse(&text)?)),
            },
        })
        .collect()
}

/// A tensor's declared values at one instance: sorted, distinct, each one its dtype
/// holds; only integer inputs may declare values.
fn declared_values(
    items: &[ValueItem],
    dtype: Dtype,
    role: Role,
    eval: &dyn Fn(&Expr) -> Result<i64, LaunchError>,
) -> Result<Vec<i64>, String> {
    let Some((lo, hi)) = dtype.int_range() else {
        return Err(format!("`values` needs an integer dtype, not {dtype}"));
    };
    if role == Role::Out {
        return Err("`values` describes input data; this tensor is an output".into());
    }
    let ev = |e: &Expr| eval(e).map_err(|e| e.message);
    let mut out = Vec::new();
    for item in items {
        let (a, b) = match item {
            ValueItem::One(e) => {
                let v = ev(e)?;
                (v, v + 1)
            }
            ValueItem::Range(a, b, inclusive) => (ev(a)?, ev(b)? + *inclusive as i64),
        };
        if b.saturating_sub(a) as usize > MAX_DECLARED_VALUES {
            return Err(format!(
                "{a}..{b} declares more than {MAX_DECLARED_VALUES} values"
            ));
        }
        for v in a..b {
            if (v as i128) < lo || (v as i128) > hi {
                return Err(format!("{v} is not a value of {dtype}"));
            }
            out.push(v);
        }
    }
    out.sort_unstable();
    out.dedup();
    if out.is_empty() {
        return Err("declares no value (an empty range)".into());
    }
    if out.len() > MAX_DECLARED_VALUES {
        return Err(format!("declares more than {MAX_DECLARED_VALUES} values"));
    }
    Ok(out)
}

fn tokenize(text: &str) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            tokens.push("//".into());
            i += 2;
        } else if "+-*%(),".contains(c) {
            tokens.push(c.to_string());
            i += 1;
        } else {
            return Err(format!("unexpected character '{c}' in expression '{text}'"));
        }
    }
    Ok(tokens)
}

struct ExprParser {
    tokens: Vec<String>,
    pos: usize,
}

impl ExprParser {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(|s| s.as_str())
    }

    fn expect(&mut self, t: &str) -> Result<(), String> {
        if self.peek() == Some(t) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!(
                "expected '{t}', found {}",
                self.peek()
                    .map_or("end of expression".into(), |s| format!("'{s}'"))
            ))
        }
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut e = self.product()?;
        while let Some(op) = self.peek() {
            let op = match op {
                "+" => BinOp::Add,
                "-" => BinOp::Sub,
                _ => break,
            };
            self.pos += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.product()?));
        }
        Ok(e)
    }

    fn product(&mut self) -> Result<Expr, String> {
        let mut e = self.atom()?;
        while let Some(op) = self.peek() {
            let op = match op {
                "*" => BinOp::Mul,
                "//" => BinOp::FloorDiv,
                "%" => BinOp::Mod,
                _ => break,
            };
            self.pos += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.atom()?));
        }
        Ok(e)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let Some(tok) = self.peek().map(str::to_string) else {
            return Err("expression ends too early".into());
        };
        self.pos += 1;
        if tok == "-" {
            return Ok(Expr::Neg(Box::new(self.atom()?)));
        }
        if tok == "(" {
            let e = self.sum()?;
            self.expect(")")?;
            return Ok(e);
        }
        if let Some(first) = tok.chars().next() {
            if first.is_ascii_digit() {
                return tok
                    .parse()
                    .map(Expr::Int)
                    .map_err(|_| format!("bad integer '{tok}'"));
            }
        }
        let func = match tok.as_str() {
            "cdiv" => Some(BinOp::CeilDiv),
            "min" => Some(BinOp::Min),
            "max" => Some(BinOp::Max),
            _ => None,
        };
        match func {
            Some(op) if self.peek() == Some("(") => {
                self.pos += 1;
                let a = self.sum()?;
                self.expect(",")?;
                let b = self.sum()?;
                self.expect(")")?;
                Ok(Expr::Bin(op, Box::new(a), Box::new(b)))
            }
            _ if tok.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => Ok(Expr::Size(tok)),
            _ => Err(format!("unexpected '{tok}'")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn eval(text: &str, sizes: &[(&str, i64)]) -> Result<i64, String> {
        let sizes = sizes.iter().map(|(k, v)| (k.to_string(), *v)).collect();
        Expr::parse(text)?.eval(&sizes)
    }

    #[test]
    fn expressions_follow_python_integer_semantics() {
        assert_eq!(eval("cdiv(N, 4)", &[("N", 9)]), Ok(3));
        assert_eq!(eval("cdiv(N, 4)", &[("N", 8)]), Ok(2));
        assert_eq!(eval("M * N + 1", &[("M", 3), ("N", 4)]), Ok(13));
        assert_eq!(eval("(M + 1) * 2", &[("M", 3)]), Ok(8));
        assert_eq!(eval("-7 // 2", &[]), Ok(-4));
        assert_eq!(eval("-7 % 2", &[]), Ok(1));
        assert_eq!(eval("min(N, 4) - max(1, 2)", &[("N", 9)]), Ok(2));
    }

    #[test]
    fn bad_expressions_say_what_is_wrong() {
        assert!(eval("N +", &[("N", 1)])
            .unwrap_err()
            .contains("ends too early"));
        assert!(eval("K", &[("N", 1)])
            .unwrap_err()
            .contains("unknown size 'K'"));
        assert!(eval("N / 2", &[("N", 1)])
            .unwrap_err()
            .contains("unexpected character '/'"));
        assert!(eval("N // 0", &[("N", 1)])
            .unwrap_err()
            .contains("division by zero"));
    }

    #[test]
    fn launch_instantiates_tensors_and_ints() {
        let l = Launch::parse(
            r#"
grid = ["M"]
sizes = { M = 3, N = 4 }
[args]
y_ptr = { tensor = "y", shape = ["M", "N"], role = "out" }
x_ptr = { tensor = "x", shape = ["M", "N"] }
n_cols = "N"
eps = { scalar = "eps" }
alpha = { value = 0.5 }
"#,
            "t.toml",
        )
        .unwrap();
        let inst = l
            .instantiate(&[("N".to_string(), 5)].into_iter().collect())
            .unwrap();
        assert_eq!(inst.grid, [3, 1, 1]);
        assert_eq!(inst.args["n_cols"], ArgValue::Int(5));
        assert_eq!(inst.args["alpha"], ArgValue::Value(0.5));
        assert_eq!(inst.args["eps"], ArgValue::Scalar("eps".into()));
        let ArgValue::Tensor(y) = inst.args["y_ptr"] else {
            panic!("y_ptr is not a tensor")
        };
        assert_eq!(inst.tensors[y].shape, vec![3, 5]);
        assert_eq!(inst.tensors[y].role, Role::Out);
        assert_eq!(inst.tensors[y].unravel(7), vec![1, 2]);
    }

    #[test]
    fn tensors_have_a_dtype_float32_by_default() {
        let text = r#"
            sizes = { N = 3 }
            [args]
            x = { tensor = "x", shape = ["N"] }
            y = { tensor = "y", shape = ["N"], role = "out", dtype = "int64" }
            m = { tensor = "m", shape = ["N"], dtype = "bool" }
            h = { tensor = "h", shape = ["N"], dtype = "f16" }
        "#;
        let inst = Launch::parse(text, "t.toml")
            .unwrap()
            .instantiate(&BTreeMap::new())
            .unwrap();
        let dtype = |n: &str| inst.tensors.iter().find(|t| t.name == n).unwrap().dtype;
        assert_eq!(dtype("x"), Dtype::F32);
        assert_eq!(dtype("y"), Dtype::I64);
        assert_eq!(dtype("m"), Dtype::Bool);
        assert_eq!(dtype("h"), Dtype::F16);
        assert_eq!(
            (Dtype::I64.bytes(), Dtype::Bool.bytes(), Dtype::F16.bytes()),
            (8, 1, 2)
        );
        assert_eq!(Dtype::Bool.int_range(), Some((0, 1)));
        assert_eq!(Dtype::I8.int_range(), Some((-128, 127)));
        assert_eq!(Dtype::U16.int_range(), Some((0, 65535)));
        assert_eq!(Dtype::F64.int_range(), None);
        assert_eq!(inst.npy_dtype("y"), "int64");
        assert_eq!(inst.npy_dtype("m"), "bool");
        assert_eq!(inst.npy_dtype("x"), "float64");
        for d in Dtype::ALL {
            assert_eq!(Dtype::parse(d.name()), Some(d));
        }
    }

    #[test]
    fn integer_inputs_declare_their_values() {
        let text = r#"
            sizes = { N = 4 }
            [args]
            t = { tensor = "t", shape = [3], dtype = "int64", values = ["0..N", -100] }
            u = { tensor = "u", shape = [3], dtype = "i32", values = "1..=N - 2" }
            v = { tensor = "v", shape = [3], dtype = "i32" }
        "#;
        let inst = Launch::parse(text, "t.toml")
            .unwrap()
            .instantiate(&BTreeMap::from([("N".to_string(), 5)]))
            .unwrap();
        let decl = |n: &str| inst.tensors.iter().find(|t| t.name == n).unwrap().clone();
        assert_eq!(decl("t").values, Some(vec![-100, 0, 1, 2, 3, 4]));
        assert_eq!(decl("u").values, Some(vec![1, 2, 3]));
        assert_eq!(decl("v").values, None);
        // Points become the nearest declared value (ties to the smaller).
        let t = decl("t");
        assert_eq!(
            [-1000.0, -51.0, -49.0, 2.5, 2.6, 99.0].map(|v| t.fit(v)),
            [-100.0, -100.0, 0.0, 2.0, 3.0, 4.0]
        );
        assert_eq!(decl("v").fit(2.6), 3.0);
    }

    #[test]
    fn bad_values_are_errors_naming_the_tensor() {
        for (args, want) in [
            (
                r#"x = { tensor = "x", shape = [2], values = "0..2" }"#,
                "integer dtype",
            ),
            (
                r#"x = { tensor = "x", shape = [2], dtype = "u8", values = "-1..2" }"#,
                "-1 is not a value of uint8",
            ),
            (
                r#"x = { tensor = "x", shape = [2], dtype = "i64", values = "2..2" }"#,
                "no value",
            ),
            (
                r#"x = { tensor = "x", shape = [2], dtype = "i64", role = "out", values = "0..2" }"#,
                "output",
            ),
            (
                r#"x = { tensor = "x", shape = [2], dtype = "i64", values = "0..M" }"#,
                "M",
            ),
        ] {
            let text = format!("[args]\n{args}\n");
            let e = Launch::parse(&text, "t.toml")
                .and_then(|l| l.instantiate(&BTreeMap::new()))
                .unwrap_err()
                .to_string();
            assert!(e.contains("values of x") || e.contains("values"), "{e}");
            assert!(e.contains(want), "{args}: {e}");
        }
    }

    #[test]
    fn bad_dtypes_are_errors_naming_the_argument() {
        let text = r#"
            [args]
            y = { tensor = "y", shape = [2], dtype = "int128" }
        "#;
        let e = Launch::parse(text, "t.toml").unwrap_err().to_string();
        assert!(
            e.contains("t.toml") && e.contains("args.y") && e.contains("int128"),
            "{e}"
        );
        // One tensor bound twice with two dtypes.
        let text = r#"
            [args]
            a = { tensor = "y", shape = [2], dtype = "int32" }
            b = { tensor = "y", shape = [2], dtype = "int64" }
        "#;
        let e = Launch::parse(text, "t.toml")
            .unwrap()
            .instantiate(&BTreeMap::new())
            .unwrap_err()
            .to_string();
        assert!(e.contains("dtypes"), "{e}");
    }

    #[test]
    fn unknown_keys_are_rejected_with_the_file_name() {
        let e = Launch::parse("grd = [1]", "k.launch.toml").unwrap_err();
        assert!(e.to_string().starts_with("k.launch.toml:"), "{e}");
        assert!(e.to_string().contains("grd"), "{e}");
    }
}
