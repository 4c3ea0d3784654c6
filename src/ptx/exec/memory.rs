//! Memory: address resolution (tensors, shared/local/module variables, bounds),
//! loads, stores and asynchronous copies (`cp.async` and its groups).
//!
//! Invariant: every shared and global access goes through the race log
//! (`race`) before its value is read or written; an access outside a
//! tensor or variable is `OutOfBounds`, a read of memory nobody wrote is
//! `NeverWritten` (never a silent zero).

use super::place::{Place, GATHER_UNSUPPORTED};
use super::*;

/// A parameter's value as `ld.param` of type `ty` (`size` bytes) leaves it: a signed
/// type sign-extends to the destination's width (PTX `ld`); the bits of a 32-bit
/// register above its width are never read.
fn param_extend<V>(v: Val<V>, ty: &str, size: usize) -> Val<V> {
    match (v, ty) {
        (Val::Bits(b), "s8" | "s16" | "s32") => {
            Val::Bits(super::values::sext(b, 8 * size as u32) as u64)
        }
        (v, _) => v,
    }
}

impl<'a, D: Domain> Sim<'a, D> {
    // ----- asynchronous copies -----

    /// `cp.async` global → shared and its group operations. The global read happens
    /// at issue (inputs are read-only); the shared write waits in the thread's open
    /// group and lands at the `cp.async.wait_group`/`wait_all` that covers it, so a
    /// read before the wait does not see it.
    pub(super) fn cp_async(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        if !ins.has("async") || ins.mods.iter().any(|m| m.starts_with("bulk")) {
            return unsupported(format!("unsupported: {}", ins.mnemonic()));
        }
        if ins.has("commit_group") {
            let g = std::mem::take(&mut self.threads[t].async_open);
            self.threads[t].async_groups.push(g);
            return Ok(());
        }
        if ins.has("wait_group") || ins.has("wait_all") {
            // wait_all is commit_group + wait_group 0.
            let keep = if ins.has("wait_all") {
                let g = std::mem::take(&mut self.threads[t].async_open);
                self.threads[t].async_groups.push(g);
                0
            } else {
                let Some(o) = ins.operands.first() else {
                    return fail(ErrorKind::Malformed, "cp.async.wait_group needs N");
                };
                let v = self.read(t, o, "u32")?;
                self.int(v, "u32")? as usize
            };
            let groups = &mut self.threads[t].async_groups;
            let done: Vec<_> = groups.drain(..groups.len().saturating_sub(keep)).collect();
            for (addr, v) in done.into_iter().flatten() {
                self.land(t, pc, addr, v)?;
            }
            return Ok(());
        }
        let shared = ins.has("shared") || ins.has("shared::cta");
        if !(ins.has("ca") || ins.has("cg")) || !shared || !ins.has("global") {
            return unsupported(format!("unsupported: {}", ins.mnemonic()));
        }
        if ins.has("L2::cache_hint") || ins.operands.len() > 4 {
            return unsupported("cp.async with a cache policy");
        }
        let ops = &ins.operands;
        if ops.len() < 3 {
            return fail(ErrorKind::Malformed, "cp.async needs [dst], [src], cp-size");
        }
        let v = self.read(t, &ops[2], "u32")?;
        let cp_size = self.int(v, "u32")?;
        if !matches!(cp_size, 4 | 8 | 16) {
            return fail(ErrorKind::Malformed, format!("cp.async cp-size {cp_size}"));
        }
        // The fourth operand is src-size (an integer) or ignore-src (a predicate).
        let src_size = match ops.get(3) {
            None => cp_size,
            Some(o) => match self.read(t, o, "u32")? {
                Val::Pred(ignore) => {
                    if ignore {
                        0
                    } else {
                        cp_size
                    }
                }
                Val::Cond(_) => return unsupported("cp.async with a data-dependent ignore-src"),
                v => self.int(v, "u32")?,
            },
        };
        if src_size > cp_size {
            return fail(
                ErrorKind::Malformed,
                format!("cp.async src-size {src_size} > cp-size {cp_size} (undefined behaviour)"),
            );
        }
        if src_size % 4 != 0 {
            return unsupported(format!(
                "cp.async src-size {src_size} (not whole 32-bit words)"
            ));
        }
        let (Addr::At(dst), Addr::At(src)) = (self.address(t, &ops[0])?, self.address(t, &ops[1])?)
        else {
            return unsupported("cp.async at a data-dependent or parameter address");
        };
        for k in 0..cp_size / 4 {
            let to = dst + 4 * k;
            if !matches!(
                self.place(t, to, 4, Some(Space::Shared))?,
                Place::Shared(..)
            ) {
                return fail(
                    ErrorKind::OutOfBounds,
                    "cp.async destination outside shared memory",
                );
            }
            // Bytes beyond src-size are zero.
            let v = if 4 * k < src_size {
                self.load_one(t, pc, src + 4 * k, 4, Some(Space::Global), "b32")?
            } else {
                Val::Bits(0)
            };
            // The write may land any time until the wait: it conflicts from the issue on.
            self.log_shared(t, pc, to, 4, true)?;
            self.threads[t].async_open.push((to, v));
        }
        Ok(())
    }

    /// A `cp.async` write landing at instruction `pc` (its wait, or the thread's exit).
    pub(super) fn land(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        v: Val<D::V>,
    ) -> Result<(), Fail> {
        self.log_shared(t, pc, addr, 4, true)?;
        self.shared.insert(addr, (v, 4));
        Ok(())
    }

    /// A thread that exits with copies in flight: nothing can wait for them any more,
    /// so they land at a time no other thread is ordered after (any later access to
    /// their bytes by another thread is a race).
    pub(super) fn land_all(&mut self, t: usize, pc: usize) -> Result<(), Fail> {
        let th = &mut self.threads[t];
        let mut all: Vec<_> = std::mem::take(&mut th.async_groups)
            .into_iter()
            .flatten()
            .collect();
        all.append(&mut th.async_open);
        for (addr, v) in all {
            self.land(t, pc, addr, v)?;
            if let Some(w) = self
                .shared_log
                .get_mut(&(addr & !3))
                .and_then(|l| l.writes.last_mut())
            {
                w.epoch = u32::MAX;
                w.clock = u32::MAX;
            }
        }
        Ok(())
    }

    // ----- memory -----

    pub(super) fn place(
        &self,
        t: usize,
        addr: u64,
        size: u64,
        space: Option<Space>,
    ) -> Result<Place, Fail> {
        let tensor = (addr >> TENSOR_SHIFT) as usize;
        // `.const` too: a `__constant__` variable the launch binds to a tensor.
        if tensor >= 1 && matches!(space, None | Some(Space::Global) | Some(Space::Const)) {
            let i = tensor - 1;
            let off = addr & ((1 << TENSOR_SHIFT) - 1);
            let Some(td) = self.inst.tensors.get(i) else {
                return fail(
                    ErrorKind::OutOfBounds,
                    format!("address {addr:#x} is in no tensor"),
                );
            };
            let e = td.dtype.bytes();
            let bytes = td.numel() as u64 * e;
            if off + size > bytes {
                return fail(
                    ErrorKind::OutOfBounds,
                    format!(
                        "global access of {size} bytes at byte {off} of `{}` (element {}), outside its {} elements of {e} bytes ({})",
                        td.name,
                        off as i64 / e as i64,
                        td.numel(),
                        td.dtype
                    ),
                );
            }
            return Ok(Place::Tensor(i, off));
        }
        if self.cluster.is_some() && Self::window(addr).is_some() {
            return unsupported("this access to distributed shared memory (a `mapa` address)");
        }
        for (vi, v) in self.vars.iter().enumerate() {
            if addr >= v.addr && addr < v.addr + v.bytes.max(1) {
                if addr + size > v.addr + v.bytes {
                    return fail(
                        ErrorKind::OutOfBounds,
                        format!(
                            "access at byte {} of `{}` overruns its {} bytes",
                            addr - v.addr,
                            v.name,
                            v.bytes
                        ),
                    );
                }
                let ok = match (v.space, space) {
                    (_, None) => true,
                    (Space::Param, _) => false,
                    (a, Some(b)) => a == b,
                };
                if !ok {
                    return fail(
                        ErrorKind::OutOfBounds,
                        format!("`{}` accessed in the wrong state space", v.name),
                    );
                }
                return match v.space {
                    Space::Shared => Ok(Place::Shared(vi, addr - v.addr)),
                    Space::Local => Ok(Place::Local(addr)),
                    _ if v.init.is_some() => Ok(Place::Init(vi, addr - v.addr)),
                    _ => unsupported(format!("access to module variable `{}`", v.name)),
                };
            }
        }
        let _ = t;
        fail(
            ErrorKind::OutOfBounds,
            format!(
                "address {addr:#x} is outside every tensor and {} variable",
                match space {
                    Some(Space::Shared) => "shared",
                    Some(Space::Local) => "local",
                    _ => "declared",
                }
            ),
        )
    }

    pub(super) fn space_of(ins: &Instr) -> Option<Space> {
        for m in &ins.mods {
            return Some(match m.as_str() {
                "global" => Space::Global,
                "shared" => Space::Shared,
                "local" => Space::Local,
                "param" => Space::Param,
                "const" => Space::Const,
                _ => continue,
            });
        }
        None
    }

    pub(super) fn address(&mut self, t: usize, op: &Operand) -> Result<Addr<D::V>, Fail> {
        let Operand::Mem { base, offset } = op else {
            return fail(ErrorKind::Malformed, "expected a memory operand [addr]");
        };
        match &**base {
            Operand::Sym(name) => {
                if let Some(i) = self.entry.params.iter().position(|p| &p.name == name) {
                    if *offset != 0 && self.entry.params[i].array.is_none() {
                        return unsupported("offsets into a scalar parameter");
                    }
                    return Ok(Addr::Param(i, *offset));
                }
                Ok(Addr::At(self.sym_addr(name)?.wrapping_add(*offset as u64)))
            }
            Operand::Imm(a) => Ok(Addr::At((*a as u64).wrapping_add(*offset as u64))),
            b => {
                let v = self.read(t, b, "u64")?;
                match v {
                    Val::Bits(a) if (PARAM_BASE..PARAM_BASE << 1).contains(&a) => {
                        let at = a.wrapping_add(*offset as u64) - PARAM_BASE;
                        let i = (at >> PARAM_SHIFT) as usize;
                        let off = (at & ((1 << PARAM_SHIFT) - 1)) as i64;
                        if off != 0 && self.entry.params.get(i).is_some_and(|p| p.array.is_none()) {
                            return unsupported("offsets into a scalar parameter");
                        }
                        Ok(Addr::Param(i, off))
                    }
                    Val::Bits(a) => Ok(Addr::At(a.wrapping_add(*offset as u64))),
                    Val::Sym(s) => Ok(Addr::Sym(s, *offset)),
                    _ => fail(ErrorKind::Malformed, "an address register holds no address"),
                }
            }
        }
    }

    pub(super) fn vec_len(ins: &Instr) -> usize {
        ins.mods
            .iter()
            .find_map(|m| match m.as_str() {
                "v2" => Some(2),
                "v4" => Some(4),
                "v8" => Some(8),
                _ => None,
            })
            .unwrap_or(1)
    }

    /// `ld.param` of fields of struct parameter `pi` at byte `off` (a vector load reads
    /// consecutive fields): each the launch's value for the field at that offset, in the
    /// load's type. A field the launch does not bind is a launch error naming the offset.
    fn load_fields(
        &mut self,
        t: usize,
        pi: usize,
        off: i64,
        ty: &str,
        size: usize,
        dsts: &[&Operand],
    ) -> Result<(), Fail> {
        let p = &self.entry.params[pi];
        for (j, d) in dsts.iter().enumerate() {
            let at = off + (j * size) as i64;
            let Some((k, a)) = u64::try_from(at).ok().and_then(|o| self.fields[pi].get(&o)) else {
                let bound: Vec<String> = self.fields[pi].keys().map(|o| o.to_string()).collect();
                return fail(
                    ErrorKind::Launch,
                    format!(
                        "the kernel reads byte {at} of struct parameter `{}` ({size}-byte .{ty}), a field the launch does not bind (bound offsets: {}); add `{at} = ...` to its `fields`",
                        p.name,
                        if bound.is_empty() { "none".to_string() } else { bound.join(", ") }
                    ),
                );
            };
            let v = arg_value(k, a, &p.name, ty, self.domain)?;
            self.write(t, d, param_extend(v, ty, size))?;
        }
        Ok(())
    }

    pub(super) fn load(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        let size = type_bytes(ty).unwrap_or(4);
        let space = Self::space_of(ins);
        let (Some(dst), Some(src)) = (ins.operands.first(), ins.operands.get(1)) else {
            return fail(
                ErrorKind::Malformed,
                "ld needs a destination and an address",
            );
        };
        // One destination on the stack (no list per scalar load).
        let (one, many): ([&Operand; 1], Vec<&Operand>);
        let dsts: &[&Operand] = match dst {
            Operand::Vector(xs) => {
                many = xs.iter().collect();
                &many
            }
            d => {
                one = [d];
                &one
            }
        };
        if dsts.len() != Self::vec_len(ins) && !(dsts.len() == 1 && Self::vec_len(ins) == 1) {
            return fail(ErrorKind::Malformed, "vector width and destinations differ");
        }
        let base = match self.address(t, src)? {
            Addr::Param(pi, off) if self.entry.params[pi].array.is_some() => {
                return self.load_fields(t, pi, off, ty, size as usize, dsts);
            }
            Addr::Param(pi, _) => {
                let v = param_extend(self.params[pi], ty, size as usize);
                return self.write(t, dsts[0], v);
            }
            Addr::At(a) => a,
            Addr::Sym(s, off) => {
                if space != Some(Space::Local) {
                    let read_only = ins.has("nc") || space == Some(Space::Const);
                    // Every address the load can reach lies in one initialised module
                    // table (so it reads no tensor and cannot fall out of bounds): an
                    // opaque, fingerprinted read is then exact enough to match a probe.
                    let span = (dsts.len() as i128) * size as i128;
                    let tables = self.domain.int_range(s).is_some_and(|(lo, hi)| {
                        let (lo, hi) = (lo + off as i128, hi + off as i128 + span);
                        self.vars.iter().any(|v| {
                            v.init.is_some()
                                && matches!(v.space, Space::Global | Space::Const)
                                && v.addr as i128 <= lo
                                && hi <= (v.addr + v.bytes) as i128
                        })
                    });
                    return match self.gather_load(t, s, off, size, space, dsts.to_vec()) {
                        Err((ErrorKind::Unsupported, m))
                            if read_only && tables && m.starts_with(GATHER_UNSUPPORTED) =>
                        {
                            self.table_load(t, s, off, size, &ins.mnemonic(), dsts.to_vec())
                        }
                        r => r,
                    };
                }
                // An opaque function of the address and the thread's whole local memory.
                let mut words: Vec<(u64, Val<D::V>)> = self.threads[t]
                    .local
                    .iter()
                    .map(|(a, v)| (*a, *v))
                    .collect();
                words.sort_by_key(|w| w.0);
                let mut args = vec![s, self.domain.bits(0)];
                for (a, v) in words {
                    args.push(self.domain.bits(a));
                    args.push(self.sym_arg(v, "b32")?);
                }
                let mn = ins.mnemonic();
                for (k, &d) in dsts.iter().enumerate() {
                    args[1] = self.domain.bits((off + k as i64 * size as i64) as u64);
                    let v = Val::Sym(self.opaque(&mn, &args)?);
                    self.write(t, d, v)?;
                }
                return Ok(());
            }
        };
        for (k, &d) in dsts.iter().enumerate() {
            let addr = base.wrapping_add(k as u64 * size);
            let v = self.load_one(t, pc, addr, size, space, ty)?;
            self.write(t, d, v)?;
        }
        Ok(())
    }

    pub(super) fn load_one(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        size: u64,
        space: Option<Space>,
        ty: &str,
    ) -> Result<Val<D::V>, Fail> {
        // Distributed shared memory: a peer CTA's bytes are read there (see `cluster`).
        let addr = match self.dsmem_load(t, pc, addr, size, ty)? {
            cluster::Dsmem::Loaded(v) => return Ok(v),
            cluster::Dsmem::Own(a) => a,
            cluster::Dsmem::Stored => addr,
        };
        match self.place(t, addr, size, space)? {
            Place::Tensor(i, off) => {
                self.log_global(t, pc, i, off, size, false)?;
                let e = self.elem_bytes(i);
                if size != e || off % e != 0 {
                    return self.load_bytes(t, pc, i, off, size, ty);
                }
                let flat = (off / e) as usize;
                match self.tensor_elem(i, flat) {
                    Some(v) => Ok(self.elem_to_val(i, v)),
                    None => {
                        let td = &self.inst.tensors[i];
                        let m = format!(
                            "read of `{}`{:?}, an output element no thread wrote before",
                            td.name,
                            td.unravel(flat)
                        );
                        Ok(self.uninit(t, pc, (off, size), m))
                    }
                }
            }
            Place::Shared(vi, off) => {
                self.own_copy_in_flight(t, addr, size, "reads")?;
                self.log_shared(t, pc, addr, size, false)?;
                if let Some(v) = self.shared_halves(addr, size)? {
                    return Ok(v);
                }
                // A byte of a word stored as known bits (Triton's partition flags).
                if size == 1 && (addr & 3 == 0 || !self.shared.contains_key(&addr)) {
                    if let Some(&(Val::Bits(w), 4)) = self.shared.get(&(addr & !3)) {
                        return Ok(Val::Bits((w >> (8 * (addr & 3))) & 0xff));
                    }
                }
                match self.shared.get(&addr) {
                    Some((v, s)) if *s == size => Ok(*v),
                    Some(_) => unsupported("shared access with a size different from its store"),
                    None => {
                        let m = format!(
                            "read of shared `{}[{}]` (byte {off}), which no thread wrote",
                            self.vars[vi].name,
                            off / size
                        );
                        Ok(self.uninit(t, pc, (addr, size), m))
                    }
                }
            }
            Place::Local(a) => match self.threads[t].local.get(&a) {
                Some(v) => Ok(*v),
                None => fail(ErrorKind::NeverWritten, "read of unwritten local memory"),
            },
            Place::Init(vi, off) => {
                let init = self.vars[vi].init.as_deref().unwrap_or(&[]);
                let mut b = 0u64;
                for k in (0..size.min(8)).rev() {
                    b = b << 8 | init.get((off + k) as usize).copied().unwrap_or(0) as u64;
                }
                Ok(Val::Bits(b))
            }
        }
    }

    /// Thread `t` accessing shared bytes that one of its own `cp.async` copies, not yet
    /// waited for, will write: the copy may land before or after the access, so the
    /// access may see either value (a read of a prefetch target before its wait, or a
    /// prefetch issued into a buffer still being read). Other threads' accesses race
    /// with the copy's landing, which `log_shared` checks; program order hides this one.
    pub(super) fn own_copy_in_flight(
        &self,
        t: usize,
        addr: u64,
        size: u64,
        what: &str,
    ) -> Result<(), Fail> {
        let th = &self.threads[t];
        let hit = th
            .async_open
            .iter()
            .chain(th.async_groups.iter().flatten())
            .any(|(a, _)| *a < addr + size && addr < *a + 4);
        if hit {
            return fail(
                ErrorKind::Race,
                format!(
                    "data race with the thread's own cp.async: it {what} shared byte \
                     {addr:#x} while its copy there is in flight (no cp.async.wait_group/\
                     wait_all orders them), so it may see either value"
                ),
            );
        }
        Ok(())
    }

    /// A read of memory nobody wrote yet: remember the error and go on with NaN, so
    /// that a write by another thread later in the epoch is reported as the race it is.
    pub(super) fn uninit(
        &mut self,
        t: usize,
        pc: usize,
        at: (u64, u64),
        message: String,
    ) -> Val<D::V> {
        if self.pending.is_none() {
            self.pending = Some(self.err_at(t, pc, ErrorKind::NeverWritten, message));
            self.pending_rec = Some(self.rec(t, pc, at.0, at.1, false));
        }
        Val::Float(self.domain.constant(f64::NAN))
    }

    pub(super) fn store(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        let size = type_bytes(ty).unwrap_or(4);
        let space = Self::space_of(ins);
        let (Some(dst), Some(src)) = (ins.operands.first(), ins.operands.get(1)) else {
            return fail(ErrorKind::Malformed, "st needs an address and a value");
        };
        let srcs: Vec<&Operand> = match src {
            Operand::Vector(xs) => xs.iter().collect(),
            s => vec![s],
        };
        let base = match self.address(t, dst)? {
            Addr::Param(..) => return unsupported("stores to parameters"),
            Addr::Sym(..) => {
                return unsupported(
                    "a store at a data-dependent address (a scatter; only loads are split over the index values)",
                )
            }
            Addr::At(a) => a,
        };
        for (k, s) in srcs.into_iter().enumerate() {
            let v = self.read(t, s, ty)?;
            let addr = match self.dsmem_store(t, pc, base.wrapping_add(k as u64 * size), size, v)? {
                cluster::Dsmem::Own(a) => a,
                _ => continue,
            };
            match self.place(t, addr, size, space)? {
                Place::Tensor(i, off) => {
                    let e = self.elem_bytes(i);
                    let td = &self.inst.tensors[i];
                    if td.role == Role::In {
                        return fail(
                            ErrorKind::WriteToInput,
                            format!(
                                "store into `{}`{:?}, which the launch declares as an input",
                                td.name,
                                td.unravel((off / e) as usize)
                            ),
                        );
                    }
                    self.store_val = Some(v);
                    let logged = self.log_global(t, pc, i, off, size, true);
                    self.store_val = None;
                    logged?;
                    let site = match self.sites.get(&pc) {
                        Some(&s) => s,
                        None => {
                            self.store_sites.push(StoreSite {
                                line: ins.line,
                                loc: ins.loc.clone(),
                            });
                            let s = self.store_sites.len() - 1;
                            self.sites.insert(pc, s);
                            s
                        }
                    };
                    self.foreign_write(t, LocKey::Global(i, off))?;
                    if size != e || off % e != 0 {
                        self.store_bytes(i, off, size, v, ty, site)?;
                        continue;
                    }
                    let ev = match self.val_to_elem(i, v, ty) {
                        Err((ErrorKind::Unsupported, _)) if self.untyped_stores => {
                            self.untyped_elem(i, v, ty)?
                        }
                        r => r?,
                    };
                    let flat = (off / e) as usize;
                    self.note(Cell::Global(i, flat));
                    self.global[i][flat] = Some((ev, site));
                }
                Place::Shared(_, _) => {
                    self.own_copy_in_flight(t, addr, size, "writes")?;
                    self.store_val = Some(v);
                    let logged = self.log_shared(t, pc, addr, size, true);
                    self.store_val = None;
                    logged?;
                    self.foreign_write(t, LocKey::Shared(addr))?;
                    self.note(Cell::Shared(addr));
                    self.shared.insert(addr, (v, size));
                }
                Place::Local(a) => {
                    self.threads[t].local.insert(a, v);
                    self.threads[t].changes += 1;
                }
                Place::Init(vi, _) => {
                    return unsupported(format!(
                        "a store into the initialised module variable `{}`",
                        self.vars[vi].name
                    ))
                }
            }
        }
        Ok(())
    }
}
