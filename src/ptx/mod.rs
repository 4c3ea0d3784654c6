//! PTX front end and CTA simulator: text as NVRTC 12.x / Triton 3.x emit it →
//! [`ast::Module`] → bounded execution of every CTA of a launch over a value
//! [`Domain`](crate::exec::domain::Domain).
//!
//! Architecture invariant: `parse` never panics and returns `line:col: expected ...`
//! errors; `execute` depends only on the parsed module, a concrete launch
//! [`Instance`](crate::launch::Instance) and a domain, does no I/O, and produces the same
//! [`Execution`](crate::exec::Execution) the Triton IR interpreter produces, so specs,
//! deciders and the CLI treat both front ends alike. Shared and global accesses are
//! checked for data races (no warp-synchronous execution assumed), barriers for
//! deadlock, and addresses for bounds.

pub mod ast;
mod exec;
pub mod libm;
mod parser;

pub use exec::{execute, launch_arg_order};
pub use parser::type_bytes;

/// A parse failure at `line:col` of the .ptx text.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{line}:{col}: {message}")]
pub struct ParseError {
    pub line: u32,
    pub col: u32,
    pub message: String,
}

/// Parse a whole `.ptx` file.
pub fn parse(src: &str) -> Result<ast::Module, ParseError> {
    parser::parse(src)
}
