//! Multicast bulk copies (`cp.async.bulk{.tensor}...multicast::cluster`) and where any
//! bulk copy lands: the words a copy reads are written by the issuing thread's copy
//! agent into shared memory and their bytes completed on an mbarrier, with a 16-bit CTA
//! mask at the same CTA-relative offsets (data and barrier) in every CTA of the mask.
//!
//! Order: in the issuing CTA as any bulk copy (see `mbarrier`); in a peer the words
//! are logged in its race log as the agent's writes, and the barrier there learns the
//! agent's own clock component as that CTA numbers it (`VClock::moved`), so a thread of the peer is
//! ordered after them once it waited for the phase they completed there, and nothing
//! else orders them (not a cluster barrier: the copy is asynchronous).
//!
//! Invariant: every CTA of the mask gets every word and the copy's whole byte count on
//! its barrier, or the run stops with a finding (a rank outside the cluster, a peer
//! that has exited, a barrier the peer has not initialised).

use super::cluster::{xyz, CLUSTER_BASE, CLUSTER_STRIDE};
use super::*;

impl<'a, D: Domain> Sim<'a, D> {
    /// The shared address a bulk copy writes from `dst`: with a CTA mask the offset in
    /// each CTA of the mask, else an address of the running CTA.
    pub(super) fn copy_destination(
        &mut self,
        t: usize,
        dst: u64,
        multicast: bool,
    ) -> Result<u64, Fail> {
        match Self::window(dst) {
            Some((_, off)) if multicast => Ok(off),
            _ => self.own_shared(t, dst, "a bulk copy"),
        }
    }

    /// Land a bulk copy of thread `t`'s instruction `pc`: its 32-bit `words` (shared
    /// address, value) written by the thread's copy agent at issue, their bytes
    /// completed on the mbarrier operand `bar`. With a CTA mask (`.multicast::cluster`)
    /// the words and the completion land at the same offsets in every CTA of the mask
    /// (a peer's barrier learns the agent's clock as that CTA numbers it).
    pub(super) fn deliver(
        &mut self,
        t: usize,
        pc: usize,
        words: &[(u64, Val<D::V>)],
        bar: Option<&Operand>,
        mask: Option<&Operand>,
    ) -> Result<(), Fail> {
        let (me, n) = self.rank_now();
        let ranks = match mask {
            None => vec![me],
            Some(op) => {
                let v = self.read(t, op, "u16")?;
                let m = self.int(v, "u16")? & 0xffff;
                let ranks: Vec<usize> = (0..16).filter(|r| m >> r & 1 == 1).collect();
                if let Some(&r) = ranks.iter().find(|&&r| r >= n) {
                    return fail(
                        ErrorKind::OutOfBounds,
                        format!(
                            "multicast mask {m:#x} names CTA rank {r}, but the cluster has {n} CTAs"
                        ),
                    );
                }
                if ranks.is_empty() {
                    return fail(
                        ErrorKind::Malformed,
                        "a multicast copy with an empty CTA mask",
                    );
                }
                ranks
            }
        };
        let (bar, vc) = self.start_bulk_copy(t, pc, bar)?;
        let bytes = 4 * words.len() as i64;
        for r in ranks {
            if r != me {
                self.peer_deliver(t, pc, r, words, bar, &vc)?;
                continue;
            }
            for &(to, v) in words {
                if !matches!(
                    self.place(t, to, 4, Some(Space::Shared))?,
                    super::place::Place::Shared(..)
                ) {
                    return fail(
                        ErrorKind::OutOfBounds,
                        "a bulk copy's destination is outside shared memory",
                    );
                }
                self.log_agent_write(t, pc, to, &vc)?;
                self.shared.insert(to, (v, 4));
            }
            self.complete_tx(bar, bytes, &vc)?;
        }
        Ok(())
    }

    /// The part of a multicast copy that lands in peer rank `r`: its words, then its
    /// bytes on the barrier at offset `bar` there.
    fn peer_deliver(
        &mut self,
        t: usize,
        pc: usize,
        r: usize,
        words: &[(u64, Val<D::V>)],
        bar: u64,
        vc: &VClock,
    ) -> Result<(), Fail> {
        let first = words.first().map_or(bar, |w| w.0);
        // A peer whose threads have all exited has no shared memory left.
        self.peer_of(t, CLUSTER_BASE + r as u64 * CLUSTER_STRIDE + first)?;
        let (me, _) = self.rank_now();
        let agent = self.threads.len() + t;
        self.note_remote_as(agent, vc.get(agent), r, pc, first, true);
        // The peer's barrier learns the copy's own writes, not what its issuing thread
        // knew (whether the thread's earlier accesses are ordered by the async proxy's
        // complete-tx the PTX ISA does not say: not assumed).
        let moved = vc.only(agent).moved(me, r);
        let bytes = 4 * words.len() as i64;
        let issuer = (self.threads[t].tid, self.cta);
        let completed = self.with_peer(r, |s| -> Result<bool, Fail> {
            for &(to, v) in words {
                if !matches!(
                    s.place(t, to, 4, Some(Space::Shared))?,
                    super::place::Place::Shared(..)
                ) {
                    return fail(
                        ErrorKind::OutOfBounds,
                        "a multicast copy's destination is outside shared memory",
                    );
                }
                s.log_agent_write(t, pc, to, vc)?;
                s.shared.insert(to, (v, 4));
            }
            s.check_shared_atomic(t, pc, bar, 8)?;
            let name = s.shared_name(bar);
            let Some(b) = s.mbars.get_mut(&bar) else {
                return fail(
                    ErrorKind::Race,
                    format!(
                        "the multicast copy issued by thread {} of CTA {} completes on mbarrier \
                         {name} of CTA {} before that CTA initialises it (nothing orders its \
                         mbarrier.init first), or after it invalidated it",
                        xyz(issuer.0),
                        xyz(issuer.1),
                        xyz(s.visiting.unwrap_or_default()),
                    ),
                );
            };
            b.tx -= bytes;
            b.arrived.join(&moved);
            b.version += 1;
            Ok(b.complete())
        })?;
        if completed {
            self.wake_parked(r, bar);
        }
        Ok(())
    }
}
