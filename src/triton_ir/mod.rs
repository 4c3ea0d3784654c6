//! Triton IR front end: text as Triton 3.x prints it → [`ast::Module`].
//!
//! Architecture invariant: `parse` never panics; on malformed input it returns a
//! [`ParseError`] naming the line, column and what was expected.

pub mod ast;

/// A parse failure at `line:col` of the .ttir text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Parse a whole `.ttir` module.
pub fn parse(_src: &str) -> Result<ast::Module, ParseError> {
    todo!()
}
