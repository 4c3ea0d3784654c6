//! How a bounded run fails: an [`ErrorKind`] for tests and exit codes, a [`Fail`] before
//! it is tied to an op, and an [`ExecError`] that names the op's .ttir line, its Python
//! source line and the program.
//!
//! Invariant: plain data; every executor (TTIR and PTX) reports through these.

use crate::triton_ir::ast::Loc;
use std::fmt;

/// An error of a bounded run before it is tied to an op (`ExecError` names the op).
#[derive(Debug)]
pub(crate) struct Fail {
    pub(crate) kind: ErrorKind,
    pub(crate) message: String,
}

pub(crate) type R<T> = Result<T, Fail>;

pub(crate) fn fail<T>(kind: ErrorKind, message: impl Into<String>) -> R<T> {
    Err(Fail {
        kind,
        message: message.into(),
    })
}

/// What went wrong, for tests and exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A load or store outside its tensor.
    OutOfBounds,
    /// A read of an output element no program wrote before.
    NeverWritten,
    /// A masked-off lane loaded without `other=` (an undefined value) is stored, or
    /// used as an address, a mask or a branch condition.
    MaskedOff,
    /// A write into a tensor the launch declares as an input.
    WriteToInput,
    /// The launch does not fit the kernel (missing or mistyped arguments).
    Launch,
    /// An op or an op form the interpreter does not support.
    Unsupported,
    /// Ill-typed IR (shape or element-kind mismatch).
    Malformed,
    /// The run would exceed a safety limit (loop trips, steps).
    Limit,
    /// PTX: two unsynchronised accesses to the same address, at least one a write.
    Race,
    /// PTX: a barrier that can never complete (some threads never arrive, or threads
    /// wait at different barriers).
    Deadlock,
    /// PTX: a reachable `trap` (the kernel aborts).
    Trap,
    /// An operation whose result the GPU leaves undefined (integer division by zero, an
    /// LLVM shift by the width or more): a fault of the kernel, like an out-of-bounds
    /// access, not a limit of lift.
    Undefined,
}

/// The two accesses of a race ([`ErrorKind::Race`]), typed for callers that judge a
/// race rather than print it (`infer_launch` rejects a launch whose threads write one
/// output element twice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clash {
    /// Two plain stores to one element of a global tensor.
    GlobalWrites,
    /// Any other pair: a read and a write, an atomic, shared memory, an async copy.
    Other,
}

/// An execution error with the place it happened.
#[derive(Clone, Debug, PartialEq)]
pub struct ExecError {
    pub kind: ErrorKind,
    pub message: String,
    /// Line of the op in the .ttir file (0 when not tied to an op).
    pub line: u32,
    /// The op's Python source location.
    pub loc: Loc,
    /// The program (x, y, z) that was running.
    pub program: [i64; 3],
    /// For a race, what collided (`None` for every other error).
    pub clash: Option<Clash>,
    /// For a read of an output element never written ([`ErrorKind::NeverWritten`]), the
    /// tensor read (its index in the launch instance): a caller that settles roles makes
    /// it `inout` without reading the message.
    pub unwritten: Option<usize>,
}

impl fmt::Display for ExecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [x, y, z] = self.program;
        write!(f, "{}", self.message)?;
        if self.line > 0 {
            write!(f, " [program ({x}, {y}, {z})")?;
            if self.loc.file.is_some() {
                write!(f, ", source {}", self.loc)?;
            }
            write!(f, "]")?;
        }
        Ok(())
    }
}

impl std::error::Error for ExecError {}
