//! Renderers of lifted formulas: `text` (the default, one `y[M,N] = ...` line per
//! output), `json` (schema `lift.formula/1`), `latex`, `torch` and `numpy` (runnable
//! Python reference functions); `named` prints a formula's named form (`simplify`),
//! in text with a repeated sub-formula bound once (`share`: `... where s = ...`).
//!
//! Architecture invariant: renderers depend only on `formula` and `term` (for constant
//! formatting), and `named` on `simplify`'s named tree; they print the tree as it is
//! (no rewriting: simplification is a separate stage), so every rendering means exactly
//! the formula, with three documented
//! exceptions made for readability: `text` and `latex` drop `keepdim` where a reduction
//! is an operand of an element-wise operation (it broadcasts back along the reduced
//! axis), `text` and `latex` print a `Broadcast` as its operand (the heading carries the
//! shape: `y[N] = 0`), and `latex` prints float constants without their `f32`/`f64`
//! suffix.
//! Renderers that need shapes (headings, `.T` in Python) take the [`ShapeEnv`] and
//! return a [`FormulaError`] for a formula that does not type-check.

mod infix;
pub mod json;
pub mod latex;
pub mod named;
pub mod numpy;
mod share;
pub mod text;
pub mod torch;

use crate::formula::{Dim, FormulaError, Output, ShapeEnv};

/// `y[M,N]`: the output's name and its dims (size names where known, else sizes);
/// a 0-d output is just `y`.
pub fn heading(name: &str, dims: &[Dim]) -> String {
    if dims.is_empty() {
        return name.to_string();
    }
    let ds: Vec<String> = dims
        .iter()
        .map(|d| d.name.clone().unwrap_or_else(|| d.size.to_string()))
        .collect();
    format!("{name}[{}]", ds.join(","))
}

/// The Python parameters of a kernel function computing `outputs`: input tensors then
/// scalars, each in order of first occurrence.
pub fn parameters(outputs: &[Output]) -> Vec<String> {
    let (mut ts, mut ss) = (Vec::<String>::new(), Vec::<String>::new());
    for o in outputs {
        let (t, s) = o.formula.free_names();
        for n in t {
            if !ts.contains(&n) {
                ts.push(n);
            }
        }
        for n in s {
            if !ss.contains(&n) {
                ss.push(n);
            }
        }
    }
    ts.extend(ss);
    ts
}

/// Type-checks every output.
fn check(outputs: &[Output], env: &ShapeEnv) -> Result<Vec<Vec<Dim>>, FormulaError> {
    outputs
        .iter()
        .map(|o| {
            o.formula.dims(env).map_err(|e| FormulaError {
                message: format!("output `{}`: {}", o.name, e.message),
            })
        })
        .collect()
}
