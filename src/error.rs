//! The errors a command can end with, and their exit codes (docs/verdicts.md: 0 proved,
//! 1 refuted, 2 usage or input error, 3 unknown).

use crate::exec::{ErrorKind, ExecError};
use crate::launch::LaunchError;
use crate::npy::NpyError;
use crate::triton_ir::ParseError;

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
    Exec { file: String, err: ExecError },
}

impl Error {
    /// Exit code: a kernel that faults (out of bounds, reads of unwritten or masked-off
    /// values) is refuted (1); what lift cannot handle is unknown (3); the rest is an
    /// input error (2).
    pub fn exit_code(&self) -> i32 {
        match self {
            Error::Exec { err, .. } => match err.kind {
                ErrorKind::OutOfBounds
                | ErrorKind::NeverWritten
                | ErrorKind::MaskedOff
                | ErrorKind::WriteToInput
                | ErrorKind::Race
                | ErrorKind::Deadlock
                | ErrorKind::Trap => 1,
                ErrorKind::Unsupported | ErrorKind::Limit => 3,
                ErrorKind::Launch | ErrorKind::Malformed => 2,
            },
            _ => 2,
        }
    }
}
