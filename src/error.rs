//! The errors a command can end with, and their exit codes (docs/verdicts.md: 0 proved,
//! 1 refuted, 2 usage or input error, 3 unknown).

use crate::exec::{ErrorKind, ExecError};
use crate::launch::LaunchError;
use crate::npy::NpyError;
use crate::triton_ir::ParseError;
use crate::verdict::Verdict;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// Bad command-line usage.
    #[error("{0}")]
    Usage(String),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
    /// The kernel text does not parse: `file:line:col: message`.
    #[error("{file}:{err}")]
    Parse { file: String, err: ParseError },
    #[error(transparent)]
    Launch(#[from] LaunchError),
    #[error(transparent)]
    Npy(#[from] NpyError),
    /// Execution failed: `file:line: op: message [program, source]`.
    #[error("{file}:{}: {err}", err.line)]
    Exec { file: String, err: Box<ExecError> },
}

impl Error {
    /// The verdict an error amounts to: a kernel that faults (out of bounds, reads of
    /// unwritten or masked-off values, races) is refuted; what lift cannot handle is
    /// unknown; the rest (usage, input) is no verdict.
    pub fn verdict(&self) -> Option<Verdict> {
        match self {
            Error::Exec { err, .. } => match err.kind {
                ErrorKind::OutOfBounds
                | ErrorKind::NeverWritten
                | ErrorKind::MaskedOff
                | ErrorKind::WriteToInput
                | ErrorKind::Race
                | ErrorKind::Deadlock
                | ErrorKind::Trap
                | ErrorKind::Undefined => Some(Verdict::Refuted),
                ErrorKind::Unsupported | ErrorKind::Limit => Some(Verdict::Unknown),
                ErrorKind::Launch | ErrorKind::Malformed => None,
            },
            _ => None,
        }
    }

    /// Exit code: the verdict's (1 refuted, 3 unknown), else 2 (usage or input).
    pub fn exit_code(&self) -> i32 {
        self.verdict().map_or(2, Verdict::exit_code)
    }
}
