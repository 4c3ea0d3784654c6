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
use crate::formula::{BinaryOp, Formula, FormulaError, Output, ReduceOp, ShapeEnv, Size, UnaryOp};
use crate::term::{format_const, CmpOp};
use num_traits::Signed;

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

pub(super) fn index_letter(axis: usize) -> String {
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

/// `f` bound at least as tightly as `min`; `followed`: more of the expression follows
/// it on the same line, so a big operator (`\\sum_{j} x`) would swallow what follows.
fn at(f: &Formula, min: u8, followed: bool) -> String {
    if prec(f, followed) < min {
        // Parenthesized, nothing follows it inside the parentheses.
        wrap(repr(f, false), u8::MAX)
    } else {
        let (s, p) = repr(f, followed);
        debug_assert_eq!(p, prec(f, followed), "{s}");
        s
    }
}

/// The precedence `repr(f, followed)` returns, without printing.
fn prec(f: &Formula, followed: bool) -> u8 {
    match f {
        Formula::Input(_) | Formula::Scalar(_) => P_ATOM,
        Formula::Const(c) if c.is_negative() => P_NEG,
        Formula::Const(_) => P_ATOM,
        Formula::Inf { negative: true } => P_NEG,
        Formula::Inf { negative: false } => P_ATOM,
        Formula::Unary(UnaryOp::Neg | UnaryOp::Rsqrt, _) => P_NEG,
        Formula::Unary(UnaryOp::Exp2, _) => P_POW,
        Formula::Unary(..) => P_ATOM,
        Formula::Binary(BinaryOp::Add | BinaryOp::Sub, ..) => P_ADD,
        Formula::Binary(BinaryOp::Mul, ..) => P_MUL,
        Formula::Binary(BinaryOp::Div, ..) => P_NEG,
        Formula::Binary(..) => P_ATOM,
        Formula::Powi(..) | Formula::Transpose(_) => P_POW,
        Formula::Cmp(..) => P_CMP,
        Formula::Select(..) => P_ATOM,
        Formula::Reduce { .. } if followed => P_ADD,
        Formula::Reduce { .. } => P_NEG,
        Formula::MatMul(..) => P_MUL,
        Formula::Cat { .. } | Formula::Slice { .. } | Formula::Unsqueeze { .. } => P_ATOM,
        Formula::Reshape { .. } => P_ATOM,
        Formula::Scan { .. }
        | Formula::Recurrence { .. }
        | Formula::Tri { .. }
        | Formula::Window { .. } => P_ATOM,
        Formula::Take { .. } | Formula::Arange(_) | Formula::Rand { .. } => P_ATOM,
        Formula::Broadcast { arg, .. } => prec(arg, followed),
    }
}

fn repr(f: &Formula, followed: bool) -> (String, u8) {
    match f {
        Formula::Input(n) | Formula::Scalar(n) => (name(n), P_ATOM),
        Formula::Inf { negative: true } => ("-\\infty".into(), P_NEG),
        Formula::Inf { negative: false } => ("\\infty".into(), P_ATOM),
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
            let arg = || at(a, 0, false);
            match op {
                UnaryOp::Neg => (format!("-{}", at(a, P_NEG, followed)), P_NEG),
                UnaryOp::Exp2 => (format!("2^{{{}}}", at(a, 0, false)), P_POW),
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
                        UnaryOp::Rint => "\\operatorname{rint}",
                        _ => "\\operatorname{erf}",
                    };
                    (format!("{fname}\\left({}\\right)", arg()), P_ATOM)
                }
            }
        }
        Formula::Binary(op, a, b) => match op {
            BinaryOp::Add => (format!("{} + {}", at(a, P_ADD, true), at(b, P_ADD + 1, followed)), P_ADD),
            BinaryOp::Sub => (format!("{} - {}", at(a, P_ADD, true), at(b, P_ADD + 1, followed)), P_ADD),
            BinaryOp::Mul => (
                format!("{} \\cdot {}", at(a, P_MUL, true), at(b, P_MUL + 1, followed)),
                P_MUL,
            ),
            BinaryOp::Div => (format!("\\frac{{{}}}{{{}}}", at(a, 0, false), at(b, 0, false)), P_NEG),
            BinaryOp::Max | BinaryOp::Min => {
                let m = if *op == BinaryOp::Max { "max" } else { "min" };
                (
                    format!("\\{m}\\left({}, {}\\right)", at(a, 0, false), at(b, 0, false)),
                    P_ATOM,
                )
            }
            BinaryOp::FMax | BinaryOp::FMin => (
                format!(
                    "\\operatorname{{{}}}\\left({}, {}\\right)",
                    op.name(),
                    at(a, 0, false),
                    at(b, 0, false)
                ),
                P_ATOM,
            ),
        },
        Formula::Powi(a, k) => (format!("{}^{{{k}}}", at(a, P_ATOM, false)), P_POW),
        Formula::Cmp(op, a, b) => {
            let sym = match op {
                CmpOp::Lt => "<",
                CmpOp::Le => "\\leq",
                CmpOp::Gt => ">",
                CmpOp::Ge => "\\geq",
                CmpOp::Eq => "=",
                CmpOp::Ne => "\\neq",
            };
            (format!("{} {sym} {}", at(a, P_ADD, true), at(b, P_ADD, followed)), P_CMP)
        }
        Formula::Select(c, a, b) => (
            format!(
                "\\begin{{cases}} {} & \\text{{if }} {} \\\\ {} & \\text{{otherwise}} \\end{{cases}}",
                at(a, 0, false),
                at(c, 0, false),
                at(b, 0, false)
            ),
            P_ATOM,
        ),
        Formula::Reduce { op, axis, arg, .. } => {
            let big = match op {
                ReduceOp::Sum => "\\sum",
                ReduceOp::Max => "\\max",
                ReduceOp::Min => "\\min",
                ReduceOp::Mean => "\\operatorname{mean}",
                ReduceOp::Prod => "\\prod",
                ReduceOp::ArgMax => "\\operatorname{argmax}",
                ReduceOp::ArgMin => "\\operatorname{argmin}",
            };
            (
                format!("{big}_{{{}}} {}", index_letter(*axis), at(arg, P_NEG, followed)),
                // Binds tighter than `+` (`\\sum_{j} x + 1`); wrapped before `\\cdot`.
                if followed { P_ADD } else { P_NEG },
            )
        }
        Formula::MatMul(a, b) => (format!("{} {}", at(a, P_POW, true), at(b, P_POW, followed)), P_MUL),
        Formula::Transpose(a) => (format!("{}^{{\\top}}", at(a, P_ATOM, false)), P_POW),
        Formula::Recurrence { axis, a, x } => (
            format!(
                "\\operatorname{{linrec}}_{{{}}}\\left({}, {}\\right)",
                index_letter(*axis),
                at(a, 0, false),
                at(x, 0, false)
            ),
            P_ATOM,
        ),
        Formula::Scan { op, axis, arg } => (
            format!(
                "\\operatorname{{{}}}_{{{}}}\\left({}\\right)",
                op.name(),
                index_letter(*axis),
                at(arg, 0, false)
            ),
            P_ATOM,
        ),
        Formula::Tri {
            arg,
            upper,
            diagonal,
        } => {
            let name = if *upper { "triu" } else { "tril" };
            let k = if *diagonal == 0 {
                String::new()
            } else {
                format!("_{{{diagonal}}}")
            };
            // A broadcast number prints bare elsewhere; under a triangle its shape is
            // the point: `\mathbf{1}_{T \times T}`.
            let inner = match &**arg {
                Formula::Broadcast { arg: c, shape } if matches!(**c, Formula::Const(_)) => {
                    let dims: Vec<String> = shape.iter().map(size_latex).collect();
                    let body = match &**c {
                        Formula::Const(one) if num_traits::One::is_one(one) => "\\mathbf{1}".into(),
                        _ => at(c, 0, false),
                    };
                    format!("{body}_{{{}}}", dims.join(" \\times "))
                }
                _ => at(arg, 0, false),
            };
            (
                format!("\\operatorname{{{name}}}{k}\\left({inner}\\right)"),
                P_ATOM,
            )
        }
        Formula::Window { op, args, geometry } => {
            let parts: Vec<String> = args.iter().map(|a| at(a, 0, false)).collect();
            let name = op.name(geometry.nd()).replace('_', "\\_");
            (
                format!(
                    "\\operatorname{{{name}}}_{{s={:?}, p={:?}}}\\left({}\\right)",
                    geometry.stride,
                    geometry.padding,
                    parts.join(", ")
                ),
                P_ATOM,
            )
        }
        Formula::Arange(n) => (
            format!(
                "\\operatorname{{arange}}\\left({}\\right)",
                super::infix::size_text(n)
            ),
            P_ATOM,
        ),
        Formula::Rand { seed, offset } => (
            format!(
                "\\operatorname{{rand}}\\left({seed}, {}\\right)",
                at(offset, 0, false)
            ),
            P_ATOM,
        ),
        // A gather: `take_{j}(x, t)` reads `x` along axis `j` at `t`'s positions;
        // `w_{[idx]}` reads whole slices (an embedding's rows).
        Formula::Take {
            kind,
            axis,
            data,
            index,
        } => {
            let (x, i) = (at(data, 0, false), at(index, 0, false));
            let s = match kind {
                crate::formula::TakeKind::Along => format!(
                    "\\operatorname{{take}}_{{{}}}\\left({x}, {i}\\right)",
                    index_letter(*axis)
                ),
                crate::formula::TakeKind::Index => {
                    let mut idx = vec![":".to_string(); *axis];
                    idx.push(i);
                    format!("{}_{{[{}]}}", at(data, P_ATOM, false), idx.join(",\\, "))
                }
            };
            (s, P_ATOM)
        }
        Formula::Cat { axis, args } => {
            let parts: Vec<String> = args.iter().map(|a| at(a, 0, false)).collect();
            (
                format!(
                    "\\operatorname{{cat}}_{{{}}}\\left({}\\right)",
                    index_letter(*axis),
                    parts.join(", ")
                ),
                P_ATOM,
            )
        }
        Formula::Slice {
            arg,
            axis,
            start,
            end,
        } => {
            let mut idx = vec![":".to_string(); *axis];
            let lo = match start {
                Size::Int(0) => String::new(),
                e => size_latex(e),
            };
            let hi = end.as_ref().map(size_latex).unwrap_or_default();
            idx.push(format!("{lo}:{hi}"));
            (
                format!("{}_{{[{}]}}", at(arg, P_ATOM, false), idx.join(",\\, ")),
                P_ATOM,
            )
        }
        Formula::Unsqueeze { arg, axis } => {
            let mut idx = vec![":".to_string(); *axis];
            idx.push("\\mathrm{None}".into());
            (
                format!("{}_{{[{}]}}", at(arg, P_ATOM, false), idx.join(",\\, ")),
                P_ATOM,
            )
        }
        // The heading comment says the shape.
        Formula::Broadcast { arg, .. } => repr(arg, followed),
        Formula::Reshape { arg, shape } => {
            let dims: Vec<String> = shape.iter().map(size_latex).collect();
            (
                format!(
                    "\\operatorname{{reshape}}_{{{}}}({})",
                    dims.join(" \\times "),
                    at(arg, 0, false)
                ),
                P_ATOM,
            )
        }
    }
}

/// A size expression in LaTeX (`2 H`, `\\mathrm{N1} + \\mathrm{N2}`).
fn size_latex(e: &Size) -> String {
    match e {
        Size::Int(i) => i.to_string(),
        Size::Size(n) => name(n),
        _ => super::infix::size_text(e),
    }
}

/// One formula.
pub fn expr(f: &Formula) -> String {
    repr(f, false).0
}

/// One equation per output (`y = ...`), separated by `\\` and newlines; shapes as a
/// trailing comment `% y[M,N]`.
pub fn outputs(outputs: &[Output], env: &ShapeEnv) -> Result<String, FormulaError> {
    outputs_with(outputs, env, &expr)
}

/// [`outputs`] with each formula printed by `expr` (its named form, `render::named`).
pub fn outputs_with(
    outputs: &[Output],
    env: &ShapeEnv,
    expr: &dyn Fn(&Formula) -> String,
) -> Result<String, FormulaError> {
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
