//! Vector clocks for the happens-before order of a CTA: one component per thread of
//! the CTA, and one per thread's asynchronous copy agent (`cp.async.bulk`, at index
//! `threads + t`). A clock grows on demand; a missing component is 0. In a cluster a
//! clock also holds what it knows of the other CTAs' components (`far`, by cluster
//! rank, each in that CTA's own numbering), learnt through cross-CTA mbarrier phases.
//!
//! Invariant: components only grow; `join` is the element-wise maximum, so an
//! access logged with clock `c` of component `i` is ordered before every later
//! access whose clock has component `i` at least `c` (of rank `r`'s CTA: whose far
//! component `(r, i)` is at least `c`).

#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct VClock(Vec<u32>, Vec<Vec<u32>>);

/// The element-wise maximum of two component vectors.
fn join_into(a: &mut Vec<u32>, b: &[u32]) {
    if a.len() < b.len() {
        a.resize(b.len(), 0);
    }
    for (x, y) in a.iter_mut().zip(b) {
        *x = (*x).max(*y);
    }
}

impl VClock {
    /// The clock of a fresh thread `i`: its own first event.
    pub(super) fn start(i: usize) -> Self {
        let mut c = VClock(vec![0; i + 1], Vec::new());
        c.0[i] = 1;
        c
    }

    /// Every component of the own CTA, in order (missing ones are 0).
    pub(super) fn components(&self) -> &[u32] {
        &self.0
    }

    pub(super) fn get(&self, i: usize) -> u32 {
        self.0.get(i).copied().unwrap_or(0)
    }

    /// Component `i` of the CTA of cluster rank `rank` (another CTA than the clock's).
    pub(super) fn far(&self, rank: usize, i: usize) -> u32 {
        self.1
            .get(rank)
            .and_then(|c| c.get(i))
            .copied()
            .unwrap_or(0)
    }

    pub(super) fn tick(&mut self, i: usize) {
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] += 1;
    }

    pub(super) fn join(&mut self, other: &VClock) {
        join_into(&mut self.0, &other.0);
        if self.1.len() < other.1.len() {
            self.1.resize(other.1.len(), Vec::new());
        }
        for (a, b) in self.1.iter_mut().zip(&other.1) {
            join_into(a, b);
        }
    }

    /// Only component `i` of this clock (what an agent's own event releases, without
    /// what its issuing thread knew).
    pub(super) fn only(&self, i: usize) -> VClock {
        let mut c = VClock(vec![0; i + 1], Vec::new());
        c.0[i] = self.get(i);
        c
    }

    /// This clock of a thread of the CTA of rank `from`, as the CTA of rank `to` numbers
    /// components: its own components become far ones of `from`, its far ones of `to`
    /// its own.
    pub(super) fn moved(&self, from: usize, to: usize) -> VClock {
        let mut far = self.1.clone();
        if far.len() <= from.max(to) {
            far.resize(from.max(to) + 1, Vec::new());
        }
        let own = std::mem::take(&mut far[to]);
        far[from] = self.0.clone();
        VClock(own, far)
    }
}
