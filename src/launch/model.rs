//! The launch model: a parsed [`Launch`] (sizes still symbolic), its argument bindings
//! and tensor declarations, and [`Launch::instantiate`], which fixes every size and
//! gives a concrete [`Instance`].
//!
//! Invariant: `instantiate` gives a fully concrete `Instance` or a `LaunchError` naming
//! the file; nothing here knows of kernels.

use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::dtype::Dtype;
use super::expr::Expr;

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

/// The launch key of the field of struct parameter `param` at byte `offset`.
pub fn field_key(param: &str, offset: u64) -> String {
    format!("{param}+{offset}")
}

/// The struct parameter and byte offset a [`field_key`] names; `None` for other keys.
pub fn field_of(key: &str) -> Option<(&str, u64)> {
    let (param, off) = key.rsplit_once('+')?;
    Some((param, off.parse().ok()?))
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
    /// PTX: CTAs per cluster per axis (`cluster = [2, 1, 1]`); empty: the kernel's
    /// `.reqnctapercluster`, else clusters of one CTA.
    pub cluster: Vec<i64>,
    /// PTX: bytes of dynamic shared memory (what unsized `.extern .shared` arrays get).
    pub dynamic_shared: Option<Expr>,
    /// The default instance.
    pub sizes: BTreeMap<String, i64>,
    pub args: BTreeMap<String, ArgBinding>,
    /// PTX: the tensor maps passed by value (`p = { tensormap = ... }`), by parameter:
    /// the map's tensor is `args[p]`, its box and swizzle are here.
    pub tensormaps: BTreeMap<String, TensorMapBox>,
}

/// What one kernel parameter is bound to.
#[derive(Clone, Debug)]
pub enum ArgBinding {
    Tensor {
        tensor: String,
        shape: Vec<Expr>,
        role: Role,
        /// The element type the launch states; `None`: not stated (the kernel's IR
        /// decides where it types its pointers, see [`Launch::type_tensors`]; else
        /// float32).
        dtype: Option<Dtype>,
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
    /// PTX: the one CTA to analyse, if the launch names one (with clusters of several
    /// CTAs: the whole cluster it belongs to).
    pub cta: Option<[i64; 3]>,
    /// PTX: CTAs per cluster per axis, if the launch says (each divides the grid's).
    pub cluster: Option<[i64; 3]>,
    /// PTX: bytes of dynamic shared memory; `None`: the launch does not say (the
    /// executor then assumes [`DEFAULT_DYNAMIC_SHARED`]).
    pub dynamic_shared: Option<u64>,
    /// Distinct tensors, in order of first mention in `args`.
    pub tensors: Vec<TensorDecl>,
    pub args: BTreeMap<String, ArgValue>,
    /// PTX: as [`Launch::tensormaps`] (the map's tensor is `args[p]`).
    pub tensormaps: BTreeMap<String, TensorMapBox>,
}

/// The box and swizzle of a tensor map the launch passes (its tensor is bound like a
/// tensor argument): the box outermost dimension first, the swizzle in bytes.
#[derive(Clone, Debug, PartialEq)]
pub struct TensorMapBox {
    pub box_dim: Vec<u64>,
    pub swizzle: u64,
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
        let cluster = match self.cluster.as_slice() {
            [] => None,
            c if c.len() <= 3 => {
                let mut v = [1i64; 3];
                v[..c.len()].copy_from_slice(c);
                for axis in 0..3 {
                    if v[axis] <= 0 || grid[axis] % v[axis] != 0 {
                        return Err(err(format!(
                            "cluster = {c:?} does not divide the grid {grid:?} (axis {axis}: {} CTAs in clusters of {})",
                            grid[axis], v[axis]
                        )));
                    }
                }
                if v.iter().product::<i64>() > 16 {
                    return Err(err(format!(
                        "cluster = {c:?} has more than 16 CTAs (the most a GPU runs as one cluster)"
                    )));
                }
                Some(v)
            }
            c => return Err(err(format!("cluster has {} entries; at most 3", c.len()))),
        };
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
                    let dtype = &dtype.unwrap_or_default();
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
            cluster,
            dynamic_shared,
            tensors,
            args,
            tensormaps: self.tensormaps.clone(),
        })
    }

    /// Gives each tensor parameter the element type its kernel states (`typed`:
    /// parameter name → dtype, read from the kernel's IR by the caller). A parameter
    /// whose launch states no `dtype` takes the kernel's; one that states a dtype the
    /// kernel contradicts (float32 for an `i64` pointer) is an error naming the
    /// parameter, both types and `kernel_at` (the kernel file and line that types it).
    pub fn type_tensors(
        &mut self,
        typed: &BTreeMap<String, Dtype>,
        kernel_at: &str,
    ) -> Result<(), LaunchError> {
        for (name, binding) in self.args.iter_mut() {
            let (ArgBinding::Tensor { dtype, .. }, Some(&ir)) = (binding, typed.get(name)) else {
                continue;
            };
            match *dtype {
                None => *dtype = Some(ir),
                Some(stated) if stated.agrees_with(ir) => {}
                Some(stated) => {
                    return Err(LaunchError {
                        file: self.file.clone(),
                        message: format!(
                            "args.{name} states dtype = \"{stated}\", but {kernel_at} declares `{name}` a pointer to {ir} elements (drop `dtype`: the kernel's IR decides it)"
                        ),
                    })
                }
            }
        }
        Ok(())
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

/// A tensor's declared values at one instance: sorted, distinct, each one its dtype
/// holds; only integer inputs may declare values.
pub(super) fn declared_values(
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
