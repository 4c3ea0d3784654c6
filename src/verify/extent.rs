//! Whether the summands a loop matched to a reduction cover exactly its extent.
//!
//! After [`super::loops`] has decided each summand equal to the reduction's summand at
//! some index, Z3 checks three things about those indices under their parts'
//! conditions: none lies outside `[0, extent)`, every element of it is reached, and (for
//! a sum) none is reached twice. Indices of the form `a·u + b` with constant `b` (every
//! lane of a block loop) are checked one residue class modulo `lcm(a)` at a time and
//! one pair of summands at a time: small division-free queries, where Z3 gives up on
//! the single quantified one.
//!
//! Invariant: `Ok` only when Z3 answered unsat to every query whose unsat means the
//! property; a sat answer comes back with sizes where it fails (a witness), unknown
//! without one.

use super::lane::{small_witness, unsupported, Unsupported, R};
use super::residue::{lcm, Stride};
use super::run::Run;
use super::summary::{affine_in_one, DomainKey, Part};
use super::sym::{Cond, Poly, Rel};
use crate::exec::domain::Binary;
use crate::term::TermId;
use z3::ast::{Ast, Bool, Int};
use z3::SatResult;

/// Most residue classes checked one by one.
const MAX_RESIDUES: i128 = 256;

/// How a summand's index depends on its iteration.
#[derive(Clone, Debug)]
enum Form {
    /// `a·v + b`: loop variable `v`.
    Affine(Stride),
    /// `b`, in a part with no loop variable.
    Fixed(i128),
}

/// Each index as a [`Form`], or `None` when one is neither.
fn residue_forms(items: &[(Part, TermId)], index: &[Poly]) -> Option<Vec<Form>> {
    items
        .iter()
        .zip(index)
        .map(|((part, _), i)| {
            if part.vars.is_empty() {
                return i.as_const().map(Form::Fixed);
            }
            let (var, a, b) = affine_in_one(i, &part.vars)?;
            Some(Form::Affine(Stride {
                var,
                a,
                b: b.as_const()?,
            }))
        })
        .collect()
}

impl Run<'_, '_, '_> {
    /// The conjunction of a part's conditions.
    pub(super) fn part_holds<'c>(&self, part: &Part) -> Bool<'c>
    where
        Self: 'c,
    {
        let b: Vec<Bool> = part.cond.iter().map(|c| self.smt.cond(c)).collect();
        let r: Vec<&Bool> = b.iter().collect();
        Bool::and(self.smt.ctx, &r)
    }

    fn extent_failure(&self, r: SatResult, message: String) -> Unsupported {
        Unsupported {
            message,
            line: 0,
            loc: Default::default(),
            witness: if r == SatResult::Sat {
                small_witness(&self.solver, self.smt, self.setup.sizes)
            } else {
                None
            },
        }
    }

    /// Every element of `[0, extent)` is some summand's index: for each residue `r`
    /// modulo `A = lcm(a)`, no `w` with `A·w + r` in the extent escapes every summand.
    fn reached_by_residues(
        &mut self,
        items: &[(Part, TermId)],
        forms: &[Form],
        extent: &Poly,
        key: &str,
    ) -> R<()> {
        let ctx = self.smt.ctx;
        let mut m: i128 = 1;
        for f in forms {
            if let Form::Affine(st) = f {
                m = lcm(m, st.a);
                if m > MAX_RESIDUES {
                    return unsupported(format!(
                        "a loop whose strides need more than {MAX_RESIDUES} residue classes"
                    ));
                }
            }
        }
        // One query: no residue r and w with A·w + r in the extent that every summand
        // misses (a summand with stride a reaches the residues ≡ b mod a, each at one
        // iteration, so there is no division and no quantifier).
        let w = Int::new_const(ctx, "#w");
        let r = Int::new_const(ctx, "#r");
        let int = |x: i128| Int::from_i64(ctx, x as i64);
        let iota = Int::add(ctx, &[&Int::mul(ctx, &[&int(m), &w]), &r]);
        self.solver.push();
        self.solver.assert(&r.ge(&int(0)));
        self.solver.assert(&r.lt(&int(m)));
        self.solver.assert(&iota.ge(&int(0)));
        self.solver.assert(&iota.lt(&self.smt.int(extent)));
        for ((part, _), f) in items.iter().zip(forms) {
            let holds = self.part_holds(part);
            let hit = match f {
                Form::Affine(st) => {
                    let v = Int::new_const(ctx, st.var.as_str());
                    // At each residue, the one iteration that reaches A·w + res.
                    let ways: Vec<Bool> = st
                        .residues(m)
                        .map(|res| {
                            let u = st.at(ctx, m, &w, res);
                            Bool::and(ctx, &[&r._eq(&int(res)), &holds.substitute(&[(&v, &u)])])
                        })
                        .collect();
                    let refs: Vec<&Bool> = ways.iter().collect();
                    Bool::or(ctx, &refs)
                }
                Form::Fixed(b) => Bool::and(ctx, &[&holds, &iota._eq(&int(*b))]),
            };
            self.solver.assert(&hit.not());
        }
        let res = self.solver.check();
        let out =
            (res != SatResult::Unsat).then(|| self.extent_failure(res, never_reached(key, extent)));
        self.solver.pop(1);
        match out {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// No two summands (or two iterations of one) reach the same index.
    fn never_twice_by_pairs(
        &mut self,
        items: &[(Part, TermId)],
        forms: &[Form],
        key: &str,
    ) -> R<()> {
        let ctx = self.smt.ctx;
        let int = |x: i128| Int::from_i64(ctx, x as i64);
        // Each side with its own copy of its loop variable.
        let side = |run: &Self, part: &Part, f: &Form, tag: &str| -> (Bool, Int) {
            match f {
                Form::Affine(st) => {
                    let v = Int::new_const(ctx, st.var.as_str());
                    let copy = Int::new_const(ctx, format!("{}{tag}", st.var));
                    let holds = run.part_holds(part).substitute(&[(&v, &copy)]);
                    (holds, st.index(ctx, &copy))
                }
                Form::Fixed(b) => (run.part_holds(part), int(*b)),
            }
        };
        for n1 in 0..items.len() {
            for n2 in n1 + 1..items.len() {
                // Indices that can never meet need no query.
                let meet = match (&forms[n1], &forms[n2]) {
                    (Form::Affine(s1), Form::Affine(s2)) => s1.may_meet(s2),
                    (Form::Affine(st), Form::Fixed(c)) | (Form::Fixed(c), Form::Affine(st)) => {
                        st.may_be(*c)
                    }
                    (Form::Fixed(b1), Form::Fixed(b2)) => b1 == b2,
                };
                if !meet {
                    continue;
                }
                let (h1, i1) = side(self, &items[n1].0, &forms[n1], "'1");
                let (h2, i2) = side(self, &items[n2].0, &forms[n2], "'2");
                self.solver.push();
                self.solver.assert(&h1);
                self.solver.assert(&h2);
                self.solver.assert(&i1._eq(&i2));
                let res = self.solver.check();
                let out = (res != SatResult::Unsat).then(|| self.extent_failure(res, twice(key)));
                self.solver.pop(1);
                if let Some(e) = out {
                    return Err(e);
                }
            }
        }
        Ok(())
    }

    /// Z3: the summands' indices stay in `[0, extent)`, reach every element of it, and
    /// (for a sum) reach none twice.
    pub(super) fn domain_is_extent(
        &mut self,
        op: Binary,
        items: &[(Part, TermId)],
        index: &[Poly],
        extent: &Poly,
        key: &str,
    ) -> R<()> {
        // Outside loops the solver holds the path's conditions (which only grow) and the
        // store's mask: a domain proved there holds again for the same items (the
        // columns of one row of attention's `p @ v` share their rows' domain).
        let cache_key = self.loops.is_empty().then(|| DomainKey {
            op,
            items: items
                .iter()
                .zip(index)
                .map(|((p, _), i)| (p.vars.clone(), p.cond.clone(), i.clone()))
                .collect(),
            extent: extent.clone(),
            store_guard: self.store_guard.clone(),
        });
        if let Some(k) = &cache_key {
            if self.proved_domains.contains(k) {
                return Ok(());
            }
        }
        // A domain proved from the path alone holds for every lane a store writes
        // (a matmul tile's row and column masks say nothing of its K extent): tried
        // first, with the store's mask (the solver's top scope outside loops) lifted.
        if let (Some(k), Some(g)) = (&cache_key, self.store_guard.clone()) {
            let unmasked = DomainKey {
                store_guard: None,
                ..k.clone()
            };
            if self.proved_domains.contains(&unmasked) {
                return Ok(());
            }
            // The mask's conjuncts are not assumed while it is lifted.
            let assumed = std::mem::take(&mut self.assumed);
            self.solver.pop(1);
            let r = self.check_domain(op, items, index, extent, key);
            self.solver.push();
            self.solver.assert(&self.smt.cond(&g));
            self.assumed = assumed;
            if r.is_ok() {
                self.proved_domains.insert(unmasked);
                return Ok(());
            }
        }
        self.check_domain(op, items, index, extent, key)?;
        if let Some(k) = cache_key {
            self.proved_domains.insert(k);
        }
        Ok(())
    }

    fn check_domain(
        &mut self,
        op: Binary,
        items: &[(Part, TermId)],
        index: &[Poly],
        extent: &Poly,
        key: &str,
    ) -> R<()> {
        let ctx = self.smt.ctx;
        let zero = Poly::default();
        // Programs summed by an atomic add, one value at a time (`atomics.rs`).
        let enumerated = super::atomics::enumerate_program_axes(items, index);
        let (items, index) = match &enumerated {
            Some((i, x)) => (&i[..], &x[..]),
            None => (items, index),
        };
        // Within: no summand's index outside the extent (one query for all).
        let mut outside = Vec::with_capacity(items.len());
        for ((part, _), i) in items.iter().zip(index) {
            let inside = Cond::and(Cond::cmp(Rel::Le, &zero, i), Cond::cmp(Rel::Lt, i, extent));
            outside.push(Bool::and(
                ctx,
                &[&self.part_holds(part), &self.smt.cond(&inside).not()],
            ));
        }
        let refs: Vec<&Bool> = outside.iter().collect();
        self.solver.push();
        self.solver.assert(&Bool::or(ctx, &refs));
        let r = self.solver.check();
        self.solver.pop(1);
        if r != SatResult::Unsat {
            return unsupported(format!(
                "a loop adds an element outside the extent {extent} of `{key}`"
            ));
        }
        // Indices `a·u + b` with constant `b` (the common case) are checked one residue
        // class at a time, each query free of division; Z3 gives up on the whole.
        if let Some(forms) = residue_forms(items, index) {
            self.reached_by_residues(items, &forms, extent, key)?;
            if op == Binary::Add {
                self.never_twice_by_pairs(items, &forms, key)?;
            }
            return Ok(());
        }
        let iota = Int::new_const(ctx, "#iota");
        let hits = |part: &Part, i: &Poly| -> Bool {
            Bool::and(ctx, &[&self.part_holds(part), &self.smt.int(i)._eq(&iota)])
        };
        // Every element reached.
        self.solver.push();
        self.solver.assert(&iota.ge(&Int::from_i64(ctx, 0)));
        self.solver.assert(&iota.lt(&self.smt.int(extent)));
        for (n, ((part, _), i)) in items.iter().zip(index).enumerate() {
            // Index `a·u + b` (one variable, constant a): the only iteration that can
            // reach #iota is u = (#iota - b) div a, so no quantifier is needed (Z3
            // gives up on the quantified form).
            if let Some((v, a, b)) = affine_in_one(i, &part.vars) {
                let u = Int::new_const(ctx, v.as_str());
                let at = Int::new_const(ctx, format!("#u{n}"));
                let solved =
                    Int::sub(ctx, &[&iota, &self.smt.int(&b)]).div(&Int::from_i64(ctx, a as i64));
                self.solver.assert(&at._eq(&solved));
                self.solver
                    .assert(&hits(part, i).substitute(&[(&u, &at)]).not());
                continue;
            }
            let vars: Vec<Int> = part
                .vars
                .iter()
                .map(|v| Int::new_const(ctx, v.as_str()))
                .collect();
            let bound: Vec<&dyn Ast> = vars.iter().map(|v| v as &dyn Ast).collect();
            let none = hits(part, i).not();
            self.solver.assert(&if bound.is_empty() {
                none
            } else {
                z3::ast::forall_const(ctx, &bound, &[], &none)
            });
        }
        let r = self.solver.check();
        if r != SatResult::Unsat {
            let e = self.extent_failure(r, never_reached(key, extent));
            self.solver.pop(1);
            return Err(e);
        }
        self.solver.pop(1);
        if op != Binary::Add {
            return Ok(());
        }
        // Never twice: two different (summand, iteration) pairs at one index.
        let w = Int::new_const(ctx, "#w");
        let w2 = Int::new_const(ctx, "#w'");
        let mut all_vars: Vec<String> = items.iter().flat_map(|(p, _)| p.vars.clone()).collect();
        all_vars.sort();
        all_vars.dedup();
        let vars: Vec<Int> = all_vars
            .iter()
            .map(|v| Int::new_const(ctx, v.as_str()))
            .collect();
        let primed: Vec<Int> = all_vars
            .iter()
            .map(|v| Int::new_const(ctx, format!("{v}'")))
            .collect();
        let mut first = Vec::new();
        for (n, ((part, _), i)) in items.iter().zip(index).enumerate() {
            // Variables of other loops are pinned, so they cannot differ between two
            // copies of one writer.
            let mut conj = vec![w._eq(&Int::from_i64(ctx, n as i64)), hits(part, i)];
            for (v, z) in all_vars.iter().zip(&vars) {
                if !part.vars.contains(v) {
                    conj.push(z._eq(&Int::from_i64(ctx, 0)));
                }
            }
            let refs: Vec<&Bool> = conj.iter().collect();
            first.push(Bool::and(ctx, &refs));
        }
        let refs: Vec<&Bool> = first.iter().collect();
        let first = Bool::or(ctx, &refs);
        let subst: Vec<(&Int, &Int)> = vars.iter().zip(&primed).collect();
        let second = first.substitute(&subst).substitute(&[(&w, &w2)]);
        let mut differ = vec![w._eq(&w2).not()];
        for (a, b) in vars.iter().zip(&primed) {
            differ.push(a._eq(b).not());
        }
        let refs: Vec<&Bool> = differ.iter().collect();
        self.solver.push();
        self.solver.assert(&first);
        self.solver.assert(&second);
        self.solver.assert(&Bool::or(ctx, &refs));
        let r = self.solver.check();
        let out = match r {
            SatResult::Unsat => Ok(()),
            _ => Err(self.extent_failure(r, twice(key))),
        };
        self.solver.pop(1);
        out
    }
}

fn never_reached(key: &str, extent: &Poly) -> String {
    format!(
        "the loop never reaches some element of `{key}` (it covers less than its extent {extent})"
    )
}

fn twice(key: &str) -> String {
    format!("a loop adds some element of `{key}` twice")
}
