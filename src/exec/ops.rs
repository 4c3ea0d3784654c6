//! The semantics of each TTIR op (`tt`, `arith`, `math`, `scf`, `cf`).
//!
//! One interpreter, generic over the value [`Domain`](super::domain::Domain): the state
//! and plumbing in `interp.rs`, control flow in `control.rs`, arithmetic, comparisons
//! and casts in `arith.rs`, memory in `memory.rs`, reductions
//! and scans in `reduce.rs`; the op names themselves are read in `exec::table`.

mod arith;
mod control;
mod fork;
mod gather;
pub(crate) mod int;
mod interp;
mod lanes;
mod masked;
mod memory;
mod reduce;
mod select;

pub(crate) use interp::Interp;
