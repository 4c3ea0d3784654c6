//! Every element of an output written exactly once, by all programs together.
//!
//! A writer is one store lane of one path: it writes index `idx` under the path's
//! condition and its own guard (mask lane, loop iteration), for each program id (and
//! loop iteration) allowed. Two queries: no element in the shape that no writer reaches
//! ("covered"), and no element two different writers (or two programs of one) reach
//! ("once").
//!
//! When each program id and loop variable a writer runs under is read off one
//! coordinate of its index as `a·v + b` (constant `a`, `b`: a block's lanes), the
//! queries are built without quantifiers: coordinate `k` is written `A·w + r` with `A`
//! the lcm of the strides and `r` its residue, so each writer reaches each residue at
//! exactly one `v`; "once" is then asked pair by pair, skipping pairs whose residues
//! differ. Otherwise the writers' mixed-radix inverse may show "covered"
//! ([`super::inverse`]), or a tile map proved a bijection ([`super::bijection`]) gives
//! writers over tiles that the residue form reads; else the program ids are bound by a quantifier (Z3 answers unknown on
//! it past a few hundred writers, e.g. a 16×16 tile of lazily masked lanes).
//!
//! A label (`gathers.rs`) a writer depends on is a value per index: "covered" asks
//! that a program write the element whatever labels it reads, and in "once" each copy
//! reads its own, equal where their indices meet; a label's domain is a premise.
//!
//! Invariant: `Ok` only when every query whose unsat means the property was unsat.

use super::attempt::{Attempt, Failed};
use super::bijection::ByTiles;
use super::inverse::ByInverse;
use super::labels::LabelRead;
use super::lane::small_witness;
use super::records::{Path, TensorSym};
use super::residue::{lcm, Stride};
use super::summary::affine_in_one;
use super::sym::{Cond, Poly};
use std::sync::Arc;
use z3::ast::{Ast, Bool, Int};
use z3::SatResult;

/// Most residue combinations one writer may need, and most pairs "once" may ask about.
const MAX_COMBOS: i128 = 64;
const MAX_PAIRS: usize = 256;

/// What the quantifier-free form settled.
enum Residues {
    Proved,
    Failed(Failed),
    /// Covered, but too many pairs to ask "once" one by one.
    CoveredOnly,
    NotApplicable,
}

/// One coordinate of a writer's index.
#[derive(Clone, Debug)]
enum Coord {
    /// `a·v + b` for the writer's variable `v`.
    Affine(Stride),
    /// Free of the writer's variables (sizes and constants only).
    Fixed(Poly),
}

struct Writer<'p> {
    /// The path's condition, the store's guard and the program-id bounds.
    cond: Vec<Cond>,
    idx: &'p [Poly],
    coords: Vec<Coord>,
}

impl<'ctx> Attempt<'_, 'ctx> {
    /// The stores of all programs cover each element of tensor `k` once.
    pub(super) fn coverage(&self, paths: &[Path], k: usize, t: &TensorSym) -> Result<(), Failed> {
        if paths.iter().all(|p| p.labels.is_empty()) {
            return self.coverage_of(paths, k, t, &[]);
        }
        // A label's domain is a premise here, not a condition of writing: the writers
        // are read without it, and only the labels they depend on are bound.
        let domains: Vec<Cond> = label_reads(paths)
            .iter()
            .filter_map(|r| self.labels.fact(&r.tensor, &r.sym))
            .collect();
        let stripped: Vec<Path> = paths
            .iter()
            .map(|p| {
                let mut q = p.clone();
                q.cond.retain(|c| !domains.contains(c));
                q
            })
            .collect();
        let mut syms: Vec<Arc<str>> = Vec::new();
        for p in stripped
            .iter()
            .filter(|p| p.stores.iter().any(|s| s.tensor == k))
        {
            p.cond.iter().for_each(|c| c.symbols(&mut syms));
            for st in p.stores.iter().filter(|s| s.tensor == k) {
                st.guard.iter().for_each(|c| c.symbols(&mut syms));
                st.index.iter().flatten().for_each(|x| x.symbols(&mut syms));
            }
        }
        let reads: Vec<&LabelRead> = label_reads(paths)
            .into_iter()
            .filter(|r| {
                r.sym
                    .as_sym()
                    .is_some_and(|s| syms.iter().any(|x| &**x == s))
            })
            .collect();
        self.coverage_of(&stripped, k, t, &reads)
    }

    /// [`Self::coverage`] of writers that depend on the labels `reads` (none: the
    /// quantifier-free form first).
    fn coverage_of(
        &self,
        paths: &[Path],
        k: usize,
        t: &TensorSym,
        reads: &[&LabelRead],
    ) -> Result<(), Failed> {
        // Labels are values per index: only the quantified form reads them so.
        if !reads.is_empty() {
            return self.coverage_quantified(paths, k, t, true, reads);
        }
        match self.coverage_by_residues(paths, k, t) {
            Residues::Proved => Ok(()),
            Residues::Failed(f) => Err(f),
            Residues::CoveredOnly => self.coverage_quantified(paths, k, t, false, reads),
            Residues::NotApplicable => match self.covered_by_inverse(paths, k, t) {
                ByInverse::Covered => self.coverage_quantified(paths, k, t, false, reads),
                ByInverse::NotCovered(f) => Err(f),
                // A tile order computed from the program id: its tiles in their place.
                ByInverse::Open => match self.retiled(paths, k, t) {
                    ByTiles::Retiled(tiled) => {
                        let no_pids = [Poly::default(), Poly::default(), Poly::default()];
                        let over_tiles = Attempt {
                            pids: &no_pids,
                            base: self.size_conds,
                            ..*self
                        };
                        over_tiles.coverage_of(&tiled, k, t, reads)
                    }
                    ByTiles::Failed(f) => Err(f),
                    ByTiles::NotApplicable => self.coverage_quantified(paths, k, t, true, reads),
                },
            },
        }
    }

    /// The general form: one query with the program ids (and loop variables) bound by
    /// a quantifier for "covered", one without for "once".
    fn coverage_quantified(
        &self,
        paths: &[Path],
        k: usize,
        t: &TensorSym,
        check_covered: bool,
        reads: &[&LabelRead],
    ) -> Result<(), Failed> {
        let ctx = self.smt.ctx;
        let e: Vec<Int<'ctx>> = (0..t.shape.len())
            .map(|i| Int::new_const(ctx, format!("e{i}")))
            .collect();
        // The program ids as Z3 constants (the quantifier binds them by name).
        let pid_vars: Vec<Int<'ctx>> = ["pid_x", "pid_y", "pid_z"]
            .iter()
            .zip(self.pids)
            .filter(|(_, p)| p.as_const().is_none())
            .map(|(n, _)| Int::new_const(ctx, *n))
            .collect();
        // Stores inside loops over sizes: their iteration variables are bound alike.
        let mut loop_vars: Vec<&str> = paths
            .iter()
            .flat_map(|p| p.stores.iter().filter(|s| s.tensor == k))
            .flat_map(|s| s.vars.iter().map(|v| v.as_str()))
            .collect();
        loop_vars.sort_unstable();
        loop_vars.dedup();
        let pid_vars: Vec<Int<'ctx>> = pid_vars
            .into_iter()
            .chain(loop_vars.iter().map(|v| Int::new_const(ctx, *v)))
            .collect();
        let primed: Vec<Int<'ctx>> = pid_vars
            .iter()
            .enumerate()
            .map(|(i, _)| Int::new_const(ctx, format!("pid'{i}")))
            .collect();
        // writes(pids, w): writer number w (a path's store lane) writes element e.
        let w = Int::new_const(ctx, "w");
        let w2 = Int::new_const(ctx, "w'");
        let mut writes: Vec<Bool<'ctx>> = Vec::new();
        let mut writes_any: Vec<Bool<'ctx>> = Vec::new();
        let mut n = 0i64;
        for p in paths {
            let pc: Vec<Bool<'ctx>> = p.cond.iter().map(|c| self.smt.cond(c)).collect();
            for st in p.stores.iter().filter(|s| s.tensor == k) {
                let idx = st.index.as_ref().expect("checked");
                let mut conj: Vec<Bool<'ctx>> = pc.clone();
                conj.extend(st.guard.iter().map(|c| self.smt.cond(c)));
                for (i, x) in idx.iter().enumerate() {
                    conj.push(self.smt.int(x)._eq(&e[i]));
                }
                let refs: Vec<&Bool<'ctx>> = conj.iter().collect();
                let here = Bool::and(ctx, &refs);
                writes_any.push(here.clone());
                // Loop variables this store does not run under are pinned, so two
                // copies of one writer cannot differ in them.
                let mut mine = vec![w._eq(&Int::from_i64(ctx, n)), here];
                for v in &loop_vars {
                    if !st.vars.iter().any(|x| x == v) {
                        mine.push(Int::new_const(ctx, *v)._eq(&Int::from_i64(ctx, 0)));
                    }
                }
                let refs: Vec<&Bool<'ctx>> = mine.iter().collect();
                writes.push(Bool::and(ctx, &refs));
                n += 1;
            }
        }
        let pid_ok: Vec<Bool<'ctx>> = self
            .base
            .iter()
            .skip(self.size_conds.len())
            .map(|c| self.smt.cond(c))
            .collect();
        let sizes_ok: Vec<Bool<'ctx>> = self.size_conds.iter().map(|c| self.smt.cond(c)).collect();
        let in_shape: Vec<Bool<'ctx>> = t
            .shape
            .iter()
            .enumerate()
            .flat_map(|(i, d)| [e[i].ge(&Int::from_i64(ctx, 0)), e[i].lt(&self.smt.int(d))])
            .collect();
        let and = |v: &[Bool<'ctx>]| {
            let r: Vec<&Bool<'ctx>> = v.iter().collect();
            Bool::and(ctx, &r)
        };
        let or = |v: &[Bool<'ctx>]| {
            let r: Vec<&Bool<'ctx>> = v.iter().collect();
            Bool::or(ctx, &r)
        };
        // The labels the paths read, each a value of its own (a path's condition holds
        // its domain): a program covers an element only if it writes it whatever labels
        // it reads, and two writers read one label where their indices meet.
        let label_vars: Vec<Int<'ctx>> = reads.iter().map(|r| self.smt.int(&r.sym)).collect();
        let domains: Vec<Bool<'ctx>> = reads
            .iter()
            .filter_map(|r| self.labels.fact(&r.tensor, &r.sym))
            .map(|c| self.smt.cond(&c))
            .collect();
        let any_written = or(&writes_any);
        let any_written = if label_vars.is_empty() {
            any_written
        } else {
            let bound: Vec<&dyn Ast<'ctx>> =
                label_vars.iter().map(|v| v as &dyn Ast<'ctx>).collect();
            z3::ast::forall_const(ctx, &bound, &[], &and(&domains).implies(&any_written))
        };
        // Covered: no element in the shape that no program writes.
        let written = Bool::and(ctx, &[&and(&pid_ok), &any_written]);
        let bound: Vec<&dyn Ast<'ctx>> = pid_vars.iter().map(|v| v as &dyn Ast<'ctx>).collect();
        let nobody = if bound.is_empty() {
            written.not()
        } else {
            z3::ast::forall_const(ctx, &bound, &[], &written.not())
        };
        let s = z3::Solver::new(ctx);
        s.assert(&and(&sizes_ok));
        s.assert(&and(&in_shape));
        s.assert(&nobody);
        match if check_covered {
            s.check()
        } else {
            SatResult::Unsat
        } {
            SatResult::Unsat => {}
            SatResult::Sat => {
                let witness = small_witness(&s, self.smt, self.sizes);
                return Err(Failed {
                    reason: format!("some element of `{}` is written by no program", t.name),
                    witness,
                });
            }
            SatResult::Unknown => {
                return Err(Failed {
                    reason: format!(
                        "Z3 could not decide whether every element of `{}` is written",
                        t.name
                    ),
                    witness: None,
                })
            }
        }
        // Once: no two different (program, writer) pairs write the same element.
        let label_primed: Vec<Int<'ctx>> = (0..label_vars.len())
            .map(|i| Int::new_const(ctx, format!("label'{i}")))
            .collect();
        let subst: Vec<(&Int<'ctx>, &Int<'ctx>)> = pid_vars
            .iter()
            .zip(&primed)
            .chain(label_vars.iter().zip(&label_primed))
            .collect();
        let w_first = Bool::and(ctx, &[&and(&pid_ok), &or(&writes)]);
        let w_second = w_first.substitute(&subst).substitute(&[(&w, &w2)]);
        // One label where two reads' indices meet (within a copy and across).
        let copies: Vec<(&str, Vec<Int<'ctx>>, Int<'ctx>)> = reads
            .iter()
            .zip(&label_vars)
            .flat_map(|(r, v)| {
                let idx: Vec<Int<'ctx>> = r.index.iter().map(|p| self.smt.int(p)).collect();
                let idx2 = idx.iter().map(|x| x.substitute(&subst)).collect();
                [
                    (r.tensor.as_str(), idx, v.clone()),
                    (r.tensor.as_str(), idx2, v.substitute(&subst)),
                ]
            })
            .collect();
        let mut same_label: Vec<Bool<'ctx>> = Vec::new();
        for (i, (ta, ia, va)) in copies.iter().enumerate() {
            for (tb, ib, vb) in &copies[i + 1..] {
                if ta != tb || ia.len() != ib.len() {
                    continue;
                }
                let meet: Vec<Bool<'ctx>> = ia.iter().zip(ib).map(|(x, y)| x._eq(y)).collect();
                same_label.push(and(&meet).implies(&va._eq(vb)));
            }
        }
        let mut differ: Vec<Bool<'ctx>> = vec![w._eq(&w2).not()];
        for (a, b) in pid_vars.iter().zip(&primed) {
            differ.push(a._eq(b).not());
        }
        let s = z3::Solver::new(ctx);
        s.assert(&and(&sizes_ok));
        s.assert(&w_first);
        s.assert(&w_second);
        s.assert(&and(&same_label));
        s.assert(&and(&domains));
        s.assert(&and(&domains).substitute(&subst));
        s.assert(&or(&differ));
        match s.check() {
            SatResult::Unsat => Ok(()),
            SatResult::Sat => Err(Failed {
                reason: format!("some element of `{}` is written twice", t.name),
                witness: small_witness(&s, self.smt, self.sizes),
            }),
            SatResult::Unknown => Err(Failed {
                reason: format!(
                    "Z3 could not decide whether an element of `{}` is written twice",
                    t.name
                ),
                witness: None,
            }),
        }
    }

    /// The writers of tensor `k`, each with its index read as [`Coord`]s; `None` when
    /// some writer's variables are not each determined by one coordinate.
    fn writers<'p>(&self, paths: &'p [Path], k: usize) -> Option<Vec<Writer<'p>>> {
        let pid_names: Vec<&str> = ["pid_x", "pid_y", "pid_z"]
            .iter()
            .zip(self.pids)
            .filter(|(_, p)| p.as_const().is_none())
            .map(|(n, _)| *n)
            .collect();
        let pid_ok: Vec<Cond> = self.base[self.size_conds.len()..].to_vec();
        let mut out = Vec::new();
        for p in paths {
            for st in p.stores.iter().filter(|s| s.tensor == k) {
                let idx = st.index.as_deref()?;
                // (An axis an atomic add's guard pins to 0 writes through that program.)
                let vars: Vec<String> = pid_names
                    .iter()
                    .filter(|n| !super::atomics::pinned_axis(&st.guard, n))
                    .map(|s| s.to_string())
                    .chain(st.vars.iter().cloned())
                    .collect();
                let mut used: Vec<&String> = Vec::new();
                let mut coords = Vec::with_capacity(idx.len());
                for x in idx {
                    let mut syms: Vec<Arc<str>> = Vec::new();
                    x.symbols(&mut syms);
                    let mine: Vec<&String> = vars
                        .iter()
                        .filter(|v| syms.iter().any(|s| **s == ***v))
                        .collect();
                    match mine[..] {
                        [] => coords.push(Coord::Fixed(x.clone())),
                        [v] => {
                            let (var, a, b) = affine_in_one(x, std::slice::from_ref(v))?;
                            if used.contains(&v) {
                                return None;
                            }
                            used.push(v);
                            coords.push(Coord::Affine(Stride {
                                var,
                                a,
                                b: b.as_const()?,
                            }));
                        }
                        _ => return None,
                    }
                }
                // A variable no coordinate fixes: many programs or iterations may
                // write one element.
                if used.len() != vars.len() {
                    return None;
                }
                let mut cond = p.cond.clone();
                cond.extend(st.guard.iter().cloned());
                cond.extend(pid_ok.iter().cloned());
                let cond = super::atomics::at_pinned_axes(&st.guard, &pid_names, cond);
                out.push(Writer { cond, idx, coords });
            }
        }
        Some(out)
    }

    /// [`Attempt::coverage`] without quantifiers, where the writers' indices allow it.
    fn coverage_by_residues(&self, paths: &[Path], k: usize, t: &TensorSym) -> Residues {
        let ctx = self.smt.ctx;
        let int = |x: i128| Int::from_i64(ctx, x as i64);
        let Some(writers) = self.writers(paths, k) else {
            return Residues::NotApplicable;
        };
        let rank = t.shape.len();
        // The lcm of the strides per coordinate.
        let mut m = vec![1i128; rank];
        for w in &writers {
            for (d, c) in w.coords.iter().enumerate() {
                if let Coord::Affine(st) = c {
                    m[d] = lcm(m[d], st.a);
                    if m[d] > MAX_COMBOS {
                        return Residues::NotApplicable;
                    }
                }
            }
        }
        let ws: Vec<Int> = (0..rank)
            .map(|d| Int::new_const(ctx, format!("#w{d}")))
            .collect();
        let rs: Vec<Int> = (0..rank)
            .map(|d| Int::new_const(ctx, format!("#r{d}")))
            .collect();
        let e: Vec<Int> = (0..rank)
            .map(|d| Int::add(ctx, &[&Int::mul(ctx, &[&int(m[d]), &ws[d]]), &rs[d]]))
            .collect();
        let and = |v: &[Bool<'ctx>]| {
            let r: Vec<&Bool<'ctx>> = v.iter().collect();
            Bool::and(ctx, &r)
        };
        let conds = |c: &[Cond]| and(&c.iter().map(|c| self.smt.cond(c)).collect::<Vec<_>>());
        // Covered: each writer reaches residue r of an affine coordinate at the one
        // value of its variable that gives it.
        let s = z3::Solver::new(ctx);
        for c in self.size_conds {
            s.assert(&self.smt.cond(c));
        }
        for d in 0..rank {
            s.assert(&rs[d].ge(&int(0)));
            s.assert(&rs[d].lt(&int(m[d])));
            s.assert(&e[d].ge(&int(0)));
            s.assert(&e[d].lt(&self.smt.int(&t.shape[d])));
        }
        for w in &writers {
            let mut combos: Vec<Vec<(usize, i128)>> = vec![Vec::new()];
            for (d, c) in w.coords.iter().enumerate() {
                if let Coord::Affine(st) = c {
                    let res: Vec<i128> = st.residues(m[d]).collect();
                    combos = combos
                        .into_iter()
                        .flat_map(|pre| {
                            res.iter().map(move |r| {
                                let mut v = pre.clone();
                                v.push((d, *r));
                                v
                            })
                        })
                        .collect();
                    if combos.len() as i128 > MAX_COMBOS {
                        return Residues::NotApplicable;
                    }
                }
            }
            let mut body = vec![conds(&w.cond)];
            for (d, c) in w.coords.iter().enumerate() {
                if let Coord::Fixed(x) = c {
                    body.push(e[d]._eq(&self.smt.int(x)));
                }
            }
            let body = and(&body);
            let mut ways = Vec::with_capacity(combos.len());
            for combo in &combos {
                let mut eqs = Vec::new();
                let mut from: Vec<Int> = Vec::new();
                let mut to: Vec<Int> = Vec::new();
                for &(d, r) in combo {
                    let Coord::Affine(st) = &w.coords[d] else {
                        unreachable!("combos are over affine coordinates")
                    };
                    eqs.push(rs[d]._eq(&int(r)));
                    from.push(Int::new_const(ctx, st.var.as_str()));
                    to.push(st.at(ctx, m[d], &ws[d], r));
                }
                let subst: Vec<(&Int, &Int)> = from.iter().zip(&to).collect();
                eqs.push(body.substitute(&subst));
                ways.push(and(&eqs));
            }
            let refs: Vec<&Bool> = ways.iter().collect();
            s.assert(&Bool::or(ctx, &refs).not());
        }
        match s.check() {
            SatResult::Unsat => {}
            SatResult::Sat => {
                return Residues::Failed(Failed {
                    reason: format!("some element of `{}` is written by no program", t.name),
                    witness: small_witness(&s, self.smt, self.sizes),
                })
            }
            SatResult::Unknown => return Residues::NotApplicable,
        }
        // Once: pairs of writers whose residues agree on every affine coordinate.
        let mut pairs = Vec::new();
        for n1 in 0..writers.len() {
            for n2 in n1 + 1..writers.len() {
                let meet =
                    writers[n1]
                        .coords
                        .iter()
                        .zip(&writers[n2].coords)
                        .all(|pair| match pair {
                            (Coord::Affine(s1), Coord::Affine(s2)) => s1.may_meet(s2),
                            (Coord::Affine(st), Coord::Fixed(x))
                            | (Coord::Fixed(x), Coord::Affine(st)) => {
                                x.as_const().is_none_or(|c| st.may_be(c))
                            }
                            (Coord::Fixed(x), Coord::Fixed(y)) => {
                                match (x.as_const(), y.as_const()) {
                                    (Some(c1), Some(c2)) => c1 == c2,
                                    _ => true,
                                }
                            }
                        });
                if meet {
                    pairs.push((n1, n2));
                }
            }
        }
        if pairs.len() > MAX_PAIRS {
            return Residues::CoveredOnly;
        }
        // Each side with its own copies of the program ids and loop variables.
        let side = |w: &Writer, tag: &str| -> (Bool<'ctx>, Vec<Int<'ctx>>) {
            let mut from: Vec<Int> = Vec::new();
            let mut to: Vec<Int> = Vec::new();
            for c in &w.coords {
                if let Coord::Affine(st) = c {
                    from.push(Int::new_const(ctx, st.var.as_str()));
                    to.push(Int::new_const(ctx, format!("{}{tag}", st.var)));
                }
            }
            let subst: Vec<(&Int, &Int)> = from.iter().zip(&to).collect();
            let holds = conds(&w.cond).substitute(&subst);
            let at = w
                .idx
                .iter()
                .map(|x| self.smt.int(x).substitute(&subst))
                .collect();
            (holds, at)
        };
        // One solver for every pair (the size constraints asserted once), each pair
        // in its own scope.
        let s = z3::Solver::new(ctx);
        for c in self.size_conds {
            s.assert(&self.smt.cond(c));
        }
        for (n1, n2) in pairs {
            let (h1, i1) = side(&writers[n1], "'1");
            let (h2, i2) = side(&writers[n2], "'2");
            s.push();
            s.assert(&h1);
            s.assert(&h2);
            for (x, y) in i1.iter().zip(&i2) {
                s.assert(&x._eq(y));
            }
            let verdict = match s.check() {
                SatResult::Unsat => None,
                SatResult::Sat => Some(Residues::Failed(Failed {
                    reason: format!("some element of `{}` is written twice", t.name),
                    witness: small_witness(&s, self.smt, self.sizes),
                })),
                SatResult::Unknown => Some(Residues::CoveredOnly),
            };
            s.pop(1);
            if let Some(v) = verdict {
                return v;
            }
        }
        Residues::Proved
    }
}

/// The labels `paths` read, each once (one symbol names one tensor element).
fn label_reads(paths: &[Path]) -> Vec<&LabelRead> {
    let mut out: Vec<&LabelRead> = Vec::new();
    for r in paths.iter().flat_map(|p| &p.labels) {
        if !out.iter().any(|o| o.sym == r.sym) {
            out.push(r);
        }
    }
    out
}
