//! The race log: every shared and global access with its thread, instruction, barrier
//! epoch and the lane's vector clock. Two accesses to overlapping bytes by different
//! threads, one a write, race unless a `bar.sync` of the CTA or (same warp) a chain of
//! `bar.warp.sync`s orders them.
//!
//! Invariant: a race is reported with both accesses (thread, line, source); a race
//! that only repeats an earlier read of never-written memory reports that read.

use super::*;

/// One logged memory access.
#[derive(Clone, Debug)]
pub(super) struct Rec {
    pub(super) cta: [i64; 3],
    pub(super) thread: usize,
    pub(super) epoch: u32,
    pub(super) clock: u32,
    pub(super) write: bool,
    pub(super) instr: usize,
    pub(super) addr: u64,
    pub(super) size: u64,
}

#[derive(Default)]
pub(super) struct Log {
    pub(super) reads: Vec<Rec>,
    pub(super) writes: Vec<Rec>,
}

/// Marks a race that an earlier read of never-written memory explains better.
pub(super) const PENDING: &str = "<pending never-written read>";

impl<'a, D: Domain> Sim<'a, D> {
    pub(super) fn rec(&self, t: usize, pc: usize, addr: u64, size: u64, write: bool) -> Rec {
        let th = &self.threads[t];
        Rec {
            cta: self.cta,
            thread: t,
            epoch: self.epoch,
            clock: th.vc[th.lane],
            write,
            instr: pc,
            addr,
            size,
        }
    }

    /// Whether `a` (logged earlier) is ordered before the current access of thread `t`.
    pub(super) fn ordered(&self, a: &Rec, t: usize) -> bool {
        if a.cta != self.cta {
            return false;
        }
        if a.thread == t || a.epoch < self.epoch {
            return true;
        }
        let th = &self.threads[t];
        let other = &self.threads[a.thread];
        other.warp == th.warp && th.vc[other.lane] >= a.clock
    }

    pub(super) fn check(&self, log: &Log, r: &Rec, t: usize, what: &str) -> Result<(), Fail> {
        let others = if r.write {
            log.writes.iter().chain(log.reads.iter())
        } else {
            log.writes.iter().chain([].iter())
        };
        for a in others {
            let overlap = a.addr < r.addr + r.size && r.addr < a.addr + a.size;
            if !overlap || (a.cta == r.cta && a.thread == t) || self.ordered(a, t) {
                continue;
            }
            // A read of unwritten memory that is not itself part of this race is the
            // kernel's first fault (the race only repeats it).
            if let Some(p) = &self.pending_rec {
                let same = |x: &Rec| {
                    x.cta == p.cta && x.thread == p.thread && x.instr == p.instr && x.addr == p.addr
                };
                if !same(a) && !same(r) {
                    return Err((ErrorKind::NeverWritten, PENDING.into()));
                }
            }
            return Err((ErrorKind::Race, self.race_message(a, r, what)));
        }
        Ok(())
    }

    pub(super) fn describe(&self, r: &Rec) -> String {
        let ins = &self.entry.body[r.instr];
        let tid = if r.cta == self.cta {
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
        format!(
            "{tid} {} at line {} (`{}`{src})",
            if r.write { "writes" } else { "reads" },
            ins.line,
            ins.mnemonic()
        )
    }

    pub(super) fn race_message(&self, a: &Rec, b: &Rec, what: &str) -> String {
        let sync = if a.cta != b.cta {
            "in different CTAs"
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
        let r = self.rec(t, pc, addr, size, write);
        let key = addr & !3;
        let what = self
            .vars
            .iter()
            .find(|v| addr >= v.addr && addr < v.addr + v.bytes)
            .map_or_else(
                || format!("shared address {addr:#x}"),
                |v| {
                    format!(
                        "shared `{}[{}]` (byte {})",
                        v.name,
                        (addr - v.addr) / size.max(1),
                        addr - v.addr
                    )
                },
            );
        let mut keys = vec![key];
        if size > 4 {
            keys.extend((1..size.div_ceil(4)).map(|k| key + 4 * k));
        }
        for k in keys {
            let log = self.shared_log.remove(&k).unwrap_or_default();
            let res = self.check(&log, &r, t, &what);
            let mut log = log;
            if res.is_ok() {
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
        let r = self.rec(t, pc, off, size, write);
        let td = &self.inst.tensors[i];
        let what = format!("`{}`{:?}", td.name, td.unravel((off / ELEM_BYTES) as usize));
        let key = (i, off);
        let mut log = self.global_log.remove(&key).unwrap_or_default();
        // Accesses of this CTA from earlier epochs can never conflict again.
        let (cta, epoch) = (self.cta, self.epoch);
        log.reads.retain(|a| a.cta != cta || a.epoch == epoch);
        log.writes.retain(|a| a.cta != cta || a.epoch == epoch);
        let res = self.check(&log, &r, t, &what);
        if res.is_ok() {
            if write {
                log.writes.push(r);
            } else if !log.writes.is_empty() || td.role != Role::In {
                log.reads.push(r);
            }
        }
        self.global_log.insert(key, log);
        res
    }
}
