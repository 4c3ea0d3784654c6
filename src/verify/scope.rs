//! The scope a verdict holds in ([`Scope`]) and the candidate constraints tried on the
//! way to it ([`Bound`]).
//!
//! Invariant: plain data.

/// The scope a verdict holds in.
#[derive(Clone, Debug, PartialEq)]
pub enum Scope {
    /// Proved for every size satisfying `constraints` (sizes are at least 1); `bounds`
    /// are the size bounds among them (`N <= 8` as `("N", 8)`).
    AllSizes {
        constraints: Vec<String>,
        bounds: Vec<(String, i64)>,
        /// The sizes the proof fixes to one value (`D == 16` as `("D", 16)`; also in
        /// `bounds`).
        fixed: Vec<(String, i64)>,
    },
    /// Not proved for all sizes; the instance verdict stands.
    Unknown { reason: String },
    /// Wrong at `sizes` (found by Z3, confirmed by the bounded checker).
    Refuted {
        sizes: Vec<(String, i64)>,
        reason: String,
    },
}

/// A candidate constraint: `size <= value`, or `size == value` when `exact`.
#[derive(Clone, Debug)]
pub(super) struct Bound {
    pub(super) size: String,
    pub(super) value: i64,
    pub(super) exact: bool,
}

impl Bound {
    /// Whether `size = v` lies outside this constraint.
    pub(super) fn excludes(&self, size: &str, v: i64) -> bool {
        self.size == size
            && if self.exact {
                v != self.value
            } else {
                v > self.value
            }
    }
}

impl std::fmt::Display for Bound {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let rel = if self.exact { "==" } else { "<=" };
        write!(f, "{} {rel} {}", self.size, self.value)
    }
}
