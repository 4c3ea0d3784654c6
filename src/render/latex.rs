//! The LaTeX rendering: `y = \frac{\exp\left(x - \max_{j} x\right)}{\sum_{j} \exp\left(x - \max_{j} x\right)}`.
//!
//! Conventions: tensors are written whole (no element indices); a reduction over axis
//! `k` of its operand is a big operator subscripted with the k-th index letter (`i j k l`,
//! then `a_{4}`...): `\sum_{j}`, `\max_{j}`, `\min_{j}`, `\operatorname{mean}_{j}`;
//! `keepdim` is implied (never printed); `\frac{a}{b}`; element-wise product `a \cdot b`;
//! matrix product by juxtaposition `q k^{\top}`; `\exp\left(..\right)`, `2^{a}`,
//! `\log_2`, `\sqrt{a}`, `\frac{1}{\sqrt{a}}` for rsqrt, `\operatorname{erf}`,
//! `\left|a\right|`; element-wise `\max\left(a, b\right)`; `where` as `cases`. Names of
//! more than one letter are upright (`\mathrm{scale}`), except `eps`/`alpha`/... which
//! are Greek. Constants are the term printer's (`0.044715` for the f32 `0.044715f32`: the
//! suffix is dropped), fractions `\frac{1}{3}`.

use super::{check, heading};
use crate::formula::{BinaryOp, Formula, FormulaError, Output, ReduceOp, ShapeEnv, UnaryOp};
use crate::term::{format_const, CmpOp};

const P_CMP: u8 = 1;
const P_ADD: u8 = 2;
const P_MUL: u8 = 3;
const P_NEG: u8 = 4;
const P_POW: u8 = 5;
const P_ATOM: u8 = 6;

/// A name as LaTeX: one letter as is, known Greek names as symbols, others upright.
pub fn name(n: &str) -> String {
    let greek = match n {
        "eps" | "epsilon" => Some("\\varepsilon"),
        "alpha" => Some("\\alpha"),
        "beta" => Some("\\beta"),
        "gamma" => Some("\\gamma"),
        "lambda" | "lam" => Some("\\lambda"),
        "mu" => Some("\\mu"),
        "sigma" => Some("\\sigma"),
        "tau" => Some("\\tau"),
        "theta" => Some("\\theta"),
        _ => None,
    };
    if let Some(g) = greek {
        return g.to_string();
    }
    if n.chars().count() == 1 {
        return n.to_string();
    }
    format!("\\mathrm{{{}}}", n.replace('_', "\\_"))
}

fn index_letter(axis: usize) -> String {
    match axis {
        0 => "i".into(),
        1 => "j".into(),
        2 => "k".into(),
        3 => "l".into(),
        n => format!("a_{{{n}}}"),
    }
}

fn wrap(s: (String, u8), min: u8) -> String {
    if s.1 < min {
        format!("\\left({}\\right)", s.0)
    } else {
        s.0
    }
}

fn at(f: &Formula, min: u8) -> String {
    wrap(repr(f), min)
}

fn repr(f: &Formula) -> (String, u8) {
    match f {
        Formula::Input(n) | Formula::Scalar(n) => (name(n), P_ATOM),
        Formula::Const(c) => {
            let (s, _) = format_const(c);
            let s = s
                .strip_suffix("f32")
                .or_else(|| s.strip_suffix("f64"))
                .unwrap_or(&s)
                .to_string();
            let (sign, body) = match s.strip_prefix('-') {
                Some(b) => ("-", b.to_string()),
                None => ("", s.clone()),
            };
            let body = match body.split_once('/') {
                Some((p, q)) => format!("\\frac{{{p}}}{{{q}}}"),
                None => body,
            };
            let p = if sign.is_empty() { P_ATOM } else { P_NEG };
            (format!("{sign}{body}"), p)
        }
        Formula::Unary(op, a) => {
            let arg = || at(a, 0);
            match op {
                UnaryOp::Neg => (format!("-{}", at(a, P_NEG)), P_NEG),
                UnaryOp::Exp2 => (format!("2^{{{}}}", at(a, 0)), P_POW),
                UnaryOp::Sqrt => (format!("\\sqrt{{{}}}", arg()), P_ATOM),
                UnaryOp::Rsqrt => (format!("\\frac{{1}}{{\\sqrt{{{}}}}}", arg()), P_NEG),
                UnaryOp::Abs => (format!("\\left|{}\\right|", arg()), P_ATOM),
                _ => {
                    let fname = match op {
                        UnaryOp::Exp => "\\exp",
                        UnaryOp::Log => "\\log",
                        UnaryOp::Log2 => "\\log_2",
                        UnaryOp::Tanh => "\\tanh",
                        UnaryOp::Sin => "\\sin",
                        UnaryOp::Cos => "\\cos",
                        _ => "\\operatorname{erf}",
                    };
                    (format!("{fname}\\left({}\\right)", arg()), P_ATOM)
                }
            }
        }
        Formula::Binary(op, a, b) => match op {
            BinaryOp::Add => (format!("{} + {}", at(a, P_ADD), at(b, P_ADD + 1)), P_ADD),
            BinaryOp::Sub => (format!("{} - {}", at(a, P_ADD), at(b, P_ADD + 1)), P_ADD),
            BinaryOp::Mul => (
                format!("{} \\cdot {}", at(a, P_MUL), at(b, P_MUL + 1)),
                P_MUL,
            ),
            BinaryOp::Div => (format!("\\frac{{{}}}{{{}}}", at(a, 0), at(b, 0)), P_NEG),
            BinaryOp::Max | BinaryOp::Min => {
                let m = if *op == BinaryOp::Max { "max" } else { "min" };
                (
                    format!("\\{m}\\left({}, {}\\right)", at(a, 0), at(b, 0)),
                    P_ATOM,
                )
            }
        },
        Formula::Powi(a, k) => (format!("{}^{{{k}}}", at(a, P_ATOM)), P_POW),
        Formula::Cmp(op, a, b) => {
            let sym = match op {
                CmpOp::Lt => "<",
                CmpOp::Le => "\\leq",
                CmpOp::Gt => ">",
                CmpOp::Ge => "\\geq",
                CmpOp::Eq => "=",
                CmpOp::Ne => "\\neq",
            };
            (format!("{} {sym} {}", at(a, P_ADD), at(b, P_ADD)), P_CMP)
        }
        Formula::Select(c, a, b) => (
            format!(
                "\\begin{{cases}} {} & \\text{{if }} {} \\\\ {} & \\text{{otherwise}} \\end{{cases}}",
                at(a, 0),
                at(c, 0),
                at(b, 0)
            ),
            P_ATOM,
        ),
        Formula::Reduce { op, axis, arg, .. } => {
            let big = match op {
                ReduceOp::Sum => "\\sum",
                ReduceOp::Max => "\\max",
                ReduceOp::Min => "\\min",
                ReduceOp::Mean => "\\operatorname{mean}",
            };
            (
                format!("{big}_{{{}}} {}", index_letter(*axis), at(arg, P_POW)),
                P_ADD,
            )
        }
        Formula::MatMul(a, b) => (format!("{} {}", at(a, P_POW), at(b, P_POW)), P_MUL),
        Formula::Transpose(a) => (format!("{}^{{\\top}}", at(a, P_ATOM)), P_POW),
    }
}

/// One formula.
pub fn expr(f: &Formula) -> String {
    repr(f).0
}

/// One equation per output (`y = ...`), separated by `\\` and newlines; shapes as a
/// trailing comment `% y[M,N]`.
pub fn outputs(outputs: &[Output], env: &ShapeEnv) -> Result<String, FormulaError> {
    let dims = check(outputs, env)?;
    let lines: Vec<String> = outputs
        .iter()
        .zip(&dims)
        .map(|(o, d)| {
            format!(
                "{} = {} % {}",
                name(&o.name),
                expr(&o.formula),
                heading(&o.name, d)
            )
        })
        .collect();
    Ok(lines.join(" \\\\\n") + "\n")
}
