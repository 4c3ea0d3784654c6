//! Instruction semantics of arithmetic: `setp`, predicate logic, `cvt`, integer and
//! float arithmetic. Floats are reals of the domain (docs/semantics.md: `ex2.approx` is 2^x,
//! `fma(a, b, c)` is `a*b + c`); integer bit operations on data-dependent values become
//! opaque terms.
//!
//! Invariant: an instruction whose meaning is not modelled is `Unsupported` naming
//! it, never approximated.

use super::*;

/// Round an f64 to f32 in a directed mode ("rm", "rp", "rz"; anything else: nearest).
pub(super) fn round_f32(x: f64, mode: &str) -> f64 {
    let r = x as f32;
    let rd = r as f64;
    if rd == x || !x.is_finite() {
        return rd;
    }
    let down = |r: f32| {
        if r == 0.0 {
            -f32::from_bits(1)
        } else if r > 0.0 {
            f32::from_bits(r.to_bits() - 1)
        } else {
            f32::from_bits(r.to_bits() + 1)
        }
    };
    let up = |r: f32| -down(-r);
    let out = match mode {
        "rm" if rd > x => down(r),
        "rp" if rd < x => up(r),
        "rz" if rd.abs() > x.abs() => {
            if x > 0.0 {
                down(r)
            } else {
                up(r)
            }
        }
        _ => r,
    };
    out as f64
}

/// `prmt.b32 d, a, b, c`: the bytes of `d` picked from the eight bytes of `{b, a}` by
/// the selector nibbles of `c` (the default mode: bit 3 of a nibble replicates the
/// picked byte's sign bit). The `.f4e`, `.b4e`, `.rc8`, `.ecl`, `.ecr`, `.rc16` modes
/// are not modelled.
fn prmt(a: u64, b: u64, c: u64, ins: &Instr) -> Result<u64, Fail> {
    if let Some(m) = ins.mods.iter().find(|m| m.as_str() != "b32") {
        return unsupported(format!("prmt mode .{m}"));
    }
    let src = (b & 0xffff_ffff) << 32 | (a & 0xffff_ffff);
    let mut d = 0u64;
    for k in 0..4 {
        let sel = (c >> (4 * k)) & 0xf;
        let byte = (src >> (8 * (sel & 7))) & 0xff;
        let byte = if sel & 8 != 0 {
            if byte & 0x80 != 0 {
                0xff
            } else {
                0
            }
        } else {
            byte
        };
        d |= byte << (8 * k);
    }
    Ok(d)
}

/// Source operands read into a buffer on the stack, up to this many (no arithmetic
/// instruction has more); a list is allocated only beyond.
const STACK_ARGS: usize = 4;

impl<'a, D: Domain> Sim<'a, D> {
    // ----- arithmetic -----

    pub(super) fn setp(&mut self, t: usize, ins: &Instr) -> Result<(), Fail> {
        let ops = &ins.operands;
        if ops.len() < 3 {
            return fail(ErrorKind::Malformed, "setp needs d, a, b");
        }
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        let cmp = ins.mods.first().map_or("", |s| s.as_str());
        let a = self.read(t, &ops[1], ty)?;
        let b = self.read(t, &ops[2], ty)?;
        let r: Truth<D::V> = if is_float_ty(ty) {
            let (fa, fb) = (self.float(a, ty)?, self.float(b, ty)?);
            let op = match cmp.trim_end_matches('u') {
                "eq" => CmpOp::Eq,
                "ne" => CmpOp::Ne,
                "lt" => CmpOp::Lt,
                "le" => CmpOp::Le,
                "gt" => CmpOp::Gt,
                "ge" => CmpOp::Ge,
                // Neither / either operand NaN: `x == x` is false only for NaN.
                "num" | "nan" => {
                    let xa = self.domain.cmp(CmpOp::Eq, fa, fa);
                    let xb = self.domain.cmp(CmpOp::Eq, fb, fb);
                    let both = self.logic("and", Self::from_truth(xa), Self::from_truth(xb))?;
                    let v = if cmp == "nan" { self.not(both)? } else { both };
                    return self.finish_setp(t, ins, v);
                }
                _ => return unsupported(format!("float comparison .{cmp}")),
            };
            self.domain.cmp(op, fa, fb)
        } else if let Some(t) = self.abs_bits_zero(cmp, ty, a, b) {
            t
        } else if let Some(t) = self.choice_eq(cmp, ty, a, b) {
            t
        } else if let Some(r) = self.int_cmp(cmp, ty, a, b) {
            r
        } else if self.is_symbolic(a) || self.is_symbolic(b) {
            let (sa, sb) = (self.sym_arg(a, ty)?, self.sym_arg(b, ty)?);
            Truth::Unknown(self.opaque(&format!("setp.{cmp}.{ty}"), &[sa, sb])?)
        } else {
            let w = width(ty);
            let (x, y) = (self.int(a, ty)?, self.int(b, ty)?);
            let signed = ty.starts_with('s');
            let (sx, sy) = (sext(x, w), sext(y, w));
            Truth::Known(match cmp {
                "eq" => x == y,
                "ne" => x != y,
                "lt" if signed => sx < sy,
                "le" if signed => sx <= sy,
                "gt" if signed => sx > sy,
                "ge" if signed => sx >= sy,
                "lt" | "lo" => x < y,
                "le" | "ls" => x <= y,
                "gt" | "hi" => x > y,
                "ge" | "hs" => x >= y,
                _ => return unsupported(format!("integer comparison .{cmp}")),
            })
        };
        self.finish_setp(t, ins, Self::from_truth(r))
    }

    /// `setp.eq/ne` of a data-dependent choice between two constant bit patterns
    /// (`selp` under condition `c`, see `bit_selects`) and a constant `k`: `c` where only
    /// the first pattern is `k`, `!c` where only the second is, decided where both or
    /// neither are (a function pointer picked by the data, compared with each candidate
    /// by `ptx::calls`).
    fn choice_eq(
        &mut self,
        cmp: &str,
        ty: &str,
        a: Val<D::V>,
        b: Val<D::V>,
    ) -> Option<Truth<D::V>> {
        let (s, k) = match (a, b) {
            (Val::Sym(s), Val::Bits(k)) | (Val::Bits(k), Val::Sym(s)) => (s, k),
            _ => return None,
        };
        if cmp != "eq" && cmp != "ne" {
            return None;
        }
        let w = width(ty);
        let &(_, c, x, y) = self.bit_selects.iter().find(|e| e.0 == s)?;
        let (k, x, y) = (mask_w(k, w), mask_w(x, w), mask_w(y, w));
        let eq = match (x == k, y == k) {
            (true, true) => Truth::Known(true),
            (false, false) => Truth::Known(false),
            (true, false) => Truth::Unknown(c),
            (false, true) => self.domain.not(c),
        };
        Some(if cmp == "eq" {
            eq
        } else {
            match eq {
                Truth::Known(v) => Truth::Known(!v),
                Truth::Unknown(c) => self.domain.not(c),
            }
        })
    }

    /// `setp.eq.b32 p, bits(|x|), 0` (Triton's `x == 0` on a masked abs): the bits of a
    /// non-negative float are zero exactly when it is `+0`, so this is `|x| == 0`, i.e.
    /// `x == 0`. Only for a value the domain shows is an `abs` (`abs(v) = v`): the
    /// bits of `-0` are not zero.
    fn abs_bits_zero(
        &mut self,
        cmp: &str,
        ty: &str,
        a: Val<D::V>,
        b: Val<D::V>,
    ) -> Option<Truth<D::V>> {
        if !matches!(ty, "b32" | "u32" | "s32") || !matches!(cmp, "eq" | "ne") {
            return None;
        }
        let ((Val::Float(f), Val::Bits(0)) | (Val::Bits(0), Val::Float(f))) = (a, b) else {
            return None;
        };
        if self.domain.as_number(f).is_some() || self.domain.func(Func::Abs, f) != f {
            return None;
        }
        // `|x| == 0` is `x == 0` (both false for NaN): compare the masked value itself
        // where this run made the abs.
        let x = self
            .abs_args
            .iter()
            .find(|(a, _)| *a == f)
            .map_or(f, |(_, x)| *x);
        let zero = self.domain.constant(0.0);
        let op = if cmp == "eq" { CmpOp::Eq } else { CmpOp::Ne };
        Some(self.domain.cmp(op, x, zero))
    }

    /// The rest of `setp`: the optional `.bop` with a third predicate, and the (pair
    /// of) destinations.
    fn finish_setp(&mut self, t: usize, ins: &Instr, v: Val<D::V>) -> Result<(), Fail> {
        let ops = &ins.operands;
        let mut v = v;
        // setp.cmp.bop.type d, a, b, {!}c
        if let Some(bop) = ins
            .mods
            .get(1)
            .filter(|m| matches!(m.as_str(), "and" | "or" | "xor"))
        {
            let c = self.read(t, ops.get(3).unwrap_or(&Operand::Sink), "pred")?;
            v = self.logic(bop, v, c)?;
        }
        match &ops[0] {
            Operand::Pair(d, q) => {
                let nv = self.not(v)?;
                self.write(t, d, v)?;
                self.write(t, q, nv)
            }
            d => self.write(t, d, v),
        }
    }

    /// The range of a data-dependent integer `s` when every integer in it reads back
    /// as itself from the bits of type `ty` (signed for `.s`, unsigned for `.u`, either
    /// for `.b`).
    pub(super) fn int_value_range(&self, s: D::V, ty: &str) -> Option<(i128, i128)> {
        let r = self.domain.int_range(s)?;
        let w = width(ty);
        let ok = match ty.as_bytes().first() {
            Some(b's') => super::typed::fits(r, w, true),
            Some(b'u') => super::typed::fits(r, w, false),
            _ => super::typed::fits(r, w, true) || super::typed::fits(r, w, false),
        };
        ok.then_some(r)
    }

    /// An integer comparison with a data-dependent side, exact where both sides are
    /// integers whose ranges the type holds: the comparison of the two integers.
    fn int_cmp(&mut self, cmp: &str, ty: &str, a: Val<D::V>, b: Val<D::V>) -> Option<Truth<D::V>> {
        if !matches!(a, Val::Sym(_)) && !matches!(b, Val::Sym(_)) {
            return None;
        }
        let w = width(ty);
        let signed = match cmp {
            "lt" | "le" | "gt" | "ge" => ty.starts_with('s'),
            "lo" | "ls" | "hi" | "hs" => false,
            // Equality of bits is the same read signed or unsigned: a `.b` comparison
            // of a ranged integer that may be negative (a label against ignore_index
            // -100) is read signed, as the integer is.
            "eq" | "ne" => {
                ty.starts_with('s')
                    || (ty.starts_with('b')
                        && [a, b].iter().any(|v| match v {
                            Val::Sym(s) => self.domain.int_range(*s).is_some_and(|r| r.0 < 0),
                            _ => false,
                        }))
            }
            _ => return None,
        };
        let ity = if signed {
            format!("s{w}")
        } else {
            format!("u{w}")
        };
        let mut side = |v: Val<D::V>| -> Option<D::V> {
            match v {
                Val::Sym(s) => self.int_value_range(s, &ity).map(|_| s),
                Val::Bits(x) => {
                    let n = if signed {
                        sext(x, w) as i128
                    } else {
                        mask_w(x, w) as i128
                    };
                    Some(self.domain.integer(n))
                }
                _ => None,
            }
        };
        let (x, y) = (side(a)?, side(b)?);
        let op = match cmp {
            "eq" => CmpOp::Eq,
            "ne" => CmpOp::Ne,
            "lt" | "lo" => CmpOp::Lt,
            "le" | "ls" => CmpOp::Le,
            "gt" | "hi" => CmpOp::Gt,
            _ => CmpOp::Ge,
        };
        Some(self.domain.cmp(op, x, y))
    }

    /// `add`/`sub`/`mul.lo`/`mul.wide`/`mad.lo`/`mad.wide`/`min`/`max`/`neg` with a
    /// data-dependent integer operand whose range its type holds: the same operation
    /// on the integers (the result's low bits are the register's, whatever the range);
    /// `None` where that does not apply (the caller goes opaque).
    fn int_exact(
        &mut self,
        op: &str,
        ty: &str,
        wide: bool,
        hi: bool,
        args: &[Val<D::V>],
    ) -> Option<Val<D::V>> {
        if op == "shl" {
            return self.shl_exact(ty, args);
        }
        if hi || !matches!(op, "add" | "sub" | "mul" | "mad" | "min" | "max" | "neg") {
            return None;
        }
        let w = width(ty);
        let signed = ty.starts_with('s');
        let wide_w = if wide { (2 * w).min(64) } else { w };
        let mut xs = Vec::with_capacity(args.len());
        for (k, a) in args.iter().enumerate() {
            // mad.wide's addend has the doubled width.
            let aw = if op == "mad" && k == 2 { wide_w } else { w };
            let ity = format!("{}{aw}", if signed { 's' } else { 'u' });
            xs.push(match *a {
                Val::Sym(s) => self.int_value_range(s, &ity).map(|_| s)?,
                Val::Bits(b) => {
                    let n = if signed {
                        sext(b, aw) as i128
                    } else {
                        mask_w(b, aw) as i128
                    };
                    self.domain.integer(n)
                }
                _ => return None,
            });
        }
        let x = |i: usize| xs.get(i).copied();
        let v = match op {
            "add" => self.domain.binary(Binary::Add, x(0)?, x(1)?),
            "sub" => self.domain.binary(Binary::Sub, x(0)?, x(1)?),
            "mul" => self.domain.binary(Binary::Mul, x(0)?, x(1)?),
            "mad" => {
                let p = self.domain.binary(Binary::Mul, x(0)?, x(1)?);
                self.domain.binary(Binary::Add, p, x(2)?)
            }
            "min" => self.domain.binary(Binary::Min, x(0)?, x(1)?),
            "max" => self.domain.binary(Binary::Max, x(0)?, x(1)?),
            _ => self.domain.neg(x(0)?),
        };
        // min/max are not among the shapes whose range the domain follows.
        self.domain.int_range(v)?;
        Some(Val::Sym(v))
    }

    /// `shl` of a ranged integer by a constant: the product with `2^k`, where the
    /// operand and the result fit the width (as signed or as unsigned integers: a `.b`
    /// type's bits are both), so no bit is shifted out (an index scaled to bytes).
    fn shl_exact(&mut self, ty: &str, args: &[Val<D::V>]) -> Option<Val<D::V>> {
        let (Some(Val::Sym(s)), Some(Val::Bits(k))) = (args.first(), args.get(1)) else {
            return None;
        };
        let w = width(ty);
        if *k >= u64::from(w) {
            return None;
        }
        let (lo, hi) = self.domain.int_range(*s)?;
        let f = 1i128 << k;
        let r = (lo.checked_mul(f)?, hi.checked_mul(f)?);
        let signed = ty.starts_with('s') || (ty.starts_with('b') && lo < 0);
        let fit = |r: (i128, i128)| super::typed::fits(r, w, signed);
        if !fit((lo, hi)) || !fit(r) {
            return None;
        }
        let m = self.domain.integer(f);
        Some(Val::Sym(self.domain.binary(Binary::Mul, *s, m)))
    }

    pub(super) fn logic(
        &mut self,
        op: &str,
        a: Val<D::V>,
        b: Val<D::V>,
    ) -> Result<Val<D::V>, Fail> {
        let (ta, tb) = (self.truth(a)?, self.truth(b)?);
        Ok(match (op, ta, tb) {
            ("and", Truth::Known(x), Truth::Known(y)) => Val::Pred(x && y),
            ("or", Truth::Known(x), Truth::Known(y)) => Val::Pred(x || y),
            ("xor", Truth::Known(x), Truth::Known(y)) => Val::Pred(x != y),
            ("and", Truth::Known(false), _) | ("and", _, Truth::Known(false)) => Val::Pred(false),
            ("or", Truth::Known(true), _) | ("or", _, Truth::Known(true)) => Val::Pred(true),
            ("and" | "or", Truth::Known(_), u) | ("and" | "or", u, Truth::Known(_)) => {
                Self::from_truth(u)
            }
            ("and", Truth::Unknown(x), Truth::Unknown(y)) => {
                Self::from_truth(self.domain.and(x, y))
            }
            ("or", Truth::Unknown(x), Truth::Unknown(y)) => Self::from_truth(self.domain.or(x, y)),
            _ => return unsupported(format!("{op} of data-dependent predicates")),
        })
    }

    pub(super) fn cvt(&mut self, t: usize, ins: &Instr) -> Result<(), Fail> {
        let n = ins.mods.len();
        if n < 2 || ins.operands.len() < 2 {
            return fail(ErrorKind::Malformed, "cvt needs .dtype.atype and d, a");
        }
        let (dty, aty) = (ins.mods[n - 2].as_str(), ins.mods[n - 1].as_str());
        let a = self.read(t, &ins.operands[1], aty)?;
        let rnd = ins.mods[..n - 2]
            .iter()
            .find(|m| {
                matches!(
                    m.as_str(),
                    "rn" | "rz" | "rm" | "rp" | "rni" | "rzi" | "rmi" | "rpi"
                )
            })
            .map_or("", |s| s.as_str());
        let sat = ins.has("sat");
        // A data-dependent integer whose range the source type holds converts exactly:
        // to an integer type its bits stay its value (the register's low bits), to a
        // float type it is that real where the float type holds every integer of it.
        if let (Val::Sym(s), false, true) = (a, is_float_ty(aty), !sat) {
            if let Some(r) = self.int_value_range(s, aty) {
                let exact_float = |bits: u32| r.0.abs() <= 1 << bits && r.1.abs() <= 1 << bits;
                let v = match dty {
                    d if !is_float_ty(d) => Some(Val::Sym(s)),
                    "f64" if exact_float(53) => Some(Val::Float(s)),
                    "f32" if exact_float(24) => Some(Val::Float(s)),
                    _ => None,
                };
                if let Some(v) = v {
                    return self.write(t, &ins.operands[0], v);
                }
            }
        }
        if self.is_symbolic(a) {
            let mn = ins.mnemonic();
            let v = match (is_float_ty(dty), is_float_ty(aty)) {
                (false, false) => self.sym_op(&mn, &[a], aty)?,
                (true, false) => {
                    let x = self.sym_arg(a, aty)?;
                    Val::Float(self.opaque(&mn, &[x])?)
                }
                (false, true) => {
                    let x = self.float(a, aty)?;
                    Val::Sym(self.opaque(&mn, &[x])?)
                }
                (true, true) if matches!(rnd, "rni" | "rzi") => {
                    let x = self.float(a, aty)?;
                    let mut x = self.opaque(&mn, &[x])?;
                    if sat {
                        x = self.saturate(x);
                    }
                    Val::Float(x)
                }
                (true, true) => a,
            };
            if !matches!((is_float_ty(dty), is_float_ty(aty)), (true, true))
                || matches!(rnd, "rni" | "rzi")
            {
                return self.write(t, &ins.operands[0], v);
            }
        }
        let v = match (is_float_ty(dty), is_float_ty(aty)) {
            (false, false) => {
                let (wa, wd) = (width(aty), width(dty));
                let x = self.int(a, aty)?;
                let x = if aty.starts_with('s') {
                    sext(x, wa) as u64
                } else {
                    x
                };
                if sat {
                    return unsupported("cvt.sat between integer types");
                }
                Val::Bits(mask_w(x, wd))
            }
            (true, false) => {
                let x = self.int(a, aty)?;
                let n = if aty.starts_with('s') {
                    sext(x, width(aty)) as f64
                } else {
                    x as f64
                };
                Val::Float(self.domain.constant(n))
            }
            (true, true) => {
                let mut x = self.float(a, aty)?;
                let f = match rnd {
                    "rmi" => Some(Func::Floor),
                    "rpi" => Some(Func::Ceil),
                    // `--precision ieee`: a narrowing to f16/bf16 rounds to nearest even.
                    "rn" if self.domain.precision() == Precision::Ieee
                        && matches!(aty, "f32" | "f64") =>
                    {
                        match dty {
                            "f16" => Some(Func::RoundF16),
                            "bf16" => Some(Func::RoundBf16),
                            _ => None,
                        }
                    }
                    "rni" | "rzi" => {
                        let Some(n) = self.domain.as_number(x) else {
                            return unsupported(format!("cvt.{rnd} of a symbolic value"));
                        };
                        let r = if rnd == "rzi" {
                            n.trunc()
                        } else {
                            n.round_ties_even()
                        };
                        x = self.domain.constant(r);
                        None
                    }
                    _ => None,
                };
                if let Some(f) = f {
                    x = self.domain.func(f, x);
                }
                if sat {
                    x = self.saturate(x);
                }
                Val::Float(x)
            }
            (false, true) => {
                let x = self.float(a, aty)?;
                let Some(n) = self.domain.as_number(x) else {
                    return unsupported("conversion of a symbolic float to an integer");
                };
                let r = match rnd {
                    "rzi" | "" => n.trunc(),
                    "rmi" => n.floor(),
                    "rpi" => n.ceil(),
                    _ => n.round_ties_even(),
                };
                let wd = width(dty);
                let bits = if dty.starts_with('s') {
                    let lim = (1i128 << (wd - 1)) as f64;
                    (r.clamp(-lim, lim - 1.0) as i64) as u64
                } else {
                    let lim = if wd >= 64 {
                        u64::MAX as f64
                    } else {
                        ((1u64 << wd) - 1) as f64
                    };
                    r.clamp(0.0, lim) as u64
                };
                Val::Bits(mask_w(bits, wd))
            }
        };
        self.write(t, &ins.operands[0], v)
    }

    pub(super) fn saturate(&mut self, x: D::V) -> D::V {
        let (zero, one) = (self.domain.constant(0.0), self.domain.constant(1.0));
        // `.sat` flushes NaN to +0.0: maxNum(NaN, 0) = 0.
        let lo = self.domain.binary(Binary::MaxNum, x, zero);
        self.domain.binary(Binary::MinNum, lo, one)
    }

    pub(super) fn arith(&mut self, t: usize, ins: &Instr, ty: &str) -> Result<Val<D::V>, Fail> {
        // A `match` of literals compares the opcode without a call per candidate.
        let known = matches!(
            ins.op.as_str(),
            "fma"
                | "add"
                | "mul"
                | "sub"
                | "mad"
                | "div"
                | "rem"
                | "min"
                | "max"
                | "neg"
                | "abs"
                | "and"
                | "or"
                | "xor"
                | "not"
                | "cnot"
                | "shl"
                | "shr"
                | "bfe"
                | "bfi"
                | "popc"
                | "clz"
                | "brev"
                | "ex2"
                | "lg2"
                | "sqrt"
                | "rsqrt"
                | "tanh"
                | "sin"
                | "cos"
                | "rcp"
                | "addc"
                | "madc"
                | "subc"
                | "shf"
                | "prmt"
        );
        if !known {
            return unsupported(format!("unsupported: {}", ins.mnemonic()));
        }
        if ins.op == "prmt" {
            if let Some(m) = ins.mods.iter().find(|m| m.as_str() != "b32") {
                return unsupported(format!("prmt mode .{m}"));
            }
        }
        if is_float_ty(ty) && self.accumulates(ins, ty) {
            return self.accumulate(t, ins, ty);
        }
        let ops = &ins.operands;
        // mad.wide's addend has the doubled width.
        let wide_ty = match ty {
            "s32" => "s64",
            "u32" => "u64",
            "s16" => "s32",
            "u16" => "u32",
            t => t,
        };
        let wide_mad = ins.op == "mad" && ins.has("wide");
        let n = ops.len().saturating_sub(1);
        // (`Pred(false)` only fills the buffer: `args` holds the first `n`.)
        let mut stack = [Val::Pred(false); STACK_ARGS];
        let mut heap = Vec::new();
        let args: &mut [Val<D::V>] = if n <= STACK_ARGS {
            &mut stack[..n]
        } else {
            heap.resize(n, Val::Pred(false));
            &mut heap
        };
        for (k, a) in args.iter_mut().enumerate() {
            let oty = if wide_mad && k == 2 { wide_ty } else { ty };
            *a = self.read(t, &ops[k + 1], oty)?;
        }
        let args: &[Val<D::V>] = args;
        let arg = |i: usize| -> Result<Val<D::V>, Fail> {
            args.get(i).copied().ok_or_else(|| {
                (
                    ErrorKind::Malformed,
                    format!("expected {} source operands", i + 1),
                )
            })
        };
        let op = ins.op.as_str();
        if ty == "pred" {
            return match op {
                "and" | "or" | "xor" => self.logic(op, arg(0)?, arg(1)?),
                "not" => self.not(arg(0)?),
                _ => unsupported(format!("{} on predicates", ins.mnemonic())),
            };
        }
        if is_float_ty(ty) {
            return self.float_op(ins, ty, args);
        }
        // Float-carrying bit registers: abs and neg by masks on symbolic floats.
        if let (Some(Val::Float(x)), Some(Val::Bits(m))) = (args.first(), args.get(1)) {
            let w = width(ty);
            if self.domain.as_number(*x).is_none() && w == 32 {
                match (op, *m as u32) {
                    ("and", 0x7FFF_FFFF) => {
                        let a = self.domain.func(Func::Abs, *x);
                        self.abs_args.push((a, *x));
                        return Ok(Val::Float(a));
                    }
                    ("xor", 0x8000_0000) => return Ok(Val::Float(self.domain.neg(*x))),
                    ("or", 0x8000_0000) => {
                        let a = self.domain.func(Func::Abs, *x);
                        return Ok(Val::Float(self.domain.neg(a)));
                    }
                    _ => {}
                }
            }
        }
        let uses_carry = matches!(op, "addc" | "madc" | "subc");
        let carry_in = if uses_carry {
            match self.threads[t].carry {
                Some(c) => Some(c),
                None => {
                    return fail(
                        ErrorKind::Malformed,
                        "the carry flag is read before it is set",
                    )
                }
            }
        } else {
            None
        };
        if !uses_carry && !ins.has("cc") && args.iter().any(|a| matches!(a, Val::Sym(_))) {
            if let Some(v) = self.int_exact(op, ty, ins.has("wide"), ins.has("hi"), args) {
                return Ok(v);
            }
        }
        if args.iter().any(|a| self.is_symbolic(*a))
            || carry_in.is_some_and(|c| self.is_symbolic(c))
        {
            let mut all = args.to_vec();
            all.extend(carry_in);
            let mn = ins.mnemonic();
            if ins.has("cc") {
                let c = self.sym_op(&format!("{mn}:carry"), &all, ty)?;
                self.threads[t].carry = Some(c);
            }
            return self.sym_op(&mn, &all, ty);
        }
        let w = width(ty);
        let signed = ty.starts_with('s');
        let mut xs = [0u64; STACK_ARGS];
        let mut xs_heap = Vec::new();
        let xs: &mut [u64] = if n <= STACK_ARGS {
            &mut xs[..n]
        } else {
            xs_heap.resize(n, 0);
            &mut xs_heap
        };
        for (x, a) in xs.iter_mut().zip(args) {
            *x = self.int(*a, ty)?;
        }
        let xs: &[u64] = xs;
        let x = |i: usize| -> Result<u64, Fail> {
            xs.get(i).copied().ok_or_else(|| {
                (
                    ErrorKind::Malformed,
                    format!("expected {} source operands", i + 1),
                )
            })
        };
        let s = |v: u64| sext(v, w);
        let wide = ins.has("wide");
        let hi = ins.has("hi");
        let mul = |a: u64, b: u64| -> u64 {
            if wide {
                if signed {
                    (s(a) as i128 * s(b) as i128) as u64
                } else {
                    (a as u128 * b as u128) as u64
                }
            } else if hi {
                if signed {
                    ((s(a) as i128 * s(b) as i128) >> w) as u64
                } else {
                    ((a as u128 * b as u128) >> w) as u64
                }
            } else {
                a.wrapping_mul(b)
            }
        };
        let out_w = if wide { (2 * w).min(64) } else { w };
        // Subtraction with borrow (`sub.cc`, `subc`): the flag holds the borrow.
        if op == "subc" || (ins.has("cc") && op == "sub") {
            let cin = match carry_in {
                Some(c) => self.int(c, "u32")? & 1,
                None => 0,
            };
            let diff = x(0)? as i128 - x(1)? as i128 - cin as i128;
            if ins.has("cc") {
                self.threads[t].carry = Some(Val::Bits((diff < 0) as u64));
            }
            return Ok(Val::Bits(mask_w(diff as u64, w)));
        }
        if uses_carry || (ins.has("cc") && matches!(op, "add" | "mad")) {
            let cin = match carry_in {
                Some(c) => self.int(c, "u32")? & 1,
                None => 0,
            };
            let sum: u128 = match op {
                "add" | "addc" => x(0)? as u128 + x(1)? as u128 + cin as u128,
                _ => mask_w(mul(x(0)?, x(1)?), w) as u128 + x(2)? as u128 + cin as u128,
            };
            if ins.has("cc") {
                self.threads[t].carry = Some(Val::Bits(((sum >> w) & 1) as u64));
            }
            return Ok(Val::Bits(mask_w(sum as u64, w)));
        }
        let r: u64 = match op {
            "add" => x(0)?.wrapping_add(x(1)?),
            "sub" => x(0)?.wrapping_sub(x(1)?),
            "mul" => mul(x(0)?, x(1)?),
            "mad" => {
                let c = if wide_mad {
                    let c = *args
                        .get(2)
                        .ok_or((ErrorKind::Malformed, "mad needs 3 sources".to_string()))?;
                    self.int(c, wide_ty)?
                } else {
                    x(2)?
                };
                mul(x(0)?, x(1)?).wrapping_add(c)
            }
            "div" | "rem" => {
                let (a, b) = (x(0)?, x(1)?);
                if b == 0 {
                    return fail(
                        ErrorKind::Undefined,
                        "integer division by zero (an unspecified value on the GPU)",
                    );
                }
                match (op, signed) {
                    ("div", true) => s(a).wrapping_div(s(b)) as u64,
                    ("rem", true) => s(a).wrapping_rem(s(b)) as u64,
                    ("div", false) => a / b,
                    _ => a % b,
                }
            }
            "min" | "max" => {
                let (a, b) = (x(0)?, x(1)?);
                let less = if signed { s(a) < s(b) } else { a < b };
                if (op == "min") == less {
                    a
                } else {
                    b
                }
            }
            "neg" => x(0)?.wrapping_neg(),
            "abs" => s(x(0)?).unsigned_abs(),
            "and" => x(0)? & x(1)?,
            "or" => x(0)? | x(1)?,
            "xor" => x(0)? ^ x(1)?,
            "not" => !x(0)?,
            "cnot" => (x(0)? == 0) as u64,
            "shl" => {
                let n = x(1)?;
                if n >= w as u64 {
                    0
                } else {
                    x(0)? << n
                }
            }
            "shr" => {
                let n = x(1)?.min(w as u64 - 1 + (!signed) as u64);
                if signed {
                    (s(x(0)?) >> n.min(63)) as u64
                } else if n >= w as u64 {
                    0
                } else {
                    x(0)? >> n
                }
            }
            "bfe" => {
                let (a, pos, len) = (x(0)?, x(1)? & 0xff, x(2)? & 0xff);
                let pos = pos.min(w as u64);
                let len = len.min(w as u64 - pos);
                let field = if len == 0 {
                    0
                } else {
                    mask_w(a >> pos, len as u32)
                };
                if signed && len > 0 {
                    sext(field, len as u32) as u64
                } else {
                    field
                }
            }
            "bfi" => {
                // Insert the low `len` bits of a into b at bit `pos` (NVRTC folds
                // `tid / 16`-style index arithmetic into it).
                let (a, b, pos, len) = (x(0)?, x(1)?, x(2)? & 0xff, x(3)? & 0xff);
                if len == 0 || pos >= w as u64 {
                    mask_w(b, w)
                } else {
                    let len = len.min(w as u64 - pos);
                    let field = mask_w(u64::MAX, len as u32) << pos;
                    mask_w((b & !field) | ((a << pos) & field), w)
                }
            }
            "shf" => {
                // Funnel shift of the 64-bit b:a by c.
                let n = if ins.has("wrap") {
                    x(2)? & 31
                } else {
                    x(2)?.min(32)
                };
                let both = (x(1)? & 0xffff_ffff) << 32 | (x(0)? & 0xffff_ffff);
                if ins.has("l") {
                    (((both as u128) << n) >> 32) as u64
                } else {
                    both >> n
                }
            }
            "prmt" => prmt(x(0)?, x(1)?, x(2)?, ins)?,
            "popc" => x(0)?.count_ones() as u64,
            "clz" => (mask_w(x(0)?, w).leading_zeros() - (64 - w)) as u64,
            "brev" => mask_w(x(0)?, w).reverse_bits() >> (64 - w),
            _ => return unsupported(format!("unsupported: {}", ins.mnemonic())),
        };
        let dw = match op {
            "popc" | "clz" => 32,
            _ => out_w,
        };
        Ok(Val::Bits(mask_w(r, dw)))
    }

    pub(super) fn float_op(
        &mut self,
        ins: &Instr,
        ty: &str,
        args: &[Val<D::V>],
    ) -> Result<Val<D::V>, Fail> {
        // (`None` only fills the buffer: `fs` holds one float per operand.)
        let mut stack = [None; STACK_ARGS];
        let mut heap = Vec::new();
        let fs: &mut [Option<D::V>] = if args.len() <= STACK_ARGS {
            &mut stack[..args.len()]
        } else {
            heap.resize(args.len(), None);
            &mut heap
        };
        for (f, a) in fs.iter_mut().zip(args) {
            *f = Some(self.float(*a, ty)?);
        }
        let fs: &[Option<D::V>] = fs;
        let f = |i: usize| -> Result<D::V, Fail> {
            fs.get(i).copied().flatten().ok_or_else(|| {
                (
                    ErrorKind::Malformed,
                    format!("expected {} source operands", i + 1),
                )
            })
        };
        let d = &mut *self.domain;
        let op = ins.op.as_str();
        let mut r = match op {
            "fma" | "mad" => {
                let p = d.binary(Binary::Mul, f(0)?, f(1)?);
                d.binary(Binary::Add, p, f(2)?)
            }
            "add" => d.binary(Binary::Add, f(0)?, f(1)?),
            "sub" => d.binary(Binary::Sub, f(0)?, f(1)?),
            "mul" => d.binary(Binary::Mul, f(0)?, f(1)?),
            "div" => d.binary(Binary::Div, f(0)?, f(1)?),
            // `min`/`max` return the operand that is not NaN; `.NaN` propagates it.
            "min" if ins.has("NaN") => d.binary(Binary::Min, f(0)?, f(1)?),
            "max" if ins.has("NaN") => d.binary(Binary::Max, f(0)?, f(1)?),
            "min" => d.binary(Binary::MinNum, f(0)?, f(1)?),
            "max" => d.binary(Binary::MaxNum, f(0)?, f(1)?),
            "neg" => d.neg(f(0)?),
            "abs" => d.func(Func::Abs, f(0)?),
            "ex2" => d.func(Func::Exp2, f(0)?),
            "lg2" => d.func(Func::Log2, f(0)?),
            "sqrt" => d.func(Func::Sqrt, f(0)?),
            "rsqrt" => d.func(Func::Rsqrt, f(0)?),
            "tanh" => d.func(Func::Tanh, f(0)?),
            "sin" => d.func(Func::Sin, f(0)?),
            "cos" => d.func(Func::Cos, f(0)?),
            "rcp" => {
                let one = d.constant(1.0);
                d.binary(Binary::Div, one, f(0)?)
            }
            "mov" => f(0)?,
            "copysign" => return unsupported("copysign"),
            _ => return unsupported(format!("unsupported: {}", ins.mnemonic())),
        };
        // The first directed rounding mode, and saturation: one pass over the modifiers.
        let (mut mode, mut sat) = (None, false);
        for m in &ins.mods {
            match m.as_str() {
                "rm" | "rp" | "rz" if mode.is_none() => mode = Some(m.as_str()),
                "sat" => sat = true,
                _ => {}
            }
        }
        // Directed rounding (the 1.5 * 2^23 shifter idiom of expf) matters to the bit
        // tricks that follow; it is applied where the value is a number.
        if ty == "f32" {
            if let Some(mode) = mode {
                if let Some(x) = self.domain.as_number(r) {
                    r = self.domain.constant(round_f32(x, mode));
                }
            }
        }
        if sat {
            r = self.saturate(r);
        }
        // `--precision ieee`: arithmetic in f16/bf16 (`add.f16`, `fma.rn.bf16`) rounds to
        // nearest even in its type (`exec::precision`).
        if self.domain.precision() == Precision::Ieee && op != "mov" {
            let kind = match ty {
                "f16" => Some(crate::triton_ir::ast::FloatKind::F16),
                "bf16" => Some(crate::triton_ir::ast::FloatKind::BF16),
                _ => None,
            };
            if let Some(k) = kind {
                r = crate::exec::precision::in_type(&mut *self.domain, k, r);
            }
        }
        Ok(Val::Float(r))
    }
}
