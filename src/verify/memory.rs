//! `tt.load` and `tt.store` for all sizes: mask lanes decided or kept as guards, each
//! access's offset decomposed into an index proved within its tensor, loaded elements
//! named by index, stored values resolved to formula terms.
//!
//! Invariant: an access is recorded with an index only where the path proves it in
//! bounds; otherwise a failure is recorded, with sizes where it escapes if Z3 finds
//! them.

use super::guards::MaskLane;
use super::lane::{bcast, small_witness, unsupported, Lane, Val, R};
use super::records::{Access, Failure};
use super::run::Run;
use super::sym::{Cond, Poly, Rel};
use crate::exec::domain::Domain;
use crate::launch::Role;
use crate::term::TermId;
use crate::triton_ir::ast::Op;
use std::collections::{BTreeMap, HashMap};
use std::rc::Rc;
use std::sync::Arc;

impl Run<'_, '_, '_> {
    /// The row-major index of flat offset `off` in `tensor`, each coordinate proved
    /// within its axis on this path (so the access is in bounds). Otherwise records a
    /// failure, with sizes where the access leaves the tensor when Z3 finds them.
    pub(super) fn index_of(&mut self, tensor: usize, off: &Poly, op: &Op) -> Option<Vec<Poly>> {
        let t = &self.setup.tensors[tensor];
        let zero = Poly::default();
        // A lower bound that the form shows (sizes and program ids are non-negative in
        // the base) needs no query.
        let within = |run: &Self, x: &Poly, d: &Poly| {
            (x.nonneg_over(&|s| run.nonneg_sym(s)) || run.holds(&Cond::cmp(Rel::Le, &zero, x)))
                && run.holds(&Cond::cmp(Rel::Lt, x, d))
        };
        let mut rest = off.clone();
        let mut idx = Vec::with_capacity(t.shape.len());
        let mut ok = true;
        for (k, d) in t.shape.iter().enumerate().rev() {
            if k == 0 {
                ok &= within(self, &rest, d);
                idx.push(rest.clone());
                break;
            }
            // A size the path pins (`N == 8`) divides as its value.
            let split = match rest.split_by(d) {
                Some((q, r)) if within(self, &r, d) => Some((q, r)),
                _ => self
                    .pinned(d)
                    .and_then(|c| rest.split_by(&Poly::constant(c)))
                    .filter(|(_, r)| within(self, r, d)),
            };
            match split {
                Some((q, r)) => {
                    idx.push(r);
                    rest = q;
                }
                None => {
                    ok = false;
                    break;
                }
            }
        }
        if t.shape.is_empty() {
            ok = off.as_const() == Some(0);
        }
        if ok {
            idx.reverse();
            return Some(idx);
        }
        // In bounds after all (an index we cannot name), or a real escape?
        let numel = t.numel();
        let inside = Cond::and(
            Cond::cmp(Rel::Le, &zero, off),
            Cond::cmp(Rel::Lt, off, &numel),
        );
        self.solver.push();
        self.solver.assert(&self.smt.cond(&inside).not());
        let witness = small_witness(&self.solver, self.smt, self.setup.sizes);
        let escapes = witness.is_some();
        self.solver.pop(1);
        let message = if escapes {
            format!("`{}` at offset {off} may lie outside the tensor", t.name)
        } else {
            format!(
                "`{}` at offset {off} does not decompose into an index",
                t.name
            )
        };
        self.path.failures.push(Failure {
            message,
            line: op.line,
            loc: op.loc.clone(),
            witness,
        });
        None
    }

    /// Ends the run once an access is shown to leave its tensor at some sizes: that is
    /// the finding ([`explore`] reports it), and the rest of the path adds nothing.
    pub(super) fn stop_if_escaped(&self, index: &Option<Vec<Poly>>) -> R<()> {
        if index.is_none()
            && self
                .path
                .failures
                .last()
                .is_some_and(|f| f.witness.is_some())
        {
            return unsupported("an access leaves its tensor");
        }
        Ok(())
    }

    pub(super) fn mask_lanes(
        &mut self,
        mask: Option<&Rc<Val>>,
        shape: &[usize],
    ) -> R<Vec<MaskLane>> {
        let n: usize = shape.iter().product();
        let Some(m) = mask else {
            return Ok(vec![MaskLane::On; n]);
        };
        let m = bcast(m, shape)?;
        let mut on = Vec::with_capacity(n);
        // The solver's context is the same for every lane of one mask: conditions
        // settled for one lane (a tile row's, a K column's) hold for the others.
        self.lane_known = Some(HashMap::new());
        for l in &m.lanes {
            let lane = match l {
                Lane::Bool(c) => self.mask_lane(c),
                _ => unsupported("a mask that depends on the data"),
            };
            match lane {
                Ok(lane) => on.push(lane),
                Err(e) => {
                    self.lane_known = None;
                    return Err(e);
                }
            }
        }
        self.lane_known = None;
        Ok(on)
    }

    pub(super) fn load(&mut self, op: &Op, args: &[Rc<Val>]) -> R<Val> {
        let Some(ptrs) = args.first() else {
            return unsupported("load without a pointer");
        };
        let on = self.mask_lanes(args.get(1), &ptrs.shape)?;
        let other = match args.get(2) {
            Some(o) => Some(bcast(o, &ptrs.shape)?),
            None => None,
        };
        let mut lanes = Vec::with_capacity(on.len());
        for (i, p) in ptrs.lanes.iter().enumerate() {
            let other_lane = || match &other {
                Some(o) => o.lanes[i].clone(),
                None => Lane::Undef,
            };
            let guard = match &on[i] {
                MaskLane::Off => {
                    lanes.push(other_lane());
                    continue;
                }
                MaskLane::On => None,
                MaskLane::Guard(c) => Some(c.clone()),
            };
            let Lane::Ptr { tensor, off } = p else {
                return unsupported("load through a non-pointer");
            };
            let off = &self.settle_label_offset(off)?;
            let t = &self.setup.tensors[*tensor];
            // An integer element (a label, an index) is integer data at least its
            // dtype's least value, as the bounded run reads it (`exec`'s `loaded`).
            let int_low = (t.dtype != crate::launch::Dtype::Bool)
                .then(|| t.dtype.int_range().map(|r| r.0))
                .flatten();
            if self.probing {
                let probe = self.domain.terms.param(&format!("probe@{off}"));
                lanes.push(match int_low {
                    Some(lo) => Lane::DataInt(probe, lo),
                    None => Lane::Float(probe),
                });
                continue;
            }
            if t.role != Role::In {
                return unsupported(format!(
                    "a load from `{}`, which the kernel writes (memory is not modelled for all sizes yet)",
                    t.name
                ));
            }
            let name = t.name.clone();
            // A guarded lane is read only where its mask holds.
            if let Some(c) = &guard {
                self.assume_lane(c);
            }
            let index = self.index_of(*tensor, off, op);
            if guard.is_some() {
                self.unassume_lane();
            }
            self.stop_if_escaped(&index)?;
            // A label (an integer input with declared values) is a symbol of its own.
            let label = match (&index, &guard) {
                (Some(idx), None) => self.read_label(&name, idx),
                _ => None,
            };
            if let Some(lane) = label {
                lanes.push(lane?);
                self.path.loads.push(Access {
                    tensor: *tensor,
                    off: off.clone(),
                    line: op.line,
                    loc: op.loc.clone(),
                    value: None,
                    index,
                    vars: Vec::new(),
                    guard: Vec::new(),
                });
                continue;
            }
            let atom = match &index {
                Some(idx) => {
                    super::at_index::input_atom(self.domain.terms, &mut self.atoms, &name, idx)
                }
                None => self.domain.terms.param(&format!("{name}@({off})")),
            };
            self.path.loads.push(Access {
                tensor: *tensor,
                off: off.clone(),
                line: op.line,
                loc: op.loc.clone(),
                value: None,
                index,
                vars: Vec::new(),
                guard: guard.iter().cloned().collect(),
            });
            lanes.push(match (guard, int_low) {
                (None, Some(lo)) => Lane::DataInt(atom, lo),
                (Some(_), Some(_)) => {
                    return unsupported("a lazily masked load of an integer tensor")
                }
                (None, None) => Lane::Float(atom),
                (Some(c), None) => match other_lane() {
                    Lane::Float(o) => {
                        let g = self.guard(&c);
                        Lane::Float(self.domain.terms.select(g, atom, o))
                    }
                    // Without `other=` a masked-off lane is undefined: an opaque value
                    // that may be NaN or infinite (`log` of a fresh real), so no fold
                    // discards it and no stored element that reads it is proved.
                    Lane::Undef => {
                        let u = self
                            .domain
                            .terms
                            .param(&format!("undefined:{name}@({off})"));
                        let u = self.domain.terms.call(crate::term::Func::Log, u);
                        let g = self.guard(&c);
                        Lane::Float(self.domain.terms.select(g, atom, u))
                    }
                    _ => return unsupported("a lazily masked load without a float other="),
                },
            });
        }
        Ok(Val {
            shape: ptrs.shape.clone(),
            lanes,
        })
    }

    /// An integer lane with a known value, or a data-dependent one, as (real, least value).
    /// An integer over sizes or iterations (a loop's index picked by the data, as in a
    /// running argmax) is its real [`super::at_index::real_of`], least value 0 where the
    /// path proves it non-negative (else unbounded below).
    pub(super) fn data_int(&mut self, l: &Lane) -> Option<(TermId, i128)> {
        match l {
            Lane::Int(p) => match p.as_const().or_else(|| self.pinned(p)) {
                Some(c) => Some((self.domain.constant(c as f64), c)),
                None => {
                    let lo = if self.holds(&Cond::cmp(Rel::Le, &Poly::default(), p)) {
                        0
                    } else {
                        i128::MIN
                    };
                    Some((super::at_index::real_of(self.domain.terms, p), lo))
                }
            },
            Lane::DataInt(v, lo) => Some((*v, *lo)),
            _ => None,
        }
    }

    pub(super) fn store(&mut self, op: &Op, args: &[Rc<Val>]) -> R<()> {
        let (Some(ptrs), Some(vals)) = (args.first(), args.get(1)) else {
            return unsupported("store without pointer or value");
        };
        if self.probing {
            return Ok(());
        }
        let vals = bcast(vals, &ptrs.shape)?;
        let on = self.mask_lanes(args.get(2), &ptrs.shape)?;
        // Guarded lanes are matched like partials (a reduction within one block).
        self.store_pinned = if self.partials.is_empty() && self.guards.is_empty() {
            BTreeMap::new()
        } else {
            self.setup
                .sizes
                .iter()
                .filter_map(|s| Some((Arc::from(s.as_str()), self.pinned(&Poly::sym(s))?)))
                .collect()
        };
        // Resolutions are claims under the solver's context, which is the same for
        // consecutive lanes with one guard; so they share a memo.
        let mut memo: (Option<Cond>, HashMap<TermId, TermId>) = (None, HashMap::new());
        self.at_memo.clear();
        for (i, p) in ptrs.lanes.iter().enumerate() {
            let lane_guard = match &on[i] {
                MaskLane::Off => continue,
                MaskLane::On => None,
                MaskLane::Guard(c) => Some(c.clone()),
            };
            let Lane::Ptr { tensor, off } = p else {
                return unsupported("store through a non-pointer");
            };
            // A guarded lane is written (and its value read) only where its mask holds.
            if let Some(c) = &lane_guard {
                self.assume_lane(c);
            }
            self.store_guard = lane_guard.clone();
            if memo.0 != lane_guard {
                memo = (lane_guard.clone(), HashMap::new());
                self.at_memo.clear();
            }
            let value = match &vals.lanes[i] {
                Lane::Float(v) | Lane::DataInt(v, _) => {
                    let v = self.settle_known_guards(*v);
                    self.resolve(v, &mut memo.1).and_then(|v| self.settle(v))
                }
                Lane::Undef => unsupported("a masked-off lane (loaded without other=) is stored"),
                _ => unsupported("a store of a non-float value"),
            };
            let index = value.is_ok().then(|| self.index_of(*tensor, off, op));
            self.store_guard = None;
            if lane_guard.is_some() {
                self.unassume_lane();
            }
            let (value, index) = (value?, index.flatten());
            self.stop_if_escaped(&index)?;
            let (vars, mut guard) = self.loop_guard();
            guard.extend(lane_guard);
            self.path.stores.push(Access {
                tensor: *tensor,
                off: off.clone(),
                line: op.line,
                loc: op.loc.clone(),
                value: Some(value),
                index,
                vars,
                guard,
            });
        }
        Ok(())
    }
}
