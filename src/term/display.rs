//! Readable infix printing of terms.
//!
//! Conventions (deterministic, and never lossy: what is printed is the exact term):
//! - inputs `x[0,1]` (a 0-d tensor element is `x[]`), params by name, `inf`, `-inf`, `nan`;
//! - constants: integers as integers; a fraction whose denominator is 2^k with k ≤ 10 as
//!   its exact decimal expansion (`0.5`, `0.375`, `0.0009765625`); otherwise, a value that
//!   is exactly an f32 (resp. f64) as the shortest decimal that rounds to it, suffixed
//!   `f32` (resp. `f64`), read like a Rust literal: `0.044715f32` is *exactly* the f32
//!   nearest to 0.044715; anything else as an exact fraction `1/3`;
//! - sums print constants last and summands with negative coefficients as subtraction
//!   (`x - 2 * y + 1`); products print negative powers (and the denominator of a fraction
//!   coefficient) as division (`2 * x / (3 * y^2)`); `x^3`; `exp(..)`; `max(a, b, c)`;
//!   `a < b`, `!c`, `a && b`, `a || b`, `select(c, a, b)`;
//! - parentheses only where precedence needs them: `|| < && < comparisons < + - < * / <
//!   unary - ! < ^ < atoms`.
//!
//! Shared sub-terms are printed in full at every use; the printer recurses once per
//! level of nesting.

use super::node::{CmpOp, Func, Node, TermId};
use super::store::Terms;
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::fmt;

impl Terms {
    /// `id` printed with minimal parentheses (see the module doc).
    pub fn display(&self, id: TermId) -> Display<'_> {
        Display { terms: self, id }
    }
}

const P_OR: u8 = 1;
const P_AND: u8 = 2;
const P_CMP: u8 = 3;
const P_ADD: u8 = 4;
const P_MUL: u8 = 5;
const P_NEG: u8 = 6;
const P_POW: u8 = 7;
const P_ATOM: u8 = 8;

/// Printer returned by [`Terms::display`].
pub struct Display<'a> {
    pub(super) terms: &'a Terms,
    pub(super) id: TermId,
}

impl fmt::Display for Display<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, _) = Printer { terms: self.terms }.repr(self.id);
        f.write_str(&s)
    }
}

/// How a constant prints.
enum ConstForm {
    /// An integer, an exact decimal, or an `f32`/`f64`-suffixed float: one token.
    Token(String),
    /// `p/q` with `q > 1`, both positive (the sign is separate).
    Fraction(BigInt, BigInt),
}

/// The printed form of `|c|`.
fn const_form(c: &BigRational) -> ConstForm {
    let c = c.abs();
    if c.is_integer() {
        return ConstForm::Token(c.numer().to_string());
    }
    let d = c.denom();
    let one = BigInt::one();
    if (d & (d - &one)).is_zero() {
        let k = d.bits() - 1;
        if k <= 10 {
            let digits = (c.numer() * num_traits::Pow::pow(BigInt::from(5), k as u32)).to_string();
            let k = k as usize;
            let padded = format!("{:0>width$}", digits, width = k + 1);
            let (int, frac) = padded.split_at(padded.len() - k);
            return ConstForm::Token(format!("{int}.{frac}"));
        }
    }
    if let Some(f) = c.to_f64() {
        if f.is_finite() && BigRational::from_float(f).as_ref() == Some(&c) {
            let f32v = f as f32;
            if f32v as f64 == f {
                return ConstForm::Token(format!("{f32v:?}f32"));
            }
            return ConstForm::Token(format!("{f:?}f64"));
        }
    }
    ConstForm::Fraction(c.numer().clone(), c.denom().clone())
}

/// The whole constant `c` with its sign, and its precedence.
pub fn format_const(c: &BigRational) -> (String, u8) {
    let sign = if c.is_negative() { "-" } else { "" };
    match const_form(c) {
        ConstForm::Token(t) => (
            format!("{sign}{t}"),
            if sign.is_empty() { P_ATOM } else { P_NEG },
        ),
        ConstForm::Fraction(p, q) => (format!("{sign}{p}/{q}"), P_MUL),
    }
}

fn func_name(f: Func) -> &'static str {
    match f {
        Func::Exp => "exp",
        Func::Exp2 => "exp2",
        Func::Log => "log",
        Func::Log2 => "log2",
        Func::Sqrt => "sqrt",
        Func::Rsqrt => "rsqrt",
        Func::Tanh => "tanh",
        Func::Sin => "sin",
        Func::Cos => "cos",
        Func::Erf => "erf",
        Func::Abs => "abs",
        Func::Floor => "floor",
        Func::Ceil => "ceil",
        Func::Rint => "rint",
        Func::RoundF16 => "round_f16",
        Func::RoundBf16 => "round_bf16",
        Func::RoundTf32 => "round_tf32",
    }
}

fn cmp_symbol(op: CmpOp) -> &'static str {
    match op {
        CmpOp::Lt => "<",
        CmpOp::Le => "<=",
        CmpOp::Gt => ">",
        CmpOp::Ge => ">=",
        CmpOp::Eq => "==",
        CmpOp::Ne => "!=",
    }
}

struct Printer<'a> {
    terms: &'a Terms,
}

impl Printer<'_> {
    /// `id` printed so that it binds at least as tightly as `min`.
    fn at(&self, id: TermId, min: u8) -> String {
        let (s, p) = self.repr(id);
        if p < min {
            format!("({s})")
        } else {
            s
        }
    }

    fn list(&self, ops: &[TermId], sep: &str, min: u8) -> String {
        ops.iter()
            .map(|&o| self.at(o, min))
            .collect::<Vec<_>>()
            .join(sep)
    }

    fn repr(&self, id: TermId) -> (String, u8) {
        let t = self.terms;
        match t.node(id) {
            Node::Input { tensor, index } => {
                let idx: Vec<String> = index.iter().map(|i| i.to_string()).collect();
                (format!("{tensor}[{}]", idx.join(",")), P_ATOM)
            }
            Node::Param(name) => (name.to_string(), P_ATOM),
            Node::Const(c) => format_const(c),
            Node::Inf { negative: false } => ("inf".into(), P_ATOM),
            Node::Inf { negative: true } => ("-inf".into(), P_NEG),
            Node::NaN => ("nan".into(), P_ATOM),
            Node::Add(ops) => (self.sum(ops), P_ADD),
            Node::Mul(_) => self.product(id, false),
            Node::Pow(_, k) if *k < 0 => self.product(id, false),
            Node::Pow(b, k) => (format!("{}^{k}", self.at(*b, P_ATOM)), P_POW),
            Node::Call(f, a) => (format!("{}({})", func_name(*f), self.at(*a, 0)), P_ATOM),
            Node::Max(ops) => (format!("max({})", self.list(ops, ", ", 0)), P_ATOM),
            Node::Min(ops) => (format!("min({})", self.list(ops, ", ", 0)), P_ATOM),
            Node::MaxNum(ops) => (format!("fmax({})", self.list(ops, ", ", 0)), P_ATOM),
            Node::MinNum(ops) => (format!("fmin({})", self.list(ops, ", ", 0)), P_ATOM),
            Node::Cmp(op, a, b) => (
                format!(
                    "{} {} {}",
                    self.at(*a, P_ADD),
                    cmp_symbol(*op),
                    self.at(*b, P_ADD)
                ),
                P_CMP,
            ),
            Node::Not(a) => (format!("!{}", self.at(*a, P_ATOM)), P_NEG),
            Node::And(ops) => (self.list(ops, " && ", P_CMP), P_AND),
            Node::Or(ops) => (self.list(ops, " || ", P_AND), P_OR),
            Node::Opaque(op, ops) => (format!("`{op}`({})", self.list(ops, ", ", 0)), P_ATOM),
            Node::Select(c, a, b) => (
                format!(
                    "select({}, {}, {})",
                    self.at(*c, 0),
                    self.at(*a, 0),
                    self.at(*b, 0)
                ),
                P_ATOM,
            ),
        }
    }

    /// Whether a summand prints as a subtraction: a negative constant or a product with a
    /// negative coefficient.
    fn is_negative(&self, id: TermId) -> bool {
        let t = self.terms;
        match t.node(id) {
            Node::Const(c) => c.is_negative(),
            Node::Mul(ops) => t.as_const(ops[0]).is_some_and(|c| c.is_negative()),
            _ => false,
        }
    }

    fn sum(&self, ops: &[TermId]) -> String {
        let t = self.terms;
        let (constant, rest) = match t.as_const(ops[0]) {
            Some(c) => (Some(c), &ops[1..]),
            None => (None, ops),
        };
        let mut out = String::new();
        for (i, &o) in rest.iter().enumerate() {
            if i == 0 {
                out += &self.at(o, P_ADD);
            } else if self.is_negative(o) {
                out += " - ";
                let (s, p) = self.negated(o);
                out += &if p <= P_ADD { format!("({s})") } else { s };
            } else {
                out += " + ";
                out += &self.at(o, P_ADD + 1);
            }
        }
        if let Some(c) = constant {
            let (s, p) = format_const(&c.abs());
            let s = if p <= P_ADD { format!("({s})") } else { s };
            out += if c.is_negative() { " - " } else { " + " };
            out += &s;
        }
        out
    }

    /// `-id` for a summand with [`Printer::is_negative`].
    fn negated(&self, id: TermId) -> (String, u8) {
        match self.terms.node(id) {
            Node::Const(c) => format_const(&-c),
            _ => self.product(id, true),
        }
    }

    /// A product (or a negative power) printed with `*` and `/`; `negate` flips the sign of
    /// its coefficient.
    fn product(&self, id: TermId, negate: bool) -> (String, u8) {
        let t = self.terms;
        let single = [id];
        let ops: &[TermId] = match t.node(id) {
            Node::Mul(ops) => ops,
            _ => &single,
        };
        let (coeff, factors) = match t.as_const(ops[0]) {
            Some(c) => (c.clone(), &ops[1..]),
            None => (BigRational::one(), ops),
        };
        let coeff = if negate { -coeff } else { coeff };
        let mut num: Vec<String> = Vec::new();
        let mut den: Vec<String> = Vec::new();
        if !coeff.abs().is_one() {
            match const_form(&coeff) {
                ConstForm::Token(s) => num.push(s),
                ConstForm::Fraction(p, q) => {
                    if !p.is_one() {
                        num.push(p.to_string());
                    }
                    den.push(q.to_string());
                }
            }
        }
        for &f in factors {
            match t.node(f) {
                Node::Pow(b, k) if *k == -1 => den.push(self.at(*b, P_POW)),
                Node::Pow(b, k) if *k < 0 => {
                    den.push(format!("{}^{}", self.at(*b, P_ATOM), -(*k as i64)))
                }
                _ => num.push(self.at(f, P_POW)),
            }
        }
        let sign = if coeff.is_negative() { "-" } else { "" };
        let prec = if num.len() <= 1 && den.is_empty() {
            if sign.is_empty() {
                P_POW
            } else {
                P_NEG
            }
        } else {
            P_MUL
        };
        let mut s = String::from(sign);
        s += &if num.is_empty() {
            "1".to_string()
        } else {
            num.join(" * ")
        };
        match den.len() {
            0 => {}
            1 => s += &format!(" / {}", den[0]),
            _ => s += &format!(" / ({})", den.join(" * ")),
        }
        // A single factor keeps its own precedence (e.g. an atom).
        if num.len() == 1 && den.is_empty() && sign.is_empty() {
            let only = factors.first().copied().filter(|_| coeff.is_one());
            if let Some(f) = only {
                return self.repr(f);
            }
        }
        (s, prec)
    }
}
