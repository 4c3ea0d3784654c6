//! Atomics: `atom` and `red` (add, inc, dec, min, max, exch, cas, and, or, xor) on
//! shared and global memory, their scope (`.cta`, `.gpu`, `.sys`) and ordering
//! (`.relaxed`, `.acquire`, `.release`, `.acq_rel`) qualifiers, and spin locks.
//!
//! Invariants:
//! - An atomic is one indivisible read-modify-write, logged as an atomic write:
//!   atomics never race with each other and race with plain accesses to the same
//!   bytes (`race::check`).
//! - Values: the executor runs one schedule (threads in index order, each until it
//!   blocks). A memory value built by unordered atomics of one commutative kind
//!   (add, min, max, and, or, xor) is the same in every order over the reals of docs/semantics.md
//!   (the verdict states that the order was read as irrelevant, `ptx::atomic_notes`).
//!   Two unordered atomics that do not commute (exch and add, two exchs), or a
//!   returned old value that another unordered atomic changes (a ticket counter), make
//!   the result depend on the schedule: `Unsupported` naming both, never one order's
//!   answer. The one exception is a spin lock (below), whose old values only decide
//!   when a thread gets in.
//! - Spin locks: a `cas` inside a retry loop (a guarded `bra` back over it within a
//!   few instructions) that finds the compare value takes the lock; the holder writing
//!   the compare value back (`exch`, `cas`) gives it back. Plain accesses of two
//!   threads made while holding the same lock are ordered when the PTX memory model
//!   orders them: taken with `.acquire`/`.acq_rel` or followed by a fence (`membar`,
//!   `fence.sc`/`fence.acq_rel`) before the access, and given back with
//!   `.release`/`.acq_rel` or after a fence that follows the access; `.cta` scope only
//!   orders threads of one CTA. Any other write to a held lock breaks it, and every
//!   pair it was protecting is a race. A `cas` that fails to take a lock blocks its
//!   thread until the lock word changes (no busy loop); a lock nobody can give back is
//!   a `Deadlock`.

use super::place::Place;
use super::*;
use std::collections::HashSet;

/// One atomic of the current window (shared: since the last barrier; global: this
/// CTA's epoch and every other CTA).
pub(super) struct ARec<V> {
    rec: Rec<V>,
    kind: &'static str,
    returns: bool,
    modifies: bool,
    spin: bool,
}

/// A lock a thread holds.
#[derive(Clone, Debug)]
pub(super) struct Hold {
    pub(super) key: LocKey,
    pub(super) id: u64,
    /// The value that gives it back (the `cas` compare value).
    free: u64,
    /// Acquire-ordered: taken with `.acquire`, or a fence ran since.
    pub(super) entered: bool,
    /// A plain access under the hold since the last fence.
    pub(super) dirty: bool,
    /// Some ordering of this hold has only `.cta` scope.
    pub(super) cta_scope: bool,
}

pub(super) struct Locks<V> {
    /// Words some spin `cas` has operated on.
    spin_words: HashSet<LocKey>,
    /// Locks broken by a foreign write while held.
    broken: HashSet<LocKey>,
    /// Holds given back without a release ordering after their last access.
    unfenced: HashSet<u64>,
    /// Holds whose scope is `.cta` only.
    cta_scoped: HashSet<u64>,
    /// Pairs of accesses ordered only by a lock: (lock, the later hold, race message).
    reliance: Vec<(LocKey, u64, String, Clash)>,
    next_hold: u64,
    /// Writes per word, to wake spinning threads.
    pub(super) versions: HashMap<LocKey, u64>,
    pub(super) atoms: HashMap<LocKey, Vec<ARec<V>>>,
    live: Option<HashSet<u32>>,
    /// Why the last lock check ordered nothing (for the race message).
    pub(super) note: Option<&'static str>,
}

impl<V> Default for Locks<V> {
    fn default() -> Self {
        Locks {
            spin_words: HashSet::new(),
            broken: HashSet::new(),
            unfenced: HashSet::new(),
            cta_scoped: HashSet::new(),
            reliance: Vec::new(),
            next_hold: 0,
            versions: HashMap::new(),
            atoms: HashMap::new(),
            live: None,
            note: None,
        }
    }
}

impl<V> Locks<V> {
    /// A new CTA: its shared words are new memory.
    pub(super) fn new_cta(&mut self) {
        let global = |k: &LocKey| matches!(k, LocKey::Global(..));
        self.spin_words.retain(global);
        self.broken.retain(global);
        self.versions.retain(|k, _| global(k));
        self.atoms.retain(|k, _| global(k));
    }
}

const KINDS: &[&str] = &[
    "add", "inc", "dec", "min", "max", "exch", "cas", "and", "or", "xor",
];

/// Kinds whose unordered applications give one value in any order.
fn commutes(a: &str, b: &str) -> bool {
    a == b && matches!(a, "add" | "min" | "max" | "and" | "or" | "xor")
}

/// Registers whose value may reach an effect (an atom whose destination is not among
/// them returns nothing anyone sees). A register read by an instruction with an effect
/// beyond its destinations (a store, an address, a branch, a guard, an atomic, a call…)
/// is live, and so are the sources of a pure register instruction (`mov`, `add`,
/// `cvt`, ... see `uses::PURE`) whose destination is live: a fixpoint over the body,
/// flow-insensitive (a register name is one variable), so it over-approximates. The
/// transitive step matters for -G builds, where an ignored `atomicAdd` result still
/// flows through the inlined wrappers' parameter moves into a register nobody reads.
fn live_regs(entry: &Entry) -> HashSet<u32> {
    fn collect(op: &Operand, out: &mut Vec<u32>) {
        match op {
            Operand::Reg(r) => out.push(*r),
            Operand::Mem { base, .. } => collect(base, out),
            Operand::Vector(xs) => xs.iter().for_each(|x| collect(x, out)),
            Operand::Pair(a, b) => {
                collect(a, out);
                collect(b, out);
            }
            Operand::Not(x) => collect(x, out),
            _ => {}
        }
    }
    // Per instruction: (destination registers if it is pure, registers it reads).
    let mut pure: Vec<(Vec<u32>, Vec<u32>)> = Vec::new();
    let mut out = HashSet::new();
    for ins in &entry.body {
        if let Some((_, g)) = ins.guard {
            out.insert(g);
        }
        // Operand 0 is a destination except for stores, reductions and the like.
        let skip_first = !matches!(
            ins.op.as_str(),
            "st" | "red" | "bra" | "cp" | "bar" | "barrier"
        );
        let mut reads = Vec::new();
        let mut dsts = Vec::new();
        for (k, op) in ins.operands.iter().enumerate() {
            if k == 0 && skip_first {
                match op {
                    Operand::Mem { .. } => collect(op, &mut reads),
                    _ => collect(op, &mut dsts),
                }
                continue;
            }
            collect(op, &mut reads);
        }
        if super::uses::PURE.contains(&ins.op.as_str()) && !dsts.is_empty() {
            pure.push((dsts, reads));
        } else {
            out.extend(reads);
        }
    }
    loop {
        let before = out.len();
        for (dsts, reads) in &pure {
            if dsts.iter().any(|d| out.contains(d)) {
                out.extend(reads.iter().copied());
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

/// A `cas` at `pc` inside a retry loop: walking on from it through register code and
/// unconditional jumps (guarded forward branches are the loop's exits, not taken), a
/// branch back to it or before it within a few instructions. -G builds reach the back
/// branch through the inlined `atomicCAS` wrappers' returns and a `bra.uni` chain. Any
/// memory access other than the thread's own `.local`/`.param` space on the way means
/// the loop does more than retry (a loop over elements that happens to hold a CAS), so
/// the answer is no.
pub(crate) fn in_retry_loop(entry: &Entry, pc: usize) -> bool {
    let mut q = pc + 1;
    for _ in 0..32 {
        let Some(ins) = entry.body.get(q) else {
            return false;
        };
        match ins.op.as_str() {
            "bra" => {
                let to = match ins.operands.first() {
                    Some(Operand::Sym(l)) => entry.labels.get(l).copied(),
                    _ => None,
                };
                let Some(to) = to else {
                    return false;
                };
                if to <= pc {
                    return true;
                }
                if ins.guard.is_none() {
                    q = to;
                    continue;
                }
            }
            "ld" | "st" | "ldu" if !(ins.has("local") || ins.has("param")) => {
                return false;
            }
            "atom" | "red" | "cp" | "bar" | "barrier" | "membar" | "fence" | "ret" | "exit"
            | "trap" | "call" => return false,
            _ => {}
        }
        q += 1;
    }
    false
}

impl<'a, D: Domain> Sim<'a, D> {
    /// Plain access by thread `t`: the locks it holds in an acquire-ordered way.
    /// Also whether some held lock is not acquire-ordered (taken by a relaxed atomic
    /// with no fence since).
    pub(super) fn held_locks(&mut self, t: usize) -> (Vec<(LocKey, u64)>, bool) {
        let mut out = Vec::new();
        let mut unordered = false;
        for h in &mut self.threads[t].holds {
            h.dirty = true;
            if h.entered {
                out.push((h.key, h.id));
            } else {
                unordered = true;
            }
        }
        (out, unordered)
    }

    /// `membar` / `fence`: orders the holds' accesses before their release and after
    /// their acquire.
    pub(super) fn fence(&mut self, t: usize, ins: &Instr) {
        if ins.op == "fence" && !(ins.has("sc") || ins.has("acq_rel")) {
            return; // proxy fences and mbarrier_init order nothing here
        }
        let cta = ins.has("cta");
        for h in &mut self.threads[t].holds {
            h.entered = true;
            h.dirty = false;
            h.cta_scope |= cta;
            if cta {
                self.locks.cta_scoped.insert(h.id);
            }
        }
    }

    /// Whether a lock both accesses held orders them; records the reliance.
    pub(super) fn lock_orders(
        &mut self,
        a: &Rec<D::V>,
        r: &Rec<D::V>,
        msg: &str,
        clash: Clash,
    ) -> bool {
        for (ka, ha) in &a.locks {
            for (kb, hb) in &r.locks {
                if ka != kb || ha == hb {
                    continue;
                }
                if self.locks.broken.contains(ka) {
                    self.locks.note = Some("the spin lock both held was written while held");
                    continue;
                }
                // A shared lock word is one per CTA.
                if matches!(ka, LocKey::Shared(_)) && a.cta != r.cta {
                    continue;
                }
                if self.locks.unfenced.contains(ha) {
                    self.locks.note = Some(
                        "both held a spin lock, but the first gave it back with a relaxed \
                         atomic and no fence (membar/fence) or .release after its access, so \
                         the lock orders nothing",
                    );
                    continue;
                }
                let cross = a.cta != r.cta;
                if cross
                    && (self.locks.cta_scoped.contains(ha) || self.locks.cta_scoped.contains(hb))
                {
                    self.locks.note = Some(
                        "both held a spin lock, but with .cta scope, which orders one CTA only",
                    );
                    continue;
                }
                self.locks.reliance.push((*kb, *hb, msg.to_string(), clash));
                return true;
            }
        }
        false
    }

    fn key_of(place: &Place, addr: u64) -> Option<LocKey> {
        match place {
            Place::Tensor(i, off) => Some(LocKey::Global(*i, *off)),
            Place::Shared(..) => Some(LocKey::Shared(addr)),
            _ => None,
        }
    }

    pub(super) fn bump(&mut self, key: LocKey) {
        *self.locks.versions.entry(key).or_insert(0) += 1;
    }

    /// A write to `key` that is not a lock operation: breaks a held lock.
    pub(super) fn foreign_write(&mut self, t: usize, key: LocKey) -> Result<(), Fail> {
        self.bump(key);
        if !self.locks.spin_words.contains(&key) {
            return Ok(());
        }
        let _ = t;
        let held = self
            .threads
            .iter()
            .any(|th| th.holds.iter().any(|h| h.key == key));
        if held {
            self.locks.broken.insert(key);
            if let Some((_, _, m, c)) = self.locks.reliance.iter().find(|r| r.0 == key) {
                self.clash = Some(*c);
                return fail(
                    ErrorKind::Race,
                    format!("{m}; the lock that seemed to order them is written while held, so it does not"),
                );
            }
        }
        Ok(())
    }

    /// `atom` / `red`.
    pub(super) fn atom(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<Flow, Fail> {
        let red = ins.op == "red";
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        let Some(kind) = KINDS.iter().copied().find(|k| ins.has(k)) else {
            return unsupported(format!("{} (unknown atomic operation)", ins.mnemonic()));
        };
        if Self::vec_len(ins) > 1 || ins.mods.iter().any(|m| m == "noftz" && ty != "f32") {
            return unsupported(format!("vector atomics ({})", ins.mnemonic()));
        }
        let size = match ty {
            "b32" | "u32" | "s32" | "f32" => 4,
            "b64" | "u64" | "s64" | "f64" => 8,
            _ => {
                return unsupported(format!(
                    "{}: atomics on .{ty} are not supported (b32, u32, s32, f32; 64-bit types on shared memory and on 8-byte tensor elements)",
                    ins.mnemonic()
                ))
            }
        };
        if self.path.is_some() {
            return unsupported(format!(
                "`{}` under a data-dependent condition",
                ins.mnemonic()
            ));
        }
        let sem = ["acquire", "release", "acq_rel"]
            .into_iter()
            .find(|s| ins.has(s))
            .unwrap_or("relaxed");
        let cta_scope = ins.has("cta");
        let space = Self::space_of(ins);
        if matches!(space, Some(Space::Const | Space::Param)) {
            return fail(
                ErrorKind::Malformed,
                format!("{}: atomics on .const/.param", ins.mnemonic()),
            );
        }
        let ops = &ins.operands;
        let (dst, rest) = if red {
            (None, &ops[..])
        } else {
            match ops.split_first() {
                Some((d, r)) => (Some(d), r),
                None => return fail(ErrorKind::Malformed, "atom needs d, [a], b"),
            }
        };
        let need = if kind == "cas" { 3 } else { 2 };
        if rest.len() < need {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "{} needs {need} operands after the destination",
                    ins.mnemonic()
                ),
            );
        }
        let addr = match self.address(t, &rest[0])? {
            Addr::At(a) => a,
            Addr::Param(..) => return unsupported("atomics on a parameter"),
            Addr::Sym(..) => {
                return unsupported(format!("`{}` at a data-dependent address", ins.mnemonic()))
            }
        };
        let b = self.read(t, &rest[1], ty)?;
        let c = if kind == "cas" {
            Some(self.read(t, &rest[2], ty)?)
        } else {
            None
        };
        let place = self.place(t, addr, size, space)?;
        if let Place::Tensor(i, off) = place {
            let e = self.elem_bytes(i);
            if size != e || off % e != 0 {
                let td = &self.inst.tensors[i];
                let kind = if td.dtype.is_float() {
                    "floats"
                } else {
                    "integers"
                };
                return unsupported(format!(
                    "`{}`: a {size}-byte atomic at byte {off} of `{}`, whose elements are \
                     {e}-byte {kind} ({}); atomics on part of an element or on several are \
                     not modelled",
                    ins.mnemonic(),
                    td.name,
                    td.dtype
                ));
            }
            let td = &self.inst.tensors[i];
            if td.role == Role::In {
                return fail(
                    ErrorKind::WriteToInput,
                    format!(
                        "atomic on `{}`{:?}, which the launch declares as an input",
                        td.name,
                        td.unravel((off / e) as usize)
                    ),
                );
            }
        }
        if let Place::Init(vi, _) = place {
            return unsupported(format!(
                "an atomic on the initialised module variable `{}`",
                self.vars[vi].name
            ));
        }
        let key = Self::key_of(&place, addr);
        let returns = match dst {
            Some(Operand::Reg(r)) => {
                if self.locks.live.is_none() {
                    self.locks.live = Some(live_regs(self.entry));
                }
                self.locks.live.as_ref().is_some_and(|l| l.contains(r))
            }
            _ => false,
        };
        let spin = kind == "cas" && !red && in_retry_loop(self.entry, pc);
        // Log the access (an atomic write) before touching the value.
        self.atomic_now = true;
        let logged = match place {
            Place::Tensor(i, off) => self.log_global(t, pc, i, off, size, true),
            Place::Shared(..) if self.cluster.is_some() => {
                unsupported("an atomic on shared memory in a cluster of CTAs")
            }
            Place::Shared(..) => self
                .own_copy_in_flight(t, addr, size, "writes")
                .and_then(|_| self.log_shared(t, pc, addr, size, true)),
            _ => Ok(()),
        };
        self.atomic_now = false;
        logged?;
        // The old value.
        let old = match place {
            Place::Tensor(i, off) => {
                let flat = (off / self.elem_bytes(i)) as usize;
                match self.tensor_elem(i, flat) {
                    Some(v) => self.elem_to_val(i, v),
                    None => {
                        let td = &self.inst.tensors[i];
                        let m = format!(
                            "`{}` on `{}`{:?}, an output element no thread wrote before (zero it in the kernel first, or declare the tensor inout)",
                            ins.mnemonic(), td.name, td.unravel(flat)
                        );
                        return fail(ErrorKind::NeverWritten, m);
                    }
                }
            }
            Place::Shared(vi, off) => match self.shared.get(&addr) {
                Some((v, s)) if *s == size => *v,
                Some(_) => {
                    return unsupported("an atomic with a size different from the store before it")
                }
                None => {
                    return fail(
                        ErrorKind::NeverWritten,
                        format!(
                            "`{}` on shared `{}` (byte {off}), which no thread wrote",
                            ins.mnemonic(),
                            self.vars[vi].name
                        ),
                    )
                }
            },
            Place::Local(a) => match self.threads[t].local.get(&a) {
                Some(v) => *v,
                None => return fail(ErrorKind::NeverWritten, "atomic on unwritten local memory"),
            },
            Place::Init(..) => unreachable!("rejected above"),
        };
        let (new, took) = self.atom_value(ins, kind, ty, old, b, c)?;
        let modifies = !(kind == "add" && self.is_zero(b));
        if let Some(key) = key {
            self.schedule_check(t, pc, ins, key, kind, returns, modifies, spin)?;
            self.lock_step(
                t,
                ins,
                key,
                kind,
                sem,
                cta_scope,
                spin,
                (old, new),
                b,
                c,
                took,
            )?;
        }
        // Write the new value.
        match place {
            Place::Tensor(i, off) => {
                let fv = self.val_to_elem(i, new, ty)?;
                let site = self.site(pc, ins);
                let flat = (off / self.elem_bytes(i)) as usize;
                self.global[i][flat] = Some((fv, site));
            }
            Place::Shared(..) => {
                self.shared.insert(addr, (new, size));
            }
            Place::Local(a) => {
                self.threads[t].local.insert(a, new);
                self.threads[t].changes += 1;
            }
            Place::Init(..) => {}
        }
        if let Some(d) = dst {
            self.write(t, d, old)?;
        }
        // An atomic in a retry loop that left its word unchanged, run a second time with
        // the same operands on the same unchanged word, would do the same forever: the
        // thread waits until the word changes (a failed spin-lock cas, a polling
        // atomicAdd(&flag, 0)). The first repeat runs, so a cas loop whose compare value
        // follows the word (an atomicCAS update loop) just retries.
        let unchanged = !took || self.same_bits(old, new, ty);
        match key {
            Some(key) if !red && unchanged && in_retry_loop(self.entry, pc) => {
                let v = self.locks.versions.get(&key).copied().unwrap_or(0);
                let sig = (
                    pc,
                    self.bits_of(b, ty),
                    c.and_then(|c| self.bits_of(c, ty)),
                    v,
                );
                if self.threads[t].retry == Some(sig) {
                    self.threads[t].retry = None;
                    self.threads[t].pc += 1;
                    return Ok(Flow::Block(State::Spin(pc, key, v)));
                }
                self.threads[t].retry = Some(sig);
            }
            _ => self.threads[t].retry = None,
        }
        Ok(Flow::Next)
    }

    fn bits_of(&self, v: Val<D::V>, ty: &str) -> Option<u64> {
        if self.is_symbolic(v) {
            None
        } else {
            self.int(v, ty).ok()
        }
    }

    fn same_bits(&self, a: Val<D::V>, b: Val<D::V>, ty: &str) -> bool {
        matches!((self.bits_of(a, ty), self.bits_of(b, ty)), (Some(x), Some(y)) if x == y)
    }

    fn is_zero(&self, v: Val<D::V>) -> bool {
        match v {
            Val::Bits(b) => b == 0,
            Val::Float(x) => self.domain.as_number(x) == Some(0.0),
            _ => false,
        }
    }

    /// The store site of an atomic into a tensor (as `store` keeps them).
    fn site(&mut self, pc: usize, ins: &Instr) -> usize {
        if let Some(&s) = self.sites.get(&pc) {
            return s;
        }
        self.store_sites.push(StoreSite {
            line: ins.line,
            loc: ins.loc.clone(),
        });
        let s = self.store_sites.len() - 1;
        self.sites.insert(pc, s);
        s
    }

    /// The new value of an atomic and, for `cas`, whether the compare matched.
    fn atom_value(
        &mut self,
        ins: &Instr,
        kind: &str,
        ty: &str,
        old: Val<D::V>,
        b: Val<D::V>,
        c: Option<Val<D::V>>,
    ) -> Result<(Val<D::V>, bool), Fail> {
        let w = width(ty);
        match kind {
            "exch" => return Ok((b, true)),
            "cas" => {
                if self.is_symbolic(old) || self.is_symbolic(b) {
                    return unsupported(format!(
                        "`{}` comparing a data-dependent value",
                        ins.mnemonic()
                    ));
                }
                let eq = self.int(old, ty)? == self.int(b, ty)?;
                let c = c.unwrap_or(b);
                return Ok((if eq { c } else { old }, eq));
            }
            _ => {}
        }
        if is_float_ty(ty) {
            let (x, y) = (self.float(old, ty)?, self.float(b, ty)?);
            let op = match kind {
                "add" => Binary::Add,
                "min" => Binary::Min,
                "max" => Binary::Max,
                _ => return unsupported(format!("{} (no such float atomic)", ins.mnemonic())),
            };
            return Ok((Val::Float(self.domain.binary(op, x, y)), true));
        }
        if self.is_symbolic(old) || self.is_symbolic(b) {
            return Ok((self.sym_op(&ins.mnemonic(), &[old, b], ty)?, true));
        }
        let (x, y) = (self.int(old, ty)?, self.int(b, ty)?);
        let signed = ty.starts_with('s');
        let lt = |p: u64, q: u64| {
            if signed {
                sext(p, w) < sext(q, w)
            } else {
                p < q
            }
        };
        let r = match kind {
            "add" => x.wrapping_add(y),
            "inc" => {
                if x >= y {
                    0
                } else {
                    x + 1
                }
            }
            "dec" => {
                if x == 0 || x > y {
                    y
                } else {
                    x - 1
                }
            }
            "min" => {
                if lt(y, x) {
                    y
                } else {
                    x
                }
            }
            "max" => {
                if lt(x, y) {
                    y
                } else {
                    x
                }
            }
            "and" => x & y,
            "or" => x | y,
            "xor" => x ^ y,
            _ => return unsupported(ins.mnemonic()),
        };
        Ok((Val::Bits(mask_w(r, w)), true))
    }

    /// Unordered atomics on one word whose outcome depends on their order: an error.
    #[allow(clippy::too_many_arguments)]
    fn schedule_check(
        &mut self,
        t: usize,
        pc: usize,
        ins: &Instr,
        key: LocKey,
        kind: &'static str,
        returns: bool,
        modifies: bool,
        spin: bool,
    ) -> Result<(), Fail> {
        let mut r = self.rec(t, pc, 0, 0, true);
        r.atomic = true;
        let lock_word = spin || self.locks.spin_words.contains(&key);
        let (cta, epoch) = (self.cta, self.epoch);
        let mut list = self.locks.atoms.remove(&key).unwrap_or_default();
        if let LocKey::Global(..) = key {
            list.retain(|a| a.rec.cta != cta || a.rec.epoch == epoch);
        }
        let mut err = None;
        for e in &list {
            if (e.rec.cta == cta && e.rec.thread == t) || self.ordered(&e.rec, t) {
                continue;
            }
            let lock_pair =
                lock_word && matches!(e.kind, "cas" | "exch") && matches!(kind, "cas" | "exch");
            let both_modify = e.modifies && modifies;
            let order_dependent_value = both_modify && !commutes(e.kind, kind) && !lock_pair;
            let dependent_return = ((returns && e.modifies) && !spin)
                || ((e.returns && modifies) && !e.spin && !lock_pair);
            if order_dependent_value || dependent_return {
                let other = self.describe(&e.rec);
                let what = if dependent_return {
                    "the value it returns"
                } else {
                    "the value it leaves in memory"
                };
                err = Some(format!(
                    "`{}` at line {}: {what} depends on the order threads reach it \
                     ({} and thread {:?} at line {} are not ordered); lift runs one order \
                     and does not model the others",
                    ins.mnemonic(),
                    ins.line,
                    other,
                    self.threads[t].tid,
                    ins.line
                ));
                break;
            }
        }
        list.push(ARec {
            rec: r,
            kind,
            returns,
            modifies,
            spin,
        });
        self.locks.atoms.insert(key, list);
        match err {
            Some(m) => unsupported(m),
            None => Ok(()),
        }
    }

    /// Lock bookkeeping for an atomic on `key`: taking, giving back, breaking.
    #[allow(clippy::too_many_arguments)]
    fn lock_step(
        &mut self,
        t: usize,
        ins: &Instr,
        key: LocKey,
        kind: &str,
        sem: &str,
        cta_scope: bool,
        spin: bool,
        (old, new): (Val<D::V>, Val<D::V>),
        b: Val<D::V>,
        c: Option<Val<D::V>>,
        took: bool,
    ) -> Result<(), Fail> {
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        if spin {
            self.locks.spin_words.insert(key);
        }
        if !self.locks.spin_words.contains(&key) {
            // Only a change of the word wakes threads polling it.
            if !(took && self.same_bits(old, new, ty)) {
                self.bump(key);
            }
            return Ok(());
        }
        let holder = self.threads[t].holds.iter().position(|h| h.key == key);
        // The value written, when it is a number.
        let written = match (kind, c) {
            ("cas", Some(c)) if took => Some(c),
            ("cas", _) => None,
            ("exch", _) => Some(b),
            _ => None,
        };
        let written = match written {
            Some(v) if !self.is_symbolic(v) => Some(self.int(v, ty)?),
            _ => None,
        };
        if let Some(hi) = holder {
            let free = self.threads[t].holds[hi].free;
            if written == Some(free) {
                let h = self.threads[t].holds.remove(hi);
                let released = matches!(sem, "release" | "acq_rel");
                if h.dirty && !released {
                    self.locks.unfenced.insert(h.id);
                    if let Some((_, _, m, c)) = self.locks.reliance.iter().find(|r| r.1 == h.id) {
                        self.clash = Some(*c);
                        return fail(
                            ErrorKind::Race,
                            format!(
                            "{m}; only the lock at line {} seemed to order them, and it is given \
                             back with no fence or .release after the critical section's accesses \
                             (relaxed atomics order no other memory access)",
                            ins.line
                        ),
                        );
                    }
                }
                if cta_scope || h.cta_scope {
                    self.locks.cta_scoped.insert(h.id);
                }
                self.bump(key);
                return Ok(());
            }
            if kind == "cas" && !took {
                return Ok(());
            }
            // The holder writes something else into its lock.
            return self.foreign_write(t, key);
        }
        if spin && took {
            // Taking a word another thread holds (a cas from another value): no
            // mutual exclusion.
            if self
                .threads
                .iter()
                .any(|th| th.holds.iter().any(|h| h.key == key))
            {
                self.foreign_write(t, key)?;
            }
            let b0 = self.int(b, ty)?;
            let id = self.locks.next_hold;
            self.locks.next_hold += 1;
            let entered = matches!(sem, "acquire" | "acq_rel");
            if cta_scope {
                self.locks.cta_scoped.insert(id);
            }
            self.threads[t].holds.push(Hold {
                key,
                id,
                free: b0,
                entered,
                dirty: false,
                cta_scope,
            });
            self.bump(key);
            return Ok(());
        }
        if kind == "cas" && !took {
            return Ok(());
        }
        self.foreign_write(t, key)
    }

    /// Wake threads spinning on a word that changed; true if any woke.
    pub(super) fn wake_spinners(&mut self) -> bool {
        let mut any = false;
        for i in 0..self.threads.len() {
            if let State::Spin(_, key, v) = self.threads[i].state {
                if self.locks.versions.get(&key).copied().unwrap_or(0) != v {
                    self.threads[i].state = State::Ready;
                    any = true;
                }
            }
        }
        any
    }

    /// Some thread spins on a lock no running thread can give back.
    pub(super) fn spin_deadlock(&self) -> Option<ExecError> {
        let (t, pc, key) = self
            .threads
            .iter()
            .enumerate()
            .find_map(|(t, th)| match th.state {
                State::Spin(pc, key, _) => Some((t, pc, key)),
                _ => None,
            })?;
        let holder = self
            .threads
            .iter()
            .find(|th| th.holds.iter().any(|h| h.key == key));
        let why = match holder {
            Some(h) => {
                let what = match h.state {
                    State::Done => "has returned".to_string(),
                    State::Barrier(p, ..) => format!("waits at bar.sync at line {}", self.line(p)),
                    State::Spin(p, _, _) => format!("spins at line {}", self.line(p)),
                    State::MbarWait(p, _) | State::Stuck(p, _) => {
                        format!("waits at line {}", self.line(p))
                    }
                    State::WarpSync(p, _) | State::Collective(p, _) => {
                        format!(
                            "waits at a warp barrier or collective at line {}",
                            self.line(p)
                        )
                    }
                    State::Ready => "runs".to_string(),
                    State::ClusterWait(p) => {
                        format!("waits at barrier.cluster.wait at line {}", self.line(p))
                    }
                };
                format!("the lock there is held by thread {:?}, which {what}", h.tid)
            }
            None => "no thread holds it and none left can change its word".to_string(),
        };
        Some(self.deadlock(
            format!(
                "thread {:?} spins on the word at line {} forever: {why}",
                self.threads[t].tid,
                self.line(pc)
            ),
            t,
            pc,
        ))
    }
}
