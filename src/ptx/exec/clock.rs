//! Vector clocks for the happens-before order of a CTA: one component per thread of
//! the CTA, and one per thread's asynchronous copy agent (`cp.async.bulk`, at index
//! `threads + t`). A clock grows on demand; a missing component is 0.
//!
//! Invariant: components only grow; `join` is the element-wise maximum, so an
//! access logged with clock `c` of component `i` is ordered before every later
//! access whose clock has component `i` at least `c`.

#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct VClock(Vec<u32>);

impl VClock {
    /// The clock of a fresh thread `i`: its own first event.
    pub(super) fn start(i: usize) -> Self {
        let mut c = VClock(vec![0; i + 1]);
        c.0[i] = 1;
        c
    }

    /// Every component, in order (missing ones are 0).
    pub(super) fn components(&self) -> &[u32] {
        &self.0
    }

    pub(super) fn get(&self, i: usize) -> u32 {
        self.0.get(i).copied().unwrap_or(0)
    }

    pub(super) fn tick(&mut self, i: usize) {
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] += 1;
    }

    pub(super) fn join(&mut self, other: &VClock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
    }
}
