//! The value domains one interpreter runs over: symbolic (terms) and concrete (f64).
//!
//! Architecture invariant: the interpreter never inspects a real value itself; every
//! float operation goes through [`Domain`], so the symbolic and the concrete run execute
//! the same control flow and the same arithmetic, op for op. Integers, pointers and
//! masks are concrete in both domains and stay outside this trait.

use crate::term::{CmpOp, Func, TermId, Terms};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Binary real operations.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Binary {
    Add,
    Sub,
    Mul,
    Div,
    /// IEEE maximum: NaN if either operand is (`arith.maximumf`, PTX `max.NaN`).
    Max,
    Min,
    /// IEEE maxNum: the operand that is not NaN (`arith.maxnumf`, PTX `max`, `fmaxf`).
    MaxNum,
    MinNum,
}

/// How a kernel's narrowing conversions are read (docs/semantics.md, "Values").
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Precision {
    /// f16/bf16 casts and arithmetic and tf32 dot inputs are exact (the verdict
    /// lists them).
    #[default]
    Real,
    /// `--precision ieee`: they round (`Func::RoundF16`, `RoundBf16`, `RoundTf32`), and
    /// concrete f32 results overflow to ±inf (see `exec::precision`).
    Ieee,
}

/// The result of a comparison: decided now, or a boolean value of the domain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Truth<V> {
    Known(bool),
    Unknown(V),
}

/// `!t` over a domain's truth values.
fn truth_not<D: Domain + ?Sized>(d: &mut D, t: Truth<D::V>) -> Truth<D::V> {
    match t {
        Truth::Known(b) => Truth::Known(!b),
        Truth::Unknown(v) => d.not(v),
    }
}

/// `x && y` over a domain's truth values.
fn truth_and<D: Domain + ?Sized>(d: &mut D, x: Truth<D::V>, y: Truth<D::V>) -> Truth<D::V> {
    match (x, y) {
        (Truth::Known(false), _) | (_, Truth::Known(false)) => Truth::Known(false),
        (Truth::Known(true), o) | (o, Truth::Known(true)) => o,
        (Truth::Unknown(p), Truth::Unknown(q)) => d.and(p, q),
    }
}

/// Arithmetic over real values.
pub trait Domain {
    type V: Copy + std::fmt::Debug + PartialEq;
    /// Whether `sum` of several values equals adding them one at a time in any
    /// grouping (exact reals): then a simulator may collect an accumulator's summands
    /// and sum them once.
    const EXACT_SUMS: bool = false;
    /// The exact value of an f64 (constants are already rounded to their float type).
    fn constant(&mut self, x: f64) -> Self::V;
    /// Element `index` (flat offset `flat`) of input tensor number `tensor`.
    fn input(&mut self, tensor: usize, index: &[i64], flat: usize) -> Self::V;
    /// A named real scalar argument; `None` if the domain has no value for it.
    fn param(&mut self, name: &str) -> Option<Self::V>;
    fn neg(&mut self, a: Self::V) -> Self::V;
    fn func(&mut self, f: Func, a: Self::V) -> Self::V;
    fn powi(&mut self, a: Self::V, n: i32) -> Self::V;
    fn binary(&mut self, op: Binary, a: Self::V, b: Self::V) -> Self::V;
    /// The sum of several values at once (a dot product, a reduction).
    fn sum(&mut self, xs: &[Self::V]) -> Self::V {
        let mut acc = self.constant(0.0);
        for &x in xs {
            acc = self.binary(Binary::Add, acc, x);
        }
        acc
    }
    fn cmp(&mut self, op: CmpOp, a: Self::V, b: Self::V) -> Truth<Self::V>;
    /// `c ? a : b` for an undecided condition `c`.
    fn select(&mut self, c: Self::V, a: Self::V, b: Self::V) -> Self::V;
    fn not(&mut self, a: Self::V) -> Truth<Self::V>;
    fn and(&mut self, a: Self::V, b: Self::V) -> Truth<Self::V>;
    fn or(&mut self, a: Self::V, b: Self::V) -> Truth<Self::V>;
    /// An `arith.cmpf` predicate as IEEE defines it: an ordered one (`olt`) is false
    /// where an operand is NaN, an unordered one (`ult`) true (`!(a >= b)`; `une` is
    /// `a != b`, which already is), `ord`/`uno` test for NaN (`a == a`), `one` is `ord`
    /// and `a != b`. `None` for a predicate that is none of these. Where no operand
    /// can be NaN each is the plain comparison (the constructors fold the negations).
    fn cmpf(&mut self, pred: &str, a: Self::V, b: Self::V) -> Option<Truth<Self::V>> {
        let op = |s: &str| {
            Some(match s {
                "eq" => CmpOp::Eq,
                "ne" => CmpOp::Ne,
                "lt" => CmpOp::Lt,
                "le" => CmpOp::Le,
                "gt" => CmpOp::Gt,
                "ge" => CmpOp::Ge,
                _ => return None,
            })
        };
        Some(match pred {
            "true" => Truth::Known(true),
            "false" => Truth::Known(false),
            "ord" | "uno" | "one" => {
                let (x, y) = (self.cmp(CmpOp::Eq, a, a), self.cmp(CmpOp::Eq, b, b));
                let ord = truth_and(self, x, y);
                match pred {
                    "ord" => ord,
                    "uno" => truth_not(self, ord),
                    _ => {
                        let ne = self.cmp(CmpOp::Ne, a, b);
                        truth_and(self, ord, ne)
                    }
                }
            }
            "une" => self.cmp(CmpOp::Ne, a, b),
            p => match (p.strip_prefix('o'), p.strip_prefix('u')) {
                (Some(o), _) => self.cmp(op(o)?, a, b),
                (_, Some(u)) => {
                    let c = self.cmp(op(u)?.negated(), a, b);
                    truth_not(self, c)
                }
                _ => return None,
            },
        })
    }
    /// Whether narrowing conversions round (the interpreters ask before each one).
    fn precision(&self) -> Precision {
        Precision::Real
    }
    /// `a` with f32's exponent range (overflow to ±inf) where the domain evaluates;
    /// terms keep the real value (see `exec::precision`).
    fn f32_range(&mut self, a: Self::V) -> Self::V {
        a
    }
    /// Whether a run only wants the values: no race, barrier-order or use bookkeeping
    /// (the cross-check's concrete runs; the verdict's run checks those).
    fn values_only(&self) -> bool {
        false
    }
    /// The value as a number when it is one (for float → int casts).
    fn as_number(&self, a: Self::V) -> Option<f64>;
    /// An opaque bit-level operation `op` over operands of which at least one is not a
    /// number ([`Node::Opaque`](crate::term::Node::Opaque)); `None` in domains whose
    /// values are all numbers (they never need one).
    fn opaque(&mut self, _op: &str, _args: &[Self::V]) -> Option<Self::V> {
        None
    }
    /// The exact integer `b` (a bit pattern as an operand of an opaque operation).
    fn bits(&mut self, b: u64) -> Self::V {
        self.constant(b as f64)
    }
    /// The bits of float `a` of the data read as an integer (`tt.bitcast` of an f32 to
    /// i32, `wide`: f64 to i64): an opaque integer that [`Domain::float_of_bits`] reads
    /// back; `None` in domains whose values are all numbers (they bitcast numbers).
    fn float_bits(&mut self, a: Self::V, wide: bool) -> Option<Self::V> {
        self.opaque(if wide { "bits_f64" } else { "bits_f32" }, &[a])
    }
    /// The float whose bits `a` is, where `a` is [`Domain::float_bits`] of one.
    fn float_of_bits(&self, _a: Self::V) -> Option<Self::V> {
        None
    }
    /// An assignment of the inputs (and params) under which the undecided condition `c`
    /// holds, printed `x[0, 1] = 0.5, y[2] = -1`, if one is found; `None` when none was
    /// found, which proves nothing (the condition may still be satisfiable). Domains
    /// whose conditions are always decided never need one.
    fn witness(&mut self, _c: Self::V) -> Option<String> {
        None
    }
    /// The exact integer `n` (an element of an integer tensor, a sign-extended value).
    fn integer(&mut self, n: i128) -> Self::V {
        self.constant(n as f64)
    }
    /// Declare the elements of input tensor number `tensor` integers in `lo..=hi` (its
    /// launch dtype): the refuter and race witnesses then pick integers there.
    fn declare_int_input(&mut self, _tensor: usize, _lo: i128, _hi: i128) {}
    /// The integers `a` takes on every input, where the domain can tell: a number that
    /// is an integer, or (symbolic) an integer-valued term over integer inputs.
    fn int_range(&self, a: Self::V) -> Option<(i128, i128)> {
        let x = self.as_number(a)?;
        (x.fract() == 0.0 && x.abs() < 2f64.powi(100)).then_some((x as i128, x as i128))
    }
    /// Declare that the elements of integer input number `tensor` take only `values`
    /// (the launch's `values`): a gather splits over them.
    fn declare_int_values(&mut self, _tensor: usize, _values: &[i64]) {}
    /// Real bounds `lo <= a <= hi` on every input (and `a` never NaN), where the domain
    /// can tell: a number, or (symbolic) a `tl.clamp` to constants.
    fn real_bounds(&self, a: Self::V) -> Option<(f64, f64)> {
        let x = self.as_number(a).filter(|x| !x.is_nan())?;
        Some((x, x))
    }
    /// The cases of an address offset `a` that depends on integer input data: the
    /// integer elements it reads with their declared values, and per combination of
    /// those values the offset's integer value (see `term/gather.rs`). An error naming
    /// why not (the offset reads a real, a tensor without declared values, too many
    /// cases); domains whose integers are all numbers never need one.
    fn index_cases(&mut self, _a: Self::V) -> Result<IndexCases<Self::V>, String> {
        Err("the domain has no data-dependent integers".into())
    }
    /// Whether condition `c` holds with the index elements of `cases` fixed to the
    /// combination `k`: `Known` when that decides it, else the remaining condition.
    fn fix_index(&mut self, c: Self::V, _cases: &IndexCases<Self::V>, _k: usize) -> Truth<Self::V> {
        Truth::Unknown(c)
    }
    /// The value read at a data-dependent offset: `cells[k]` at combination `k` of
    /// `cases` (`None`: no cell there, read as 0 on a path that excludes it).
    fn gather(&mut self, _cases: &IndexCases<Self::V>, _cells: &[Option<Self::V>]) -> Self::V {
        self.constant(f64::NAN)
    }
}

/// See [`Domain::index_cases`].
#[derive(Clone, Debug)]
pub struct IndexCases<V> {
    /// The integer input elements the offset reads, with their declared values.
    pub leaves: Vec<(V, Arc<[i64]>)>,
    /// Per combination of their values (first leaf slowest): the values, and the
    /// offset's value there.
    pub cases: Vec<(Vec<i64>, i128)>,
    /// The leaves printed (`label[2]`), for messages.
    pub names: Vec<String>,
}

impl<V> IndexCases<V> {
    /// Combination `k` as an input assignment, `label[2] = -100`.
    pub fn describe(&self, k: usize) -> String {
        self.names
            .iter()
            .zip(&self.cases[k].0)
            .map(|(n, v)| format!("{n} = {v}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// Symbolic execution: every real value is a term over the inputs.
pub struct Symbolic<'t> {
    pub terms: &'t mut Terms,
    /// Tensor names by index (the launch instance's order).
    pub tensor_names: Vec<Arc<str>>,
    pub precision: Precision,
}

impl Domain for Symbolic<'_> {
    type V = TermId;
    const EXACT_SUMS: bool = true;

    fn constant(&mut self, x: f64) -> TermId {
        self.terms.float(x)
    }
    fn input(&mut self, tensor: usize, index: &[i64], _flat: usize) -> TermId {
        let name = self.tensor_names[tensor].clone();
        self.terms.input(&name, index)
    }
    fn param(&mut self, name: &str) -> Option<TermId> {
        Some(self.terms.param(name))
    }
    fn neg(&mut self, a: TermId) -> TermId {
        self.terms.neg(a)
    }
    fn func(&mut self, f: Func, a: TermId) -> TermId {
        self.terms.call(f, a)
    }
    fn powi(&mut self, a: TermId, n: i32) -> TermId {
        self.terms.powi(a, n)
    }
    fn binary(&mut self, op: Binary, a: TermId, b: TermId) -> TermId {
        let t = &mut *self.terms;
        match op {
            Binary::Add => t.add(a, b),
            Binary::Sub => t.sub(a, b),
            Binary::Mul => t.mul(a, b),
            Binary::Div => t.div(a, b),
            Binary::Max => t.max(a, b),
            Binary::Min => t.min(a, b),
            Binary::MaxNum => t.maxnum(a, b),
            Binary::MinNum => t.minnum(a, b),
        }
    }
    fn sum(&mut self, xs: &[TermId]) -> TermId {
        self.terms.sum(xs)
    }
    fn cmp(&mut self, op: CmpOp, a: TermId, b: TermId) -> Truth<TermId> {
        let c = self.terms.cmp(op, a, b);
        self.truth(c)
    }
    fn select(&mut self, c: TermId, a: TermId, b: TermId) -> TermId {
        self.terms.select(c, a, b)
    }
    fn not(&mut self, a: TermId) -> Truth<TermId> {
        let c = self.terms.not(a);
        self.truth(c)
    }
    fn and(&mut self, a: TermId, b: TermId) -> Truth<TermId> {
        let c = self.terms.and(a, b);
        self.truth(c)
    }
    fn or(&mut self, a: TermId, b: TermId) -> Truth<TermId> {
        let c = self.terms.or(a, b);
        self.truth(c)
    }
    fn as_number(&self, a: TermId) -> Option<f64> {
        use num_traits::ToPrimitive;
        self.terms.as_const(a).and_then(|r| r.to_f64())
    }
    fn precision(&self) -> Precision {
        self.precision
    }
    fn opaque(&mut self, op: &str, args: &[TermId]) -> Option<TermId> {
        Some(self.terms.opaque(op, args))
    }
    fn bits(&mut self, b: u64) -> TermId {
        self.terms.bits(b)
    }
    fn float_of_bits(&self, a: TermId) -> Option<TermId> {
        match self.terms.node(a) {
            crate::term::Node::Opaque(op, args) if matches!(&**op, "bits_f32" | "bits_f64") => {
                args.first().copied()
            }
            _ => None,
        }
    }
    fn witness(&mut self, c: TermId) -> Option<String> {
        witness(self.terms, c)
    }
    fn integer(&mut self, n: i128) -> TermId {
        use num_bigint::BigInt;
        self.terms
            .constant(num_rational::BigRational::from_integer(BigInt::from(n)))
    }
    fn declare_int_input(&mut self, tensor: usize, lo: i128, hi: i128) {
        let name = self.tensor_names[tensor].clone();
        self.terms.declare_int_input(&name, lo, hi);
    }
    fn int_range(&self, a: TermId) -> Option<(i128, i128)> {
        self.terms.int_range(a)
    }
    fn real_bounds(&self, a: TermId) -> Option<(f64, f64)> {
        self.terms.real_bounds(a)
    }
    fn declare_int_values(&mut self, tensor: usize, values: &[i64]) {
        let name = self.tensor_names[tensor].clone();
        self.terms.declare_int_values(&name, values);
    }
    fn index_cases(&mut self, a: TermId) -> Result<IndexCases<TermId>, String> {
        let leaves = self.terms.index_leaves(a)?;
        let ids: Vec<TermId> = leaves.iter().map(|l| l.0).collect();
        let mut cases = Vec::new();
        for vals in Terms::index_cases(&leaves) {
            let v = self.terms.fix_leaves(a, &ids, &vals);
            let n = self
                .terms
                .as_const(v)
                .filter(|c| c.is_integer())
                .and_then(|c| c.to_integer().to_string().parse::<i128>().ok())
                .ok_or_else(|| {
                    format!(
                        "the offset `{}` is not an integer at the index values {vals:?}",
                        self.terms.display(a)
                    )
                })?;
            cases.push((vals, n));
        }
        let names = ids
            .iter()
            .map(|&l| self.terms.display(l).to_string())
            .collect();
        Ok(IndexCases {
            leaves,
            cases,
            names,
        })
    }
    fn fix_index(&mut self, c: TermId, cases: &IndexCases<TermId>, k: usize) -> Truth<TermId> {
        let ids: Vec<TermId> = cases.leaves.iter().map(|l| l.0).collect();
        let f = self.terms.fix_leaves(c, &ids, &cases.cases[k].0);
        self.truth(f)
    }
    fn gather(&mut self, cases: &IndexCases<TermId>, cells: &[Option<TermId>]) -> TermId {
        self.terms.gather(&cases.leaves, cells)
    }
}

/// Searches for inputs making the condition `c` true: a fixed pseudo-random sequence
/// of points, first small dyadic values (exact in f32, so the witness prints exactly
/// and replays), then wider f32 values. Deterministic: the same term gives the same
/// witness.
fn witness(terms: &Terms, c: TermId) -> Option<String> {
    use crate::term::Node;
    // The inputs and params the condition reads, in id order.
    let mut leaves = Vec::new();
    let mut todo = vec![c];
    let mut seen = std::collections::HashSet::new();
    while let Some(t) = todo.pop() {
        if !seen.insert(t) {
            continue;
        }
        match terms.node(t) {
            Node::Input { .. } | Node::Param(_) => leaves.push(t),
            _ => terms.for_each_child(t, |ch| todo.push(ch)),
        }
    }
    leaves.sort_unstable();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        // xorshift64*
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    for round in 0..2000u32 {
        let values: Vec<f64> = leaves
            .iter()
            .map(|&l| {
                let r = next();
                let fit = |v: f64| match terms.node(l) {
                    Node::Input { tensor, .. } => terms.fit_input_value(tensor, v),
                    _ => v,
                };
                fit(if round < 1000 {
                    // multiples of 1/4 in [-4, 4]
                    ((r % 33) as f64 - 16.0) / 4.0
                } else {
                    let u = (r >> 11) as f64 / (1u64 << 53) as f64;
                    let scale = [1.0, 100.0, 1e4][(r % 3) as usize];
                    ((2.0 * u - 1.0) * scale) as f32 as f64
                })
            })
            .collect();
        let value_of = |want: &Node| {
            leaves
                .iter()
                .position(|&l| terms.node(l) == want)
                .map_or(f64::NAN, |k| values[k])
        };
        let input = |name: &str, index: &[i64]| {
            value_of(&Node::Input {
                tensor: name.into(),
                index: index.into(),
            })
        };
        let param = |name: &str| value_of(&Node::Param(name.into()));
        if terms.eval(c, &input, &param) == 1.0 {
            let parts: Vec<String> = leaves
                .iter()
                .zip(&values)
                .map(|(&l, v)| format!("{} = {}", terms.display(l), *v as f32))
                .collect();
            return Some(parts.join(", "));
        }
    }
    None
}

impl Symbolic<'_> {
    fn truth(&self, c: TermId) -> Truth<TermId> {
        match self.terms.as_bool(c) {
            Some(b) => Truth::Known(b),
            None => Truth::Unknown(c),
        }
    }
}

/// Concrete execution in f64 (the reals, approximated).
pub struct Concrete {
    /// Data of each tensor by index; `None` for tensors with no initial data (outputs).
    pub data: Vec<Option<Vec<f64>>>,
    pub scalars: BTreeMap<String, f64>,
    pub precision: Precision,
    /// See [`Domain::values_only`].
    pub values_only: bool,
}

impl Domain for Concrete {
    type V = f64;

    fn constant(&mut self, x: f64) -> f64 {
        x
    }
    fn input(&mut self, tensor: usize, _index: &[i64], flat: usize) -> f64 {
        // The interpreter only asks for tensors that have data (checked at setup).
        self.data[tensor].as_ref().map_or(f64::NAN, |d| d[flat])
    }
    fn param(&mut self, name: &str) -> Option<f64> {
        self.scalars.get(name).copied()
    }
    fn neg(&mut self, a: f64) -> f64 {
        -a
    }
    fn func(&mut self, f: Func, a: f64) -> f64 {
        match f {
            Func::Exp => a.exp(),
            Func::Exp2 => a.exp2(),
            Func::Log => a.ln(),
            Func::Log2 => a.log2(),
            Func::Sqrt => a.sqrt(),
            Func::Rsqrt => 1.0 / a.sqrt(),
            Func::Tanh => a.tanh(),
            Func::Sin => a.sin(),
            Func::Cos => a.cos(),
            Func::Erf => libm::erf(a),
            Func::Abs => a.abs(),
            Func::Floor => a.floor(),
            Func::Ceil => a.ceil(),
            Func::Rint => a.round_ties_even(),
            // The same function the refuter evaluates, so counterexamples replay.
            Func::RoundF16 | Func::RoundBf16 | Func::RoundTf32 => crate::term::eval_func(f, a),
        }
    }
    fn powi(&mut self, a: f64, n: i32) -> f64 {
        a.powi(n)
    }
    fn binary(&mut self, op: Binary, a: f64, b: f64) -> f64 {
        match op {
            Binary::Add => a + b,
            Binary::Sub => a - b,
            Binary::Mul => a * b,
            Binary::Div => a / b,
            // f64::max/min are maxNum/minNum; maximum/minimum propagate NaN.
            Binary::Max | Binary::Min if a.is_nan() || b.is_nan() => f64::NAN,
            Binary::Max | Binary::MaxNum => a.max(b),
            Binary::Min | Binary::MinNum => a.min(b),
        }
    }
    fn cmp(&mut self, op: CmpOp, a: f64, b: f64) -> Truth<f64> {
        Truth::Known(op.holds(a, b))
    }
    fn select(&mut self, c: f64, a: f64, b: f64) -> f64 {
        if c != 0.0 {
            a
        } else {
            b
        }
    }
    fn not(&mut self, a: f64) -> Truth<f64> {
        Truth::Known(a == 0.0)
    }
    fn and(&mut self, a: f64, b: f64) -> Truth<f64> {
        Truth::Known(a != 0.0 && b != 0.0)
    }
    fn or(&mut self, a: f64, b: f64) -> Truth<f64> {
        Truth::Known(a != 0.0 || b != 0.0)
    }
    fn as_number(&self, a: f64) -> Option<f64> {
        Some(a)
    }
    fn values_only(&self) -> bool {
        self.values_only
    }
    fn f32_range(&mut self, a: f64) -> f64 {
        f32_range(a)
    }
    fn precision(&self) -> Precision {
        self.precision
    }
}

/// `x` with f32's exponent range: a magnitude that rounds beyond f32's largest value is
/// ±inf (IEEE overflow, round to nearest); anything else is kept as it is.
pub fn f32_range(x: f64) -> f64 {
    let r = x as f32;
    if r.is_infinite() && x.is_finite() {
        r as f64
    } else {
        x
    }
}
