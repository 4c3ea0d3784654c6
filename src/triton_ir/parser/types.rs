//! Types: the type list after an op's `:` ([`TypeSpec`]) and single types, read from
//! the source bytes by [`TypeText`] so that `4x8xf32` needs no special lexing.
//!
//! Invariant: type nesting is capped at `MAX_NEST`; malformed types are errors, never
//! panics.

use super::cursor::{PResult, Parser, MAX_NEST};
use crate::triton_ir::ast::{FloatKind, Type};
use crate::triton_ir::error::ParseError;
use crate::triton_ir::lexer::Tok;

/// How the types after an op's `:` were written.
#[derive(Debug)]
pub(super) enum TypeSpec {
    None,
    /// `T` or `T1, T2, ...`
    List(Vec<Type>),
    /// `T1 to T2`, `T1 -> T2`, `(T...) -> (R...)`
    Arrow(Vec<Type>, Vec<Type>),
    /// `tt.dot`: `A * B -> C`
    Dot(Type, Type, Type),
}

impl Parser<'_> {
    /// After `:` of an op: `T`, `T, U`, `T to U`, `T -> U`, `(T..) -> (U..)`, `A * B -> C`.
    pub(super) fn parse_type_spec(&mut self) -> PResult<TypeSpec> {
        if matches!(self.peek(), Tok::LParen) {
            let ins = self.parse_paren_types()?;
            self.expect(&Tok::Arrow, "after '(types)' of a function type")?;
            let outs = self.parse_type_list_maybe_paren()?;
            return Ok(TypeSpec::Arrow(ins, outs));
        }
        let t = self.parse_type()?;
        if self.eat_ident("to") {
            let u = self.parse_type()?;
            return Ok(TypeSpec::Arrow(vec![t], vec![u]));
        }
        if self.eat(&Tok::Arrow) {
            let outs = self.parse_type_list_maybe_paren()?;
            return Ok(TypeSpec::Arrow(vec![t], outs));
        }
        if self.eat(&Tok::Star) {
            let b = self.parse_type()?;
            self.expect(&Tok::Arrow, "after 'A * B' of tt.dot")?;
            let c = self.parse_type()?;
            return Ok(TypeSpec::Dot(t, b, c));
        }
        let mut v = vec![t];
        while matches!(self.peek(), Tok::Comma) {
            self.bump();
            v.push(self.parse_type()?);
        }
        Ok(TypeSpec::List(v))
    }

    pub(super) fn parse_paren_types(&mut self) -> PResult<Vec<Type>> {
        self.expect(&Tok::LParen, "to open a type list")?;
        let mut v = Vec::new();
        if self.eat(&Tok::RParen) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_type()?);
            if self.eat(&Tok::RParen) {
                return Ok(v);
            }
            self.expect(&Tok::Comma, "or ')' in a type list")?;
        }
    }

    pub(super) fn parse_type_list_maybe_paren(&mut self) -> PResult<Vec<Type>> {
        if matches!(self.peek(), Tok::LParen) {
            self.parse_paren_types()
        } else {
            Ok(vec![self.parse_type()?])
        }
    }

    pub fn parse_type(&mut self) -> PResult<Type> {
        Ok(self.parse_type_raw()?.0)
    }

    /// Parses a type from the source text at the current token; returns it with its
    /// source text, and moves past the tokens it covered.
    pub(super) fn parse_type_raw(&mut self) -> PResult<(Type, String)> {
        let t = self.cur().clone();
        if t.tok == Tok::Eof {
            return Err(self.expected("a type"));
        }
        let mut tp = TypeText {
            s: self.src.as_bytes(),
            pos: t.start,
        };
        let ty = match tp.ty(0) {
            Some(ty) => ty,
            None => {
                return Err(ParseError {
                    line: t.line,
                    col: t.col,
                    message: format!("expected a type, found {}", t.tok.describe()),
                })
            }
        };
        let end = tp.pos;
        while self.cur().start < end && !self.at_eof() {
            self.bump();
        }
        Ok((ty, self.text(t.start, end)))
    }
}
/// Types read directly from the source bytes (so that `4x8xf32` needs no special
/// lexing). Every method returns `None` on malformed input and never panics.
pub(super) struct TypeText<'s> {
    s: &'s [u8],
    pos: usize,
}

impl TypeText<'_> {
    pub(super) fn peek(&self) -> u8 {
        self.s.get(self.pos).copied().unwrap_or(0)
    }

    pub(super) fn ws(&mut self) {
        while matches!(self.peek(), b' ' | b'\t' | b'\r' | b'\n') {
            self.pos += 1;
        }
    }

    pub(super) fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == c {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    pub(super) fn word(&mut self) -> &str {
        let start = self.pos;
        while self.peek().is_ascii_alphanumeric() || matches!(self.peek(), b'_' | b'.') {
            self.pos += 1;
        }
        std::str::from_utf8(self.s.get(start..self.pos).unwrap_or(b"")).unwrap_or("")
    }

    /// Skips to the matching `>` of an already-consumed `<`.
    pub(super) fn skip_to_close_angle(&mut self) -> Option<()> {
        let mut depth = 1u32;
        while depth > 0 {
            match self.peek() {
                0 => return None,
                b'<' => depth += 1,
                b'>' => depth -= 1,
                b'-' if self.s.get(self.pos + 1) == Some(&b'>') => self.pos += 1,
                _ => {}
            }
            self.pos += 1;
        }
        Some(())
    }

    pub(super) fn ty(&mut self, depth: u32) -> Option<Type> {
        if depth > MAX_NEST {
            return None;
        }
        self.ws();
        let start = self.pos;
        if self.peek() == b'!' {
            self.pos += 1;
            let name = self.word().to_string();
            if name.is_empty() {
                return None;
            }
            if name == "tt.ptr" {
                if !self.eat(b'<') {
                    return None;
                }
                let inner = self.ty(depth + 1)?;
                if self.eat(b',') {
                    self.ws();
                    while self.peek().is_ascii_digit() {
                        self.pos += 1;
                    }
                }
                if !self.eat(b'>') {
                    return None;
                }
                return Some(Type::Ptr(Box::new(inner)));
            }
            if self.peek() == b'<' {
                self.pos += 1;
                self.skip_to_close_angle()?;
            }
            let text = std::str::from_utf8(self.s.get(start..self.pos)?).ok()?;
            return Some(Type::Other(text.to_string()));
        }
        if self.peek() == b'<' {
            // `<tensor<..>>`: pointer shorthand printed by some tt ops.
            self.pos += 1;
            let inner = self.ty(depth + 1)?;
            if !self.eat(b'>') {
                return None;
            }
            return Some(Type::Ptr(Box::new(inner)));
        }
        let w = self.word().to_string();
        match w.as_str() {
            "" => None,
            "index" => Some(Type::Index),
            "f16" => Some(Type::Float(FloatKind::F16)),
            "bf16" => Some(Type::Float(FloatKind::BF16)),
            "f32" | "tf32" => Some(Type::Float(FloatKind::F32)),
            "f64" => Some(Type::Float(FloatKind::F64)),
            "tensor" | "vector" => {
                if self.peek() != b'<' {
                    return None;
                }
                self.pos += 1;
                let mut shape = Vec::new();
                loop {
                    self.ws();
                    let c = self.peek();
                    if c.is_ascii_digit() {
                        let ds = self.pos;
                        while self.peek().is_ascii_digit() {
                            self.pos += 1;
                        }
                        let d = std::str::from_utf8(self.s.get(ds..self.pos)?)
                            .ok()?
                            .parse::<i64>()
                            .ok()?;
                        if self.peek() != b'x' {
                            return None;
                        }
                        self.pos += 1;
                        shape.push(d);
                    } else if c == b'?' && self.s.get(self.pos + 1) == Some(&b'x') {
                        self.pos += 2;
                        shape.push(-1);
                    } else {
                        break;
                    }
                }
                let elem = self.ty(depth + 1)?;
                if self.eat(b',') {
                    // Encoding (`#blocked`) or memory space: skip to the close.
                    self.skip_to_close_angle()?;
                } else if !self.eat(b'>') {
                    return None;
                }
                Some(Type::Tensor {
                    shape,
                    elem: Box::new(elem),
                })
            }
            w if w.starts_with("f8E") || w.starts_with("f6E") || w.starts_with("f4E") => {
                Some(Type::Float(FloatKind::F8))
            }
            w if w.starts_with('i') && w.len() > 1 => {
                let bits: u32 = w.get(1..)?.parse().ok()?;
                if bits == 0 || bits > 128 {
                    return None;
                }
                Some(Type::Int(bits))
            }
            w if (w.starts_with("si") || w.starts_with("ui")) && w.len() > 2 => {
                let bits: u32 = w.get(2..)?.parse().ok()?;
                if bits == 0 || bits > 128 {
                    return None;
                }
                Some(Type::Int(bits))
            }
            "none" => Some(Type::Other("none".into())),
            _ => None,
        }
    }
}
