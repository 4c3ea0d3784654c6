//! Where elements sit: concatenations, slices of inputs, inserted unit axes, row
//! broadcasts, and the size expressions their bounds are written in.
//!
//! Invariant: each proposes a formula only where its instantiation matches the list
//! term for term (`Synth::matches`, or the parts' own builds); a bound is a size
//! expression of the launch, literal only on an axis the launch fixes.

use super::Synth;
use crate::formula::{Formula, Size};
use crate::launch::BinOp;
use crate::term::{Node, TermId, Terms};

/// The largest constant a slice bound may differ from a size by (`N + 1`): a stencil's
/// halo, a shift by a few elements; beyond it a number that happens to be near a size
/// would read as one.
const MAX_SLICE_OFFSET: i64 = 8;

impl Synth<'_> {
    /// A concatenation along an axis: the first index of some axis where the input
    /// tensors of the elements change (`by_form`: where the form of the elements
    /// changes, see [`form`]) splits `list` into two parts built separately.
    pub(super) fn concat(
        &mut self,
        shape: &[usize],
        list: &[TermId],
        by_form: bool,
    ) -> Option<Formula> {
        // Each element's tensor mask, read once at the first axis that cuts (in list
        // order, as a read per axis would) and kept for the others.
        let mut masks: Option<Vec<u64>> = None;
        for axis in 0..shape.len() {
            let n = shape[axis];
            // By form: the last axis, two halves of at least two elements each (a pair
            // of unlike elements is no rotate-half, and cutting every such pair costs
            // a build of each).
            if n < 2
                || (by_form
                    && (axis + 1 != shape.len()
                        || !n.is_multiple_of(2)
                        || n < 4
                        || self.in_form_cut))
            {
                continue;
            }
            // Row-major, the elements come in blocks of `stride` that share their index
            // along `axis`; block `b` is at index `b % n` (read block by block, not by a
            // division per element: lists over a new axis run to tens of thousands).
            let stride: usize = shape[axis + 1..].iter().product::<usize>().max(1);
            // The masks are read even when cutting by form: reading one numbers the
            // tensors it meets, and that numbering orders operands elsewhere.
            let masks =
                masks.get_or_insert_with(|| list.iter().map(|&t| self.tensor_mask(t)).collect());
            let mut keys = vec![0u64; n];
            for (b, block) in masks.chunks(stride).enumerate() {
                keys[b % n] |= block.iter().fold(0, |acc, &m| acc | m);
            }
            // `by_form`: where the elements' form changes instead (RoPE's two halves of
            // the head dimension: `x1·c - x2·s`, then `x2·c + x1·s`).
            if by_form {
                keys = vec![0u64; n];
                for (b, block) in list.chunks(stride).enumerate() {
                    for &t in block {
                        let k = &mut keys[b % n];
                        *k = k.wrapping_add(self.form_of(t));
                    }
                }
            }
            let Some(cut) = (1..n).find(|&k| keys[k] != keys[k - 1]) else {
                continue;
            };
            // By form: two halves, each of one form (rotate-half), built without
            // further cuts by form.
            if by_form
                && (cut != n / 2
                    || keys[..cut].iter().any(|k| *k != keys[0])
                    || keys[cut..].iter().any(|k| *k != keys[cut]))
            {
                continue;
            }
            let nested = by_form || self.in_form_cut;
            let was = std::mem::replace(&mut self.in_form_cut, nested);
            let part = |lo: usize, hi: usize| -> (Vec<usize>, Vec<TermId>) {
                let mut s = shape.to_vec();
                s[axis] = hi - lo;
                let l = list
                    .chunks(stride)
                    .enumerate()
                    .filter(|(b, _)| (lo..hi).contains(&(b % n)))
                    .flat_map(|(_, block)| block.iter().copied())
                    .collect();
                (s, l)
            };
            let (ls, ll) = part(0, cut);
            let (rs, rl) = part(cut, n);
            let l = self.build(&ls, &ll);
            let r = l.is_ok().then(|| self.build(&rs, &rl));
            self.in_form_cut = was;
            let (Ok(l), Some(Ok(r))) = (l, r) else {
                continue;
            };
            if l.shape(self.env).ok()? != ls || r.shape(self.env).ok()? != rs {
                continue;
            }
            let mut args = vec![l];
            match r {
                Formula::Cat {
                    axis: a2,
                    args: more,
                } if a2 == axis => args.extend(more),
                r => args.push(r),
            }
            let cat = Formula::cat(args, axis);
            // A cut by form is at a position the launch fixes (RoPE's half of a head
            // dimension of 8), never at a size: a cut at `M` is a tile of the kernel
            // (attention's first key block, rescaled differently), not its formula.
            if by_form && !fixed_slices(&cat) {
                continue;
            }
            return Some(cat);
        }
        None
    }

    /// [`form`] two levels down, memoised per term (a failed build of a long list
    /// asks it of every element, and the same elements recur in many lists).
    pub(super) fn form_of(&mut self, t: TermId) -> u64 {
        if let Some(&h) = self.forms.get(&t) {
            return h;
        }
        // `form(t, 2)`, each child's `form(c, 1)` memoised too: the elements of a row
        // share most of their operands (the row's max, its sum).
        let kids: Vec<u64> = self
            .terms
            .children(t)
            .into_iter()
            .map(|c| match self.child_forms.get(&c) {
                Some(&k) => k,
                None => {
                    let k = form(self.terms, c, 1);
                    self.child_forms.insert(c, k);
                    k
                }
            })
            .collect();
        let h = form_hash(self.terms, t, Some(kids));
        self.forms.insert(t, h);
        h
    }

    /// `x[.., start:end, ..]`: the elements are a block of the input `tensor` (same rank),
    /// its offset read off the first element; bounds as size expressions.
    pub(super) fn input_slice(
        &mut self,
        tensor: &str,
        shape: &[usize],
        list: &[TermId],
    ) -> Option<Formula> {
        let ishape = self.env.tensors.get(tensor)?.clone();
        if ishape.len() != shape.len() {
            return None;
        }
        let Node::Input { index, .. } = self.terms.node(list[0]) else {
            return None;
        };
        let index = index.to_vec();
        let mut f = Formula::input(tensor);
        for k in 0..shape.len() {
            let start = usize::try_from(index[k]).ok()?;
            let end = start + shape[k];
            if end > ishape[k] {
                return None;
            }
            if shape[k] == ishape[k] {
                continue;
            }
            // An axis of extent 1 is a broadcast (or a position of an n-ary operator),
            // not a slice.
            if shape[k] == 1 {
                return None;
            }
            let hi = match end != ishape[k] {
                true => Some(self.size_expr(tensor, k, end)?),
                false => None,
            };
            f = f.slice(k, self.size_expr(tensor, k, start)?, hi);
        }
        (f != Formula::input(tensor) && self.matches(&f, shape, list)).then_some(f)
    }

    /// `x.reshape(shape)`: the elements are every element of the input `tensor` in its
    /// row-major order, over another shape (a kernel summing each block of 4 reads
    /// `x[4·p + j]` at `[p, j]`), as `matches` checks. The shape is written in the
    /// input's size expressions ([`Synth::reshape_sizes`]).
    pub(super) fn reshaped_input(
        &mut self,
        tensor: &str,
        shape: &[usize],
        list: &[TermId],
    ) -> Option<Formula> {
        let ishape = self.env.tensors.get(tensor)?.clone();
        // Unit axes alone are broadcasting's and `unsqueeze`'s (a `[1]` scale read as
        // a number), not a reshape.
        let squeezed = |s: &[usize]| s.iter().copied().filter(|&d| d != 1).collect::<Vec<_>>();
        if squeezed(&ishape) == squeezed(shape) || list.len() != ishape.iter().product::<usize>() {
            return None;
        }
        let sizes = self.reshape_sizes(tensor, &ishape, shape)?;
        let f = Formula::input(tensor).reshape(sizes);
        self.matches(&f, shape, list).then_some(f)
    }

    /// The target shape of a reshape of `tensor` (extents `from`) to `to`, as size
    /// expressions. Axes pair up in groups of equal product. One axis kept: its
    /// expression. Axes merged: the product of theirs. One axis split: the inner
    /// extents are factors of its expression where one has that value (`N` of `M * N`),
    /// else literals (a block of the kernel, `x.view(-1, 4)`); the outer extent is the
    /// rest of the factors, or the expression divided by the inner ones (`N // 4`).
    /// `None` where an axis would need both a split and a merge.
    pub(super) fn reshape_sizes(
        &self,
        tensor: &str,
        from: &[usize],
        to: &[usize],
    ) -> Option<Vec<Size>> {
        let exprs = self.env.dim_exprs.get(tensor)?.clone();
        let value = |e: &Size| e.eval(&self.env.sizes).ok();
        let product = |es: &[Size]| {
            es.iter()
                .cloned()
                .reduce(|a, b| Size::Bin(BinOp::Mul, Box::new(a), Box::new(b)))
                .unwrap_or(Size::Int(1))
        };
        // Unit axes pair up like others (a batch of one keeps its name `B`); one left
        // over at the end is a literal 1.
        let mut out = vec![Size::Int(1); to.len()];
        let f_axes: Vec<usize> = (0..from.len()).collect();
        let t_axes: Vec<usize> = (0..to.len()).collect();
        let (mut i, mut j) = (0, 0);
        while i < f_axes.len() && j < t_axes.len() {
            let (i0, j0) = (i, j);
            let (mut pf, mut pt) = (from[f_axes[i]], to[t_axes[j]]);
            while pf != pt {
                if pf < pt {
                    i += 1;
                    pf *= from[*f_axes.get(i)?];
                } else {
                    j += 1;
                    pt *= to[*t_axes.get(j)?];
                }
            }
            let (fa, ta) = (&f_axes[i0..=i], &t_axes[j0..=j]);
            match (fa, ta) {
                ([f], [t]) => out[*t] = exprs[*f].clone(),
                (fs, [t]) => {
                    out[*t] = product(&fs.iter().map(|&f| exprs[f].clone()).collect::<Vec<_>>())
                }
                ([f], ts) => {
                    let mut factors = factors(&exprs[*f]);
                    let mut inner = Vec::new();
                    for &t in ts[1..].iter().rev() {
                        let e = match factors.iter().rposition(|e| value(e) == Some(to[t] as i64)) {
                            Some(k) => factors.remove(k),
                            None => Size::Int(to[t] as i64),
                        };
                        inner.push(e.clone());
                        out[t] = e;
                    }
                    let rest = product(&factors);
                    out[ts[0]] = if value(&rest) == Some(to[ts[0]] as i64) {
                        rest
                    } else {
                        Size::Bin(
                            BinOp::FloorDiv,
                            Box::new(exprs[*f].clone()),
                            Box::new(product(&inner)),
                        )
                    };
                }
                _ => return None,
            }
            i += 1;
            j += 1;
        }
        let units = |axes: &[usize], ext: &[usize]| axes.iter().all(|&k| ext[k] == 1);
        (units(&f_axes[i..], from) && units(&t_axes[j..], to)).then_some(out)
    }

    /// Elements of `tensor` over a shape with unit axes before and between its own
    /// (`cos[s, j]` over `[1, S, 1, 4]`, after the batch and heads axes it is constant
    /// along were made unit axes): the tensor (or a slice of it) over the shape without
    /// them, with each inner unit axis inserted (`cos[:, :4][:, None]`); leading ones
    /// broadcast.
    pub(super) fn unit_axes_inserted(
        &mut self,
        tensor: &str,
        shape: &[usize],
        list: &[TermId],
    ) -> Option<Formula> {
        let squeezed: Vec<usize> = shape.iter().copied().filter(|&d| d != 1).collect();
        let rank = self.env.tensors.get(tensor)?.len();
        // Only below a leading broadcast axis: a lower-rank tensor spread over a batch
        // axis and an inner one, which NumPy's trailing alignment alone cannot say.
        // (`q[i, d]` over `[M, 1, D]` is attention's matmul, built as one elsewhere.)
        if shape.first() != Some(&1) || squeezed.len() == shape.len() || squeezed.len() != rank {
            return None;
        }
        // Row-major order is the same without unit axes.
        let mut f = self.build(&squeezed, list).ok()?;
        let first = shape.iter().position(|&d| d != 1)?;
        for (axis, _) in shape
            .iter()
            .enumerate()
            .skip(first)
            .filter(|(_, &d)| d == 1)
        {
            f = f.unsqueeze(axis - first);
        }
        self.matches(&f, shape, list).then_some(f)
    }

    /// A vector broadcast along the columns of a matrix, `x[:, None]` (a row's class
    /// label in an `[M, N]` output): NumPy's broadcasting aligns trailing axes, so it is
    /// `x` broadcast to `[N, M]`, transposed. The columns' extent is that of axis 1 of
    /// a matrix of the launch, or 1.
    pub(super) fn row_broadcast(&self, tensor: &str, shape: &[usize]) -> Option<Formula> {
        let rows = match self.env.dim_exprs.get(tensor)?.as_slice() {
            [r] if shape.len() == 2 && r.eval(&self.env.sizes) == Ok(shape[0] as i64) => r.clone(),
            _ => return None,
        };
        // (a column of extent 1 broadcasts further, as `x[:, None]` itself does)
        let cols = match shape[1] {
            1 => Size::Int(1),
            n => self
                .env
                .dim_exprs
                .values()
                .find_map(|d| match d.as_slice() {
                    [_, c] if c.eval(&self.env.sizes) == Ok(n as i64) => Some(c.clone()),
                    _ => None,
                })?,
        };
        Some(Formula::input(tensor).broadcast_to(vec![cols, rows]).t())
    }

    /// A bound with value `v` on `axis` of `tensor`: `0`, a size name of the axis' extent
    /// (`H` for `2 * H`), or the extent of that axis of another tensor of the same rank.
    /// Sizes of other axes are never used, even where equal, and there are no literal
    /// bounds: a bound of 4 that is no size is a block of the kernel (`x[:, :4]` of an
    /// online softmax), which a size-generic formula does not show.
    pub(super) fn size_expr(&self, tensor: &str, axis: usize, v: usize) -> Option<Size> {
        if v == 0 {
            return Some(Size::Int(0));
        }
        let v64 = v as i64;
        let extent = self.env.dim_exprs.get(tensor).and_then(|d| d.get(axis));
        // An axis the launch fixes (RoPE's head dimension of 8, a constexpr of the
        // kernel): a literal bound is the formula's own.
        if let Some(Size::Int(_)) = extent {
            return Some(Size::Int(v64));
        }
        if let Some(e) = extent {
            for n in crate::formula::size_names(e) {
                if self.env.sizes.get(&n) == Some(&v64) {
                    return Some(Size::Size(n));
                }
            }
        }
        // An axis whose extent is a size plus a constant (a stencil's `N + 2` halo): a
        // bound a few elements off a size (`x[1:N + 1]`), or a small literal (`x[1:]`).
        // Not on plain `N` axes, where such bounds are a tile of the instance
        // (`x[:, N - 4:]`), not the formula.
        let halo = matches!(
            extent,
            Some(Size::Bin(BinOp::Add | BinOp::Sub, a, b))
                if matches!(**b, Size::Int(_)) || matches!(**a, Size::Int(_))
        );
        if let (true, Some(e)) = (halo, extent) {
            for n in crate::formula::size_names(e) {
                let Some(&s) = self.env.sizes.get(&n) else {
                    continue;
                };
                let c = v64 - s;
                if c != 0 && c.abs() <= MAX_SLICE_OFFSET {
                    let op = if c > 0 { BinOp::Add } else { BinOp::Sub };
                    let base = Box::new(Size::Size(n));
                    return Some(Size::Bin(op, base, Box::new(Size::Int(c.abs()))));
                }
            }
        }
        // Tensors of the same rank, at the same axis (`y[M, H]` beside `x[M, 2 * H]`).
        let rank = self.env.tensors.get(tensor).map(|s| s.len());
        for dims in self.env.dim_exprs.values() {
            match dims.get(axis) {
                Some(e) if Some(dims.len()) == rank && e.eval(&self.env.sizes) == Ok(v64) => {
                    return Some(e.clone())
                }
                _ => {}
            }
        }
        (halo && v64 <= MAX_SLICE_OFFSET).then_some(Size::Int(v64))
    }
}

/// Whether every slice in `f` has literal bounds.
fn fixed_slices(f: &Formula) -> bool {
    let own = match f {
        Formula::Slice { start, end, .. } => {
            matches!(start, Size::Int(_)) && matches!(end, None | Some(Size::Int(_)))
        }
        _ => true,
    };
    own && f.children().into_iter().all(fixed_slices)
}

/// A hash of `t`'s form `depth` levels down: operators and arities, children as a
/// multiset (operand order is the store's), leaves by kind only.
pub(super) fn form(terms: &Terms, t: TermId, depth: usize) -> u64 {
    let kids = (depth > 0).then(|| {
        terms
            .children(t)
            .into_iter()
            .map(|c| form(terms, c, depth - 1))
            .collect()
    });
    form_hash(terms, t, kids)
}

/// [`form`] of `t` from its children's forms one level less deep (`None` at depth 0).
fn form_hash(terms: &Terms, t: TermId, kids: Option<Vec<u64>>) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    terms.node(t).op_name().hash(&mut h);
    if let Some(mut kids) = kids {
        kids.sort_unstable();
        kids.hash(&mut h);
    }
    h.finish()
}

/// The factors of a product of size expressions (`[M, N]` for `M * N`).
fn factors(e: &Size) -> Vec<Size> {
    match e {
        Size::Bin(BinOp::Mul, a, b) => {
            let mut out = factors(a);
            out.extend(factors(b));
            out
        }
        e => vec![e.clone()],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::ShapeEnv;
    use crate::term::Func;

    /// The memoised two-level form (children's forms kept across elements) is
    /// `form(t, 2)` for each element of a softmax row, which share the max and the sum.
    #[test]
    fn form_of_is_form_two_levels_down() {
        let mut terms = Terms::new();
        let x: Vec<TermId> = (0..3).map(|i| terms.input("x", &[i])).collect();
        let m = terms.maxn(&x);
        let e: Vec<TermId> = x
            .iter()
            .map(|&xi| {
                let d = terms.sub(xi, m);
                terms.call(Func::Exp, d)
            })
            .collect();
        let sum = terms.sum(&e);
        let mut all: Vec<TermId> = e.iter().map(|&ei| terms.div(ei, sum)).collect();
        all.extend([sum, m, e[0], x[0]]);
        let want: Vec<u64> = all.iter().map(|&t| form(&terms, t, 2)).collect();
        let env = ShapeEnv::new();
        let known = super::super::Known::default();
        let mut s = Synth::new(&mut terms, &env, &known, &super::super::Options::default());
        let got: Vec<u64> = all.iter().map(|&t| s.form_of(t)).collect();
        assert_eq!(got, want);
        // A quotient, a sum, a max: three forms.
        assert_ne!(want[0], want[3]);
        assert_ne!(want[3], want[4]);
    }
}
