//! Float atomic adds (`tt.atomic_rmw fadd`, `tl.atomic_add`) for all sizes: an
//! accumulating store.
//!
//! After every program has run, an element `e` that atomic adds reach holds its initial
//! value plus every program's contribution to it, whatever order the GPU ran them in
//! (over the reals the sum is the same in every order; the verdict states that reading,
//! as the instance's does: `triton_ir::atomic_adds`). The program-id axes the address
//! does not mention (split-K's `pid_z`) are the ones whose programs all add to one
//! element: for a writer (a lane of a program with those axes at 0) the stored value is
//! `c[e] + Σ_z v(z)`, a [`Partial`] whose parts carry the axis as one more summation
//! variable (bounded by the grid), so `resolve` matches it to the formula's reduction
//! exactly as a loop's running sum: each summand decided equal to the reduction's at its
//! index, and Z3 proving those indices (over the loop's iterations and the summed
//! programs together) cover the reduction's extent once. The access is recorded as a
//! store pinned to axis value 0 (`coverage` counts one writer per element), so every
//! element is proved written by exactly one group of programs.
//!
//! Invariant: read only where the sum over the summed axes is the whole story: the atomic
//! is outside loops over sizes, its old value is never read, neither the path's
//! condition nor a lane's mask depends on a summed axis (every program along it takes
//! the same path and adds under the same mask), the tensor is `inout` (it holds the
//! caller's value first). Any other atomic kind is refused up front ([`unread`]), so the
//! all-sizes step says UNKNOWN before it spends work.

use super::guards::MaskLane;
use super::lane::{bcast, unsupported, Lane, Val, R};
use super::run::Run;
use super::summary::{Part, Partial};
use super::sym::{Cond, Poly, Rel};
use crate::exec::domain::Binary;
use crate::launch::Role;
use crate::term::TermId;
use crate::triton_ir::ast::{Attr, Module, Op, Region};
use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

/// Most programs along a summed axis whose contributions are enumerated one by one in
/// the extent check (a split-K count is a small constant).
const MAX_SUMMED: i128 = 64;

/// The first atomic op the all-sizes run does not read, as the reason it stops (said
/// before any work is spent, so no candidate constraint or forking run tries again):
/// every `tt.atomic_rmw` but `fadd`, `tt.atomic_cas`, and a float atomic add inside a
/// loop or whose old value is read.
pub(super) fn unread(module: &Module) -> Option<String> {
    let func = module.entry()?;
    let mut found = None;
    unread_in(module, &func.body, false, &mut found);
    found
}

fn unread_in(module: &Module, region: &Region, in_loop: bool, found: &mut Option<String>) {
    for op in region.blocks.iter().flat_map(|b| &b.ops) {
        if found.is_some() {
            return;
        }
        let kind = match op.name.as_str() {
            "tt.atomic_rmw" => op.attr("atomic_rmw_op").and_then(Attr::as_str),
            "tt.atomic_cas" => Some("cas"),
            _ => None,
        };
        let why = match kind {
            None => None,
            Some("fadd") if in_loop => Some("a float atomic add inside a loop"),
            Some("fadd") if result_read(module, op) => Some(
                "a float atomic add whose old value is read (it depends on the programs' order)",
            ),
            Some("fadd") => None,
            Some(_) => Some("not read for all sizes yet"),
        };
        if let Some(why) = why {
            *found = Some(format!(
                "`{} {}` at .ttir line {} ({}): {why} (proved on the instance only)",
                op.name,
                kind.unwrap_or(""),
                op.line,
                op.loc
            ));
            return;
        }
        let looped = in_loop || matches!(op.name.as_str(), "scf.for" | "scf.while");
        for r in &op.regions {
            unread_in(module, r, looped, found);
        }
    }
}

fn visit(region: &Region, f: &mut impl FnMut(&Op)) {
    for block in &region.blocks {
        for op in &block.ops {
            f(op);
            for r in &op.regions {
                visit(r, f);
            }
        }
    }
}

/// Whether a later op (or branch) reads a result of `op`.
fn result_read(module: &Module, op: &Op) -> bool {
    let Some(func) = module.entry() else {
        return false;
    };
    let mut read = false;
    visit(&func.body, &mut |o| {
        let uses = o
            .operands
            .iter()
            .chain(o.successors.iter().flat_map(|s| &s.args));
        read |= uses.into_iter().any(|u| op.results.contains(u));
    });
    read
}

/// The condition that pins program-id symbol `pid` to 0: an atomic add's stand-in
/// writer for the programs along a summed axis.
fn pin(pid: &Poly) -> Cond {
    Cond::cmp(Rel::Eq, pid, &Poly::default())
}

/// Whether a store's `guard` pins program-id axis `name` to 0 (see the module doc):
/// `coverage` reads such an axis as no writer variable of the store.
pub(super) fn pinned_axis(guard: &[Cond], name: &str) -> bool {
    guard.contains(&pin(&Poly::sym(name)))
}

/// `conds` with each program-id axis of `pids` that `guard` pins (see [`pinned_axis`])
/// replaced by 0: no query may read such an axis as free.
pub(super) fn at_pinned_axes(guard: &[Cond], pids: &[&str], conds: Vec<Cond>) -> Vec<Cond> {
    let map: BTreeMap<Arc<str>, i128> = pids
        .iter()
        .filter(|n| pinned_axis(guard, n))
        .map(|n| (Arc::from(*n), 0))
        .collect();
    if map.is_empty() {
        return conds;
    }
    conds.iter().map(|c| subst(c, &map)).collect()
}

fn mentions(c: &Cond, name: &str) -> bool {
    let mut s = Vec::new();
    c.symbols(&mut s);
    s.iter().any(|x| &**x == name)
}

impl Run<'_, '_, '_> {
    /// `tt.atomic_rmw fadd` as an accumulating store (see the module doc).
    pub(super) fn atomic_update(&mut self, op: &Op, args: &[Rc<Val>]) -> R<Val> {
        let kind = op
            .attr("atomic_rmw_op")
            .and_then(Attr::as_str)
            .unwrap_or("");
        if kind != "fadd" {
            return unsupported(format!(
                "tt.atomic_rmw {kind} is not read for all sizes yet"
            ));
        }
        if self.probing || !self.loops.is_empty() {
            return unsupported("a float atomic add inside a loop over sizes");
        }
        if result_read(self.module, op) {
            return unsupported(
                "a float atomic add whose old value is read (it depends on the programs' order)",
            );
        }
        let (Some(ptrs), Some(vals)) = (args.first(), args.get(1)) else {
            return unsupported("an atomic add without pointer or value");
        };
        let vals = bcast(vals, &ptrs.shape)?;
        let on = self.mask_lanes(args.get(2), &ptrs.shape)?;
        // The axes along which every program adds to the same elements.
        let mut summed: Vec<(Arc<str>, Poly)> = Vec::new();
        for a in 0..3 {
            let Some(name) = self.setup.pids[a].as_sym() else {
                continue;
            };
            let in_address = ptrs.lanes.iter().zip(&on).any(|(l, m)| {
                let mut s = Vec::new();
                if let (Lane::Ptr { off, .. }, false) = (l, matches!(m, MaskLane::Off)) {
                    off.symbols(&mut s);
                }
                s.iter().any(|x| &**x == name)
            });
            if !in_address {
                summed.push((Arc::from(name), self.setup.grid[a].clone()));
            }
        }
        for (name, _) in &summed {
            let on_path = self.path.cond.iter().any(|c| mentions(c, name));
            let in_mask = on.iter().any(|m| match m {
                MaskLane::Guard(c) => mentions(c, name),
                _ => false,
            });
            if on_path || in_mask {
                return unsupported(format!(
                    "an atomic add whose programs along `{name}` (which add to one element) take different paths or masks"
                ));
            }
        }
        let mut lanes = Vec::with_capacity(ptrs.lanes.len());
        for (i, p) in ptrs.lanes.iter().enumerate() {
            if matches!(on[i], MaskLane::Off) {
                lanes.push(Lane::Undef);
                continue;
            }
            let Lane::Ptr { tensor, off } = p else {
                return unsupported("an atomic add through a non-pointer");
            };
            let t = &self.setup.tensors[*tensor];
            if t.role != Role::Inout {
                return unsupported(format!(
                    "an atomic add into `{}`, which the launch does not declare inout (it must hold the caller's value first)",
                    t.name
                ));
            }
            let name = t.name.clone();
            let guarded = match &on[i] {
                MaskLane::Guard(c) => {
                    self.assume_lane(&c.clone());
                    true
                }
                _ => false,
            };
            let index = self.index_of(*tensor, off, op);
            if guarded {
                self.unassume_lane();
            }
            self.stop_if_escaped(&index)?;
            let Some(idx) = index else {
                return unsupported(format!(
                    "an atomic add into `{name}` at an offset that is no index"
                ));
            };
            let v = match &vals.lanes[i] {
                Lane::Float(v) => *v,
                Lane::Undef => {
                    return unsupported(
                        "a masked-off lane (loaded without other=) is added atomically",
                    )
                }
                _ => return unsupported("an atomic add of a non-float value"),
            };
            let init = super::at_index::input_atom(self.domain.terms, &mut self.atoms, &name, &idx);
            let total = if summed.is_empty() {
                v
            } else {
                self.summed_over(v, &summed)?
            };
            lanes.push(Lane::Float(self.domain.terms.add(init, total)));
        }
        let from = self.path.stores.len();
        let mut store = vec![
            ptrs.clone(),
            Rc::new(Val {
                shape: ptrs.shape.clone(),
                lanes,
            }),
        ];
        store.extend(args.get(2).cloned());
        self.store(op, &store)?;
        let pins: Vec<Cond> = summed.iter().map(|(n, _)| pin(&Poly::sym(n))).collect();
        for st in &mut self.path.stores[from..] {
            st.guard.extend(pins.iter().cloned());
        }
        // The old values are never read (checked above).
        Ok(Val::splat(Lane::Undef, &ptrs.shape))
    }

    /// `Σ v` over the programs along the `summed` axes: a partial whose parts are `v`'s
    /// own (a loop's running sum, its summands) or `v`'s other summands, each with the
    /// axes as summation variables bounded by the grid.
    fn summed_over(&mut self, v: TermId, summed: &[(Arc<str>, Poly)]) -> R<TermId> {
        let zero = self.domain.terms.zero();
        let kids = match self.domain.terms.node(v) {
            crate::term::Node::Add(k) => k.to_vec(),
            _ => vec![v],
        };
        let mut vars: Vec<String> = Vec::new();
        let mut bounds: Vec<Cond> = Vec::new();
        for (name, grid) in summed {
            let pid = Poly::sym(name);
            vars.push(name.to_string());
            bounds.push(Cond::cmp(Rel::Le, &Poly::default(), &pid));
            bounds.push(Cond::cmp(Rel::Lt, &pid, grid));
        }
        let mut parts = Vec::new();
        for k in kids {
            if k == zero {
                continue;
            }
            let mine = self.partials.get(&k).map(|p| (p.combine, p.parts.clone()));
            let mut own = match mine {
                Some((Binary::Add, parts)) => parts,
                Some(_) => return unsupported("an atomic add of a running max or min"),
                None if self.mentions(k).1 => {
                    return unsupported("an atomic add of a value that combines loop results")
                }
                None => vec![Part {
                    vars: Vec::new(),
                    cond: Vec::new(),
                    summands: vec![k],
                }],
            };
            for part in &mut own {
                part.vars.extend(vars.iter().cloned());
                part.cond.extend(bounds.iter().cloned());
            }
            parts.extend(own);
        }
        let n = self.partials.len();
        let q = self.domain.terms.carried_param(&format!("atomic{n}"));
        self.partials.insert(
            q,
            Partial {
                combine: Binary::Add,
                parts,
            },
        );
        Ok(q)
    }
}

/// A reduction's summands (each with its part) and their indices.
pub(super) type Summands = (Vec<(Part, TermId)>, Vec<Poly>);

/// The summands of a reduction with each summed program axis (a part's variable beside
/// another, bounded by constants in its conditions) replaced by each of its values in
/// turn, so every part has at most one variable and the division-free extent queries
/// apply (`extent.rs`); `None` when no part has such an axis.
pub(super) fn enumerate_program_axes(items: &[(Part, TermId)], index: &[Poly]) -> Option<Summands> {
    let is_pid = |v: &str| matches!(v, "pid_x" | "pid_y" | "pid_z");
    if !items
        .iter()
        .any(|(p, _)| p.vars.len() > 1 && p.vars.iter().any(|v| is_pid(v)))
    {
        return None;
    }
    let mut out_items = Vec::new();
    let mut out_index = Vec::new();
    for ((part, s), i) in items.iter().zip(index) {
        let mut todo = vec![(part.clone(), i.clone())];
        while let Some(at) = todo.iter().position(|(p, _)| p.vars.len() > 1) {
            let Some(var) = todo[at].0.vars.iter().find(|v| is_pid(v)).cloned() else {
                break;
            };
            let (p, i) = todo.remove(at);
            let values = bounded_values(&p.cond, &var)?;
            for value in values {
                let map: BTreeMap<Arc<str>, i128> = [(Arc::from(var.as_str()), value)].into();
                let part = Part {
                    vars: p.vars.iter().filter(|v| **v != var).cloned().collect(),
                    cond: p.cond.iter().map(|c| subst(c, &map)).collect(),
                    summands: p.summands.clone(),
                };
                todo.push((part, i.subst(&map)));
            }
        }
        for (p, i) in todo {
            out_items.push((p, *s));
            out_index.push(i);
        }
    }
    Some((out_items, out_index))
}

/// The values of `var` the conditions allow, when they bound it to `0 <= var < G` with
/// a constant `G` of at most [`MAX_SUMMED`] (the bounds [`Run::summed_over`] gives a
/// summed axis), each value checked against the conditions that mention `var` alone.
fn bounded_values(conds: &[Cond], var: &str) -> Option<Vec<i128>> {
    let v = Poly::sym(var);
    if !conds.contains(&Cond::cmp(Rel::Le, &Poly::default(), &v)) {
        return None;
    }
    let g = conds.iter().find_map(|c| match c {
        Cond::Cmp(Rel::Lt, p) => p.sub(&v).as_const().map(|c| -c),
        _ => None,
    })?;
    if !(1..=MAX_SUMMED).contains(&g) {
        return None;
    }
    let own: Vec<&Cond> = conds
        .iter()
        .filter(|c| {
            let mut s = Vec::new();
            c.symbols(&mut s);
            !s.is_empty() && s.iter().all(|x| &**x == var)
        })
        .collect();
    let holds = |x: i128| {
        let map: BTreeMap<Arc<str>, i128> = [(Arc::from(var), x)].into();
        own.iter().all(|c| c.eval(&map) == Some(true))
    };
    Some((0..g).filter(|&x| holds(x)).collect())
}

/// `c` with the symbols of `map` replaced by their values.
fn subst(c: &Cond, map: &BTreeMap<Arc<str>, i128>) -> Cond {
    match c {
        Cond::Const(b) => Cond::Const(*b),
        Cond::Cmp(rel, p) => Cond::cmp(*rel, &p.subst(map), &Poly::default()),
        Cond::Not(c) => subst(c, map).not(),
        Cond::And(cs) => cs
            .iter()
            .fold(Cond::Const(true), |a, c| Cond::and(a, subst(c, map))),
        Cond::Or(cs) => cs
            .iter()
            .fold(Cond::Const(false), |a, c| Cond::or(a, subst(c, map))),
    }
}
