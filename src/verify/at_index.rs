//! A formula's element at a symbolic index: the term the formula gives output element
//! `idx` (polynomials over sizes and program ids), for every size a path allows.
//!
//! Invariant: an input element is the atom [`atom_name`] names, exactly as the kernel's
//! loads name theirs, so equal indices meet as one term; a reduction or a matrix product
//! expands only over an extent the path pins to one value (an extent that still varies
//! is an error, never a guess), and a `cat` picks its piece only where Z3 proves the
//! index lies in it.

use super::lane::atom_name;
use super::sym::{Cond, Poly, Rel};
use crate::formula::{BinaryOp, Formula, ReduceOp};
use crate::launch::{BinOp, Expr};
use crate::term::{TermId, Terms};
use num_bigint::BigInt;
use num_rational::BigRational;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Why a formula element cannot be built at this index.
pub type R<T> = Result<T, String>;

/// A launch size expression as a polynomial (`cdiv`, `//`, `%` as floor atoms).
pub fn size_poly(e: &Expr) -> R<Poly> {
    Ok(match e {
        Expr::Int(i) => Poly::constant(*i as i128),
        Expr::Size(s) => Poly::sym(s),
        Expr::Neg(a) => size_poly(a)?.neg(),
        Expr::Bin(op, a, b) => {
            let (a, b) = (size_poly(a)?, size_poly(b)?);
            let positive = |b: &Poly| -> R<()> {
                // Divisors are sizes (>= 1) or positive constants.
                match b.as_const() {
                    Some(c) if c > 0 => Ok(()),
                    None if matches!(e, Expr::Bin(_, _, d) if matches!(**d, Expr::Size(_))) => {
                        Ok(())
                    }
                    _ => Err(format!("`{e}` divides by something not known positive")),
                }
            };
            match op {
                BinOp::Add => a.add(&b),
                BinOp::Sub => a.sub(&b),
                BinOp::Mul => a.mul(&b),
                BinOp::FloorDiv => {
                    positive(&b)?;
                    a.floor_div(&b)
                }
                BinOp::Mod => {
                    positive(&b)?;
                    a.modulo(&b)
                }
                BinOp::CeilDiv => {
                    positive(&b)?;
                    a.add(&b).sub(&Poly::constant(1)).floor_div(&b)
                }
                BinOp::Min => a.min_with(&b),
                BinOp::Max => a.max_with(&b),
            }
        }
    })
}

/// Each input element atom made so far: its tensor and index (the loop summaries match
/// a kernel's summand to a formula's by them).
pub type AtomIndex = std::collections::HashMap<TermId, (String, Vec<Poly>)>;

/// The atom for input element `idx` of `name`, recorded in `atoms`.
pub fn input_atom(terms: &mut Terms, atoms: &mut AtomIndex, name: &str, idx: &[Poly]) -> TermId {
    let t = terms.param(&atom_name(name, idx));
    atoms
        .entry(t)
        .or_insert_with(|| (name.to_string(), idx.to_vec()));
    t
}

/// The value of the reduction `key` (a formula node's text: `sum(x, axis=1)`) at the
/// index `outer` of its result (the reduced axis left out), over an extent no path pins.
/// The kernel side names a loop summary the same way once it has matched it to that
/// reduction, so one atom stands for one value on both sides.
pub fn reduction_atom(terms: &mut Terms, key: &str, outer: &[Poly]) -> TermId {
    let parts: Vec<String> = outer.iter().map(|p| p.to_string()).collect();
    terms.param(&format!("{key}[{}]", parts.join(", ")))
}

/// A size read as a real (`float(N)`): an int-to-float of an integer no path pins, and a
/// mean's divisor; both sides name it alike. (For sizes past 2^24 an f32 conversion
/// rounds; that rounding is inside the tolerance every float op already has.)
pub fn real_of(terms: &mut Terms, p: &Poly) -> TermId {
    match p.as_const() {
        Some(c) => terms.int(c as i64),
        // A label is the real its element's atom is (`gathers.rs`).
        None => match p.as_sym() {
            Some(s) if super::labels::is_label_sym(s) => terms.param(s),
            _ => terms.param(&format!("float({p})")),
        },
    }
}

/// `t` with every `float(S)` ([`real_of`]) of a size `S` that `pinned` fixes replaced by
/// its value: the formula side reads a pinned size as its value, so the kernel side
/// must too (a size a store's guard pins after the value was built).
pub fn pin_reals(terms: &mut Terms, t: TermId, pinned: &BTreeMap<Arc<str>, i128>) -> TermId {
    if pinned.is_empty() {
        return t;
    }
    let map: rustc_hash::FxHashMap<TermId, TermId> = pinned
        .iter()
        .map(|(s, v)| (terms.param(&format!("float({s})")), terms.int(*v as i64)))
        .collect();
    terms.substitute(t, &map)
}

/// A reduction of the formula over an axis whose extent is a size: the kernel's loops
/// are matched against these ([`super::loops`]).
#[derive(Clone, Debug)]
pub struct Template {
    /// The node's text, which names its atoms ([`reduction_atom`]).
    pub key: String,
    pub node: Formula,
    /// Add for sum, mean and matrix products; Max; Min.
    pub combine: crate::exec::domain::Binary,
    /// An argmax (`combine` Max) or argmin (Min): the first index attaining the
    /// extreme, which only a running arg-extreme loop meets
    /// ([`super::argext`]), never a running max or min.
    pub arg: bool,
}

/// Every reduction and matrix product inside `f`, each once.
pub fn templates(f: &Formula, out: &mut Vec<Template>) {
    use crate::exec::domain::Binary;
    let combine = match f {
        Formula::Reduce { op, .. } => match op {
            ReduceOp::Sum | ReduceOp::Mean => Some((Binary::Add, false)),
            ReduceOp::Max => Some((Binary::Max, false)),
            ReduceOp::Min => Some((Binary::Min, false)),
            ReduceOp::ArgMax => Some((Binary::Max, true)),
            ReduceOp::ArgMin => Some((Binary::Min, true)),
            // Not matched against loops yet: `at` says so where the extent is a size.
            ReduceOp::Prod => None,
        },
        Formula::MatMul(..) => Some((Binary::Add, false)),
        _ => None,
    };
    if let Some((combine, arg)) = combine {
        let key = sum_key(f);
        if !out.iter().any(|t| t.key == key) {
            out.push(Template {
                key,
                node: f.clone(),
                combine,
                arg,
            });
        }
    }
    for c in f.children() {
        templates(c, out);
    }
}

/// The key of a reduction node: a mean is named by its sum (it is that sum over the
/// extent), so `mean(x)` and `sum(x)` meet; `keepdim` does not change the values.
fn sum_key(f: &Formula) -> String {
    match f {
        Formula::Reduce { op, axis, arg, .. } => Formula::Reduce {
            op: if *op == ReduceOp::Mean {
                ReduceOp::Sum
            } else {
                *op
            },
            axis: *axis,
            keepdim: false,
            arg: arg.clone(),
        }
        .to_string(),
        _ => f.to_string(),
    }
}

/// What evaluating at an index needs from the caller.
pub struct AtIndex<'a> {
    pub terms: &'a mut Terms,
    /// Each input tensor's shape over the sizes.
    pub shapes: &'a BTreeMap<String, Vec<Poly>>,
    /// Sizes the path fixes to one value.
    pub pinned: &'a BTreeMap<Arc<str>, i128>,
    /// Whether a condition holds everywhere on the path (Z3).
    pub holds: &'a mut dyn FnMut(&Cond) -> bool,
    /// Where input atoms are recorded.
    pub atoms: &'a mut AtomIndex,
    /// Terms of matrix products and reductions at an index made earlier in the same
    /// context (the lanes of one store under one guard, see [`AtMemo`]); `None` where
    /// the atoms must be recorded.
    pub memo: Option<&'a mut AtMemo>,
    /// The label tensors a gather reads positions from (`gathers.rs`).
    pub labels: &'a super::labels::Labels,
}

/// Entry `axis` of a shape or an index, or an error naming it (never a panic on a
/// formula whose ranks do not fit).
fn dim(s: &[Poly], axis: usize) -> R<Poly> {
    s.get(axis)
        .cloned()
        .ok_or_else(|| format!("axis {axis} of a rank-{} operand", s.len()))
}

/// `at(f, idx)` by (address of the formula node, index) for the nodes worth keeping
/// (matrix products, reductions). Valid while the terms, shapes, pinned sizes and the
/// solver's context stay the same: the owner clears it when any of them changes. With
/// it, attention's `p[r, j]` is built once per row, not once per stored column.
pub type AtMemo = std::collections::HashMap<(usize, Vec<Poly>), TermId>;

impl AtIndex<'_> {
    /// The extent `d` when the path pins it.
    fn extent(&self, d: &Poly) -> Option<usize> {
        match d.subst(self.pinned).as_const() {
            Some(c) if c >= 0 => Some(c as usize),
            _ => None,
        }
    }

    /// The summand of reduction `t` at result index `outer` and reduced index `i`.
    pub fn summand(&mut self, t: &Formula, outer: &[Poly], i: &Poly) -> R<TermId> {
        match t {
            Formula::Reduce { axis, arg, .. } => {
                let mut i2 = outer.to_vec();
                if *axis > i2.len() {
                    return Err("reduction axis out of range".into());
                }
                i2.insert(*axis, i.clone());
                self.at(arg, &i2)
            }
            Formula::MatMul(a, b) => {
                let (ia, ib) = self.matmul_indices(a, b, outer, i)?;
                let x = self.at(a, &ia)?;
                let y = self.at(b, &ib)?;
                Ok(self.terms.mul(x, y))
            }
            _ => Err(format!("`{t}` is not a reduction")),
        }
    }

    /// The indices of `a` and `b` whose product is the summand of `a @ b` at result
    /// index `outer` and contracted index `k`, as NumPy's matmul reads 1-D operands: a
    /// 1-D `a` is a row and a 1-D `b` a column, each dropped from the result's shape.
    fn matmul_indices(
        &self,
        a: &Formula,
        b: &Formula,
        outer: &[Poly],
        k: &Poly,
    ) -> R<(Vec<Poly>, Vec<Poly>)> {
        let (ra, rb) = (self.shape(a)?.len(), self.shape(b)?.len());
        let k = k.clone();
        Ok(match (ra, rb, outer) {
            (2, 2, [i, j]) => (vec![i.clone(), k.clone()], vec![k, j.clone()]),
            (1, 2, [j]) => (vec![k.clone()], vec![k, j.clone()]),
            (2, 1, [i]) => (vec![i.clone(), k.clone()], vec![k]),
            (1, 1, []) => (vec![k.clone()], vec![k]),
            _ => return Err("only 1-D and 2-D matrix products are read for all sizes".into()),
        })
    }

    /// The extent a reduction node runs over.
    pub fn reduced_extent(&self, t: &Formula) -> R<Poly> {
        match t {
            Formula::Reduce { axis, arg, .. } => dim(&self.shape(arg)?, *axis),
            Formula::MatMul(a, _) => {
                let s = self.shape(a)?;
                dim(&s, s.len().wrapping_sub(1))
            }
            _ => Err(format!("`{t}` is not a reduction")),
        }
    }

    /// The shape of `f` over the sizes.
    pub fn shape(&self, f: &Formula) -> R<Vec<Poly>> {
        Ok(match f {
            Formula::Input(n) => match self.shapes.get(n) {
                Some(s) => s.clone(),
                None => return Err(format!("unknown input `{n}`")),
            },
            Formula::Scalar(_) | Formula::Const(_) | Formula::Inf { .. } => vec![],
            Formula::Arange(n) => vec![size_poly(n)?],
            Formula::Unary(_, a) | Formula::Powi(a, _) | Formula::Rand { offset: a, .. } => {
                self.shape(a)?
            }
            Formula::Binary(_, a, b) | Formula::Cmp(_, a, b) => {
                broadcast(&self.shape(a)?, &self.shape(b)?)?
            }
            Formula::Select(c, a, b) => {
                let ab = broadcast(&self.shape(a)?, &self.shape(b)?)?;
                broadcast(&self.shape(c)?, &ab)?
            }
            Formula::Reduce {
                axis, keepdim, arg, ..
            } => {
                let mut s = self.shape(arg)?;
                if *axis >= s.len() {
                    return Err("reduction axis out of range".into());
                }
                if *keepdim {
                    s[*axis] = Poly::constant(1);
                } else {
                    s.remove(*axis);
                }
                s
            }
            Formula::MatMul(a, b) => {
                let (sa, sb) = (self.shape(a)?, self.shape(b)?);
                match (sa.as_slice(), sb.as_slice()) {
                    ([m, _], [_, n]) => vec![m.clone(), n.clone()],
                    ([_], [_, n]) => vec![n.clone()],
                    ([m, _], [_]) => vec![m.clone()],
                    ([_], [_]) => vec![],
                    _ => {
                        return Err("only 1-D and 2-D matrix products are read for all sizes".into())
                    }
                }
            }
            Formula::Transpose(a) => {
                let mut s = self.shape(a)?;
                let n = s.len();
                if n < 2 {
                    return Err("transpose of a vector".into());
                }
                s.swap(n - 2, n - 1);
                s
            }
            Formula::Cat { axis, args } => {
                let Some(first) = args.first() else {
                    return Err("a concatenation of nothing".into());
                };
                let mut s = self.shape(first)?;
                let mut total = Poly::default();
                for a in args {
                    total = total.add(&dim(&self.shape(a)?, *axis)?);
                }
                dim(&s, *axis)?;
                s[*axis] = total;
                s
            }
            Formula::Slice {
                arg,
                axis,
                start,
                end,
            } => {
                let mut s = self.shape(arg)?;
                let e = match end {
                    Some(e) => size_poly(e)?,
                    None => dim(&s, *axis)?,
                };
                s[*axis] = e.sub(&size_poly(start)?);
                s
            }
            Formula::Unsqueeze { arg, axis } => {
                let mut s = self.shape(arg)?;
                if *axis > s.len() {
                    return Err("unsqueeze axis out of range".into());
                }
                s.insert(*axis, Poly::constant(1));
                s
            }
            Formula::Broadcast { shape, .. } | Formula::Reshape { shape, .. } => {
                shape.iter().map(size_poly).collect::<R<_>>()?
            }
            Formula::Window { op, geometry, .. } => {
                return Err(format!(
                    "`{}` is not read for all sizes yet",
                    op.name(geometry.nd())
                ))
            }
            Formula::Scan { arg, .. } | Formula::Tri { arg, .. } => self.shape(arg)?,
            Formula::Recurrence { x, .. } => self.shape(x)?,
            Formula::Take {
                kind,
                axis,
                data,
                index,
            } => super::labels::take_shape(*kind, *axis, &self.shape(data)?, &self.shape(index)?),
        })
    }

    /// The term of `f` at `idx`.
    pub fn at(&mut self, f: &Formula, idx: &[Poly]) -> R<TermId> {
        if !matches!(f, Formula::MatMul(..) | Formula::Reduce { .. }) || self.memo.is_none() {
            return self.at_uncached(f, idx);
        }
        let key = (f as *const Formula as usize, idx.to_vec());
        if let Some(&t) = self.memo.as_ref().and_then(|m| m.get(&key)) {
            return Ok(t);
        }
        let t = self.at_uncached(f, idx)?;
        if let Some(m) = self.memo.as_mut() {
            m.insert(key, t);
        }
        Ok(t)
    }

    fn at_uncached(&mut self, f: &Formula, idx: &[Poly]) -> R<TermId> {
        Ok(match f {
            Formula::Input(name) => {
                let shape = self.shape(f)?;
                let idx = align(idx, &shape);
                input_atom(self.terms, self.atoms, name, &idx)
            }
            Formula::Scalar(name) => self.terms.param(name),
            Formula::Const(c) => self.terms.constant(c.clone()),
            // An integer read as a real, as the kernel's `sitofp` of one reads it.
            Formula::Arange(_) => {
                let i = self.offset_at(f, idx)?;
                real_of(self.terms, &i)
            }
            // The random stream's atom at the offset (`verify::rand`: the kernel's
            // Philox, once proved to be `rand`, names the same atom).
            Formula::Rand { seed, offset } => {
                let o = self.offset_at(offset, idx)?;
                let name = crate::term::rand::atom_name(*seed, &o.to_string());
                self.terms.param(&name)
            }
            // The all-sizes proof is over the reals (see `Formula::Inf`).
            Formula::Inf { .. } => {
                return Err("an infinity (a masked fill) is not read for every size:                             the proof for every size is over the reals"
                    .into())
            }
            Formula::Unary(op, a) => {
                let x = self.sub(a, idx)?;
                match op.func() {
                    None => self.terms.neg(x),
                    Some(func) => self.terms.call(func, x),
                }
            }
            Formula::Powi(a, k) => {
                let x = self.sub(a, idx)?;
                self.terms.powi(x, *k)
            }
            Formula::Binary(op, a, b) => {
                let (x, y) = (self.sub(a, idx)?, self.sub(b, idx)?);
                let t = &mut *self.terms;
                match op {
                    BinaryOp::Add => t.add(x, y),
                    BinaryOp::Sub => t.sub(x, y),
                    BinaryOp::Mul => t.mul(x, y),
                    BinaryOp::Div => t.div(x, y),
                    BinaryOp::Max => t.max(x, y),
                    BinaryOp::Min => t.min(x, y),
                    BinaryOp::FMax => t.maxnum(x, y),
                    BinaryOp::FMin => t.minnum(x, y),
                }
            }
            Formula::Cmp(op, a, b) => {
                if let Some(t) = self.label_cmp(*op, a, b, idx)? {
                    return Ok(t);
                }
                let (x, y) = (self.sub(a, idx)?, self.sub(b, idx)?);
                self.terms.cmp(*op, x, y)
            }
            Formula::Select(c, a, b) => {
                let (c, x, y) = (self.sub(c, idx)?, self.sub(a, idx)?, self.sub(b, idx)?);
                self.terms.select(c, x, y)
            }
            Formula::Reduce {
                op,
                axis,
                keepdim,
                arg,
            } => {
                let extent = dim(&self.shape(arg)?, *axis)?;
                let Some(n) = self.extent(&extent) else {
                    if *op == ReduceOp::Prod {
                        return Err(format!(
                            "`{}` over an axis of every size is not read for all sizes yet",
                            op.name()
                        ));
                    }
                    // Over a size: the reduction's atom (a loop summary meets it; an
                    // argmax's or argmin's only the running arg-extreme template,
                    // super::argext, with PyTorch's first-index rule).
                    let mut outer = idx.to_vec();
                    if *keepdim {
                        outer.remove(*axis);
                    }
                    let r = reduction_atom(self.terms, &sum_key(f), &outer);
                    return Ok(if *op == ReduceOp::Mean {
                        let n = real_of(self.terms, &extent);
                        self.terms.div(r, n)
                    } else {
                        r
                    });
                };
                let mut vals = Vec::with_capacity(n);
                for k in 0..n {
                    let mut i2 = idx.to_vec();
                    let kk = Poly::constant(k as i128);
                    if *keepdim {
                        i2[*axis] = kk;
                    } else {
                        i2.insert(*axis, kk);
                    }
                    vals.push(self.at(arg, &i2)?);
                }
                let t = &mut *self.terms;
                match op {
                    ReduceOp::Sum => t.sum(&vals),
                    ReduceOp::Max => t.maxn(&vals),
                    ReduceOp::Min => t.minn(&vals),
                    ReduceOp::Mean => {
                        let s = t.sum(&vals);
                        let inv =
                            t.constant(BigRational::new(BigInt::from(1), BigInt::from(n.max(1))));
                        t.mul(s, inv)
                    }
                    ReduceOp::Prod => t.product(&vals),
                    ReduceOp::ArgMax => t.arg_extreme(&vals, true),
                    ReduceOp::ArgMin => t.arg_extreme(&vals, false),
                }
            }
            Formula::MatMul(a, b) => {
                let Some(k) = self.extent(&self.reduced_extent(f)?) else {
                    return Ok(reduction_atom(self.terms, &sum_key(f), idx));
                };
                let mut vals = Vec::with_capacity(k);
                for q in 0..k {
                    let (ia, ib) = self.matmul_indices(a, b, idx, &Poly::constant(q as i128))?;
                    let x = self.at(a, &ia)?;
                    let y = self.at(b, &ib)?;
                    vals.push(self.terms.mul(x, y));
                }
                self.terms.sum(&vals)
            }
            Formula::Transpose(a) => {
                let mut i2 = idx.to_vec();
                let n = i2.len();
                if n < 2 {
                    return Err("transpose of a vector".into());
                }
                i2.swap(n - 2, n - 1);
                self.at(a, &i2)?
            }
            Formula::Cat { axis, args } => {
                let mut start = Poly::default();
                for a in args {
                    let len = dim(&self.shape(a)?, *axis)?;
                    let end = start.add(&len);
                    let i = dim(idx, *axis)?;
                    let i = &i;
                    let inside =
                        Cond::and(Cond::cmp(Rel::Le, &start, i), Cond::cmp(Rel::Lt, i, &end));
                    if (self.holds)(&inside) {
                        let mut i2 = idx.to_vec();
                        i2[*axis] = i.sub(&start);
                        return self.at(a, &i2);
                    }
                    if !(self.holds)(&inside.not()) {
                        return Err(format!(
                            "which operand of the concatenation holds index {i} depends on the sizes"
                        ));
                    }
                    start = end;
                }
                return Err("an index past the concatenation".into());
            }
            Formula::Slice {
                arg, axis, start, ..
            } => {
                let mut i2 = idx.to_vec();
                i2[*axis] = dim(idx, *axis)?.add(&size_poly(start)?);
                self.at(arg, &i2)?
            }
            Formula::Unsqueeze { arg, axis } => {
                // The inserted axis has extent 1: its index is 0 and drops out.
                let mut i2 = idx.to_vec();
                if *axis < i2.len() {
                    i2.remove(*axis);
                }
                self.at(arg, &i2)?
            }
            Formula::Broadcast { arg, .. } => self.sub(arg, idx)?,
            Formula::Reshape { arg, shape } => {
                let to: Vec<Poly> = shape.iter().map(size_poly).collect::<R<_>>()?;
                let i2 = reshape_index(&self.shape(arg)?, &to, idx)?;
                self.at(arg, &i2)?
            }
            Formula::Window { op, geometry, .. } => {
                return Err(format!(
                    "`{}` is not read for all sizes yet",
                    op.name(geometry.nd())
                ))
            }
            Formula::Take {
                kind,
                axis,
                data,
                index,
            } => self.take_at(*kind, *axis, data, index, idx)?,
            Formula::Tri {
                arg,
                upper,
                diagonal,
            } => {
                let n = idx.len();
                // Kept where `j - i <= diagonal` (tril) or `j - i >= diagonal` (triu).
                let (i, j) = (&idx[n - 2], &idx[n - 1]);
                let (lo, hi) = if *upper {
                    (i.add(&Poly::constant(*diagonal as i128)), j.clone())
                } else {
                    (j.clone(), i.add(&Poly::constant(*diagonal as i128)))
                };
                let kept = Cond::cmp(Rel::Le, &lo, &hi);
                if (self.holds)(&kept) {
                    self.at(arg, idx)?
                } else if (self.holds)(&kept.not()) {
                    self.terms.zero()
                } else {
                    return Err(format!(
                        "whether `{f}` keeps index ({i}, {j}) depends on the sizes"
                    ));
                }
            }
            Formula::Scan { op, axis, arg } => self.scan_at(f, *op, *axis, arg, idx)?,
            Formula::Recurrence { axis, a, x } => self.recurrence_at(f, *axis, (a, x), idx)?,
        })
    }

    /// An operand at the output index, broadcast NumPy-style (trailing axes aligned,
    /// unit axes read at 0).
    /// The integer an integer formula (`arange(n)`, integer constants, `+ - *` of
    /// them) holds at `idx`, exactly: a `rand`'s offsets.
    fn offset_at(&mut self, f: &Formula, idx: &[Poly]) -> R<Poly> {
        use num_traits::ToPrimitive;
        let shape = self.shape(f)?;
        let idx = align(idx, &shape);
        match f {
            Formula::Arange(_) => dim(&idx, 0),
            Formula::Const(c) if c.is_integer() => c
                .to_integer()
                .to_i128()
                .map(Poly::constant)
                .ok_or_else(|| "an offset beyond i128".into()),
            Formula::Binary(op @ (BinaryOp::Add | BinaryOp::Sub | BinaryOp::Mul), a, b) => {
                let (x, y) = (self.offset_at(a, &idx)?, self.offset_at(b, &idx)?);
                Ok(match op {
                    BinaryOp::Add => x.add(&y),
                    BinaryOp::Sub => x.sub(&y),
                    _ => x.mul(&y),
                })
            }
            _ => Err(format!(
                "the offsets `{f}` are not an integer formula of arange (rand's offsets)"
            )),
        }
    }

    fn sub(&mut self, a: &Formula, idx: &[Poly]) -> R<TermId> {
        let shape = self.shape(a)?;
        let i2 = align(idx, &shape);
        self.at(a, &i2)
    }
}

/// The index of an operand of shape `shape` inside a broadcast of index `idx`.
pub(super) fn align(idx: &[Poly], shape: &[Poly]) -> Vec<Poly> {
    let off = idx.len().saturating_sub(shape.len());
    shape
        .iter()
        .enumerate()
        .map(|(k, d)| {
            if d.as_const() == Some(1) {
                Poly::default()
            } else {
                idx[off + k].clone()
            }
        })
        .collect()
}

fn broadcast(a: &[Poly], b: &[Poly]) -> R<Vec<Poly>> {
    let n = a.len().max(b.len());
    let one = Poly::constant(1);
    (0..n)
        .map(|i| {
            let x = (i + a.len()).checked_sub(n).map(|k| &a[k]).unwrap_or(&one);
            let y = (i + b.len()).checked_sub(n).map(|k| &b[k]).unwrap_or(&one);
            if x == y || y == &one {
                Ok(x.clone())
            } else if x == &one {
                Ok(y.clone())
            } else {
                Err(format!("shapes {x} and {y} do not broadcast for all sizes"))
            }
        })
        .collect()
}

/// The index into a tensor of shape `from` of element `idx` of its reshape to `to`.
/// Axes are matched in groups whose extents have the same product for every size (a
/// split `T → (T // 4, 4)`, a merge `(M, N) → M·N`); within a group the row-major
/// position is the same. A split needs no division, so its index stays a polynomial;
/// a merge takes floors. Unit axes hold index 0 and are skipped.
fn reshape_index(from: &[Poly], to: &[Poly], idx: &[Poly]) -> R<Vec<Poly>> {
    let one = Poly::constant(1);
    let product = |ps: &[Poly]| ps.iter().fold(one.clone(), |a, p| a.mul(p));
    let f_axes: Vec<usize> = (0..from.len()).filter(|&k| from[k] != one).collect();
    let t_axes: Vec<usize> = (0..to.len()).filter(|&k| to[k] != one).collect();
    let mut out = vec![Poly::default(); from.len()];
    let (mut i, mut j) = (0, 0);
    while i < f_axes.len() || j < t_axes.len() {
        // The smallest group starting here whose products agree as polynomials.
        let group = (2..=f_axes.len() - i + t_axes.len() - j)
            .flat_map(|n| (1..n).map(move |a| (a, n - a)))
            .find(|&(a, b)| {
                i + a <= f_axes.len()
                    && j + b <= t_axes.len()
                    && product(
                        &f_axes[i..i + a]
                            .iter()
                            .map(|&k| from[k].clone())
                            .collect::<Vec<_>>(),
                    ) == product(
                        &t_axes[j..j + b]
                            .iter()
                            .map(|&k| to[k].clone())
                            .collect::<Vec<_>>(),
                    )
            });
        let Some((a, b)) = group else {
            return Err(format!(
                "a reshape of {from:?} to {to:?} whose axes do not match for every size"
            ));
        };
        // Row-major position within the group, then back to the operand's axes.
        let mut linear = Poly::default();
        for &k in &t_axes[j..j + b] {
            linear = linear.mul(&to[k]).add(&idx[k]);
        }
        let fa = &f_axes[i..i + a];
        for (m, &k) in fa.iter().enumerate() {
            let inner = product(
                &fa[m + 1..]
                    .iter()
                    .map(|&l| from[l].clone())
                    .collect::<Vec<_>>(),
            );
            let q = if inner == one {
                linear.clone()
            } else {
                linear.floor_div(&inner)
            };
            out[k] = if m == 0 { q } else { q.modulo(&from[k]) };
        }
        i += a;
        j += b;
    }
    Ok(out)
}
