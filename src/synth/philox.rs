//! Triton's random stream in synthesis: an output folded by a mask of `tl.rand`
//! (seeded dropout) lifted to `where(rand(seed, arange(N) + o) > p, A, B)`.
//!
//! At an instance the seed and the offsets are constants, so the kernel's Philox words,
//! the comparison with a fixed threshold and the `where` all fold: each element is
//! either the kept value `A[i]` or the dropped one `B[i]`, with no trace of the stream.
//! The proposal reads it back: for each seed and starting offset the launch fixes (a
//! constant integer argument; offset 0 too) and each threshold (a real argument it
//! fixes, as f32 and as given), the mask `rand(seed, o + i) op p` of `term::rand` must
//! split the output exactly along its two forms (the elements' structure with input
//! indices erased). `A` and `B` are then built by the ordinary search from lists
//! completed where the other form stands: the nearest element of the form with its
//! input indices shifted by the distance (a guess, as every proposal is). The candidate
//! is kept only where its instantiation is the output, element for element; `prove`
//! and, for every size, `verify::rand` (the kernel's Philox identical to the reference
//! expansion) decide the rest.
//!
//! Invariant: proposes only, and only for a kernel that runs Philox; a formula is
//! returned only when its instantiation has exactly the list's terms. One-dimensional
//! outputs only (the formula's offsets are `arange` of the output's axis).

use super::Synth;
use crate::formula::{Formula, Size};
use crate::kernel::Kernel;
use crate::launch::{ArgBinding, ArgValue, Instance};
use crate::term::{CmpOp, Node, TermId, Terms};
use crate::triton_ir::ast::Module;
use rustc_hash::FxHashMap;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};

/// Fewer elements than this are no evidence for a mask (a chance split).
const MIN_ELEMS: usize = 8;

/// What a random mask may be keyed by in one launch, for one output.
#[derive(Clone, Debug, Default)]
pub(super) struct Streams {
    /// The integer arguments the launch fixes (no size in their expression): the
    /// seeds, and with 0 the offsets a stream may start at.
    ints: Vec<i64>,
    /// The real arguments the launch fixes (`{ value = 0.25 }`): as the f32 parameter
    /// receives it, then as written where that differs.
    thresholds: Vec<f64>,
    /// The output's one axis as a size expression (`None`: not one-dimensional).
    axis: Option<Size>,
}

impl Streams {
    /// The keys of `kernel`'s launch at `inst` for the output whose shape is `dims`;
    /// none unless the kernel runs Philox (a Triton `tt.mulhiui`), so no other kernel's
    /// output is ever read as a mask.
    pub(super) fn new(kernel: &Kernel, inst: &Instance, dims: Option<&Vec<Size>>) -> Streams {
        let mut s = Streams::default();
        if !kernel.triton().is_some_and(runs_philox) {
            return s;
        }
        s.axis = dims.filter(|d| d.len() == 1).map(|d| d[0].clone());
        for (name, b) in &kernel.launch.args {
            match (b, inst.args.get(name)) {
                (ArgBinding::Int(e), Some(ArgValue::Int(v)))
                    if e.eval(&BTreeMap::new()).is_ok() && !s.ints.contains(v) =>
                {
                    s.ints.push(*v)
                }
                (ArgBinding::Value(_), Some(ArgValue::Value(v))) => {
                    for t in [f64::from(*v as f32), *v] {
                        if t.is_finite() && !s.thresholds.contains(&t) {
                            s.thresholds.push(t);
                        }
                    }
                }
                _ => {}
            }
        }
        s
    }
}

/// The comparisons a mask is read with: `rand > p` (Triton's tutorial), `rand < p`.
const OPS: [CmpOp; 2] = [CmpOp::Gt, CmpOp::Lt];

impl Synth<'_> {
    /// `where(rand(seed, arange(N) + o) op p, A, B)` whose instantiation is `list`.
    pub(super) fn random_mask(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let st = &self.streams;
        let axis = st.axis.clone()?;
        if st.ints.is_empty() || st.thresholds.is_empty() || shape != [list.len()] {
            return None;
        }
        if list.len() < MIN_ELEMS {
            return None;
        }
        // The two forms: the elements' structure with input indices erased.
        let mut memo = FxHashMap::default();
        let sigs: Vec<u64> = list
            .iter()
            .map(|&t| form(self.terms, t, &mut memo))
            .collect();
        let first = sigs[0];
        let other = *sigs.iter().find(|&&s| s != first)?;
        if sigs.iter().any(|&s| s != first && s != other) {
            return None;
        }
        let in_first: Vec<bool> = sigs.iter().map(|&s| s == first).collect();
        let (ints, thresholds) = (st.ints.clone(), st.thresholds.clone());
        let offsets: Vec<i64> = std::iter::once(0).chain(ints.iter().copied()).collect();
        for &seed in &ints {
            for &o in &offsets {
                let r: Vec<f64> = (0..list.len() as i64)
                    .map(|i| f64::from(crate::term::rand::triton_rand(seed, o + i)))
                    .collect();
                for &p in &thresholds {
                    for op in OPS {
                        let keep: Vec<bool> = r.iter().map(|&x| op.holds(x, p)).collect();
                        let inverted = keep.iter().zip(&in_first).all(|(k, f)| k != f);
                        if keep != in_first && !inverted {
                            continue;
                        }
                        if let Some(f) = self.masked(shape, list, &keep, seed, o, &axis, op, p) {
                            return Some(f);
                        }
                    }
                }
            }
        }
        None
    }

    /// The candidate for one mask: `A` and `B` built from the lists completed by
    /// shifting, kept where the whole instantiates to `list`.
    #[allow(clippy::too_many_arguments)]
    fn masked(
        &mut self,
        shape: &[usize],
        list: &[TermId],
        keep: &[bool],
        seed: i64,
        o: i64,
        axis: &Size,
        op: CmpOp,
        p: f64,
    ) -> Option<Formula> {
        let kept = self.completed(list, keep, true)?;
        let dropped = self.completed(list, keep, false)?;
        let a = self.build(shape, &kept).ok()?;
        let b = self.build(shape, &dropped).ok()?;
        let mut offset = Formula::Arange(axis.clone());
        if o != 0 {
            offset = Formula::binary(crate::formula::BinaryOp::Add, offset, Formula::int(o));
        }
        let rand = Formula::Rand {
            seed,
            offset: Box::new(offset),
        };
        let f = Formula::select(Formula::cmp(op, rand, Formula::float(p)), a, b);
        self.matches(&f, shape, list).then_some(f)
    }

    /// `list` where `keep[i] == side`, elsewhere the nearest such element with its
    /// input indices moved by the distance; `None` where a moved index leaves its tensor.
    fn completed(&mut self, list: &[TermId], keep: &[bool], side: bool) -> Option<Vec<TermId>> {
        let at: Vec<usize> = (0..list.len()).filter(|&i| keep[i] == side).collect();
        let mut out = Vec::with_capacity(list.len());
        for i in 0..list.len() {
            if keep[i] == side {
                out.push(list[i]);
                continue;
            }
            let j = *at.iter().min_by_key(|&&j| (j.abs_diff(i), j))?;
            out.push(self.shifted(list[j], i as i64 - j as i64)?);
        }
        Some(out)
    }

    /// `t` with each input element's last index moved by `d`.
    fn shifted(&mut self, t: TermId, d: i64) -> Option<TermId> {
        let mut map = FxHashMap::default();
        let mut todo = vec![t];
        while let Some(x) = todo.pop() {
            if map.contains_key(&x) {
                continue;
            }
            let node = self.terms.node(x).clone();
            let Node::Input { tensor, index } = node else {
                todo.extend(self.terms.children(x));
                continue;
            };
            let extent = *self.env.tensors.get(&*tensor)?.last()? as i64;
            let mut index = index.to_vec();
            let last = index.last_mut()?;
            *last += d;
            if !(0..extent).contains(last) {
                return None;
            }
            let moved = self.terms.input(&tensor, &index);
            map.insert(x, moved);
        }
        Some(self.terms.substitute(t, &map))
    }
}

/// Whether `module` has a `tt.mulhiui` (Philox's rounds; `tl.rand`'s only source).
fn runs_philox(module: &Module) -> bool {
    !crate::triton_ir::ops_where(module, |op| op.name == "tt.mulhiui").is_empty()
}

/// A hash of `t`'s structure with input indices erased: operators, constants, scalar
/// names and input tensor names; n-ary operands as a multiset.
fn form(terms: &Terms, t: TermId, memo: &mut FxHashMap<TermId, u64>) -> u64 {
    if let Some(&h) = memo.get(&t) {
        return h;
    }
    let node = terms.node(t);
    let mut h = rustc_hash::FxHasher::default();
    node.op_name().hash(&mut h);
    match node {
        Node::Const(c) => c.hash(&mut h),
        Node::Input { tensor, .. } => tensor.hash(&mut h),
        _ => {}
    }
    let mut kids: Vec<u64> = terms
        .children(t)
        .into_iter()
        .map(|c| form(terms, c, memo))
        .collect();
    if matches!(
        node,
        Node::Add(_)
            | Node::Mul(_)
            | Node::Max(_)
            | Node::Min(_)
            | Node::MaxNum(_)
            | Node::MinNum(_)
            | Node::And(_)
            | Node::Or(_)
    ) {
        kids.sort_unstable();
    }
    kids.hash(&mut h);
    let h = h.finish();
    memo.insert(t, h);
    h
}
