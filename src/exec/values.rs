//! The value half of the interpreters' domain at lane level, and the meaning of every
//! op on real values, selects, pointers and the ops that fold lanes (`tt.dot`,
//! `tt.reduce`) written once over it (docs/semantics.md, "Values").
//!
//! Both TTIR runs hold a tensor as a shape and a vector of lanes, but their lanes differ:
//! the bounded run's are `exec::value::Elem` (machine integers, decided conditions), the
//! all-sizes run's are `verify::lane::Lane` (polynomials over the sizes, conditions it
//! decides by forking or keeps as guards). [`Values`] is what an op's meaning needs of a
//! run: its float [`Domain`], what kind a lane is ([`Kind`]), how to build one, and the
//! few hooks where the runs' domains genuinely differ (a select on an integer condition,
//! an integer chosen by the data, a pointer that depends on the data). `exec::ints`
//! is the integer half.
//!
//! Invariant: with the same lanes and the same float domain, each function here computes
//! the same lanes in both runs; a masked-off lane (`Kind::Undef`) passes through every
//! value op and makes a fold over it undefined; anything a run cannot read is its error,
//! never a guess.

use crate::exec::domain::{Binary, Domain, Precision, Truth};
use crate::exec::error::ErrorKind;
use crate::exec::precision;
use crate::exec::table::{combine_all, simple_combine};
use crate::term::Func;
use crate::triton_ir::ast::{FloatKind, Op, Type};

/// A lane as the op meanings read it.
pub(crate) enum Kind<V, I> {
    Float(V),
    /// A condition on the data: a boolean of the float domain.
    DataCond(V),
    /// A condition the run has decided.
    Known(bool),
    Int(I),
    Ptr {
        tensor: usize,
        offset: I,
    },
    /// A masked-off lane loaded without `other=`.
    Undef,
    /// Anything else (a condition on integers the run has not decided, an integer or a
    /// pointer chosen by the data): only the run's own hooks read it.
    Other,
}

/// The lanes one run holds, and the float domain they are built over.
pub(crate) trait Values {
    type D: Domain;
    /// One lane.
    type L: Clone;
    /// An integer offset (of a pointer).
    type I: Clone;
    /// The run's error.
    type E;
    fn floats(&mut self) -> &mut Self::D;
    fn kind(&self, l: &Self::L) -> Kind<<Self::D as Domain>::V, Self::I>;
    fn float(&self, v: <Self::D as Domain>::V) -> Self::L;
    fn truth(&self, t: Truth<<Self::D as Domain>::V>) -> Self::L;
    fn ptr(&self, tensor: usize, offset: Self::I) -> Self::L;
    /// `a + b` of element offsets (exact: an offset out of its tensor is an error of the
    /// access, not a wrap).
    fn add_offset(&mut self, a: &Self::I, b: &Self::I) -> Self::I;
    /// The value of an op without results (`tt.store`, `tt.print`).
    fn unit(&self) -> Self::L;
    fn fail(&self, kind: ErrorKind, message: String) -> Self::E;
    /// Told once per op that the run ignores (`tt.print`, `tt.assert`).
    fn warn(&mut self, warning: String);
    /// `select(c, a, b)` for a condition lane of kind `Other`: the bounded run has none;
    /// the all-sizes run decides it on the path (forking) or keeps it as a guard.
    fn select_other(&mut self, c: &Self::L, a: &Self::L, b: &Self::L) -> Result<Self::L, Self::E>;
    /// `select(c, a, b)` on a data condition `c` between sides that are not both reals
    /// nor both data conditions (integers, `i1`s): an integer chosen by the data, or
    /// `None` when the run cannot hold one.
    fn select_on_data(
        &mut self,
        c: <Self::D as Domain>::V,
        a: &Self::L,
        b: &Self::L,
    ) -> Option<Result<Self::L, Self::E>>;
    /// `addptr` where the pointer or the offset depends on the data; `None` when the run
    /// cannot hold such a pointer.
    fn add_ptr_data(&mut self, p: &Self::L, o: &Self::L) -> Option<Result<Self::L, Self::E>>;
    /// An integer lane of value `n` (a signed reading in its width).
    fn int(&mut self, n: i128) -> Self::L;
    /// The value of integer `i` where the run knows it as one number.
    fn int_value(&self, i: &Self::I) -> Option<i128>;
    /// An integer chosen by the data: the real `v`, an integer in `lo..=hi` on every
    /// input; `None` when the run cannot hold one.
    fn data_int(&mut self, v: <Self::D as Domain>::V, lo: i64, hi: i64) -> Option<Self::L>;
}

/// Lanes of one value: its shape and its lanes, row-major.
pub(crate) type Tensor<L> = (Vec<usize>, Vec<L>);

fn is_undef<R: Values>(r: &R, l: &R::L) -> bool {
    matches!(r.kind(l), Kind::Undef)
}

fn malformed<R: Values, T>(r: &R, message: String) -> Result<T, R::E> {
    Err(r.fail(ErrorKind::Malformed, message))
}

fn kind_name<V, I>(k: &Kind<V, I>) -> &'static str {
    match k {
        Kind::Float(_) => "a float",
        Kind::DataCond(_) | Kind::Known(_) => "a boolean",
        Kind::Int(_) => "an integer",
        Kind::Ptr { .. } => "a pointer",
        Kind::Undef => "a masked-off value",
        Kind::Other => "a value that depends on the sizes or the data",
    }
}

/// A float op `f` of one operand (`math.exp`, a libdevice call).
pub(crate) fn float_unary<R: Values>(r: &mut R, f: Func, a: &R::L) -> Result<R::L, R::E> {
    match r.kind(a) {
        Kind::Float(x) => {
            let v = r.floats().func(f, x);
            Ok(r.float(v))
        }
        Kind::Undef => Ok(a.clone()),
        k => malformed(r, format!("operand is {}", kind_name(&k))),
    }
}

/// A float op `op` of two operands (`arith.addf`, `arith.maximumf`, ...).
pub(crate) fn float_binary<R: Values>(
    r: &mut R,
    op: Binary,
    a: &R::L,
    b: &R::L,
) -> Result<R::L, R::E> {
    match (r.kind(a), r.kind(b)) {
        (Kind::Float(x), Kind::Float(y)) => {
            let v = r.floats().binary(op, x, y);
            Ok(r.float(v))
        }
        (Kind::Undef, _) => Ok(a.clone()),
        (_, Kind::Undef) => Ok(b.clone()),
        (x, y) => malformed(
            r,
            format!("operands are {} and {}", kind_name(&x), kind_name(&y)),
        ),
    }
}

/// `math.fma`, `fmaf`: `a * b + c`, read exactly (one rounding or two are both the
/// real product and sum; `--precision ieee` rounds each op to the result type).
pub(crate) fn fma<R: Values>(r: &mut R, a: &R::L, b: &R::L, c: &R::L) -> Result<R::L, R::E> {
    let ab = float_binary(r, Binary::Mul, a, b)?;
    float_binary(r, Binary::Add, &ab, c)
}

/// The rounding `--precision ieee` gives a float conversion `op`: to f16 or bf16 (f8 and
/// widenings stay exact; the verdict lists f8 as an assumption).
pub(crate) fn rounding<D: Domain>(d: &D, op: &Op) -> Option<Func> {
    if d.precision() != Precision::Ieee {
        return None;
    }
    match op.result_types.first()?.elem() {
        Type::Float(FloatKind::F16) => Some(Func::RoundF16),
        Type::Float(FloatKind::BF16) => Some(Func::RoundBf16),
        _ => None,
    }
}

/// `arith.truncf`/`extf`/`tt.fp_to_fp` of one lane: exact, or rounded under
/// `--precision ieee` ([`rounding`]).
pub(crate) fn float_cast<R: Values>(r: &mut R, op: &Op, a: &R::L) -> Result<R::L, R::E> {
    let round = rounding(r.floats(), op);
    match r.kind(a) {
        Kind::Float(v) => {
            let v = match round {
                Some(f) => r.floats().func(f, v),
                None => v,
            };
            Ok(r.float(v))
        }
        Kind::Undef => Ok(a.clone()),
        k => malformed(r, format!("converts {}", kind_name(&k))),
    }
}

/// `arith.select` of one lane: a decided condition picks a side; a condition on the
/// data selects reals (or data conditions) in the domain and integers through the run's
/// data integers; a masked-off condition or side is masked off.
pub(crate) fn select<R: Values>(r: &mut R, c: &R::L, a: &R::L, b: &R::L) -> Result<R::L, R::E> {
    match r.kind(c) {
        Kind::Known(true) => Ok(a.clone()),
        Kind::Known(false) => Ok(b.clone()),
        Kind::Undef => Ok(c.clone()),
        Kind::Other => r.select_other(c, a, b),
        Kind::DataCond(k) => match (r.kind(a), r.kind(b)) {
            (Kind::Float(x), Kind::Float(y)) => {
                let v = r.floats().select(k, x, y);
                Ok(r.float(v))
            }
            (Kind::DataCond(x), Kind::DataCond(y)) => {
                let v = r.floats().select(k, x, y);
                Ok(r.truth(Truth::Unknown(v)))
            }
            (Kind::Undef, _) => Ok(a.clone()),
            (_, Kind::Undef) => Ok(b.clone()),
            (x, y) => {
                let (x, y) = (kind_name(&x), kind_name(&y));
                match r.select_on_data(k, a, b) {
                    Some(l) => l,
                    None => Err(r.fail(
                        ErrorKind::Unsupported,
                        format!(
                            "data-dependent select between {x} and {y} (only reals and integers can depend on the data)"
                        ),
                    )),
                }
            }
        },
        k => malformed(r, format!("condition is {}", kind_name(&k))),
    }
}

/// `tt.addptr` of one lane: the pointer moved by an element offset.
pub(crate) fn add_ptr<R: Values>(r: &mut R, p: &R::L, o: &R::L) -> Result<R::L, R::E> {
    match (r.kind(p), r.kind(o)) {
        (Kind::Ptr { tensor, offset }, Kind::Int(d)) => {
            let offset = r.add_offset(&offset, &d);
            Ok(r.ptr(tensor, offset))
        }
        (Kind::Undef, _) => Ok(p.clone()),
        (_, Kind::Undef) => Ok(o.clone()),
        (x, y) => match r.add_ptr_data(p, o) {
            Some(l) => l,
            None => malformed(r, format!("adds {} to {}", kind_name(&y), kind_name(&x))),
        },
    }
}

/// `tt.print`, `tt.assert`: ignored (a run proves values, it does not print them), with
/// a warning naming the op.
pub(crate) fn debug<R: Values>(r: &mut R, op: &Op) -> R::L {
    r.warn(format!("{} at line {} is ignored", op.name, op.line));
    r.unit()
}

/// `tt.dot`: `c + a @ b`, batched over leading axes, one exact sum per output lane (the
/// domain sums); with `tf32` every operand is rounded to tf32 before its products. A
/// masked-off operand makes its output lane masked off.
pub(crate) fn dot<R: Values>(
    r: &mut R,
    a: (&[usize], &[R::L]),
    b: (&[usize], &[R::L]),
    c: (&[usize], &[R::L]),
    tf32: bool,
) -> Result<Tensor<R::L>, R::E> {
    let ((sa, a), (sb, b), (sc, c)) = (a, b, c);
    let (ra, rb) = (sa.len(), sb.len());
    if ra < 2 || ra != rb || sc.len() != ra {
        return malformed(r, format!("dot of shapes {sa:?} and {sb:?}"));
    }
    let batch: usize = sa[..ra - 2].iter().product();
    let (m, k) = (sa[ra - 2], sa[ra - 1]);
    let (k2, n) = (sb[rb - 2], sb[rb - 1]);
    if k != k2 || sc[ra - 2] != m || sc[ra - 1] != n {
        return malformed(r, format!("dot of shapes {sa:?} × {sb:?} + {sc:?}"));
    }
    let round = |r: &mut R, l: &R::L| -> R::L {
        match r.kind(l) {
            Kind::Float(v) if tf32 => {
                let v = r.floats().func(Func::RoundTf32, v);
                r.float(v)
            }
            _ => l.clone(),
        }
    };
    let mut out = Vec::with_capacity(c.len());
    let mut terms = Vec::with_capacity(k + 1);
    for bt in 0..batch {
        for i in 0..m {
            for j in 0..n {
                terms.clear();
                for kk in 0..k {
                    let x = round(r, &a[bt * m * k + i * k + kk]);
                    let y = round(r, &b[bt * k * n + kk * n + j]);
                    terms.push(float_binary(r, Binary::Mul, &x, &y)?);
                }
                terms.push(c[bt * m * n + i * n + j].clone());
                // An undefined operand makes the whole dot product undefined.
                if let Some(u) = terms.iter().find(|t| is_undef(r, t)) {
                    out.push(u.clone());
                    continue;
                }
                let mut vals = Vec::with_capacity(terms.len());
                for t in &terms {
                    match r.kind(t) {
                        Kind::Float(v) => vals.push(v),
                        k => return malformed(r, format!("dot operand is {}", kind_name(&k))),
                    }
                }
                let v = r.floats().sum(&vals);
                out.push(r.float(v));
            }
        }
    }
    Ok((sc.to_vec(), out))
}

/// The lanes of `shape` that `tt.reduce`/`tt.scan` fold together along `axis`: one group
/// per output lane (row-major), each in order along the axis.
pub(crate) fn lanes_along(shape: &[usize], axis: usize) -> Vec<Vec<usize>> {
    let inner: usize = shape[axis + 1..].iter().product();
    let n = shape[axis];
    let outer: usize = shape[..axis].iter().product();
    let mut groups = Vec::with_capacity(outer * inner);
    for o in 0..outer {
        for i in 0..inner {
            groups.push((0..n).map(|k| (o * n + k) * inner + i).collect());
        }
    }
    groups
}

/// `tt.reduce` of `inputs` (equal shapes) along `axis`: one output per input, the axis
/// dropped. A combine that is one float op sums (or maxes, ...) the lanes at once
/// (`table::combine_all`; under `--precision ieee` an f16/bf16 combine rounds after
/// every step); any other combine region is folded left to right by `combine` (the
/// accumulators, then the next lane of every input, to the new accumulators), whose
/// errors are the caller's `X` (`at` makes one of the run's). A group with a masked-off
/// lane gives masked-off outputs.
pub(crate) fn reduce<R: Values, X>(
    r: &mut R,
    op: &Op,
    inputs: &[(&[usize], &[R::L])],
    axis: usize,
    at: impl Fn(R::E) -> X,
    mut combine: impl FnMut(&mut R, Vec<R::L>) -> Result<Vec<R::L>, X>,
) -> Result<Vec<Tensor<R::L>>, X> {
    let Some(&(shape, _)) = inputs.first() else {
        return Err(at(r.fail(ErrorKind::Malformed, "no operands".into())));
    };
    if axis >= shape.len() || shape[axis] == 0 || inputs.iter().any(|v| v.0 != shape) {
        return Err(at(r.fail(
            ErrorKind::Malformed,
            format!("axis {axis} of shape {shape:?}"),
        )));
    }
    let in_type = match op.result_types.first().map(Type::elem) {
        Some(Type::Float(k @ (FloatKind::F16 | FloatKind::BF16)))
            if r.floats().precision() == Precision::Ieee =>
        {
            Some(*k)
        }
        _ => None,
    };
    let out_shape: Vec<usize> = shape
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != axis)
        .map(|(_, &d)| d)
        .collect();
    let fast = simple_combine(op);
    let mut outs: Vec<Vec<R::L>> = vec![Vec::new(); inputs.len()];
    for lanes in lanes_along(shape, axis) {
        // A reduction over lanes of which any is undefined is undefined.
        let undef = lanes
            .iter()
            .flat_map(|&l| inputs.iter().map(move |v| &v.1[l]))
            .find(|x| is_undef(r, x))
            .cloned();
        if let Some(u) = undef {
            for o in outs.iter_mut() {
                o.push(u.clone());
            }
            continue;
        }
        if let (Some(b), 1) = (fast, inputs.len()) {
            let vals: Option<Vec<_>> = lanes
                .iter()
                .map(|&l| match r.kind(&inputs[0].1[l]) {
                    Kind::Float(v) => Some(v),
                    _ => None,
                })
                .collect();
            if let Some(vals) = vals {
                let v = match in_type {
                    Some(kind) => precision::combine_in_type(r.floats(), b, kind, &vals),
                    None => combine_all(r.floats(), b, &vals),
                };
                outs[0].push(r.float(v));
                continue;
            }
        }
        let mut acc: Vec<R::L> = inputs.iter().map(|v| v.1[lanes[0]].clone()).collect();
        for &l in &lanes[1..] {
            let mut block_args = acc;
            block_args.extend(inputs.iter().map(|v| v.1[l].clone()));
            acc = combine(r, block_args)?;
        }
        for (o, a) in outs.iter_mut().zip(acc) {
            o.push(a);
        }
    }
    Ok(outs
        .into_iter()
        .map(|lanes| (out_shape.clone(), lanes))
        .collect())
}

/// libdevice `llrint`/`llrintf`/`lrint` (`cvt.rni.s64`): the nearest integer, a tie to
/// the even one, as an `i64`. As PTX converts, a value beyond the range saturates and a
/// NaN is 0. A float the run knows is converted here; one that depends on the data is
/// the integer `rint(x)` chosen by the data ([`data_float_to_int`]).
pub(crate) fn round_to_int<R: Values>(r: &mut R, a: &R::L) -> Result<R::L, R::E> {
    match r.kind(a) {
        Kind::Float(x) => {
            if let Some(v) = r.floats().as_number(x) {
                return Ok(r.int(llrint(v) as i128));
            }
            let v = r.floats().func(Func::Rint, x);
            data_float_to_int(r, v, 64, false, "llrint")
        }
        Kind::Undef => Ok(a.clone()),
        k => malformed(r, format!("llrint of {}", kind_name(&k))),
    }
}

/// A float `v` that depends on the data converted to a `bits`-wide integer (`llrint`'s
/// `rint(x)`, `fptosi` of a `floor`): kept as the integer chosen by the data only where
/// the domain shows `v` an integer on every input in a range the width holds
/// (`Domain::int_range`: a rounding of a float clamped to constants), so the real `v`
/// is what the GPU computes; a conversion that could saturate, truncate a fraction or
/// meet a NaN is refused.
pub(crate) fn data_float_to_int<R: Values>(
    r: &mut R,
    v: <R::D as Domain>::V,
    bits: u32,
    unsigned: bool,
    what: &str,
) -> Result<R::L, R::E> {
    let b = bits.clamp(2, 64);
    let (min, max) = if unsigned {
        (0, (1i128 << b) - 1)
    } else {
        (-(1i128 << (b - 1)), (1i128 << (b - 1)) - 1)
    };
    let range = r.floats().int_range(v);
    let Some((lo, hi)) = range.filter(|&(lo, hi)| lo >= min && hi <= max && hi <= i64::MAX as i128)
    else {
        return Err(r.fail(
            ErrorKind::Unsupported,
            format!(
                "{what} of a float that depends on the data, not shown to be an integer inside i{bits} \
                 (round it and clamp it to constants first): out of range the GPU saturates, and a NaN is 0"
            ),
        ));
    };
    match r.data_int(v, lo as i64, hi as i64) {
        Some(l) => Ok(l),
        None => Err(r.fail(
            ErrorKind::Unsupported,
            format!("{what} of a float that depends on the data (an integer chosen by the data)"),
        )),
    }
}

/// `cvt.rni.s64` of one number: half to even, saturating, NaN to 0.
pub(crate) fn llrint(x: f64) -> i64 {
    if x.is_nan() {
        return 0;
    }
    // `as` saturates at the i64 range, as the GPU does.
    x.round_ties_even() as i64
}

/// `tt.bitcast` of one lane: the same bits read in the result type. An integer keeps
/// its lane (a lane holds the signed reading of its width, and a bitcast between
/// integers keeps the width); a float's bits are read only where the run knows the
/// float as a number, and an integer's as a float only where it knows the integer: the
/// bits of a float that depends on the data have no real to stand for them.
/// The bits of a scalar element type.
fn width(t: &Type) -> Option<u32> {
    match t {
        Type::Int(w) => Some(*w),
        Type::Float(FloatKind::F16 | FloatKind::BF16) => Some(16),
        Type::Float(FloatKind::F32) => Some(32),
        Type::Float(FloatKind::F64) => Some(64),
        _ => None,
    }
}

pub(crate) fn bitcast<R: Values>(r: &mut R, op: &Op, a: &R::L) -> Result<R::L, R::E> {
    let from = op.operand_types.first().map(|t| t.elem().clone());
    let to = op.result_types.first().map(|t| t.elem().clone());
    if let Kind::Undef = r.kind(a) {
        return Ok(a.clone());
    }
    let unsupported = |r: &R, what: String| Err(r.fail(ErrorKind::Unsupported, what));
    match (from, to) {
        (Some(Type::Int(x)), Some(Type::Int(y))) if x == y => Ok(a.clone()),
        (Some(Type::Float(f)), Some(Type::Int(w))) => match (r.kind(a), f, w) {
            (Kind::Float(v), FloatKind::F32 | FloatKind::F64, 32 | 64) => {
                match r.floats().as_number(v) {
                    Some(x) if w == 32 && f == FloatKind::F32 => {
                        Ok(r.int((x as f32).to_bits() as i32 as i128))
                    }
                    Some(x) if w == 64 && f == FloatKind::F64 => Ok(r.int(x.to_bits() as i64 as i128)),
                    Some(_) => malformed(r, format!("bitcast of {f:?} to i{w}")),
                    // The bits of a float of the data: an opaque integer only Triton's
                    // float atomic max and min read (`exec/ops/atomic_bits.rs`).
                    None => match r.floats().float_bits(v, w == 64) {
                        Some(b) if (w == 64) == (f == FloatKind::F64) => {
                            let (lo, hi) = (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1);
                            match r.data_int(b, lo as i64, hi as i64) {
                                Some(l) => Ok(l),
                                None => unsupported(r, "bitcast of a float that depends on the data to an integer".into()),
                            }
                        }
                        _ => unsupported(
                            r,
                            "bitcast of a float that depends on the data to an integer: its bits have no real to stand for them".into(),
                        ),
                    },
                }
            }
            (k, _, _) => unsupported(r, format!("bitcast of {} from {f:?} to i{w}", kind_name(&k))),
        },
        (Some(Type::Int(w)), Some(Type::Float(f))) => match r.kind(a) {
            Kind::Int(i) => match (r.int_value(&i), f, w) {
                (Some(n), FloatKind::F32, 32) => {
                    let v = r.floats().constant(f32::from_bits(n as i32 as u32) as f64);
                    Ok(r.float(v))
                }
                (Some(n), FloatKind::F64, 64) => {
                    let v = r.floats().constant(f64::from_bits(n as i64 as u64));
                    Ok(r.float(v))
                }
                (Some(_), _, _) => malformed(r, format!("bitcast of i{w} to {f:?}")),
                (None, _, _) => unsupported(
                    r,
                    "bitcast to a float of an integer that depends on the sizes: its bits have no real to stand for them".into(),
                ),
            },
            k => unsupported(r, format!("bitcast of {} from i{w} to {f:?}", kind_name(&k))),
        },
        (Some(Type::Float(x)), Some(Type::Float(y))) if x == y => Ok(a.clone()),
        // A pointer to elements of another type of the same width (Triton's float
        // atomic max reads f32 memory through an i32 pointer): the same address.
        (Some(Type::Ptr(x)), Some(Type::Ptr(y))) if width(&x).is_some() && width(&x) == width(&y) => {
            Ok(a.clone())
        }
        (from, to) => unsupported(
            r,
            format!("bitcast from {from:?} to {to:?} (a pointer's element type or a width change)"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::domain::Concrete;

    /// Lanes over the concrete domain: a float, a decided condition, or masked off.
    #[derive(Clone, Debug, PartialEq)]
    enum L {
        F(f64),
        B(bool),
        I(i64),
        /// An integer chosen by the data: its real and range.
        D(f64, i64, i64),
        Undef,
    }

    struct Run(Concrete);

    impl Values for Run {
        type D = Concrete;
        type L = L;
        type I = i64;
        type E = String;
        fn floats(&mut self) -> &mut Concrete {
            &mut self.0
        }
        fn kind(&self, l: &L) -> Kind<f64, i64> {
            match l {
                L::F(x) => Kind::Float(*x),
                L::B(b) => Kind::Known(*b),
                L::I(i) => Kind::Int(*i),
                L::D(..) => Kind::Other,
                L::Undef => Kind::Undef,
            }
        }
        fn float(&self, v: f64) -> L {
            L::F(v)
        }
        fn truth(&self, t: Truth<f64>) -> L {
            match t {
                Truth::Known(b) => L::B(b),
                Truth::Unknown(_) => unreachable!("the concrete domain decides"),
            }
        }
        fn ptr(&self, _: usize, _: i64) -> L {
            unreachable!()
        }
        fn add_offset(&mut self, a: &i64, b: &i64) -> i64 {
            a + b
        }
        fn unit(&self) -> L {
            L::B(false)
        }
        fn fail(&self, _: ErrorKind, message: String) -> String {
            message
        }
        fn warn(&mut self, _: String) {}
        fn select_other(&mut self, _: &L, _: &L, _: &L) -> Result<L, String> {
            Err("no other conditions".into())
        }
        fn select_on_data(&mut self, _: f64, _: &L, _: &L) -> Option<Result<L, String>> {
            None
        }
        fn add_ptr_data(&mut self, _: &L, _: &L) -> Option<Result<L, String>> {
            None
        }
        fn int(&mut self, n: i128) -> L {
            L::I(n as i64)
        }
        fn int_value(&self, i: &i64) -> Option<i128> {
            Some(*i as i128)
        }
        fn data_int(&mut self, v: f64, lo: i64, hi: i64) -> Option<L> {
            Some(L::D(v, lo, hi))
        }
    }

    fn run() -> Run {
        Run(Concrete {
            data: Vec::new(),
            scalars: Default::default(),
            precision: Precision::Real,
            values_only: false,
        })
    }

    fn floats(xs: &[f64]) -> Vec<L> {
        xs.iter().map(|&x| L::F(x)).collect()
    }

    #[test]
    fn dot_is_c_plus_a_times_b_in_every_batch() {
        let r = &mut run();
        // [[1,2],[3,4]] @ [[5,6],[7,8]] = [[19,22],[43,50]]; plus 1 each. A second
        // batch: the identity times [[5,6],[7,8]] plus 0.
        let a = floats(&[1., 2., 3., 4., 1., 0., 0., 1.]);
        let b = floats(&[5., 6., 7., 8., 5., 6., 7., 8.]);
        let c = floats(&[1., 1., 1., 1., 0., 0., 0., 0.]);
        let s = [2, 2, 2];
        let (shape, out) = dot(r, (&s, &a), (&s, &b), (&s, &c), false).unwrap();
        assert_eq!(shape, vec![2, 2, 2]);
        assert_eq!(out, floats(&[20., 23., 44., 51., 5., 6., 7., 8.]));
        // A masked-off operand masks off exactly the lanes it reaches: a[0][1] feeds
        // row 0 of the first batch only.
        let mut a2 = a.clone();
        a2[1] = L::Undef;
        let (_, out) = dot(r, (&s, &a2), (&s, &b), (&s, &c), false).unwrap();
        assert_eq!(&out[..4], &[L::Undef, L::Undef, L::F(44.), L::F(51.)]);
        // Shapes that do not chain are refused, not read.
        let bad = [2, 3, 2];
        assert!(dot(r, (&s, &a), (&bad, &floats(&[0.; 12])), (&s, &c), false).is_err());
    }

    fn op(name: &str, from: Type, to: Type) -> Op {
        Op {
            name: name.into(),
            results: vec!["r".into()],
            operands: vec!["a".into()],
            attrs: Default::default(),
            regions: Vec::new(),
            successors: Vec::new(),
            result_types: vec![to],
            operand_types: vec![from],
            line: 1,
            loc: Default::default(),
        }
    }

    #[test]
    fn bitcast_reinterprets_bits() {
        let r = &mut run();
        let f32_to_i32 = op("tt.bitcast", Type::Float(FloatKind::F32), Type::Int(32));
        let i32_to_f32 = op("tt.bitcast", Type::Int(32), Type::Float(FloatKind::F32));
        let f64_to_i64 = op("tt.bitcast", Type::Float(FloatKind::F64), Type::Int(64));
        // IEEE-754 single: 1.0 = 0x3F800000 = 1065353216, -2.0 = 0xC0000000 (i32
        // -1073741824), 0.1f = 0x3DCCCCCD = 1036831949; double 1.0 = 0x3FF0 << 48.
        assert_eq!(bitcast(r, &f32_to_i32, &L::F(1.0)), Ok(L::I(1065353216)));
        assert_eq!(bitcast(r, &f32_to_i32, &L::F(-2.0)), Ok(L::I(-1073741824)));
        assert_eq!(
            bitcast(r, &f32_to_i32, &L::F(0.1f32 as f64)),
            Ok(L::I(1036831949))
        );
        assert_eq!(bitcast(r, &f64_to_i64, &L::F(1.0)), Ok(L::I(0x3FF0 << 48)));
        assert_eq!(bitcast(r, &i32_to_f32, &L::I(1065353216)), Ok(L::F(1.0)));
        assert_eq!(bitcast(r, &i32_to_f32, &L::I(-1073741824)), Ok(L::F(-2.0)));
        // Between integers of one width the lane (its signed reading) is kept.
        let i32_to_i32 = op("tt.bitcast", Type::Int(32), Type::Int(32));
        assert_eq!(bitcast(r, &i32_to_i32, &L::I(-5)), Ok(L::I(-5)));
        assert_eq!(bitcast(r, &f32_to_i32, &L::Undef), Ok(L::Undef));
        // A pointer to elements of the same width is the same address (Triton's float
        // atomic max reads f32 memory through an i32 pointer); a width change is not read.
        let ptr = Type::Ptr(Box::new(Type::Float(FloatKind::F32)));
        let ptr_i = Type::Ptr(Box::new(Type::Int(32)));
        let ptr_l = Type::Ptr(Box::new(Type::Int(64)));
        assert_eq!(
            bitcast(r, &op("tt.bitcast", ptr.clone(), ptr_i), &L::I(0)),
            Ok(L::I(0))
        );
        assert!(bitcast(r, &op("tt.bitcast", ptr, ptr_l), &L::I(0)).is_err());
    }

    #[test]
    fn llrint_rounds_half_to_even_and_saturates() {
        // cvt.rni.s64: the nearest integer, ties to the even one (2.5 -> 2, 3.5 -> 4,
        // -2.5 -> -2, -0.5 -> -0 = 0), beyond i64 saturated, NaN 0.
        let cases = [
            (2.5, 2),
            (3.5, 4),
            (-2.5, -2),
            (-1.5, -2),
            (-0.5, 0),
            (0.5, 0),
            (1.4999999, 1),
            (-127.5, -128),
            (126.6, 127),
            (1e30, i64::MAX),
            (-1e30, i64::MIN),
            (f64::NAN, 0),
        ];
        for (x, want) in cases {
            assert_eq!(llrint(x), want, "llrint({x})");
        }
        let r = &mut run();
        assert_eq!(round_to_int(r, &L::F(-2.5)), Ok(L::I(-2)));
        assert_eq!(round_to_int(r, &L::Undef), Ok(L::Undef));
        assert!(round_to_int(r, &L::I(3)).is_err());
    }

    #[test]
    fn select_fma_and_casts_of_lanes() {
        let r = &mut run();
        let (x, y) = (L::F(2.), L::F(-3.));
        assert_eq!(select(r, &L::B(true), &x, &y), Ok(x.clone()));
        assert_eq!(select(r, &L::B(false), &x, &y), Ok(y.clone()));
        assert_eq!(select(r, &L::Undef, &x, &y), Ok(L::Undef));
        // A float is no condition.
        assert!(select(r, &L::F(1.), &x, &y).is_err());
        // 2 * -3 + 10
        assert_eq!(fma(r, &x, &y, &L::F(10.)), Ok(L::F(4.)));
        assert_eq!(fma(r, &x, &L::Undef, &L::F(10.)), Ok(L::Undef));
        assert!(float_binary(r, Binary::Add, &x, &L::B(true)).is_err());
    }

    #[test]
    fn reduce_folds_each_row_and_masks_off_a_row_with_an_undefined_lane() {
        let r = &mut run();
        // No combine region: `simple_combine` finds none, so the fold runs `combine`
        // (here a product, to tell it from a sum).
        let op = Op {
            name: "tt.reduce".into(),
            results: Vec::new(),
            operands: Vec::new(),
            attrs: Default::default(),
            regions: Vec::new(),
            successors: Vec::new(),
            result_types: Vec::new(),
            operand_types: Vec::new(),
            line: 1,
            loc: Default::default(),
        };
        let lanes = vec![L::F(1.), L::F(2.), L::F(3.), L::F(4.), L::Undef, L::F(6.)];
        let shape = [2, 3];
        let out = reduce(
            r,
            &op,
            &[(&shape, &lanes)],
            1,
            |e| e,
            |_, args| match (&args[0], &args[1]) {
                (L::F(a), L::F(b)) => Ok(vec![L::F(a * b)]),
                _ => Err("not floats".to_string()),
            },
        )
        .unwrap();
        assert_eq!(out, vec![(vec![2], vec![L::F(6.), L::Undef])]);
        // Along axis 0: columns [1,4], [2,undef], [3,6].
        let out = reduce(
            r,
            &op,
            &[(&shape, &lanes)],
            0,
            |e| e,
            |_, args| match (&args[0], &args[1]) {
                (L::F(a), L::F(b)) => Ok(vec![L::F(a * b)]),
                _ => Err("not floats".to_string()),
            },
        )
        .unwrap();
        assert_eq!(out, vec![(vec![3], vec![L::F(4.), L::Undef, L::F(18.)])]);
    }
}
