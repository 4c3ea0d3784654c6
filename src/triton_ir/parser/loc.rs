//! Locations: a trailing `loc(...)` and the `#locN` aliases it may name, resolved to
//! [`Loc`] with a depth cap and memoised.
//!
//! Invariant: location expressions and alias chains are depth-capped (`MAX_NEST`), so a
//! cyclic alias is an error, never a loop.

use std::sync::Arc;

use super::cursor::{LocExpr, PResult, Parser, MAX_NEST};
use crate::triton_ir::ast::Loc;
use crate::triton_ir::error::ParseError;
use crate::triton_ir::lexer::{Tok, Token};

impl Parser<'_> {
    /// An optional trailing `loc(...)`, resolved.
    pub(super) fn parse_opt_loc(&mut self) -> PResult<Option<Loc>> {
        if !(self.is_ident("loc") && matches!(self.peek_n(1), Tok::LParen)) {
            return Ok(None);
        }
        let at = self.cur().clone();
        let e = self.parse_loc_expr_wrapped()?;
        self.resolve(&e, 0, &at).map(Some)
    }

    /// `loc(...)`
    pub(super) fn parse_loc_expr_wrapped(&mut self) -> PResult<LocExpr> {
        if !self.eat_ident("loc") {
            return Err(self.expected("'loc'"));
        }
        self.expect(&Tok::LParen, "after 'loc'")?;
        let e = self.parse_loc_expr(0)?;
        self.expect(&Tok::RParen, "to close loc(...)")?;
        Ok(e)
    }

    pub(super) fn parse_loc_expr(&mut self, depth: u32) -> PResult<LocExpr> {
        if depth > MAX_NEST {
            return Err(self.err_here("location nested too deeply"));
        }
        match self.peek().clone() {
            Tok::Hash(a) => {
                self.bump();
                Ok(LocExpr::Alias(a))
            }
            Tok::Ident(k) if k == "unknown" => {
                self.bump();
                Ok(LocExpr::Unknown)
            }
            Tok::Ident(k) if k == "callsite" => {
                self.bump();
                self.expect(&Tok::LParen, "after 'callsite'")?;
                let callee = self.parse_loc_expr(depth + 1)?;
                if !self.eat_ident("at") {
                    return Err(self.expected("'at' in callsite(...)"));
                }
                let caller = self.parse_loc_expr(depth + 1)?;
                self.expect(&Tok::RParen, "to close callsite(...)")?;
                Ok(LocExpr::CallSite {
                    callee: Box::new(callee),
                    caller: Box::new(caller),
                })
            }
            Tok::Ident(k) if k == "fused" => {
                self.bump();
                if matches!(self.peek(), Tok::LAngle) {
                    self.skip_balanced()?;
                }
                self.expect(&Tok::LBracket, "after 'fused'")?;
                let mut v = Vec::new();
                if !self.eat(&Tok::RBracket) {
                    loop {
                        v.push(self.parse_loc_expr(depth + 1)?);
                        if self.eat(&Tok::RBracket) {
                            break;
                        }
                        self.expect(&Tok::Comma, "or ']' in fused[...]")?;
                    }
                }
                Ok(LocExpr::Fused(v))
            }
            Tok::Str(s) => {
                self.bump();
                if self.eat(&Tok::Colon) {
                    let line = self.loc_number("a line number")?;
                    self.expect(&Tok::Colon, "after the line number")?;
                    let col = self.loc_number("a column number")?;
                    // Newer MLIR prints ranges: `"f":1:2 to 3:4` / `to :4`.
                    if self.eat_ident("to") {
                        if matches!(self.peek(), Tok::Int(_)) {
                            self.bump();
                        }
                        if self.eat(&Tok::Colon) {
                            self.loc_number("a column number")?;
                        }
                    }
                    let file = self.intern_file(&s);
                    Ok(LocExpr::File { file, line, col })
                } else if self.eat(&Tok::LParen) {
                    let child = self.parse_loc_expr(depth + 1)?;
                    self.expect(&Tok::RParen, "to close a named location")?;
                    Ok(LocExpr::Name {
                        name: s,
                        child: Some(Box::new(child)),
                    })
                } else {
                    Ok(LocExpr::Name {
                        name: s,
                        child: None,
                    })
                }
            }
            _ => Err(self.expected("a location")),
        }
    }

    pub(super) fn loc_number(&mut self, what: &str) -> PResult<u32> {
        match self.peek().clone() {
            Tok::Int(s) => match s.parse::<u32>() {
                Ok(n) => {
                    self.bump();
                    Ok(n)
                }
                Err(_) => Err(self.expected(what)),
            },
            _ => Err(self.expected(what)),
        }
    }

    pub(super) fn intern_file(&mut self, s: &str) -> Arc<str> {
        if let Some(f) = self.files.get(s) {
            return f.clone();
        }
        let f: Arc<str> = Arc::from(s);
        self.files.insert(s.to_string(), f.clone());
        f
    }

    pub(super) fn resolve(&mut self, e: &LocExpr, depth: u32, at: &Token) -> PResult<Loc> {
        if depth > 4 * MAX_NEST {
            return Err(ParseError {
                line: at.line,
                col: at.col,
                message: "location aliases form a cycle or nest too deeply".into(),
            });
        }
        Ok(match e {
            LocExpr::Unknown => Loc::default(),
            LocExpr::File { file, line, col } => Loc {
                file: Some(file.clone()),
                line: *line,
                col: *col,
                name: None,
            },
            LocExpr::Name { name, child } => {
                let mut l = match child {
                    Some(c) => self.resolve(c, depth + 1, at)?,
                    None => Loc::default(),
                };
                l.name = Some(name.clone());
                l
            }
            LocExpr::CallSite { callee, caller } => {
                // The outermost caller is the user's line.
                let outer = self.resolve(caller, depth + 1, at)?;
                if outer.file.is_some() {
                    outer
                } else {
                    self.resolve(callee, depth + 1, at)?
                }
            }
            LocExpr::Fused(v) => {
                let mut first = Loc::default();
                for (i, x) in v.iter().enumerate() {
                    let l = self.resolve(x, depth + 1, at)?;
                    if l.file.is_some() {
                        return Ok(l);
                    }
                    if i == 0 {
                        first = l;
                    }
                }
                first
            }
            LocExpr::Alias(a) => {
                if let Some(l) = self.resolved.get(a) {
                    return Ok(l.clone());
                }
                let Some(def) = self.loc_aliases.get(a).cloned() else {
                    return Err(ParseError {
                        line: at.line,
                        col: at.col,
                        message: format!("undefined location alias '#{a}'"),
                    });
                };
                let l = self.resolve(&def, depth + 1, at)?;
                self.resolved.insert(a.clone(), l.clone());
                l
            }
        })
    }
}
