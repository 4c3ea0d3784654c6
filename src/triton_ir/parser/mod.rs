//! Recursive-descent parser from tokens to [`ast::Module`](super::ast::Module).
//!
//! Architecture invariant: never panics and never recurses without bound (regions,
//! types, attributes and location aliases all have depth caps); every error names
//! `line:col` and what was expected. Location aliases (`#locN = loc(...)`, printed after
//! the module) are collected in a first pass over the top level and resolved while the
//! ops are parsed.
//!
//! [`cursor`] holds the parser state; each other module adds one part of the grammar.

mod attrs;
mod cursor;
mod loc;
mod ops;
mod structure;
mod types;

pub use cursor::{Parser, MAX_REGION_DEPTH};
