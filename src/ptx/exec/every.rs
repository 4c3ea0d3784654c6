//! The every-count proof: one run at count `N` (the number of K tiles) that shows the
//! run at every count `N + Q·u` (`0 <= u <= u_max`) safe too.
//!
//! Each CTA's run is cut at *checkpoints*: the scheduler's passes, after every thread
//! has run until it blocks. Three stretches follow one another:
//!
//! - **prefix**: from the start, every integer register carries its slope in `u`
//!   (`slope`): the count parameter has slope `Q`, everything else follows by exact
//!   rules. Every branch, guard, shared or local address, mbarrier or barrier
//!   operand, store and collective must be flat (the same for every `u`), a global
//!   read may move (its bounds are checked for every `u` against the tensor's size at
//!   that count). The run at `N + Q·u` then runs the same instructions in the same
//!   schedule, with the same memory, barriers and logs, and registers moved by the
//!   slopes.
//! - **period**: at a checkpoint whose abstract state (below) equals an earlier
//!   one's, the registers moved by `Δ` (the induction variables) and nothing else, the
//!   next stretch to the same abstract state is checked with slopes in `(u, m)` over
//!   `0 <= m < u`: the state after `m` inserted periods of the run at `N + Q·u` is the
//!   state here moved by `s·u + Δ·m`. It must come back to the same abstract state,
//!   registers moved by `Δ` and slopes `(s, Δ)` again: by induction, the run at
//!   `N + Q·u` makes `u` more periods, each safe, and arrives at this checkpoint's
//!   abstract state with registers moved by `(s + Δ)·u`.
//! - **suffix**: from the period's start to the CTA's end with slopes `s + Δ` in `u`
//!   (the end of the run at `N + Q·u` lines up with this run's end), flat as in the
//!   prefix.
//!
//! The abstract state is everything the rest of the run reads but the register
//! values: threads' states, program counters, local memory, mbarriers (counts, bytes,
//! phase parity), shared memory, written outputs, the race logs, and vector clocks
//! read relative to each other (each component's values by rank: clocks are only
//! compared and joined, and a tick makes a new greatest value), barrier epochs as
//! "this one or older", instruction traces and load tags as classes of equal ones.
//! Kernels with atomics, cp.async groups, wgmma or tokens from `mbarrier.arrive`
//! are refused.
//!
//! Invariant: `Ok` only when every CTA went through prefix, a checked period and
//! suffix with every check holding over the final region (regions only shrink);
//! anything unchecked stops the proof with the reason, never a guess.

use super::slope::{self, IntTy, Region, Slope, FLAT};
use super::*;

/// What the proof needs from the launch.
pub struct Setup {
    /// The count's launch argument (`"K"` of `ring128_param_2 = "K"`).
    pub arg: String,
    /// The count at which the proof runs.
    pub n: i64,
    /// Counts per `u`.
    pub q: i64,
    /// Per tensor of the instance, elements added per `u` (its shape has the count as
    /// one dimension exactly, or not at all).
    pub numel_slope: Vec<i64>,
}

/// What the proof shows: the run at every count `n + q·u`, `0 <= u <= u_max`, does
/// what this run did.
#[derive(Clone, Debug)]
pub struct Proof {
    pub u_max: i64,
    /// What bounds `u_max` (an instruction whose value would leave its type), if not
    /// the search's start.
    pub bound: Option<String>,
    /// Checkpoints per period, per CTA.
    pub periods: Vec<usize>,
}

/// The largest `u` tried: counts far beyond any 32-bit loop.
const U_START: i64 = 1 << 40;

/// One set of register shadows (per thread, per slot) and its region's shape.
struct Set {
    regs: Vec<Vec<Slope>>,
    /// The triangle `0 <= m < u` (the period), else the line `m = 0`.
    mid: bool,
}

enum Stage {
    /// Abstract states seen at checkpoints: (state, slopes) → (checkpoint, registers).
    Prefix(HashMap<(String, String), (usize, Vec<Vec<Option<RegBits>>>)>),
    Period {
        state: String,
        regs: Vec<Vec<Option<RegBits>>>,
        delta: Vec<Vec<i64>>,
        slopes: Vec<Vec<Slope>>,
        length: usize,
        left: usize,
    },
    Suffix,
}

/// A register's value as compared between checkpoints: integer bits, or the debug
/// text of any other value (which must be equal).
#[derive(Clone, Debug, PartialEq)]
enum RegBits {
    Bits(u64),
    Other(String),
}

pub(super) struct State {
    setup: Setup,
    /// The count parameter's index.
    param: usize,
    u_max: i64,
    bound: Option<String>,
    sets: Vec<Set>,
    stage: Stage,
    checkpoint: usize,
    periods: Vec<usize>,
}

/// What an instruction writes, per set: (slot, shadow); `loaded_bits`: a read at a
/// moving address whose value is flat only if it is no integer.
pub(super) struct Writes {
    per_set: Vec<Vec<(u32, Slope)>>,
    loaded: bool,
}

type R<T> = Result<T, String>;

impl State {
    pub(super) fn new(setup: Setup, param: usize) -> State {
        State {
            setup,
            param,
            u_max: U_START,
            bound: None,
            sets: Vec::new(),
            stage: Stage::Suffix,
            checkpoint: 0,
            periods: Vec::new(),
        }
    }

    pub(super) fn proof(&self) -> Proof {
        Proof {
            u_max: self.u_max,
            bound: self.bound.clone(),
            periods: self.periods.clone(),
        }
    }
}

/// Ops whose first operand is a destination (the others read every operand).
fn writes_first(ins: &Instr) -> bool {
    match ins.op.as_str() {
        "st" | "red" | "cp" | "bra" | "brx" | "prefetch" | "prefetchu" | "fence" | "membar"
        | "ret" | "exit" | "trap" | "setmaxnreg" | "nanosleep" | "pmevent" | "call"
        | "tensormap" => false,
        "bar" | "barrier" => ins.has("red"),
        "mbarrier" => matches!(
            ins.mods.first().map(|s| s.as_str()),
            Some("arrive" | "arrive_drop" | "try_wait" | "test_wait")
        ),
        _ => true,
    }
}

fn regs_in(op: &Operand, out: &mut Vec<u32>) {
    match op {
        Operand::Reg(s) => out.push(*s),
        Operand::Vector(xs) => xs.iter().for_each(|x| regs_in(x, out)),
        Operand::Pair(a, b) => {
            regs_in(a, out);
            regs_in(b, out);
        }
        Operand::Mem { base, .. } | Operand::Not(base) => regs_in(base, out),
        Operand::Tensor { map, coords } => {
            regs_in(map, out);
            coords.iter().for_each(|x| regs_in(x, out));
        }
        _ => {}
    }
}

/// The index of the parameter the launch binds to `arg` (by name, `param_<i>`, or
/// position).
pub(super) fn count_param(entry: &Entry, order: &[String], arg: &str) -> Option<usize> {
    entry
        .params
        .iter()
        .enumerate()
        .position(|(i, p)| p.name == arg || format!("param_{i}") == arg)
        .or_else(|| order.iter().position(|k| k == arg))
}

/// The kinds of instruction the abstract state does not cover.
pub fn refused(entry: &Entry) -> Option<String> {
    entry.body.iter().find_map(|i| {
        let bad = matches!(i.op.as_str(), "atom" | "red" | "wgmma" | "tcgen05" | "call")
            || (i.op == "cp" && !i.has("bulk"))
            || (i.op == "cp" && i.has("bulk") && i.mods.iter().any(|m| m == "commit_group"));
        bad.then(|| format!("`{}` at line {}", i.mnemonic(), i.line))
    })
}

impl<'a, D: Domain> Sim<'a, D> {
    /// A new CTA: the prefix, every register flat.
    pub(super) fn every_new_cta(&mut self) {
        let (n, slots) = (self.threads.len(), self.entry.regs.len());
        if let Some(e) = self.every.as_mut() {
            e.sets = vec![Set {
                regs: vec![vec![FLAT; slots]; n],
                mid: false,
            }];
            e.stage = Stage::Prefix(HashMap::new());
            e.checkpoint = 0;
        }
    }

    /// The CTA ended: it must have gone through a checked period.
    pub(super) fn every_cta_done(&mut self) -> R<()> {
        let Some(e) = self.every.as_mut() else {
            return Ok(());
        };
        match e.stage {
            Stage::Suffix => Ok(()),
            Stage::Prefix(_) => Err(format!(
                "CTA {:?} ended before its state repeated (no period found in {} checkpoints)",
                self.cta, e.checkpoint
            )),
            Stage::Period { .. } => Err(format!(
                "CTA {:?} ended inside the period being checked",
                self.cta
            )),
        }
    }

    fn slope_of(&self, set: usize, t: usize, op: &Operand) -> Slope {
        let e = self.every.as_ref().expect("every-count run");
        match op {
            Operand::Reg(s) => e.sets[set].regs[t][*s as usize],
            Operand::Not(b) | Operand::Mem { base: b, .. } => self.slope_of(set, t, b),
            _ => {
                let mut rs = Vec::new();
                regs_in(op, &mut rs);
                match rs.iter().all(|&s| e.sets[set].regs[t][s as usize] == FLAT) {
                    true => FLAT,
                    false => None,
                }
            }
        }
    }

    fn operand_bits(&self, t: usize, op: &Operand) -> Option<u64> {
        match op {
            Operand::Reg(s) => match self.threads[t].regs[*s as usize] {
                Some(Val::Bits(b)) => Some(b),
                _ => None,
            },
            Operand::Imm(i) => Some(*i as u64),
            Operand::Mem { base, offset } => {
                Some(self.operand_bits(t, base)?.wrapping_add(*offset as u64))
            }
            _ => None,
        }
    }

    /// The region of a set now.
    fn region(&self, set: usize) -> Region {
        let e = self.every.as_ref().expect("every-count run");
        match e.sets[set].mid {
            true => Region::triangle(e.u_max),
            false => Region::line(e.u_max),
        }
    }

    /// Make `bits + s·(u, m)` exact in `ty` over set `set`'s region, shrinking the
    /// region if that is what it takes; the instruction names the bound.
    fn make_exact(&mut self, set: usize, ty: IntTy, bits: u64, s: [i64; 2], pc: usize) -> R<()> {
        let line = self.line(pc);
        let e = self.every.as_mut().expect("every-count run");
        let mid = e.sets[set].mid;
        match ty.exact_up_to(e.u_max, mid, bits, s) {
            Some(u) if u == e.u_max => Ok(()),
            Some(u) => {
                e.u_max = u;
                e.bound = Some(format!(
                    "`{}` at line {line} stays exact ({}-bit)",
                    self.entry.body[pc].mnemonic(),
                    ty.bits
                ));
                Ok(())
            }
            None => Err(format!(
                "`{}` at line {line} leaves its {}-bit type at the next count",
                self.entry.body[pc].mnemonic(),
                ty.bits
            )),
        }
    }

    /// Before thread `t` runs `ins`: check its uses of moving values and work out the
    /// shadows of what it writes.
    pub(super) fn every_before(&mut self, t: usize, pc: usize, ins: &Instr) -> R<Writes> {
        let sets = self.every.as_ref().map_or(0, |e| e.sets.len());
        let mut w = Writes {
            per_set: Vec::new(),
            loaded: false,
        };
        for set in 0..sets {
            let (dsts, loaded) = self.rule(set, t, pc, ins)?;
            w.loaded |= loaded;
            w.per_set.push(dsts);
        }
        Ok(w)
    }

    /// After: the shadows written (a moving read that gave integer bits is not flat).
    pub(super) fn every_after(&mut self, t: usize, w: Writes) {
        let loaded_bits: Vec<bool> = w
            .per_set
            .first()
            .map(|d| {
                d.iter()
                    .map(|(s, _)| {
                        matches!(
                            self.threads[t].regs[*s as usize],
                            Some(Val::Bits(_) | Val::Pred(_))
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let Some(e) = self.every.as_mut() else {
            return;
        };
        for (set, dsts) in w.per_set.into_iter().enumerate() {
            for (i, (slot, s)) in dsts.into_iter().enumerate() {
                let s = match w.loaded && loaded_bits.get(i).copied().unwrap_or(true) {
                    true => None,
                    false => s,
                };
                e.sets[set].regs[t][slot as usize] = s;
            }
        }
    }

    fn moving(&self, what: &str, pc: usize) -> String {
        format!(
            "{what} of `{}` at line {} depends on the count",
            self.entry.body[pc].mnemonic(),
            self.line(pc)
        )
    }

    /// One instruction in one set: (destination shadows, a read at a moving address).
    fn rule(
        &mut self,
        set: usize,
        t: usize,
        pc: usize,
        ins: &Instr,
    ) -> R<(Vec<(u32, Slope)>, bool)> {
        let sl = |me: &Self, op: &Operand| me.slope_of(set, t, op);
        if let Some((_, g)) = ins.guard {
            if sl(self, &Operand::Reg(g)) != FLAT {
                return Err(self.moving("the guard", pc));
            }
        }
        let ops = &ins.operands;
        let first = writes_first(ins);
        let mut dsts = Vec::new();
        if first {
            if let Some(d) = ops.first() {
                regs_in(d, &mut dsts);
            }
        }
        let srcs = if first && !ops.is_empty() {
            &ops[1..]
        } else {
            &ops[..]
        };
        let all_flat = srcs.iter().all(|o| sl(self, o) == FLAT);
        let each = |s: Slope| dsts.iter().map(|&d| (d, s)).collect::<Vec<_>>();
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        let it = IntTy::of(ty);
        let op = ins.op.as_str();
        let pure = uses::PURE.contains(&op) && !ins.has("cc");
        if !pure && !matches!(op, "ld" | "ldu") {
            // cp.async.bulk reads its source at a global address that may move.
            let bulk_src = op == "cp" && ins.has("bulk") && ops.len() == 4;
            for (i, o) in srcs.iter().enumerate() {
                if bulk_src && i == 1 {
                    continue;
                }
                if sl(self, o) != FLAT {
                    return Err(self.moving("an operand", pc));
                }
            }
            if bulk_src && sl(self, &ops[1]) != FLAT {
                let size = self.operand_bits(t, &ops[2]).unwrap_or(0);
                self.global_read_bounds(set, t, pc, &ops[1], size)?;
            }
            // The token of an arrival is a phase number, which inserted periods move.
            if op == "mbarrier" && ins.mods.first().is_some_and(|m| m.starts_with("arrive")) {
                let token = matches!(ops.first(), Some(Operand::Reg(_)));
                return Ok((each(if token { None } else { FLAT }), false));
            }
            return Ok((each(FLAT), false));
        }
        if matches!(op, "ld" | "ldu") {
            let Some(addr) = ops.get(1) else {
                return Ok((each(FLAT), false));
            };
            if ins.has("param") {
                let is_count = matches!(addr, Operand::Mem { base, offset: 0 }
                    if matches!(&**base, Operand::Sym(p) if self.entry.params.iter().position(|q| &q.name == p) == self.every.as_ref().map(|e| e.param)));
                if !is_count {
                    return Ok((each(FLAT), false));
                }
                let q = self.every.as_ref().map_or(0, |e| e.setup.q);
                let (Some(it), Some(bits)) = (it, self.param_bits()) else {
                    return Err(self.moving("the type", pc));
                };
                self.make_exact(set, it, bits, [q, 0], pc)?;
                return Ok((each(Some([q, 0])), false));
            }
            match sl(self, addr) {
                s if s == FLAT => Ok((each(FLAT), false)),
                None => Err(self.moving("the address", pc)),
                Some(_) => {
                    let size = type_bytes(ty).unwrap_or(8)
                        * match ops.first() {
                            Some(Operand::Vector(xs)) => xs.len() as u64,
                            _ => 1,
                        };
                    self.global_read_bounds(set, t, pc, addr, size)?;
                    Ok((each(FLAT), true))
                }
            }
        } else if all_flat {
            // Pure ops over flat values (setp's predicate combination included).
            Ok((each(FLAT), false))
        } else {
            let s = self.pure_rule(set, t, pc, ins, it)?;
            Ok((each(s), false))
        }
    }

    /// The count parameter's bits at this run.
    fn param_bits(&self) -> Option<u64> {
        let e = self.every.as_ref()?;
        match self.params.get(e.param)? {
            Val::Bits(b) => Some(*b),
            _ => None,
        }
    }

    /// The shadow of a pure instruction with a moving operand.
    fn pure_rule(
        &mut self,
        set: usize,
        t: usize,
        pc: usize,
        ins: &Instr,
        it: Option<IntTy>,
    ) -> R<Slope> {
        let ops = &ins.operands;
        let src = |i: usize| ops.get(i).cloned().unwrap_or(Operand::Sink);
        let (a, b) = (src(1), src(2));
        let (sa, sb) = (self.slope_of(set, t, &a), self.slope_of(set, t, &b));
        let (ba, bb) = (self.operand_bits(t, &a), self.operand_bits(t, &b));
        let Some(it) = it else {
            // `.pred` logic, floats, vectors: no form.
            return Ok(None);
        };
        let flat_const = |s: Slope, bits: Option<u64>| (s == FLAT).then_some(bits).flatten();
        Ok(match ins.op.as_str() {
            "mov" | "cvta" if ops.len() == 2 => sa,
            "add" | "sub" => match (sa, sb) {
                (Some(x), Some(y)) if ins.op == "add" => slope::add(x, y),
                (Some(x), Some(y)) => slope::add(x, slope::neg(y).ok_or("overflow")?),
                _ => None,
            },
            "neg" => sa.and_then(slope::neg),
            "not" => sa.and_then(slope::neg),
            "shl" => match (sa, flat_const(sb, bb)) {
                (Some(x), Some(k)) if k < 63 => slope::scale(x, 1i128 << k),
                _ => None,
            },
            "shr" => match (sa, flat_const(sb, bb), ba) {
                (Some(x), Some(k), Some(v)) if k < 63 && slope::zeros(x) >= k as u32 => {
                    self.make_exact(set, it, v, x, pc)?;
                    Some([x[0] >> k, x[1] >> k])
                }
                _ => None,
            },
            "and" | "or" | "xor" => {
                let (s, c) = match (sa, sb) {
                    (Some(x), _) if sb == FLAT => (x, bb),
                    (_, Some(y)) if sa == FLAT => (y, ba),
                    _ => return Ok(None),
                };
                match (c, ins.op.as_str()) {
                    (Some(c), "and") => slope::and_const(s, c, it.bits),
                    (Some(c), _) => slope::or_const(s, c, it.bits),
                    _ => None,
                }
            }
            "mul" | "mad" if !ins.has("hi") => {
                let wide = ins.has("wide");
                let (s, c, v) = match (sa, sb) {
                    (Some(x), _) if sb == FLAT => (x, bb, ba),
                    (_, Some(y)) if sa == FLAT => (y, ba, bb),
                    _ => return Ok(None),
                };
                let (Some(c), Some(v)) = (c, v) else {
                    return Ok(None);
                };
                if wide {
                    self.make_exact(set, it, v, s, pc)?;
                }
                let prod = slope::scale(s, it.value(c));
                match ins.op.as_str() {
                    "mad" => {
                        let sc = self.slope_of(set, t, &src(3));
                        prod.zip(sc).and_then(|(p, q)| slope::add(p, q))
                    }
                    _ => prod,
                }
            }
            "cvt" => {
                let n = ins.mods.len();
                let (dty, sty) = match n >= 2 {
                    true => (IntTy::of(&ins.mods[n - 2]), IntTy::of(&ins.mods[n - 1])),
                    false => (None, None),
                };
                match (dty, sty, sa, ba) {
                    (Some(d), Some(s), Some(x), Some(v)) if !ins.has("sat") => {
                        if d.bits > s.bits {
                            self.make_exact(set, s, v, x, pc)?;
                        }
                        Some(x)
                    }
                    _ => None,
                }
            }
            "setp" => match (sa, sb, ba, bb) {
                (Some(x), Some(y), Some(va), Some(vb)) => {
                    self.make_exact(set, it, va, x, pc)?;
                    self.make_exact(set, it, vb, y, pc)?;
                    let d = slope::add(x, slope::neg(y).ok_or("overflow")?).ok_or("overflow")?;
                    let region = self.region(set);
                    let comb = ops.get(3).map_or(FLAT, |c| self.slope_of(set, t, c));
                    (slope::decided(&region, it.value(va) - it.value(vb), d) && comb == FLAT)
                        .then_some([0, 0])
                }
                _ => None,
            },
            "selp" => {
                let c = src(3);
                match (self.slope_of(set, t, &c), &c) {
                    (s, Operand::Reg(p)) if s == FLAT => match self.threads[t].regs[*p as usize] {
                        Some(Val::Pred(true)) => sa,
                        Some(Val::Pred(false)) => sb,
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        })
    }

    /// A read of `size` bytes at a moving global address: inside an input tensor nobody
    /// writes, and in bounds at every count of the region.
    fn global_read_bounds(
        &mut self,
        set: usize,
        t: usize,
        pc: usize,
        addr: &Operand,
        size: u64,
    ) -> R<()> {
        let (Some(a), Some(s)) = (self.operand_bits(t, addr), self.slope_of(set, t, addr)) else {
            return Err(self.moving("the address", pc));
        };
        let tensor = (a >> TENSOR_SHIFT) as usize;
        let Some(td) = tensor.checked_sub(1).and_then(|i| self.inst.tensors.get(i)) else {
            return Err(self.moving("the address (outside every tensor)", pc));
        };
        if td.role != Role::In {
            return Err(self.moving("the address of a tensor the kernel writes", pc));
        }
        let e = self.every.as_ref().expect("every-count run");
        let ns = e.setup.numel_slope[tensor - 1] as i128;
        let eb = td.dtype.bytes() as i128;
        let off = (a & ((1 << TENSOR_SHIFT) - 1)) as i128;
        let bytes = td.numel() as i128 * eb;
        let region = self.region(set);
        // 0 <= off + s·(u, m) and off + s·(u, m) + size <= (numel + ns·u)·eb.
        let (lo, _) = region.range(off, s);
        let room = slope::add([(ns * eb) as i64, 0], slope::neg(s).ok_or("overflow")?)
            .ok_or("overflow")?;
        let (least_room, _) = region.range(bytes - off - size as i128, room);
        if lo < 0 || least_room < 0 {
            return Err(format!(
                "`{}` at line {} may read outside `{}` at another count",
                self.entry.body[pc].mnemonic(),
                self.line(pc),
                td.name
            ));
        }
        Ok(())
    }
}

impl<'a, D: Domain> Sim<'a, D> {
    /// Every register's value as compared between checkpoints.
    fn reg_bits(&self) -> Vec<Vec<Option<RegBits>>> {
        self.threads
            .iter()
            .map(|th| {
                th.regs
                    .iter()
                    .map(|v| {
                        v.map(|v| match v {
                            Val::Bits(b) => RegBits::Bits(b),
                            v => RegBits::Other(format!("{v:?}")),
                        })
                    })
                    .collect()
            })
            .collect()
    }

    /// `now - before` per register, modulo its declared width (0 for equal values
    /// that are no integers); `None` if some other value changed.
    fn delta(
        &self,
        before: &[Vec<Option<RegBits>>],
        now: &[Vec<Option<RegBits>>],
    ) -> Option<Vec<Vec<i64>>> {
        let mut out = Vec::new();
        for (b, n) in before.iter().zip(now) {
            let mut row = Vec::new();
            for (slot, (x, y)) in b.iter().zip(n).enumerate() {
                row.push(match (x, y) {
                    (Some(RegBits::Bits(x)), Some(RegBits::Bits(y))) => {
                        let w = values::width(&self.entry.regs[slot].1);
                        values::sext(values::mask_w(y.wrapping_sub(*x), w), w)
                    }
                    (x, y) if x == y => 0,
                    _ => return None,
                });
            }
            out.push(row);
        }
        Some(out)
    }

    /// A checkpoint: every thread has run until it blocked (see the module
    /// documentation for what happens at each stage).
    pub(super) fn every_checkpoint(&mut self) -> R<()> {
        let Some(e) = self.every.as_mut() else {
            return Ok(());
        };
        e.checkpoint += 1;
        let c = e.checkpoint;
        if matches!(e.stage, Stage::Suffix) {
            return Ok(());
        }
        if matches!(e.stage, Stage::Prefix(_)) {
            // A state the abstraction refuses is no candidate.
            let Ok(state) = self.abstract_state() else {
                return Ok(());
            };
            let slopes = format!("{:?}", self.every.as_ref().map(|e| &e.sets[0].regs));
            let regs = self.reg_bits();
            let key = (state, slopes);
            let seen = match &self.every.as_ref().map(|e| &e.stage) {
                Some(Stage::Prefix(seen)) => seen.get(&key).cloned(),
                _ => None,
            };
            let Some((before, old)) = seen else {
                if let Some(Stage::Prefix(seen)) = self.every.as_mut().map(|e| &mut e.stage) {
                    seen.insert(key, (c, regs));
                }
                return Ok(());
            };
            let Some(delta) = self.delta(&old, &regs) else {
                return Ok(());
            };
            let e = self.every.as_mut().expect("every-count run");
            let start = &e.sets[0].regs;
            let shift = |f: &dyn Fn([i64; 2], i64) -> Slope| -> Vec<Vec<Slope>> {
                start
                    .iter()
                    .zip(&delta)
                    .map(|(r, d)| {
                        r.iter()
                            .zip(d)
                            .map(|(s, &d)| s.and_then(|s| f(s, d)))
                            .collect()
                    })
                    .collect()
            };
            let mid = shift(&|s, d| Some([s[0], d]));
            let end = shift(&|s, d| Some([s[0].checked_add(d)?, 0]));
            e.sets = vec![
                Set {
                    regs: mid.clone(),
                    mid: true,
                },
                Set {
                    regs: end,
                    mid: false,
                },
            ];
            e.stage = Stage::Period {
                state: key.0,
                regs,
                delta,
                slopes: mid,
                length: c - before,
                left: c - before,
            };
            return Ok(());
        }
        // The period being checked.
        let Some(Stage::Period { left, .. }) = self.every.as_mut().map(|e| &mut e.stage) else {
            return Ok(());
        };
        *left -= 1;
        if *left > 0 {
            return Ok(());
        }
        let state = self.abstract_state()?;
        let regs = self.reg_bits();
        let e = self.every.as_ref().expect("every-count run");
        let Stage::Period {
            state: was,
            regs: old,
            delta,
            slopes,
            length,
            ..
        } = &e.stage
        else {
            return Ok(());
        };
        if state != *was {
            return Err(format!(
                "the abstract state after the period (checkpoints {}..{c}) is not the one it started from",
                c - length
            ));
        }
        if self.delta(old, &regs).as_ref() != Some(delta) {
            return Err("the registers do not move by the same amounts in the next period".into());
        }
        if e.sets[0].regs != *slopes {
            return Err("the registers' slopes do not come back after the period".into());
        }
        let length = *length;
        let e = self.every.as_mut().expect("every-count run");
        e.sets.remove(0);
        e.periods.push(length);
        e.stage = Stage::Suffix;
        Ok(())
    }
}
