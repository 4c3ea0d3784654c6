//! Spin loops: a thread that jumps back to an instruction with its registers and local
//! memory as they were the last time there, and made no memory effect since, would
//! loop forever: while it runs, no other thread runs, so everything it can read is
//! unchanged. The scheduler then blocks it until another thread makes a memory effect
//! (a store, an atomic, an mbarrier arrival, a bulk copy) and switches to the others;
//! a spin-wait on a flag another thread sets costs a few iterations, not the
//! instruction cap. Probing starts only after a thread has made `PROBE_AFTER` jumps
//! without blocking, so that ordinary loops pay nothing.
//!
//! Invariant: a thread is blocked only when its next iterations would repeat exactly
//! (a deterministic thread over unchanged memory); it wakes at the first effect of
//! another thread; a CTA where every thread left is blocked this way is a deadlock
//! naming the spinning threads and their lines.

use super::*;

/// Jumps a thread makes without blocking before its loops are probed.
const PROBE_AFTER: u64 = 100_000;

/// A thread's state at a backward jump's target.
pub(super) struct Snapshot<V> {
    pc: usize,
    effects: u64,
    regs: Vec<Option<Val<V>>>,
    local: HashMap<u64, Val<V>>,
}

impl<'a, D: Domain> Sim<'a, D> {
    /// Thread `t` jumps from `pc` to `to`: the state that blocks it when it spins.
    pub(super) fn spin_check(&mut self, t: usize, pc: usize, to: usize) -> Option<State> {
        // Inside an if-converted data-dependent branch the thread runs both sides.
        if self.path.is_some() {
            return None;
        }
        let th = &mut self.threads[t];
        th.run_len += 1;
        if to > pc || th.run_len < PROBE_AFTER {
            return None;
        }
        let same = th.snapshot.as_ref().is_some_and(|s| {
            s.pc == to && s.effects == th.effects && s.regs == th.regs && s.local == th.local
        });
        if same {
            // Woken, it probes again at once (run_len stays high).
            th.snapshot = None;
            return Some(State::Stuck(to, self.world));
        }
        th.snapshot = Some(Snapshot {
            pc: to,
            effects: th.effects,
            regs: th.regs.clone(),
            local: th.local.clone(),
        });
        None
    }

    /// Wake the spinning threads some other thread's effect may release.
    pub(super) fn wake_stuck(&mut self) -> bool {
        let mut any = false;
        for th in &mut self.threads {
            if matches!(th.state, State::Stuck(_, w) if w != self.world) {
                th.state = State::Ready;
                any = true;
            }
        }
        any
    }
}
