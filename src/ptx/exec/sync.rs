//! Synchronisation: CTA barriers (`bar.sync`), warp barriers (`bar.warp.sync`) with
//! vector clocks over the lanes of a warp, warp collectives (`shfl`, `vote`, `match`,
//! `redux`, `ldmatrix`; `mma.sync` is in `mma`) and deadlock reports.
//!
//! Invariant: a group is released only when every lane of its mask waits at the same
//! instruction with the same mask; a barrier that can never complete is a `Deadlock`
//! naming a thread that does not arrive. Warp-synchronous execution is never assumed.

use super::*;

impl<'a, D: Domain> Sim<'a, D> {
    pub(super) fn lane_mask(&mut self, t: usize, op: Option<&Operand>) -> Result<u32, Fail> {
        let m = match op {
            Some(o) => match self.read(t, o, "b32")? {
                Val::Bits(b) => b as u32,
                _ => return fail(ErrorKind::Malformed, "a lane mask must be an integer"),
            },
            None => u32::MAX,
        };
        // Lanes beyond the CTA's last thread do not exist.
        let warp = self.threads[t].warp;
        let lanes = (self.threads.len() - warp * 32).min(32);
        let exist = if lanes >= 32 {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        if m & (1 << self.threads[t].lane) == 0 {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "lane {} is not in its own lane mask {m:#x}",
                    self.threads[t].lane
                ),
            );
        }
        Ok(m & exist)
    }

    pub(super) fn barrier(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<Flow, Fail> {
        let ops = &ins.operands;
        if ins.has("warp") {
            let mask = self.lane_mask(t, ops.first())?;
            return Ok(Flow::Block(State::WarpSync(pc, mask)));
        }
        // `bar.red.{popc.u32,and.pred,or.pred} d, a{, b}, {!}c` (`__syncthreads_count`,
        // `_and`, `_or`): a barrier whose result is computed at its release
        // (`reduce_barrier`); its operands are shifted by the destination.
        let red = ins.has("red");
        if red && !["popc", "and", "or"].iter().any(|m| ins.has(m)) {
            return unsupported(format!("barrier reduction {}", ins.mnemonic()));
        }
        let arrive = ins.has("arrive");
        if !(red || arrive || ins.has("sync") || ins.mods.is_empty() || ins.has("aligned")) {
            return unsupported(
                "only bar.sync / bar.arrive / barrier.sync / bar.red / bar.warp.sync barriers",
            );
        }
        let ops = if red {
            if ops.len() < 3 {
                return fail(ErrorKind::Malformed, "bar.red needs d, a and a predicate");
            }
            // The destination and the predicate are read at the release.
            &ops[1..ops.len() - 1]
        } else {
            &ops[..]
        };
        let id = match ops.first() {
            Some(o) => {
                let v = self.read(t, o, "u32")?;
                self.int(v, "u32")? as i64
            }
            None => 0,
        };
        if !(0..16).contains(&id) {
            return fail(
                ErrorKind::Malformed,
                format!("barrier id {id} (expected 0 to 15)"),
            );
        }
        let n = self.threads.len();
        let count = match ops.get(1) {
            Some(o) => {
                let v = self.read(t, o, "u32")?;
                self.int(v, "u32")? as usize
            }
            None => n,
        };
        // A barrier for part of the CTA counts threads in whole warps.
        if count == 0 || count > n.div_ceil(32) * 32 || (count != n && count % 32 != 0) {
            return fail(
                ErrorKind::Malformed,
                format!("a barrier for {count} threads (a multiple of 32, at most the CTA's {n})"),
            );
        }
        if red && count != n {
            return unsupported(format!(
                "{} for {count} of the CTA's {n} threads",
                ins.mnemonic()
            ));
        }
        if arrive {
            if count == n {
                return unsupported("bar.arrive on a barrier of the whole CTA");
            }
            // The arrival releases this thread's accesses to the waiters; it runs on.
            self.synced = true;
            let vc = self.threads[t].vc.clone();
            self.threads[t].vc.tick(t);
            let e = self.named.entry(id).or_default();
            e.0 += 1;
            e.1.join(&vc);
            return Ok(Flow::Next);
        }
        Ok(Flow::Block(State::Barrier(pc, id, count)))
    }

    /// Release complete warp barriers and warp collectives; true if any was released.
    pub(super) fn release_warps(&mut self) -> Result<bool, ExecError> {
        let nwarps = self.threads.len().div_ceil(32);
        let mut any = false;
        for w in 0..nwarps {
            let lanes: Vec<usize> = (w * 32..((w + 1) * 32).min(self.threads.len())).collect();
            for &t in &lanes {
                let (mask, collective, pc) = match self.threads[t].state {
                    State::WarpSync(pc, m) => (m, false, pc),
                    State::Collective(pc, m) => (m, true, pc),
                    _ => continue,
                };
                let group: Vec<usize> = lanes
                    .iter()
                    .copied()
                    .filter(|&u| mask & (1 << self.threads[u].lane) != 0)
                    .collect();
                let complete = group.iter().all(|&u| match self.threads[u].state {
                    State::WarpSync(_, m) if !collective => m == mask,
                    State::Collective(_, m) if collective => m == mask,
                    _ => false,
                });
                if !complete {
                    continue;
                }
                if collective {
                    self.collective(&group)
                        .map_err(|(k, m)| self.err_at(t, pc, k, m))?;
                } else {
                    // Vector clocks: join over the group, then each lane ticks.
                    let mut joined = VClock::default();
                    for &u in &group {
                        joined.join(&self.threads[u].vc);
                    }
                    for &u in &group {
                        let th = &mut self.threads[u];
                        th.vc = joined.clone();
                        th.vc.tick(u);
                    }
                }
                // Lanes leaving a warp barrier or collective together are converged:
                // from here on they run the same warp instructions (`race::same_store`).
                let trace = self.threads[group[0]].trace;
                for &u in &group {
                    let th = &mut self.threads[u];
                    th.state = State::Ready;
                    th.pc += 1;
                    th.trace = trace;
                }
                any = true;
            }
        }
        Ok(any)
    }

    /// Release the barriers for part of the CTA (`bar.sync id, count` with fewer
    /// threads than the CTA's) that `count` threads reached, waiting or by
    /// `bar.arrive`: the waiters join every participant's clock. True if any was.
    pub(super) fn release_named(&mut self) -> Result<bool, ExecError> {
        let n = self.threads.len();
        let mut waiting: BTreeMap<i64, (usize, Vec<usize>)> = BTreeMap::new();
        for (t, th) in self.threads.iter().enumerate() {
            if let State::Barrier(_, id, count) = th.state {
                if count < n {
                    let e = waiting.entry(id).or_insert((count, Vec::new()));
                    if e.0 != count {
                        return Err(self.deadlock(
                            format!("threads wait at barrier {id} with different thread counts ({} and {count})", e.0),
                            t,
                            match th.state { State::Barrier(pc, ..) => pc, _ => 0 },
                        ));
                    }
                    e.1.push(t);
                }
            }
        }
        let mut any = false;
        for (id, (count, ts)) in waiting {
            let (arrived, avc) = self.named.get(&id).cloned().unwrap_or_default();
            if ts.len() + arrived < count {
                continue;
            }
            if ts.len() + arrived > count {
                let t = ts[0];
                let pc = match self.threads[t].state {
                    State::Barrier(pc, ..) => pc,
                    _ => 0,
                };
                return Err(self.deadlock(
                    format!(
                        "{} threads reach barrier {id}, which is for {count} (undefined behaviour)",
                        ts.len() + arrived
                    ),
                    t,
                    pc,
                ));
            }
            self.synced = true;
            self.named.remove(&id);
            let mut joined = avc;
            for &u in &ts {
                joined.join(&self.threads[u].vc);
            }
            for &u in &ts {
                let th = &mut self.threads[u];
                th.vc = joined.clone();
                th.vc.tick(u);
                th.state = State::Ready;
                th.pc += 1;
            }
            any = true;
        }
        Ok(any)
    }

    pub(super) fn release_barrier(&mut self) -> Result<(), ExecError> {
        let mut at: Option<(usize, usize, i64)> = None;
        for (t, th) in self.threads.iter().enumerate() {
            if let State::Barrier(pc, id, _) = th.state {
                // `bar.sync` and `barrier.sync.aligned` must be one instruction for the
                // whole CTA; plain `barrier.sync` may be reached at different ones.
                let aligned = |pc: usize| {
                    let ins = &self.entry.body[pc];
                    ins.op == "bar" || ins.has("aligned")
                };
                match at {
                    None => at = Some((t, pc, id)),
                    Some((t0, pc0, id0))
                        if id0 != id || (pc0 != pc && (aligned(pc0) || aligned(pc))) =>
                    {
                        return Err(self.deadlock(format!(
                            "threads wait at different barriers: thread {:?} at line {} and thread {:?} at line {}",
                            self.threads[t0].tid,
                            self.line(pc0),
                            th.tid,
                            self.line(pc)
                        ), t, pc));
                    }
                    _ => {}
                }
            }
        }
        let Some((t0, pc0, _)) = at else {
            // Nobody at a CTA barrier: some warp barrier or collective cannot complete.
            let (t, pc) = self
                .threads
                .iter()
                .enumerate()
                .find_map(|(t, th)| match th.state {
                    State::WarpSync(pc, _) | State::Collective(pc, _) => Some((t, pc)),
                    _ => None,
                })
                .unwrap_or((0, 0));
            let missing = self.missing_lanes(t);
            return Err(self.deadlock(
                format!(
                    "a warp barrier or collective of thread {:?} can never complete ({missing})",
                    self.threads[t].tid
                ),
                t,
                pc,
            ));
        };
        if let Some((t, th)) = self
            .threads
            .iter()
            .enumerate()
            .find(|(_, th)| !matches!(th.state, State::Barrier(..)))
        {
            let what = match th.state {
                State::Done => "has returned".to_string(),
                State::WarpSync(pc, _) | State::Collective(pc, _) => {
                    format!(
                        "waits at a warp barrier or collective at line {}",
                        self.line(pc)
                    )
                }
                _ => "never arrives".to_string(),
            };
            let _ = t;
            return Err(self.deadlock(
                format!(
                    "barrier at line {} is never reached by every thread: thread {:?} {what}",
                    self.line(pc0),
                    th.tid
                ),
                t0,
                pc0,
            ));
        }
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        if self.entry.body[pc0].has("red") {
            self.reduce_barrier(pc0)
                .map_err(|(kind, m)| self.err_at(t0, pc0, kind, m))?;
        }
        self.epoch += 1;
        // Clocks carry what the barrier orders to later mbarrier and partial-barrier
        // synchronisation (the epoch alone orders only the accesses logged before it).
        let joined = self.synced.then(|| {
            let mut j = VClock::default();
            for th in &self.threads {
                j.join(&th.vc);
            }
            j
        });
        for (u, th) in self.threads.iter_mut().enumerate() {
            th.state = State::Ready;
            th.pc += 1;
            if let Some(j) = &joined {
                th.vc = j.clone();
                th.vc.tick(u);
            }
        }
        // Accesses before the barrier are ordered before everything after it, except
        // the writes of bulk copies, which only their mbarrier phase orders.
        // (In a cluster, accesses of other CTAs to this CTA's memory stay.)
        if self.synced || self.cluster.is_some() {
            let (n, cta, agents) = (self.threads.len(), self.cta, self.synced);
            self.shared_log.retain(|_, log| {
                log.reads.retain(|r| r.cta != cta);
                log.writes
                    .retain(|w| w.cta != cta || (agents && w.thread >= n));
                !log.writes.is_empty() || !log.reads.is_empty()
            });
        } else {
            self.shared_log.clear();
        }
        Ok(())
    }

    /// The result of a complete `bar.red` (every thread waits at `pc`): the number of
    /// threads whose predicate holds (`popc`), or whether it holds for all (`and`) or
    /// for some (`or`), written to every thread's destination. A predicate that depends
    /// on the data is `Unsupported`.
    fn reduce_barrier(&mut self, pc: usize) -> Result<(), Fail> {
        let entry = self.entry;
        let ins = &entry.body[pc];
        let (dst, pred) = (&ins.operands[0], &ins.operands[ins.operands.len() - 1]);
        let mut count = 0u64;
        for t in 0..self.threads.len() {
            let v = self.read(t, pred, "pred")?;
            match self.truth(v)? {
                Truth::Known(b) => count += b as u64,
                Truth::Unknown(_) => {
                    return unsupported(format!(
                        "{} over a data-dependent predicate",
                        ins.mnemonic()
                    ))
                }
            }
        }
        let n = self.threads.len() as u64;
        let v = if ins.has("popc") {
            Val::Bits(count)
        } else if ins.has("and") {
            Val::Pred(count == n)
        } else {
            Val::Pred(count > 0)
        };
        for t in 0..self.threads.len() {
            self.write(t, dst, v)?;
        }
        Ok(())
    }

    pub(super) fn missing_lanes(&self, t: usize) -> String {
        let (mask, pc) = match self.threads[t].state {
            State::WarpSync(pc, m) | State::Collective(pc, m) => (m, pc),
            _ => return String::new(),
        };
        let warp = self.threads[t].warp;
        for th in &self.threads {
            if th.warp == warp && mask & (1 << th.lane) != 0 {
                match th.state {
                    State::WarpSync(p, _) | State::Collective(p, _) if p == pc => {}
                    State::Done => return format!("lane {} has returned", th.lane),
                    State::Barrier(p, ..) => {
                        return format!(
                            "lane {} waits at bar.sync at line {}",
                            th.lane,
                            self.line(p)
                        )
                    }
                    State::WarpSync(p, _) | State::Collective(p, _) => {
                        return format!("lane {} waits at line {}", th.lane, self.line(p))
                    }
                    State::Spin(p, _, _) => {
                        return format!("lane {} spins on a lock at line {}", th.lane, self.line(p))
                    }
                    State::MbarWait(p, _) => {
                        return format!(
                            "lane {} waits at an mbarrier at line {}",
                            th.lane,
                            self.line(p)
                        )
                    }
                    State::Stuck(p, _) => {
                        return format!("lane {} spins at line {}", th.lane, self.line(p))
                    }
                    State::ClusterWait(p) => {
                        return format!(
                            "lane {} waits at barrier.cluster.wait at line {}",
                            th.lane,
                            self.line(p)
                        )
                    }
                    State::Ready => {}
                }
            }
        }
        "a lane in the mask never arrives".into()
    }

    pub(super) fn line(&self, pc: usize) -> u32 {
        self.entry.body.get(pc).map_or(0, |i| i.line)
    }

    pub(super) fn deadlock(&self, msg: String, t: usize, pc: usize) -> ExecError {
        self.err_at(t, pc, ErrorKind::Deadlock, format!("deadlock: {msg}"))
    }

    /// Perform a complete warp collective for the lanes of `group`.
    pub(super) fn collective(&mut self, group: &[usize]) -> Result<(), Fail> {
        let first = group[0];
        let ins = &self.entry.body[match self.threads[first].state {
            State::Collective(pc, _) => pc,
            _ => return Ok(()),
        }];
        match ins.op.as_str() {
            "shfl" => {
                // Source values of every lane, read before anyone writes.
                let mut src: HashMap<usize, Val<D::V>> = HashMap::new();
                let mut plan = Vec::new();
                for &u in group {
                    let State::Collective(pc, _) = self.threads[u].state else {
                        continue;
                    };
                    let ins = &self.entry.body[pc];
                    let mode = ins
                        .mods
                        .iter()
                        .find(|m| matches!(m.as_str(), "bfly" | "up" | "down" | "idx"))
                        .cloned()
                        .unwrap_or_default();
                    let ops = &ins.operands;
                    if ops.len() < 4 {
                        return fail(ErrorKind::Malformed, "shfl.sync needs d, a, b, c, mask");
                    }
                    let a = self.read(u, &ops[1], "b32")?;
                    let b = self.read(u, &ops[2], "b32")?;
                    let c = self.read(u, &ops[3], "b32")?;
                    let (b, c) = (self.int(b, "b32")? as u32, self.int(c, "b32")? as u32);
                    src.insert(self.threads[u].lane, a);
                    let lane = self.threads[u].lane as u32;
                    let bval = b & 0x1f;
                    let cval = c & 0x1f;
                    let segmask = (c >> 8) & 0x1f;
                    let min_lane = lane & segmask;
                    let max_lane = min_lane | (cval & !segmask);
                    let (j, ok) = match mode.as_str() {
                        "up" => {
                            let j = lane as i64 - bval as i64;
                            (j, j >= max_lane as i64)
                        }
                        "down" => {
                            let j = (lane + bval) as i64;
                            (j, j <= max_lane as i64)
                        }
                        "bfly" => {
                            let j = (lane ^ bval) as i64;
                            (j, j <= max_lane as i64)
                        }
                        "idx" => {
                            let j = (min_lane | (bval & !segmask)) as i64;
                            (j, j <= max_lane as i64)
                        }
                        _ => return unsupported(format!("shfl mode {mode}")),
                    };
                    let j = if ok { j as usize } else { lane as usize };
                    plan.push((u, pc, j, ok));
                }
                for (u, pc, j, ok) in plan {
                    let Some(&v) = src.get(&j) else {
                        return fail(
                            ErrorKind::Malformed,
                            format!(
                                "shfl reads lane {j}, which is not in the lane mask (undefined value)"
                            ),
                        );
                    };
                    let ops = &self.entry.body[pc].operands;
                    match &ops[0] {
                        Operand::Pair(d, p) => {
                            self.write(u, d, v)?;
                            self.write(u, p, Val::Pred(ok))?;
                        }
                        d => self.write(u, d, v)?,
                    }
                }
            }
            "vote" => {
                let mut preds = Vec::new();
                for &u in group {
                    let State::Collective(pc, _) = self.threads[u].state else {
                        continue;
                    };
                    let ins = &self.entry.body[pc];
                    let v = self.read(u, ins.operands.get(1).unwrap_or(&Operand::Sink), "pred")?;
                    let b = match self.truth(v)? {
                        Truth::Known(b) => b,
                        Truth::Unknown(c) => self.cond_value(c)?,
                    };
                    preds.push((u, self.threads[u].lane, b));
                }
                let ballot: u64 = preds.iter().filter(|p| p.2).map(|p| 1u64 << p.1).sum();
                let all = preds.iter().all(|p| p.2);
                let any = preds.iter().any(|p| p.2);
                for &(u, _, _) in &preds {
                    let State::Collective(pc, _) = self.threads[u].state else {
                        continue;
                    };
                    let ins = &self.entry.body[pc];
                    let v = if ins.has("ballot") {
                        Val::Bits(ballot)
                    } else if ins.has("all") {
                        Val::Pred(all)
                    } else if ins.has("any") {
                        Val::Pred(any)
                    } else if ins.has("uni") {
                        Val::Pred(all || !any)
                    } else {
                        return unsupported("vote mode");
                    };
                    self.write(u, &ins.operands[0], v)?;
                }
            }
            "ldmatrix" => self.ldmatrix(group)?,
            "mma" => self.mma(group)?,
            "wgmma" => self.wgmma_mma(group)?,
            "tcgen05" => self.tcgen05_collective(group)?,
            "elect" => self.elect(group)?,
            "setmaxnreg" => self.setmaxnreg(group)?,
            other => return unsupported(format!("warp collective {other}")),
        }
        Ok(())
    }

    /// `ldmatrix.sync.aligned.m8n8.xN.shared.b16` for the lanes of `group`: lanes
    /// 8i..8i+7 give the row addresses of matrix i (8 rows of 16 bytes); register i
    /// of lane l gets the 32-bit word at byte 4*(l%4) of row l/4 of matrix i. A word
    /// holds two b16 halves, so reading whole words moves f32 values intact. With
    /// `.trans` each register holds a column pair instead (`mma::ldmatrix_trans_word`).
    pub(super) fn ldmatrix(&mut self, group: &[usize]) -> Result<(), Fail> {
        let State::Collective(pc0, _) = self.threads[group[0]].state else {
            return Ok(());
        };
        let first = &self.entry.body[pc0];
        let trans = first.has("trans");
        if !first.has("m8n8") || !first.has("b16") {
            return unsupported(format!("{} (only .m8n8 .b16)", first.mnemonic()));
        }
        let n = match () {
            _ if first.has("x1") => 1,
            _ if first.has("x2") => 2,
            _ if first.has("x4") => 4,
            _ => return fail(ErrorKind::Malformed, "ldmatrix needs .x1, .x2 or .x4"),
        };
        // Every lane's row address, read before any destination is written.
        let mut rows: HashMap<usize, u64> = HashMap::new();
        let mut plan = Vec::new();
        for &u in group {
            let State::Collective(pc, _) = self.threads[u].state else {
                continue;
            };
            let ins = &self.entry.body[pc];
            if ins.op != first.op || ins.mods != first.mods {
                return fail(
                    ErrorKind::Malformed,
                    format!(
                        "lanes of a warp meet at different collectives (lines {} and {})",
                        first.line, ins.line
                    ),
                );
            }
            let (Some(dst), Some(src)) = (ins.operands.first(), ins.operands.get(1)) else {
                return fail(
                    ErrorKind::Malformed,
                    "ldmatrix needs registers and an address",
                );
            };
            let dsts: Vec<&Operand> = match dst {
                Operand::Vector(xs) => xs.iter().collect(),
                d => vec![d],
            };
            if dsts.len() != n {
                return fail(
                    ErrorKind::Malformed,
                    "ldmatrix: .xN and destinations differ",
                );
            }
            match self.address(u, src)? {
                Addr::At(a) => rows.insert(self.threads[u].lane, a),
                _ => return unsupported("ldmatrix at a data-dependent address"),
            };
            plan.push((u, pc, dsts));
        }
        for (u, pc, dsts) in plan {
            let lane = self.threads[u].lane;
            for (i, d) in dsts.into_iter().enumerate() {
                let row_lane = 8 * i + lane / 4;
                let Some(&row) = rows.get(&row_lane) else {
                    return fail(
                        ErrorKind::Malformed,
                        format!("ldmatrix needs the row address of lane {row_lane}, which is not in the warp"),
                    );
                };
                if row % 16 != 0 {
                    return fail(
                        ErrorKind::Malformed,
                        format!("ldmatrix row address {row:#x} (lane {row_lane}) is not 16-byte aligned"),
                    );
                }
                let v = if trans {
                    let row_of = |r: usize| match rows.get(&(8 * i + r)) {
                        Some(&a) if a % 16 == 0 => Ok(a),
                        _ => fail(
                            ErrorKind::Malformed,
                            format!(
                                "ldmatrix needs a 16-byte aligned row address from lane {}",
                                8 * i + r
                            ),
                        ),
                    };
                    self.ldmatrix_trans_word(u, pc, row_of)?
                } else {
                    self.load_one(
                        u,
                        pc,
                        row + 4 * (lane as u64 % 4),
                        4,
                        Some(Space::Shared),
                        "b32",
                    )?
                };
                self.write(u, d, v)?;
            }
        }
        Ok(())
    }
}
