//! Interleaved layouts: an output whose last axis alternates between two forms
//! (interleaved rotary embeddings: `x0·c − x1·s` at even columns, `x0·s + x1·c` at odd
//! ones, as `tl.join` of two halves writes them), and the leaves such halves read:
//! every other element of an input's last axis, a tensor with a trailing unit axis.
//!
//! The formula is PyTorch's way of writing it: the even and the odd elements built
//! over `[.., n/2, 1]`, concatenated along a new last axis of 2 and reshaped back
//! (`torch.cat([a, b], dim=-1).reshape(x.shape)`); every other element of `x` is
//! `x.reshape(.., n/2, 2)[.., k:k+1]`.
//!
//! Invariant: as every proposal of `synth`, a formula is kept only where its
//! instantiation matches the list term for term (`Synth::matches`).

use super::Synth;
use crate::formula::{Formula, Size};
use crate::term::TermId;

impl Synth<'_> {
    /// The even and the odd elements of the last axis, each of one form and the two
    /// forms unlike, built apart and interleaved again.
    pub(super) fn interleave(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let (&n, outer) = shape.split_last()?;
        if n < 4 || !n.is_multiple_of(2) || self.in_form_cut || list.len() < 2 {
            return None;
        }
        // Cheap test first: row-major order puts the last axis innermost, so even
        // positions of the list are the even columns.
        let (even, odd) = (self.form_of(list[0]), self.form_of(list[1]));
        if even == odd
            || list
                .iter()
                .enumerate()
                .any(|(p, &t)| self.form_of(t) != if p % 2 == 0 { even } else { odd })
        {
            return None;
        }
        let mut half = outer.to_vec();
        half.extend([n / 2, 1]);
        let pick = |k: usize| list.iter().skip(k).step_by(2).copied().collect::<Vec<_>>();
        // Each half is one form: no further cut by form inside it.
        let was = std::mem::replace(&mut self.in_form_cut, true);
        let e = self.build(&half, &pick(0));
        let o = e.is_ok().then(|| self.build(&half, &pick(1)));
        self.in_form_cut = was;
        let (Ok(e), Some(Ok(o))) = (e, o) else {
            return None;
        };
        if e.shape(self.env).ok()? != half || o.shape(self.env).ok()? != half {
            return None;
        }
        let sizes = self.sizes_of(shape)?;
        let f = Formula::cat(vec![e, o], shape.len()).reshape(sizes);
        self.matches(&f, shape, list).then_some(f)
    }

    /// `x.reshape(.., n/2, 2)[.., k:k+1]`: every other element of the last axis of
    /// `tensor` (extent `n`), from `k`, over `[.., n/2, 1]`.
    pub(super) fn every_other(
        &mut self,
        tensor: &str,
        shape: &[usize],
        list: &[TermId],
    ) -> Option<Formula> {
        let ishape = self.env.tensors.get(tensor)?.clone();
        let (&n, outer) = ishape.split_last()?;
        if n < 4 || !n.is_multiple_of(2) || shape.len() != ishape.len() + 1 {
            return None;
        }
        if shape[..outer.len()] != *outer || shape[outer.len()..] != [n / 2, 1] {
            return None;
        }
        let mut to = outer.to_vec();
        to.extend([n / 2, 2]);
        let sizes = match self.env.dim_exprs.get(tensor)?.split_last()? {
            // An axis the launch fixes (a head dimension of 8): literal halves.
            (Size::Int(_), exprs) => {
                let mut s = exprs.to_vec();
                s.extend([Size::Int(n as i64 / 2), Size::Int(2)]);
                s
            }
            _ => self.reshape_sizes(tensor, &ishape, &to)?,
        };
        let axis = ishape.len();
        (0..2).find_map(|k| {
            let f = Formula::input(tensor).reshape(sizes.clone()).slice(
                axis,
                Size::Int(k),
                Some(Size::Int(k + 1)),
            );
            self.matches(&f, shape, list).then_some(f)
        })
    }

    /// `x[.., None]`: every element of `tensor` over its shape with a trailing unit
    /// axis (`cos[:, :, None]` beside the pairs of a rotary row).
    pub(super) fn trailing_unit_axis(
        &mut self,
        tensor: &str,
        shape: &[usize],
        list: &[TermId],
    ) -> Option<Formula> {
        let ishape = self.env.tensors.get(tensor)?;
        let (&last, lead) = shape.split_last()?;
        if last != 1 || lead != ishape.as_slice() || ishape.is_empty() {
            return None;
        }
        let f = Formula::input(tensor).unsqueeze(ishape.len());
        self.matches(&f, shape, list).then_some(f)
    }

    /// `shape` as size expressions: those of a tensor of the launch with exactly these
    /// extents (the output itself), in the launch's (sorted) order.
    fn sizes_of(&self, shape: &[usize]) -> Option<Vec<Size>> {
        self.env.dim_exprs.values().find_map(|exprs| {
            let fits = exprs.len() == shape.len()
                && exprs
                    .iter()
                    .zip(shape)
                    .all(|(e, &d)| e.eval(&self.env.sizes) == Ok(d as i64));
            fits.then(|| exprs.clone())
        })
    }
}
