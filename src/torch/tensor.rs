//! Shaped tensors of terms and the layout operations every op is built from: strided
//! views (permute, broadcast, slice, select), reshape, concatenation, and reductions that
//! hand each output element all of its operands at once.

use crate::term::{TermId, Terms};

/// A row-major tensor of terms.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Tensor {
    pub shape: Vec<usize>,
    pub elems: Vec<TermId>,
}

pub(crate) fn numel(shape: &[usize]) -> usize {
    shape.iter().product()
}

/// `[2, 3]`.
pub(crate) fn fmt_shape(shape: &[usize]) -> String {
    format!("{shape:?}")
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// The broadcast shape of `a` and `b` (NumPy rules), if any.
pub(crate) fn broadcast_shapes(a: &[usize], b: &[usize]) -> Option<Vec<usize>> {
    let n = a.len().max(b.len());
    let mut out = vec![0; n];
    for (i, slot) in out.iter_mut().enumerate() {
        let da = (i + a.len()).checked_sub(n).map_or(1, |j| a[j]);
        let db = (i + b.len()).checked_sub(n).map_or(1, |j| b[j]);
        *slot = if da == db || db == 1 {
            da
        } else if da == 1 {
            db
        } else {
            return None;
        };
    }
    Some(out)
}

/// Normalises a possibly negative `dim` for a tensor of `ndim` dimensions (`ndim` is
/// `ndim + 1` for `unsqueeze`).
pub(crate) fn norm_dim(dim: i64, ndim: usize) -> Result<usize, String> {
    let n = ndim.max(1) as i64;
    let d = if dim < 0 { dim + n } else { dim };
    if d < 0 || d >= n {
        return Err(format!(
            "dimension {dim} is out of range (expected to be in [{}, {}])",
            -n,
            n - 1
        ));
    }
    Ok(d as usize)
}

impl Tensor {
    pub fn new(shape: Vec<usize>, elems: Vec<TermId>) -> Self {
        debug_assert_eq!(numel(&shape), elems.len());
        Tensor { shape, elems }
    }
    pub fn scalar(t: TermId) -> Self {
        Tensor {
            shape: Vec::new(),
            elems: vec![t],
        }
    }
    pub fn full(shape: &[usize], t: TermId) -> Self {
        Tensor {
            shape: shape.to_vec(),
            elems: vec![t; numel(shape)],
        }
    }
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// The shape as printed in messages: `[2, 3]`.
    pub fn shape_str(&self) -> String {
        fmt_shape(&self.shape)
    }

    pub fn map(&self, terms: &mut Terms, mut f: impl FnMut(&mut Terms, TermId) -> TermId) -> Self {
        Tensor {
            shape: self.shape.clone(),
            elems: self.elems.iter().map(|&e| f(terms, e)).collect(),
        }
    }

    /// The view of `elems` with the given shape, strides and offset, materialised.
    fn strided(&self, shape: Vec<usize>, strides: &[usize], offset: usize) -> Self {
        let n = numel(&shape);
        let mut out = Vec::with_capacity(n);
        if n > 0 {
            let mut idx = vec![0usize; shape.len()];
            let mut pos = offset;
            'outer: loop {
                out.push(self.elems[pos]);
                let mut d = shape.len();
                loop {
                    if d == 0 {
                        break 'outer;
                    }
                    d -= 1;
                    idx[d] += 1;
                    pos += strides[d];
                    if idx[d] < shape[d] {
                        break;
                    }
                    pos -= strides[d] * shape[d];
                    idx[d] = 0;
                }
            }
        }
        Tensor { shape, elems: out }
    }

    /// `perm` must be a permutation of `0..ndim`.
    pub fn permute(&self, perm: &[usize]) -> Self {
        let st = strides(&self.shape);
        let shape = perm.iter().map(|&p| self.shape[p]).collect();
        let s: Vec<usize> = perm.iter().map(|&p| st[p]).collect();
        self.strided(shape, &s, 0)
    }

    pub fn transpose(&self, d0: usize, d1: usize) -> Self {
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.swap(d0, d1);
        self.permute(&perm)
    }

    /// Broadcasts to `shape` (which must be a broadcast of this tensor's shape).
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Self, String> {
        let err = || {
            format!(
                "shape {} cannot be broadcast to {}",
                self.shape_str(),
                fmt_shape(shape)
            )
        };
        if shape.len() < self.ndim() {
            return Err(err());
        }
        if shape == self.shape.as_slice() {
            return Ok(self.clone());
        }
        let st = strides(&self.shape);
        let lead = shape.len() - self.ndim();
        let mut s = vec![0; shape.len()];
        for d in 0..self.ndim() {
            if self.shape[d] == shape[lead + d] {
                s[lead + d] = st[d];
            } else if self.shape[d] != 1 {
                return Err(err());
            }
        }
        Ok(self.strided(shape.to_vec(), &s, 0))
    }

    /// `self[.., start:start+len*step:step, ..]` along `dim`.
    pub fn slice(&self, dim: usize, start: usize, len: usize, step: usize) -> Self {
        let st = strides(&self.shape);
        let mut shape = self.shape.clone();
        shape[dim] = len;
        let mut s = st.clone();
        s[dim] *= step;
        self.strided(shape, &s, start * st[dim])
    }

    /// `self[.., i, ..]` along `dim` (the dimension disappears).
    pub fn select(&self, dim: usize, i: usize) -> Self {
        let st = strides(&self.shape);
        let mut shape = self.shape.clone();
        let mut s = st.clone();
        shape.remove(dim);
        s.remove(dim);
        self.strided(shape, &s, i * st[dim])
    }

    /// The element at a full index.
    pub fn at(&self, idx: &[usize]) -> TermId {
        let flat = idx
            .iter()
            .zip(&self.shape)
            .fold(0usize, |f, (&i, &s)| f * s + i);
        self.elems[flat]
    }

    /// The tensor of `shape` whose element at each index (row-major) is `f(index)`.
    pub fn from_fn(shape: Vec<usize>, mut f: impl FnMut(&[usize]) -> TermId) -> Self {
        let n = numel(&shape);
        let mut idx = vec![0usize; shape.len()];
        let mut elems = Vec::with_capacity(n);
        for _ in 0..n {
            elems.push(f(&idx));
            for d in (0..shape.len()).rev() {
                idx[d] += 1;
                if idx[d] < shape[d] {
                    break;
                }
                idx[d] = 0;
            }
        }
        Tensor { shape, elems }
    }

    pub fn reshape(&self, shape: Vec<usize>) -> Self {
        debug_assert_eq!(numel(&shape), self.elems.len());
        Tensor {
            shape,
            elems: self.elems.clone(),
        }
    }

    /// Reduces over `dims` (distinct, in range): `f` gets all operands of one output
    /// element at once (in row-major order of the reduced dims), so it can build one n-ary
    /// term.
    pub fn reduce(
        &self,
        terms: &mut Terms,
        dims: &[usize],
        keepdim: bool,
        mut f: impl FnMut(&mut Terms, &[TermId]) -> TermId,
    ) -> Self {
        let kept: Vec<usize> = (0..self.ndim()).filter(|d| !dims.contains(d)).collect();
        let mut reduced: Vec<usize> = dims.to_vec();
        reduced.sort_unstable();
        let perm: Vec<usize> = kept.iter().chain(&reduced).copied().collect();
        let p = self.permute(&perm);
        let chunk: usize = reduced.iter().map(|&d| self.shape[d]).product();
        let count: usize = kept.iter().map(|&d| self.shape[d]).product();
        let elems: Vec<TermId> = (0..count)
            .map(|i| f(terms, &p.elems[i * chunk..(i + 1) * chunk]))
            .collect();
        let shape = if keepdim {
            (0..self.ndim())
                .map(|d| if dims.contains(&d) { 1 } else { self.shape[d] })
                .collect()
        } else {
            kept.iter().map(|&d| self.shape[d]).collect()
        };
        Tensor { shape, elems }
    }
}

/// Elementwise `f` over the broadcast of `a` and `b`; `None` if they do not broadcast.
pub(crate) fn zip(
    terms: &mut Terms,
    a: &Tensor,
    b: &Tensor,
    mut f: impl FnMut(&mut Terms, TermId, TermId) -> TermId,
) -> Option<Tensor> {
    let shape = broadcast_shapes(&a.shape, &b.shape)?;
    let a = a.broadcast_to(&shape).ok()?;
    let b = b.broadcast_to(&shape).ok()?;
    let elems = a
        .elems
        .iter()
        .zip(&b.elems)
        .map(|(&x, &y)| f(terms, x, y))
        .collect();
    Some(Tensor { shape, elems })
}

/// Concatenation along `dim` (shapes must agree elsewhere; checked by the caller).
pub(crate) fn concat(parts: &[Tensor], dim: usize) -> Tensor {
    let mut shape = parts[0].shape.clone();
    shape[dim] = parts.iter().map(|p| p.shape[dim]).sum();
    let outer: usize = shape[..dim].iter().product();
    let mut elems = Vec::with_capacity(numel(&shape));
    for o in 0..outer {
        for p in parts {
            let inner: usize = p.shape[dim..].iter().product();
            elems.extend_from_slice(&p.elems[o * inner..(o + 1) * inner]);
        }
    }
    Tensor { shape, elems }
}
