//! Element pairs `decide` leaves open that read integer inputs with declared values
//! (labels `values = ["0..N", -100]`): decided again once per combination of those
//! values, each integer element fixed to a constant.
//!
//! Why: a gather is a select tree over the index's declared values (`term/gather.rs`),
//! and two sides may split it differently where a value is discarded — a kernel that
//! reads `x[row, where(t != -100, t, 0)]` has a leaf for `t < 0` that the spec's
//! ignored class does not. `decide` treats the label as a real, so the combination
//! `t < 0 ∧ t ≠ -100`, which no declared value takes, keeps the forms apart. Fixed to
//! each declared value, both sides fold to plain terms.
//!
//! Invariant: a pair is reported equal only when `decide` proves it equal at every
//! combination of the declared values of every integer element it reads — every input
//! the proof speaks of (docs/launch.md: the refuter, witnesses and cross-check pick only
//! declared values). Anything else leaves the pair as it was (unknown); the number of
//! combinations is bounded by [`crate::prove::MAX_COMBINATIONS`].

pub(super) use crate::prove::equal_by_declared_values;
