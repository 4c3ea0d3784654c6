//! The all-sizes [`Reading`] of the one interpreter: names of a [`SymEnv`], constants
//! rounded to the float type, size arithmetic on ints, slicing with bounds that hold at
//! every size, and each op as the op table reads it (`ops::all_sizes`).

use super::super::error::SpecError;
use super::super::eval::{self, Ix, Reading};
use super::super::float::FloatType;
use super::super::ops::{self, all_sizes, bind_call, AllSizes};
use super::super::program::SpecProgram;
use super::super::value::{parse_decimal, Cx, Val};
use super::domain::{exact, EverySize, SymTensor, V};
use super::extent::{at_least, bin, int, within};
use super::{pointwise, shape_ops};
use crate::formula::{Formula, Output, Size};
use crate::launch::BinOp;
use crate::term::Terms;
use num_rational::BigRational;
use std::collections::{BTreeMap, BTreeSet};

type R<T> = Result<T, String>;

/// What the names of a spec stand for at every size.
pub struct SymEnv<'a> {
    /// Input tensors and their shapes as size expressions.
    pub tensors: &'a BTreeMap<String, Vec<Size>>,
    /// Symbolic real scalars.
    pub scalars: &'a BTreeSet<String>,
    /// Real scalars fixed to numbers.
    pub values: &'a BTreeMap<String, f64>,
    /// The launch's size names.
    pub sizes: &'a BTreeSet<String>,
    /// Integer arguments the launch fixes (a seed), by parameter: that int at every size.
    pub ints: &'a BTreeMap<String, i64>,
    pub float: FloatType,
}

impl SpecProgram {
    /// The outputs as formulas valid at every size (see the module documentation; the
    /// caller must still compare them with [`SpecProgram::instantiate`] at one instance).
    pub fn formulas(&self, terms: &mut Terms, env: &SymEnv) -> Result<Vec<Output>, SpecError> {
        let mut reading = SizesReading {
            cx: Cx {
                terms,
                float: env.float,
            },
            env,
        };
        eval::run(&mut reading, &self.stmts, &self.outputs)
    }
}

pub(super) struct SizesReading<'a, 't> {
    pub(super) cx: Cx<'t>,
    pub(super) env: &'a SymEnv<'a>,
}

impl SizesReading<'_, '_> {
    /// The exact rational `text` rounded to the float type, as a 0-d formula.
    fn rounded(&self, r: &BigRational) -> R<SymTensor> {
        Ok(SymTensor::new(
            Formula::Const(exact(self.env.float.round(r))?),
            vec![],
        ))
    }

    /// One slice `a:b` of `axis` (no step: a step is not read for every size).
    fn slice(
        &mut self,
        t: SymTensor,
        axis: usize,
        a: Option<Size>,
        b: Option<Size>,
    ) -> R<SymTensor> {
        let n = t.shape[axis].clone();
        let bound = |e: Option<Size>| -> R<Option<Size>> {
            match e {
                None => Ok(None),
                Some(Size::Int(i)) if i < 0 => {
                    Err("a negative slice bound is not read for all sizes".into())
                }
                // Python counts a negative bound from the end of the axis: a bound that
                // is negative at some sizes means two things.
                Some(s) if !at_least(&s, &int(0)) => Err(format!(
                    "the slice bound `{s}` is negative at some sizes, where Python counts it \
                     from the end of the axis; such a slice is not read for all sizes"
                )),
                Some(s) => Ok(Some(s)),
            }
        };
        let start = bound(a)?.unwrap_or(int(0));
        let end = bound(b)?;
        // PyTorch clamps bounds to the axis; read them as they are only where they never
        // pass it (`H` in an axis of `2 * H`), else as `min(bound, n)`.
        let clamp = |s: Size| -> Size {
            if within(&s, &n) {
                s
            } else {
                bin(BinOp::Min, &s, &n)
            }
        };
        let start = clamp(start);
        let end = end.map(clamp);
        // Python's slice is empty where its end is before its start.
        if let Some(e) = &end {
            if !at_least(e, &start) {
                return Err(format!(
                    "the slice `{start}:{e}` is empty at some sizes (its end before its \
                     start); not read for all sizes"
                ));
            }
        }
        if start == int(0) && end.as_ref().is_none_or(|e| *e == n) {
            return Ok(t);
        }
        let mut shape = t.shape;
        let len_end = end.clone().unwrap_or_else(|| n.clone());
        shape[axis] = bin(BinOp::Sub, &len_end, &start);
        let f = Formula::Slice {
            arg: Box::new(t.f),
            axis,
            start,
            end,
        };
        Ok(SymTensor::new(f, shape))
    }
}

impl Reading for SizesReading<'_, '_> {
    type D = EverySize;
    type Out = Output;

    fn env_name(&mut self, n: &str) -> R<Option<V>> {
        let env = self.env;
        if let Some(shape) = env.tensors.get(n) {
            return Ok(Some(Val::Tensor(SymTensor::new(
                Formula::input(n),
                shape.clone(),
            ))));
        }
        if env.scalars.contains(n) {
            return Ok(Some(Val::Tensor(SymTensor::new(
                Formula::scalar(n),
                vec![],
            ))));
        }
        if let Some(v) = env.values.get(n) {
            return Ok(Some(Val::Tensor(SymTensor::new(
                Formula::Const(exact(*v)?),
                vec![],
            ))));
        }
        if env.sizes.contains(n) {
            return Ok(Some(Val::Int(Size::Size(n.to_string()))));
        }
        Ok(env.ints.get(n).map(|&i| Val::Int(Size::Int(i))))
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
            (
                "sizes",
                env.sizes.iter().chain(env.ints.keys()).cloned().collect(),
            ),
        ]
    }

    fn decimal(&mut self, text: &str) -> R<SymTensor> {
        let r = parse_decimal(text).ok_or_else(|| format!("malformed number `{text}`"))?;
        self.rounded(&r)
    }

    fn constant(&mut self, c: f64) -> R<SymTensor> {
        if !c.is_finite() {
            return Err("an infinite or NaN constant is not read for all sizes".into());
        }
        self.rounded(&exact(c)?)
    }

    fn float_of_str(&mut self, text: &str) -> R<SymTensor> {
        let r = parse_decimal(text.trim()).ok_or_else(|| {
            format!("float('{text}') is not read for all sizes (not a finite number)")
        })?;
        self.rounded(&r)
    }

    fn real_of_int(&mut self, i: &Size) -> R<SymTensor> {
        match i {
            Size::Int(v) => Ok(SymTensor::new(Formula::int(*v), vec![])),
            s => Err(format!(
                "the size `{s}` used as a number is not read for all sizes"
            )),
        }
    }

    fn neg_int(&mut self, i: Size) -> R<Size> {
        Ok(bin(BinOp::Sub, &int(0), &i))
    }

    fn unary(&mut self, op: &'static str, t: SymTensor) -> R<V> {
        pointwise::operator(&mut self.cx, vec![Val::Tensor(t)], |cx, a| {
            let t = cx.tensor(&a[0])?;
            ops::unary(cx, op, &t)
        })
        .map(Val::Tensor)
    }

    fn binary(&mut self, op: &'static str, x: V, y: V) -> R<V> {
        if let (Val::Int(a), Val::Int(b)) = (&x, &y) {
            let o = match op {
                "+" => BinOp::Add,
                "-" => BinOp::Sub,
                "*" => BinOp::Mul,
                "//" => BinOp::FloorDiv,
                _ => return Err(format!("int `{op}` is not read for all sizes")),
            };
            return Ok(Val::Int(bin(o, a, b)));
        }
        if op == "@" {
            return shape_ops::matmul(x, y).map(Val::Tensor);
        }
        pointwise::operator(&mut self.cx, vec![x, y], |cx, a| {
            ops::arith(cx, op, &a[0], &a[1])
        })
        .map(Val::Tensor)
    }

    fn call(&mut self, op: &'static str, pos: Vec<V>, kw: Vec<(String, V)>) -> R<V> {
        let a = bind_call(self.cx.float, op, pos, kw)?;
        match all_sizes(op) {
            AllSizes::Elementwise => pointwise::apply(&mut self.cx, a).map(Val::Tensor),
            AllSizes::Formula => shape_ops::call(&mut self.cx, a),
            // The reason is the table's documentation; the message is the one the fixtures
            // record (`expected.toml`'s `check_all_sizes`).
            AllSizes::Refused(_) => Err(format!("`{op}` is not read for all sizes yet")),
        }
    }

    fn tensor_attr(&mut self, t: &SymTensor, name: &str) -> R<Option<V>> {
        Ok(Some(match name {
            "T" if t.shape.len() == 2 => Val::Tensor(SymTensor::new(
                Formula::Transpose(Box::new(t.f.clone())),
                vec![t.shape[1].clone(), t.shape[0].clone()],
            )),
            // Sizes as size expressions (`t = q.shape[1]` is the size `T`).
            "shape" => Val::Tuple(t.shape.iter().cloned().map(Val::Int).collect()),
            "ndim" => Val::Int(int(t.shape.len() as i64)),
            "T" | "mT" => return Err(format!("`.{name}` is not read for all sizes here")),
            _ => return Ok(None),
        }))
    }

    fn index(&mut self, mut t: SymTensor, ixs: Vec<Ix<Size>>) -> R<SymTensor> {
        // Every index is one axis of the result (no int index is read here).
        for (axis, ix) in ixs.into_iter().enumerate() {
            match ix {
                Ix::NewAxis => {
                    t.f = t.f.unsqueeze(axis);
                    t.shape.insert(axis, int(1));
                }
                Ix::Int(_) => {
                    return Err(
                        "indexing other than slices, `...` and None is not read for all sizes"
                            .into(),
                    )
                }
                Ix::Slice(_, _, Some(_)) => {
                    return Err("a slice step is not read for all sizes".into())
                }
                Ix::Slice(a, b, None) => t = self.slice(t, axis, a, b)?,
            }
        }
        Ok(t)
    }

    fn advanced_index(&mut self, _: SymTensor, _: Vec<V>) -> R<SymTensor> {
        Err("indexing by tensors is not read for all sizes".into())
    }

    fn output(&mut self, name: &str, v: V) -> R<Option<Output>> {
        match v {
            Val::Tensor(t) => Ok(Some(Output::new(name, t.f))),
            Val::Int(Size::Int(i)) => Ok(Some(Output::new(name, Formula::int(i)))),
            // A size or a tuple of sizes (`t = q.shape[1]`): a temporary, never an
            // output's reading (the caller requires one for each kernel output).
            Val::Int(_) | Val::Tuple(_) => Ok(None),
            _ => Err(format!("output `{name}` is not a tensor at every size")),
        }
    }
}
