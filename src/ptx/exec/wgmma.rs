//! Hopper's warpgroup tensor cores: `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}`
//! on shared-memory matrix descriptors (or A in registers), with `wgmma.fence`,
//! `commit_group` and `wait_group N`.
//!
//! The product: D = A·B + D (or A·B when scale-d is false) over a warpgroup of four
//! warps; warp `w % 4` of it owns rows 16w..16w+15 of the 64 x N result, so each warp
//! runs as a warp collective on its own rows (the same sums, since a row of D needs
//! only its row of A and all of B). Elements come from shared memory through the
//! descriptors (PTX ISA "Matrix Descriptor Format", "Shared Memory Matrix Layout": a
//! start address, leading and stride byte offsets, and the 32/64/128-byte swizzle,
//! an XOR of address bits 4.. with bits 7.., written out in [`element_offset`] and
//! [`swizzle`]). Each product of two halves is exact in f32; the sum is read as exact,
//! as for `mma.sync` (`ptx::narrowings` states it at the instruction's line).
//!
//! Asynchrony: the operation is in flight from its issue to the `wgmma.wait_group`
//! that covers its group. It is computed at issue from the shared memory of that
//! moment and its accumulator registers are written then, so the run is exact only
//! if nothing disturbs them in between: any other instruction that names an
//! accumulator register before the wait, and any change of an operand's shared bytes
//! before the wait (checked at the wait, by comparing with the values read at issue;
//! the reads are also logged at the issue and at the wait for the race checker), is a
//! data race. Chained `wgmma.mma_async` on the same accumulators need no wait (the
//! ISA orders them).
//!
//! Invariant: a descriptor is decoded only when it is a number and every shared
//! variable lies in the 256 KiB a descriptor addresses; a base offset, a negating
//! scale and other shapes or types are `Unsupported`, never guessed.

use super::mma::{a_at, c_at};
use super::*;
use std::rc::Rc;

/// One `wgmma.mma_async` in flight for a thread.
#[derive(Clone)]
pub(super) struct Op<V> {
    /// The instruction.
    pc: usize,
    /// Its accumulator registers (the thread's fragment of D).
    regs: Vec<u32>,
    /// The shared cells the warp's operation read, with their contents at issue
    /// (checked at each lane's wait).
    cells: Rc<Cells<V>>,
    /// The lane whose wait also logs the reads for the race checker.
    owner: bool,
}

/// Shared cells and their contents (value and store size), or `None` for unwritten.
type Cells<V> = Vec<(u64, Option<(Val<V>, u64)>)>;

/// A thread's `wgmma` operations in flight: the open group, then the committed groups
/// (oldest first).
#[derive(Clone)]
pub(super) struct InFlight<V> {
    open: Vec<Op<V>>,
    groups: Vec<Vec<Op<V>>>,
}

impl<V> Default for InFlight<V> {
    fn default() -> Self {
        InFlight {
            open: Vec::new(),
            groups: Vec::new(),
        }
    }
}

impl<V> InFlight<V> {
    fn ops(&self) -> impl Iterator<Item = &Op<V>> {
        self.open.iter().chain(self.groups.iter().flatten())
    }
}

/// Address bits 4.. XORed with bits 7..: `bits` of them (3 for the 128-byte swizzle,
/// 2 for 64, 1 for 32, 0 for none), CUTLASS's `Swizzle<bits, 4, 3>` on byte addresses.
pub(super) fn swizzle(addr: u64, bits: u32) -> u64 {
    addr ^ ((addr >> 3) & (((1 << bits) - 1) << 4))
}

/// The swizzle width of a descriptor's mode (bits 62-63): 1 = 128 bytes, 2 = 64,
/// 3 = 32, 0 = none, as (16-byte units per swizzled row, swizzle bits).
fn swizzle_mode(mode: u64) -> (u64, u32) {
    match mode {
        1 => (8, 3),
        2 => (4, 2),
        3 => (2, 1),
        _ => (1, 0),
    }
}

/// The byte offset, before the swizzle, of element (`mn`, `k`) of a 16-bit matrix in
/// the ISA's canonical layouts (T = 8 elements = 16 bytes; `s` 16-byte units per
/// swizzled row, 1 without swizzle):
/// K-major, none: ((8,m),(T,2k)):((T,SBO),(1,LBO)); swizzled: ((8,m),(T,2k)):((sT,SBO),(1,T));
/// MN-major, none: ((T,1,m),(8,k)):((1,T,SBO),(T,LBO)); swizzled:
/// ((T,s,m),(8,k)):((1,T,LBO),(sT,SBO)).
pub(super) fn element_offset(mn_major: bool, s: u64, lbo: u64, sbo: u64, mn: u64, k: u64) -> u64 {
    match (mn_major, s) {
        (false, 1) => 16 * (mn % 8) + 2 * (k % 8) + (mn / 8) * sbo + (k / 8) * lbo,
        (false, s) => 16 * s * (mn % 8) + 2 * k + (mn / 8) * sbo,
        (true, 1) => 2 * (mn % 8) + 16 * (k % 8) + (mn / 8) * sbo + (k / 8) * lbo,
        (true, s) => 2 * (mn % (8 * s)) + 16 * s * (k % 8) + (mn / (8 * s)) * lbo + (k / 8) * sbo,
    }
}

/// A decoded shared-memory matrix descriptor (wgmma's and tcgen05's share the address
/// fields; each family checks its own mode bits before `Desc::with_swizzle`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Desc {
    pub(super) start: u64,
    pub(super) lbo: u64,
    pub(super) sbo: u64,
    pub(super) units: u64,
    pub(super) bits: u32,
}

impl Desc {
    /// The start address and the leading and stride byte offsets (bits 0-13, 16-29,
    /// 32-45, in 16-byte units) with a swizzle of `units` 16-byte units per row and
    /// `bits` swizzle bits.
    pub(super) fn with_swizzle(d: u64, (units, bits): (u64, u32)) -> Desc {
        Desc {
            start: (d & 0x3fff) << 4,
            lbo: ((d >> 16) & 0x3fff) << 4,
            sbo: ((d >> 32) & 0x3fff) << 4,
            units,
            bits,
        }
    }

    fn decode(d: u64) -> Result<Desc, Fail> {
        if (d >> 49) & 7 != 0 {
            return unsupported(format!(
                "wgmma descriptor {d:#x} with a matrix base offset (a swizzle pattern not \
                 aligned to its repeat)"
            ));
        }
        Ok(Desc::with_swizzle(d, swizzle_mode(d >> 62)))
    }

    /// The shared address of element (`mn`, `k`).
    pub(super) fn at(&self, mn_major: bool, mn: u64, k: u64) -> u64 {
        let off = element_offset(mn_major, self.units, self.lbo, self.sbo, mn, k);
        swizzle(self.start + off, self.bits)
    }
}

/// Every register an operand names.
fn regs_of(o: &Operand, out: &mut Vec<u32>) {
    match o {
        Operand::Reg(r) => out.push(*r),
        Operand::Mem { base, .. } | Operand::Not(base) => regs_of(base, out),
        Operand::Vector(xs) => xs.iter().for_each(|x| regs_of(x, out)),
        Operand::Tensor { map, coords } => {
            regs_of(map, out);
            coords.iter().for_each(|x| regs_of(x, out));
        }
        Operand::Pair(a, b) => {
            regs_of(a, out);
            regs_of(b, out);
        }
        _ => {}
    }
}

impl<'a, D: Domain> Sim<'a, D> {
    /// `wgmma.*` for thread `t`: `mma_async` meets its warp as a collective
    /// ([`Self::wgmma_mma`]); the fence orders nothing lift reorders; groups as `cp.async`'s.
    pub(super) fn wgmma(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<Flow, Fail> {
        if !ins.has("sync") || !ins.has("aligned") {
            return unsupported(format!("{} without .sync.aligned", ins.mnemonic()));
        }
        match ins.mods.first().map(String::as_str) {
            Some("mma_async") => {
                let mask = self.lane_mask(t, None)?;
                Ok(Flow::Block(State::Collective(pc, mask)))
            }
            Some("fence") => Ok(Flow::Next),
            Some("commit_group") => {
                let fl = &mut self.threads[t].wgmma;
                let g = std::mem::take(&mut fl.open);
                fl.groups.push(g);
                Ok(Flow::Next)
            }
            Some("wait_group") => {
                let Some(o) = ins.operands.first() else {
                    return fail(ErrorKind::Malformed, "wgmma.wait_group needs N");
                };
                let v = self.read(t, o, "u32")?;
                let keep = self.int(v, "u32")? as usize;
                let groups = &mut self.threads[t].wgmma.groups;
                let done: Vec<Op<D::V>> = groups
                    .drain(..groups.len().saturating_sub(keep))
                    .flatten()
                    .collect();
                for op in done {
                    self.retire(t, pc, op)?;
                }
                Ok(Flow::Next)
            }
            _ => unsupported(ins.mnemonic()),
        }
    }

    /// An operation leaves the flight at the wait `pc`: its shared operands must hold
    /// what it read at issue, and its reads last until here.
    fn retire(&mut self, t: usize, pc: usize, op: Op<D::V>) -> Result<(), Fail> {
        for &(addr, was) in op.cells.iter() {
            if self.shared.get(&addr).copied() != was {
                // The writer, when the log still holds it (a barrier may have pruned it).
                let by = self
                    .shared_log
                    .get(&(addr & !3))
                    .and_then(|l| l.writes.last())
                    .map_or_else(String::new, |w| format!(" by {}", self.describe(w)));
                return fail(
                    ErrorKind::Race,
                    format!(
                        "data race on {}: `wgmma.mma_async` at line {} reads it from its issue \
                         until this `wgmma.wait_group`, and it was overwritten in between{by}",
                        self.shared_name(addr),
                        self.line(op.pc)
                    ),
                );
            }
        }
        for &(addr, _) in op.cells.iter().filter(|_| op.owner) {
            if addr.is_multiple_of(4) {
                self.log_shared(t, pc, addr, 4, false)?;
            }
        }
        Ok(())
    }

    /// Before thread `t` runs `ins`: an instruction that names an accumulator of a
    /// `wgmma.mma_async` still in flight races with it (see the module doc).
    pub(super) fn wgmma_touch(&self, t: usize, ins: &Instr) -> Result<(), Fail> {
        let fl = &self.threads[t].wgmma;
        if fl.open.is_empty() && fl.groups.is_empty() {
            return Ok(());
        }
        if ins.op == "wgmma" {
            // A chained mma_async on the very same accumulators is ordered after it.
            let same = |op: &Op<D::V>| {
                let mut d = Vec::new();
                if let Some(o) = ins.operands.first() {
                    regs_of(o, &mut d);
                }
                d == op.regs
            };
            if !ins.has("mma_async") || fl.ops().all(same) {
                return Ok(());
            }
        }
        let mut named = Vec::new();
        for o in &ins.operands {
            regs_of(o, &mut named);
        }
        if let Some((_, g)) = ins.guard {
            named.push(g);
        }
        for op in fl.ops() {
            if let Some(r) = named.iter().find(|r| op.regs.contains(r)) {
                let name = self
                    .entry
                    .regs
                    .get(*r as usize)
                    .map_or("?", |r| r.0.as_str());
                return fail(
                    ErrorKind::Race,
                    format!(
                        "data race on register {name}: it is an accumulator of the \
                         `wgmma.mma_async` at line {}, still in flight (no \
                         `wgmma.wait_group` has waited for its group), so this \
                         instruction may see either value",
                        self.line(op.pc)
                    ),
                );
            }
        }
        Ok(())
    }

    /// The 32-bit word holding the 16-bit element at shared `addr`, split into halves,
    /// read once per operation (`cache`); the cells read are remembered in `cells`.
    fn shared_half(
        &mut self,
        u: usize,
        pc: usize,
        addr: u64,
        cache: &mut HashMap<u64, [Val<D::V>; 2]>,
        cells: &mut Cells<D::V>,
    ) -> Result<Val<D::V>, Fail> {
        if !addr.is_multiple_of(2) {
            return fail(
                ErrorKind::Malformed,
                format!("wgmma operand element at odd shared address {addr:#x}"),
            );
        }
        let word = addr & !3;
        if let std::collections::hash_map::Entry::Vacant(e) = cache.entry(word) {
            let w = self.load_one(u, pc, word, 4, Some(Space::Shared), "b32")?;
            let hs = self.halves(w)?;
            for a in [word, word + 2] {
                cells.push((a, self.shared.get(&a).copied()));
            }
            e.insert(hs);
        }
        Ok(cache[&word][((addr >> 1) & 1) as usize])
    }

    /// `wgmma.mma_async.sync.aligned.m64nNk16.f32.{f16,bf16}.{f16,bf16}` for the 32
    /// lanes of one warp of a warpgroup (see the module doc).
    pub(super) fn wgmma_mma(&mut self, group: &[usize]) -> Result<(), Fail> {
        let State::Collective(pc, _) = self.threads[group[0]].state else {
            return Ok(());
        };
        let ins = &self.entry.body[pc];
        let shape = ins.mods.iter().find(|m| m.starts_with("m64n"));
        let n = match shape.and_then(|m| m.strip_prefix("m64n")?.strip_suffix("k16")) {
            Some(n) => match n.parse::<usize>() {
                Ok(n) if n % 8 == 0 && (8..=256).contains(&n) => n,
                _ => return fail(ErrorKind::Malformed, format!("{}: bad N", ins.mnemonic())),
            },
            None => return unsupported(format!("{} (only .m64nNk16)", ins.mnemonic())),
        };
        let tys: Vec<&str> = ins.mods.iter().rev().take(3).map(String::as_str).collect();
        let ty = match tys[..] {
            ["f16", "f16", "f32"] => "f16",
            ["bf16", "bf16", "f32"] => "bf16",
            _ => {
                return unsupported(format!(
                    "{} (only .f32.f16.f16 and .f32.bf16.bf16)",
                    ins.mnemonic()
                ))
            }
        };
        if group.len() != 32
            || group
                .iter()
                .any(|&u| self.threads[u].state != self.threads[group[0]].state)
        {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "{} at line {} needs all 32 lanes of each warp of the warpgroup, {} are there",
                    ins.mnemonic(),
                    ins.line,
                    group.len()
                ),
            );
        }
        let ops = &ins.operands;
        let a_in_regs = matches!(ops.get(1), Some(Operand::Vector(_)));
        let imm_count = if a_in_regs { 3 } else { 4 };
        if ops.len() != 4 + imm_count {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "{} at line {}: {} operands",
                    ins.mnemonic(),
                    ins.line,
                    ops.len()
                ),
            );
        }
        let mut imms = Vec::new();
        for o in &ops[4..] {
            match o {
                Operand::Imm(v) => imms.push(*v),
                _ => {
                    return fail(
                        ErrorKind::Malformed,
                        "wgmma: scale and transpose operands are immediates",
                    )
                }
            }
        }
        if imms[0] != 1 || imms[1] != 1 {
            return unsupported(format!("{} with a negating imm-scale", ins.mnemonic()));
        }
        let (trans_a, trans_b) = if a_in_regs {
            (0, imms[2])
        } else {
            (imms[2], imms[3])
        };
        if !(0..=1).contains(&trans_a) || !(0..=1).contains(&trans_b) {
            return fail(ErrorKind::Malformed, "wgmma: imm-trans must be 0 or 1");
        }
        if self
            .vars
            .iter()
            .any(|v| v.space == Space::Shared && v.addr + v.bytes > 0x40000)
        {
            return unsupported(
                "wgmma descriptors address 256 KiB of shared memory; lift laid out shared \
                 variables beyond it",
            );
        }
        // Warp-uniform operands: the descriptors and scale-d.
        let owner = group[0];
        let uniform = |s: &mut Self, i: usize, ty: &str| -> Result<u64, Fail> {
            let mut val = None;
            for &u in group {
                let v = s.read(u, &ops[i], ty)?;
                let b = match s.truth(v) {
                    Ok(Truth::Known(b)) if ty == "pred" => b as u64,
                    _ if ty == "pred" => return unsupported("wgmma with a data-dependent scale-d"),
                    _ => s.int(v, ty)?,
                };
                if val.is_some_and(|x| x != b) {
                    return unsupported(format!(
                        "wgmma operand {} that differs between lanes",
                        i + 1
                    ));
                }
                val = Some(b);
            }
            Ok(val.unwrap_or(0))
        };
        let scale_d = uniform(self, 3, "pred")? != 0;
        let desc_b = Desc::decode(uniform(self, 2, "b64")?)?;
        let desc_a = if a_in_regs {
            None
        } else {
            Some(Desc::decode(uniform(self, 1, "b64")?)?)
        };
        let w = (self.threads[owner].warp % 4) as u64;
        let mut cache = HashMap::new();
        let mut cells: Cells<D::V> = Vec::new();
        // This warp's 16 rows of A (16 x 16) and all of B (16 x n).
        let mut a: Vec<Option<D::V>> = vec![None; 16 * 16];
        match desc_a {
            Some(da) => {
                for r in 0..16u64 {
                    for k in 0..16u64 {
                        let at = da.at(trans_a == 1, 16 * w + r, k);
                        let h = self.shared_half(owner, pc, at, &mut cache, &mut cells)?;
                        a[(r * 16 + k) as usize] = Some(self.half_value(h, ty)?);
                    }
                }
            }
            None => {
                let Some(Operand::Vector(ra)) = ops.get(1) else {
                    unreachable!("checked above")
                };
                if ra.len() != 4 {
                    return fail(ErrorKind::Malformed, "wgmma: register A needs 4 registers");
                }
                for &u in group {
                    let lane = self.threads[u].lane;
                    for (j, r) in ra.iter().enumerate() {
                        let word = self.read(u, r, "b32")?;
                        for (h, x) in self.halves(word)?.into_iter().enumerate() {
                            let (row, col) = a_at(lane / 4, lane % 4, j, h);
                            a[row * 16 + col] = Some(self.half_value(x, ty)?);
                        }
                    }
                }
            }
        }
        let mut b: Vec<D::V> = Vec::with_capacity(16 * n);
        for k in 0..16u64 {
            for col in 0..n as u64 {
                let at = desc_b.at(trans_b == 1, col, k);
                let h = self.shared_half(owner, pc, at, &mut cache, &mut cells)?;
                b.push(self.half_value(h, ty)?);
            }
        }
        let Some(a) = a.into_iter().collect::<Option<Vec<_>>>() else {
            return fail(ErrorKind::Malformed, "wgmma: an element of A no lane holds");
        };
        let Some(Operand::Vector(d)) = ops.first() else {
            return fail(
                ErrorKind::Malformed,
                "wgmma: D must be a vector of registers",
            );
        };
        if d.len() != n / 2 {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "wgmma m64n{n}k16 .f32 needs {} accumulator registers",
                    n / 2
                ),
            );
        }
        let mut regs = Vec::new();
        for o in d {
            regs_of(o, &mut regs);
        }
        let cells = Rc::new(cells);
        for &u in group {
            let lane = self.threads[u].lane;
            let (g, t) = (lane / 4, lane % 4);
            for (i, r) in d.iter().enumerate() {
                let (row, c) = c_at(g, t, i % 4);
                let col = c + 8 * (i / 4);
                let mut terms = Vec::with_capacity(17);
                if scale_d {
                    let v = self.read(u, r, "f32")?;
                    terms.push(self.float(v, "f32")?);
                }
                for k in 0..16 {
                    terms.push(
                        self.domain
                            .binary(Binary::Mul, a[row * 16 + k], b[k * n + col]),
                    );
                }
                let v = self.domain.sum(&terms);
                self.write(u, r, Val::Float(v))?;
            }
            self.threads[u].wgmma.open.push(Op {
                pc,
                regs: regs.clone(),
                cells: cells.clone(),
                owner: u == owner,
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The ISA's worked examples of the canonical layouts (bf16, so T = 8), whose
    /// "exact layouts" give each element's offset in elements.
    #[test]
    fn canonical_layouts_match_the_isa_examples() {
        // MN-major, no swizzle: ((8,1,2),(8,2)):((1,8,64),(8,128)), LBO 256 B, SBO 128 B.
        let f = |mn, k| element_offset(true, 1, 256, 128, mn, k) / 2;
        for mn in 0..16 {
            for k in 0..16 {
                assert_eq!(
                    f(mn, k),
                    (mn % 8) + 64 * (mn / 8) + 8 * (k % 8) + 128 * (k / 8)
                );
            }
        }
        // MN-major, 32-byte swizzle: ((8,2,2),(8,2)):((1,8,128),(16,256)), LBO 256 B,
        // SBO 512 B.
        let f = |mn, k| element_offset(true, 2, 256, 512, mn, k) / 2;
        for mn in 0..32 {
            for k in 0..16 {
                let want =
                    mn % 8 + 8 * ((mn / 8) % 2) + 128 * (mn / 16) + 16 * (k % 8) + 256 * (k / 8);
                assert_eq!(f(mn, k), want);
            }
        }
        // MN-major, 64-byte swizzle: ((8,4,2),(8,2)):((1,8,256),(32,512)), LBO 512 B,
        // SBO 1024 B.
        let f = |mn, k| element_offset(true, 4, 512, 1024, mn, k) / 2;
        for mn in 0..64 {
            for k in 0..16 {
                let want =
                    mn % 8 + 8 * ((mn / 8) % 4) + 256 * (mn / 32) + 32 * (k % 8) + 512 * (k / 8);
                assert_eq!(f(mn, k), want);
            }
        }
        // K-major, no swizzle, tf32 in the ISA (T = 4): the same shape in 16-byte units:
        // ((8,2),(4,4)):((4,32),(1,64)) elements of 4 bytes; here row r, 16-byte column c.
        let f = |mn, k| element_offset(false, 1, 256, 128, mn, k);
        for mn in 0..16 {
            for c in 0..2 {
                assert_eq!(f(mn, 8 * c), 16 * (mn % 8) + 128 * (mn / 8) + 256 * c);
            }
        }
        // K-major, 32-byte swizzle: rows 32 bytes apart, 8-row groups SBO apart.
        let f = |mn, k| element_offset(false, 2, 0, 256, mn, k);
        assert_eq!(f(1, 0), 32);
        assert_eq!(f(8, 0), 256);
        assert_eq!(f(3, 9), 96 + 18);
    }

    /// The swizzles permute 16-byte chunks inside their repeat (1024, 512, 256 bytes)
    /// and keep the bytes of a chunk together.
    #[test]
    fn swizzles_permute_chunks_within_their_repeat() {
        for (bits, repeat) in [(3u32, 1024u64), (2, 512), (1, 256), (0, 128)] {
            let mut seen = vec![false; repeat as usize / 16];
            for a in (0..repeat).step_by(16) {
                let s = swizzle(0x4000 + a, bits) - 0x4000;
                assert!(s < repeat);
                assert!(!seen[s as usize / 16]);
                seen[s as usize / 16] = true;
                assert_eq!(swizzle(0x4000 + a + 7, bits), 0x4000 + s + 7);
            }
        }
        // Row 1 of a 128-byte swizzled atom: chunk 0 lands in chunk 1.
        assert_eq!(swizzle(128, 3), 128 + 16);
        assert_eq!(swizzle(128 * 7 + 16 * 2, 3), 128 * 7 + 16 * 5);
    }
}
