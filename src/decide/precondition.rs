//! Preconditions of an `Equal` verdict: an expression the proof assumed non-zero,
//! positive or non-negative (a denominator, a `log` or `sqrt` argument). Plain data,
//! shared by `canon`, which records them, and the verdicts that carry them.
//!
//! Invariant: plain data; printed as `expr != 0`, `expr > 0` or `expr >= 0`.

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PreKind {
    NonZero,
    Positive,
    NonNegative,
}

/// `expr != 0`, `expr > 0` or `expr >= 0`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Precondition {
    pub kind: PreKind,
    pub expr: String,
}

impl std::fmt::Display for Precondition {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let op = match self.kind {
            PreKind::NonZero => "!= 0",
            PreKind::Positive => "> 0",
            PreKind::NonNegative => ">= 0",
        };
        write!(f, "{} {op}", self.expr)
    }
}
