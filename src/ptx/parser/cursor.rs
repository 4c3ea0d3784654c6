//! The parser's state ([`Parser`], and [`BodyState`] for one body) and its token
//! cursor: peeking, eating and expecting tokens, and errors at the current token.
//!
//! Invariant: never panics; an error names the line and column of the current token.

use super::lexer::{Tok, Token};
use crate::ptx::ast::*;
use crate::ptx::error::ParseError;
use crate::ptx::scope::Scopes;
use crate::triton_ir::ast::Loc;

pub(super) struct Parser {
    pub(super) toks: Vec<Token>,
    pub(super) pos: usize,
    pub(super) module: Module,
    /// Call-site `.param` variables declared so far (their unique-name suffix).
    pub(super) next_param: usize,
}

/// Body-parsing state of one entry.
pub(super) struct BodyState {
    /// Registers, labels, variables and call-site `.param` names of the open blocks.
    pub(super) scopes: Scopes,
    /// Registers declared before the body (a `.func`'s `.reg` parameters).
    pub(super) pre: Vec<(String, u32)>,
    pub(super) loc: Loc,
    pub(super) inner: Option<Loc>,
    pub(super) last_plain: Option<Loc>,
}

impl BodyState {
    pub(super) fn new() -> Self {
        BodyState {
            scopes: Scopes::default(),
            pre: Vec::new(),
            loc: Loc::default(),
            inner: None,
            last_plain: None,
        }
    }
}
impl Parser {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    pub(super) fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }

    pub(super) fn here(&self) -> (u32, u32) {
        match self.toks.get(self.pos) {
            Some(t) => (t.line, t.col),
            None => self
                .toks
                .last()
                .map_or((1, 1), |t| (t.line, t.col + t.text.len() as u32)),
        }
    }

    pub(super) fn err<T>(&self, what: &str) -> Result<T, ParseError> {
        let (line, col) = self.here();
        let found = match self.toks.get(self.pos) {
            Some(t) => format!("'{}'", t.text),
            None => "end of file".into(),
        };
        Err(ParseError {
            line,
            col,
            message: format!("expected {what}, found {found}"),
        })
    }

    /// Whether token `pos + k` starts right where token `pos + k - 1` ends (no space).
    pub(super) fn adjacent(&self, k: usize) -> bool {
        let i = self.pos + k;
        match (
            i.checked_sub(1).and_then(|j| self.toks.get(j)),
            self.toks.get(i),
        ) {
            (Some(a), Some(b)) => {
                a.line == b.line && a.col as usize + a.text.chars().count() == b.col as usize
            }
            _ => false,
        }
    }

    pub(super) fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    pub(super) fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn expect_punct(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.err(&format!("'{c}'"))
        }
    }

    pub(super) fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(x)) if x == s)
    }

    pub(super) fn eat_ident(&mut self, s: &str) -> bool {
        if self.is_ident(s) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn ident(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => self.err(what),
        }
    }

    pub(super) fn int(&mut self, what: &str) -> Result<i64, ParseError> {
        let neg = self.eat_punct('-');
        match self.peek() {
            Some(Tok::Int(v)) => {
                let v = *v;
                self.pos += 1;
                Ok(if neg { v.wrapping_neg() } else { v })
            }
            _ => self.err(what),
        }
    }

    /// Skip to just after the next `;` at this brace depth.
    pub(super) fn skip_statement(&mut self) -> Result<(), ParseError> {
        let mut depth = 0i32;
        loop {
            match self.peek() {
                None => return self.err("';'"),
                Some(Tok::Punct(';')) if depth == 0 => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth -= 1,
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Skip a balanced `{ ... }` starting at the current `{`.
    /// A flat initializer `{1, 2, ...}` of integers, as little-endian bytes of `elem`
    /// bytes each; `None` (skipped) for any other initializer.
    pub(super) fn int_list(
        &mut self,
        elem: u64,
        relocs: &mut Vec<(u64, String)>,
    ) -> Result<Option<Vec<u8>>, ParseError> {
        let start = self.pos;
        self.expect_punct('{')?;
        let mut bytes = Vec::new();
        loop {
            match self.peek() {
                // A symbol (a function pointer table): patched once the module is read.
                Some(Tok::Ident(name)) if !name.starts_with('.') && elem == 8 => {
                    let mut name = name.clone();
                    self.pos += 1;
                    if name == "generic" && self.eat_punct('(') {
                        name = self.ident("a symbol")?;
                        self.expect_punct(')')?;
                    }
                    relocs.push((bytes.len() as u64, name));
                    bytes.extend_from_slice(&[0; 8]);
                }
                Some(Tok::Int(v)) => {
                    let v = *v;
                    self.pos += 1;
                    bytes.extend_from_slice(&v.to_le_bytes()[..elem.min(8) as usize]);
                }
                // a negative element, `-125`: two tokens
                Some(Tok::Punct('-')) if matches!(self.peek_at(1), Some(Tok::Int(_))) => {
                    let v = self.int("an integer")?;
                    bytes.extend_from_slice(&v.to_le_bytes()[..elem.min(8) as usize]);
                }
                Some(Tok::Punct(',')) => self.pos += 1,
                Some(Tok::Punct('}')) => {
                    self.pos += 1;
                    return Ok(Some(bytes));
                }
                _ => {
                    self.pos = start;
                    relocs.clear();
                    self.skip_braces()?;
                    return Ok(None);
                }
            }
        }
    }

    /// A scalar initializer `= 1`, `= -125` (libcu++'s `numeric_limits` members, which
    /// `cooperative_groups.h` pulls in) or `= 0f3F800000`, as little-endian bytes of
    /// `elem` bytes; anything else (an address expression) is skipped up to the `;`
    /// and gives `None`.
    pub(super) fn scalar_init(&mut self, elem: u64) -> Option<Vec<u8>> {
        let start = self.pos;
        let neg = self.eat_punct('-');
        let bits = match self.peek() {
            Some(Tok::Int(v)) => Some(if neg {
                v.wrapping_neg() as u64
            } else {
                *v as u64
            }),
            Some(Tok::FBits { bits, .. }) if !neg => Some(*bits),
            _ => None,
        };
        if let Some(b) = bits {
            if self.peek_at(1) == Some(&Tok::Punct(';')) {
                self.pos += 1;
                return Some(b.to_le_bytes()[..elem.min(8) as usize].to_vec());
            }
        }
        self.pos = start;
        while self.peek().is_some() && !self.is_punct(';') {
            self.pos += 1;
        }
        None
    }

    pub(super) fn skip_braces(&mut self) -> Result<(), ParseError> {
        self.expect_punct('{')?;
        let mut depth = 1;
        while depth > 0 {
            match self.peek() {
                None => return self.err("'}'"),
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth -= 1,
                _ => {}
            }
            self.pos += 1;
        }
        Ok(())
    }
}
