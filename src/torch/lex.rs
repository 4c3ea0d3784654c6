//! Tokens of the spec language (a subset of Python's).

use super::error::SpecError;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    Name(String),
    Int(i64),
    /// A decimal literal, kept as written so that it can be rounded exactly.
    Float(String),
    Str(String),
    Op(&'static str),
    /// A statement-ending newline (newlines inside brackets are dropped, as in Python).
    Newline,
    Eof,
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    /// 1-based character column in the whole text.
    pub col: usize,
}

/// Longest first, so that `**` is not read as two `*`.
const OPS: &[&str] = &[
    "...", "**", "//", "==", "!=", "<=", ">=", "+", "-", "*", "/", "%", "@", "(", ")", "[", "]",
    ",", ".", ":", "=", "<", ">", ";", "&", "|", "~", "^",
];

pub(crate) fn lex(src: &str) -> Result<Vec<Token>, SpecError> {
    let chars: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut depth: i64 = 0;
    let mut i = 0;
    let err = |col: usize, message: String| SpecError { col, message };
    while i < chars.len() {
        let c = chars[i];
        let col = i + 1;
        if c == '\n' {
            if depth == 0 {
                out.push(Token {
                    tok: Tok::Newline,
                    col,
                });
            }
            i += 1;
        } else if c == '\\' && chars.get(i + 1) == Some(&'\n') {
            i += 2;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '#' {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c.is_ascii_digit()
            || (c == '.' && chars.get(i + 1).is_some_and(|d| d.is_ascii_digit()))
        {
            let start = i;
            let mut is_float = false;
            while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                i += 1;
            }
            if i < chars.len() && chars[i] == '.' && chars.get(i + 1) != Some(&'.') {
                is_float = true;
                i += 1;
                while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '_') {
                    i += 1;
                }
            }
            if i < chars.len() && (chars[i] == 'e' || chars[i] == 'E') {
                let mut j = i + 1;
                if j < chars.len() && (chars[j] == '+' || chars[j] == '-') {
                    j += 1;
                }
                if j < chars.len() && chars[j].is_ascii_digit() {
                    is_float = true;
                    i = j;
                    while i < chars.len() && chars[i].is_ascii_digit() {
                        i += 1;
                    }
                } else {
                    return Err(err(col, "malformed number: exponent without digits".into()));
                }
            }
            let text: String = chars[start..i].iter().filter(|&&c| c != '_').collect();
            if i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                return Err(err(i + 1, format!("malformed number `{text}{}`", chars[i])));
            }
            let tok = if is_float {
                Tok::Float(text)
            } else {
                match text.parse::<i64>() {
                    Ok(v) => Tok::Int(v),
                    Err(_) => {
                        return Err(err(col, format!("integer literal `{text}` is too large")))
                    }
                }
            };
            out.push(Token { tok, col });
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Name(chars[start..i].iter().collect()),
                col,
            });
        } else if c == '\'' || c == '"' {
            let start = i + 1;
            i += 1;
            while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                i += 1;
            }
            if i >= chars.len() || chars[i] != c {
                return Err(err(col, "unterminated string".into()));
            }
            out.push(Token {
                tok: Tok::Str(chars[start..i].iter().collect()),
                col,
            });
            i += 1;
        } else {
            let rest: String = chars[i..chars.len().min(i + 3)].iter().collect();
            let Some(op) = OPS.iter().find(|op| rest.starts_with(**op)) else {
                return Err(err(col, format!("unexpected character `{c}`")));
            };
            match *op {
                "(" | "[" => depth += 1,
                ")" | "]" => depth -= 1,
                _ => {}
            }
            out.push(Token {
                tok: Tok::Op(op),
                col,
            });
            i += op.chars().count();
        }
    }
    out.push(Token {
        tok: Tok::Eof,
        col: chars.len() + 1,
    });
    Ok(out)
}
