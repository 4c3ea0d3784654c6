//! Triton IR front end: text as Triton 3.x prints it → [`ast::Module`].
//!
//! Architecture invariant: `parse` never panics; on malformed input it returns a
//! [`ParseError`] naming the line, column and what was expected. It depends only on
//! [`ast`] (plain data) and knows nothing of execution.
//!
//! The parser reads Triton's custom assembly forms for `tt`, `arith`, `math`, `scf` and
//! `cf` ops and MLIR's generic `"op"(...)` form, normalising both to [`ast::Op`].
//! Ops it has no special rule for are read generically (keywords, operands,
//! `key = value` pairs, attribute dictionary, `: types`), so the interpreter can report
//! an unsupported op by name.

pub mod ast;
mod error;
pub mod floats;
mod lexer;
mod narrowing;
mod parser;
pub mod slice;

pub use error::ParseError;
pub use narrowing::{
    atomic_adds, masked_loads_without_other, narrowings, ops_where, order_sensitive_atomics,
    Narrowing, NarrowingKind,
};

/// Deepest region nesting `parse` accepts.
pub const MAX_REGION_DEPTH: u32 = parser::MAX_REGION_DEPTH;

/// Parse a whole `.ttir` module.
pub fn parse(src: &str) -> Result<ast::Module, ParseError> {
    let toks = lexer::lex(src)?;
    parser::Parser::new(src, toks).parse_module()
}

#[cfg(test)]
mod tests;
