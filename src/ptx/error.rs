//! The front end's one error type: where in the text parsing failed, and why.
//!
//! Invariant: plain data; every parse failure is one of these, never a panic.

/// A parse failure at `line:col` of the .ptx text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}
