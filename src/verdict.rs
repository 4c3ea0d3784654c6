//! The answer a command ends with, and its exit code (docs/verdicts.md).
//!
//! Architecture invariant: this is the one place an answer becomes an exit code; every
//! report (`check::Report`, `synth::Lift`, `race::RaceReport`) says its answer as a
//! [`Verdict`], and the CLI exits with [`Verdict::exit_code`]. Errors that end a
//! command before an answer have their own codes (`Error::exit_code`: 2, or 1 for a
//! kernel that faults, 3 for what lift does not support).

/// What a command found. A command that only computes (`lift spec`, `lift run`) ends
/// `Verified` when it succeeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Proved (`VERIFIED`, `SAFE`).
    Verified,
    /// Refuted, or a finding about the kernel (`REFUTED`, `UNDEFINED`, `RACE`, …).
    Refuted,
    /// Not decided (`UNKNOWN`, `STALLED`).
    Unknown,
}

impl Verdict {
    /// docs/verdicts.md exit codes: 0 proved, 1 refuted, 3 unknown.
    pub fn exit_code(self) -> i32 {
        match self {
            Verdict::Verified => 0,
            Verdict::Refuted => 1,
            Verdict::Unknown => 3,
        }
    }
}
