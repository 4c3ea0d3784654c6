//! Tensor cores as Ampere code drives them: 32-bit registers holding two 16-bit
//! halves (`f16x2`/`bf16x2` data), `ldmatrix .trans`, and the warp-wide
//! `mma.sync.aligned.m16n8k{8,16}.row.col.f32.{f16,bf16}.{f16,bf16}.f32`.
//!
//! Packed halves: a word built from halves that depend on the data (a `b32` load of two
//! float16 tensor elements, `mov.b32 %r, {%h0, %h1}`, `cvt.rn.f16x2.f32`) is an opaque
//! integer remembered with its halves (in `Sim::unpacked`, lowest half first), so that
//! splitting it (`mov.b32 {%h0, %h1}, %r`, `ldmatrix .trans`, the fragments of `mma`)
//! gives the halves back exactly. A word of numbers splits into its bits.
//!
//! `mma`: D = A·B + C over one warp; each lane's registers hold the fragment elements
//! the PTX ISA assigns it ("Matrix fragments for mma.m16n8k16 / m16n8k8", written out in
//! [`a_at`], [`b_at`], [`c_at`]). Every element of D is the sum of C's element and the
//! K products, each product of two halves exact in f32; the order and rounding of the
//! tensor core's accumulation are not modelled (the real semantics reads the sum as
//! exact, and `ptx::narrowings` says so at the instruction's line).
//!
//! Invariant: a half is never guessed. A word whose halves lift did not build is split
//! only when it is a number; otherwise the instruction is `Unsupported`.

use super::*;

/// The fragment position of element `h` (0 = low half) of A register `j` of the lane
/// with `g = lane / 4`, `t = lane % 4`: (row, column) of the 16 x K tile of A.
pub(super) fn a_at(g: usize, t: usize, j: usize, h: usize) -> (usize, usize) {
    (g + 8 * (j % 2), 2 * t + h + 8 * (j / 2))
}

/// (k, n) of element `h` of B register `j` of the lane (g, t): B is K x 8, "col" layout.
fn b_at(g: usize, t: usize, j: usize, h: usize) -> (usize, usize) {
    (2 * t + h + 8 * j, g)
}

/// (row, column) of C/D register `j` (one f32 each) of the lane (g, t): C is 16 x 8.
pub(super) fn c_at(g: usize, t: usize, j: usize) -> (usize, usize) {
    (g + 8 * (j / 2), 2 * t + j % 2)
}

impl<'a, D: Domain> Sim<'a, D> {
    /// A 32-bit word made of `halves` (lowest first): bits when they are numbers,
    /// otherwise an opaque integer remembered with its halves.
    pub(super) fn pack_halves(&mut self, halves: [Val<D::V>; 2]) -> Result<Val<D::V>, Fail> {
        if let Some((whole, _)) = self
            .unpacked
            .iter()
            .rev()
            .find(|(_, ps)| ps[..] == halves[..])
        {
            return Ok(*whole);
        }
        // Bits join exactly; a float half (even a number) keeps its value, since its
        // 16-bit type (f16 or bf16) is the reader's to say.
        if let [Val::Bits(lo), Val::Bits(hi)] = halves {
            return Ok(Val::Bits(mask_w(lo, 16) | mask_w(hi, 16) << 16));
        }
        let mut xs = Vec::with_capacity(2);
        let mut kinds = String::new();
        for v in halves {
            kinds.push(if matches!(v, Val::Float(_)) { 'f' } else { 'b' });
            xs.push(match v {
                Val::Float(x) => x,
                v => self.sym_arg(v, "b16")?,
            });
        }
        // A domain without opaque terms (concrete numbers) names the word by a token no
        // number there takes as an integer (it has no data-dependent integers at all).
        let token = match self.domain.opaque(&format!("halves.{kinds}"), &xs) {
            Some(v) => v,
            None => self.domain.bits((1 << 52) + self.unpacked.len() as u64),
        };
        let whole = Val::Sym(token);
        self.unpacked.push((whole, halves.to_vec()));
        Ok(whole)
    }

    /// The two halves of a 32-bit word, lowest first (see the module invariant).
    pub(super) fn halves(&mut self, v: Val<D::V>) -> Result<[Val<D::V>; 2], Fail> {
        if self.is_symbolic(v) {
            return match self.unpacked.iter().rev().find(|(w, ps)| *w == v && ps.len() == 2) {
                Some((_, ps)) => Ok([ps[0], ps[1]]),
                None => unsupported(
                    "the 16-bit halves of a data-dependent 32-bit word lift did not build from halves",
                ),
            };
        }
        let b = self.int(v, "b32")?;
        Ok([Val::Bits(b & 0xffff), Val::Bits((b >> 16) & 0xffff)])
    }

    /// The value of a half of type `ty` (`f16` or `bf16`): a float register's value, or
    /// the number its 16 bits encode.
    pub(super) fn half_value(&mut self, v: Val<D::V>, ty: &str) -> Result<D::V, Fail> {
        match v {
            Val::Bits(b) => {
                let dtype = if ty == "bf16" {
                    crate::launch::Dtype::Bf16
                } else {
                    crate::launch::Dtype::F16
                };
                Ok(self.domain.constant(typed::decode(dtype, b)))
            }
            v => self.float(v, ty),
        }
    }

    /// A shared read that joins or splits 16-bit halves: a word stored as two halves
    /// (`st.shared.b16` of float16 elements, then `ldmatrix`), or a half of a stored
    /// word. `None` when the read is no such case (the caller's exact-size rule applies).
    pub(super) fn shared_halves(
        &mut self,
        addr: u64,
        size: u64,
    ) -> Result<Option<Val<D::V>>, Fail> {
        let at = |s: &Self, a: u64, n: u64| match s.shared.get(&a) {
            Some(&(v, m)) if m == n => Some(v),
            _ => None,
        };
        if size == 4 && at(self, addr, 4).is_none() {
            if let (Some(lo), Some(hi)) = (at(self, addr, 2), at(self, addr + 2, 2)) {
                return self.pack_halves([lo, hi]).map(Some);
            }
        }
        if size == 2 && !self.shared.contains_key(&addr) && addr % 4 == 2 {
            if let Some(w) = at(self, addr - 2, 4) {
                return Ok(Some(self.halves(w)?[1]));
            }
        }
        if size == 2 && addr.is_multiple_of(4) {
            if let Some(w) = at(self, addr, 4) {
                return Ok(Some(self.halves(w)?[0]));
            }
        }
        Ok(None)
    }

    /// `cvt.rn.{f16x2,bf16x2}.f32 d, a, b`: `a` rounded to the upper half, `b` to the
    /// lower (the PTX ISA's order). Under `--precision ieee` each half rounds to
    /// nearest even; over the reals the rounding is read as exact (`ptx::narrowings`).
    pub(super) fn cvt_x2(&mut self, t: usize, ins: &Instr, dty: &str) -> Result<(), Fail> {
        let [d, a, b] = &ins.operands[..] else {
            return fail(
                ErrorKind::Malformed,
                format!("{} needs d, a, b", ins.mnemonic()),
            );
        };
        if !ins.has("rn") || ins.has("relu") || ins.has("satfinite") {
            return unsupported(format!("{} (only .rn)", ins.mnemonic()));
        }
        let mut parts = [Val::Bits(0); 2];
        for (k, src) in [b, a].into_iter().enumerate() {
            let v = self.read(t, src, "f32")?;
            let mut x = self.float(v, "f32")?;
            if self.domain.precision() == Precision::Ieee {
                let f = if dty == "f16x2" {
                    Func::RoundF16
                } else {
                    Func::RoundBf16
                };
                x = self.domain.func(f, x);
            }
            parts[k] = Val::Float(x);
        }
        let w = self.pack_halves(parts)?;
        self.write(t, d, w)
    }

    /// A packed load: `size` bytes of whole 2-byte float elements (`f16`, `bf16`) read
    /// as an integer (`ld.global.b32`, `cp.async` of float16 tiles), each element a
    /// half; `None` when the bytes are no whole elements of that kind.
    pub(super) fn packed_elements(
        &mut self,
        dtype: crate::launch::Dtype,
        bytes: &[typed::Byte<D::V>],
    ) -> Result<Option<Val<D::V>>, Fail> {
        use crate::launch::Dtype;
        use typed::Byte;
        if !matches!(dtype, Dtype::F16 | Dtype::Bf16) || bytes.len() != 4 {
            return Ok(None);
        }
        let mut halves = [Val::Bits(0); 2];
        for (k, h) in halves.iter_mut().enumerate() {
            *h = match (bytes[2 * k], bytes[2 * k + 1]) {
                (Byte::Of(x, d0, 0), Byte::Of(y, d1, 1))
                    if x == y && d0 == dtype && d1 == dtype =>
                {
                    Val::Float(x)
                }
                (Byte::Num(lo), Byte::Num(hi)) => Val::Bits(lo as u64 | (hi as u64) << 8),
                _ => return Ok(None),
            };
        }
        self.pack_halves(halves).map(Some)
    }

    /// The bytes of a word of packed halves stored into a tensor of 16-bit floats
    /// (`cvt.rn.f16x2.f32` results stored with `st.global.b32`): each half is one
    /// element, its value a real as a whole-element store would store it. `None` for
    /// anything else.
    pub(super) fn packed_bytes(
        &self,
        v: Val<D::V>,
        size: u64,
        dtype: crate::launch::Dtype,
    ) -> Option<Vec<typed::Byte<D::V>>> {
        use crate::launch::Dtype;
        use typed::Byte;
        if size != 4 || !matches!(dtype, Dtype::F16 | Dtype::Bf16) || !matches!(v, Val::Sym(_)) {
            return None;
        }
        let (_, parts) = self
            .unpacked
            .iter()
            .rev()
            .find(|(w, ps)| *w == v && ps.len() == 2)?;
        let mut out = Vec::with_capacity(4);
        for p in parts {
            match *p {
                // The element is the half's value, number or not, exactly as a
                // whole-element store of it would leave it.
                Val::Float(x) => out.extend([Byte::Of(x, dtype, 0), Byte::Of(x, dtype, 1)]),
                Val::Bits(b) => out.extend([Byte::Num(b as u8), Byte::Num((b >> 8) as u8)]),
                _ => return None,
            }
        }
        Some(out)
    }

    /// `ldmatrix ... .trans`: lane `l` gets, in register `i`, the elements
    /// (row 2 (l % 4), column l / 4) and (row 2 (l % 4) + 1, column l / 4) of matrix
    /// `i`, whose row `r` starts at the address lane 8i + r gave.
    pub(super) fn ldmatrix_trans_word(
        &mut self,
        u: usize,
        pc: usize,
        row_addr: impl Fn(usize) -> Result<u64, Fail>,
    ) -> Result<Val<D::V>, Fail> {
        let lane = self.threads[u].lane;
        let col = lane / 4;
        let mut parts = [Val::Bits(0); 2];
        for (h, part) in parts.iter_mut().enumerate() {
            let row = row_addr(2 * (lane % 4) + h)?;
            let word = self.load_one(
                u,
                pc,
                row + 4 * (col as u64 / 2),
                4,
                Some(Space::Shared),
                "b32",
            )?;
            *part = self.halves(word)?[col % 2];
        }
        self.pack_halves(parts)
    }

    /// `mma.sync.aligned.m16n8k{16,8}.row.col.f32.{f16,bf16}.{f16,bf16}.f32 d, a, b, c`
    /// for the 32 lanes of `group`: D = A·B + C (see the module doc).
    pub(super) fn mma(&mut self, group: &[usize]) -> Result<(), Fail> {
        let State::Collective(pc0, _) = self.threads[group[0]].state else {
            return Ok(());
        };
        let first = &self.entry.body[pc0];
        let k = match () {
            _ if first.has("m16n8k16") => 16,
            _ if first.has("m16n8k8") => 8,
            _ => return unsupported(format!("{} (only m16n8k16 and m16n8k8)", first.mnemonic())),
        };
        let ty = match first
            .mods
            .iter()
            .rev()
            .take(4)
            .map(String::as_str)
            .collect::<Vec<_>>()[..]
        {
            ["f32", "f16", "f16", "f32"] => "f16",
            ["f32", "bf16", "bf16", "f32"] => "bf16",
            _ => {
                return unsupported(format!(
                    "{} (only .f32.f16.f16.f32 and .f32.bf16.bf16.f32)",
                    first.mnemonic()
                ))
            }
        };
        if !(first.has("sync") && first.has("aligned") && first.has("row") && first.has("col")) {
            return unsupported(format!("{} (only .sync.aligned.row.col)", first.mnemonic()));
        }
        if group.len() != 32 {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "{} at line {} needs all 32 lanes of the warp, {} are there",
                    first.mnemonic(),
                    first.line,
                    group.len()
                ),
            );
        }
        let (na, nb) = (k / 4, k / 8);
        let mut a: Vec<Option<D::V>> = vec![None; 16 * k];
        let mut b: Vec<Option<D::V>> = vec![None; k * 8];
        let mut c: Vec<Option<D::V>> = vec![None; 16 * 8];
        let mut dsts = Vec::with_capacity(32);
        for &u in group {
            let State::Collective(pc, _) = self.threads[u].state else {
                continue;
            };
            let ins = &self.entry.body[pc];
            if ins.op != first.op || ins.mods != first.mods {
                return fail(
                    ErrorKind::Malformed,
                    format!(
                        "lanes of a warp meet at different collectives (lines {} and {})",
                        first.line, ins.line
                    ),
                );
            }
            let regs = |i: usize, n: usize| -> Result<Vec<Operand>, Fail> {
                match ins.operands.get(i) {
                    Some(Operand::Vector(xs)) if xs.len() == n => Ok(xs.clone()),
                    _ => fail(
                        ErrorKind::Malformed,
                        format!(
                            "{} at line {}: operand {} must be {n} registers",
                            ins.mnemonic(),
                            ins.line,
                            i + 1
                        ),
                    ),
                }
            };
            let (d, ra, rb, rc) = (regs(0, 4)?, regs(1, na)?, regs(2, nb)?, regs(3, 4)?);
            let lane = self.threads[u].lane;
            let (g, t) = (lane / 4, lane % 4);
            for (j, r) in ra.iter().enumerate() {
                let w = self.read(u, r, "b32")?;
                for (h, x) in self.halves(w)?.into_iter().enumerate() {
                    let (row, col) = a_at(g, t, j, h);
                    a[row * k + col] = Some(self.half_value(x, ty)?);
                }
            }
            for (j, r) in rb.iter().enumerate() {
                let w = self.read(u, r, "b32")?;
                for (h, x) in self.halves(w)?.into_iter().enumerate() {
                    let (kk, n) = b_at(g, t, j, h);
                    b[kk * 8 + n] = Some(self.half_value(x, ty)?);
                }
            }
            for (j, r) in rc.iter().enumerate() {
                let v = self.read(u, r, "f32")?;
                let (row, col) = c_at(g, t, j);
                c[row * 8 + col] = Some(self.float(v, "f32")?);
            }
            dsts.push((u, g, t, d));
        }
        let (Some(a), Some(b), Some(c)) = (
            a.into_iter().collect::<Option<Vec<_>>>(),
            b.into_iter().collect::<Option<Vec<_>>>(),
            c.into_iter().collect::<Option<Vec<_>>>(),
        ) else {
            return fail(
                ErrorKind::Malformed,
                "mma: a fragment element no lane holds",
            );
        };
        for (u, g, t, d) in dsts {
            for (j, r) in d.iter().enumerate() {
                let (row, col) = c_at(g, t, j);
                let mut terms = Vec::with_capacity(k + 1);
                terms.push(c[row * 8 + col]);
                for kk in 0..k {
                    terms.push(
                        self.domain
                            .binary(Binary::Mul, a[row * k + kk], b[kk * 8 + col]),
                    );
                }
                let v = self.domain.sum(&terms);
                self.write(u, r, Val::Float(v))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout covers its tile exactly once over the 32 lanes (an independent
    /// check of the formulas: no element is held twice or missed).
    #[test]
    fn fragments_cover_their_tiles_once() {
        for k in [8, 16] {
            let mut a = vec![0; 16 * k];
            let mut b = vec![0; k * 8];
            let mut c = [0; 128];
            for lane in 0..32 {
                let (g, t) = (lane / 4, lane % 4);
                for j in 0..k / 4 {
                    for h in 0..2 {
                        let (r, col) = a_at(g, t, j, h);
                        a[r * k + col] += 1;
                    }
                }
                for j in 0..k / 8 {
                    for h in 0..2 {
                        let (kk, n) = b_at(g, t, j, h);
                        b[kk * 8 + n] += 1;
                    }
                }
                for j in 0..4 {
                    let (r, col) = c_at(g, t, j);
                    c[r * 8 + col] += 1;
                }
            }
            assert!(a.iter().chain(&b).chain(&c).all(|&n| n == 1), "k = {k}");
        }
        // The ISA's examples: lane 5 (g = 1, t = 1) holds A (1, 2), (1, 3) in a0,
        // (9, 2) in a1, (1, 10) in a2, (9, 11) as the high half of a3; B (2, 1) and
        // (11, 1); C (9, 3) in c3.
        assert_eq!(a_at(1, 1, 0, 0), (1, 2));
        assert_eq!(a_at(1, 1, 0, 1), (1, 3));
        assert_eq!(a_at(1, 1, 1, 0), (9, 2));
        assert_eq!(a_at(1, 1, 2, 0), (1, 10));
        assert_eq!(a_at(1, 1, 3, 1), (9, 11));
        assert_eq!(b_at(1, 1, 0, 0), (2, 1));
        assert_eq!(b_at(1, 1, 1, 1), (11, 1));
        assert_eq!(c_at(1, 1, 3), (9, 3));
    }
}
