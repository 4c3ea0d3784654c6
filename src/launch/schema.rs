//! The TOML schema of a launch file (docs/launch.md): the serde shapes of the file, and
//! [`Launch::parse`], which checks them and builds a [`Launch`].
//!
//! Invariant: unknown keys are errors naming the file; nothing here evaluates a size.

use super::dtype::Dtype;
use super::expr::Expr;
use super::model::*;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;

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
    /// A bool flag (`HAS_BIAS = true`): 1 or 0, as Triton passes a Python bool.
    Bool(bool),
    /// A PTX struct parameter passed by value (`.param .b8 p[24]`): each field bound by
    /// its byte offset, `{ fields = { 0 = { tensor = "x", ... }, 16 = "N" } }`.
    Fields {
        fields: BTreeMap<String, ArgToml>,
    },
    /// A TMA tensor map the host made and passes by value (`.param .align 64 .b8
    /// p[128]`, a `__grid_constant__ CUtensorMap`): the tensor it maps and its box,
    /// `{ tensormap = { tensor = "A", shape = ["M", "K"], box = [64, 32], swizzle = 64 } }`.
    TensorMap {
        tensormap: TensorMapToml,
    },
}

/// The tensor map of an [`ArgToml::TensorMap`]: a row-major tensor (bound as a tensor
/// argument is), the box each copy moves (outermost dimension first, as `shape`) and
/// the swizzle in bytes (0, 32, 64 or 128).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TensorMapToml {
    tensor: String,
    shape: Vec<IntOrExpr>,
    #[serde(default)]
    dtype: Option<String>,
    #[serde(rename = "box")]
    box_dim: Vec<u64>,
    #[serde(default)]
    swizzle: u64,
}

/// `values = "0..N"` or `values = ["0..N", -100]`.
#[derive(Clone, Debug, Deserialize)]
#[serde(untagged)]
enum ValuesToml {
    One(IntOrExpr),
    Many(Vec<IntOrExpr>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LaunchToml {
    grid: Option<Vec<IntOrExpr>>,
    block: Option<Vec<IntOrExpr>>,
    cta: Option<Vec<i64>>,
    cluster: Option<Vec<i64>>,
    dynamic_shared: Option<IntOrExpr>,
    #[serde(default)]
    sizes: BTreeMap<String, i64>,
    #[serde(default)]
    args: BTreeMap<String, ArgToml>,
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
                        None => None,
                        Some(d) => Some(Dtype::parse(&d).ok_or_else(|| {
                            err(format!(
                                "args.{name}: unknown dtype \"{d}\" (known: {})",
                                Dtype::ALL.map(Dtype::name).join(", ")
                            ))
                        })?),
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
                ArgToml::Bool(b) => ArgBinding::Int(Expr::Int(b as i64)),
                ArgToml::TensorMap { .. } => {
                    return Err(err(format!(
                        "args.{name}: a tensor map is a parameter of its own, not a field"
                    )))
                }
                ArgToml::Fields { .. } => {
                    return Err(err(format!(
                        "args.{name}: fields nest only one level (give every field of a nested struct by its byte offset in the outer one)"
                    )))
                }
            })
        };
        let mut args = BTreeMap::new();
        let mut tensormaps = BTreeMap::new();
        for (name, a) in raw.args {
            match a {
                ArgToml::TensorMap { tensormap: m } => {
                    if m.box_dim.len() != m.shape.len() || !(1..=5).contains(&m.shape.len()) {
                        return Err(err(format!(
                            "args.{name}.tensormap: `box` has {} entries and `shape` {}; a tensor map has one box size per dimension, 1 to 5",
                            m.box_dim.len(),
                            m.shape.len()
                        )));
                    }
                    if m.box_dim.iter().any(|b| !(1..=256).contains(b)) {
                        return Err(err(format!(
                            "args.{name}.tensormap: box {:?} has a size outside 1..=256",
                            m.box_dim
                        )));
                    }
                    if ![0, 32, 64, 128].contains(&m.swizzle) {
                        return Err(err(format!(
                            "args.{name}.tensormap: swizzle = {} (0, 32, 64 or 128 bytes)",
                            m.swizzle
                        )));
                    }
                    let tensor = ArgToml::Tensor {
                        tensor: m.tensor,
                        shape: m.shape,
                        role: Role::In,
                        dtype: m.dtype,
                        values: None,
                    };
                    args.insert(name.clone(), binding(&name, tensor)?);
                    tensormaps.insert(
                        name,
                        TensorMapBox {
                            box_dim: m.box_dim,
                            swizzle: m.swizzle,
                        },
                    );
                }
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
            cluster: raw.cluster.unwrap_or_default(),
            dynamic_shared,
            sizes: raw.sizes,
            args,
            tensormaps,
        })
    }
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
