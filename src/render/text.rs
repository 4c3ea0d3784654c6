//! The text rendering: `y[M,N] = exp(x - max(x, axis=1)) / sum(exp(x - max(x, axis=1)), axis=1)`.
//!
//! Conventions: infix `+ - * /` and unary `-` with Python's precedence and minimal
//! parentheses; `x^3`; functions `exp(..) log2(..) rsqrt(..)`; element-wise `max(a, b)`,
//! `min(a, b)`; comparisons `a > b`; `where(c, a, b)`; reductions `sum(e, axis=1)`,
//! `max(..)`, `min(..)`, `mean(..)`, with `keepdim=True` printed only where the reduction
//! is not an operand of an element-wise operation; `a @ b`; `a.T` (swaps the last two
//! axes; a vector broadcast down the rows is `v[:, None]` where shapes are known); constants as the term printer writes them (`3`, `0.375`, `0.044715f32` = the
//! f32 nearest to 0.044715, `1/3`); `cat([a, b], axis=0)`; slices `x[:, :H]`,
//! `x[:, H:]` with size expressions as bounds; a broadcast to the output's shape prints
//! as its operand (`y[N] = 0`: the heading says the shape). Headings `y[M,N]` name axes
//! by the launch's size names where they can be traced, by their sizes otherwise.

use super::infix::{Dialect, Infix};
use super::{check, heading};
use crate::formula::{Formula, FormulaError, Output, ShapeEnv};

/// One formula, without heading.
pub fn expr(f: &Formula) -> String {
    Infix {
        dialect: Dialect::Text,
        env: None,
    }
    .expr(f)
}

/// A formula's text form is this module's [`expr`]: `format!("{f}")`, and the shape
/// errors that name a node, print it so.
impl std::fmt::Display for Formula {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&expr(self))
    }
}

/// One formula, without heading, with the shapes of `env` (a vector broadcast down
/// the rows then prints as NumPy's `v[:, None]`).
pub fn expr_in(f: &Formula, env: &ShapeEnv) -> String {
    Infix {
        dialect: Dialect::Text,
        env: Some(env),
    }
    .expr(f)
}

/// One line per output: `y[M,N] = ...`.
pub fn outputs(outputs: &[Output], env: &ShapeEnv) -> Result<String, FormulaError> {
    let dims = check(outputs, env)?;
    let mut s = String::new();
    for (o, d) in outputs.iter().zip(&dims) {
        s += &format!("{} = {}\n", heading(&o.name, d), expr_in(&o.formula, env));
    }
    Ok(s)
}
