//! mbarriers as blocking objects of the scheduler: `mbarrier.init/arrive/
//! arrive.expect_tx/arrive_drop/expect_tx/complete_tx/try_wait(.parity)/test_wait/
//! inval`, the bulk copies that complete transactions on them (`cp.async.bulk` global
//! → shared), and the deadlock trail when a phase can never complete.
//!
//! State of one mbarrier (an 8-byte shared word): the arrivals a phase expects, those
//! still pending, the transaction bytes still pending (`tx`, may go negative), and the
//! number of completed phases. A phase completes when no arrival and no byte is
//! pending; the pending count is then reset to the expected count.
//!
//! Waits: a `try_wait`/`test_wait` that fails returns false and the thread runs on; when
//! it comes back to the same wait with the barrier, its registers, its local memory
//! and its memory effects unchanged, it would spin forever, so it blocks until the
//! barrier changes (a spin loop is a blocking wait, like `bar.sync`). Time does not
//! pass (`%globaltimer` reads 0), so a wait loop with a timeout never times out.
//!
//! Order: an arrive releases the arriving thread's clock into the barrier; a
//! completed phase publishes the join of every arrival (and completed copy) so far;
//! a wait that sees its phase complete acquires it. A bulk copy is the issuing
//! thread's copy agent (its own clock component): its shared writes are logged at
//! issue, unordered with every thread that has not acquired the phase its bytes
//! completed, whatever `bar.sync`s lie between (the async proxy is not ordered by them).
//!
//! Invariant: a phase completes only by arrivals and transaction bytes of that phase;
//! a thread blocks only at a wait that could not succeed; a deadlock names every
//! waiting thread group, the barrier, the phase it waits for, and what is missing.

use super::place::Place;
use super::*;

/// One mbarrier.
pub(super) struct MBar {
    /// Arrivals each phase expects (`init`'s count, less `arrive_drop`s).
    pub(super) expected: u32,
    /// Arrivals the current phase still waits for.
    pub(super) pending: u32,
    /// Transaction bytes the current phase still waits for (negative: more completed
    /// than expected).
    pub(super) tx: i64,
    /// Completed phases: the current phase is `phase`, its parity `phase & 1`.
    pub(super) phase: u32,
    /// The join of the clocks of every arrival and copy of the current phase.
    pub(super) arrived: VClock,
    /// What a completed wait acquires: the join of every completed phase's clocks.
    pub(super) released: VClock,
    /// Bumped on every change (a spinning waiter blocks until it moves).
    pub(super) version: u64,
    /// The instruction that initialised it.
    pub(super) init_pc: usize,
    /// The last `expect_tx` of the current phase (instruction, bytes), for the trail.
    pub(super) last_expect: Option<(usize, i64)>,
}

impl MBar {
    /// Complete the current phase if nothing is pending (then true): what its arrivals
    /// and copies released becomes what a completed wait acquires.
    pub(super) fn complete(&mut self) -> bool {
        if self.pending != 0 || self.tx != 0 {
            return false;
        }
        self.phase += 1;
        self.pending = self.expected;
        self.last_expect = None;
        let arrived = std::mem::take(&mut self.arrived);
        self.released.join(&arrived);
        self.version += 1;
        true
    }
}

/// A thread's registers and local memory, as a failed wait saw them.
type Registers<V> = (Vec<Option<Val<V>>>, HashMap<u64, Val<V>>);

/// A failed wait, remembered to see whether the thread comes back unchanged.
pub(super) struct Probe<V> {
    pub(super) pc: usize,
    /// The barrier it waited on.
    pub(super) addr: u64,
    pub(super) version: u64,
    pub(super) effects: u64,
    /// The thread's register and local-memory change count (`Thread::changes`): the
    /// same count means the same registers, without copying them.
    pub(super) changes: u64,
    /// A copy of the registers and local memory, taken only when the thread came back
    /// with the count moved (a register changed and may have changed back).
    pub(super) copy: Option<Registers<V>>,
}

impl<'a, D: Domain> Sim<'a, D> {
    /// The shared address of an mbarrier operand.
    pub(super) fn mbar_addr(&mut self, t: usize, op: Option<&Operand>) -> Result<u64, Fail> {
        let Some(op) = op else {
            return fail(ErrorKind::Malformed, "expected an mbarrier address [addr]");
        };
        match self.address(t, op)? {
            Addr::At(a) => {
                // A `mapa` address of the running CTA's own barrier (see `cluster`).
                let a = self.own_shared(t, a, "an mbarrier operation")?;
                match self.place(t, a, 8, Some(Space::Shared))? {
                    Place::Shared(..) if a % 8 == 0 => Ok(a),
                    Place::Shared(..) => fail(
                        ErrorKind::Malformed,
                        format!("mbarrier at {a:#x} is not 8-byte aligned"),
                    ),
                    _ => fail(ErrorKind::OutOfBounds, "mbarrier outside shared memory"),
                }
            }
            _ => unsupported("an mbarrier at a data-dependent or parameter address"),
        }
    }

    fn int_operand(&mut self, t: usize, op: Option<&Operand>, what: &str) -> Result<i64, Fail> {
        let Some(op) = op else {
            return fail(ErrorKind::Malformed, format!("expected {what}"));
        };
        let v = self.read(t, op, "u32")?;
        Ok(self.int(v, "u32")? as i64)
    }

    /// Log an access to the barrier word: `init`/`inval` are plain writes (a use not
    /// ordered after the init races with it); the others are atomics, checked against
    /// the log but not kept in it.
    fn log_mbar(&mut self, t: usize, pc: usize, addr: u64, atomic: bool) -> Result<(), Fail> {
        if atomic {
            self.check_shared_atomic(t, pc, addr, 8)
        } else {
            self.log_shared(t, pc, addr, 8, true)
        }
    }

    pub(super) fn mbar(&mut self, addr: u64) -> Result<&mut MBar, Fail> {
        let name = (!self.mbars.contains_key(&addr)).then(|| self.shared_name(addr));
        match self.mbars.get_mut(&addr) {
            Some(b) => Ok(b),
            None => fail(
                ErrorKind::Malformed,
                format!(
                    "mbarrier {} is used before mbarrier.init (or after mbarrier.inval)",
                    name.unwrap_or_default()
                ),
            ),
        }
    }

    pub(super) fn mbarrier(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<Flow, Fail> {
        self.synced = true;
        if ins.has("shared::cluster") {
            if let Some(flow) = self.remote_mbarrier(t, pc, ins)? {
                return Ok(flow);
            }
        }
        let ops = &ins.operands;
        let kind = ins.mods.first().map_or("", |s| s.as_str());
        match kind {
            "init" => {
                let addr = self.mbar_addr(t, ops.first())?;
                let n = self.int_operand(t, ops.get(1), "an arrival count")?;
                if !(1..=(1 << 20) - 1).contains(&n) {
                    return fail(
                        ErrorKind::Malformed,
                        format!("mbarrier.init count {n} (expected 1 to 2^20 - 1)"),
                    );
                }
                self.log_mbar(t, pc, addr, false)?;
                self.effect(t);
                self.mbars.insert(
                    addr,
                    MBar {
                        expected: n as u32,
                        pending: n as u32,
                        tx: 0,
                        phase: 0,
                        arrived: VClock::default(),
                        released: VClock::default(),
                        version: 0,
                        init_pc: pc,
                        last_expect: None,
                    },
                );
            }
            "inval" => {
                let addr = self.mbar_addr(t, ops.first())?;
                self.mbar(addr)?;
                self.log_mbar(t, pc, addr, false)?;
                self.effect(t);
                self.mbars.remove(&addr);
            }
            "expect_tx" | "complete_tx" => {
                let addr = self.mbar_addr(t, ops.first())?;
                let n = self.int_operand(t, ops.get(1), "a transaction byte count")?;
                self.log_mbar(t, pc, addr, true)?;
                self.effect(t);
                if kind == "expect_tx" {
                    self.expect_tx(addr, pc, n)?;
                } else {
                    let vc = self.threads[t].vc.clone();
                    self.complete_tx(addr, n, &vc)?;
                }
            }
            "arrive" | "arrive_drop" => {
                let addr = self.mbar_addr(t, ops.get(1))?;
                let expect = ins.has("expect_tx");
                let count = match (expect, ops.get(2)) {
                    (false, Some(o)) => self.int_operand(t, Some(o), "an arrival count")?,
                    _ => 1,
                };
                self.log_mbar(t, pc, addr, true)?;
                self.effect(t);
                if expect {
                    let n = self.int_operand(t, ops.get(2), "a transaction byte count")?;
                    self.expect_tx(addr, pc, n)?;
                }
                let token = self.mbar(addr)?.phase as u64;
                if let Some(d) = ops.first() {
                    if !matches!(d, Operand::Sink) {
                        self.write(t, d, Val::Bits(token))?;
                    }
                }
                let b = self.mbar(addr)?;
                if kind == "arrive_drop" {
                    b.expected = b.expected.saturating_sub(count as u32);
                }
                if count as u32 > b.pending {
                    let (p, ph) = (b.pending, b.phase);
                    return fail(
                        ErrorKind::Malformed,
                        format!(
                            "{count} arrivals on mbarrier {} in phase {ph}, which waits for only {p} (undefined behaviour)",
                            self.shared_name(addr)
                        ),
                    );
                }
                b.pending -= count as u32;
                b.version += 1;
                // The arrival releases the thread's accesses so far, not its next ones.
                if let Some(b) = self.mbars.get_mut(&addr) {
                    b.arrived.join(&self.threads[t].vc);
                }
                self.threads[t].vc.tick(t);
                self.try_complete(addr);
            }
            "try_wait" | "test_wait" => return self.mbar_wait(t, pc, ins),
            _ => return unsupported(format!("unsupported: {}", ins.mnemonic())),
        }
        Ok(Flow::Next)
    }

    fn expect_tx(&mut self, addr: u64, pc: usize, n: i64) -> Result<(), Fail> {
        let b = self.mbar(addr)?;
        b.tx += n;
        b.last_expect = Some((pc, n));
        b.version += 1;
        Ok(())
    }

    /// `n` bytes of a copy (or `complete_tx`) land on the barrier; `vc` is the clock
    /// of the agent that wrote them.
    pub(super) fn complete_tx(&mut self, addr: u64, n: i64, vc: &VClock) -> Result<(), Fail> {
        let b = self.mbar(addr)?;
        b.tx -= n;
        b.arrived.join(vc);
        b.version += 1;
        self.try_complete(addr);
        Ok(())
    }

    /// Complete the current phase when nothing is pending; wake its waiters.
    fn try_complete(&mut self, addr: u64) {
        let Some(b) = self.mbars.get_mut(&addr) else {
            return;
        };
        if !b.complete() {
            return;
        }
        for th in &mut self.threads {
            if matches!(th.state, State::MbarWait(_, a) if a == addr) {
                th.state = State::Ready;
            }
        }
    }

    /// `try_wait`/`test_wait{.parity} p, [addr], token|parity`.
    fn mbar_wait(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<Flow, Fail> {
        let ops = &ins.operands;
        let addr = self.mbar_addr(t, ops.get(1))?;
        let arg = self.int_operand(t, ops.get(2), "a phase token or parity")? as u64;
        self.log_mbar(t, pc, addr, true)?;
        let b = self.mbar(addr)?;
        let done = if ins.has("parity") {
            // The phase of parity `arg` has completed unless it is the current one.
            u64::from(b.phase & 1) != arg & 1
        } else {
            // A token from `arrive`: the phase it was taken in.
            u64::from(b.phase) > arg
        };
        let version = b.version;
        let Some(d) = ops.first() else {
            return fail(ErrorKind::Malformed, "expected a predicate destination");
        };
        if done {
            self.threads[t].probe = None;
            if let Some(b) = self.mbars.get(&addr) {
                self.threads[t].vc.join(&b.released);
            }
            self.write(t, d, Val::Pred(true))?;
            return Ok(Flow::Next);
        }
        let th = &self.threads[t];
        let here = th
            .probe
            .as_ref()
            .filter(|p| p.pc == pc && p.version == version && p.effects == th.effects);
        let again = here.is_some_and(|p| {
            p.changes == th.changes
                || p.copy
                    .as_ref()
                    .is_some_and(|(regs, local)| *regs == th.regs && *local == th.local)
        });
        if again {
            // Nothing changed since the last failed wait: the loop would spin forever.
            return Ok(Flow::Block(State::MbarWait(pc, addr)));
        }
        // Back here with registers changed: compare them whole next time.
        let whole = here.is_some();
        self.write(t, d, Val::Pred(false))?;
        let th = &mut self.threads[t];
        let copy = whole.then(|| (th.regs.clone(), th.local.clone()));
        let probe = Probe {
            pc,
            addr,
            version,
            effects: th.effects,
            changes: th.changes,
            copy,
        };
        th.probe = Some(probe);
        Ok(Flow::Next)
    }

    /// `cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes{.multicast::cluster}
    /// [dst], [src], size, [mbar]{, ctaMask}`: the copy agent of thread `t` writes `size`
    /// bytes of shared memory at issue and completes them on the barrier (with a CTA
    /// mask, in every CTA of the mask: see `cluster::deliver`).
    pub(super) fn bulk_copy(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        self.synced = true;
        let multicast = ins.has("multicast::cluster");
        let plain = ins.has("bulk")
            && ins.has("global")
            && ins.mods.iter().any(|m| m.starts_with("shared"))
            && ins
                .mods
                .iter()
                .any(|m| m.starts_with("mbarrier::complete_tx"))
            && !ins
                .mods
                .iter()
                .any(|m| m == "tensor" || (m.starts_with("multicast") && !multicast));
        let into_shared = ins
            .mods
            .iter()
            .position(|m| m.starts_with("shared"))
            .zip(ins.mods.iter().position(|m| m == "global"))
            .is_some_and(|(s, g)| s < g);
        if !plain || !into_shared {
            return unsupported(format!(
                "unsupported: {} (lift models cp.async.bulk from global to shared memory \
                 completing on an mbarrier, multicast to the cluster or not; not TMA tensor \
                 copies or other directions)",
                ins.mnemonic()
            ));
        }
        let ops = &ins.operands;
        if ops.len() != 4 + usize::from(multicast) {
            return unsupported(format!(
                "{} with {} operands (a cache hint)",
                ins.mnemonic(),
                ops.len()
            ));
        }
        let size = self.int_operand(t, ops.get(2), "a byte count")? as u64;
        if !size.is_multiple_of(16) {
            return fail(
                ErrorKind::Malformed,
                format!("cp.async.bulk size {size} is not a multiple of 16"),
            );
        }
        let (Addr::At(dst), Addr::At(src)) = (self.address(t, &ops[0])?, self.address(t, &ops[1])?)
        else {
            return unsupported("cp.async.bulk at a data-dependent or parameter address");
        };
        if dst % 16 != 0 || src % 16 != 0 {
            return fail(
                ErrorKind::Malformed,
                "cp.async.bulk addresses must be 16-byte aligned",
            );
        }
        let dst = self.copy_destination(t, dst, multicast)?;
        let mut words = Vec::with_capacity((size / 4) as usize);
        for k in 0..size / 4 {
            let v = self.load_one(t, pc, src + 4 * k, 4, Some(Space::Global), "b32")?;
            words.push((dst + 4 * k, v));
        }
        self.deliver(t, pc, &words, ops.get(3), ops.get(4).filter(|_| multicast))
    }

    /// Starts a bulk copy (`cp.async.bulk`, `cp.async.bulk.tensor`) of thread `t`'s
    /// instruction `pc` that completes on the mbarrier operand `op`: the phase it completes
    /// is recorded, and the thread's copy agent starts where the thread is, as a new event
    /// of its own. The barrier's address and the agent's clock for the copy's writes.
    pub(super) fn start_bulk_copy(
        &mut self,
        t: usize,
        pc: usize,
        op: Option<&Operand>,
    ) -> Result<(u64, VClock), Fail> {
        let bar = self.mbar_addr(t, op)?;
        let phase = self.mbar(bar)?.phase;
        self.bulk_phase
            .insert((self.threads.len() + t, pc), (bar, phase));
        self.effect(t);
        let n = self.threads.len();
        let mut vc = self.threads[t].bulk_vc.clone();
        vc.join(&self.threads[t].vc);
        vc.tick(n + t);
        self.threads[t].bulk_vc = vc.clone();
        Ok((bar, vc))
    }

    /// One arrival on the mbarrier operand `op` of thread `t`'s instruction `pc`, made by
    /// an agent whose clock is `vc` (the thread's tensor-core pipe at `tcgen05.commit`).
    pub(super) fn agent_arrive(
        &mut self,
        t: usize,
        pc: usize,
        op: Option<&Operand>,
        vc: &VClock,
    ) -> Result<(), Fail> {
        let addr = self.mbar_addr(t, op)?;
        self.log_mbar(t, pc, addr, true)?;
        self.effect(t);
        let name = self.shared_name(addr);
        let b = self.mbar(addr)?;
        if b.pending == 0 {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "an arrival on mbarrier {name}, which waits for none (undefined behaviour)"
                ),
            );
        }
        b.pending -= 1;
        b.version += 1;
        b.arrived.join(vc);
        self.try_complete(addr);
        Ok(())
    }

    /// Whether a thread is blocked at an mbarrier wait or a spin loop when nothing
    /// else can be released: then no thread can move any more.
    pub(super) fn blocked_for_good(&self) -> bool {
        self.threads
            .iter()
            .any(|th| matches!(th.state, State::MbarWait(..) | State::Stuck(..)))
    }

    /// The deadlock of a CTA where some thread waits at an mbarrier and no thread can
    /// move: each waiting group of threads (same wait, same barrier), the phase it
    /// waits for and what the barrier misses; then the other threads' states.
    pub(super) fn mbar_deadlock(&self) -> ExecError {
        let mut groups: BTreeMap<(usize, u64), Vec<usize>> = BTreeMap::new();
        for (t, th) in self.threads.iter().enumerate() {
            if let State::MbarWait(pc, addr) = th.state {
                groups.entry((pc, addr)).or_default().push(t);
            }
        }
        let mut lines = Vec::new();
        for ((pc, addr), ts) in &groups {
            let ins = &self.entry.body[*pc];
            let who = self.thread_set(ts);
            let Some(b) = self.mbars.get(addr) else {
                lines.push(format!(
                    "{who} wait at line {}{} on mbarrier {}, which was invalidated",
                    ins.line,
                    self.src(*pc),
                    self.shared_name(*addr)
                ));
                continue;
            };
            // A blocked wait waits for the current phase.
            let wanted = format!("phase {} (parity {}) to complete", b.phase, b.phase & 1);
            let mut missing = Vec::new();
            if b.pending > 0 {
                missing.push(format!(
                    "{} of its {} arrivals are missing",
                    b.pending, b.expected
                ));
            }
            let expect = b.last_expect.map_or(String::new(), |(p, n)| {
                format!(
                    " (expect_tx of {n} bytes at line {}{})",
                    self.line(p),
                    self.src(p)
                )
            });
            let mismatch = if b.pending == 0 {
                "expect_tx mismatch: "
            } else {
                ""
            };
            if b.tx > 0 {
                missing.push(format!(
                    "{mismatch}{} transaction bytes are expected but never arrive{expect}",
                    b.tx
                ));
            } else if b.tx < 0 {
                missing.push(format!(
                    "{mismatch}{} bytes more were completed than expected{expect}",
                    -b.tx
                ));
            }
            lines.push(format!(
                "{who} wait at line {} (`{}`{}) on mbarrier {} (initialised at line {} with \
                 count {}) for {wanted}; {}",
                ins.line,
                ins.mnemonic(),
                self.src(*pc),
                self.shared_name(*addr),
                self.line(b.init_pc),
                b.expected,
                missing.join("; ")
            ));
        }
        let mut others: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (t, th) in self.threads.iter().enumerate() {
            let what = match th.state {
                State::MbarWait(..) | State::Ready => continue,
                State::Done => "have returned".to_string(),
                State::Barrier(pc, id, _) => {
                    format!(
                        "wait at bar.sync {id} at line {}{}",
                        self.line(pc),
                        self.src(pc)
                    )
                }
                State::WarpSync(pc, _) | State::Collective(pc, _) => format!(
                    "wait at a warp barrier or collective at line {}{}",
                    self.line(pc),
                    self.src(pc)
                ),
                State::Spin(pc, _, _) => format!("spin on a lock at line {}", self.line(pc)),
                State::ClusterWait(pc) => {
                    format!("wait at barrier.cluster.wait at line {}", self.line(pc))
                }
                State::Stuck(pc, _) => format!(
                    "spin in a loop at line {}{}: they come back to it with nothing \
                     changed, and no thread left changes what they read",
                    self.line(pc),
                    self.src(pc)
                ),
            };
            others.entry(what).or_default().push(t);
        }
        for (what, ts) in others {
            lines.push(format!("{} {what}", self.thread_set(&ts)));
        }
        let (pc, t) = groups.iter().next().map_or((0, 0), |((pc, _), ts)| {
            (*pc, ts.first().copied().unwrap_or(0))
        });
        let (pc, t) = match groups.is_empty() {
            false => (pc, t),
            true => self
                .threads
                .iter()
                .enumerate()
                .find_map(|(t, th)| match th.state {
                    State::Stuck(pc, _) => Some((pc, t)),
                    _ => None,
                })
                .unwrap_or((0, 0)),
        };
        let why = if groups.is_empty() {
            "no thread can move"
        } else {
            "no thread can move: an mbarrier phase never completes"
        };
        self.deadlock(format!("{why}. {}", lines.join(". ")), t, pc)
    }

    /// " (source file:line)" of instruction `pc`, or nothing.
    fn src(&self, pc: usize) -> String {
        match self.entry.body.get(pc) {
            Some(i) if i.loc.file.is_some() => format!(", source {}", i.loc),
            _ => String::new(),
        }
    }

    /// "threads (0, 0, 0) to (31, 0, 0)", "warp 1 (threads 32 to 63)", "thread (5, 0, 0)".
    fn thread_set(&self, ts: &[usize]) -> String {
        let tid = |t: usize| {
            let [x, y, z] = self.tid_of(t);
            format!("({x}, {y}, {z})")
        };
        match ts {
            [] => "no thread".into(),
            [t] => format!("thread {} (warp {})", tid(*t), t / 32),
            _ => {
                let (a, b) = (ts[0], ts[ts.len() - 1]);
                let contiguous = b - a + 1 == ts.len();
                if contiguous && a.is_multiple_of(32) && ts.len().is_multiple_of(32) {
                    let warps = if ts.len() == 32 {
                        format!("warp {}", a / 32)
                    } else {
                        format!("warps {} to {}", a / 32, b / 32)
                    };
                    format!("{warps} (threads {} to {})", tid(a), tid(b))
                } else if contiguous {
                    format!("threads {} to {}", tid(a), tid(b))
                } else {
                    format!("{} threads from {} to {}", ts.len(), tid(a), tid(b))
                }
            }
        }
    }

    /// `elect.sync d|p, mask` (a warp collective): the lowest lane of the mask is the
    /// leader (the PTX ISA leaves the choice open; lift checks this one schedule).
    pub(super) fn elect(&mut self, group: &[usize]) -> Result<(), Fail> {
        let leader = group
            .iter()
            .copied()
            .min_by_key(|&u| self.threads[u].lane)
            .unwrap_or(0);
        let lane = self.threads[leader].lane as u64;
        for &u in group {
            let State::Collective(pc, _) = self.threads[u].state else {
                continue;
            };
            let dst = self.entry.body[pc].operands.first().cloned();
            let (d, p) = match dst {
                Some(Operand::Pair(d, p)) => (*d, *p),
                Some(d) => (d, Operand::Sink),
                None => return fail(ErrorKind::Malformed, "elect.sync needs a destination"),
            };
            if !matches!(d, Operand::Sink) {
                self.write(u, &d, Val::Bits(lane))?;
            }
            if !matches!(p, Operand::Sink) {
                self.write(u, &p, Val::Pred(u == leader))?;
            }
        }
        Ok(())
    }

    /// `setmaxnreg.{inc,dec}.sync.aligned.u32 n` (a warp collective): no effect on what
    /// the kernel computes; every lane of the warp must run the same instruction.
    pub(super) fn setmaxnreg(&mut self, group: &[usize]) -> Result<(), Fail> {
        let pcs: Vec<usize> = group
            .iter()
            .filter_map(|&u| match self.threads[u].state {
                State::Collective(pc, _) => Some(pc),
                _ => None,
            })
            .collect();
        let warp = group.first().map_or(0, |&u| self.threads[u].warp);
        let lanes = (self.threads.len() - warp * 32).min(32);
        if pcs.len() != lanes || pcs.iter().any(|&p| p != pcs[0]) {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "setmaxnreg is not warp-uniform: warp {warp} runs it at lines {:?} with {} of its {lanes} lanes",
                    pcs.iter().map(|&p| self.line(p)).collect::<Vec<_>>(),
                    pcs.len()
                ),
            );
        }
        let ins = &self.entry.body[pcs[0]];
        match ins.operands.first() {
            Some(Operand::Imm(n)) if (24..=256).contains(n) && n % 8 == 0 => Ok(()),
            _ => fail(
                ErrorKind::Malformed,
                "setmaxnreg needs an immediate count from 24 to 256, a multiple of 8",
            ),
        }
    }
}
