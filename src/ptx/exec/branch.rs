//! Data-dependent control flow inside one thread: a guard or a branch on a predicate
//! that depends on the data is if-converted. Both paths run on copies of the thread's
//! private state (registers, `.local` memory, carry) up to the branch's immediate
//! post-dominator, and the two states merge as `select(c, taken, fallthrough)`.
//!
//! Invariant: only thread-private effects are merged here; an instruction other
//! threads could observe under a data-dependent condition is rejected by
//! `check_speculable` (never executed unconditionally by mistake).

use super::*;
use std::collections::BTreeMap;

/// A shared or global memory cell: a shared byte address, or a tensor and flat element.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Cell {
    Shared(u64),
    Global(usize, usize),
}

/// The contents of a [`Cell`] (`None`: never written).
#[derive(Clone, Debug)]
pub(super) enum CellVal<V> {
    Shared(Option<(Val<V>, u64)>),
    Global(Option<(V, usize)>),
}

/// The cells a path stored, each with its value from before the path.
pub(super) type Journal<V> = BTreeMap<Cell, CellVal<V>>;

/// What one side of a fork left: the thread's private state and the cells it stored.
struct Side<V> {
    private: Private<V>,
    cells: Journal<V>,
}

/// The empty contents of a cell.
fn a_or_none<V>(cell: Cell) -> CellVal<V> {
    match cell {
        Cell::Shared(_) => CellVal::Shared(None),
        Cell::Global(..) => CellVal::Global(None),
    }
}

/// The immediate post-dominator of every instruction of `entry` (`body.len()` stands
/// for the exit): iterative data flow over bit sets, fine for a few thousand
/// instructions.
pub(super) fn post_dominators(entry: &Entry) -> Vec<usize> {
    let n = entry.body.len();
    let exit = n;
    let succ = |i: usize| -> Vec<usize> {
        let ins = &entry.body[i];
        let next = i + 1;
        let guarded = ins.guard.is_some();
        match ins.op.as_str() {
            "ret" | "exit" if guarded => vec![exit, next],
            "ret" | "exit" => vec![exit],
            "brx" => {
                let mut to: Vec<usize> = match ins.operands.get(1) {
                    Some(Operand::Sym(ts)) => {
                        entry.branch_targets.get(ts).map_or(vec![exit], |ls| {
                            ls.iter()
                                .map(|l| entry.labels.get(l).copied().unwrap_or(exit))
                                .collect()
                        })
                    }
                    _ => vec![exit],
                };
                if guarded {
                    to.push(next);
                }
                to
            }
            "bra" => {
                let to = match ins.operands.first() {
                    Some(Operand::Sym(l)) => entry.labels.get(l).copied().unwrap_or(exit),
                    _ => exit,
                };
                if guarded {
                    vec![to, next]
                } else {
                    vec![to]
                }
            }
            _ => vec![next],
        }
    };
    let words = (n + 1).div_ceil(64);
    let full = vec![u64::MAX; words];
    let mut pdom: Vec<Vec<u64>> = vec![full; n + 1];
    pdom[exit] = vec![0; words];
    pdom[exit][exit / 64] |= 1 << (exit % 64);
    let succs: Vec<Vec<usize>> = (0..n)
        .map(|i| succ(i).into_iter().map(|s| s.min(exit)).collect())
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut new = vec![u64::MAX; words];
            for &s in &succs[i] {
                for (w, x) in new.iter_mut().zip(&pdom[s]) {
                    *w &= x;
                }
            }
            new[i / 64] |= 1 << (i % 64);
            if new != pdom[i] {
                pdom[i] = new;
                changed = true;
            }
        }
    }
    // How many post-dominators each instruction has (counted once, not per query).
    let counts: Vec<u32> = pdom
        .iter()
        .map(|v| v.iter().map(|w| w.count_ones()).sum())
        .collect();
    (0..n)
        .map(|i| {
            // Post-dominators form a chain: the nearest strict one has the most.
            let mut best = exit;
            let mut best_count = 0;
            for p in 0..=n {
                if p != i && pdom[i][p / 64] >> (p % 64) & 1 == 1 {
                    let c = counts[p];
                    if c > best_count {
                        best = p;
                        best_count = c;
                    }
                }
            }
            best
        })
        .collect()
}

impl<'a, D: Domain> Sim<'a, D> {
    // ----- data-dependent control flow (if-conversion within one thread) -----

    /// An instruction under a data-dependent guard `c`: a branch is if-converted; any
    /// other instruction runs as the one instruction of the taken side of a fork (its
    /// register and memory effects merged back with `select(c, new, old)`).
    pub(super) fn guarded(
        &mut self,
        t: usize,
        pc: usize,
        ins: &'a Instr,
        c: D::V,
    ) -> Result<Flow, Fail> {
        if ins.op == "bra" {
            return self.if_convert(t, pc, ins, c);
        }
        self.check_speculable(ins, "under a data-dependent guard")?;
        self.fork(
            t,
            pc,
            c,
            |sim| match sim.exec_body(t, pc, ins)? {
                Flow::Next => Ok(()),
                _ => unsupported("a data-dependent guard on control flow"),
            },
            |_| Ok(()),
        )?;
        Ok(Flow::Next)
    }

    /// Instructions that cannot run under a data-dependent condition (side effects
    /// that are not a plain store, or collectives). Stores to shared and global memory
    /// are guarded updates (see `fork`).
    pub(super) fn check_speculable(&self, ins: &Instr, what: &str) -> Result<(), Fail> {
        match ins.op.as_str() {
            "ret" | "exit" | "bar" | "barrier" | "shfl" | "vote" | "match" | "redux" | "atom"
            | "red" | "cp" | "ldmatrix" | "wgmma" => unsupported(format!(
                "`{}` {what} (line {}): only thread-private code and plain loads and \
                 stores are if-converted",
                ins.mnemonic(),
                ins.line
            )),
            _ => Ok(()),
        }
    }

    pub(super) fn private(&self, t: usize) -> Private<D::V> {
        let th = &self.threads[t];
        Private {
            regs: th.regs.clone(),
            local: th.local.clone(),
            carry: th.carry,
        }
    }

    fn set_private(&mut self, t: usize, p: Private<D::V>) {
        let th = &mut self.threads[t];
        th.regs = p.regs;
        th.local = p.local;
        th.carry = p.carry;
        th.changes += 1;
    }

    /// Runs the two paths of `@c bra L` up to the branch's immediate post-dominator
    /// and merges them (see `fork`).
    pub(super) fn if_convert(
        &mut self,
        t: usize,
        pc: usize,
        ins: &'a Instr,
        c: D::V,
    ) -> Result<Flow, Fail> {
        let Some(Operand::Sym(l)) = ins.operands.first() else {
            return fail(ErrorKind::Malformed, "expected a label");
        };
        let Some(&target) = self.entry.labels.get(l) else {
            return fail(ErrorKind::Malformed, format!("unknown label {l}"));
        };
        if target <= pc {
            return self.data_dependent_loop(pc, target);
        }
        let join = self.post_dominator(pc)?;
        if self.branch_depth >= MAX_BRANCH_DEPTH {
            return unsupported(format!(
                "data-dependent branches nested more than {MAX_BRANCH_DEPTH} deep (line {})",
                ins.line
            ));
        }
        self.branch_depth += 1;
        let res = self.fork(
            t,
            pc,
            c,
            |sim| sim.run_path(t, pc, target, join),
            |sim| sim.run_path(t, pc, pc + 1, join),
        );
        self.branch_depth -= 1;
        res?;
        Ok(Flow::Jump(join))
    }

    /// A loop whose trip count depends on the data: the data-dependent branch at `pc`
    /// leads back to `head` (directly, or through the path it starts).
    fn data_dependent_loop(&self, pc: usize, head: usize) -> Result<Flow, Fail> {
        let mut about = Vec::new();
        if let Some((l, _)) = self.entry.labels.iter().find(|(_, &at)| at == head) {
            about.push(format!("`{l}`"));
        }
        if let Some(i) = self.entry.body.get(head).filter(|i| i.loc.file.is_some()) {
            about.push(format!("source {}", i.loc));
        }
        let about = if about.is_empty() {
            String::new()
        } else {
            format!(" ({})", about.join(", "))
        };
        unsupported(format!(
            "a loop whose trip count depends on the data: the loop from line {}{about} to \
             line {} is left or repeated by the data-dependent branch at line {}; lift \
             unrolls only loops whose trip count is known for the launch",
            self.line(head),
            self.line(pc.max(head)),
            self.line(pc)
        ))
    }

    /// Runs thread `t` from `start` until it reaches `join`, on one side of the
    /// data-dependent branch at `branch`.
    fn run_path(&mut self, t: usize, branch: usize, start: usize, join: usize) -> Result<(), Fail> {
        let mut pc = start;
        while pc != join {
            let Some(ins) = self.entry.body.get(pc) else {
                return unsupported("a data-dependent branch whose paths meet only at the exit");
            };
            self.ops += 1;
            if self.ops > MAX_OPS {
                return fail(
                    ErrorKind::Limit,
                    format!("more than {MAX_OPS} instructions executed"),
                );
            }
            self.check_speculable(ins, "inside a data-dependent branch")?;
            self.at = Some(pc);
            let flow = self.exec(t, pc, ins).map_err(|(k, m)| {
                if k == ErrorKind::Unsupported && !m.contains("(line ") && !m.contains(" line ") {
                    (
                        k,
                        format!("{m} (line {}, inside a data-dependent branch)", ins.line),
                    )
                } else {
                    (k, m)
                }
            })?;
            pc = match flow {
                Flow::Next => pc + 1,
                // Back to the branch or before it: the branch is inside a loop that
                // this path repeats.
                Flow::Jump(to) if to <= branch => {
                    self.data_dependent_loop(branch, to)?;
                    to
                }
                Flow::Jump(to) => to,
                Flow::Block(_) | Flow::Exit => {
                    return unsupported(format!(
                        "`{}` inside a data-dependent branch (line {})",
                        ins.mnemonic(),
                        ins.line
                    ))
                }
            };
        }
        Ok(())
    }

    /// The immediate post-dominator of instruction `pc`.
    pub(super) fn post_dominator(&mut self, pc: usize) -> Result<usize, Fail> {
        if self.ipdom.is_none() {
            self.ipdom = Some(post_dominators(self.entry));
        }
        let n = self.entry.body.len();
        match self.ipdom.as_ref().and_then(|v| v.get(pc)) {
            Some(&j) if j < n => Ok(j),
            _ => unsupported("a data-dependent branch whose paths meet only at the exit"),
        }
    }

    /// The two sides of a data-dependent condition `c` at instruction `pc`: `taken`
    /// runs under `path && c`, `fall` under `path && !c`, each on the thread's private
    /// state and memory as they were before the fork; a side whose condition is false
    /// is skipped. Afterwards registers, `.local` memory and every shared or global cell
    /// either side stored merge as `select(c, taken, fall)`, a side that did not store
    /// a cell contributing its old value. The race log keeps each side's accesses with
    /// its condition. A cell that nobody wrote before and only one side writes is
    /// written or not depending on the data: `Unsupported`, naming it.
    pub(super) fn fork(
        &mut self,
        t: usize,
        pc: usize,
        c: D::V,
        taken: impl FnOnce(&mut Self) -> Result<(), Fail>,
        fall: impl FnOnce(&mut Self) -> Result<(), Fail>,
    ) -> Result<(), Fail> {
        let outer = self.path;
        self.at = Some(pc);
        let before = self.private(t);
        let cond_taken = self.conj(outer, Truth::Unknown(c));
        let not_c = self.domain.not(c);
        let cond_fall = self.conj(outer, not_c);
        let a = self.side(t, cond_taken, &before, taken);
        let a = match a {
            Ok(a) => a,
            Err(e) => {
                self.path = outer;
                return Err(e);
            }
        };
        let b = self.side(t, cond_fall, &before, fall);
        self.path = outer;
        let b = b?;
        self.at = Some(pc);
        match (a, b) {
            (None, None) => Ok(()),
            (Some(side), None) | (None, Some(side)) => {
                // Only one side is possible: it happens whenever the fork is reached.
                self.set_private(t, side.private);
                for (cell, v) in side.cells {
                    self.note(cell);
                    self.set_cell(cell, v);
                }
                Ok(())
            }
            (Some(a), Some(b)) => {
                self.merge(t, c, a.private, b.private)?;
                let mut cells: Vec<Cell> = a.cells.keys().chain(b.cells.keys()).copied().collect();
                cells.sort_unstable();
                cells.dedup();
                for cell in cells {
                    let old = self.cell(cell);
                    let va = a.cells.get(&cell).cloned().unwrap_or_else(|| old.clone());
                    let vb = b.cells.get(&cell).cloned().unwrap_or(old);
                    let v = self.merge_cell(c, pc, cell, va, vb)?;
                    self.note(cell);
                    self.set_cell(cell, v);
                }
                Ok(())
            }
        }
    }

    /// `outer && c` for the path condition `outer` (`None`: true).
    fn conj(&mut self, outer: Option<D::V>, c: Truth<D::V>) -> Truth<D::V> {
        match (outer, c) {
            (_, Truth::Known(false)) => Truth::Known(false),
            (None, c) => c,
            (Some(o), Truth::Known(true)) => Truth::Unknown(o),
            (Some(o), Truth::Unknown(c)) => self.domain.and(o, c),
        }
    }

    /// Runs one side of a fork under `cond` from the state `before`, and returns what
    /// it left (registers, and the cells it stored) after restoring `before` and the
    /// cells' old values. `None` if `cond` is false (the side never runs).
    fn side(
        &mut self,
        t: usize,
        cond: Truth<D::V>,
        before: &Private<D::V>,
        run: impl FnOnce(&mut Self) -> Result<(), Fail>,
    ) -> Result<Option<Side<D::V>>, Fail> {
        self.path = match cond {
            Truth::Known(false) => return Ok(None),
            Truth::Known(true) => None,
            Truth::Unknown(p) => Some(p),
        };
        self.set_private(t, before.clone());
        self.journal.push(Journal::new());
        let res = run(self);
        let journal = self.journal.pop().unwrap_or_default();
        res?;
        let private = self.private(t);
        let mut cells = Journal::new();
        for (cell, old) in journal {
            cells.insert(cell, self.cell(cell));
            self.set_cell(cell, old);
        }
        self.set_private(t, before.clone());
        Ok(Some(Side { private, cells }))
    }

    /// Before a store to `cell`: remember its old value in the innermost journal.
    pub(super) fn note(&mut self, cell: Cell) {
        if self.journal.last().is_some_and(|j| !j.contains_key(&cell)) {
            let old = self.cell(cell);
            if let Some(j) = self.journal.last_mut() {
                j.insert(cell, old);
            }
        }
    }

    fn cell(&self, cell: Cell) -> CellVal<D::V> {
        match cell {
            Cell::Shared(addr) => CellVal::Shared(self.shared.get(&addr).copied()),
            Cell::Global(i, flat) => CellVal::Global(self.global[i][flat]),
        }
    }

    fn set_cell(&mut self, cell: Cell, v: CellVal<D::V>) {
        match (cell, v) {
            (Cell::Shared(addr), CellVal::Shared(Some(x))) => {
                self.shared.insert(addr, x);
            }
            (Cell::Shared(addr), _) => {
                self.shared.remove(&addr);
            }
            (Cell::Global(i, flat), CellVal::Global(x)) => self.global[i][flat] = x,
            (Cell::Global(i, flat), _) => self.global[i][flat] = None,
        }
    }

    /// `select(c, a, b)` of one memory cell after a fork at `pc`.
    fn merge_cell(
        &mut self,
        c: D::V,
        pc: usize,
        cell: Cell,
        a: CellVal<D::V>,
        b: CellVal<D::V>,
    ) -> Result<CellVal<D::V>, Fail> {
        let partial = || {
            unsupported(format!(
                "{} is stored on only one side of the data-dependent branch at line {} and \
                 was not written before, so whether it is written depends on the data",
                self.cell_name(cell),
                self.line(pc)
            ))
        };
        match (a, b) {
            (CellVal::Shared(Some((x, sx))), CellVal::Shared(Some((y, sy)))) => {
                if sx != sy {
                    return unsupported(format!(
                        "{} is stored with {sx} bytes on one side of the data-dependent \
                         branch at line {} and {sy} on the other",
                        self.cell_name(cell),
                        self.line(pc)
                    ));
                }
                let ty = if sx == 8 { "b64" } else { "b32" };
                let v = self.merge_val(c, ty, Some(x), Some(y))?;
                Ok(CellVal::Shared(v.map(|v| (v, sx))))
            }
            (CellVal::Global(Some((x, site))), CellVal::Global(Some((y, _)))) => {
                let v = self.domain.select(c, x, y);
                Ok(CellVal::Global(Some((v, site))))
            }
            (CellVal::Shared(None), CellVal::Shared(None))
            | (CellVal::Global(None), CellVal::Global(None)) => Ok(a_or_none(cell)),
            // An unwritten element of an `inout` tensor holds its input value.
            (CellVal::Global(x), CellVal::Global(y)) if self.is_inout(cell) => {
                let (Cell::Global(i, flat), Some(site)) = (cell, x.or(y).map(|v| v.1)) else {
                    return partial();
                };
                let td = &self.inst.tensors[i];
                let index = td.unravel(flat);
                let input = self.domain.input(i, &index, flat);
                let (x, y) = (x.map_or(input, |v| v.0), y.map_or(input, |v| v.0));
                let v = self.domain.select(c, x, y);
                Ok(CellVal::Global(Some((v, site))))
            }
            _ => partial(),
        }
    }

    fn is_inout(&self, cell: Cell) -> bool {
        matches!(cell, Cell::Global(i, _) if self.inst.tensors[i].role == Role::Inout)
    }

    /// A cell for messages: `` shared `s[3]` `` or `` `y`[2, 5] ``.
    fn cell_name(&self, cell: Cell) -> String {
        match cell {
            Cell::Shared(addr) => self
                .vars
                .iter()
                .find(|v| addr >= v.addr && addr < v.addr + v.bytes)
                .map_or_else(
                    || format!("shared address {addr:#x}"),
                    |v| format!("shared `{}` byte {}", v.name, addr - v.addr),
                ),
            Cell::Global(i, flat) => {
                let td = &self.inst.tensors[i];
                format!("`{}`{:?}", td.name, td.unravel(flat))
            }
        }
    }

    /// `select(c, a, b)` of two private states, into thread `t`.
    pub(super) fn merge(
        &mut self,
        t: usize,
        c: D::V,
        a: Private<D::V>,
        b: Private<D::V>,
    ) -> Result<(), Fail> {
        let mut regs = Vec::with_capacity(a.regs.len());
        for (slot, (x, y)) in a.regs.into_iter().zip(b.regs).enumerate() {
            let ty = self.entry.regs.get(slot).map_or("b32", |r| r.1.as_str());
            regs.push(self.merge_val(c, ty, x, y)?);
        }
        let mut keys: Vec<u64> = a.local.keys().chain(b.local.keys()).copied().collect();
        keys.sort_unstable();
        keys.dedup();
        let mut local = HashMap::new();
        for k in keys {
            if let Some(v) =
                self.merge_val(c, "b32", a.local.get(&k).copied(), b.local.get(&k).copied())?
            {
                local.insert(k, v);
            }
        }
        let carry = self.merge_val(c, "b32", a.carry, b.carry)?;
        let th = &mut self.threads[t];
        th.regs = regs;
        th.local = local;
        th.carry = carry;
        th.changes += 1;
        Ok(())
    }

    pub(super) fn merge_val(
        &mut self,
        c: D::V,
        ty: &str,
        a: Option<Val<D::V>>,
        b: Option<Val<D::V>>,
    ) -> Result<Option<Val<D::V>>, Fail> {
        let (a, b) = (a.map(|v| self.settle(v)), b.map(|v| self.settle(v)));
        let (a, b) = match (a, b) {
            (None, x) | (x, None) => return Ok(x),
            (Some(a), Some(b)) if a == b => return Ok(Some(a)),
            (Some(a), Some(b)) => (a, b),
        };
        let is_bool = |v: Val<D::V>| matches!(v, Val::Pred(_) | Val::Cond(_));
        Ok(Some(if is_bool(a) || is_bool(b) || ty == "pred" {
            let ta = self.bool_value(a)?;
            let tb = self.bool_value(b)?;
            let v = self.domain.select(c, ta, tb);
            match self.domain.as_number(v) {
                Some(x) => Val::Pred(x != 0.0),
                None => Val::Cond(v),
            }
        } else if matches!(a, Val::Float(_)) || matches!(b, Val::Float(_)) {
            let fty = if width(ty) == 64 { "f64" } else { "f32" };
            let (fa, fb) = (self.float(a, fty)?, self.float(b, fty)?);
            Val::Float(self.domain.select(c, fa, fb))
        } else {
            let (sa, sb) = (self.sym_arg(a, ty)?, self.sym_arg(b, ty)?);
            Val::Sym(self.domain.select(c, sa, sb))
        }))
    }

    /// A predicate as a value of the domain (1 or 0 when decided).
    pub(super) fn bool_value(&mut self, v: Val<D::V>) -> Result<D::V, Fail> {
        Ok(match self.truth(v)? {
            Truth::Known(b) => self.domain.constant(b as u8 as f64),
            Truth::Unknown(c) => c,
        })
    }
}
