//! Triton's random stream in the all-sizes run: the Philox of `tl.rand` read as bit
//! vectors over the sizes (this file: the [`Bits`] store and the reference expansion),
//! and proved to be the named function `rand(seed, offset)` (`term::rand`) by identity
//! with its one reference expansion (`super::rand`: the run's hooks).
//!
//! An integer that Philox mixes (a `tt.mulhiui`, an xor of one, a product that only
//! such ops read) has no polynomial over the sizes: it is a [`Bits`] term, exact modulo
//! 2^w (the GPU's wrapping, so no width obligation). Constructors normalise only what
//! holds for every value: constants fold as the machine folds them, xor is flattened,
//! sorted and cancelled, a sum or product of polynomial leaves is one leaf
//! (`p mod 2^w`), commutative operands are sorted. When a kernel converts such a word
//! to a float (`uint_to_uniform_float`'s `sitofp`), `Run::rand_to_float` builds
//! `fold(philox(seed, offset))` with the same constructors, through the very
//! `term::rand::philox` that the concrete stream runs, for each constant integer
//! argument as the seed and each leaf of the word as the offset; only a term identical
//! to the kernel's (same id in the hash-consed store) makes the float `rand(seed,
//! offset) / SCALE`, so the kernel's multiply by `SCALE` gives the stream's atom, the
//! one the formula's `rand` names at that offset (`at_index`).
//!
//! Invariant: a `Bits` term means exactly its value modulo 2^w for every size; a float
//! is made of one only by identity with the reference expansion, with the offset shown
//! non-negative and kept within i32 (an obligation), so the counter's high word is 0 as
//! in the kernel's i32 Philox. Anything else on bits is an error, never a guess.

use super::sym::Poly;
use crate::exec::table::IntOp;
use crate::term::rand::{self as stream, Word};
use crate::triton_ir::ast::{Module, Op, Region, Type};
use rustc_hash::{FxHashMap, FxHashSet};
use std::rc::Rc;

/// A bit-vector term's id in its [`Bits`] store.
pub(super) type BitId = u32;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Node {
    /// A constant, masked to its width.
    Const(u64),
    /// An integer over the sizes, modulo 2^w.
    Leaf(Poly),
    /// Flattened, sorted, pairs cancelled, at most one constant, at least two operands.
    Xor(Vec<BitId>),
    /// Any other op by name; commutative ones with sorted operands.
    Op(&'static str, Vec<BitId>),
}

/// The bit-vector terms of one path, hash-consed: equal terms have equal ids.
#[derive(Default)]
pub(super) struct Bits {
    nodes: Vec<(u32, Node)>,
    ids: FxHashMap<(u32, Node), BitId>,
    /// The results computed as bits where their operands are not ([`wrapping`]).
    wrapping: Rc<FxHashSet<String>>,
}

fn mask(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

/// `v` (low `w` bits) as a signed integer.
fn signed(v: u64, w: u32) -> i64 {
    let w = w.clamp(1, 64);
    ((v << (64 - w)) as i64) >> (64 - w)
}

impl Bits {
    pub(super) fn new(wrapping: Rc<FxHashSet<String>>) -> Bits {
        Bits {
            wrapping,
            ..Default::default()
        }
    }
    fn intern(&mut self, w: u32, n: Node) -> BitId {
        if let Some(&id) = self.ids.get(&(w, n.clone())) {
            return id;
        }
        let id = self.nodes.len() as BitId;
        self.nodes.push((w, n.clone()));
        self.ids.insert((w, n), id);
        id
    }
    /// Whether op `op`'s result is computed as bits ([`wrapping`]).
    pub(super) fn wraps(&self, op: &Op) -> bool {
        op.results
            .first()
            .is_some_and(|r| self.wrapping.contains(r))
    }
    pub(super) fn width(&self, a: BitId) -> u32 {
        self.nodes[a as usize].0
    }
    fn node(&self, a: BitId) -> &Node {
        &self.nodes[a as usize].1
    }
    pub(super) fn as_const(&self, a: BitId) -> Option<u64> {
        match self.node(a) {
            Node::Const(c) => Some(*c),
            _ => None,
        }
    }
    fn as_leaf(&self, a: BitId) -> Option<Poly> {
        match self.node(a) {
            Node::Const(c) => Some(Poly::constant(signed(*c, self.width(a)) as i128)),
            Node::Leaf(p) => Some(p.clone()),
            _ => None,
        }
    }
    pub(super) fn konst(&mut self, w: u32, v: i128) -> BitId {
        self.intern(w, Node::Const(v as u64 & mask(w)))
    }
    pub(super) fn leaf(&mut self, w: u32, p: &Poly) -> BitId {
        match p.as_const() {
            Some(c) => self.konst(w, c),
            None => self.intern(w, Node::Leaf(p.clone())),
        }
    }
    fn op(&mut self, w: u32, name: &'static str, mut args: Vec<BitId>, commutes: bool) -> BitId {
        if commutes {
            args.sort_unstable();
        }
        self.intern(w, Node::Op(name, args))
    }
    fn xor(&mut self, w: u32, a: BitId, b: BitId) -> BitId {
        let mut c = 0u64;
        let mut ops: Vec<BitId> = Vec::new();
        for x in [a, b] {
            let parts = match self.node(x) {
                Node::Xor(v) => v.clone(),
                _ => vec![x],
            };
            for p in parts {
                match self.as_const(p) {
                    Some(k) => c ^= k,
                    None => ops.push(p),
                }
            }
        }
        ops.sort_unstable();
        // x ^ x = 0: drop pairs.
        let mut kept: Vec<BitId> = Vec::new();
        for o in ops {
            if kept.last() == Some(&o) {
                kept.pop();
            } else {
                kept.push(o);
            }
        }
        if c != 0 {
            kept.push(self.konst(w, c as i128));
            kept.sort_unstable();
        }
        match kept.len() {
            0 => self.konst(w, 0),
            1 => kept[0],
            _ => self.intern(w, Node::Xor(kept)),
        }
    }
    /// `a op b` in `w` bits, `op` a ring op, xor or `mulhiui`; others by name.
    pub(super) fn binary(&mut self, io: IntOp, w: u32, a: BitId, b: BitId) -> BitId {
        if let (Some(x), Some(y)) = (self.as_const(a), self.as_const(b)) {
            let (x, y) = (signed(x, w), signed(y, w));
            if let Ok(r) = crate::exec::ops::int::arith(io, w, x, y) {
                return self.konst(w, r as i128);
            }
        }
        // Sums and products of leaves are a leaf (both sides modulo 2^w).
        if matches!(io, IntOp::Add | IntOp::Sub | IntOp::Mul) {
            if let (Some(p), Some(q)) = (self.as_leaf(a), self.as_leaf(b)) {
                let r = match io {
                    IntOp::Add => p.add(&q),
                    IntOp::Sub => p.sub(&q),
                    _ => p.mul(&q),
                };
                return self.leaf(w, &r);
            }
        }
        match io {
            IntOp::Xor => self.xor(w, a, b),
            IntOp::Add => self.op(w, "add", vec![a, b], true),
            IntOp::Mul => self.op(w, "mul", vec![a, b], true),
            IntOp::MulHiU => self.op(w, "mulhi", vec![a, b], true),
            IntOp::And => self.op(w, "and", vec![a, b], true),
            IntOp::Or => self.op(w, "or", vec![a, b], true),
            IntOp::Sub => self.op(w, "sub", vec![a, b], false),
            IntOp::ShrU => self.op(w, "shru", vec![a, b], false),
            IntOp::ShrS => self.op(w, "shrs", vec![a, b], false),
            IntOp::Shl => self.op(w, "shl", vec![a, b], false),
            _ => self.op(w, "int", vec![a, b], false),
        }
    }
    /// `a < 0` read signed (an i1).
    pub(super) fn negative(&mut self, a: BitId) -> BitId {
        let w = self.width(a);
        match self.as_const(a) {
            Some(c) => self.konst(1, i128::from(signed(c, w) < 0)),
            None => self.op(1, "negative", vec![a], false),
        }
    }
    pub(super) fn select(&mut self, c: BitId, a: BitId, b: BitId) -> BitId {
        let w = self.width(a);
        match self.as_const(c) {
            Some(k) => {
                if k & 1 == 1 {
                    a
                } else {
                    b
                }
            }
            None if a == b => a,
            None => self.op(w, "select", vec![c, a, b], false),
        }
    }
    /// A cast of `a` to `w` bits: the low bits, or a sign or zero extension.
    pub(super) fn cast(&mut self, a: BitId, w: u32, zero_extend: bool) -> BitId {
        let from = self.width(a);
        if let Some(c) = self.as_const(a) {
            let v = if zero_extend {
                c as i128
            } else {
                signed(c, from) as i128
            };
            return self.konst(w, v);
        }
        if w <= from {
            if let Some(p) = self.as_leaf(a) {
                return self.leaf(w, &p);
            }
            return self.op(w, "trunc", vec![a], false);
        }
        let name = if zero_extend { "extu" } else { "exts" };
        self.op(w, name, vec![a], false)
    }
    /// Every polynomial leaf of `a`.
    pub(super) fn leaves(&self, a: BitId) -> Vec<Poly> {
        let mut out = Vec::new();
        let mut seen = FxHashSet::default();
        let mut todo = vec![a];
        while let Some(x) = todo.pop() {
            if !seen.insert(x) {
                continue;
            }
            match self.node(x) {
                Node::Leaf(p) if !out.contains(p) => out.push(p.clone()),
                Node::Xor(v) | Node::Op(_, v) => todo.extend(v.iter().copied()),
                _ => {}
            }
        }
        out
    }
    /// `fold(philox(seed, offset)[0])`: `uint_to_uniform_float`'s integer, built as
    /// the reference expansion in this store.
    pub(super) fn reference(&mut self, seed: i64, offset: &Poly) -> BitId {
        let (_, key) = stream::counter_and_key(seed, 0);
        let mut a = Arith(self);
        let (zero, k0, k1) = (a.word(0), a.word(key[0]), a.word(key[1]));
        let c0 = a.0.leaf(32, offset);
        let [w, ..] = stream::philox(&mut a, [c0, zero, zero, zero], [k0, k1]);
        let neg = self.negative(w);
        let ones = self.konst(32, -1);
        let flipped = self.xor(32, w, ones);
        self.select(neg, flipped, w)
    }
}

/// `term::rand::Word` over a [`Bits`] store (32-bit words).
struct Arith<'s>(&'s mut Bits);

impl Word for Arith<'_> {
    type W = BitId;
    fn word(&mut self, c: u32) -> BitId {
        self.0.konst(32, i128::from(c))
    }
    fn mulhi(&mut self, a: &BitId, b: &BitId) -> BitId {
        self.0.binary(IntOp::MulHiU, 32, *a, *b)
    }
    fn mullo(&mut self, a: &BitId, b: &BitId) -> BitId {
        self.0.binary(IntOp::Mul, 32, *a, *b)
    }
    fn xor(&mut self, a: &BitId, b: &BitId) -> BitId {
        self.0.binary(IntOp::Xor, 32, *a, *b)
    }
    fn add(&mut self, a: &BitId, b: &BitId) -> BitId {
        self.0.binary(IntOp::Add, 32, *a, *b)
    }
}

/// The results of `module` that the all-sizes run computes as bits even where their
/// operands are polynomials: everything a `tt.mulhiui` reaches, and each integer
/// product, sum, cast or lane move whose every use is such a result (Philox's
/// `c3 = A·offset`, a wrong block's offsets that only the stream reads). Their wrapping
/// is the GPU's; they need no width obligation.
pub(super) fn wrapping(module: &Module) -> FxHashSet<String> {
    let mut ops: Vec<&Op> = Vec::new();
    fn walk<'a>(r: &'a Region, ops: &mut Vec<&'a Op>) {
        for b in &r.blocks {
            for op in &b.ops {
                ops.push(op);
                for r in &op.regions {
                    walk(r, ops);
                }
            }
        }
    }
    for f in &module.funcs {
        walk(&f.body, &mut ops);
    }
    let mut users: FxHashMap<&str, Vec<usize>> = FxHashMap::default();
    for (i, op) in ops.iter().enumerate() {
        for o in &op.operands {
            users.entry(o.as_str()).or_default().push(i);
        }
    }
    let integer = |op: &Op| {
        op.result_types
            .first()
            .is_some_and(|t| matches!(t.elem(), Type::Int(b) if *b > 1))
    };
    let moves = |name: &str| {
        matches!(
            name,
            "arith.addi"
                | "arith.subi"
                | "arith.muli"
                | "arith.extsi"
                | "arith.extui"
                | "arith.trunci"
                | "tt.splat"
                | "tt.broadcast"
                | "tt.expand_dims"
                | "tt.reshape"
        )
    };
    let mut w: FxHashSet<String> = FxHashSet::default();
    loop {
        let before = w.len();
        for op in &ops {
            let Some(r) = op.results.first() else {
                continue;
            };
            if w.contains(r) || !integer(op) {
                continue;
            }
            let forward = op.name == "tt.mulhiui"
                || (op.name.starts_with("arith.") || moves(&op.name))
                    && op.operands.iter().any(|o| w.contains(o));
            let backward = moves(&op.name)
                && users.get(r.as_str()).is_some_and(|us| {
                    us.iter()
                        .all(|&u| ops[u].results.first().is_some_and(|x| w.contains(x)))
                });
            if forward || backward {
                w.insert(r.clone());
            }
        }
        if w.len() == before {
            return w;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The reference expansion at a constant offset folds to the concrete stream's
    /// word: the bit-vector constructors compute what the machine computes.
    #[test]
    fn the_reference_at_a_constant_offset_is_the_concrete_word() {
        let mut b = Bits::default();
        for (seed, off) in [(1234, 0), (1234, 7), (-5, 3), (0, 1 << 30), (1 << 40, 9)] {
            let r = b.reference(seed, &Poly::constant(off));
            let want = stream::folded_word(seed, off as i64);
            assert_eq!(b.as_const(r), Some(want as u32 as u64), "{seed}, {off}");
        }
    }

    /// A symbolic offset gives one term per (seed, offset), and a different seed or
    /// an offset one further a different term.
    #[test]
    fn the_reference_is_one_term_per_seed_and_offset() {
        let mut b = Bits::default();
        let i = Poly::sym("pid_x").scale(4).add(&Poly::constant(1));
        let r = b.reference(1234, &i);
        assert_eq!(b.reference(1234, &i), r);
        assert_ne!(b.reference(1235, &i), r);
        assert_ne!(b.reference(1234, &i.add(&Poly::constant(1))), r);
        assert!(b.leaves(r).contains(&i));
    }

    /// Xor cancels pairs and merges constants; sums of leaves are one leaf.
    #[test]
    fn constructors_normalise_only_identities() {
        let mut b = Bits::default();
        let x = b.leaf(32, &Poly::sym("N"));
        let y = b.op(32, "mulhi", vec![x, x], true);
        let (c1, c2) = (b.konst(32, 5), b.konst(32, 3));
        let a = b.xor(32, y, c1);
        let a = b.xor(32, a, c2);
        let a = b.xor(32, a, y);
        assert_eq!(b.as_const(a), Some(6));
        let one = b.konst(32, 1);
        let s = b.binary(IntOp::Add, 32, x, one);
        assert_eq!(b.as_leaf(s), Some(Poly::sym("N").add(&Poly::constant(1))));
        // -1 as a 32-bit word is 0xFFFFFFFF, and a 64-bit product wraps.
        let ones = b.konst(32, -1);
        assert_eq!(b.as_const(ones), Some(0xFFFF_FFFF));
        let big = b.konst(32, 0xD251_1F53);
        let m = b.binary(IntOp::Mul, 32, big, big);
        assert_eq!(
            b.as_const(m),
            Some(u64::from(0xD251_1F53u32.wrapping_mul(0xD251_1F53)))
        );
    }
}
