//! Where a Triton kernel computes at less than f32 precision: the roundings that
//! the real semantics (docs/semantics.md) reads as exact, so that a verdict can name them.

use super::ast::{Attr, FloatKind, Loc, Module, Op, Region, Type};

/// A rounding the reals read as exact: what it is and its `.ttir` op.
#[derive(Clone, Debug, PartialEq)]
pub struct Narrowing {
    /// In words, e.g. "f16 rounding (`arith.truncf`); assumes |values| <= 65504".
    pub what: String,
    pub line: u32,
    pub loc: super::ast::Loc,
    /// Whether `--precision ieee` rounds it (f16/bf16 casts and arithmetic, tf32 dots).
    pub ieee_modelled: bool,
    pub kind: NarrowingKind,
}

/// What kind of step rounds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NarrowingKind {
    /// A conversion to a narrower float type (`arith.truncf`, an int to f16).
    Conversion,
    /// A `tt.dot` whose inputs run in tf32.
    Tf32Dot,
    /// One f16/bf16 arithmetic step (`x * 0.1` in f16).
    Arithmetic,
    /// An f16/bf16 step that accumulates: a running sum carried by a loop, a
    /// `tt.reduce`, a `tt.dot` accumulating in f16. Its error grows with a size.
    Accumulation,
}

/// Every narrowing op of the module, in program order: float truncations to a type
/// narrower than f32, arithmetic computed in f16/bf16 (accumulations marked), and
/// `tt.dot`s on f32 operands that run in tf32 (Triton's default `input_precision`;
/// `ieee` is exact f32).
pub fn narrowings(module: &Module) -> Vec<Narrowing> {
    let mut out = Vec::new();
    for f in &module.funcs {
        walk(&f.body, &Context::default(), &mut out);
    }
    out
}

/// Where an op sits: the values a loop carries, and the reduction it combines for.
#[derive(Clone, Default)]
struct Context<'a> {
    /// The iteration arguments of the enclosing `scf.for` bodies.
    carried: Vec<&'a str>,
    /// The `tt.reduce`/`tt.scan` whose combine region this is.
    reduce: Option<&'a Op>,
}

fn walk<'a>(region: &'a Region, ctx: &Context<'a>, out: &mut Vec<Narrowing>) {
    for block in &region.blocks {
        for op in &block.ops {
            let found = narrowing(op).map(|(what, ieee)| {
                let kind = if op.name == "tt.dot" {
                    NarrowingKind::Tf32Dot
                } else {
                    NarrowingKind::Conversion
                };
                (what, ieee, kind, op)
            });
            if let Some((what, ieee_modelled, kind, at)) = found.or_else(|| arithmetic(op, ctx)) {
                out.push(Narrowing {
                    what,
                    ieee_modelled,
                    kind,
                    line: at.line,
                    loc: at.loc.clone(),
                });
            }
            for r in &op.regions {
                let mut inner = ctx.clone();
                match op.name.as_str() {
                    // The body's first argument is the induction variable.
                    "scf.for" => inner.carried.extend(
                        r.blocks
                            .iter()
                            .flat_map(|b| b.args.iter().skip(1))
                            .map(|a| a.name.as_str()),
                    ),
                    "tt.reduce" | "tt.scan" => inner.reduce = Some(op),
                    _ => {}
                }
                walk(r, &inner, out);
            }
        }
    }
}

/// An f16/bf16 (or f8) arithmetic step: what it is, whether `--precision ieee` rounds
/// it, its kind, and the op to cite (a combine region's `tt.reduce`, whose line is the
/// user's `tl.sum`).
fn arithmetic<'a>(op: &'a Op, ctx: &Context<'a>) -> Option<(String, bool, NarrowingKind, &'a Op)> {
    if !crate::exec::precision::computes_float(&op.name) {
        return None;
    }
    let kind = float_kind(op.result_types.first()?)?;
    if !matches!(kind, FloatKind::F16 | FloatKind::BF16 | FloatKind::F8) {
        return None;
    }
    let ty = kind_name(kind);
    let steps = match op.name.as_str() {
        "arith.addf" => "additions",
        "arith.subf" => "subtractions",
        "arith.mulf" => "multiplications",
        "arith.divf" => "divisions",
        "math.fma" => "fused multiply-adds",
        "tt.dot" => "dot-product accumulations",
        "arith.sitofp" | "arith.uitofp" => "integer conversions",
        _ => "operations",
    };
    let carried = op
        .operands
        .iter()
        .any(|o| ctx.carried.contains(&o.as_str()));
    let (role, kind_of, at) = match (ctx.reduce, op.name.as_str()) {
        (Some(r), _) => (
            format!(": a reduction (`{}`) combining in {ty}", r.name),
            NarrowingKind::Accumulation,
            r,
        ),
        (None, "tt.dot") => (
            format!(": the dot's accumulator is {ty}"),
            NarrowingKind::Accumulation,
            op,
        ),
        (None, _) if carried => (
            format!(": a running {ty} value carried by a loop"),
            NarrowingKind::Accumulation,
            op,
        ),
        _ => (String::new(), NarrowingKind::Arithmetic, op),
    };
    Some((
        format!("{ty} {steps} (`{}`) read as exact{role}", op.name),
        kind != FloatKind::F8,
        kind_of,
        at,
    ))
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

/// The (.ttir line, source) of every op of `module`, nested regions included, that
/// `pick` accepts, in the order they stand.
pub fn ops_where(module: &Module, pick: impl Fn(&Op) -> bool) -> Vec<(u32, Loc)> {
    fn walk(region: &Region, pick: &dyn Fn(&Op) -> bool, out: &mut Vec<(u32, Loc)>) {
        for op in region.blocks.iter().flat_map(|b| &b.ops) {
            if pick(op) {
                out.push((op.line, op.loc.clone()));
            }
            for r in &op.regions {
                walk(r, pick, out);
            }
        }
    }
    let mut out = Vec::new();
    for f in &module.funcs {
        walk(&f.body, &pick, &mut out);
    }
    out
}

/// Whether `op` is a float atomic add (`tt.atomic_rmw fadd`).
fn is_fadd(op: &Op) -> bool {
    op.name == "tt.atomic_rmw" && op.attr("atomic_rmw_op").and_then(|a| a.as_str()) == Some("fadd")
}

/// The (.ttir line, source) of every masked `tt.load` without `other=`: the loads whose
/// masked-off lanes Triton leaves undefined.
pub fn masked_loads_without_other(module: &Module) -> Vec<(u32, Loc)> {
    ops_where(module, |op| op.name == "tt.load" && op.operands.len() == 2)
}

/// The (.ttir line, source) of every float atomic add (`tt.atomic_rmw fadd`): the GPU
/// adds them in no fixed order, a verdict reads their sum as exact (order-free over the
/// reals) and says so.
pub fn atomic_adds(module: &Module) -> Vec<(u32, Loc)> {
    ops_where(module, is_fadd)
}

/// The (.ttir line, source) of every atomic but a float add (`tt.atomic_cas`, and
/// `tt.atomic_rmw` of any other kind): the run applies them, and the critical sections
/// of locks, in the programs' order, checks the reverse order gives the same, and a
/// verdict says so.
pub fn order_sensitive_atomics(module: &Module) -> Vec<(u32, Loc)> {
    ops_where(module, |op| {
        op.name == "tt.atomic_cas" || (op.name == "tt.atomic_rmw" && !is_fadd(op))
    })
}
