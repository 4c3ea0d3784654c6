//! Where a Triton kernel computes at less than f32 precision: the roundings that
//! DESIGN's real semantics reads as exact, so that a verdict can name them.

use super::ast::{Attr, FloatKind, Module, Op, Region, Type};

/// A rounding the reals read as exact: what it is and its `.ttir` op.
#[derive(Clone, Debug, PartialEq)]
pub struct Narrowing {
    /// In words, e.g. "f16 rounding (`arith.truncf`); assumes |values| <= 65504".
    pub what: String,
    pub line: u32,
    pub loc: super::ast::Loc,
    /// Whether `--precision ieee` rounds it (f16/bf16 casts, tf32 dots).
    pub ieee_modelled: bool,
}

/// Every narrowing op of the module, in program order: float truncations to a type
/// narrower than f32, and `tt.dot`s on f32 operands that run in tf32 (Triton's default
/// `input_precision`; `ieee` is exact f32).
pub fn narrowings(module: &Module) -> Vec<Narrowing> {
    let mut out = Vec::new();
    for f in &module.funcs {
        walk(&f.body, &mut out);
    }
    out
}

fn walk(region: &Region, out: &mut Vec<Narrowing>) {
    for block in &region.blocks {
        for op in &block.ops {
            if let Some((what, ieee_modelled)) = narrowing(op) {
                out.push(Narrowing {
                    what,
                    ieee_modelled,
                    line: op.line,
                    loc: op.loc.clone(),
                });
            }
            for r in &op.regions {
                walk(r, out);
            }
        }
    }
}

fn narrowing(op: &Op) -> Option<(String, bool)> {
    match op.name.as_str() {
        "arith.truncf" | "tt.fp_to_fp" => {
            let kind = float_kind(op.result_types.first()?)?;
            let range = match kind {
                FloatKind::F16 => "; assumes |values| <= 65504 (f16's largest)",
                FloatKind::BF16 => "",
                FloatKind::F8 => "; assumes values within the f8 range",
                FloatKind::F32 | FloatKind::F64 => return None,
            };
            Some((
                format!(
                    "{} rounding (`{}`) read as exact{range}",
                    kind_name(kind),
                    op.name
                ),
                kind != FloatKind::F8,
            ))
        }
        "tt.dot" => {
            // Triton prints `inputPrecision = tf32` (its default for `tl.dot` on f32)
            // and leaves `ieee` unprinted.
            let precision = match op.attrs.get("inputPrecision") {
                Some(Attr::Str(s)) => s.as_str(),
                _ => "ieee",
            };
            let f32_operands = op
                .operand_types
                .first()
                .and_then(float_kind)
                .is_none_or(|k| k == FloatKind::F32);
            match precision {
                "tf32" | "tf32x3" if f32_operands => Some((
                    format!(
                        "{precision} products (`tt.dot`, Triton's default input_precision) read as exact f32"
                    ),
                    precision == "tf32",
                )),
                _ => None,
            }
        }
        _ => None,
    }
}

fn float_kind(ty: &Type) -> Option<FloatKind> {
    match ty.elem() {
        Type::Float(k) => Some(*k),
        _ => None,
    }
}

fn kind_name(k: FloatKind) -> &'static str {
    match k {
        FloatKind::F16 => "f16",
        FloatKind::BF16 => "bf16",
        FloatKind::F32 => "f32",
        FloatKind::F64 => "f64",
        FloatKind::F8 => "f8",
    }
}

/// The (.ttir line, source) of every masked `tt.load` without `other=`: the loads whose
/// masked-off lanes Triton leaves undefined.
pub fn masked_loads_without_other(module: &Module) -> Vec<(u32, crate::triton_ir::ast::Loc)> {
    fn walk(region: &Region, out: &mut Vec<(u32, crate::triton_ir::ast::Loc)>) {
        for block in &region.blocks {
            for op in &block.ops {
                if op.name == "tt.load" && op.operands.len() == 2 {
                    out.push((op.line, op.loc.clone()));
                }
                for r in &op.regions {
                    walk(r, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    for f in &module.funcs {
        walk(&f.body, &mut out);
    }
    out
}
