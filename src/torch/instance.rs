//! The instance reading: a spec evaluated at one launch's shapes, every value a tensor of
//! terms over the kernels' input names (`x[i,j]` is `terms.input("x", &[i, j])`) and
//! every int exact. It is the [`Reading`] the interpreter (`eval`) asks at an instance;
//! what an op computes is the op library's (`ops::call`).

use super::eval::{Ix, Reading};
use super::float::FloatType;
use super::ops;
use super::tensor::Tensor;
use super::value::{Cx, Instance, Value};
use crate::term::TermId;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// What the names of a spec stand for when it is instantiated.
pub struct Env<'a> {
    /// Input tensor names and their (row-major) shapes.
    pub tensors: &'a BTreeMap<String, Vec<usize>>,
    /// Symbolic real scalars: each becomes `terms.param(name)`.
    pub scalars: &'a BTreeSet<String>,
    /// Real scalars fixed to numbers (used exactly, as `terms.float(v)`).
    pub values: &'a BTreeMap<String, f64>,
    /// Size names usable as integers (`(N,)` in `layer_norm`, `x[:, :H]`).
    pub sizes: &'a BTreeMap<String, i64>,
    /// Decimal constants in the spec are rounded to this type.
    pub float: FloatType,
}

/// One output of an instantiated spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecOutput {
    pub name: String,
    pub shape: Vec<usize>,
    /// One term per element, row-major.
    pub elems: Vec<TermId>,
}

pub(crate) struct InstanceReading<'a, 't> {
    pub cx: Cx<'t>,
    pub env: &'a Env<'a>,
    /// The input tensors built so far (one term per element, built once).
    inputs: HashMap<String, Tensor>,
}

impl<'a, 't> InstanceReading<'a, 't> {
    pub fn new(cx: Cx<'t>, env: &'a Env<'a>) -> Self {
        InstanceReading {
            cx,
            env,
            inputs: HashMap::new(),
        }
    }

    /// Input `n` of shape `shape`: `terms.input(n, idx)` at every index, row-major.
    fn input(&mut self, n: &str, shape: &[usize]) -> Tensor {
        if let Some(t) = self.inputs.get(n) {
            return t.clone();
        }
        let len = shape.iter().product::<usize>();
        let mut elems = Vec::with_capacity(len);
        let mut idx = vec![0i64; shape.len()];
        for _ in 0..len {
            elems.push(self.cx.terms.input(n, &idx));
            for d in (0..shape.len()).rev() {
                idx[d] += 1;
                if (idx[d] as usize) < shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        let t = Tensor::new(shape.to_vec(), elems);
        self.inputs.insert(n.to_string(), t.clone());
        t
    }
}

impl Reading for InstanceReading<'_, '_> {
    type D = Instance;
    type Out = SpecOutput;

    fn env_name(&mut self, n: &str) -> Result<Option<Value>, String> {
        let env = self.env;
        if let Some(shape) = env.tensors.get(n) {
            return Ok(Some(Value::Tensor(self.input(n, shape))));
        }
        if env.scalars.contains(n) {
            return Ok(Some(Value::Tensor(Tensor::scalar(self.cx.terms.param(n)))));
        }
        if let Some(v) = env.values.get(n) {
            return Ok(Some(Value::Tensor(Tensor::scalar(self.cx.terms.float(*v)))));
        }
        Ok(env.sizes.get(n).map(|v| Value::Int(*v)))
    }

    fn env_names(&self) -> Vec<(&'static str, Vec<String>)> {
        let env = self.env;
        vec![
            ("tensors", env.tensors.keys().cloned().collect()),
            (
                "scalars",
                env.scalars
                    .iter()
                    .chain(env.values.keys())
                    .cloned()
                    .collect(),
            ),
            ("sizes", env.sizes.keys().cloned().collect()),
        ]
    }

    fn decimal(&mut self, text: &str) -> Result<Tensor, String> {
        Ok(Tensor::scalar(self.cx.decimal(text)?))
    }

    fn constant(&mut self, c: f64) -> Result<Tensor, String> {
        let t = match c {
            c if c.is_nan() => self.cx.terms.nan(),
            c if c.is_infinite() => self.cx.terms.inf(c < 0.0),
            c => self.cx.real(c),
        };
        Ok(Tensor::scalar(t))
    }

    fn float_of_str(&mut self, s: &str) -> Result<Tensor, String> {
        let text = s.trim().to_ascii_lowercase();
        let (neg, body) = match text.strip_prefix('-') {
            Some(b) => (true, b),
            None => (false, text.strip_prefix('+').unwrap_or(&text)),
        };
        let t = match body {
            "inf" | "infinity" => self.cx.terms.inf(neg),
            "nan" => self.cx.terms.nan(),
            _ => self
                .cx
                .decimal(&text)
                .map_err(|_| format!("could not convert string to float: '{s}'"))?,
        };
        Ok(Tensor::scalar(t))
    }

    fn real_of_int(&mut self, i: &i64) -> Result<Tensor, String> {
        Ok(Tensor::scalar(self.cx.terms.int(*i)))
    }

    fn neg_int(&mut self, i: i64) -> Result<i64, String> {
        i.checked_neg()
            .ok_or_else(|| format!("integer overflow in -{i}"))
    }

    fn unary(&mut self, op: &'static str, t: Tensor) -> Result<Value, String> {
        ops::unary(&mut self.cx, op, &t)
    }

    fn binary(&mut self, op: &'static str, x: Value, y: Value) -> Result<Value, String> {
        ops::arith(&mut self.cx, op, &x, &y)
    }

    fn call(
        &mut self,
        op: &'static str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
    ) -> Result<Value, String> {
        ops::call(&mut self.cx, op, pos, kw)
    }

    fn tensor_attr(&mut self, t: &Tensor, name: &str) -> Result<Option<Value>, String> {
        Ok(Some(match name {
            "T" => {
                let perm: Vec<usize> = (0..t.ndim()).rev().collect();
                Value::Tensor(t.permute(&perm))
            }
            "mT" => {
                if t.ndim() < 2 {
                    return Err(format!(
                        "`.mT` needs at least 2 dims, got shape {}",
                        t.shape_str()
                    ));
                }
                Value::Tensor(t.transpose(t.ndim() - 2, t.ndim() - 1))
            }
            "shape" => Value::Tuple(t.shape.iter().map(|&s| Value::Int(s as i64)).collect()),
            "ndim" => Value::Int(t.ndim() as i64),
            _ => return Ok(None),
        }))
    }

    /// Python's basic indexing: an int selects (negative from the end), a slice with a
    /// positive step clamps its bounds to the axis, `None` inserts a unit axis.
    fn index(&mut self, mut t: Tensor, ixs: Vec<Ix<i64>>) -> Result<Tensor, String> {
        for ix in &ixs {
            if let Ix::Slice(_, _, Some(c)) = ix {
                if *c <= 0 {
                    return Err(format!("slice step must be positive, got {c}"));
                }
            }
        }
        let mut dim = 0;
        for ix in ixs {
            match ix {
                Ix::Int(i) => {
                    let n = t.shape[dim] as i64;
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return Err(format!(
                            "index {i} is out of bounds for dimension {dim} with size {n}"
                        ));
                    }
                    t = t.select(dim, j as usize);
                }
                Ix::Slice(a, b, step) => {
                    let step = step.unwrap_or(1);
                    let n = t.shape[dim] as i64;
                    let clampi = |v: i64| (if v < 0 { v + n } else { v }).clamp(0, n);
                    let start = a.map_or(0, clampi);
                    let stop = b.map_or(n, clampi);
                    let len = if stop > start {
                        (stop - start + step - 1) / step
                    } else {
                        0
                    };
                    t = t.slice(dim, start as usize, len as usize, step as usize);
                    dim += 1;
                }
                Ix::NewAxis => {
                    let mut shape = t.shape.clone();
                    shape.insert(dim, 1);
                    t = t.reshape(shape);
                    dim += 1;
                }
            }
        }
        Ok(t)
    }

    fn advanced_index(&mut self, t: Tensor, idx: Vec<Value>) -> Result<Tensor, String> {
        let mut ts = Vec::with_capacity(idx.len());
        for v in &idx {
            ts.push(self.cx.tensor(v)?);
        }
        ops::advanced_index(&mut self.cx, &t, &ts)
    }

    fn output(&mut self, name: &str, v: Value) -> Result<Option<SpecOutput>, String> {
        let t = match v {
            Value::Tensor(t) => t,
            v @ (Value::Int(_) | Value::Bool(_)) => self.cx.tensor(&v)?,
            v => {
                return Err(format!(
                    "output `{name}` must be a tensor, got {} (start the name with `_` \
                     to make it a temporary)",
                    v.describe()
                ))
            }
        };
        Ok(Some(SpecOutput {
            name: name.to_string(),
            shape: t.shape,
            elems: t.elems,
        }))
    }
}
