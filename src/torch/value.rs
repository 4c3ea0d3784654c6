//! Values of the spec language, generic over the domain a spec is read in: tensors,
//! Python ints, tuples, strings, and the callables (`torch.softmax`, the bound method
//! `x.sum`) that name ops. A [`Domain`] says what a tensor and an int are: at one
//! instance ([`Instance`]) a tensor of terms and an exact `i64`; at every size
//! (`sizes::EverySize`) a formula with a shape of size expressions and a size expression.
//! Everything else a value can be is the same in every domain, so the interpreter
//! (`eval`) and the argument binding (`ops::args`) are written once.

use super::float::FloatType;
use super::tensor::Tensor;
use crate::term::{TermId, Terms};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use std::fmt;

/// What a tensor and a Python int are in one reading of a spec.
pub(crate) trait Domain: Clone + fmt::Debug + Sized {
    /// A real (or bool) tensor; Python floats and symbolic scalars are 0-d tensors.
    type Tensor: Clone + fmt::Debug;
    /// A Python int (dims, sizes; a number when used in arithmetic).
    type Int: Clone + fmt::Debug + fmt::Display;
    fn ndim(t: &Self::Tensor) -> usize;
    /// The shape as printed in messages: `[2, 3]`.
    fn shape_str(t: &Self::Tensor) -> String;
    fn int(v: i64) -> Self::Int;
    /// The int's value where it is one constant (always at an instance).
    fn const_int(i: &Self::Int) -> Option<i64>;
}

/// The instance domain: tensors of terms at one launch's shapes, exact ints.
#[derive(Clone, Debug)]
pub(crate) struct Instance;

impl Domain for Instance {
    type Tensor = Tensor;
    type Int = i64;
    fn ndim(t: &Tensor) -> usize {
        t.ndim()
    }
    fn shape_str(t: &Tensor) -> String {
        t.shape_str()
    }
    fn int(v: i64) -> i64 {
        v
    }
    fn const_int(i: &i64) -> Option<i64> {
        Some(*i)
    }
}

/// A value of the instance reading (what the op library computes with).
pub(crate) type Value = Val<Instance>;

#[derive(Clone, Debug)]
pub(crate) enum Val<D: Domain> {
    /// A real tensor; Python floats and symbolic scalars are 0-d tensors.
    Tensor(D::Tensor),
    /// A Python int (dims, sizes; a number when used in arithmetic).
    Int(D::Int),
    Bool(bool),
    None,
    Str(String),
    /// Tuples and lists.
    Tuple(Vec<Val<D>>),
    Ellipsis,
    /// `torch`, `torch.nn.functional`, ...
    Module(&'static str),
    /// An op of the library, by canonical name.
    Func(&'static str),
    /// A function of Python's `math` (`math.sqrt`): the op of that name on one number.
    MathFunc(&'static str),
    /// `x.sum`, waiting for its arguments.
    Method(Box<Val<D>>, String),
    /// `torch.float32` and friends. Converting to a type that holds every value of the
    /// kernel's float type is the identity; a narrowing one rounds, which specs cannot
    /// express (an error).
    Dtype(FloatType),
    /// `torch.bool`, `torch.int64` and the other integer types, by PyTorch's name. Only
    /// creation ops (`ones(.., dtype=torch.bool)`) and conversions (`.to`) take one: their
    /// values are exact integers, which real tensors hold.
    IntDtype(&'static str),
    /// A Python builtin that specs use on numbers: `float('-inf')`.
    Builtin(&'static str),
    /// The named tuple `(values, indices)` of `max(x, dim)`; only `values` is supported.
    MaxResult(D::Tensor),
}

impl<D: Domain> Val<D> {
    /// For messages: "a tensor of shape [2, 3]", "an int", ...
    pub fn describe(&self) -> String {
        match self {
            Val::Tensor(t) if D::ndim(t) == 0 => "a scalar".into(),
            Val::Tensor(t) => format!("a tensor of shape {}", D::shape_str(t)),
            Val::Int(v) => format!("the int {v}"),
            Val::Bool(b) => format!("the bool {}", if *b { "True" } else { "False" }),
            Val::None => "None".into(),
            Val::Str(s) => format!("the string '{s}'"),
            Val::Tuple(v) => format!("a tuple of {} elements", v.len()),
            Val::Ellipsis => "`...`".into(),
            Val::Module(m) => format!("the module `{m}`"),
            Val::Func(f) => format!("the function `{f}`"),
            Val::MathFunc(f) => format!("the function `math.{f}`"),
            Val::Method(_, m) => format!("the method `.{m}`"),
            Val::Dtype(_) => "a dtype".into(),
            Val::IntDtype(d) => format!("the dtype torch.{d}"),
            Val::Builtin(f) => format!("the builtin `{f}`"),
            Val::MaxResult(_) => "the (values, indices) tuple of max/min over a dim".into(),
        }
    }
}

/// What ops need besides their arguments: the term store and the float type constants
/// are rounded to.
pub(crate) struct Cx<'t> {
    pub terms: &'t mut Terms,
    pub float: FloatType,
}

impl Cx<'_> {
    /// A decimal literal (`1e-5`), rounded to the float type.
    pub fn decimal(&mut self, text: &str) -> Result<TermId, String> {
        let r = parse_decimal(text).ok_or_else(|| format!("malformed number `{text}`"))?;
        let v = self.float.round(&r);
        Ok(self.terms.float(v))
    }
    /// A real constant known as an f64 (`sqrt(2/pi)`), rounded to the float type.
    pub fn real(&mut self, v: f64) -> TermId {
        let r = BigRational::from_float(v).unwrap_or_else(BigRational::zero);
        let v = self.float.round(&r);
        self.terms.float(v)
    }
    /// A value of the float type, printed as short as that type allows (`0.3`).
    pub fn show(&self, v: f64) -> String {
        match self.float {
            FloatType::F64 => format!("{v}"),
            _ => format!("{}", v as f32),
        }
    }
    pub fn int(&mut self, v: i64) -> TermId {
        self.terms.int(v)
    }

    /// Tensors and numbers (as 0-d tensors).
    pub fn tensor(&mut self, v: &Value) -> Result<Tensor, String> {
        match v {
            Value::Tensor(t) => Ok(t.clone()),
            Value::Int(i) => Ok(Tensor::scalar(self.terms.int(*i))),
            Value::Bool(b) => Ok(Tensor::scalar(self.terms.int(*b as i64))),
            other => Err(format!(
                "expected a tensor or a number, got {}",
                other.describe()
            )),
        }
    }
}

/// The exact value of a decimal literal such as `0.044715`, `1e-5`, `.5`, `2.`.
pub(crate) fn parse_decimal(text: &str) -> Option<BigRational> {
    if let Some(rest) = text.strip_prefix('-') {
        return parse_decimal(rest).map(|r| -r);
    }
    let (mant, exp) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i64>().ok()?),
        None => (text, 0),
    };
    let (int, frac) = match mant.find('.') {
        Some(i) => (&mant[..i], &mant[i + 1..]),
        None => (mant, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let digits = format!("{int}{frac}");
    if !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let n: BigInt = if digits.is_empty() {
        BigInt::zero()
    } else {
        digits.parse().ok()?
    };
    let e = exp.checked_sub(frac.len() as i64)?;
    if e.unsigned_abs() > 5000 {
        return None;
    }
    let ten = BigInt::from(10);
    let p = num_traits::pow(ten, e.unsigned_abs().to_usize()?);
    Some(if e >= 0 {
        BigRational::from_integer(n * p)
    } else {
        BigRational::new(n, p)
    })
}
