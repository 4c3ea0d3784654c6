//! The abstract state of a CTA at a checkpoint, for the every-count proof (`every`):
//! a text that two states share exactly when the rest of their runs make the same
//! decisions and the same checks, registers aside (`every` compares those itself).
//!
//! What is read as it is: each thread's program counter, blocked state, local memory,
//! carry, non-integer register values, jumps since it last blocked; shared memory;
//! written output elements; mbarriers' expected and pending arrivals and transaction
//! bytes; the race logs' accesses. What is read relative: vector clock values (per
//! component, their rank among the values of that component anywhere in the state:
//! clocks are only joined, compared, and ticked by their owner, who holds the
//! greatest), mbarrier phases (parity), barrier epochs (this one or older), instruction
//! traces (classes of equal ones, in order of first appearance),
//! counters compared for equality only (a probe's versions, effects and changes;
//! the CTA's effect count). What the text does not cover is refused (`Err`):
//! cp.async or wgmma in flight, spin locks held, a spin snapshot, a pending read of
//! unwritten memory, accesses under data-dependent conditions, byte-wise partial
//! outputs, reads or races kept aside until a value is used (the proof's run counts
//! every read as used, so load tags matter to nothing).
//!
//! Invariant: equal texts mean equal futures up to the registers; anything else the
//! run reads is in the text or refused.

use super::*;
use std::collections::BTreeSet;
use std::fmt::Write;

type R<T> = Result<T, String>;

/// Classes of equal values, numbered in order of first appearance.
#[derive(Default)]
struct Classes(HashMap<u64, usize>);

impl Classes {
    fn of(&mut self, v: u64) -> usize {
        let n = self.0.len();
        *self.0.entry(v).or_insert(n)
    }
}

/// Every clock value of each component, to read values by rank.
#[derive(Default)]
struct Ranks(BTreeMap<usize, BTreeSet<u32>>);

impl Ranks {
    fn add(&mut self, vc: &VClock) {
        for (i, &v) in vc.components().iter().enumerate() {
            self.0.entry(i).or_default().insert(v);
        }
    }

    fn add_one(&mut self, i: usize, v: u32) {
        self.0.entry(i).or_default().insert(v);
    }

    fn rank(&self, i: usize, v: u32) -> usize {
        match v {
            0 => 0,
            v => 1 + self.0.get(&i).map_or(0, |s| s.range(1..v).count()),
        }
    }

    fn clock(&self, vc: &VClock, out: &mut String) {
        out.push('[');
        for (i, &v) in vc.components().iter().enumerate() {
            if v != 0 {
                let _ = write!(out, "{i}:{} ", self.rank(i, v));
            }
        }
        out.push(']');
    }
}

impl<'a, D: Domain> Sim<'a, D> {
    /// The abstract state (see the module documentation).
    pub(super) fn abstract_state(&self) -> R<String> {
        if self.pending.is_some() || !self.partial.is_empty() || !self.pieces.is_empty() {
            return Err("a read of unwritten memory or a byte-wise output is pending".into());
        }
        let mut ranks = Ranks::default();
        for th in &self.threads {
            ranks.add(&th.vc);
            ranks.add(&th.bulk_vc);
        }
        for b in self.mbars.values() {
            ranks.add(&b.arrived);
            ranks.add(&b.released);
        }
        for (_, vc) in self.named.values() {
            ranks.add(vc);
        }
        let logs = self.shared_logs();
        for log in logs.iter().map(|(_, l)| *l).chain(self.global_log.values()) {
            for r in log.reads.iter().chain(&log.writes) {
                if r.cta == self.cta {
                    ranks.add_one(r.thread, r.clock);
                }
            }
        }
        let mut traces = Classes::default();
        let mut s = String::new();
        for (t, th) in self.threads.iter().enumerate() {
            if !th.async_open.is_empty()
                || !th.async_groups.is_empty()
                || !th.holds.is_empty()
                || th.retry.is_some()
                || th.snapshot.is_some()
            {
                return Err(format!("thread {t} has copies, locks or a spin in flight"));
            }
            let state = match th.state {
                State::Stuck(pc, w) => format!("stuck {pc} {}", w == self.world),
                State::Spin(..) => return Err("a thread spins on a lock".into()),
                other => format!("{other:?}"),
            };
            let _ = write!(
                s,
                "T{t} pc{} {state} run{} tr{} ",
                th.pc,
                th.run_len,
                traces.of(th.trace)
            );
            ranks.clock(&th.vc, &mut s);
            ranks.clock(&th.bulk_vc, &mut s);
            if let Some(p) = &th.probe {
                if p.copy.is_some() {
                    return Err(format!("thread {t} spins with changing registers"));
                }
                let version = self.mbars.get(&p.addr).map(|b| b.version == p.version);
                let _ = write!(
                    s,
                    " probe{} {} {version:?} {} {}",
                    p.pc,
                    p.addr,
                    p.effects == th.effects,
                    p.changes == th.changes
                );
            }
            let mut local: Vec<_> = th.local.iter().collect();
            local.sort_by_key(|(a, _)| **a);
            let _ = write!(s, " local{local:?} carry{:?} regs", th.carry);
            for (slot, v) in th.regs.iter().enumerate() {
                match v {
                    Some(Val::Bits(_)) => s.push('b'),
                    None => s.push('_'),
                    Some(v) => {
                        let _ = write!(s, "{slot}={v:?}");
                    }
                }
                s.push(',');
            }
            s.push('\n');
        }
        for (addr, b) in &self.mbars {
            let _ = write!(
                s,
                "M{addr} {} {} {} {} ",
                b.expected,
                b.pending,
                b.tx,
                b.phase & 1
            );
            ranks.clock(&b.arrived, &mut s);
            ranks.clock(&b.released, &mut s);
            s.push('\n');
        }
        let mut named: Vec<_> = self.named.iter().collect();
        named.sort_by_key(|(id, _)| **id);
        for (id, (count, vc)) in named {
            let _ = write!(s, "N{id} {count} ");
            ranks.clock(vc, &mut s);
        }
        let _ = write!(s, "\nsynced {}\n", self.synced);
        let mut shared: Vec<_> = self.shared.iter().collect();
        shared.sort_by_key(|(a, _)| **a);
        let _ = writeln!(s, "S{shared:?}");
        for (i, written) in self.global.iter().enumerate() {
            for (j, w) in written.iter().enumerate() {
                if let Some((v, site)) = w {
                    let _ = write!(s, "G{i}[{j}]={v:?}@{site} ");
                }
            }
        }
        s.push('\n');
        for (key, log) in logs {
            let _ = write!(s, "LS{key}:");
            self.log(log, &ranks, &mut traces, &mut s)?;
        }
        let mut global: Vec<_> = self.global_log.iter().collect();
        global.sort_by_key(|(k, _)| **k);
        for (key, log) in global {
            let _ = write!(s, "LG{key:?}:");
            self.log(log, &ranks, &mut traces, &mut s)?;
        }
        if !self.uses.deferred.is_empty() {
            return Err("a race is kept aside until its read is used".into());
        }
        let _ = write!(
            s,
            "\nU{:?} {:?} {:?}",
            self.unpacked, self.abs_args, self.bit_selects
        );
        Ok(s)
    }

    /// The shared logs in address order.
    fn shared_logs(&self) -> Vec<(u64, &Log<D::V>)> {
        let mut v: Vec<_> = self.shared_log.iter().map(|(k, l)| (*k, l)).collect();
        v.sort_by_key(|(k, _)| *k);
        v
    }

    fn log(&self, log: &Log<D::V>, ranks: &Ranks, traces: &mut Classes, s: &mut String) -> R<()> {
        for r in log.reads.iter().chain(&log.writes) {
            if r.cond.is_some() || !r.locks.is_empty() {
                return Err("an access under a data-dependent condition or a lock".into());
            }
            let _ = write!(
                s,
                "{:?} {} {} {} {} {} {} {} {:?} ",
                r.cta,
                r.thread,
                r.write,
                r.instr,
                r.addr,
                r.size,
                r.atomic,
                r.unfenced_lock,
                r.value
            );
            if r.cta == self.cta {
                let _ = write!(
                    s,
                    "e{} c{} tr{} ",
                    r.epoch == self.epoch,
                    ranks.rank(r.thread, r.clock),
                    traces.of(r.trace)
                );
            }
            if r.tag.is_some() {
                return Err("a read kept aside until its value is used".into());
            }
            s.push(';');
        }
        s.push('\n');
        Ok(())
    }
}
