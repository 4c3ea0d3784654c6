//! The TTIR op table: what each op name (and libdevice symbol) means ([`op_kind`]:
//! which real function, float binary, integer op, comparison, cast, shape move, memory
//! access or region op). Both TTIR interpreters (the bounded run in `exec::ops` and the
//! all-sizes run in `verify::paths`) dispatch on [`OpKind`], never on names.
//!
//! Invariant: an op name maps to one meaning here and nowhere else.

use super::domain::{Binary, Domain};
use crate::term::{CmpOp, Func};
use crate::triton_ir::ast::{Attr, Op, Scalar, Type};

/// What a TTIR op means, read from its name once ([`op_kind`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum OpKind {
    /// A real function of one float (`math.exp`, `math.sqrt`, `math.absf`...).
    Unary(Func),
    /// A float binary (`arith.addf`, `arith.maxnumf`...).
    Binary(Binary),
    /// An integer (or `i1`) binary (`arith.addi`, `arith.andi`, `arith.shli`...).
    Int(IntOp),
    NegF,
    Fma,
    ClampF,
    CmpF,
    CmpI,
    Select,
    /// `arith.extf`, `arith.truncf`, `tt.fp_to_fp`.
    FloatCast,
    /// `arith.sitofp` / `arith.uitofp`.
    IntToFloat {
        unsigned: bool,
    },
    /// `arith.fptosi` / `arith.fptoui`.
    FloatToInt {
        unsigned: bool,
    },
    /// `arith.extsi` (`signed`), `extui` and `index_castui` (`zero_extend`), `trunci`,
    /// `index_cast`.
    IntCast {
        signed: bool,
        zero_extend: bool,
    },
    Constant,
    ProgramId,
    NumPrograms,
    MakeRange,
    Splat,
    Broadcast,
    /// `tt.expand_dims`, `tt.reshape`.
    Reshape,
    Trans,
    Join,
    /// `tt.split`: a tensor whose last axis is 2 into its two halves (two results).
    Split,
    /// `tt.bitcast`: the same bits read in another type of the same width.
    Bitcast,
    AddPtr,
    Load,
    Store,
    /// `tt.atomic_rmw`: a read-modify-write of memory (its kind an attribute).
    AtomicRmw,
    /// `tt.atomic_cas`: a compare-and-swap of memory.
    AtomicCas,
    Dot,
    /// `tt.extern_elementwise`: its `symbol` says which libdevice function.
    Extern,
    Poison,
    /// `ttg.barrier`, `gpu.barrier`.
    Barrier,
    /// `tt.assert`, `tt.print`: no effect on values.
    Debug,
    For,
    If,
    While,
    Reduce,
    Scan,
    Call,
    /// `scf.yield`.
    Yield,
    /// `tt.reduce.return`.
    ReduceReturn,
    /// `tt.scan.return`.
    ScanReturn,
    /// `scf.condition` (the end of `scf.while`'s first region).
    Condition,
    Return,
    Br,
    CondBr,
}

/// The meaning of op `name`; `None` for an op no interpreter reads.
pub(crate) fn op_kind(name: &str) -> Option<OpKind> {
    if let Some(f) = unary_func(name) {
        return Some(OpKind::Unary(f));
    }
    if let Some(b) = float_binary(name) {
        return Some(OpKind::Binary(b));
    }
    if let Some(i) = int_binary(name) {
        return Some(OpKind::Int(i));
    }
    Some(match name {
        "arith.negf" => OpKind::NegF,
        "math.fma" => OpKind::Fma,
        "tt.clampf" => OpKind::ClampF,
        "arith.cmpf" => OpKind::CmpF,
        "arith.cmpi" => OpKind::CmpI,
        "arith.select" => OpKind::Select,
        "arith.extf" | "arith.truncf" | "tt.fp_to_fp" => OpKind::FloatCast,
        "arith.sitofp" => OpKind::IntToFloat { unsigned: false },
        "arith.uitofp" => OpKind::IntToFloat { unsigned: true },
        "arith.fptosi" => OpKind::FloatToInt { unsigned: false },
        "arith.fptoui" => OpKind::FloatToInt { unsigned: true },
        "arith.extsi" | "arith.extui" | "arith.trunci" | "arith.index_cast"
        | "arith.index_castui" => OpKind::IntCast {
            signed: name == "arith.extsi",
            zero_extend: matches!(name, "arith.extui" | "arith.index_castui"),
        },
        "arith.constant" => OpKind::Constant,
        "tt.get_program_id" => OpKind::ProgramId,
        "tt.get_num_programs" => OpKind::NumPrograms,
        "tt.make_range" => OpKind::MakeRange,
        "tt.splat" => OpKind::Splat,
        "tt.broadcast" => OpKind::Broadcast,
        "tt.expand_dims" | "tt.reshape" => OpKind::Reshape,
        "tt.trans" => OpKind::Trans,
        "tt.join" => OpKind::Join,
        "tt.split" => OpKind::Split,
        "tt.bitcast" => OpKind::Bitcast,
        "tt.addptr" => OpKind::AddPtr,
        "tt.load" => OpKind::Load,
        "tt.store" => OpKind::Store,
        "tt.atomic_rmw" => OpKind::AtomicRmw,
        "tt.atomic_cas" => OpKind::AtomicCas,
        "tt.dot" => OpKind::Dot,
        "tt.extern_elementwise" => OpKind::Extern,
        "ub.poison" => OpKind::Poison,
        "ttg.barrier" | "gpu.barrier" => OpKind::Barrier,
        "tt.assert" | "tt.print" => OpKind::Debug,
        "scf.for" => OpKind::For,
        "scf.if" => OpKind::If,
        "scf.while" => OpKind::While,
        "tt.reduce" => OpKind::Reduce,
        "tt.scan" => OpKind::Scan,
        "tt.call" => OpKind::Call,
        "scf.yield" => OpKind::Yield,
        "tt.reduce.return" => OpKind::ReduceReturn,
        "tt.scan.return" => OpKind::ScanReturn,
        "scf.condition" => OpKind::Condition,
        "tt.return" => OpKind::Return,
        "cf.br" => OpKind::Br,
        "cf.cond_br" => OpKind::CondBr,
        _ => return None,
    })
}

pub(crate) fn unary_func(name: &str) -> Option<Func> {
    Some(match name {
        "math.exp" => Func::Exp,
        "math.exp2" => Func::Exp2,
        "math.log" => Func::Log,
        "math.log2" => Func::Log2,
        "math.sqrt" | "tt.precise_sqrt" => Func::Sqrt,
        "math.rsqrt" => Func::Rsqrt,
        "math.tanh" => Func::Tanh,
        "math.sin" => Func::Sin,
        "math.cos" => Func::Cos,
        "math.erf" => Func::Erf,
        "math.absf" | "math.absi" => Func::Abs,
        "math.floor" => Func::Floor,
        "math.ceil" => Func::Ceil,
        _ => return None,
    })
}

/// The max and min a `tt.clampf` is made of: NaN-propagating with `propagateNan =
/// all`, maxNum/minNum (NaN dropped, so a NaN `x` gives `min(lo, hi)`) with `none`, as
/// Triton's NVIDIA lowering builds them.
pub(crate) fn clamp_ops(op: &Op) -> (Binary, Binary) {
    match op.attr("propagateNan").and_then(Attr::as_str) {
        Some("all") => (Binary::Max, Binary::Min),
        _ => (Binary::MaxNum, Binary::MinNum),
    }
}

pub(crate) fn float_binary(name: &str) -> Option<Binary> {
    Some(match name {
        "arith.addf" => Binary::Add,
        "arith.subf" => Binary::Sub,
        "arith.mulf" => Binary::Mul,
        "arith.divf" | "tt.precise_divf" => Binary::Div,
        // maxnumf (`tl.maximum`'s default) drops a NaN operand, maximumf
        // (`propagate_nan=tl.PropagateNan.ALL`) returns it.
        "arith.maxnumf" => Binary::MaxNum,
        "arith.minnumf" => Binary::MinNum,
        "arith.maximumf" => Binary::Max,
        "arith.minimumf" => Binary::Min,
        _ => return None,
    })
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum IntOp {
    Add,
    Sub,
    Mul,
    DivS,
    DivU,
    RemS,
    RemU,
    CeilDiv,
    FloorDiv,
    And,
    Or,
    Xor,
    Shl,
    ShrS,
    ShrU,
    Max,
    Min,
    MaxU,
    MinU,
    CeilDivU,
    /// `tt.mulhiui`: the high half of the double-width unsigned product (Philox's
    /// multiply in `tl.rand`).
    MulHiU,
}

pub(crate) fn int_binary(name: &str) -> Option<IntOp> {
    Some(match name {
        "arith.addi" => IntOp::Add,
        "arith.subi" => IntOp::Sub,
        "arith.muli" => IntOp::Mul,
        "arith.divsi" => IntOp::DivS,
        "arith.divui" => IntOp::DivU,
        "arith.remsi" => IntOp::RemS,
        "arith.remui" => IntOp::RemU,
        "arith.ceildivsi" => IntOp::CeilDiv,
        "arith.ceildivui" => IntOp::CeilDivU,
        "arith.floordivsi" => IntOp::FloorDiv,
        "arith.andi" => IntOp::And,
        "arith.ori" => IntOp::Or,
        "arith.xori" => IntOp::Xor,
        "arith.shli" => IntOp::Shl,
        "arith.shrsi" => IntOp::ShrS,
        "arith.shrui" => IntOp::ShrU,
        "arith.maxsi" => IntOp::Max,
        "arith.minsi" => IntOp::Min,
        "arith.maxui" => IntOp::MaxU,
        "arith.minui" => IntOp::MinU,
        "tt.mulhiui" => IntOp::MulHiU,
        _ => return None,
    })
}

/// Map a float predicate to a comparison over the reals (ordered and unordered
/// agree there); `Some(None)` for `ord`/`uno`/`true`/`false`, decided without values.
pub(crate) fn float_predicate(pred: &str) -> Option<Option<CmpOp>> {
    let base = pred
        .strip_prefix('o')
        .or_else(|| pred.strip_prefix('u'))
        .unwrap_or(pred);
    Some(match (pred, base) {
        ("ord" | "uno" | "true" | "false", _) => None,
        (_, "eq") => Some(CmpOp::Eq),
        (_, "ne") => Some(CmpOp::Ne),
        (_, "lt") => Some(CmpOp::Lt),
        (_, "le") => Some(CmpOp::Le),
        (_, "gt") => Some(CmpOp::Gt),
        (_, "ge") => Some(CmpOp::Ge),
        _ => return None,
    })
}

/// A combine region that is one float op of its two arguments (`a + b`, `max(a, b)`).
pub(crate) fn simple_combine(op: &Op) -> Option<Binary> {
    let block = op.regions.first()?.blocks.first()?;
    if block.args.len() != 2 || block.ops.len() != 2 {
        return None;
    }
    let (body, ret) = (&block.ops[0], &block.ops[1]);
    let b = float_binary(&body.name)?;
    if !matches!(
        b,
        Binary::Add | Binary::Max | Binary::Min | Binary::MaxNum | Binary::MinNum | Binary::Mul
    ) {
        return None;
    }
    let args: Vec<&str> = block.args.iter().map(|a| a.name.as_str()).collect();
    let operands: Vec<&str> = body.operands.iter().map(|s| s.as_str()).collect();
    let uses_both = operands == args || operands == [args[1], args[0]];
    let returns_it = ret.operands.len() == 1 && body.results.first() == ret.operands.first();
    (uses_both && returns_it).then_some(b)
}

/// `vals` (at least one) folded left to right by a reduction's simple combine `b`; a
/// sum as one n-ary node.
pub(crate) fn combine_all<D: Domain>(domain: &mut D, b: Binary, vals: &[D::V]) -> D::V {
    if b == Binary::Add {
        return domain.sum(vals);
    }
    let mut acc = vals[0];
    for &v in &vals[1..] {
        acc = domain.binary(b, acc, v);
    }
    acc
}

/// The real function a libdevice symbol (`__nv_tanhf`) of one operand computes, if it is
/// one of ours; the bounded and the symbolic interpreters read it alike.
pub(crate) fn extern_unary(symbol: &str) -> Option<Func> {
    let base = symbol.strip_prefix("__nv_").unwrap_or(symbol);
    Some(match base {
        "exp" | "expf" => Func::Exp,
        "exp2" | "exp2f" => Func::Exp2,
        "log" | "logf" => Func::Log,
        "log2" | "log2f" => Func::Log2,
        "sqrt" | "sqrtf" => Func::Sqrt,
        "rsqrt" | "rsqrtf" => Func::Rsqrt,
        "tanh" | "tanhf" => Func::Tanh,
        "sin" | "sinf" => Func::Sin,
        "cos" | "cosf" => Func::Cos,
        "erf" | "erff" => Func::Erf,
        "fabs" | "fabsf" => Func::Abs,
        "floor" | "floorf" => Func::Floor,
        "ceil" | "ceilf" => Func::Ceil,
        "rint" | "rintf" | "nearbyint" | "nearbyintf" => Func::Rint,
        _ => return None,
    })
}

/// Whether libdevice `symbol` rounds a float to the nearest `i64`, ties to even
/// (`llrintf`, `lrint`, ...: `cvt.rni.s64`), read by `exec::values::round_to_int`.
pub(crate) fn extern_round_to_int(symbol: &str) -> bool {
    let base = symbol.strip_prefix("__nv_").unwrap_or(symbol);
    matches!(base, "llrint" | "llrintf" | "lrint" | "lrintf")
}

/// `v` wrapped to a `bits`-wide two's complement integer, read as signed.
pub(crate) fn wrap(v: i128, bits: u32) -> i64 {
    if bits >= 64 || bits == 0 {
        return v as i64;
    }
    let sh = 128 - bits;
    ((v << sh) >> sh) as i64
}

/// The width of an integer type (`index` is 64 bits, as on the GPU).
pub(crate) fn int_width(ty: &Type) -> u32 {
    match ty.elem() {
        Type::Int(b) if (1..=64).contains(b) => *b,
        _ => 64,
    }
}

/// The function a `tt.call` names (the parser reads `@f` as the string `f`, with or
/// without its `@`).
pub(crate) fn callee(op: &Op) -> Option<&str> {
    op.attr("callee")
        .and_then(Attr::as_str)
        .map(|s| s.trim_start_matches('@'))
}

/// Deepest nesting of regions and calls either interpreter runs: the parser's cap on
/// region nesting (`MAX_REGION_DEPTH`), so only a chain of calls reaches it.
pub(crate) const MAX_NESTING: u32 = 64;

/// One element of an `arith.constant`, read in its type.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Literal {
    Bool(bool),
    /// An integer of the constant's width, wrapped to it (its signed reading).
    Int(i128),
    Float(f64),
}

/// The shape and elements of `arith.constant` `op`: one element for a splat, else one
/// per lane in row-major order.
pub(crate) fn literal(op: &Op) -> Result<(Vec<usize>, Vec<Literal>), String> {
    let ty = op.result_types.first().cloned().unwrap_or(Type::Int(32));
    let shape: Vec<usize> = ty.shape().iter().map(|&d| d.max(0) as usize).collect();
    let elem_ty = ty.elem();
    let read = |s: &Scalar| match (s, elem_ty) {
        (Scalar::Bool(b), _) => Literal::Bool(*b),
        (Scalar::Int(i), Type::Int(1)) => Literal::Bool(*i & 1 == 1),
        (Scalar::Int(i), Type::Float(_)) => Literal::Float(*i as f64),
        (Scalar::Int(i), t) => Literal::Int(wrap(*i, int_width(t)) as i128),
        (Scalar::Float(x), _) => Literal::Float(*x),
    };
    let values = match op.attr("value") {
        Some(Attr::Scalar(s)) => vec![read(s)],
        Some(Attr::Int(i)) => vec![read(&Scalar::Int(*i as i128))],
        Some(Attr::Dense { values, .. })
            if values.len() == 1 || values.len() == shape.iter().product::<usize>() =>
        {
            values.iter().map(read).collect()
        }
        other => return Err(format!("unreadable constant value {other:?}")),
    };
    Ok((shape, values))
}

/// The grid axis `tt.get_program_id` / `tt.get_num_programs` reads.
pub(crate) fn axis(op: &Op) -> Result<usize, String> {
    let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0);
    if !(0..3).contains(&axis) {
        return Err(format!("axis {axis}"));
    }
    Ok(axis as usize)
}

/// The truth a launch's integer gives a bool (`i1`) kernel parameter: Triton passes
/// `True` as 1 and MLIR's signed reading of the same bit is -1, so both are true, 0 is
/// false, anything else is no bool. Both runs bind flags through this.
pub(crate) fn flag_value(i: i128) -> Option<bool> {
    matches!(i, -1..=1).then_some(i != 0)
}
