//! Values of the spec language: tensors of terms, Python ints, tuples, strings, and the
//! callables (`torch.softmax`, the bound method `x.sum`) that name ops.

use super::tensor::Tensor;
use super::FloatType;
use crate::term::{TermId, Terms};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};

#[derive(Clone, Debug)]
pub(crate) enum Value {
    /// A real tensor; Python floats and symbolic scalars are 0-d tensors.
    Tensor(Tensor),
    /// An exact Python int (dims, sizes; a number when used in arithmetic).
    Int(i64),
    Bool(bool),
    None,
    Str(String),
    /// Tuples and lists.
    Tuple(Vec<Value>),
    Ellipsis,
    /// `torch`, `torch.nn.functional`, ...
    Module(&'static str),
    /// An op of the library, by canonical name.
    Func(&'static str),
    /// A function of Python's `math` (`math.sqrt`): the op of that name on one number.
    MathFunc(&'static str),
    /// `x.sum`, waiting for its arguments.
    Method(Box<Value>, String),
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
    MaxResult(Tensor),
}

impl Value {
    /// For messages: "a tensor of shape [2, 3]", "an int", ...
    pub fn describe(&self) -> String {
        match self {
            Value::Tensor(t) if t.ndim() == 0 => "a scalar".into(),
            Value::Tensor(t) => format!("a tensor of shape {}", t.shape_str()),
            Value::Int(v) => format!("the int {v}"),
            Value::Bool(b) => format!("the bool {}", if *b { "True" } else { "False" }),
            Value::None => "None".into(),
            Value::Str(s) => format!("the string '{s}'"),
            Value::Tuple(v) => format!("a tuple of {} elements", v.len()),
            Value::Ellipsis => "`...`".into(),
            Value::Module(m) => format!("the module `{m}`"),
            Value::Func(f) => format!("the function `{f}`"),
            Value::MathFunc(f) => format!("the function `math.{f}`"),
            Value::Method(_, m) => format!("the method `.{m}`"),
            Value::Dtype(_) => "a dtype".into(),
            Value::IntDtype(d) => format!("the dtype torch.{d}"),
            Value::Builtin(f) => format!("the builtin `{f}`"),
            Value::MaxResult(_) => "the (values, indices) tuple of max/min over a dim".into(),
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
