//! Register values: reading operands (registers, special registers, immediates,
//! symbols), writing destinations, and converting a [`Val`] to what an instruction
//! needs (integer bits, a real of the domain, a predicate).
//!
//! Invariant: a value is never silently reinterpreted. Bits of a symbolic float
//! become an opaque term (`f32.bits(x)`); a data-dependent integer used as an address,
//! count or lane is `Unsupported`.

use super::*;

pub(super) fn is_float_ty(ty: &str) -> bool {
    matches!(ty, "f32" | "f64" | "f16" | "bf16" | "tf32")
}

pub(super) fn width(ty: &str) -> u32 {
    type_bytes(ty).map_or(64, |b| (b * 8) as u32)
}

pub(super) fn mask_w(x: u64, w: u32) -> u64 {
    if w >= 64 {
        x
    } else {
        x & ((1u64 << w) - 1)
    }
}

pub(super) fn sext(x: u64, w: u32) -> i64 {
    if w >= 64 {
        x as i64
    } else {
        let s = 64 - w;
        ((x << s) as i64) >> s
    }
}

/// The value of a float bit pattern of the given width.
pub(super) fn decode_float(bits: u64, w: u32) -> Option<f64> {
    match w {
        32 => Some(f32::from_bits(bits as u32) as f64),
        64 => Some(f64::from_bits(bits)),
        16 => {
            let b = bits as u16;
            let sign = if b >> 15 == 1 { -1.0 } else { 1.0 };
            let e = ((b >> 10) & 0x1f) as i32;
            let m = (b & 0x3ff) as f64;
            Some(match e {
                0 => sign * m * 2f64.powi(-24),
                31 if m == 0.0 => sign * f64::INFINITY,
                31 => f64::NAN,
                _ => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
            })
        }
        _ => None,
    }
}

impl<'a, D: Domain> Sim<'a, D> {
    // ----- values -----

    pub(super) fn reg(&self, t: usize, slot: u32) -> Result<Val<D::V>, Fail> {
        match self.threads[t].regs.get(slot as usize) {
            Some(Some(v)) => Ok(*v),
            _ => fail(
                ErrorKind::Malformed,
                format!(
                    "register {} is read before it is written",
                    self.entry
                        .regs
                        .get(slot as usize)
                        .map_or("?", |r| r.0.as_str())
                ),
            ),
        }
    }

    pub(super) fn special(&self, t: usize, s: Special) -> u64 {
        let th = &self.threads[t];
        (match s {
            Special::Tid(a) => th.tid[a as usize],
            Special::Ntid(a) => self.block[a as usize],
            Special::Ctaid(a) => self.cta[a as usize],
            Special::Nctaid(a) => self.inst.grid[a as usize],
            Special::LaneId => th.lane as i64,
            Special::WarpId => th.warp as i64,
            Special::NWarpId => (self.threads.len() as i64 + 31) / 32,
            Special::ClusterCtaRank
            | Special::ClusterCtaId(_)
            | Special::ClusterNCtaRank
            | Special::ClusterNCtaId(_)
            | Special::ClusterId(_)
            | Special::NClusterId(_) => self.cluster_special(s),
            // Time does not pass: a kernel's timeout path is never taken (docs/semantics.md).
            Special::GlobalTimer => 0,
        }) as u64
    }

    /// The address of a variable. A module `.global`/`.const` variable that the
    /// launch binds to a tensor (host-written contents) is that tensor.
    pub(super) fn sym_addr(&self, name: &str) -> Result<u64, Fail> {
        // The address of a kernel parameter (`mov.u64 %rd, k_param_0;` then
        // `cvta.param` or a generic load): a range of its own that `address` maps back.
        if let Some(i) = self.entry.params.iter().position(|p| p.name == name) {
            return Ok(PARAM_BASE + ((i as u64) << PARAM_SHIFT));
        }
        let var = self.vars.iter().find(|v| v.name == name);
        if let (Some(v), Some(ArgValue::Tensor(t))) = (var, self.inst.args.get(name)) {
            if matches!(v.space, Space::Global | Space::Const) {
                return Ok(((*t as u64) + 1) << TENSOR_SHIFT);
            }
        }
        match var {
            Some(v) => Ok(v.addr),
            None => fail(
                ErrorKind::Malformed,
                format!("`{name}` is not a declared variable"),
            ),
        }
    }

    /// Read an operand; `ty` is the instruction's operand type.
    #[inline]
    pub(super) fn read(&mut self, t: usize, op: &Operand, ty: &str) -> Result<Val<D::V>, Fail> {
        // A written register, the usual operand, without the call below.
        if let Operand::Reg(s) = op {
            if let Some(Some(v)) = self.threads[t].regs.get(*s as usize) {
                return Ok(self.settle(*v));
            }
        }
        self.read_any(t, op, ty)
    }

    fn read_any(&mut self, t: usize, op: &Operand, ty: &str) -> Result<Val<D::V>, Fail> {
        Ok(match op {
            Operand::Reg(s) => {
                let v = self.reg(t, *s)?;
                self.settle(v)
            }
            Operand::Special(s) => Val::Bits(self.special(t, *s)),
            Operand::Imm(v) => {
                if is_float_ty(ty) {
                    Val::Float(self.domain.constant(*v as f64))
                } else if ty == "pred" {
                    Val::Pred(*v != 0)
                } else {
                    Val::Bits(mask_w(*v as u64, width(ty)))
                }
            }
            Operand::FBits { bits, is_f64 } => {
                let x = decode_float(*bits, if *is_f64 { 64 } else { 32 }).unwrap_or(f64::NAN);
                Val::Float(self.domain.constant(x))
            }
            Operand::Float(x) => Val::Float(self.domain.constant(*x)),
            // `WARP_SZ`: the warp size, a PTX constant.
            Operand::Sym(name) if name == "WARP_SZ" => Val::Bits(32),
            Operand::Sym(name) => Val::Bits(self.sym_addr(name)?),
            Operand::Not(inner) => {
                let v = self.read(t, inner, "pred")?;
                self.not(v)?
            }
            _ => return fail(ErrorKind::Malformed, "expected a register or an immediate"),
        })
    }

    pub(super) fn write(&mut self, t: usize, op: &Operand, v: Val<D::V>) -> Result<(), Fail> {
        match op {
            Operand::Reg(s) => {
                let th = &mut self.threads[t];
                if let Some(slot) = th.regs.get_mut(*s as usize) {
                    if *slot != Some(v) {
                        *slot = Some(v);
                        th.changes += 1;
                    }
                }
                Ok(())
            }
            Operand::Sink => Ok(()),
            Operand::Vector(xs) if xs.len() == 1 => self.write(t, &xs[0], v),
            _ => fail(ErrorKind::Malformed, "expected a destination register"),
        }
    }

    pub(super) fn int(&self, v: Val<D::V>, ty: &str) -> Result<u64, Fail> {
        let w = width(ty);
        match v {
            Val::Bits(b) => Ok(mask_w(b, w)),
            Val::Pred(b) => Ok(b as u64),
            Val::Float(x) => match self.domain.as_number(x) {
                Some(n) if w == 64 => Ok(n.to_bits()),
                Some(n) if w == 16 => unsupported(format!("16-bit bits of the float {n}")),
                Some(n) => Ok((n as f32).to_bits() as u64),
                None => unsupported(
                    "bit manipulation of a symbolic float value (only abs/neg masks are understood)",
                ),
            },
            Val::Cond(_) => unsupported("integer use of a data-dependent predicate"),
            Val::Sym(_) => unsupported(
                "a data-dependent integer (bits of a symbolic float) used as an address, count or lane",
            ),
            Val::Sum(_) => escaped(),
        }
    }

    /// Whether a value depends on the data (is no number).
    pub(super) fn is_symbolic(&self, v: Val<D::V>) -> bool {
        match v {
            Val::Sym(_) | Val::Cond(_) | Val::Sum(_) => true,
            Val::Float(x) => self.domain.as_number(x).is_none(),
            Val::Bits(_) | Val::Pred(_) => false,
        }
    }

    pub(super) fn opaque(&mut self, op: &str, args: &[D::V]) -> Result<D::V, Fail> {
        match self.domain.opaque(op, args) {
            Some(v) => Ok(v),
            None => unsupported(format!("{op} of a data-dependent value")),
        }
    }

    /// A value as an operand of an opaque operation: the integer its `ty` bits hold
    /// (a symbolic float becomes `f32.bits(x)` / `f64.bits(x)`).
    pub(super) fn sym_arg(&mut self, v: Val<D::V>, ty: &str) -> Result<D::V, Fail> {
        Ok(match v {
            Val::Sym(s) | Val::Cond(s) => s,
            Val::Float(x) if self.domain.as_number(x).is_none() => {
                let op = if width(ty) == 64 {
                    "f64.bits"
                } else {
                    "f32.bits"
                };
                self.opaque(op, &[x])?
            }
            v => {
                let b = self.int(v, ty)?;
                self.domain.bits(b)
            }
        })
    }

    /// `op(args)` as an opaque integer, e.g. `and.b32` of a symbolic float's bits.
    pub(super) fn sym_op(
        &mut self,
        op: &str,
        args: &[Val<D::V>],
        ty: &str,
    ) -> Result<Val<D::V>, Fail> {
        let mut xs = Vec::with_capacity(args.len());
        for a in args {
            xs.push(self.sym_arg(*a, ty)?);
        }
        Ok(Val::Sym(self.opaque(op, &xs)?))
    }

    #[inline]
    pub(super) fn float(&mut self, v: Val<D::V>, ty: &str) -> Result<D::V, Fail> {
        match v {
            Val::Float(x) => Ok(x),
            v => self.float_of(v, ty),
        }
    }

    fn float_of(&mut self, v: Val<D::V>, ty: &str) -> Result<D::V, Fail> {
        match v {
            Val::Float(x) => Ok(x),
            Val::Bits(b) => {
                let w = if is_float_ty(ty) { width(ty) } else { 32 };
                match decode_float(mask_w(b, w), w) {
                    Some(x) => Ok(self.domain.constant(x)),
                    None => unsupported(format!("float type .{ty}")),
                }
            }
            Val::Sym(s) => {
                let w = if is_float_ty(ty) { width(ty) } else { 32 };
                // A data-dependent choice between two constant bit patterns is a choice
                // between the two floats they encode.
                let choice = self.bit_selects.iter().find(|e| e.0 == s).copied();
                if let Some((_, c, x, y)) = choice {
                    if let (Some(fx), Some(fy)) =
                        (decode_float(mask_w(x, w), w), decode_float(mask_w(y, w), w))
                    {
                        let (fx, fy) = (self.domain.constant(fx), self.domain.constant(fy));
                        return Ok(self.domain.select(c, fx, fy));
                    }
                }
                let op = if w == 64 { "f64.from" } else { "f32.from" };
                self.opaque(op, &[s])
            }
            _ => fail(ErrorKind::Malformed, "a predicate used as a float"),
        }
    }

    pub(super) fn truth(&self, v: Val<D::V>) -> Result<Truth<D::V>, Fail> {
        match v {
            Val::Pred(b) => Ok(Truth::Known(b)),
            Val::Cond(c) => Ok(Truth::Unknown(c)),
            Val::Bits(b) => Ok(Truth::Known(b != 0)),
            Val::Float(_) | Val::Sum(_) => {
                fail(ErrorKind::Malformed, "a float used as a predicate")
            }
            Val::Sym(_) => unsupported("a data-dependent integer used as a predicate"),
        }
    }

    pub(super) fn from_truth(t: Truth<D::V>) -> Val<D::V> {
        match t {
            Truth::Known(b) => Val::Pred(b),
            Truth::Unknown(c) => Val::Cond(c),
        }
    }

    pub(super) fn not(&mut self, v: Val<D::V>) -> Result<Val<D::V>, Fail> {
        Ok(match self.truth(v)? {
            Truth::Known(b) => Val::Pred(!b),
            Truth::Unknown(c) => Self::from_truth(self.domain.not(c)),
        })
    }

    pub(super) fn cond_value(&mut self, c: D::V) -> Result<bool, Fail> {
        match self.domain.as_number(c) {
            Some(x) => Ok(x != 0.0),
            None => unsupported("a branch or guard on a data-dependent predicate"),
        }
    }

    /// `mov.b64 {lo, hi}, x` (also `mov.b32 {a, b}, x`): the parts of `x`, lowest
    /// first. Bits split exactly; the parts of a data-dependent value are opaque
    /// integers (`f64.bits(x).part0of2`), remembered so that packing them again gives
    /// `x` back.
    pub(super) fn unpack(
        &mut self,
        t: usize,
        dst: &Operand,
        src: &Operand,
        ty: &str,
    ) -> Result<(), Fail> {
        let Operand::Vector(parts) = dst else {
            return fail(
                ErrorKind::Malformed,
                "expected a vector of destination registers",
            );
        };
        let n = parts.len() as u32;
        let w = width(ty);
        if !(2..=8).contains(&n) || !w.is_multiple_of(n) {
            return fail(
                ErrorKind::Malformed,
                format!("cannot split a .{ty} value into {n} registers"),
            );
        }
        let pw = w / n;
        let whole = self.read(t, src, ty)?;
        let mut vals = Vec::with_capacity(parts.len());
        let known = self
            .unpacked
            .iter()
            .rev()
            .find(|(w, ps)| *w == whole && ps.len() == n as usize)
            .map(|(_, ps)| ps.clone());
        if let (true, Some(ps)) = (self.is_symbolic(whole), known) {
            // A word lift built from its parts (`mma::pack_halves`, an earlier pack).
            vals = ps;
        } else if self.is_symbolic(whole) {
            let s = self.sym_arg(whole, ty)?;
            for k in 0..n {
                vals.push(Val::Sym(self.opaque(&format!("part{k}of{n}"), &[s])?));
            }
            self.unpacked.push((whole, vals.clone()));
        } else {
            let b = self.int(whole, ty)?;
            for k in 0..n {
                vals.push(Val::Bits(mask_w(b >> (k * pw), pw)));
            }
        }
        for (p, v) in parts.iter().zip(vals) {
            self.write(t, p, v)?;
        }
        Ok(())
    }

    /// `mov.b64 x, {lo, hi}`: the inverse of [`unpack`](Self::unpack). Parts that one
    /// unpack made, unchanged, give the unpacked value back; other data-dependent parts
    /// make an opaque integer.
    pub(super) fn pack(
        &mut self,
        t: usize,
        dst: &Operand,
        src: &Operand,
        ty: &str,
    ) -> Result<(), Fail> {
        let Operand::Vector(parts) = src else {
            return fail(
                ErrorKind::Malformed,
                "expected a vector of source registers",
            );
        };
        let n = parts.len() as u32;
        let w = width(ty);
        if !(2..=8).contains(&n) || !w.is_multiple_of(n) {
            return fail(
                ErrorKind::Malformed,
                format!("cannot join {n} registers into a .{ty} value"),
            );
        }
        let pw = w / n;
        let pty = format!("b{pw}");
        let mut vals = Vec::with_capacity(parts.len());
        for p in parts {
            vals.push(self.read(t, p, &pty)?);
        }
        let v = if let Some((whole, _)) = self.unpacked.iter().find(|(_, ps)| *ps == vals) {
            *whole
        } else if n == 2 && pw == 16 && vals.iter().any(|v| matches!(v, Val::Float(_))) {
            // Two halves of f16x2/bf16x2 data, remembered so `mma` can read them.
            self.pack_halves([vals[0], vals[1]])?
        } else if vals.iter().any(|v| self.is_symbolic(*v)) {
            self.sym_op(&format!("pack{n}"), &vals, &pty)?
        } else {
            let mut b = 0u64;
            for (k, v) in vals.iter().enumerate() {
                b |= mask_w(self.int(*v, &pty)?, pw) << (k as u32 * pw);
            }
            Val::Bits(b)
        };
        self.write(t, dst, v)
    }

    /// `trap`: the kernel aborts. Reached unconditionally it is a finding naming the
    /// line; under a data-dependent condition, with an input that reaches it.
    pub(super) fn trap(&mut self, ins: &Instr) -> Result<Flow, Fail> {
        let mut m = format!(
            "`trap` at line {} is reached: the kernel aborts (an illegal-instruction error on the host)",
            ins.line
        );
        if let Some(c) = self.path {
            match self.domain.witness(c) {
                Some(w) => m.push_str(&format!(
                    "; it is under a data-dependent condition, reached for the inputs {w}"
                )),
                None => {
                    return unsupported(format!(
                        "`trap` at line {} under a data-dependent condition: lift found no \
                         input reaching it nor proved there is none",
                        ins.line
                    ))
                }
            }
        }
        fail(ErrorKind::Trap, m)
    }

    /// `call.pure name, (args), (rets), %p` before the inlined body of a pure function
    /// with a loop (`ptx::calls`): with constant arguments `%p` is false and the body
    /// runs; otherwise each return value becomes an opaque function of the arguments
    /// (named by the function's fingerprint) and `%p` true skips the body.
    pub(super) fn pure_call(&mut self, t: usize, ins: &Instr) -> Result<Flow, Fail> {
        let [Operand::Sym(name), Operand::Vector(args), Operand::Vector(rets), p] =
            &ins.operands[..]
        else {
            return fail(ErrorKind::Malformed, "expected call.pure's operands");
        };
        let mut vals = Vec::with_capacity(args.len());
        for a in args {
            vals.push(self.read(t, a, "b64")?);
        }
        let constant = vals.iter().all(|v| match v {
            Val::Bits(_) | Val::Pred(_) => true,
            Val::Float(x) => self.domain.as_number(*x).is_some(),
            _ => false,
        });
        if !constant {
            let mut xs = Vec::with_capacity(vals.len());
            for (v, a) in vals.into_iter().zip(args) {
                let ty = match a {
                    Operand::Reg(s) => self
                        .entry
                        .regs
                        .get(*s as usize)
                        .map_or("b64", |r| r.1.as_str()),
                    _ => "b64",
                };
                let ty = ty.to_string();
                xs.push(self.sym_arg(v, &ty)?);
            }
            for (k, r) in rets.iter().enumerate() {
                let v = self.opaque(&format!("{name}.ret{k}"), &xs)?;
                self.write(t, r, Val::Sym(v))?;
            }
        }
        self.write(t, p, Val::Pred(!constant))?;
        Ok(Flow::Next)
    }
}
