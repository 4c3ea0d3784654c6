//! The parser's state and its token cursor: [`Parser`] holds the tokens, the position,
//! the location aliases and the region depth; the other `parser` modules add the
//! grammar in `impl Parser` blocks, one concern each.
//!
//! Invariant: the cursor never reads past the final `Eof` token, and every error it
//! makes names `line:col` of the current token.

use std::collections::HashMap;
use std::sync::Arc;

use crate::triton_ir::ast::Loc;
use crate::triton_ir::error::ParseError;
use crate::triton_ir::lexer::{Tok, Token};

/// Deepest nesting of regions (ops inside `scf.for` inside `scf.if` ...).
pub const MAX_REGION_DEPTH: u32 = 64;
/// Deepest nesting of types, attributes and location expressions.
pub(super) const MAX_NEST: u32 = 64;

/// A location expression before alias resolution.
#[derive(Clone, Debug)]
pub(super) enum LocExpr {
    Unknown,
    File {
        file: Arc<str>,
        line: u32,
        col: u32,
    },
    Name {
        name: String,
        child: Option<Box<LocExpr>>,
    },
    CallSite {
        callee: Box<LocExpr>,
        caller: Box<LocExpr>,
    },
    Fused(Vec<LocExpr>),
    Alias(String),
}

pub struct Parser<'a> {
    pub(super) src: &'a str,
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    pub(super) loc_aliases: HashMap<String, LocExpr>,
    pub(super) resolved: HashMap<String, Loc>,
    /// File names shared between locations.
    pub(super) files: HashMap<String, Arc<str>>,
    pub(super) region_depth: u32,
}

pub(super) type PResult<T> = Result<T, ParseError>;

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, toks: Vec<Token>) -> Self {
        Parser {
            src,
            toks,
            pos: 0,
            loc_aliases: HashMap::new(),
            resolved: HashMap::new(),
            files: HashMap::new(),
            region_depth: 0,
        }
    }

    // ---- token access -------------------------------------------------------------

    pub(super) fn tok_at(&self, i: usize) -> &Token {
        // The lexer always ends the stream with Eof; clamp to it.
        let last = self.toks.len().saturating_sub(1);
        &self.toks[i.min(last)]
    }

    pub(super) fn cur(&self) -> &Token {
        self.tok_at(self.pos)
    }

    pub(super) fn peek(&self) -> &Tok {
        &self.cur().tok
    }

    pub(super) fn peek_n(&self, n: usize) -> &Tok {
        &self.tok_at(self.pos.saturating_add(n)).tok
    }

    pub(super) fn bump(&mut self) -> Token {
        let t = self.cur().clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    pub(super) fn at_eof(&self) -> bool {
        matches!(self.peek(), Tok::Eof)
    }

    pub(super) fn err_here(&self, message: impl Into<String>) -> ParseError {
        let t = self.cur();
        ParseError {
            line: t.line,
            col: t.col,
            message: message.into(),
        }
    }

    pub(super) fn expected(&self, what: &str) -> ParseError {
        self.err_here(format!("expected {what}, found {}", self.peek().describe()))
    }

    pub(super) fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    pub(super) fn expect(&mut self, t: &Tok, context: &str) -> PResult<()> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.expected(&format!("{} {context}", t.describe())))
        }
    }

    pub(super) fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(i) if i == s)
    }

    pub(super) fn eat_ident(&mut self, s: &str) -> bool {
        if self.is_ident(s) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Skips a balanced group starting at the current opening token; returns its
    /// source text. Iterative, so safe on any nesting.
    pub(super) fn skip_balanced(&mut self) -> PResult<String> {
        let start = self.cur().start;
        let mut depth: u32 = 0;
        loop {
            let t = self.bump();
            match t.tok {
                Tok::LParen | Tok::LBrace | Tok::LBracket | Tok::LAngle => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RBracket | Tok::RAngle => {
                    depth = depth.saturating_sub(1)
                }
                Tok::Eof => {
                    return Err(ParseError {
                        line: t.line,
                        col: t.col,
                        message: "unbalanced brackets: unexpected end of input".into(),
                    })
                }
                _ => {}
            }
            if depth == 0 {
                return Ok(self.text(start, t.end));
            }
        }
    }

    pub(super) fn text(&self, start: usize, end: usize) -> String {
        self.src.get(start..end).unwrap_or("").to_string()
    }
}
