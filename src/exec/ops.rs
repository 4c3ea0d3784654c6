//! The bounded run of a TTIR module ([`Interp`]): concrete sizes, machine integers, over
//! any value [`Domain`](super::domain::Domain). Ops are dispatched by the one walk
//! (`exec::walk`); this module is the bounded run's hooks of it: the state and plumbing in
//! `interp.rs`, branches, loop trips, lane maps and `scf.while` in `control.rs`, integer
//! ops on machine integers in `arith.rs` (`int.rs`), memory in `memory.rs` (atomics in
//! `atomic.rs`, what orders the programs' accesses in `order.rs`), forks on the data in `fork.rs` (`tt.scan` is the walk's own,
//! `exec/walk/scan.rs`).

mod arith;
mod atomic;
mod atomic_bits;
mod control;
mod fork;
mod gather;
pub(crate) mod int;
mod interp;
mod lanes;
mod masked;
mod memory;
mod order;
mod select;

pub(crate) use interp::Interp;
