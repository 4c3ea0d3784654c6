//! Size expressions ([`Expr`]): integers over size names with `+ - * // %`, `cdiv`,
//! `min`, `max`, Python's integer semantics; parsing, evaluation and printing.
//!
//! Invariant: evaluation never panics: overflow, division by zero and unknown sizes are
//! errors.

use std::collections::BTreeMap;
use std::fmt;

/// Integer expressions over sizes: literals, names, `+ - * // %`, parentheses,
/// `cdiv(a, b)`, `min(a, b)`, `max(a, b)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    Int(i64),
    Size(String),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    FloorDiv,
    Mod,
    CeilDiv,
    Min,
    Max,
}

impl Expr {
    pub fn parse(text: &str) -> Result<Expr, String> {
        let tokens = tokenize(text)?;
        let mut p = ExprParser { tokens, pos: 0 };
        let e = p.sum()?;
        match p.tokens.get(p.pos) {
            None => Ok(e),
            Some(t) => Err(format!("unexpected '{t}' in expression '{text}'")),
        }
    }

    pub fn eval(&self, sizes: &BTreeMap<String, i64>) -> Result<i64, String> {
        Ok(match self {
            Expr::Int(i) => *i,
            Expr::Size(name) => *sizes.get(name).ok_or_else(|| {
                let known: Vec<&str> = sizes.keys().map(|s| s.as_str()).collect();
                format!(
                    "unknown size '{name}' (known: {}); give it with --size {name}=…",
                    known.join(", ")
                )
            })?,
            Expr::Neg(e) => e.eval(sizes)?.checked_neg().ok_or("overflow")?,
            Expr::Bin(op, a, b) => {
                let (a, b) = (a.eval(sizes)?, b.eval(sizes)?);
                let nonzero = |b: i64| {
                    if b == 0 {
                        Err(format!("division by zero in {self}"))
                    } else {
                        Ok(b)
                    }
                };
                match op {
                    BinOp::Add => a.checked_add(b).ok_or("overflow")?,
                    BinOp::Sub => a.checked_sub(b).ok_or("overflow")?,
                    BinOp::Mul => a.checked_mul(b).ok_or("overflow")?,
                    BinOp::FloorDiv => a.div_euclid(nonzero(b)?),
                    BinOp::Mod => a.rem_euclid(nonzero(b)?),
                    BinOp::CeilDiv => {
                        let b = nonzero(b)?;
                        -((-a).div_euclid(b))
                    }
                    BinOp::Min => a.min(b),
                    BinOp::Max => a.max(b),
                }
            }
        })
    }
}

impl fmt::Display for Expr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Expr::Int(i) => write!(f, "{i}"),
            Expr::Size(s) => write!(f, "{s}"),
            Expr::Neg(e) => write!(f, "-({e})"),
            Expr::Bin(op, a, b) => match op {
                BinOp::CeilDiv => write!(f, "cdiv({a}, {b})"),
                BinOp::Min => write!(f, "min({a}, {b})"),
                BinOp::Max => write!(f, "max({a}, {b})"),
                _ => {
                    let sym = match op {
                        BinOp::Add => "+",
                        BinOp::Sub => "-",
                        BinOp::Mul => "*",
                        BinOp::FloorDiv => "//",
                        _ => "%",
                    };
                    write!(f, "({a} {sym} {b})")
                }
            },
        }
    }
}

fn tokenize(text: &str) -> Result<Vec<String>, String> {
    let mut tokens = Vec::new();
    let chars: Vec<char> = text.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_alphanumeric() || c == '_' {
            let start = i;
            while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == '/' && chars.get(i + 1) == Some(&'/') {
            tokens.push("//".into());
            i += 2;
        } else if "+-*%(),".contains(c) {
            tokens.push(c.to_string());
            i += 1;
        } else {
            return Err(format!("unexpected character '{c}' in expression '{text}'"));
        }
    }
    Ok(tokens)
}

struct ExprParser {
    tokens: Vec<String>,
    pos: usize,
}

impl ExprParser {
    fn peek(&self) -> Option<&str> {
        self.tokens.get(self.pos).map(|s| s.as_str())
    }

    fn expect(&mut self, t: &str) -> Result<(), String> {
        if self.peek() == Some(t) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!(
                "expected '{t}', found {}",
                self.peek()
                    .map_or("end of expression".into(), |s| format!("'{s}'"))
            ))
        }
    }

    fn sum(&mut self) -> Result<Expr, String> {
        let mut e = self.product()?;
        while let Some(op) = self.peek() {
            let op = match op {
                "+" => BinOp::Add,
                "-" => BinOp::Sub,
                _ => break,
            };
            self.pos += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.product()?));
        }
        Ok(e)
    }

    fn product(&mut self) -> Result<Expr, String> {
        let mut e = self.atom()?;
        while let Some(op) = self.peek() {
            let op = match op {
                "*" => BinOp::Mul,
                "//" => BinOp::FloorDiv,
                "%" => BinOp::Mod,
                _ => break,
            };
            self.pos += 1;
            e = Expr::Bin(op, Box::new(e), Box::new(self.atom()?));
        }
        Ok(e)
    }

    fn atom(&mut self) -> Result<Expr, String> {
        let Some(tok) = self.peek().map(str::to_string) else {
            return Err("expression ends too early".into());
        };
        self.pos += 1;
        if tok == "-" {
            return Ok(Expr::Neg(Box::new(self.atom()?)));
        }
        if tok == "(" {
            let e = self.sum()?;
            self.expect(")")?;
            return Ok(e);
        }
        if let Some(first) = tok.chars().next() {
            if first.is_ascii_digit() {
                return tok
                    .parse()
                    .map(Expr::Int)
                    .map_err(|_| format!("bad integer '{tok}'"));
            }
        }
        let func = match tok.as_str() {
            "cdiv" => Some(BinOp::CeilDiv),
            "min" => Some(BinOp::Min),
            "max" => Some(BinOp::Max),
            _ => None,
        };
        match func {
            Some(op) if self.peek() == Some("(") => {
                self.pos += 1;
                let a = self.sum()?;
                self.expect(",")?;
                let b = self.sum()?;
                self.expect(")")?;
                Ok(Expr::Bin(op, Box::new(a), Box::new(b)))
            }
            _ if tok.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') => Ok(Expr::Size(tok)),
            _ => Err(format!("unexpected '{tok}'")),
        }
    }
}
