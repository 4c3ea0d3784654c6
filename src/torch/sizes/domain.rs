//! The all-sizes domain: a tensor is a formula with a shape of size expressions, an int
//! a size expression.

use super::super::value::{Domain, Val};
use crate::formula::{Formula, Size};
use num_rational::BigRational;

pub(super) type V = Val<EverySize>;

/// The all-sizes domain: formulas with symbolic shapes, ints as size expressions.
#[derive(Clone, Debug)]
pub(crate) struct EverySize;

/// A real (or bool) tensor at every size.
#[derive(Clone, Debug)]
pub(crate) struct SymTensor {
    pub f: Formula,
    pub shape: Vec<Size>,
}

impl SymTensor {
    pub(super) fn new(f: Formula, shape: Vec<Size>) -> Self {
        SymTensor { f, shape }
    }
}

impl Domain for EverySize {
    type Tensor = SymTensor;
    type Int = Size;
    fn ndim(t: &SymTensor) -> usize {
        t.shape.len()
    }
    fn shape_str(t: &SymTensor) -> String {
        let dims: Vec<String> = t.shape.iter().map(|s| s.to_string()).collect();
        format!("[{}]", dims.join(", "))
    }
    fn int(v: i64) -> Size {
        Size::Int(v)
    }
    fn const_int(i: &Size) -> Option<i64> {
        match i {
            Size::Int(v) => Some(*v),
            _ => None,
        }
    }
}

/// The exact value of a float of the spec's type.
pub(super) fn exact(v: f64) -> Result<BigRational, String> {
    BigRational::from_float(v).ok_or_else(|| format!("{v} is not a finite number"))
}
