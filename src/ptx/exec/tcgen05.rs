//! Blackwell's tensor cores (`tcgen05.*`) and tensor memory: `alloc`/`dealloc`/
//! `relinquish_alloc_permit`, `ld`/`st`/`wait`, `mma .kind::f16` and `commit` to an
//! mbarrier.
//!
//! Tensor memory is a state space of the CTA: 128 lanes x 512 columns of 32-bit
//! cells, addressed by `lane << 16 | column`. `tcgen05.alloc` (a warp collective) gives
//! out a power-of-two range of columns (the lowest free one; the PTX ISA leaves the
//! choice open, lift checks this one) and writes its address to shared memory;
//! `dealloc` returns it and forgets its cells. A cell outside every allocation, or never
//! written, is an error where it is read.
//!
//! `tcgen05.ld`/`st` are warp collectives over the lanes of the warp's quarter (warp
//! `w` reaches lanes `32(w % 4)..+31`), in the shapes `.32x32b` (lane `l`, register `j`:
//! lane `l`, column `j`) and `.16x32bx2` (lane `l % 16`, column `j`, plus the split
//! offset for lanes 16-31), as CUTLASS's copy traits `SM100_TMEM_LOAD_32dp32b*`/
//! `16dp32b*` spell out the ISA's figures. Both are asynchronous: an instruction that
//! names a loaded register before `tcgen05.wait::ld`, and any read of a stored cell
//! before the storing thread's `tcgen05.wait::st`, is a data race.
//!
//! `tcgen05.mma.cta_group::1.kind::f16 [d], adesc, bdesc, idesc, enable-input-d`
//! (one thread): D = A·B, plus D when enabled, with A (M x 16) and B (16 x N) read from
//! shared memory through descriptors (the canonical layouts and swizzles of `wgmma`,
//! `element_offset`/`swizzle`, with this descriptor's fields: PTX ISA "Shared Memory
//! Descriptor") and the shape, types and majorness from the instruction descriptor. D
//! is in tensor memory: M = 128 puts row `r` in lane `r`, M = 64 in lane
//! `32(r / 16) + r % 16` (the ISA's data-path layouts D and F). Products of halves are
//! exact in f32; the sum is read as exact (`ptx::narrowings` states it).
//!
//! Order: each thread's tcgen05 operations run on its tensor-core pipe, an agent with
//! its own vector-clock component (`2·threads + t`, after the bulk-copy agents). An
//! mma runs at issue on the pipe, which starts where the thread is; its shared reads
//! are logged as the pipe's (a write by a thread not ordered after them, such as a
//! stage refilled before the mma is known complete, races), and so are its tensor-memory
//! reads and writes. `tcgen05.commit` arrives once on its mbarrier with the pipe's
//! clock, so only a thread that waited for that phase is ordered after the mma: a
//! `tcgen05.ld` of the accumulator by any other is a data race.
//!
//! Invariant: only the forms named above run, each checked against the ISA's
//! restrictions; `cta_group::2`, other kinds, shapes, packing, sparse or negated
//! operands, descriptor base offsets and `tcgen05.cp`/`shift` are `Unsupported` at
//! their line, never guessed.

use super::place::Place;
use super::wgmma::Desc;
use super::*;

const LANES: u64 = 128;
const COLUMNS: u64 = 512;

/// One access to a tensor-memory cell: by whom (a thread, or a pipe at
/// `2·threads + t`), in which barrier epoch, at which clock of its component, where.
#[derive(Clone, Copy, Debug)]
struct Access {
    who: usize,
    epoch: u32,
    clock: u32,
    pc: usize,
}

/// A written cell: its value, its last write, the reads since, and whether the write
/// is a `tcgen05.st` its thread has not yet waited for.
struct Cell<V> {
    val: Val<V>,
    write: Access,
    reads: Vec<Access>,
    unwaited: bool,
}

/// The tensor memory of the CTA being run and the state of its tcgen05 operations.
pub(super) struct Tmem<V> {
    /// Allocated column ranges: (first column, columns).
    allocs: Vec<(u64, u64)>,
    /// The `tcgen05.alloc` (instruction, thread) of each allocation, by first column.
    alloc_at: HashMap<u64, (usize, usize)>,
    /// Written cells by (lane, column).
    cells: FxHashMap<(u64, u64), Cell<V>>,
    /// Each thread's tensor-core pipe clock.
    pipes: HashMap<usize, VClock>,
    /// Registers of a `tcgen05.ld` not yet waited for, by thread: (instruction, registers).
    loads: HashMap<usize, (usize, Vec<u32>)>,
    /// Cells of `tcgen05.st`s not yet waited for, by thread.
    stores: HashMap<usize, Vec<(u64, u64)>>,
}

impl<V> Default for Tmem<V> {
    fn default() -> Self {
        Tmem {
            allocs: Vec::new(),
            alloc_at: HashMap::new(),
            cells: FxHashMap::default(),
            pipes: HashMap::new(),
            loads: HashMap::new(),
            stores: HashMap::new(),
        }
    }
}

/// A tcgen05 shared-memory descriptor (PTX ISA "Shared Memory Descriptor"): wgmma's
/// address fields with a version field and a 3-bit swizzle mode.
fn decode_desc(d: u64) -> Result<Desc, Fail> {
    if (d >> 46) & 7 != 1 {
        return fail(
            ErrorKind::Malformed,
            format!("tcgen05 shared memory descriptor {d:#x}: bits 46-48 must be 0b001"),
        );
    }
    if (d >> 49) & 7 != 0 {
        return unsupported(format!(
            "tcgen05 shared memory descriptor {d:#x} with a matrix base offset"
        ));
    }
    if (d >> 52) & 1 != 0 {
        return unsupported(format!(
            "tcgen05 shared memory descriptor {d:#x} with an absolute leading-dimension address"
        ));
    }
    // Swizzle mode (bits 61-63) as (16-byte units per swizzled row, swizzle bits).
    let (units, bits) = match d >> 61 {
        0 => (1, 0),
        2 => (8, 3),
        4 => (4, 2),
        6 => (2, 1),
        1 => {
            return unsupported(format!(
                "tcgen05 shared memory descriptor {d:#x}: 128-byte swizzle with 32-byte atoms"
            ))
        }
        m => {
            return fail(
                ErrorKind::Malformed,
                format!("tcgen05 shared memory descriptor {d:#x}: invalid swizzle mode {m}"),
            )
        }
    };
    Ok(Desc::with_swizzle(d, (units, bits)))
}

/// The instruction descriptor of a `.kind::f16` mma (PTX ISA "Instruction descriptor").
#[derive(Debug, PartialEq)]
struct Shape {
    m: u64,
    n: u64,
    ty: &'static str,
    a_mn_major: bool,
    b_mn_major: bool,
}

impl Shape {
    fn decode(d: u64) -> Result<Shape, Fail> {
        let field = |lo: u32, bits: u32| (d >> lo) & ((1 << bits) - 1);
        if field(2, 1) != 0 {
            return unsupported(format!(
                "sparse tcgen05.mma (instruction descriptor {d:#x})"
            ));
        }
        if field(4, 2) != 1 {
            return unsupported(format!(
                "tcgen05.mma with a D type other than f32 (instruction descriptor {d:#x})"
            ));
        }
        let ty = match (field(7, 3), field(10, 3)) {
            (0, 0) => "f16",
            (1, 1) => "bf16",
            (a, b) => {
                return unsupported(format!(
                    "tcgen05.mma .kind::f16 with A type {a} and B type {b} (instruction \
                     descriptor {d:#x}; lift runs f16 x f16 and bf16 x bf16)"
                ))
            }
        };
        if field(13, 2) != 0 {
            return unsupported(format!(
                "tcgen05.mma negating A or B (instruction descriptor {d:#x})"
            ));
        }
        if field(30, 2) != 0 || field(3, 1) != 0 {
            return unsupported(format!(
                "tcgen05.mma with saturation or a B-reuse shift (instruction descriptor {d:#x})"
            ));
        }
        if field(6, 1) != 0 || field(23, 1) != 0 || field(29, 1) != 0 || d >> 32 != 0 {
            return fail(
                ErrorKind::Malformed,
                format!("instruction descriptor {d:#x} sets reserved bits"),
            );
        }
        let (m, n) = (field(24, 5) << 4, field(17, 6) << 3);
        let ok = match m {
            64 => n % 8 == 0 && (8..=256).contains(&n),
            128 => n % 16 == 0 && (16..=256).contains(&n),
            _ => {
                return unsupported(format!(
                    "tcgen05.mma with M = {m} (lift runs M = 64 and 128)"
                ))
            }
        };
        if !ok {
            return fail(
                ErrorKind::Malformed,
                format!("tcgen05.mma M = {m} with N = {n} (instruction descriptor {d:#x})"),
            );
        }
        Ok(Shape {
            m,
            n,
            ty,
            a_mn_major: field(15, 1) == 1,
            b_mn_major: field(16, 1) == 1,
        })
    }

    /// The tensor-memory lane of row `r` of D (data-path layouts D and F).
    fn lane(&self, r: u64) -> u64 {
        match self.m {
            64 => 32 * (r / 16) + r % 16,
            _ => r,
        }
    }
}

/// Every register an operand names.
fn regs_in(o: &Operand, out: &mut Vec<u32>) {
    match o {
        Operand::Reg(r) => out.push(*r),
        Operand::Mem { base, .. } | Operand::Not(base) => regs_in(base, out),
        Operand::Vector(xs) => xs.iter().for_each(|x| regs_in(x, out)),
        Operand::Pair(a, b) => {
            regs_in(a, out);
            regs_in(b, out);
        }
        _ => {}
    }
}

impl<'a, D: Domain> Sim<'a, D> {
    /// `tcgen05.*` for thread `t`: the warp collectives block until their warp is there
    /// ([`Self::tcgen05_collective`]); `mma` and `commit` run for the one thread.
    pub(super) fn tcgen05(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<Flow, Fail> {
        self.synced = true;
        if self.path.is_some() {
            return unsupported(format!("{} under a data-dependent branch", ins.mnemonic()));
        }
        let kind = ins.mods.first().map_or("", String::as_str);
        let grouped = matches!(
            kind,
            "alloc" | "dealloc" | "relinquish_alloc_permit" | "mma" | "commit"
        );
        if grouped && !ins.has("cta_group::1") {
            return unsupported(format!(
                "{} (lift runs .cta_group::1: one CTA's tensor memory)",
                ins.mnemonic()
            ));
        }
        match kind {
            "alloc" | "dealloc" | "ld" | "st" => {
                if !ins.has("sync") || !ins.has("aligned") {
                    return unsupported(format!("{} without .sync.aligned", ins.mnemonic()));
                }
                let mask = self.lane_mask(t, None)?;
                Ok(Flow::Block(State::Collective(pc, mask)))
            }
            "relinquish_alloc_permit" => Ok(Flow::Next),
            // Ordering of tcgen05 operations around thread synchronisation: lift runs
            // them at issue and orders them by clocks.
            "fence::before_thread_sync" | "fence::after_thread_sync" => Ok(Flow::Next),
            "wait::ld" => {
                self.tmem.loads.remove(&t);
                Ok(Flow::Next)
            }
            "wait::st" => {
                for c in self.tmem.stores.remove(&t).unwrap_or_default() {
                    if let Some(cell) = self.tmem.cells.get_mut(&c) {
                        if cell.write.who == t {
                            cell.unwaited = false;
                        }
                    }
                }
                Ok(Flow::Next)
            }
            "mma" => self.tc_mma(t, pc, ins).map(|_| Flow::Next),
            "commit" => {
                if !ins.has("mbarrier::arrive::one")
                    || ins.mods.iter().any(|m| m.starts_with("multicast"))
                {
                    return unsupported(format!(
                        "{} (lift runs tcgen05.commit ... mbarrier::arrive::one to one mbarrier)",
                        ins.mnemonic()
                    ));
                }
                let vc = self.tmem.pipes.get(&t).cloned().unwrap_or_default();
                self.agent_arrive(t, pc, ins.operands.first(), &vc)?;
                Ok(Flow::Next)
            }
            _ => unsupported(format!(
                "{} (lift runs tcgen05 alloc, dealloc, relinquish_alloc_permit, ld, st, wait, \
                 fences, mma .kind::f16 and commit)",
                ins.mnemonic()
            )),
        }
    }

    /// Before thread `t` runs `ins`: naming a register a `tcgen05.ld` still writes races
    /// (another tcgen05 instruction included; only `tcgen05.wait::ld` may come first).
    pub(super) fn tcgen05_touch(&self, t: usize, ins: &Instr) -> Result<(), Fail> {
        let wait = ins.op == "tcgen05" && ins.mods.first().is_some_and(|m| m == "wait::ld");
        if self.tmem.loads.is_empty() || wait {
            return Ok(());
        }
        let Some((pc, regs)) = self.tmem.loads.get(&t) else {
            return Ok(());
        };
        let mut named = Vec::new();
        for o in &ins.operands {
            regs_in(o, &mut named);
        }
        if let Some((_, g)) = ins.guard {
            named.push(g);
        }
        match named.iter().find(|r| regs.contains(r)) {
            Some(r) => {
                let name = self
                    .entry
                    .regs
                    .get(*r as usize)
                    .map_or("?", |r| r.0.as_str());
                fail(
                    ErrorKind::Race,
                    format!(
                        "data race on register {name}: the `tcgen05.ld` at line {} writes it \
                         asynchronously and no `tcgen05.wait::ld` has waited for it, so this \
                         instruction may see either value",
                        self.line(*pc)
                    ),
                )
            }
            None => Ok(()),
        }
    }

    /// A warp collective `tcgen05.alloc/dealloc/ld/st` for the 32 lanes of `group`.
    pub(super) fn tcgen05_collective(&mut self, group: &[usize]) -> Result<(), Fail> {
        let State::Collective(pc, _) = self.threads[group[0]].state else {
            return Ok(());
        };
        let ins = &self.entry.body[pc];
        if group.len() != 32
            || group
                .iter()
                .any(|&u| self.threads[u].state != self.threads[group[0]].state)
        {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "{} at line {} needs all 32 lanes of the warp, {} are there",
                    ins.mnemonic(),
                    ins.line,
                    group.len()
                ),
            );
        }
        match ins.mods.first().map_or("", String::as_str) {
            "alloc" => self.tc_alloc(group[0], pc, ins),
            "dealloc" => self.tc_dealloc(group, ins),
            _ => self.tc_move(group, pc, ins),
        }
    }

    /// `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols`.
    fn tc_alloc(&mut self, u: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        let ops = &ins.operands;
        let (Some(dst), Some(n)) = (ops.first(), ops.get(1)) else {
            return fail(
                ErrorKind::Malformed,
                "tcgen05.alloc needs [dst] and a column count",
            );
        };
        let v = self.read(u, n, "u32")?;
        let cols = self.int(v, "u32")?;
        if !(32..=COLUMNS).contains(&cols) || !cols.is_power_of_two() {
            return fail(
                ErrorKind::Malformed,
                format!("tcgen05.alloc of {cols} columns (a power of two from 32 to 512)"),
            );
        }
        let allocs = &self.tmem.allocs;
        let Some(first) = (0..COLUMNS)
            .step_by(cols as usize)
            .find(|&c| allocs.iter().all(|&(f, k)| c + cols <= f || f + k <= c))
        else {
            return unsupported(format!(
                "tcgen05.alloc of {cols} columns with only part of the 512 free: the hardware \
                 waits for another CTA's dealloc, and lift runs one CTA at a time"
            ));
        };
        self.tmem.allocs.push((first, cols));
        self.tmem.alloc_at.insert(first, (pc, u));
        let Addr::At(a) = self.address(u, dst)? else {
            return unsupported("tcgen05.alloc to a data-dependent or parameter address");
        };
        if !matches!(self.place(u, a, 4, Some(Space::Shared))?, Place::Shared(..)) {
            return fail(
                ErrorKind::OutOfBounds,
                "tcgen05.alloc destination outside shared memory",
            );
        }
        // The address (lane 0, the first column) is written once for the warp.
        self.log_shared(u, pc, a, 4, true)?;
        self.effect(u);
        self.shared.insert(a, (Val::Bits(first), 4));
        Ok(())
    }

    /// The running CTA has exited: its tensor memory must all have been freed (the PTX
    /// ISA requires every `tcgen05.alloc` to be deallocated before the kernel exits).
    pub(super) fn tmem_at_exit(&self) -> Result<(), ExecError> {
        let Some(&(first, cols)) = self.tmem.allocs.first() else {
            return Ok(());
        };
        let (pc, u) = self.tmem.alloc_at.get(&first).copied().unwrap_or((0, 0));
        let [x, y, z] = self.cta;
        Err(self.err_at(
            u,
            pc,
            ErrorKind::Undefined,
            format!(
                "the {cols} columns of tensor memory this tcgen05.alloc gave out at line {} \
                 are still allocated when CTA ({x}, {y}, {z}) exits: no tcgen05.dealloc \
                 frees them, and the PTX ISA requires every allocation freed before the \
                 kernel exits (undefined behaviour)",
                self.line(pc)
            ),
        ))
    }

    /// `tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols`.
    fn tc_dealloc(&mut self, group: &[usize], ins: &Instr) -> Result<(), Fail> {
        let u = group[0];
        let ops = &ins.operands;
        let (Some(at), Some(n)) = (ops.first(), ops.get(1)) else {
            return fail(
                ErrorKind::Malformed,
                "tcgen05.dealloc needs an address and a column count",
            );
        };
        let (a, n) = (self.read(u, at, "b32")?, self.read(u, n, "u32")?);
        let (a, cols) = (self.int(a, "b32")?, self.int(n, "u32")?);
        let Some(i) = self
            .tmem
            .allocs
            .iter()
            .position(|&(f, k)| a == f && k == cols)
        else {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "tcgen05.dealloc of {cols} columns at tensor-memory address {a:#x}, which no \
                     tcgen05.alloc gave out"
                ),
            );
        };
        let (f, k) = self.tmem.allocs.remove(i);
        self.tmem.cells.retain(|&(_, c), _| c < f || c >= f + k);
        Ok(())
    }

    /// Whether `a` is ordered before an access by `who` with clock `vc`.
    fn tm_ordered(&self, a: &Access, who: usize, vc: &VClock) -> bool {
        a.who == who
            || (a.who < self.threads.len() && a.epoch < self.epoch)
            || vc.get(a.who) >= a.clock
    }

    fn who(&self, w: usize) -> String {
        let n = self.threads.len();
        if w >= 2 * n {
            let [x, y, z] = self.tid_of(w - 2 * n);
            format!("the tcgen05.mma issued by thread ({x}, {y}, {z})")
        } else {
            let [x, y, z] = self.tid_of(w);
            format!("thread ({x}, {y}, {z})")
        }
    }

    /// Read (`write` = None) or write one cell as `who` (clock `vc`) at `pc`.
    fn tm_access(
        &mut self,
        cell: (u64, u64),
        who: usize,
        vc: &VClock,
        pc: usize,
        write: Option<(Val<D::V>, bool)>,
    ) -> Result<Option<Val<D::V>>, Fail> {
        let (lane, col) = cell;
        if lane >= LANES
            || !self
                .tmem
                .allocs
                .iter()
                .any(|&(f, k)| f <= col && col < f + k)
        {
            return fail(
                ErrorKind::OutOfBounds,
                format!("tensor memory lane {lane}, column {col} is outside every tcgen05.alloc"),
            );
        }
        let now = Access {
            who,
            epoch: self.epoch,
            clock: vc.get(who),
            pc,
        };
        let what = format!("tensor memory lane {lane}, column {col}");
        let old = self.tmem.cells.get(&cell);
        if let Some(c) = old {
            if c.unwaited && (write.is_none() || c.write.who != who) {
                return fail(
                    ErrorKind::Race,
                    format!(
                        "data race on {what}: {} stores it at line {} and has not waited for \
                         the store (`tcgen05.wait::st`), so {} at line {} may see either value",
                        self.who(c.write.who),
                        self.line(c.write.pc),
                        self.who(who),
                        self.line(pc)
                    ),
                );
            }
            let earlier =
                std::iter::once(&c.write).chain(c.reads.iter().filter(|_| write.is_some()));
            for a in earlier {
                if !self.tm_ordered(a, who, vc) {
                    let how = if std::ptr::eq(a, &c.write) {
                        "writes"
                    } else {
                        "reads"
                    };
                    return fail(
                        ErrorKind::Race,
                        format!(
                            "data race on {what}: {} {how} it at line {} and {} {} it at line {}, \
                             unordered (the accumulator of a tcgen05.mma is ordered only for a \
                             thread that waited for the mbarrier phase its tcgen05.commit completes)",
                            self.who(a.who),
                            self.line(a.pc),
                            self.who(who),
                            if write.is_some() { "writes" } else { "reads" },
                            self.line(pc)
                        ),
                    );
                }
            }
        }
        match write {
            Some((val, unwaited)) => {
                self.tmem.cells.insert(
                    cell,
                    Cell {
                        val,
                        write: now,
                        reads: Vec::new(),
                        unwaited,
                    },
                );
                Ok(None)
            }
            None => {
                let Some(c) = self.tmem.cells.get_mut(&cell) else {
                    return fail(
                        ErrorKind::NeverWritten,
                        format!("read of {what}, which nothing wrote"),
                    );
                };
                c.reads.retain(|a| a.who != who);
                c.reads.push(now);
                Ok(Some(c.val))
            }
        }
    }

    /// `tcgen05.ld.sync.aligned.SHAPE.xN.b32 {r..}, [taddr]{, split}` and
    /// `tcgen05.st.sync.aligned.SHAPE.xN.b32 [taddr]{, split}, {r..}` for a warp.
    fn tc_move(&mut self, group: &[usize], pc: usize, ins: &Instr) -> Result<(), Fail> {
        let load = ins.has("ld");
        let shape = ins
            .mods
            .iter()
            .find(|m| m.as_str() == "32x32b" || m.as_str() == "16x32bx2");
        let num = ins
            .mods
            .iter()
            .find_map(|m| m.strip_prefix('x')?.parse::<u64>().ok());
        let plain = ins.mods.last().is_some_and(|m| m == "b32")
            && !ins.mods.iter().any(|m| m.contains("pack::"));
        let (Some(shape), Some(num), true) = (shape, num, plain) else {
            return unsupported(format!(
                "{} (lift runs the .32x32b and .16x32bx2 shapes of .b32 without packing)",
                ins.mnemonic()
            ));
        };
        let pair = shape == "16x32bx2";
        let ops = &ins.operands;
        let want = if pair { 3 } else { 2 };
        if ops.len() != want {
            return fail(
                ErrorKind::Malformed,
                format!("{} needs {want} operands", ins.mnemonic()),
            );
        }
        let (regs, at, split) = if load {
            (&ops[0], &ops[1], ops.get(2))
        } else {
            (
                &ops[want - 1],
                &ops[0],
                if pair { ops.get(1) } else { None },
            )
        };
        let Operand::Vector(regs) = regs else {
            return fail(
                ErrorKind::Malformed,
                "tcgen05.ld/st registers must be a vector {..}",
            );
        };
        if regs.len() as u64 != num {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "{} needs {num} registers, not {}",
                    ins.mnemonic(),
                    regs.len()
                ),
            );
        }
        let split = match split {
            Some(Operand::Imm(s)) if (0..COLUMNS as i64).contains(s) => *s as u64,
            Some(_) => {
                return fail(
                    ErrorKind::Malformed,
                    "the .16x32bx2 split offset is an immediate column count below 512",
                )
            }
            None => 0,
        };
        let mut base = None;
        for &u in group {
            let Addr::At(a) = self.address(u, at)? else {
                return unsupported("tcgen05.ld/st at a data-dependent tensor-memory address");
            };
            if base.is_some_and(|b| b != a) {
                return fail(
                    ErrorKind::Malformed,
                    "tcgen05.ld/st address differs between lanes",
                );
            }
            base = Some(a);
        }
        let a = base.unwrap_or(0);
        let (lane0, col0) = ((a >> 16) & 0xffff, a & 0xffff);
        let quarter = 32 * (self.threads[group[0]].warp as u64 % 4);
        let rows = if pair { 16 } else { 32 };
        if lane0 < quarter || lane0 + rows > quarter + 32 {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "warp {} reaches tensor memory lanes {quarter} to {} only; {} at line {} \
                     accesses lanes {lane0} to {}",
                    self.threads[group[0]].warp,
                    quarter + 31,
                    ins.mnemonic(),
                    ins.line,
                    lane0 + rows - 1
                ),
            );
        }
        for &u in group {
            let l = self.threads[u].lane as u64;
            let vc = self.threads[u].vc.clone();
            let mut written = Vec::new();
            for (j, r) in regs.iter().enumerate() {
                let cell = if pair {
                    (lane0 + l % 16, col0 + j as u64 + (l / 16) * split)
                } else {
                    (lane0 + l, col0 + j as u64)
                };
                if load {
                    let v = self
                        .tm_access(cell, u, &vc, pc, None)?
                        .unwrap_or(Val::Bits(0));
                    self.write(u, r, v)?;
                    regs_in(r, &mut written);
                } else {
                    let v = self.read(u, r, "b32")?;
                    self.tm_access(cell, u, &vc, pc, Some((v, true)))?;
                    self.tmem.stores.entry(u).or_default().push(cell);
                }
            }
            if load {
                self.tmem.loads.insert(u, (pc, written));
            } else {
                self.effect(u);
            }
        }
        Ok(())
    }

    /// The 16-bit element at shared `addr` for the mma of thread `t`, from a cache of
    /// the 32-bit words read (each read once, logged as thread `t`'s read).
    fn tc_half(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        cache: &mut HashMap<u64, [Val<D::V>; 2]>,
    ) -> Result<Val<D::V>, Fail> {
        if !addr.is_multiple_of(2) {
            return fail(
                ErrorKind::Malformed,
                format!("tcgen05.mma operand element at odd shared address {addr:#x}"),
            );
        }
        let word = addr & !3;
        if let std::collections::hash_map::Entry::Vacant(e) = cache.entry(word) {
            let w = self.load_one(t, pc, word, 4, Some(Space::Shared), "b32")?;
            let hs = self.halves(w)?;
            e.insert(hs);
        }
        Ok(cache[&word][((addr >> 1) & 1) as usize])
    }

    /// `tcgen05.mma.cta_group::1.kind::f16 [d], adesc, bdesc, idesc, enable-input-d`
    /// issued by thread `t` (see the module doc).
    fn tc_mma(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        if ins.mods.len() != 3 || !ins.has("kind::f16") {
            return unsupported(format!(
                "{} (lift runs tcgen05.mma.cta_group::1.kind::f16)",
                ins.mnemonic()
            ));
        }
        let ops = &ins.operands;
        if ops.len() != 5 {
            return unsupported(format!(
                "{} with {} operands (a disable-output-lane mask or scale input)",
                ins.mnemonic(),
                ops.len()
            ));
        }
        if matches!(ops[1], Operand::Mem { .. }) {
            return unsupported("tcgen05.mma with A in tensor memory");
        }
        let Addr::At(d) = self.address(t, &ops[0])? else {
            return unsupported("tcgen05.mma at a data-dependent tensor-memory address");
        };
        let int = |s: &mut Self, i: usize, ty: &str| -> Result<u64, Fail> {
            let v = s.read(t, &ops[i], ty)?;
            s.int(v, ty)
        };
        let adesc = int(self, 1, "b64")?;
        let bdesc = int(self, 2, "b64")?;
        let shape = Shape::decode(int(self, 3, "b32")?)?;
        let v = self.read(t, &ops[4], "pred")?;
        let Truth::Known(enable) = self.truth(v)? else {
            return unsupported("tcgen05.mma with a data-dependent enable-input-d");
        };
        if (d >> 16) & 0xffff != 0 {
            return unsupported(format!(
                "tcgen05.mma into tensor-memory lane {} (lift runs D from lane 0)",
                (d >> 16) & 0xffff
            ));
        }
        if self
            .vars
            .iter()
            .any(|v| v.space == Space::Shared && v.addr + v.bytes > 0x40000)
        {
            return unsupported(
                "tcgen05 descriptors address 256 KiB of shared memory; lift laid out shared \
                 variables beyond it",
            );
        }
        let (da, db) = (decode_desc(adesc)?, decode_desc(bdesc)?);
        let (m, n, ty) = (shape.m, shape.n, shape.ty);
        // The pipe starts where the thread is, as a new event of its own.
        let pipe = 2 * self.threads.len() + t;
        let mut vc = self.tmem.pipes.remove(&t).unwrap_or_default();
        vc.join(&self.threads[t].vc);
        vc.tick(pipe);
        self.tmem.pipes.insert(t, vc.clone());
        let mut cache = HashMap::new();
        let mut a = Vec::with_capacity((m * 16) as usize);
        for r in 0..m {
            for k in 0..16 {
                let h = self.tc_half(t, pc, da.at(shape.a_mn_major, r, k), &mut cache)?;
                a.push(self.half_value(h, ty)?);
            }
        }
        let mut b = Vec::with_capacity((16 * n) as usize);
        for k in 0..16 {
            for c in 0..n {
                let h = self.tc_half(t, pc, db.at(shape.b_mn_major, c, k), &mut cache)?;
                b.push(self.half_value(h, ty)?);
            }
        }
        // The pipe's reads, which last until a waiter of its commit is ordered after them.
        if self.races {
            let mut words: Vec<u64> = cache.keys().copied().collect();
            words.sort_unstable();
            for w in words {
                let mut r = self.rec(t, pc, w, 4, false);
                r.thread = pipe;
                r.clock = vc.get(pipe);
                r.tag = None;
                r.cond = None;
                self.shared_log.entry(w).or_default().reads.push(r);
            }
        }
        let col0 = d & 0xffff;
        for r in 0..m {
            let lane = shape.lane(r);
            for c in 0..n {
                let cell = (lane, col0 + c);
                let mut terms = Vec::with_capacity(17);
                if enable {
                    let old = self.tm_access(cell, pipe, &vc, pc, None)?;
                    let old = old.unwrap_or(Val::Bits(0));
                    terms.push(self.float(old, "f32")?);
                }
                for k in 0..16 {
                    let (x, y) = (a[(r * 16 + k) as usize], b[(k * n + c) as usize]);
                    terms.push(self.domain.binary(Binary::Mul, x, y));
                }
                let v = self.domain.sum(&terms);
                self.tm_access(cell, pipe, &vc, pc, Some((Val::Float(v), false)))?;
            }
        }
        self.effect(t);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Triton's sm_100 fp16 matmul (ptx/triton/matmul_f16_sm100.ptx): M = N = 64, f32
    /// D, f16 A and B, B N-major; its A descriptor has the 64-byte swizzle and SBO 512,
    /// its B descriptor the 128-byte swizzle and SBO 1024.
    #[test]
    fn triton_descriptors_decode_per_the_isa_tables() {
        let s = Shape::decode(68222992).unwrap();
        assert_eq!(
            s,
            Shape {
                m: 64,
                n: 64,
                ty: "f16",
                a_mn_major: false,
                b_mn_major: true
            }
        );
        let hi = |w: u32| (w as u64) << 32;
        let a = decode_desc(hi(0x8000_4020) | 0x100).unwrap();
        assert_eq!((a.start, a.sbo, a.units, a.bits), (0x1000, 512, 4, 2));
        let b = decode_desc(hi(0x4000_4040)).unwrap();
        assert_eq!((b.sbo, b.units, b.bits), (1024, 8, 3));
        // Bits 46-48 other than 0b001, a base offset, mode 1, an invalid mode.
        assert!(decode_desc(hi(0x8000_0020)).is_err());
        assert!(decode_desc(hi(0x8002_4020)).is_err());
        assert!(decode_desc(hi(0x2000_4020)).is_err());
        assert!(decode_desc(hi(0x6000_4020)).is_err());
        // f16 D, negated A, M = 32, bf16 A with f16 B are refused.
        assert!(Shape::decode(68222992 & !(3 << 4)).is_err());
        assert!(Shape::decode(68222992 | 1 << 13).is_err());
        assert!(Shape::decode((68222992 & !(0x1f << 24)) | 2 << 24).is_err());
        assert!(Shape::decode(68222992 | 1 << 7).is_err());
    }

    /// Data-path layout F (M = 64): rows 16w..16w+15 in lanes 32w..32w+15.
    #[test]
    fn m64_rows_take_the_first_half_of_each_warp_quarter() {
        let s = Shape::decode(68222992).unwrap();
        let lanes: Vec<u64> = [0, 15, 16, 31, 47, 63].iter().map(|&r| s.lane(r)).collect();
        assert_eq!(lanes, [0, 15, 32, 47, 79, 111]);
    }
}
