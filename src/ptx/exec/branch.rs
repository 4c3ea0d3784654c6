//! Data-dependent control flow inside one thread: a guard or a branch on a predicate
//! that depends on the data is if-converted. Both paths run on copies of the thread's
//! private state (registers, `.local` memory, carry) up to the branch's immediate
//! post-dominator, and the two states merge as `select(c, taken, fallthrough)`.
//!
//! Invariant: only thread-private effects are merged here; an instruction other
//! threads could observe under a data-dependent condition is rejected by
//! `check_speculable` (never executed unconditionally by mistake).

use super::*;

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
            "bra" | "brx" => {
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
    let count = |v: &Vec<u64>| v.iter().map(|w| w.count_ones()).sum::<u32>();
    (0..n)
        .map(|i| {
            // Post-dominators form a chain: the nearest strict one has the most.
            let mut best = exit;
            let mut best_count = 0;
            for p in 0..=n {
                if p != i && pdom[i][p / 64] >> (p % 64) & 1 == 1 {
                    let c = count(&pdom[p]);
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
    /// other instruction runs on a copy of the thread's private state, merged back
    /// with `select(c, new, old)`.
    pub(super) fn guarded(
        &mut self,
        t: usize,
        pc: usize,
        ins: &'a Instr,
        c: D::V,
    ) -> Result<Flow, Fail> {
        if matches!(ins.op.as_str(), "bra" | "brx") {
            return self.if_convert(t, pc, ins, c);
        }
        self.check_speculable(ins, "under a data-dependent guard")?;
        let old = self.private(t);
        let flow = self.exec_body(t, pc, ins)?;
        if !matches!(flow, Flow::Next) {
            return unsupported("a data-dependent guard on control flow");
        }
        let new = self.private(t);
        self.merge(t, c, new, old)?;
        Ok(Flow::Next)
    }

    /// Instructions that cannot run under a data-dependent condition (side effects
    /// other threads see, or collectives); stores to global/shared are checked in
    /// `store`.
    pub(super) fn check_speculable(&self, ins: &Instr, what: &str) -> Result<(), Fail> {
        match ins.op.as_str() {
            "ret" | "exit" | "bar" | "barrier" | "shfl" | "vote" | "match" | "redux" | "atom"
            | "red" | "cp" | "ldmatrix" => unsupported(format!(
                "`{}` {what} (line {}): only thread-private code is if-converted",
                ins.mnemonic(),
                ins.line
            )),
            "st" if Self::space_of(ins) != Some(Space::Local) => unsupported(format!(
                "a store to shared or global memory {what} (line {})",
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

    /// Runs the two paths of `@c bra L` on copies of the thread's private state up to
    /// the branch's immediate post-dominator, then merges them with `select(c, ..)`.
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
        let join = self.post_dominator(pc)?;
        if self.branch_depth >= MAX_BRANCH_DEPTH {
            return unsupported(format!(
                "data-dependent branches nested more than {MAX_BRANCH_DEPTH} deep (a loop with a data-dependent exit?)"
            ));
        }
        let saved = self.private(t);
        self.branch_depth += 1;
        let taken = self.run_path(t, target, join).map(|_| self.private(t));
        let res = taken.and_then(|taken| {
            let th = &mut self.threads[t];
            th.regs = saved.regs.clone();
            th.local = saved.local.clone();
            th.carry = saved.carry;
            self.run_path(t, pc + 1, join).map(|_| taken)
        });
        self.branch_depth -= 1;
        let taken = res?;
        let fall = self.private(t);
        self.merge(t, c, taken, fall)?;
        Ok(Flow::Jump(join))
    }

    /// Runs thread `t` from `start` until it reaches `join`.
    pub(super) fn run_path(&mut self, t: usize, start: usize, join: usize) -> Result<(), Fail> {
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
            let flow = self.exec(t, pc, ins).map_err(|(k, m)| {
                if k == ErrorKind::Unsupported && !m.contains("(line ") {
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
        Ok(())
    }

    pub(super) fn merge_val(
        &mut self,
        c: D::V,
        ty: &str,
        a: Option<Val<D::V>>,
        b: Option<Val<D::V>>,
    ) -> Result<Option<Val<D::V>>, Fail> {
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
