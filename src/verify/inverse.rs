//! Coverage through the writers' inverse: every element of an output is written, shown
//! by naming, for each element, the program and loop iteration that write it.
//!
//! A persistent kernel's tile loop `for tile in range(pid, n_tiles, G)` (a grid of `G`
//! programs striding over the tiles) stores lane `l` at `B·(pid + G·u) + l`: two
//! variables (the program id and the iteration `u`) in one index coordinate, which the
//! residue form of [`super::coverage`] does not read and the quantified query leaves
//! open. Where every coordinate of a writer's index is `Σ a_v·v + b` (constant `a_v > 0`,
//! distinct within the coordinate, each variable in one coordinate, `b` over sizes), the
//! mixed-radix inverse is the candidate writer of element `e`: with the coefficients
//! sorted `a_1 < … < a_k` and `x = e - b`, `v_i = (x mod a_{i+1}) div a_i` and
//! `v_k = x div a_k`. A quantifier-free query asks for an element of the shape that no
//! writer's candidate writes (under its path's condition, mask, loop range and the
//! program-id bounds). Where each coefficient divides the next and every `b` is a
//! constant, the query is split by the element's residue class modulo the largest
//! coefficients (the candidates are then linear: `e = 4·pid + 12·u + l` at `e = 12·w +
//! r` is `pid = (r - l) div 4`, `u = w`), or past a few hundred classes modulo the
//! smallest (each class asks only the writers whose `b` it matches); Z3 gives up on the
//! divisions of the general form on grids of a hundred programs.
//!
//! Invariant: `Covered` only when that query is unsat, so every element has a writer
//! (the candidate is a witness, never assumed right); `NotCovered` only when Z3 also
//! finds no writer at all of the element at the model's sizes; anything else is `Open`
//! (the caller falls back to its quantified query).

use super::attempt::{Attempt, Failed};
use super::records::{Path, TensorSym};
use super::residue::{gcd, lcm};
use super::sym::{Cond, Poly};
use std::collections::BTreeMap;
use std::sync::Arc;
use z3::ast::{Ast, Bool, Int};
use z3::SatResult;

/// What the inverse settled about "every element written".
pub(super) enum ByInverse {
    Covered,
    NotCovered(Failed),
    Open,
}

/// One store lane: its conditions, its index, and per coordinate the variables it
/// reads with their coefficients (ascending) and the rest `b`.
struct Writer<'p> {
    cond: Vec<Cond>,
    idx: &'p [Poly],
    coords: Vec<(Vec<(String, i128)>, Poly)>,
}

/// `x` as `Σ a_v·v + b` over `vars` (constant `a_v`, zero ones left out, `b` free of
/// `vars`), or `None`.
fn linear_in(x: &Poly, vars: &[String]) -> Option<(Vec<(String, i128)>, Poly)> {
    let at = |one: Option<&str>| {
        let m: BTreeMap<Arc<str>, i128> = vars
            .iter()
            .map(|v| (Arc::from(v.as_str()), i128::from(Some(v.as_str()) == one)))
            .collect();
        x.subst(&m)
    };
    let b = at(None);
    let mut terms = Vec::new();
    let mut rebuilt = b.clone();
    for v in vars {
        let a = at(Some(v)).sub(&b).as_const()?;
        if a != 0 {
            rebuilt = rebuilt.add(&Poly::sym(v).scale(a));
            terms.push((v.clone(), a));
        }
    }
    (rebuilt == *x).then_some((terms, b))
}

/// Sizes and an element (one index per coordinate) that the candidates miss.
type Missed = (Vec<(String, i64)>, Vec<i64>);

/// Most residue cases one coverage query may be split into.
const MAX_RESIDUES: i128 = 256;

/// Per coordinate, the modulus `m` that splits the element into residue classes
/// `e = m·w + r`, where every `b` is a constant and each coefficient divides the next:
/// the lcm of the writers' largest coefficients where the classes are at most
/// [`MAX_RESIDUES`] (each inverse is then linear in `w`), else of their smallest (each
/// class is reached by the writers whose `b` it matches only); `None` otherwise.
fn residue_moduli(writers: &[Writer]) -> Option<Vec<i128>> {
    let rank = writers.first()?.coords.len();
    let (mut top, mut bottom) = (vec![1i128; rank], vec![1i128; rank]);
    for w in writers {
        for (d, (terms, b)) in w.coords.iter().enumerate() {
            b.as_const()?;
            if !terms.windows(2).all(|p| p[1].1 % p[0].1 == 0) {
                return None;
            }
            if let (Some((_, lo)), Some((_, hi))) = (terms.first(), terms.last()) {
                top[d] = lcm(top[d], *hi);
                bottom[d] = lcm(bottom[d], *lo);
            }
        }
    }
    let few = |m: &[i128]| {
        m.iter()
            .try_fold(1i128, |n, x| n.checked_mul(*x))
            .is_some_and(|n| n <= MAX_RESIDUES)
    };
    [top, bottom].into_iter().find(|m| few(m))
}

/// Every residue vector `r` with `0 <= r[d] < m[d]`.
fn combos(m: &[i128]) -> Vec<Vec<i128>> {
    m.iter().fold(vec![Vec::new()], |acc, &md| {
        acc.into_iter()
            .flat_map(|pre| {
                (0..md).map(move |r| {
                    let mut v = pre.clone();
                    v.push(r);
                    v
                })
            })
            .collect()
    })
}

impl Writer<'_> {
    /// The mixed-radix candidate for each variable at element `e`: with `x = e - b`,
    /// `v_i = (x mod a_{i+1}) div a_i`, the last `x div a_k`.
    fn candidate<'ctx>(
        &self,
        ctx: &'ctx z3::Context,
        e: &[Int<'ctx>],
        smt: &super::sym::Smt<'ctx>,
    ) -> Vec<(String, Int<'ctx>)> {
        let int = |x: i128| Int::from_i64(ctx, x as i64);
        let mut to = Vec::new();
        for ((terms, b), ed) in self.coords.iter().zip(e) {
            let x = Int::sub(ctx, &[ed, &smt.int(b)]);
            for (i, (v, a)) in terms.iter().enumerate() {
                let below = match terms.get(i + 1) {
                    Some((_, next)) => x.modulo(&int(*next)),
                    None => x.clone(),
                };
                to.push((v.clone(), below.div(&int(*a))));
            }
        }
        to
    }

    /// [`Writer::candidate`] at `e_d = m_d·w_d + r_d` (see [`residue_moduli`]): with
    /// `x = m_d·w_d + y`, `y = r_d - b`, a `mod a` or `div a` of `x` where `a` divides
    /// `m_d` is `y mod a`, or `(m_d / a)·w_d + (y div a)`: division-free.
    fn candidate_at<'ctx>(
        &self,
        ctx: &'ctx z3::Context,
        m: &[i128],
        r: &[i128],
        ws: &[Int<'ctx>],
    ) -> Vec<(String, Int<'ctx>)> {
        let int = |x: i128| Int::from_i64(ctx, x as i64);
        let mut to = Vec::new();
        for (d, (terms, b)) in self.coords.iter().enumerate() {
            let y = r[d] - b.as_const().expect("checked by residue_moduli");
            let x = Int::add(ctx, &[&Int::mul(ctx, &[&int(m[d]), &ws[d]]), &int(y)]);
            for (i, (v, a)) in terms.iter().enumerate() {
                let value = match terms.get(i + 1) {
                    Some((_, next)) if m[d] % next == 0 => int(y.rem_euclid(*next).div_euclid(*a)),
                    Some((_, next)) => x.modulo(&int(*next)).div(&int(*a)),
                    None if m[d] % a == 0 => Int::add(
                        ctx,
                        &[
                            &Int::mul(ctx, &[&int(m[d] / a), &ws[d]]),
                            &int(y.div_euclid(*a)),
                        ],
                    ),
                    None => x.div(&int(*a)),
                };
                to.push((v.clone(), value));
            }
        }
        to
    }

    /// Whether this writer can reach residues `r` modulo `m`: every coefficient is a
    /// multiple of the smallest `a_1`, so `e_d - b` must be one modulo `gcd(a_1, m_d)`.
    fn may_reach(&self, m: &[i128], r: &[i128]) -> bool {
        self.coords
            .iter()
            .enumerate()
            .all(|(d, (terms, b))| match (terms.first(), b.as_const()) {
                (Some((_, a1)), Some(b)) => (r[d] - b).rem_euclid(gcd(*a1, m[d])) == 0,
                _ => true,
            })
    }

    /// `f` with each variable replaced by its value in `to`.
    fn substituted<'ctx>(
        &self,
        ctx: &'ctx z3::Context,
        f: &Bool<'ctx>,
        to: &[(String, Int<'ctx>)],
    ) -> Bool<'ctx> {
        let from: Vec<Int<'ctx>> = to
            .iter()
            .map(|(v, _)| Int::new_const(ctx, v.as_str()))
            .collect();
        let pairs: Vec<(&Int<'ctx>, &Int<'ctx>)> =
            from.iter().zip(to.iter().map(|(_, x)| x)).collect();
        f.substitute(&pairs)
    }
}

impl<'ctx> Attempt<'_, 'ctx> {
    /// The writers of tensor `k` read as mixed-radix coordinates; `None` where some
    /// writer's index is not of that form.
    fn radix_writers<'p>(&self, paths: &'p [Path], k: usize) -> Option<Vec<Writer<'p>>> {
        let pid_names: Vec<String> = ["pid_x", "pid_y", "pid_z"]
            .iter()
            .zip(self.pids)
            .filter(|(_, p)| p.as_const().is_none())
            .map(|(n, _)| n.to_string())
            .collect();
        let pid_ok = &self.base[self.size_conds.len()..];
        let mut out = Vec::new();
        for p in paths {
            for st in p.stores.iter().filter(|s| s.tensor == k) {
                let idx = st.index.as_deref()?;
                let vars: Vec<String> = pid_names.iter().chain(&st.vars).cloned().collect();
                let mut seen: Vec<String> = Vec::new();
                let mut coords = Vec::with_capacity(idx.len());
                for x in idx {
                    let (mut terms, b) = linear_in(x, &vars)?;
                    terms.sort_by_key(|(_, a)| *a);
                    let distinct = terms.windows(2).all(|w| w[0].1 < w[1].1);
                    if !distinct || terms.first().is_some_and(|(_, a)| *a <= 0) {
                        return None;
                    }
                    seen.extend(terms.iter().map(|(v, _)| v.clone()));
                    coords.push((terms, b));
                }
                // Each variable fixed by exactly one coordinate.
                seen.sort_unstable();
                let n = seen.len();
                seen.dedup();
                if seen.len() != n || n != vars.len() {
                    return None;
                }
                let mut cond = p.cond.clone();
                cond.extend(st.guard.iter().cloned());
                cond.extend(pid_ok.iter().cloned());
                out.push(Writer { cond, idx, coords });
            }
        }
        Some(out)
    }

    /// Whether every element of tensor `k` is written, by the writers' inverse.
    pub(super) fn covered_by_inverse(&self, paths: &[Path], k: usize, t: &TensorSym) -> ByInverse {
        let ctx = self.smt.ctx;
        let Some(writers) = self.radix_writers(paths, k) else {
            return ByInverse::Open;
        };
        let int = |x: i128| Int::from_i64(ctx, x as i64);
        let e: Vec<Int<'ctx>> = (0..t.shape.len())
            .map(|d| Int::new_const(ctx, format!("#e{d}")))
            .collect();
        let conds = |c: &[Cond]| {
            let v: Vec<Bool<'ctx>> = c.iter().map(|c| self.smt.cond(c)).collect();
            let r: Vec<&Bool<'ctx>> = v.iter().collect();
            Bool::and(ctx, &r)
        };
        // `writes(w)`: writer `w` writes `e` at its variables' current values.
        let writes = |w: &Writer| {
            let mut v = vec![conds(&w.cond)];
            for (x, e) in w.idx.iter().zip(&e) {
                v.push(self.smt.int(x)._eq(e));
            }
            let r: Vec<&Bool<'ctx>> = v.iter().collect();
            Bool::and(ctx, &r)
        };
        let base = z3::Solver::new(ctx);
        for c in self.size_conds {
            base.assert(&self.smt.cond(c));
        }
        for (d, ed) in e.iter().enumerate() {
            base.assert(&ed.ge(&int(0)));
            base.assert(&ed.lt(&self.smt.int(&t.shape[d])));
        }
        // Covered: no element that no writer's candidate writes.
        let missed = match residue_moduli(&writers) {
            Some(m) => {
                let ws: Vec<Int<'ctx>> = (0..m.len())
                    .map(|d| Int::new_const(ctx, format!("#w{d}")))
                    .collect();
                let mut missed = None;
                for r in combos(&m) {
                    base.push();
                    for d in 0..m.len() {
                        let at =
                            Int::add(ctx, &[&Int::mul(ctx, &[&int(m[d]), &ws[d]]), &int(r[d])]);
                        base.assert(&e[d]._eq(&at));
                    }
                    // A writer that cannot reach the class is left out: fewer
                    // writers, so unsat still means the class is covered.
                    for w in writers.iter().filter(|w| w.may_reach(&m, &r)) {
                        let to = w.candidate_at(ctx, &m, &r, &ws);
                        base.assert(&w.substituted(ctx, &writes(w), &to).not());
                    }
                    let found = base.check();
                    if found == SatResult::Sat {
                        missed = Some(self.small_model(&base, &e));
                    }
                    base.pop(1);
                    match found {
                        SatResult::Unsat => continue,
                        SatResult::Unknown => return ByInverse::Open,
                        SatResult::Sat => break,
                    }
                }
                match missed {
                    None => return ByInverse::Covered,
                    Some(m) => m,
                }
            }
            None => {
                base.push();
                for w in &writers {
                    let to = w.candidate(ctx, &e, self.smt);
                    base.assert(&w.substituted(ctx, &writes(w), &to).not());
                }
                let found = base.check();
                let missed = match found {
                    SatResult::Sat => self.small_model(&base, &e),
                    _ => None,
                };
                base.pop(1);
                match found {
                    SatResult::Unsat => return ByInverse::Covered,
                    SatResult::Unknown => return ByInverse::Open,
                    SatResult::Sat => missed,
                }
            }
        };
        let Some((sizes, at)) = missed else {
            return ByInverse::Open;
        };
        // The candidates miss an element: written by nobody at those sizes?
        base.push();
        for (name, v) in &sizes {
            base.assert(&Int::new_const(ctx, name.as_str())._eq(&Int::from_i64(ctx, *v)));
        }
        for (ed, v) in e.iter().zip(&at) {
            base.assert(&ed._eq(&Int::from_i64(ctx, *v)));
        }
        let any: Vec<Bool<'ctx>> = writers.iter().map(writes).collect();
        let refs: Vec<&Bool<'ctx>> = any.iter().collect();
        base.assert(&Bool::or(ctx, &refs));
        let none = base.check() == SatResult::Unsat;
        base.pop(1);
        if none {
            return ByInverse::NotCovered(Failed {
                reason: format!("some element of `{}` is written by no program", t.name),
                witness: Some(sizes),
            });
        }
        ByInverse::Open
    }

    /// After a sat check of `s`: the least sizes, at small sizes first (the witness is
    /// replayed), then the least element at them ([`super::lane::least`]): a choice of
    /// the question alone, as whether that element is written by no program decides.
    fn small_model(&self, s: &z3::Solver<'ctx>, e: &[Int<'ctx>]) -> Option<Missed> {
        let ctx = self.smt.ctx;
        let sizes: Vec<Int<'ctx>> = self
            .sizes
            .iter()
            .map(|name| Int::new_const(ctx, name.as_str()))
            .collect();
        // Sizes are at least 1, indices at least 0.
        let vars: Vec<(Int<'ctx>, i64)> = sizes
            .iter()
            .map(|x| (x.clone(), 1))
            .chain(e.iter().map(|x| (x.clone(), 0)))
            .collect();
        [Some(16), Some(1024), None].into_iter().find_map(|cap| {
            s.push();
            if let Some(cap) = cap {
                for x in &sizes {
                    s.assert(&x.le(&Int::from_i64(ctx, cap)));
                }
            }
            let m = super::lane::least(s, &vars).map(|vs| {
                let (vs, at) = vs.split_at(sizes.len());
                let named = self.sizes.iter().cloned().zip(vs.iter().copied());
                (named.collect(), at.to_vec())
            });
            s.pop(1);
            m
        })
    }
}
