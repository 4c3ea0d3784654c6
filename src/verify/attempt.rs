//! One attempt at the all-sizes proof under one candidate constraint ([`Attempt`]):
//! every explored path's stores matched to the formulas, its accesses checked
//! (`coverage.rs`), and the sizes a path pins read back from Z3.
//!
//! Invariant: an attempt succeeds only when every path proves every output element it
//! stores equal to its formula for every size on the path; otherwise [`Failed`] says why,
//! with sizes where it fails when Z3 finds them.

use super::at_index::{pin_reals, AtIndex};
use super::lane::small_witness;
use super::records::{Path, TensorSym};
use super::sym::{Cond, Poly, Smt};
use crate::decide::{self, Verdict};
use crate::formula::Output as FormulaOutput;
use crate::launch::Role;
use crate::term::Terms;
use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;
use z3::ast::{Ast, Int};
use z3::SatResult;

/// Why one attempt failed.
#[derive(Clone)]
pub(super) struct Failed {
    pub(super) reason: String,
    pub(super) witness: Option<Vec<(String, i64)>>,
}

pub(super) struct Attempt<'a, 'ctx> {
    pub(super) smt: &'a Smt<'ctx>,
    pub(super) sizes: &'a [String],
    pub(super) size_conds: &'a [Cond],
    pub(super) base: &'a [Cond],
    pub(super) pids: &'a [Poly; 3],
    /// Programs per grid axis (over the sizes).
    pub(super) grid: &'a [Poly; 3],
    pub(super) tensors: &'a [TensorSym],
    pub(super) formulas: &'a HashMap<&'a str, &'a FormulaOutput>,
    pub(super) input_shapes: &'a BTreeMap<String, Vec<Poly>>,
    pub(super) labels: &'a super::labels::Labels,
}

impl<'ctx> Attempt<'_, 'ctx> {
    pub(super) fn path_solver(&self, p: &Path) -> z3::Solver<'ctx> {
        let s = z3::Solver::new(self.smt.ctx);
        for c in self.base.iter().chain(&p.cond) {
            s.assert(&self.smt.cond(c));
        }
        s
    }

    pub(super) fn prove(&self, paths: &[Path], terms: &mut Terms) -> Result<(), Failed> {
        // 1. Accesses in bounds (each decomposed into an index).
        // (A failure with sizes where the access escapes comes first: it can refute.)
        let all = || paths.iter().flat_map(|p| &p.failures);
        if let Some(f) = all().find(|f| f.witness.is_some()).or_else(|| all().next()) {
            return Err(Failed {
                reason: format!("{} ({})", f.message, f.loc),
                witness: f.witness.clone(),
            });
        }
        // 2. Stored values equal the formula at their index. One solver, each path's
        // conditions in a scope of their own.
        let solver = self.path_solver(&Path::default());
        for p in paths {
            solver.push();
            for c in &p.cond {
                solver.assert(&self.smt.cond(c));
            }
            let facts: Vec<&Cond> = self.base.iter().chain(&p.cond).collect();
            let mut hint = None;
            let pinned = self.pinned(&solver, &facts, &mut hint);
            let witness = || small_witness(&solver, self.smt, self.sizes);
            let mut pairs = Vec::new();
            for st in &p.stores {
                let t = &self.tensors[st.tensor];
                // An output the caller gives no formula for (one `check`'s spec leaves
                // out) is not proved; its accesses were checked in step 1.
                let Some(f) = self.formulas.get(t.name.as_str()) else {
                    continue;
                };
                let idx = st.index.clone().expect("checked in step 1");
                // A store inside loops holds under its iteration's conditions.
                solver.push();
                for c in &st.guard {
                    solver.assert(&self.smt.cond(c));
                }
                // A guard may pin a size (the last lane of a row pins its length), as
                // it did for the kernel's side of this store.
                let guard_pinned;
                let pinned = if st.guard.is_empty() {
                    &pinned
                } else {
                    let mut facts = facts.clone();
                    facts.extend(&st.guard);
                    guard_pinned =
                        self.pinned_by_guard(&solver, &pinned, &st.guard, &facts, &mut hint);
                    &guard_pinned
                };
                let mut holds = |c: &Cond| self.smt.holds(&solver, c);
                let mut atoms = super::at_index::AtomIndex::new();
                let mut at = AtIndex {
                    terms,
                    shapes: self.input_shapes,
                    pinned,
                    holds: &mut holds,
                    atoms: &mut atoms,
                    memo: None,
                    labels: self.labels,
                };
                let fshape = at.shape(&f.formula).map_err(|reason| Failed {
                    reason,
                    witness: None,
                })?;
                if fshape != t.shape {
                    return Err(Failed {
                        reason: format!(
                            "the formula for `{}` has shape [{}], the tensor [{}]",
                            t.name,
                            join(&fshape),
                            join(&t.shape)
                        ),
                        witness: None,
                    });
                }
                let want = at.at(&f.formula, &idx);
                let got = pin_reals(terms, st.value.expect("stores carry values"), pinned);
                // Sizes where it fails, asked only when it does (under the guard).
                let want = match want {
                    Ok(w) => w,
                    Err(reason) => {
                        let witness = witness();
                        solver.pop(1);
                        return Err(Failed { reason, witness });
                    }
                };
                solver.pop(1);
                pairs.push((want, got, st));
            }
            let just: Vec<_> = pairs.iter().map(|&(a, b, _)| (a, b)).collect();
            // A spec's formula (the left side) is refined where it is NaN outside its
            // domain, as on the instance.
            let opts = decide::Options {
                spec: if self.formulas.values().any(|f| f.spec) {
                    decide::SpecSide::Left
                } else {
                    decide::SpecSide::Neither
                },
                ..decide::Options::default()
            };
            let verdicts = decide::decide_all(terms, &just, &opts);
            for (v, (want, got, st)) in verdicts.iter().zip(&pairs) {
                let what = format!(
                    "`{}` at index [{}] ({})",
                    self.tensors[st.tensor].name,
                    join(st.index.as_deref().unwrap_or(&[])),
                    st.loc
                );
                match v {
                    Verdict::Equal { .. } => {}
                    Verdict::NotEqual(_) => {
                        if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
                            eprintln!(
                                "  want {}\n  got  {}",
                                terms.display(*want),
                                terms.display(*got)
                            );
                        }
                        return Err(Failed {
                            reason: format!("{what} differs from the formula"),
                            witness: witness(),
                        });
                    }
                    Verdict::Unknown { reason } => {
                        return Err(Failed {
                            reason: format!("{what}: {reason}"),
                            witness: None,
                        })
                    }
                }
            }
            solver.pop(1);
        }
        // 3. Every output element written exactly once.
        for (k, t) in self.tensors.iter().enumerate() {
            if t.role == Role::In || !self.formulas.contains_key(t.name.as_str()) {
                continue;
            }
            self.coverage(paths, k, t)?;
        }
        Ok(())
    }

    /// Sizes the path fixes to one value.
    pub(super) fn pinned(
        &self,
        solver: &z3::Solver<'ctx>,
        facts: &[&Cond],
        hint: &mut Option<Model>,
    ) -> BTreeMap<Arc<str>, i128> {
        self.pinned_among(solver, self.sizes.iter().map(String::as_str), facts, hint)
    }

    /// [`Self::pinned`] under a store's guard too (asserted in `solver`), given the
    /// path's own `path_pinned`: a guard pins a size it mentions (the last lane of a
    /// row pins the row's length), so only those are asked, and all of them once one
    /// is pinned (the path's constraints may tie others to it). Asking fewer sizes only
    /// keeps fewer pinned, which can cost a proof, never make one.
    pub(super) fn pinned_by_guard(
        &self,
        solver: &z3::Solver<'ctx>,
        path_pinned: &BTreeMap<Arc<str>, i128>,
        guard: &[Cond],
        facts: &[&Cond],
        hint: &mut Option<Model>,
    ) -> BTreeMap<Arc<str>, i128> {
        let mut mentioned = Vec::new();
        for c in guard {
            c.symbols(&mut mentioned);
        }
        let ask: Vec<&str> = self
            .sizes
            .iter()
            .map(String::as_str)
            .filter(|s| !path_pinned.contains_key(*s) && mentioned.iter().any(|m| &**m == *s))
            .collect();
        if ask.is_empty() {
            return path_pinned.clone();
        }
        let newly = self.pinned_among(solver, ask.into_iter(), facts, hint);
        if newly.is_empty() {
            path_pinned.clone()
        } else {
            self.pinned(solver, facts, hint)
        }
    }

    /// The sizes of `among` that `solver`'s assertions fix to one value. `facts` are
    /// those assertions as conditions; `hint` is a model of earlier facts (a store's
    /// previous lane), used while it satisfies these. A size that a neighbour of the
    /// model's value also satisfies the facts with is free without a query. (Were
    /// `facts` fewer than the assertions, a size would only be kept free wrongly: fewer
    /// pinned sizes can cost a proof, never make one; a pin is always Z3's answer.)
    pub(super) fn pinned_among<'s>(
        &self,
        solver: &z3::Solver<'ctx>,
        among: impl Iterator<Item = &'s str>,
        facts: &[&Cond],
        hint: &mut Option<Model>,
    ) -> BTreeMap<Arc<str>, i128> {
        let mut out = BTreeMap::new();
        let satisfies = |m: &Model| facts.iter().all(|c| c.eval(m) == Some(true));
        if !hint.as_ref().is_some_and(satisfies) {
            *hint = self.model(solver, facts);
        }
        let Some(model) = hint.as_ref() else {
            return out;
        };
        for s in among {
            let Some(&v) = model.get(s) else {
                continue;
            };
            let free_nearby = [v + 1, v - 1].into_iter().any(|w| {
                let mut alt = model.clone();
                alt.insert(Arc::from(s), w);
                satisfies(&alt)
            });
            if free_nearby {
                continue;
            }
            let Ok(v64) = i64::try_from(v) else {
                continue;
            };
            solver.push();
            let x = Int::new_const(self.smt.ctx, s);
            solver.assert(&x._eq(&Int::from_i64(self.smt.ctx, v64)).not());
            if solver.check() == SatResult::Unsat {
                out.insert(Arc::from(s), v);
            }
            solver.pop(1);
        }
        out
    }

    /// A model of `solver`'s assertions over the sizes and the symbols of `facts`,
    /// each size then raised as far as the facts allow (by up to 64), so that the
    /// model satisfies the guards of more lanes of a store (`row < M` for every row of
    /// a tile) and is reused for them.
    pub(super) fn model(&self, solver: &z3::Solver<'ctx>, facts: &[&Cond]) -> Option<Model> {
        if solver.check() != SatResult::Sat {
            return None;
        }
        let m = solver.get_model()?;
        let mut syms: Vec<Arc<str>> = self.sizes.iter().map(|s| Arc::from(s.as_str())).collect();
        for c in facts {
            c.symbols(&mut syms);
        }
        let mut model = Model::new();
        for s in syms {
            let v = m.eval(&Int::new_const(self.smt.ctx, &*s), true)?.as_i64()?;
            model.insert(s, v as i128);
        }
        for s in self.sizes {
            let Some(&v) = model.get(s.as_str()) else {
                continue;
            };
            let mut wider = model.clone();
            wider.insert(Arc::from(s.as_str()), v + 64);
            if facts.iter().all(|c| c.eval(&wider) == Some(true)) {
                model = wider;
            }
        }
        Some(model)
    }
}

/// Integer values for symbols: a model read back from Z3.
type Model = BTreeMap<Arc<str>, i128>;

fn join(ps: &[Poly]) -> String {
    ps.iter()
        .map(|p| p.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
