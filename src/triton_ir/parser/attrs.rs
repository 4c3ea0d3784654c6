//! Attributes: dictionaries, values (`dense<...>`, `array<...>`, numbers, strings,
//! nested `#dialect<...>`), and literal tokens as typed constants.
//!
//! Invariant: attribute nesting is capped at `MAX_NEST`.

use std::collections::BTreeMap;

use super::cursor::{PResult, Parser, MAX_NEST};
use crate::triton_ir::ast::{Attr, FloatKind, Scalar, Type};
use crate::triton_ir::error::ParseError;
use crate::triton_ir::floats::{self, FloatFormat};
use crate::triton_ir::lexer::{Tok, Token};

impl Parser<'_> {
    /// `{key = value, key, "quoted.key" = value}`
    pub(super) fn parse_attr_dict(&mut self) -> PResult<BTreeMap<String, Attr>> {
        self.expect(&Tok::LBrace, "to open an attribute dictionary")?;
        let mut out = BTreeMap::new();
        if self.eat(&Tok::RBrace) {
            return Ok(out);
        }
        loop {
            let key = match self.peek().clone() {
                Tok::Ident(k) | Tok::Str(k) => {
                    self.bump();
                    k
                }
                _ => return Err(self.expected("an attribute name")),
            };
            let v = if self.eat(&Tok::Equal) {
                self.parse_attr_value(true, 0)?
            } else {
                Attr::Unit
            };
            out.insert(key, v);
            if self.eat(&Tok::RBrace) {
                return Ok(out);
            }
            self.expect(&Tok::Comma, "or '}' in an attribute dictionary")?;
        }
    }

    /// One attribute value. `in_dict`: a trailing `: type` belongs to the value.
    pub(super) fn parse_attr_value(&mut self, in_dict: bool, depth: u32) -> PResult<Attr> {
        if depth > MAX_NEST {
            return Err(self.err_here("attribute nested too deeply"));
        }
        let t = self.cur().clone();
        match t.tok.clone() {
            Tok::Int(_) | Tok::Float(_) => {
                self.bump();
                if in_dict && self.eat(&Tok::Colon) {
                    let (ty, raw) = self.parse_type_raw()?;
                    let s = self.scalar_of(&t, &ty, &raw)?;
                    return Ok(match s {
                        Scalar::Int(i) => match i64::try_from(i) {
                            Ok(i) => Attr::Int(i),
                            Err(_) => Attr::Scalar(s),
                        },
                        _ => Attr::Scalar(s),
                    });
                }
                Ok(match t.tok {
                    Tok::Int(s) => match parse_int(&s).and_then(|i| i64::try_from(i).ok()) {
                        Some(i) => Attr::Int(i),
                        None => Attr::Other(s),
                    },
                    Tok::Float(s) => match s.parse::<f64>() {
                        Ok(f) => Attr::Scalar(Scalar::Float(f)),
                        Err(_) => Attr::Other(s),
                    },
                    _ => Attr::Other(String::new()),
                })
            }
            Tok::Str(s) => {
                self.bump();
                if in_dict && self.eat(&Tok::Colon) {
                    self.parse_type()?;
                }
                Ok(Attr::Str(s))
            }
            Tok::At(s) => {
                self.bump();
                Ok(Attr::Str(s))
            }
            Tok::Ident(k) => match k.as_str() {
                "true" | "false" => {
                    self.bump();
                    Ok(Attr::Scalar(Scalar::Bool(k == "true")))
                }
                "unit" => {
                    self.bump();
                    Ok(Attr::Unit)
                }
                "array" if matches!(self.peek_n(1), Tok::LAngle) => {
                    self.bump();
                    let start = self.pos;
                    let text = self.skip_balanced()?;
                    let end = self.pos;
                    Ok(array_attr(&self.toks[start..end])
                        .unwrap_or(Attr::Other(format!("array{text}"))))
                }
                "dense" if matches!(self.peek_n(1), Tok::LAngle) => {
                    self.bump();
                    let body = self.parse_dense_body()?;
                    self.expect(&Tok::Colon, "after dense<...>")?;
                    let (ty, raw) = self.parse_type_raw()?;
                    let values = self.dense_values(&body, &ty, &raw, &t)?;
                    Ok(Attr::Dense { values, ty })
                }
                _ if matches!(self.peek_n(1), Tok::LAngle) => {
                    self.bump();
                    let text = self.skip_balanced()?;
                    Ok(Attr::Other(format!("{k}{text}")))
                }
                _ => {
                    self.bump();
                    Ok(Attr::Str(k))
                }
            },
            Tok::LBracket => {
                let start = self.pos;
                let text = self.skip_balanced()?;
                let end = self.pos;
                Ok(int_list(&self.toks[start..end])
                    .map(Attr::Array)
                    .unwrap_or(Attr::Other(text)))
            }
            Tok::Hash(h) => {
                self.bump();
                if matches!(self.peek(), Tok::LAngle) {
                    let text = self.skip_balanced()?;
                    Ok(Attr::Other(format!("#{h}{text}")))
                } else {
                    Ok(Attr::Other(format!("#{h}")))
                }
            }
            Tok::LBrace => Ok(Attr::Other(self.skip_balanced()?)),
            Tok::LParen | Tok::Bang(_) => {
                // A type (function type or dialect type) used as an attribute.
                let start = t.start;
                if matches!(t.tok, Tok::LParen) {
                    self.parse_type_spec()?;
                } else {
                    self.parse_type()?;
                }
                let end = self.tok_at(self.pos.saturating_sub(1)).end;
                Ok(Attr::Other(self.text(start, end.max(start))))
            }
            _ => Err(self.expected("an attribute value")),
        }
    }

    /// The tokens between `dense<` and `>`, as a tree of elements.
    pub(super) fn parse_dense_body(&mut self) -> PResult<DenseElem> {
        self.expect(&Tok::LAngle, "after 'dense'")?;
        let e = self.parse_dense_elem(0)?;
        self.expect(&Tok::RAngle, "to close dense<...>")?;
        Ok(e)
    }

    pub(super) fn parse_dense_elem(&mut self, depth: u32) -> PResult<DenseElem> {
        if depth > MAX_NEST {
            return Err(self.err_here("dense<...> nested too deeply"));
        }
        let t = self.cur().clone();
        match t.tok {
            Tok::LBracket => {
                self.bump();
                let mut v = Vec::new();
                if self.eat(&Tok::RBracket) {
                    return Ok(DenseElem::List(v));
                }
                loop {
                    v.push(self.parse_dense_elem(depth + 1)?);
                    if self.eat(&Tok::RBracket) {
                        return Ok(DenseElem::List(v));
                    }
                    self.expect(&Tok::Comma, "or ']' in dense<...>")?;
                }
            }
            Tok::Int(_) | Tok::Float(_) | Tok::Str(_) => {
                self.bump();
                Ok(DenseElem::Leaf(t))
            }
            Tok::Ident(ref s) if s == "true" || s == "false" => {
                self.bump();
                Ok(DenseElem::Leaf(t))
            }
            _ => Err(self.expected("a dense element (number, true/false or '[')")),
        }
    }

    pub(super) fn dense_values(
        &self,
        body: &DenseElem,
        ty: &Type,
        raw: &str,
        at: &Token,
    ) -> PResult<Vec<Scalar>> {
        let elem = ty.elem().clone();
        let mut leaves = Vec::new();
        body.flatten(&mut leaves);
        let mut out = Vec::new();
        for leaf in leaves {
            if let Tok::Str(hex) = &leaf.tok {
                // `dense<"0x0000803F...">`: raw little-endian element bytes.
                out.extend(self.dense_hex_string(hex, &elem, raw, leaf)?);
            } else {
                out.push(self.scalar_of(leaf, &elem, raw)?);
            }
        }
        let n: i64 = ty
            .shape()
            .iter()
            .try_fold(1i64, |a, &d| a.checked_mul(d.max(0)))
            .unwrap_or(-1);
        if out.len() != 1 && (n < 0 || out.len() as i64 != n) {
            return Err(ParseError {
                line: at.line,
                col: at.col,
                message: format!(
                    "dense<...> has {} elements but its type {ty} has {n}",
                    out.len()
                ),
            });
        }
        Ok(out)
    }

    pub(super) fn dense_hex_string(
        &self,
        hex: &str,
        elem: &Type,
        raw: &str,
        at: &Token,
    ) -> PResult<Vec<Scalar>> {
        let err = |m: &str| ParseError {
            line: at.line,
            col: at.col,
            message: m.to_string(),
        };
        let digits = hex
            .strip_prefix("0x")
            .ok_or_else(|| err("expected a \"0x...\" hex string in dense<...>"))?;
        if digits.len() % 2 != 0 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(err("malformed hex string in dense<...>"));
        }
        let bytes: Vec<u8> = (0..digits.len() / 2)
            .filter_map(|i| u8::from_str_radix(digits.get(2 * i..2 * i + 2)?, 16).ok())
            .collect();
        let width = match elem {
            Type::Int(w) => (*w).max(8).div_ceil(8) as usize,
            Type::Float(_) => float_format(elem, raw)
                .map(|f| f.width() as usize / 8)
                .ok_or_else(|| err("unsupported float type in dense<...>"))?,
            _ => return Err(err("unsupported element type in a dense hex string")),
        };
        if width == 0 || width > 16 || !bytes.len().is_multiple_of(width) {
            return Err(err("hex string length does not match the element type"));
        }
        let mut out = Vec::new();
        for chunk in bytes.chunks(width) {
            let mut bits: u128 = 0;
            for (i, b) in chunk.iter().enumerate() {
                bits |= (*b as u128) << (8 * i);
            }
            out.push(match elem {
                Type::Int(1) => Scalar::Bool(bits != 0),
                Type::Int(w) => {
                    let w = (*w).min(128);
                    let v = if w < 128 && (bits >> (w - 1)) & 1 == 1 {
                        (bits as i128) - (1i128 << w)
                    } else {
                        bits as i128
                    };
                    Scalar::Int(v)
                }
                _ => {
                    let f = float_format(elem, raw)
                        .and_then(|f| floats::decode_bits(f, bits))
                        .ok_or_else(|| err("bad float bits in dense<...>"))?;
                    Scalar::Float(f)
                }
            });
        }
        Ok(out)
    }

    /// A literal token as a constant of type `ty` (the element type for tensors).
    pub(super) fn scalar_of(&self, t: &Token, ty: &Type, raw: &str) -> PResult<Scalar> {
        let err = |m: String| ParseError {
            line: t.line,
            col: t.col,
            message: m,
        };
        let elem = ty.elem();
        match (&t.tok, elem) {
            (Tok::Ident(s), _) if s == "true" || s == "false" => Ok(Scalar::Bool(s == "true")),
            (Tok::Int(s), Type::Int(1)) => match parse_int(s) {
                Some(0) => Ok(Scalar::Bool(false)),
                Some(1) | Some(-1) => Ok(Scalar::Bool(true)),
                _ => Err(err(format!("'{s}' is not an i1 value"))),
            },
            (Tok::Int(s), Type::Int(_) | Type::Index) => parse_int(s)
                .map(Scalar::Int)
                .ok_or_else(|| err(format!("integer literal '{s}' out of range"))),
            (Tok::Int(s), Type::Float(_)) => {
                let fmt = float_format(elem, raw)
                    .ok_or_else(|| err(format!("unsupported float type '{raw}'")))?;
                if s.starts_with("0x") || s.starts_with("-0x") {
                    let bits = s
                        .strip_prefix("0x")
                        .and_then(|h| u128::from_str_radix(h, 16).ok())
                        .ok_or_else(|| err(format!("bad hex float literal '{s}'")))?;
                    floats::decode_bits(fmt, bits)
                        .map(Scalar::Float)
                        .ok_or_else(|| err(format!("hex literal '{s}' is wider than {elem}")))
                } else {
                    floats::round_decimal(fmt, s)
                        .map(Scalar::Float)
                        .ok_or_else(|| err(format!("'{s}' is not representable as {elem}")))
                }
            }
            (Tok::Float(s), Type::Float(_)) => {
                let fmt = float_format(elem, raw)
                    .ok_or_else(|| err(format!("unsupported float type '{raw}'")))?;
                floats::round_decimal(fmt, s)
                    .map(Scalar::Float)
                    .ok_or_else(|| err(format!("'{s}' is not representable as {elem}")))
            }
            (tok, _) => Err(err(format!(
                "expected a constant of type {elem}, found {}",
                tok.describe()
            ))),
        }
    }
}
/// Elements of `dense<...>` before they are typed.
#[derive(Debug)]
pub(super) enum DenseElem {
    Leaf(Token),
    List(Vec<DenseElem>),
}

impl DenseElem {
    pub(super) fn flatten<'b>(&'b self, out: &mut Vec<&'b Token>) {
        // Iterative: nesting depth is already capped, but keep it cheap anyway.
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match e {
                DenseElem::Leaf(t) => out.push(t),
                DenseElem::List(v) => stack.extend(v.iter().rev()),
            }
        }
    }
}

/// Decimal or hex (`0x...`, bit pattern) integer text.
pub(super) fn parse_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    if neg {
        v.checked_neg()
    } else {
        Some(v)
    }
}

/// `<i32: 1, 0>` token slice of `array<...>`.
pub(super) fn array_attr(toks: &[Token]) -> Option<Attr> {
    // toks: '<' elemtype [':' values...] '>'
    let inner = toks.get(1..toks.len().checked_sub(1)?)?;
    let mut it = inner.iter();
    match it.next().map(|t| &t.tok) {
        Some(Tok::Ident(t)) if t.starts_with('i') => {}
        _ => return None,
    }
    let mut v = Vec::new();
    match it.next().map(|t| &t.tok) {
        None => return Some(Attr::Array(v)),
        Some(Tok::Colon) => {}
        _ => return None,
    }
    for (i, t) in it.enumerate() {
        match (&t.tok, i % 2) {
            (Tok::Int(s), 0) => v.push(i64::try_from(parse_int(s)?).ok()?),
            (Tok::Ident(s), 0) if s == "true" || s == "false" => v.push((s == "true") as i64),
            (Tok::Comma, 1) => {}
            _ => return None,
        }
    }
    Some(Attr::Array(v))
}

/// `[1, 0]` token slice.
pub(super) fn int_list(toks: &[Token]) -> Option<Vec<i64>> {
    let inner = toks.get(1..toks.len().checked_sub(1)?)?;
    let mut v = Vec::new();
    for (i, t) in inner.iter().enumerate() {
        match (&t.tok, i % 2) {
            (Tok::Int(s), 0) => v.push(i64::try_from(parse_int(s)?).ok()?),
            (Tok::Comma, 1) => {}
            _ => return None,
        }
    }
    Some(v)
}

/// The binary format of a float (element) type; `raw` tells f8 variants apart.
pub(super) fn float_format(ty: &Type, raw: &str) -> Option<FloatFormat> {
    match ty.elem() {
        Type::Float(FloatKind::F16) => Some(FloatFormat::F16),
        Type::Float(FloatKind::BF16) => Some(FloatFormat::BF16),
        Type::Float(FloatKind::F32) => Some(FloatFormat::F32),
        Type::Float(FloatKind::F64) => Some(FloatFormat::F64),
        Type::Float(FloatKind::F8) => {
            if raw.contains("f8E5M2FNUZ") || raw.contains("FNUZ") {
                None
            } else if raw.contains("f8E5M2") {
                Some(FloatFormat::F8E5M2)
            } else if raw.contains("f8E4M3FN") {
                Some(FloatFormat::F8E4M3FN)
            } else {
                None
            }
        }
        _ => None,
    }
}
