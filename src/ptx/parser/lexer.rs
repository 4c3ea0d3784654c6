//! PTX tokens: identifiers (with `%`, `$`, `.`), numbers, strings and punctuation,
//! each with its line and column.
//!
//! Invariant: never panics; malformed text is a `ParseError` at its line and column.

use crate::ptx::error::ParseError;

#[derive(Clone, Debug, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Int(i64),
    FBits { bits: u64, is_f64: bool },
    Float(f64),
    Str(String),
    Punct(char),
}

#[derive(Clone, Debug)]
pub(super) struct Token {
    pub(super) tok: Tok,
    pub(super) text: String,
    pub(super) line: u32,
    pub(super) col: u32,
}

pub(super) fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%' | '.')
}

pub(super) fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')
}

pub(super) fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let err = |line, col, message: String| ParseError { line, col, message };
    while i < chars.len() {
        let c = chars[i];
        let (tl, tc) = (line, col);
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            col += 2;
            loop {
                match chars.get(i) {
                    None => return Err(err(tl, tc, "unterminated /* comment".into())),
                    Some('*') if chars.get(i + 1) == Some(&'/') => {
                        i += 2;
                        col += 2;
                        break;
                    }
                    Some('\n') => {
                        i += 1;
                        line += 1;
                        col = 1;
                    }
                    Some(_) => {
                        i += 1;
                        col += 1;
                    }
                }
            }
            continue;
        }
        let start = i;
        let tok = if c == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                match chars.get(i) {
                    None | Some('\n') => {
                        return Err(err(tl, tc, "unterminated string literal".into()))
                    }
                    Some('"') => {
                        i += 1;
                        break;
                    }
                    Some('\\') if i + 1 < chars.len() => {
                        s.push(chars[i + 1]);
                        i += 2;
                    }
                    Some(&ch) => {
                        s.push(ch);
                        i += 1;
                    }
                }
            }
            Tok::Str(s)
        } else if c.is_ascii_digit() {
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            let hex_run = |from: usize| {
                let mut j = from;
                while j < chars.len() && chars[j].is_ascii_hexdigit() {
                    j += 1;
                }
                j
            };
            if c == '0' && matches!(next, 'f' | 'F' | 'd' | 'D') {
                let is_f64 = matches!(next, 'd' | 'D');
                let j = hex_run(i + 2);
                let digits: String = chars[i + 2..j].iter().collect();
                let want = if is_f64 { 16 } else { 8 };
                if digits.len() != want {
                    return Err(err(
                        tl,
                        tc,
                        format!("expected {want} hex digits in a float literal"),
                    ));
                }
                i = j;
                let bits = u64::from_str_radix(&digits, 16)
                    .map_err(|_| err(tl, tc, "bad float literal".into()))?;
                Tok::FBits { bits, is_f64 }
            } else if c == '0' && matches!(next, 'x' | 'X') {
                let j = hex_run(i + 2);
                let digits: String = chars[i + 2..j].iter().collect();
                i = j;
                if chars.get(i) == Some(&'U') {
                    i += 1;
                }
                let v = u64::from_str_radix(&digits, 16)
                    .map_err(|_| err(tl, tc, "expected hex digits after 0x".into()))?;
                Tok::Int(v as i64)
            } else {
                let mut j = i;
                while j < chars.len() && chars[j].is_ascii_digit() {
                    j += 1;
                }
                let is_float = chars.get(j) == Some(&'.')
                    && chars.get(j + 1).is_some_and(|d| d.is_ascii_digit());
                if is_float {
                    j += 1;
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    let text: String = chars[i..j].iter().collect();
                    i = j;
                    Tok::Float(
                        text.parse()
                            .map_err(|_| err(tl, tc, "bad decimal float".into()))?,
                    )
                } else {
                    let text: String = chars[i..j].iter().collect();
                    i = j;
                    if chars.get(i) == Some(&'U') {
                        i += 1;
                    }
                    let v: u64 = text
                        .parse()
                        .map_err(|_| err(tl, tc, format!("integer {text} is too large")))?;
                    Tok::Int(v as i64)
                }
            }
        } else if is_ident_start(c) {
            i += 1;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            Tok::Ident(chars[start..i].iter().collect())
        } else if ",;:[]{}()<>+-@!|=".contains(c) {
            i += 1;
            Tok::Punct(c)
        } else {
            return Err(err(tl, tc, format!("unexpected character '{c}'")));
        };
        let text: String = chars[start..i].iter().collect();
        col += (i - start) as u32;
        toks.push(Token {
            tok,
            text,
            line: tl,
            col: tc,
        });
    }
    Ok(toks)
}
