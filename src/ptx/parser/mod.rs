//! Lexer and parser for PTX as NVRTC 12.x and Triton 3.x emit it.
//!
//! Architecture invariant: never panics; a malformed file gives a [`ParseError`] with
//! the line, column and what was expected. Debug sections and pragmas are skipped;
//! everything an entry executes is kept. `.func` bodies are parsed like entries and
//! their calls inlined into the entries by `calls::inline` (call-site `.param` blocks
//! get module-unique names here, so that the inliner can match them by name).
//!
//! [`lexer`] makes tokens, [`cursor`] holds the parser state, [`module`] reads the
//! directives and declarations, [`body`] an entry's or function's instructions.

mod body;
mod cursor;
mod lexer;
mod module;

use crate::ptx::ast::*;
use crate::ptx::error::ParseError;
use crate::triton_ir::ast::Loc;
use cursor::Parser;
use lexer::lex;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Parse a whole .ptx file.
pub fn parse(src: &str) -> Result<Module, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        module: Module::default(),
        next_param: 0,
    };
    p.module()?;
    let mut module = p.module;
    super::calls::inline(&mut module)?;
    let files: BTreeMap<u32, Arc<str>> = module
        .files
        .iter()
        .map(|(k, v)| (*k, Arc::from(v.as_str())))
        .collect();
    let fix = |loc: &mut Loc| {
        let num = loc.file.as_ref().and_then(|f| f.parse::<u32>().ok());
        loc.file = num.and_then(|n| files.get(&n).cloned());
    };
    for e in &mut module.entries {
        for ins in &mut e.body {
            fix(&mut ins.loc);
            if let Some(inner) = &mut ins.inner {
                fix(inner);
            }
        }
    }
    Ok(module)
}
