//! Where a memory access lands: the storage an address resolves to ([`Place`]), the
//! word an atomic or a lock is keyed by ([`LocKey`]), and how a load at an address
//! computed from data is refused when it cannot be split.
//!
//! Invariant: plain data shared by `memory`, `atomic` and `gather`; it depends on nothing.

/// Where an address points.
pub(super) enum Place {
    Tensor(usize, u64),
    Shared(usize, u64),
    Local(u64),
    /// An initialised module variable (`__cudart_i2opi_f`): variable, byte offset.
    Init(usize, u64),
}

/// A memory word an atomic touches: a shared address or a tensor element (byte offset).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum LocKey {
    Shared(u64),
    Global(usize, u64),
}

/// How an address that is not split over declared index values is refused.
pub(super) const GATHER_UNSUPPORTED: &str = "a load at a data-dependent address";
