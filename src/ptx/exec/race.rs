//! The race log: every shared and global access with its thread, instruction, barrier
//! epoch and the lane's vector clock. Two accesses to overlapping bytes by different
//! threads, one a write, race unless a `bar.sync` of the CTA or (same warp) a chain of
//! `bar.warp.sync`s orders them.
//!
//! An access made under a data-dependent path condition (a store or load inside an
//! if-converted branch, see `branch`) is logged with that condition: two such accesses
//! race only when some input makes both happen. Their joint condition is decided by
//! the domain where it can (`c && !c` is false); otherwise an input satisfying it is
//! searched for ([`Domain::witness`]) and printed with the race. When none is found
//! the run stops as `Unsupported` (UNKNOWN): an undecided pair is never taken as
//! ordered, so SAFE is only ever reported when every conflicting pair is ruled out.
//!
//! Invariant: a race is reported with both accesses (thread, line, source) and, for
//! conditional accesses, an input under which both happen; a race that only repeats
//! an earlier read of never-written memory reports that read.

use super::*;

/// One logged memory access.
#[derive(Clone, Debug)]
pub(super) struct Rec<V> {
    pub(super) cta: [i64; 3],
    pub(super) thread: usize,
    pub(super) epoch: u32,
    pub(super) clock: u32,
    pub(super) write: bool,
    pub(super) instr: usize,
    pub(super) addr: u64,
    pub(super) size: u64,
    /// The path condition under which the access happens (`None`: whenever the thread
    /// gets here).
    pub(super) cond: Option<V>,
    /// An atomic (`atom`/`red`): atomics never race with each other.
    pub(super) atomic: bool,
    /// The spin locks the thread held (acquire-ordered) at a plain access.
    pub(super) locks: Vec<(LocKey, u64)>,
    /// A plain access made while holding a spin lock taken by a relaxed atomic with no
    /// fence since (which orders nothing).
    pub(super) unfenced_lock: bool,
    /// A plain load's tag (see `uses`): its race counts only once the value is used.
    pub(super) tag: Option<u32>,
    /// The thread's trace when it made the access (see `trace`): two lanes of a warp
    /// with the same trace at the same instruction run it as one warp instruction.
    pub(super) trace: u64,
    /// A plain store's value.
    pub(super) value: Option<Val<V>>,
}

pub(super) struct Log<V> {
    pub(super) reads: Vec<Rec<V>>,
    pub(super) writes: Vec<Rec<V>>,
}

impl<V> Default for Log<V> {
    fn default() -> Self {
        Log {
            reads: Vec::new(),
            writes: Vec::new(),
        }
    }
}

/// Where an access lands, named only when a race is reported (formatting the name of
/// every access cost more than the check itself).
#[derive(Clone, Copy)]
pub(super) enum Place {
    Global { tensor: usize, off: u64 },
    Shared { addr: u64, size: u64 },
}

/// A race no output depends on (a read whose value was never used, warps storing one
/// value in one instruction): the first one of its pair of instructions.
pub(super) struct Benign {
    message: String,
    /// The instruction whose line it is reported at (the read; the later store).
    at: usize,
    /// Such races between the same two instructions (over threads and addresses).
    count: usize,
}

/// A benign race as `lift race` reports it.
#[derive(Clone, Debug, PartialEq)]
pub struct BenignRace {
    /// The .ptx line of the read (of the later store).
    pub line: u32,
    /// Both accesses (threads, lines, the place), as a race is described, and why no
    /// output depends on it.
    pub message: String,
    /// Races between the same two instructions, this one included.
    pub count: usize,
}

impl Benign {
    pub(super) fn into_report(self, entry: &Entry) -> BenignRace {
        BenignRace {
            line: entry.body.get(self.at).map_or(0, |i| i.line),
            message: self.message,
            count: self.count,
        }
    }
}

/// Marks a race that an earlier read of never-written memory explains better.
pub(super) const PENDING: &str = "<pending never-written read>";

impl<'a, D: Domain> Sim<'a, D> {
    pub(super) fn rec(&self, t: usize, pc: usize, addr: u64, size: u64, write: bool) -> Rec<D::V> {
        let th = &self.threads[t];
        Rec {
            cta: self.cta,
            thread: t,
            epoch: self.epoch,
            clock: th.vc.get(t),
            write,
            instr: pc,
            addr,
            size,
            cond: self.path,
            atomic: self.atomic_now,
            locks: Vec::new(),
            unfenced_lock: false,
            // The every-count proof counts every read as used (see `every`).
            tag: if write || self.atomic_now || self.every.is_some() {
                None
            } else {
                self.uses.current
            },
            trace: th.trace,
            value: if write && !self.atomic_now {
                self.store_val
            } else {
                None
            },
        }
    }

    /// At the end of a CTA: the races still kept aside read values no thread used.
    pub(super) fn note_benign(&mut self) {
        let mut left: Vec<(u32, uses::Deferred)> = self.uses.deferred.drain().collect();
        left.sort_by_key(|(g, _)| *g);
        for (_, d) in left {
            let m = format!("{}; the value read is never used", d.message);
            self.benign_race(d.read, d.write, m);
        }
    }

    /// A race between the instructions `at` and `other` that no output depends on.
    fn benign_race(&mut self, at: usize, other: usize, message: String) {
        self.benign
            .entry((at, other))
            .and_modify(|b| b.count += 1)
            .or_insert(Benign {
                message,
                at,
                count: 1,
            });
    }

    /// Extend thread `t`'s trace by the instruction at `pc`: a hash of every
    /// instruction the thread ran, in order (data-dependent branches run both sides,
    /// so lanes that took the same path through the code have the same trace).
    pub(super) fn trace(&mut self, t: usize, pc: usize) {
        let th = &mut self.threads[t];
        th.trace = (th.trace ^ pc as u64)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15)
            .rotate_left(29);
    }

    /// Whether `a` (logged earlier) and the current store `r` are the same store
    /// instruction run by threads of the current CTA and epoch on the same path (the
    /// same trace) into the same bytes: lanes of one warp run it as one warp
    /// instruction; warps holding replicated copies of a tile (Triton's layouts at
    /// num_warps >= 2) run it with the same values.
    fn same_store(&self, a: &Rec<D::V>, r: &Rec<D::V>) -> bool {
        a.write
            && r.write
            && !a.atomic
            && !r.atomic
            && a.cta == self.cta
            && a.epoch == self.epoch
            && a.instr == r.instr
            // Lanes of one warp must have run the same path; other warps storing the
            // same value (checked by the caller) may have got here on other paths.
            && (a.trace == r.trace || self.warp_of(a.thread) != self.warp_of(r.thread))
            && (a.addr, a.size) == (r.addr, r.size)
    }

    /// Whether two stored values are the same for every input: the same constant, or
    /// the same term (the symbolic run's terms are hash-consed).
    fn same_stored(&mut self, a: Option<Val<D::V>>, b: Option<Val<D::V>>) -> bool {
        let (Some(a), Some(b)) = (a, b) else {
            return false;
        };
        match (a, b) {
            (Val::Float(x), Val::Float(y)) | (Val::Sym(x), Val::Sym(y)) => {
                // `AddressOnly` cannot tell data apart (every input value is `Data`):
                // comparing marks its run steered, so the symbolic run decides.
                let same = matches!(self.domain.cmp(CmpOp::Eq, x, y), Truth::Known(true));
                same || x == y
            }
            (a, b) => a == b,
        }
    }

    /// Whether `a` (logged earlier) is ordered before the current access of thread `t`.
    pub(super) fn ordered<W>(&self, a: &Rec<W>, t: usize) -> bool {
        if a.cta != self.cta {
            return self.cluster_ordered(a, t);
        }
        let n = self.threads.len();
        let vc = match t.checked_sub(n) {
            Some(agent) => &self.threads[agent].bulk_vc,
            None => &self.threads[t].vc,
        };
        // A bulk copy's write is ordered only by the mbarrier phase it completed.
        if a.thread >= n {
            return a.thread == t || vc.get(a.thread) >= a.clock;
        }
        if a.thread == t || a.epoch < self.epoch {
            return true;
        }
        // A cluster barrier orders the threads of one CTA too (see `cluster`).
        vc.get(a.thread) >= a.clock || self.cluster_ordered(a, t)
    }

    pub(super) fn check(
        &mut self,
        log: &Log<D::V>,
        r: &Rec<D::V>,
        t: usize,
        what: Place,
    ) -> Result<(), Fail> {
        let others = if r.write {
            log.writes.iter().chain(log.reads.iter())
        } else {
            log.writes.iter().chain([].iter())
        };
        // The first conflicting pair whose joint condition is neither ruled out nor
        // witnessed: reported only if no definite race follows.
        let mut undecided: Option<String> = None;
        for a in others {
            let overlap = a.addr < r.addr + r.size && r.addr < a.addr + a.size;
            if !overlap || (a.cta == r.cta && a.thread == t) || self.ordered(a, t) {
                continue;
            }
            // Atomics never race with each other.
            if a.atomic && r.atomic {
                continue;
            }
            // A spin lock both accesses held (acquire- and release-ordered).
            self.locks.note = None;
            if !a.locks.is_empty() && !r.locks.is_empty() {
                let m = self.race_message(a, r, what);
                if self.lock_orders(a, r, &m, clash(a, r, what)) {
                    continue;
                }
            }
            // Both accesses happen for some input? With which input?
            let both = match (a.cond, r.cond) {
                (None, None) => Truth::Known(true),
                (Some(c), None) | (None, Some(c)) => Truth::Unknown(c),
                // `c && !c`: the two sides of one branch (of two threads reading the
                // same cell) never both happen.
                (Some(x), Some(y)) if self.domain.not(x) == Truth::Unknown(y) => continue,
                (Some(x), Some(y)) => self.domain.and(x, y),
            };
            let witness = match both {
                Truth::Known(false) => continue,
                Truth::Known(true) => None,
                Truth::Unknown(c) => match self.domain.witness(c) {
                    Some(w) => Some(w),
                    None => {
                        undecided.get_or_insert_with(|| {
                            format!(
                                "possible {}; both accesses happen only for some inputs, and lift \
                                 found no input making both happen nor proved there is none",
                                self.race_message(a, r, what)
                            )
                        });
                        continue;
                    }
                },
            };
            // One store instruction, one path, one address. Lanes of one warp: one warp
            // instruction, one lane's store wins; no race, a finding only if the values
            // may differ. Other warps storing the same value (replicated tiles): a race
            // in the memory model that no output depends on.
            if self.same_store(a, r) {
                let same = self.same_stored(a.value, r.value);
                if self.warp_of(a.thread).is_some() && self.warp_of(a.thread) == self.warp_of(t) {
                    if same {
                        continue;
                    }
                    let mut m = format!(
                        "data race on {} in one warp instruction: {} and {}, storing values \
                         that may differ, so the value left is nondeterministic (one lane's \
                         store wins and the PTX ISA does not say which)",
                        self.place_name(what),
                        self.describe(a),
                        self.describe(r)
                    );
                    if let Some(w) = witness {
                        m.push_str(&format!("; both stores happen for the inputs {w}"));
                    }
                    self.clash = Some(clash(a, r, what));
                    return Err((ErrorKind::Race, m));
                }
                if same {
                    let m = self.race_message(a, r, what);
                    self.benign_race(r.instr, a.instr, format!("{m}; both store the same value"));
                    continue;
                }
            }
            // A read of unwritten memory that is not itself part of this race is the
            // kernel's first fault (the race only repeats it).
            if let Some(p) = &self.pending_rec {
                let same = |x: &Rec<D::V>| {
                    x.cta == p.cta && x.thread == p.thread && x.instr == p.instr && x.addr == p.addr
                };
                if !same(a) && !same(r) {
                    return Err((ErrorKind::NeverWritten, PENDING.into()));
                }
            }
            let mut m = self.race_message(a, r, what);
            if let Some(n) = self.locks.note {
                m.push_str("; ");
                m.push_str(n);
            }
            if a.unfenced_lock || r.unfenced_lock {
                m.push_str(
                    "; a spin lock is held, but it was taken by a relaxed atomic with no fence \
                     (membar/fence) or .acquire after it, and relaxed atomics order no other \
                     memory access",
                );
            }
            if let Some(w) = witness {
                m.push_str(&format!(
                    "; the accesses are under data-dependent conditions, and both happen for the inputs {w}"
                ));
            }
            // A read whose value the thread has not used (yet): the race counts at the
            // use, and not at all if the value reaches no store, address or branch.
            let read = if r.write { a } else { r };
            if !read.write && !self.uses.is_used(read.tag) {
                if let Some(g) = read.tag {
                    let write = if r.write { r.instr } else { a.instr };
                    self.uses.deferred.entry(g).or_insert(uses::Deferred {
                        message: m,
                        read: read.instr,
                        write,
                    });
                }
                continue;
            }
            self.clash = Some(clash(a, r, what));
            return Err((ErrorKind::Race, m));
        }
        match undecided {
            Some(m) => unsupported(m),
            None => Ok(()),
        }
    }

    /// The warp of thread `t`; `None` for a copy agent (see `mbarrier`).
    fn warp_of(&self, t: usize) -> Option<usize> {
        self.threads.get(t).map(|th| th.warp)
    }

    /// How a shared address is named in reports: "shared `bar[0]` (byte 0)".
    pub(super) fn shared_name(&self, addr: u64) -> String {
        self.place_name(Place::Shared { addr, size: 8 })
    }

    /// Log the write of 4 bytes at shared `addr` by thread `t`'s bulk-copy agent
    /// (instruction `pc`) with the agent's clock `vc`, checked against the log.
    pub(super) fn log_agent_write(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        vc: &VClock,
    ) -> Result<(), Fail> {
        if !self.races {
            return Ok(());
        }
        let agent = self.threads.len() + t;
        let mut r = self.rec(t, pc, addr, 4, true);
        r.thread = agent;
        r.clock = vc.get(agent);
        r.value = None;
        let key = addr & !3;
        let log = self.shared_log.remove(&key).unwrap_or_default();
        let res = self.check(&log, &r, agent, Place::Shared { addr, size: 4 });
        let mut log = log;
        if res.is_ok() {
            self.prune(&mut log, &r, agent);
            log.writes.push(r);
        }
        self.shared_log.insert(key, log);
        res
    }

    /// Check an atomic access of thread `t` to the shared bytes `addr..addr + size`
    /// against the log without logging it: an mbarrier operation, which races with
    /// an `init`/`inval` it is not ordered with and never with another mbarrier
    /// operation (a pipeline makes millions; logging them would grow the log forever).
    pub(super) fn check_shared_atomic(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        size: u64,
    ) -> Result<(), Fail> {
        if !self.races {
            return Ok(());
        }
        self.atomic_now = true;
        let r = self.rec(t, pc, addr, size, true);
        self.atomic_now = false;
        for k in (addr & !3..addr + size).step_by(4) {
            if let Some(log) = self.shared_log.remove(&k) {
                let res = self.check(&log, &r, t, Place::Shared { addr, size });
                self.shared_log.insert(k, log);
                res?;
            }
        }
        Ok(())
    }

    /// In a CTA synchronised by clocks (mbarrier pipelines, which may run without any
    /// `bar.sync` to clear the log): drop the records an unconditional plain write `r`
    /// by `t` happens after. A later access that conflicts with one of them and is not
    /// ordered after `r` conflicts with `r` too, so no race goes unreported (FastTrack's
    /// rule), and a pipeline's log stays as long as one round instead of every round.
    fn prune(&self, log: &mut Log<D::V>, r: &Rec<D::V>, t: usize) {
        if !self.synced || !r.write || r.atomic || r.cond.is_some() {
            return;
        }
        let dominated = |a: &Rec<D::V>| a.cond.is_none() && a.cta == r.cta && self.ordered(a, t);
        log.reads.retain(|a| !dominated(a));
        log.writes.retain(|a| !dominated(a));
    }

    pub(super) fn describe<W>(&self, r: &Rec<W>) -> String {
        let ins = &self.entry.body[r.instr];
        let n = self.threads.len();
        let tid = if r.thread >= 2 * n {
            // A tensor-core pipe (see `tcgen05`).
            let [x, y, z] = self.tid_of(r.thread - 2 * n);
            format!("the tcgen05.mma issued by thread ({x}, {y}, {z})")
        } else if r.thread >= n {
            let [x, y, z] = self.tid_of(r.thread - n);
            let on =
                self.bulk_phase
                    .get(&(r.thread, r.instr))
                    .map_or(String::new(), |&(bar, phase)| {
                        format!(
                            " (completing on mbarrier {} in phase {phase})",
                            self.shared_name(bar)
                        )
                    });
            format!("the bulk copy issued by thread ({x}, {y}, {z}){on}")
        } else if r.cta == self.cta {
            let [x, y, z] = self.tid_of(r.thread);
            format!("thread ({x}, {y}, {z})")
        } else {
            let [x, y, z] = self.tid_of(r.thread);
            let [a, b, c] = r.cta;
            format!("thread ({x}, {y}, {z}) of CTA ({a}, {b}, {c})")
        };
        let mut src = String::new();
        if ins.loc.file.is_some() {
            src = format!(", source {}", ins.loc);
            if let Some(inner) = &ins.inner {
                src.push_str(&format!(" (inlined line {})", inner.line));
            }
        }
        let when = if r.cond.is_some() {
            " under a data-dependent condition"
        } else {
            ""
        };
        format!(
            "{tid} {}{when} at line {} (`{}`{src})",
            if r.atomic {
                "atomically updates"
            } else if r.write {
                "writes"
            } else {
                "reads"
            },
            ins.line,
            ins.mnemonic()
        )
    }

    fn place_name(&self, p: Place) -> String {
        match p {
            Place::Global { tensor, off } => self.elem_name(tensor, off),
            Place::Shared { addr, size } => self
                .vars
                .iter()
                .find(|v| addr >= v.addr && addr < v.addr + v.bytes)
                .map_or_else(
                    || format!("shared address {addr:#x}"),
                    |v| {
                        format!(
                            "shared `{}[{}]` (byte {}){}",
                            v.name,
                            (addr - v.addr) / size.max(1),
                            addr - v.addr,
                            self.shared_owner()
                        )
                    },
                ),
        }
    }

    pub(super) fn race_message(&self, a: &Rec<D::V>, b: &Rec<D::V>, what: Place) -> String {
        let what = self.place_name(what);
        let sync = if a.cta != b.cta {
            self.between_ctas()
        } else if a.thread >= 2 * self.threads.len() || b.thread >= 2 * self.threads.len() {
            "with no wait between them for the mbarrier phase the mma's tcgen05.commit completes"
        } else if a.thread >= self.threads.len() || b.thread >= self.threads.len() {
            "with no mbarrier wait for the copy's phase between them"
        } else if self.threads[a.thread].warp == self.threads[b.thread].warp {
            "with no bar.sync or bar.warp.sync between them"
        } else {
            "with no bar.sync between them"
        };
        format!(
            "data race on {what}: {} and {} {sync}",
            self.describe(a),
            self.describe(b)
        )
    }

    pub(super) fn log_shared(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        size: u64,
        write: bool,
    ) -> Result<(), Fail> {
        if !self.races {
            return Ok(());
        }
        let mut r = self.rec(t, pc, addr, size, write);
        if !r.atomic && !self.threads[t].holds.is_empty() {
            (r.locks, r.unfenced_lock) = self.held_locks(t);
        }
        let key = addr & !3;
        let what = Place::Shared { addr, size };
        for k in (0..size.div_ceil(4).max(1)).map(|w| key + 4 * w) {
            // A read of a word nobody wrote since the log was last cleared: nothing to
            // check (a read races only with writes), only to log.
            if !write {
                let log = self.shared_log.entry(k).or_default();
                if log.writes.is_empty() {
                    log.reads.push(r.clone());
                    continue;
                }
            }
            let log = self.shared_log.remove(&k).unwrap_or_default();
            let res = self.check(&log, &r, t, what);
            let mut log = log;
            if res.is_ok() {
                self.prune(&mut log, &r, t);
                if write {
                    log.writes.push(r.clone());
                } else {
                    log.reads.push(r.clone());
                }
            }
            self.shared_log.insert(k, log);
            res?;
        }
        Ok(())
    }

    pub(super) fn log_global(
        &mut self,
        t: usize,
        pc: usize,
        i: usize,
        off: u64,
        size: u64,
        write: bool,
    ) -> Result<(), Fail> {
        if !self.races {
            return Ok(());
        }
        let mut r = self.rec(t, pc, off, size, write);
        if !r.atomic && !self.threads[t].holds.is_empty() {
            (r.locks, r.unfenced_lock) = self.held_locks(t);
        }
        let what = Place::Global { tensor: i, off };
        let role = self.inst.tensors[i].role;
        // One log per 4-byte word the access touches; within a word, two accesses
        // conflict only if their byte ranges overlap (`check`).
        let first = off & !3;
        let words = (off + size.max(1)).div_ceil(4) * 4;
        let (cta, epoch) = (self.cta, self.epoch);
        for key in (first..words).step_by(4).map(|w| (i, w)) {
            let mut log = match self.global_log.remove(&key) {
                Some(log) => log,
                // A read of an input nobody wrote: nothing to check, nothing to log.
                None if !write && role == Role::In => continue,
                None => Log::default(),
            };
            // Accesses of this CTA from earlier epochs can never conflict again.
            log.reads.retain(|a| a.cta != cta || a.epoch == epoch);
            log.writes.retain(|a| a.cta != cta || a.epoch == epoch);
            let res = self.check(&log, &r, t, what);
            if res.is_ok() {
                if write {
                    log.writes.push(r.clone());
                } else if !log.writes.is_empty() || role != Role::In {
                    log.reads.push(r.clone());
                }
            }
            self.global_log.insert(key, log);
            res?;
        }
        Ok(())
    }
}

/// What two racing accesses are: two plain stores to a global element, or another pair.
pub(super) fn clash<V>(a: &Rec<V>, b: &Rec<V>, what: Place) -> Clash {
    let plain_write = |r: &Rec<V>| r.write && !r.atomic;
    if plain_write(a) && plain_write(b) && matches!(what, Place::Global { .. }) {
        Clash::GlobalWrites
    } else {
        Clash::Other
    }
}
