//! Tokens of MLIR's textual syntax, as far as Triton IR uses it.
//!
//! Architecture invariant: the lexer never panics; it returns every token with its byte
//! span and 1-based line:col, or the position of the first character it cannot read.
//! Shapes such as `4x8xf32` are lexed as ordinary tokens (`4`, `x8xf32`); the parser
//! reads types from the source text itself, using the token spans.

use super::error::ParseError;

#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// `%name`, `%0`, `%x#1` (without `%`)
    Percent(String),
    /// `^bb0` (without `^`)
    Caret(String),
    /// `@name` (without `@`)
    At(String),
    /// `#loc3`, `#tt.cache_policy` (without `#`)
    Hash(String),
    /// `!tt.ptr` (without `!`)
    Bang(String),
    /// Bare identifiers and keywords: `arith.addf`, `f32`, `x`, `dense`, `loc`.
    Ident(String),
    /// Integer literal text, possibly negative, decimal or `0x` hex.
    Int(String),
    /// Float literal text (`-1.000000e+00`).
    Float(String),
    /// String literal, unescaped.
    Str(String),
    LParen,
    RParen,
    LBrace,
    RBrace,
    LBracket,
    RBracket,
    LAngle,
    RAngle,
    Comma,
    Colon,
    Equal,
    Arrow,
    Star,
    Question,
    Plus,
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Percent(s) => format!("'%{s}'"),
            Tok::Caret(s) => format!("'^{s}'"),
            Tok::At(s) => format!("'@{s}'"),
            Tok::Hash(s) => format!("'#{s}'"),
            Tok::Bang(s) => format!("'!{s}'"),
            Tok::Ident(s) | Tok::Int(s) | Tok::Float(s) => format!("'{s}'"),
            Tok::Str(s) => format!("string {s:?}"),
            Tok::LParen => "'('".into(),
            Tok::RParen => "')'".into(),
            Tok::LBrace => "'{'".into(),
            Tok::RBrace => "'}'".into(),
            Tok::LBracket => "'['".into(),
            Tok::RBracket => "']'".into(),
            Tok::LAngle => "'<'".into(),
            Tok::RAngle => "'>'".into(),
            Tok::Comma => "','".into(),
            Tok::Colon => "':'".into(),
            Tok::Equal => "'='".into(),
            Tok::Arrow => "'->'".into(),
            Tok::Star => "'*'".into(),
            Tok::Question => "'?'".into(),
            Tok::Plus => "'+'".into(),
            Tok::Eof => "end of input".into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    /// Byte span in the source.
    pub start: usize,
    pub end: usize,
    pub line: u32,
    pub col: u32,
}

fn is_id_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

fn is_id_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.')
}

/// Characters allowed after `%`, `^`, `#`, `!`, `@` (MLIR's suffix-id, plus `.`).
fn is_suffix_char(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'$' | b'.' | b'-')
}

struct Lexer<'a> {
    src: &'a str,
    bytes: &'a [u8],
    pos: usize,
    line: u32,
    /// Byte offset where the current line starts.
    line_start: usize,
    /// Last (byte offset, column) computed by `col_of`.
    col_cache: std::cell::Cell<(usize, u32)>,
}

impl<'a> Lexer<'a> {
    /// Column (1-based, in characters) of `pos` on the current line. Counts on from the
    /// last position asked about, so a long line costs linear time overall.
    fn col_of(&self, pos: usize) -> u32 {
        let (mut from, mut col) = self.col_cache.get();
        if from < self.line_start || from > pos {
            from = self.line_start.min(pos);
            col = 1;
        }
        let n = self
            .src
            .get(from..pos)
            .map(|s| s.chars().count())
            .unwrap_or(pos - from);
        let col = col.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
        self.col_cache.set((pos, col));
        col
    }

    fn err(&self, pos: usize, message: String) -> ParseError {
        ParseError {
            line: self.line,
            col: self.col_of(pos),
            message,
        }
    }

    fn peek(&self, off: usize) -> u8 {
        self.bytes.get(self.pos + off).copied().unwrap_or(0)
    }

    fn newline(&mut self) {
        self.line = self.line.saturating_add(1);
        self.line_start = self.pos;
    }

    /// Skips whitespace, `//` comments and `{-# ... #-}` resource blocks.
    fn skip_trivia(&mut self) {
        loop {
            let b = self.peek(0);
            if b == b'\n' {
                self.pos += 1;
                self.newline();
            } else if b == b' ' || b == b'\t' || b == b'\r' {
                self.pos += 1;
            } else if b == b'/' && self.peek(1) == b'/' {
                while self.pos < self.bytes.len() && self.bytes[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else if b == b'{' && self.peek(1) == b'-' && self.peek(2) == b'#' {
                self.pos += 3;
                while self.pos < self.bytes.len() {
                    if self.bytes[self.pos] == b'#' && self.peek(1) == b'-' && self.peek(2) == b'}'
                    {
                        self.pos += 3;
                        break;
                    }
                    if self.bytes[self.pos] == b'\n' {
                        self.pos += 1;
                        self.newline();
                    } else {
                        self.pos += 1;
                    }
                }
            } else {
                return;
            }
        }
    }

    fn take_while(&mut self, f: impl Fn(u8) -> bool) -> &'a str {
        let start = self.pos;
        while self.pos < self.bytes.len() && f(self.bytes[self.pos]) {
            self.pos += 1;
        }
        // Only ASCII bytes are taken, so both ends are char boundaries.
        self.src.get(start..self.pos).unwrap_or("")
    }

    fn suffix_id(&mut self, sigil: char, start: usize) -> Result<String, ParseError> {
        if self.peek(0) == b'"' {
            return self.string(start);
        }
        let s = self.take_while(is_suffix_char).to_string();
        if s.is_empty() {
            return Err(self.err(start, format!("expected a name after '{sigil}'")));
        }
        Ok(s)
    }

    fn string(&mut self, start: usize) -> Result<String, ParseError> {
        // At the opening quote.
        self.pos += 1;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let Some(&b) = self.bytes.get(self.pos) else {
                return Err(self.err(start, "unterminated string literal".into()));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    break;
                }
                b'\n' => return Err(self.err(start, "unterminated string literal".into())),
                b'\\' => {
                    let c = self.peek(1);
                    match c {
                        b'"' | b'\\' => {
                            out.push(c);
                            self.pos += 2;
                        }
                        b'n' => {
                            out.push(b'\n');
                            self.pos += 2;
                        }
                        b't' => {
                            out.push(b'\t');
                            self.pos += 2;
                        }
                        _ => {
                            let h = (self.peek(1) as char).to_digit(16);
                            let l = (self.peek(2) as char).to_digit(16);
                            match (h, l) {
                                (Some(h), Some(l)) => {
                                    out.push((h * 16 + l) as u8);
                                    self.pos += 3;
                                }
                                _ => {
                                    return Err(
                                        self.err(self.pos, "invalid escape in string".into())
                                    )
                                }
                            }
                        }
                    }
                }
                _ => {
                    out.push(b);
                    self.pos += 1;
                }
            }
        }
        Ok(String::from_utf8_lossy(&out).into_owned())
    }

    fn number(&mut self) -> Tok {
        let start = self.pos;
        if self.peek(0) == b'-' {
            self.pos += 1;
        }
        if self.peek(0) == b'0' && self.peek(1) == b'x' && self.peek(2).is_ascii_hexdigit() {
            self.pos += 2;
            self.take_while(|b| b.is_ascii_hexdigit());
            return Tok::Int(self.src.get(start..self.pos).unwrap_or("").to_string());
        }
        self.take_while(|b| b.is_ascii_digit());
        let mut float = false;
        // MLIR float literals always have a '.' (`1.5`, `1.000000e+00`).
        if self.peek(0) == b'.' && (self.peek(1).is_ascii_digit() || !is_id_char(self.peek(1))) {
            float = true;
            self.pos += 1;
            self.take_while(|b| b.is_ascii_digit());
            if matches!(self.peek(0), b'e' | b'E')
                && (self.peek(1).is_ascii_digit()
                    || (matches!(self.peek(1), b'+' | b'-') && self.peek(2).is_ascii_digit()))
            {
                self.pos += 2;
                self.take_while(|b| b.is_ascii_digit());
            }
        }
        let text = self.src.get(start..self.pos).unwrap_or("").to_string();
        if float {
            Tok::Float(text)
        } else {
            Tok::Int(text)
        }
    }

    fn next(&mut self) -> Result<Token, ParseError> {
        self.skip_trivia();
        let start = self.pos;
        let line = self.line;
        let col = self.col_of(start);
        let b = self.peek(0);
        let tok = if self.pos >= self.bytes.len() {
            Tok::Eof
        } else {
            match b {
                b'(' | b')' | b'{' | b'}' | b'[' | b']' | b'<' | b'>' | b',' | b':' | b'='
                | b'*' | b'?' | b'+' => {
                    self.pos += 1;
                    match b {
                        b'(' => Tok::LParen,
                        b')' => Tok::RParen,
                        b'{' => Tok::LBrace,
                        b'}' => Tok::RBrace,
                        b'[' => Tok::LBracket,
                        b']' => Tok::RBracket,
                        b'<' => Tok::LAngle,
                        b'>' => Tok::RAngle,
                        b',' => Tok::Comma,
                        b':' => Tok::Colon,
                        b'=' => Tok::Equal,
                        b'*' => Tok::Star,
                        b'?' => Tok::Question,
                        _ => Tok::Plus,
                    }
                }
                b'-' if self.peek(1) == b'>' => {
                    self.pos += 2;
                    Tok::Arrow
                }
                b'-' if self.peek(1).is_ascii_digit() => self.number(),
                b'0'..=b'9' => self.number(),
                b'"' => Tok::Str(self.string(start)?),
                b'%' => {
                    self.pos += 1;
                    let mut s = self.suffix_id('%', start)?;
                    if self.peek(0) == b'#' && self.peek(1).is_ascii_digit() {
                        self.pos += 1;
                        s.push('#');
                        s.push_str(self.take_while(|b| b.is_ascii_digit()));
                    }
                    Tok::Percent(s)
                }
                b'^' => {
                    self.pos += 1;
                    Tok::Caret(self.suffix_id('^', start)?)
                }
                b'@' => {
                    self.pos += 1;
                    Tok::At(self.suffix_id('@', start)?)
                }
                b'#' => {
                    self.pos += 1;
                    Tok::Hash(self.suffix_id('#', start)?)
                }
                b'!' => {
                    self.pos += 1;
                    Tok::Bang(self.suffix_id('!', start)?)
                }
                b if is_id_start(b) => Tok::Ident(self.take_while(is_id_char).to_string()),
                _ => {
                    let c = self.src.get(start..).and_then(|s| s.chars().next());
                    let shown = match c {
                        Some(c) => format!("{c:?}"),
                        None => format!("byte 0x{b:02x}"),
                    };
                    return Err(self.err(start, format!("unexpected character {shown}")));
                }
            }
        };
        Ok(Token {
            tok,
            start,
            end: self.pos,
            line,
            col,
        })
    }
}

/// Lex the whole text. The last token is always [`Tok::Eof`].
pub fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut lx = Lexer {
        src,
        bytes: src.as_bytes(),
        pos: 0,
        line: 1,
        line_start: 0,
        col_cache: std::cell::Cell::new((0, 1)),
    };
    let mut out = Vec::new();
    loop {
        let t = lx.next()?;
        let eof = t.tok == Tok::Eof;
        out.push(t);
        if eof {
            return Ok(out);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex(s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn lexes_names_numbers_and_punctuation() {
        // From Triton 3.9 output.
        assert_eq!(
            toks("%am:2 = \"tt.reduce\"(%x_9) %am#1 -1.000000e+00 0xFF800000 -> ^bb0 #loc3"),
            vec![
                Tok::Percent("am".into()),
                Tok::Colon,
                Tok::Int("2".into()),
                Tok::Equal,
                Tok::Str("tt.reduce".into()),
                Tok::LParen,
                Tok::Percent("x_9".into()),
                Tok::RParen,
                Tok::Percent("am#1".into()),
                Tok::Float("-1.000000e+00".into()),
                Tok::Int("0xFF800000".into()),
                Tok::Arrow,
                Tok::Caret("bb0".into()),
                Tok::Hash("loc3".into()),
                Tok::Eof
            ]
        );
    }

    #[test]
    fn reports_position_of_bad_character() {
        let e = lex("module {\n  %x = ` \n}").unwrap_err();
        assert_eq!((e.line, e.col), (2, 8));
    }
}
