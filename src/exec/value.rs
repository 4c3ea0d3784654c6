//! Runtime values of the TTIR interpreter: tensors (scalars are rank 0) of elements.

/// One element of a runtime value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Elem<V> {
    /// Integers and indices: always concrete.
    Int(i64),
    /// A decided `i1`.
    Bool(bool),
    /// A real number of the domain.
    Float(V),
    /// An undecided `i1` (a comparison of reals), a boolean of the domain.
    Cond(V),
    /// An integer chosen by the data (`tl.where(x < 0, -1, 1)`, an argmax index): a
    /// real of the domain that is an integer in `lo..=hi` on every input. It may be used
    /// as a value (converted to float, stored, combined with integers, compared); used
    /// as an address, a loop bound or a branch it is an error (`exec/ops/select.rs`).
    DataInt { v: V, lo: i64, hi: i64 },
    /// A pointer: tensor number and element offset.
    Ptr { tensor: usize, offset: i64 },
    /// A pointer whose offset adds an integer that depends on the data: `offset + idx`,
    /// `idx` an integer term of the domain over integer inputs (`X_ptr + label`). Only
    /// loads read it, split over the index's declared values (`exec/ops/gather.rs`).
    DataPtr { tensor: usize, offset: i64, idx: V },
    /// The value of a masked-off lane loaded without `other=`; the number indexes the
    /// interpreter's table of such loads, so an error can name the load.
    Undef(usize),
}

impl<V> Elem<V> {
    pub fn kind(&self) -> &'static str {
        match self {
            Elem::Int(_) => "an integer",
            Elem::Bool(_) | Elem::Cond(_) => "a boolean",
            Elem::Float(_) => "a float",
            Elem::DataInt { .. } => "an integer that depends on the data",
            Elem::Ptr { .. } => "a pointer",
            Elem::DataPtr { .. } => "a pointer at an offset that depends on the data",
            Elem::Undef(_) => "a masked-off value",
        }
    }
}

/// A tensor value; a scalar has shape `[]` and one element.
#[derive(Clone, Debug, PartialEq)]
pub struct Value<V> {
    pub shape: Vec<usize>,
    pub elems: Vec<Elem<V>>,
}

impl<V: Copy> Value<V> {
    pub fn scalar(e: Elem<V>) -> Self {
        Value {
            shape: Vec::new(),
            elems: vec![e],
        }
    }

    pub fn splat(e: Elem<V>, shape: &[usize]) -> Self {
        Value {
            shape: shape.to_vec(),
            elems: vec![e; shape.iter().product()],
        }
    }

    /// The element of a rank-0 (or one-element) value.
    pub fn single(&self) -> Option<Elem<V>> {
        (self.elems.len() == 1).then(|| self.elems[0])
    }
}

/// Row-major strides of a shape.
pub fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Row-major multi-index of a flat position.
pub fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0usize; shape.len()];
    for (slot, &d) in idx.iter_mut().zip(shape).rev() {
        if d > 0 {
            *slot = flat % d;
            flat /= d;
        }
    }
    idx
}
