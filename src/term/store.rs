//! The hash-consed store [`Terms`]: interning (equal nodes get equal ids), the per-node
//! facts folds consult (may be non-finite, total, closed, NaN-free), leaves, queries,
//! substitution, and the integer inputs with their ranges.
//!
//! Invariant: a node is interned only through [`Terms::intern`], which computes its
//! facts from its children's; ids index `nodes` and never dangle.

use super::node::*;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use rustc_hash::{FxBuildHasher, FxHashMap};
use std::hash::BuildHasher;
use std::sync::Arc;

#[derive(Default, Clone)]
pub struct Terms {
    pub(super) nodes: Vec<Node>,
    /// Per node: whether it may be non-finite (±inf or NaN) at some point, i.e. it is or
    /// reads an `Inf`, `NaN` or `Opaque` node. Folds that are exact only for finite
    /// operands (`0 · t = 0`, `t - t = 0`, `t <= t`) check it first.
    pub(super) nonfinite: Vec<bool>,
    /// Per node: whether it is finite at every finite point (total): built from inputs,
    /// params and finite constants by sums, products, powers ≥ 0, extrema, selects,
    /// comparisons and the functions defined everywhere (exp, tanh, sin, ...); no
    /// division, log or square root, whose domain boundary (`log 0 = -inf`) can reach an
    /// infinity. `may_be_nonfinite` is false for those too (their domains are the
    /// preconditions of a proof), so a fold that removes the term, like `t == -inf`
    /// to false, needs this stronger fact.
    pub(super) total: Vec<bool>,
    /// Per node: whether it reads no input and no param (a closed constant expression
    /// such as `log(1/2)`, which the real-domain folds must evaluate to see NaN).
    pub(super) closed: Vec<bool>,
    /// Per node: whether it is NaN at no finite point: a total term (no division, log or
    /// root below it: `0/0`, `log` of a negative), an infinity, a param (a real scalar,
    /// or a loop-carried value that may be ±inf), or a max, min, select or comparison of
    /// such (a masked lane's `select(m, x, -inf)`); a maxNum with one such operand. A
    /// [`Terms::placeholder`] may be NaN. Folds whose result a NaN changes need it.
    pub(super) nan_free: Vec<bool>,
    /// Per node: whether a select, comparison, max or min is the node or below it (the
    /// extrema pass, `exec::extrema`, rewrites only those: a term without one is its
    /// own rewrite, and a matmul's products are not walked).
    pub(super) ordered: Vec<bool>,
    /// (hash of the node, its id): finds a node's id without a second copy of it.
    pub(super) ids: hashbrown::HashTable<(u64, TermId)>,
    /// Input tensors whose elements are integers (a launch `dtype` such as `int64` or
    /// `bool`), with the range every element lies in: the same contract as the TTIR
    /// interpreter's data-dependent integers. Points chosen for such inputs (the
    /// refuter's, the race witness's) are integers in the range.
    pub(super) int_inputs: FxHashMap<Arc<str>, (i128, i128)>,
    /// Integer input tensors whose launch declares the values their elements take
    /// (`values = "0..N"`): sorted, distinct. A gather splits over them (`gather.rs`).
    pub(super) int_values: FxHashMap<Arc<str>, Arc<[i64]>>,
}

/// The first character of a [`Terms::placeholder`]'s name.
pub const PLACEHOLDER: char = '\u{1}';

pub(super) fn rat(n: i64) -> BigRational {
    BigRational::from_integer(BigInt::from(n))
}

/// A value on the extended real line, for folding comparisons.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Ext<'a> {
    NegInf,
    Fin(&'a BigRational),
    PosInf,
}

impl Terms {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn len(&self) -> usize {
        self.nodes.len()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn node(&self, id: TermId) -> &Node {
        &self.nodes[id.0 as usize]
    }

    /// Whether some node of the store satisfies `f` (a linear scan: cheaper than a walk
    /// of a large output's DAG when the answer rules a pass out).
    pub fn any_node(&self, f: impl Fn(&Node) -> bool) -> bool {
        self.nodes.iter().any(f)
    }

    /// Returns the id of `node`, creating it if it is new. Callers are responsible for the
    /// node invariants documented on [`Node`].
    pub(super) fn intern(&mut self, node: Node) -> TermId {
        let hash = FxBuildHasher.hash_one(&node);
        if let Some(id) = self.find(hash, &node) {
            return id;
        }
        let id = TermId(u32::try_from(self.nodes.len()).expect("more than 2^32 terms"));
        let nonfinite = match &node {
            Node::Inf { .. } | Node::NaN | Node::Opaque(..) => true,
            _ => {
                let mut any = false;
                for_each_child_of(&node, |c| any |= self.nonfinite[c.0 as usize]);
                any
            }
        };
        let total = match &node {
            Node::Inf { .. } | Node::NaN | Node::Opaque(..) => false,
            Node::Pow(_, k) if *k < 0 => false,
            Node::Call(f, _)
                if !matches!(
                    f,
                    Func::Exp
                        | Func::Exp2
                        | Func::Tanh
                        | Func::Sin
                        | Func::Cos
                        | Func::Erf
                        | Func::Abs
                        | Func::Floor
                        | Func::Ceil
                        | Func::Rint
                ) =>
            {
                false
            }
            _ => {
                let mut all = true;
                for_each_child_of(&node, |c| all &= self.total[c.0 as usize]);
                all
            }
        };
        let closed = match &node {
            Node::Input { .. } | Node::Param(_) => false,
            _ => {
                let mut all = true;
                for_each_child_of(&node, |c| all &= self.closed[c.0 as usize]);
                all
            }
        };
        let nan_free = match &node {
            Node::Input { .. } | Node::Const(_) | Node::Inf { .. } => true,
            Node::Param(name) => !name.starts_with(PLACEHOLDER),
            Node::NaN | Node::Opaque(..) => false,
            Node::Max(_)
            | Node::Min(_)
            | Node::Select(..)
            | Node::Cmp(..)
            | Node::Not(_)
            | Node::And(_)
            | Node::Or(_) => {
                let mut all = true;
                for_each_child_of(&node, |c| all &= self.nan_free[c.0 as usize]);
                all
            }
            Node::MaxNum(_) | Node::MinNum(_) => {
                let mut any = false;
                for_each_child_of(&node, |c| any |= self.nan_free[c.0 as usize]);
                any
            }
            Node::Add(_) | Node::Mul(_) | Node::Pow(..) | Node::Call(..) => total,
        };
        let ordered = matches!(
            node,
            Node::Select(..) | Node::Cmp(..) | Node::Max(_) | Node::Min(_)
        ) || {
            let mut any = false;
            for_each_child_of(&node, |c| any |= self.ordered[c.0 as usize]);
            any
        };
        self.nonfinite.push(nonfinite);
        self.total.push(total);
        self.closed.push(closed);
        self.nan_free.push(nan_free);
        self.ordered.push(ordered);
        self.nodes.push(node);
        self.ids.insert_unique(hash, (hash, id), |e| e.0);
        id
    }

    /// The id of `node` (whose hash is `hash`), if it is interned.
    pub(super) fn find(&self, hash: u64, node: &Node) -> Option<TermId> {
        self.ids
            .find(hash, |&(h, id)| {
                h == hash && self.nodes[id.0 as usize] == *node
            })
            .map(|e| e.1)
    }

    // ---- leaves ------------------------------------------------------------------

    pub fn input(&mut self, tensor: &str, index: &[i64]) -> TermId {
        self.intern(Node::Input {
            tensor: tensor.into(),
            index: index.into(),
        })
    }
    pub fn param(&mut self, name: &str) -> TermId {
        self.intern(Node::Param(name.into()))
    }
    /// A param standing for an arbitrary term, which may be NaN (the spec reader's
    /// tensor arguments, read back as formulas): `maxnum` over it stays a maxNum, where
    /// over a param it is a max. Its name is `name` after [`PLACEHOLDER`].
    pub fn placeholder(&mut self, name: &str) -> TermId {
        self.param(&format!("{PLACEHOLDER}{name}"))
    }
    /// A param standing for a value that may be ±inf: a loop-carried float of the
    /// all-sizes verifier (a running max starts at -inf). Like [`Terms::param`], but not
    /// total, so `p == -inf` stays a comparison. Call it before any term reads the
    /// param (flags are set when a node is interned).
    pub fn carried_param(&mut self, name: &str) -> TermId {
        let fresh = self.len();
        let p = self.param(name);
        // A param first made total may already have total parents: a caller bug.
        debug_assert!(
            p.0 as usize >= fresh || !self.total[p.0 as usize],
            "carried_param({name}) after param({name})"
        );
        self.total[p.0 as usize] = false;
        p
    }
    pub fn constant(&mut self, value: BigRational) -> TermId {
        self.intern(Node::Const(value))
    }
    pub fn int(&mut self, value: i64) -> TermId {
        self.constant(rat(value))
    }
    /// The exact rational value of `value`'s bits; ±inf and NaN become `Inf`/`NaN`.
    pub fn float(&mut self, value: f64) -> TermId {
        if value.is_nan() {
            self.nan()
        } else if value.is_infinite() {
            self.inf(value < 0.0)
        } else {
            // `from_float` is exact for every finite f64 (including subnormals and -0).
            let r = super::dyadic::from_f64(value).unwrap_or_else(|| rat(0));
            self.constant(r)
        }
    }
    pub fn zero(&mut self) -> TermId {
        self.int(0)
    }
    pub fn one(&mut self) -> TermId {
        self.int(1)
    }
    /// `+inf` (`negative == false`) or `-inf`.
    pub fn inf(&mut self, negative: bool) -> TermId {
        self.intern(Node::Inf { negative })
    }
    pub fn nan(&mut self) -> TermId {
        self.intern(Node::NaN)
    }
    pub(super) fn boolean(&mut self, b: bool) -> TermId {
        self.int(b as i64)
    }

    // ---- small queries -------------------------------------------------------------

    pub fn as_const(&self, id: TermId) -> Option<&BigRational> {
        match self.node(id) {
            Node::Const(c) => Some(c),
            _ => None,
        }
    }
    /// Truth value of a constant condition: the constant 0 is false, any other constant
    /// (and ±inf) is true; `None` for NaN and non-constant terms.
    pub fn as_bool(&self, id: TermId) -> Option<bool> {
        match self.node(id) {
            Node::Const(c) => Some(!c.is_zero()),
            Node::Inf { .. } => Some(true),
            _ => None,
        }
    }
    /// `Some(negative)` when `id` is ±inf.
    pub fn as_inf(&self, id: TermId) -> Option<bool> {
        match self.node(id) {
            Node::Inf { negative } => Some(*negative),
            _ => None,
        }
    }
    pub fn is_nan(&self, id: TermId) -> bool {
        matches!(self.node(id), Node::NaN)
    }
    /// Whether the term is boolean-valued by construction (its value is always 0 or 1).
    pub fn is_boolean(&self, id: TermId) -> bool {
        match self.node(id) {
            Node::Cmp(..) | Node::Not(_) | Node::And(_) | Node::Or(_) => true,
            Node::Const(c) => c.is_zero() || c.is_one(),
            _ => false,
        }
    }
    pub(super) fn ext(&self, id: TermId) -> Option<Ext<'_>> {
        match self.node(id) {
            Node::Const(c) => Some(Ext::Fin(c)),
            Node::Inf { negative: true } => Some(Ext::NegInf),
            Node::Inf { negative: false } => Some(Ext::PosInf),
            _ => None,
        }
    }
    /// Whether `id` may be ±inf or NaN for some finite inputs: it is or reads an `Inf`,
    /// `NaN` or `Opaque` node. (Inputs and params are finite; `1/x` or `log(x)` of a
    /// symbolic `x` are finite wherever defined, their domains being preconditions.)
    pub fn may_be_nonfinite(&self, id: TermId) -> bool {
        self.nonfinite[id.0 as usize]
    }
    /// Whether `id` is finite at every finite point, domain boundaries included (see
    /// the `total` field): no infinity, NaN, division, log or root below it.
    pub fn is_total(&self, id: TermId) -> bool {
        self.total[id.0 as usize]
    }

    /// Whether `id` reads no input and no param (a constant expression).
    pub fn is_closed(&self, id: TermId) -> bool {
        self.closed[id.0 as usize]
    }

    /// Whether a select, comparison, max or min is `id` or below it.
    pub fn has_ordered(&self, id: TermId) -> bool {
        self.ordered[id.0 as usize]
    }

    /// Calls `f` on each child of `id`, in operand order.
    pub fn for_each_child(&self, id: TermId, f: impl FnMut(TermId)) {
        for_each_child_of(self.node(id), f)
    }
}

impl Terms {
    /// The children of `id`, in operand order.
    pub fn children(&self, id: TermId) -> Vec<TermId> {
        let mut v = Vec::new();
        self.for_each_child(id, |c| v.push(c));
        v
    }

    /// `t` with every subterm that `map` names replaced by its image (rebuilt through
    /// the constructors, so the result folds); images are not searched again.
    pub fn substitute(&mut self, t: TermId, map: &FxHashMap<TermId, TermId>) -> TermId {
        let mut memo: FxHashMap<TermId, TermId> = FxHashMap::default();
        self.substitute_in(t, map, &mut memo)
    }

    /// [`Terms::substitute`] sharing `memo` across calls with the same `map` (the
    /// elements of one output share most of their sub-terms).
    pub fn substitute_memo(
        &mut self,
        t: TermId,
        map: &FxHashMap<TermId, TermId>,
        memo: &mut FxHashMap<TermId, TermId>,
    ) -> TermId {
        self.substitute_in(t, map, memo)
    }

    pub(super) fn substitute_in(
        &mut self,
        t: TermId,
        map: &FxHashMap<TermId, TermId>,
        memo: &mut FxHashMap<TermId, TermId>,
    ) -> TermId {
        if let Some(&r) = map.get(&t).or_else(|| memo.get(&t)) {
            return r;
        }
        let kids = self.children(t);
        let new: Vec<TermId> = kids
            .iter()
            .map(|&k| self.substitute_in(k, map, memo))
            .collect();
        let r = if new == kids {
            t
        } else {
            self.with_children(t, &new)
        };
        memo.insert(t, r);
        r
    }

    /// `t`'s operation over `kids` instead of its children, through the constructors
    /// above (so the result folds and stays canonical); a leaf is `t` itself.
    pub fn with_children(&mut self, t: TermId, kids: &[TermId]) -> TermId {
        match self.node(t).clone() {
            Node::Add(_) => self.sum(kids),
            Node::Mul(_) => self.product(kids),
            Node::Pow(_, k) => self.powi(kids[0], k),
            Node::Call(f, _) => self.call(f, kids[0]),
            Node::Max(_) => self.maxn(kids),
            Node::Min(_) => self.minn(kids),
            Node::MaxNum(_) => self.maxnum_n(kids),
            Node::MinNum(_) => self.minnum_n(kids),
            Node::Cmp(op, _, _) => self.cmp(op, kids[0], kids[1]),
            Node::Not(_) => self.not(kids[0]),
            Node::And(_) => self.andn(kids),
            Node::Or(_) => self.orn(kids),
            Node::Select(..) => self.select(kids[0], kids[1], kids[2]),
            Node::Opaque(op, _) => self.opaque(&op, kids),
            Node::Input { .. } | Node::Param(_) | Node::Const(_) | Node::Inf { .. } | Node::NaN => {
                t
            }
        }
    }

    /// An opaque bit-level operation (see [`Node::Opaque`]): no normalisation at all,
    /// so equal opcode text over equal operands is the same id.
    pub fn opaque(&mut self, op: &str, args: &[TermId]) -> TermId {
        self.intern(Node::Opaque(op.into(), args.into()))
    }
    /// The id of `op(args)` if it exists already (never inserts).
    pub fn find_opaque(&self, op: &str, args: &[TermId]) -> Option<TermId> {
        let node = Node::Opaque(op.into(), args.into());
        self.find(FxBuildHasher.hash_one(&node), &node)
    }
    /// Declare the elements of input tensor `tensor` integers in `lo..=hi`.
    pub fn declare_int_input(&mut self, tensor: &str, lo: i128, hi: i128) {
        self.int_inputs.insert(tensor.into(), (lo, hi));
    }
    /// The declared range of an integer input tensor (`None`: its elements are reals).
    pub fn int_input(&self, tensor: &str) -> Option<(i128, i128)> {
        self.int_inputs.get(tensor).copied()
    }
    /// A point's value `v` for an element of `tensor`, made an integer in the declared
    /// range where the tensor is an integer one (rounded, then clamped); reals unchanged.
    pub fn fit_input_value(&self, tensor: &str, v: f64) -> f64 {
        if let Some(vals) = self.int_values.get(tensor) {
            return nearest_value(vals, v);
        }
        match self.int_input(tensor) {
            Some((lo, hi)) if v.is_finite() => v.round().clamp(lo as f64, hi as f64),
            Some((lo, _)) => lo as f64,
            None => v,
        }
    }
    /// The integers `id` can take on every input, when it is an integer-valued term this
    /// can see: integer constants, elements of integer inputs, and selects, sums,
    /// products, maxima and minima of those. `None` when unknown (a real, an opaque node).
    pub fn int_range(&self, id: TermId) -> Option<(i128, i128)> {
        self.int_range_depth(id, 0)
    }
    /// Real bounds `lo <= id <= hi` on every input, with `id` never NaN, where they show:
    /// constants, maxima and minima with a bounded operand (`tl.clamp` to constants),
    /// sums of bounded terms, and `floor`/`ceil`/`rint` of them. `None` when either
    /// bound is unknown.
    pub fn real_bounds(&self, id: TermId) -> Option<(f64, f64)> {
        match self.half_bounds(id, 0) {
            (Some(lo), Some(hi)) => Some((lo, hi)),
            _ => None,
        }
    }
    /// The lower and upper bound of `id` each where known; a known bound means `id` is
    /// never NaN. Bounds are f64s of exact rationals rounded outward by at most an ulp,
    /// enough for the integer ranges they give ([`Terms::int_range`]).
    fn half_bounds(&self, id: TermId, depth: u32) -> (Option<f64>, Option<f64>) {
        if depth > 64 {
            return (None, None);
        }
        let both = |b: (Option<f64>, Option<f64>)| b.0.zip(b.1);
        match self.node(id) {
            Node::Const(c) => {
                let x = c.to_f64().filter(|x| x.is_finite());
                (x, x)
            }
            // maxNum drops NaN operands, so it is at least every operand that is a number;
            // a NaN-propagating max is read only where no operand may be NaN. At most the
            // largest upper bound when every operand has one.
            Node::MaxNum(ops) | Node::MinNum(ops) | Node::Max(ops) | Node::Min(ops) => {
                let n = self.node(id);
                let is_max = matches!(n, Node::MaxNum(_) | Node::Max(_));
                if matches!(n, Node::Max(_) | Node::Min(_)) && !self.nan_free(id) {
                    return (None, None);
                }
                let bs: Vec<_> = ops
                    .iter()
                    .map(|&o| self.half_bounds(o, depth + 1))
                    .collect();
                let pick = |a: f64, b: f64| if is_max { a.max(b) } else { a.min(b) };
                let near = bs
                    .iter()
                    .filter_map(|b| if is_max { b.0 } else { b.1 })
                    .reduce(pick);
                let far = bs
                    .iter()
                    .map(|b| if is_max { b.1 } else { b.0 })
                    .collect::<Option<Vec<f64>>>()
                    .and_then(|v| v.into_iter().reduce(pick));
                if is_max {
                    (near, far)
                } else {
                    (far, near)
                }
            }
            Node::Add(xs) => {
                let bs: Option<Vec<(f64, f64)>> = xs
                    .iter()
                    .map(|&x| both(self.half_bounds(x, depth + 1)))
                    .collect();
                match bs {
                    // Widened by a relative 2^-40 each way: the f64 sum rounds.
                    Some(bs) => {
                        let lo: f64 = bs.iter().map(|b| b.0).sum();
                        let hi: f64 = bs.iter().map(|b| b.1).sum();
                        let pad = (lo.abs().max(hi.abs()) + 1.0) * 2f64.powi(-40);
                        (Some(lo - pad), Some(hi + pad))
                    }
                    None => (None, None),
                }
            }
            // Monotone roundings to integers map the bounds.
            Node::Call(f @ (Func::Floor | Func::Ceil | Func::Rint), a) => {
                let round = match f {
                    Func::Floor => f64::floor,
                    Func::Ceil => f64::ceil,
                    _ => f64::round_ties_even,
                };
                match both(self.half_bounds(*a, depth + 1)) {
                    Some((lo, hi)) => (Some(round(lo)), Some(round(hi))),
                    None => (None, None),
                }
            }
            _ => (None, None),
        }
    }
    pub(super) fn int_range_depth(&self, id: TermId, depth: u32) -> Option<(i128, i128)> {
        const LIMIT: i128 = 1 << 100;
        if depth > 64 {
            return None;
        }
        let r = match self.node(id) {
            Node::Const(c) if c.is_integer() => {
                let n = c.to_integer();
                let n: i128 = n.to_string().parse().ok()?;
                (n, n)
            }
            Node::Input { tensor, .. } => self.int_input(tensor)?,
            // An integer rounding of a bounded real: the integers between its bounds.
            Node::Call(Func::Floor | Func::Ceil | Func::Rint, _) => {
                let (lo, hi) = self.real_bounds(id)?;
                if lo.abs() >= 2f64.powi(100) || hi.abs() >= 2f64.powi(100) {
                    return None;
                }
                (lo.ceil() as i128, hi.floor() as i128)
            }
            Node::Select(_, a, b) => {
                let (x, y) = (
                    self.int_range_depth(*a, depth + 1)?,
                    self.int_range_depth(*b, depth + 1)?,
                );
                (x.0.min(y.0), x.1.max(y.1))
            }
            Node::Max(xs) | Node::Min(xs) => {
                let max = matches!(self.node(id), Node::Max(_));
                let mut acc: Option<(i128, i128)> = None;
                for &x in xs.iter() {
                    let r = self.int_range_depth(x, depth + 1)?;
                    acc = Some(match acc {
                        None => r,
                        Some(a) if max => (a.0.max(r.0), a.1.max(r.1)),
                        Some(a) => (a.0.min(r.0), a.1.min(r.1)),
                    });
                }
                acc?
            }
            Node::Add(xs) => {
                let (mut lo, mut hi) = (0i128, 0i128);
                for &x in xs.iter() {
                    let r = self.int_range_depth(x, depth + 1)?;
                    lo = lo.checked_add(r.0)?;
                    hi = hi.checked_add(r.1)?;
                }
                (lo, hi)
            }
            Node::Mul(xs) => {
                let (mut lo, mut hi) = (1i128, 1i128);
                for &x in xs.iter() {
                    let r = self.int_range_depth(x, depth + 1)?;
                    let c = [
                        lo.checked_mul(r.0)?,
                        lo.checked_mul(r.1)?,
                        hi.checked_mul(r.0)?,
                        hi.checked_mul(r.1)?,
                    ];
                    lo = *c.iter().min()?;
                    hi = *c.iter().max()?;
                }
                (lo, hi)
            }
            // PTX integer code kept as opaque bits: `and` with a non-negative mask below
            // 2^31 lies in [0, mask] (its result's bits are the mask's), and `shl` by a
            // constant or `mul.wide` by a constant of a non-negative ranged value scale
            // its range (addresses into module tables: `(q & 8) * 8`).
            Node::Opaque(op, args) => {
                let small = |a: TermId| {
                    let c = self.as_const(a)?;
                    let v = c.is_integer().then(|| c.to_integer().to_i128())??;
                    (0..1i128 << 31).contains(&v).then_some(v)
                };
                let other = |k: usize| args.get(1 - k).copied();
                match (&**op, args.len()) {
                    (o, 2) if o.starts_with("and.b") => {
                        (0, args.iter().filter_map(|&a| small(a)).min()?)
                    }
                    (o, 2) if o.starts_with("shl.b") => {
                        let k = small(args[1]).filter(|&k| k < 32)?;
                        let (lo, hi) = self.int_range_depth(args[0], depth + 1)?;
                        (lo >= 0 && hi < 1 << 31).then_some((lo << k, hi << k))?
                    }
                    (o, 2) if o.starts_with("mul.wide.u") => {
                        let k = (0..2).find(|&k| small(args[k]).is_some())?;
                        let c = small(args[k])?;
                        let (lo, hi) = self.int_range_depth(other(k)?, depth + 1)?;
                        (lo >= 0 && hi < 1 << 31).then_some((lo * c, hi * c))?
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        (r.0.abs() < LIMIT && r.1.abs() < LIMIT).then_some(r)
    }
    /// The exact integer `value` (a bit pattern, as an operand of an opaque node).
    pub fn bits(&mut self, value: u64) -> TermId {
        self.constant(BigRational::from_integer(BigInt::from(value)))
    }
    /// Whether `id` contains an opaque node; its opcode when it does.
    pub fn find_opaque_in(&self, id: TermId) -> Option<Arc<str>> {
        let mut todo = vec![id];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(t) = todo.pop() {
            if !seen.insert(t) {
                continue;
            }
            if let Node::Opaque(op, _) = self.node(t) {
                return Some(op.clone());
            }
            self.for_each_child(t, |c| todo.push(c));
        }
        None
    }
}

/// The declared value nearest to `v` (ties to the smaller; NaN the smallest).
fn nearest_value(vals: &[i64], v: f64) -> f64 {
    let (Some(&first), Some(&last)) = (vals.first(), vals.last()) else {
        return v;
    };
    if v.is_nan() {
        return first as f64;
    }
    let k = vals.partition_point(|&x| (x as f64) < v);
    let pick = match (k.checked_sub(1).map(|i| vals[i]), vals.get(k)) {
        (Some(a), Some(&b)) if v - a as f64 <= b as f64 - v => a,
        (_, Some(&b)) => b,
        (Some(a), None) => a,
        (None, None) => last,
    };
    pick as f64
}
