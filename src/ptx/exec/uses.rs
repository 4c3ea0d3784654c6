//! Which loaded values a thread uses: the rule that a read whose value reaches no
//! store, address, branch or other thread does not race (docs/semantics.md, "Stores and
//! atomics under conditions"; the replicated lanes of small Triton blocks, where
//! several threads load one element and only one of them stores it back).
//!
//! Every plain load of shared or global memory gets a tag; register values carry the
//! tags of the loads they were computed from (pure register instructions pass them
//! from sources to destinations). An instruction with an effect beyond its
//! destination registers (a store, a load's address, a branch, a guard of such an
//! instruction, a warp collective, an atomic, a carry chain…) *uses* the tags of all
//! its operands. A read that conflicts with another thread's write is a race only
//! once its tag is used: until then the race is kept aside (`deferred`), reported at
//! the use, and dropped if the thread never uses the value.
//!
//! Invariant: over-approximation only. Tags are never lost (a guarded or
//! data-dependent-path write keeps the old tags too; a value with too many tags uses
//! them all at once), so a read that may reach a store is never exempted.

use super::tagset::{append, union_into, union_len, TagSet};
use super::*;

/// Register instructions whose only effect is their destination registers.
pub(super) const PURE: &[&str] = &[
    "mov",
    "cvt",
    "cvta",
    "add",
    "sub",
    "mul",
    "mad",
    "fma",
    "div",
    "rem",
    "min",
    "max",
    "neg",
    "abs",
    "and",
    "or",
    "xor",
    "not",
    "cnot",
    "shl",
    "shr",
    "bfe",
    "bfi",
    "popc",
    "clz",
    "brev",
    "ex2",
    "lg2",
    "sqrt",
    "rsqrt",
    "tanh",
    "sin",
    "cos",
    "rcp",
    "shf",
    "prmt",
    "setp",
    "selp",
    "set",
    "slct",
    "copysign",
    "testp",
    "lop3",
    "mul24",
    "mad24",
    "sad",
    "createpolicy",
];

/// More tags than this on one value: they are all used at once (bounded cost).
const MAX_TAGS: usize = 64;

/// What `exec` needs to know of one instruction, worked out once per program counter
/// (the instruction runs once per thread and loop trip). Its register lists lie in
/// `Uses::slots`, so that a shape is a few words, copied out per instruction.
#[derive(Clone, Copy)]
struct Shape {
    pure: bool,
    is_load: bool,
    /// Register slots written (pure instructions and loads).
    dsts: Slots,
    /// A pure instruction's one destination that is also a source (the accumulator of
    /// `fma d, a, b, d`): its tags grow in place, by the others' tags, rather than being
    /// gathered with them and copied back.
    acc: Option<u32>,
    /// Register slots read other than `acc` (for a pure instruction or a load, the
    /// sources only).
    others: Slots,
}

/// A range of `Uses::slots`.
#[derive(Clone, Copy)]
struct Slots {
    start: u32,
    end: u32,
}

impl Slots {
    /// `xs` appended to `pool`: where they lie.
    fn push(pool: &mut Vec<u32>, xs: &[u32]) -> Slots {
        let start = pool.len() as u32;
        pool.extend_from_slice(xs);
        Slots {
            start,
            end: pool.len() as u32,
        }
    }

    fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

impl Shape {
    /// The shape of `ins`, its register lists appended to `pool`.
    fn of(ins: &Instr, pool: &mut Vec<u32>) -> Shape {
        let op = ins.op.as_str();
        let carry = ins.has("cc") || matches!(op, "addc" | "madc");
        let pure = PURE.contains(&op) && !carry;
        let is_load = matches!(op, "ld" | "ldu");
        let skip = if pure || is_load { 1 } else { 0 };
        let mut srcs = Vec::new();
        for o in ins.operands.iter().skip(skip) {
            regs_of(o, &mut srcs);
        }
        let mut dsts = Vec::new();
        if pure || is_load {
            if let Some(d) = ins.operands.first() {
                regs_of(d, &mut dsts);
            }
        }
        let acc = match dsts.as_slice() {
            [d] if pure && srcs.contains(d) => Some(*d),
            _ => None,
        };
        let others: Vec<u32> = srcs.into_iter().filter(|s| Some(*s) != acc).collect();
        let dsts = Slots::push(pool, &dsts);
        let others = Slots::push(pool, &others);
        Shape {
            pure,
            is_load,
            dsts,
            acc,
            others,
        }
    }
}

/// A race kept aside until its read is used.
pub(super) struct Deferred {
    pub(super) message: String,
    /// The reading and the writing instruction.
    pub(super) read: usize,
    pub(super) write: usize,
}

/// Per thread, per register slot: the tags of the loads a value came from.
pub(super) type Tags = Vec<Vec<TagSet>>;

/// The loads' tags and the races waiting for a use.
#[derive(Default)]
pub(super) struct Uses {
    next: u32,
    /// Tag of the load being executed (set around `ld`).
    pub(super) current: Option<u32>,
    /// Per tag (tags are numbered from 1): whether its load has been used.
    used: Vec<bool>,
    /// Per thread, per register slot: tags of the loads its value came from (sorted).
    regs: Tags,
    /// Tags of the operands of the instruction being run, used if its guard lets it run.
    operands: Vec<u32>,
    /// Races whose read has not been used yet: tag → the race.
    pub(super) deferred: HashMap<u32, Deferred>,
    /// Per program counter, the instruction's shape (filled on first execution).
    shapes: Vec<Option<Shape>>,
    /// The shapes' register lists.
    slots: Vec<u32>,
    /// A list reused for the operands' tags of each instruction (no allocation per
    /// instruction).
    scratch: Vec<u32>,
}

impl Uses {
    /// The running CTA's registers' tags (a cluster swaps them per CTA).
    pub(super) fn tags(&mut self) -> &mut Tags {
        &mut self.regs
    }

    pub(super) fn new_cta(&mut self, threads: usize, slots: usize) {
        self.current = None;
        // The CTAs of a grid have one shape: the lists are emptied in place, keeping
        // their allocations, rather than made anew for every CTA.
        let same_shape = self.regs.len() == threads && self.regs.iter().all(|r| r.len() == slots);
        if same_shape {
            self.regs.iter_mut().flatten().for_each(TagSet::clear);
        } else {
            self.regs = vec![vec![TagSet::default(); slots]; threads];
        }
        self.deferred.clear();
    }

    /// Whether the read with this tag has been used (or has no tag).
    pub(super) fn is_used(&self, tag: Option<u32>) -> bool {
        tag.is_none_or(|g| self.used.get(g as usize).copied().unwrap_or(false))
    }

    /// Marks `g` used; whether it was not before.
    fn mark(&mut self, g: u32) -> bool {
        let g = g as usize;
        if self.used.len() <= g {
            self.used.resize(g + 1, false);
        }
        !std::mem::replace(&mut self.used[g], true)
    }
}

fn regs_of(op: &Operand, out: &mut Vec<u32>) {
    match op {
        Operand::Reg(s) => out.push(*s),
        Operand::Vector(xs) => xs.iter().for_each(|x| regs_of(x, out)),
        Operand::Pair(a, b) => {
            regs_of(a, out);
            regs_of(b, out);
        }
        Operand::Mem { base, .. } | Operand::Not(base) => regs_of(base, out),
        Operand::Tensor { map, coords } => {
            regs_of(map, out);
            coords.iter().for_each(|x| regs_of(x, out));
        }
        _ => {}
    }
}

impl<'a, D: Domain> Sim<'a, D> {
    /// Run one instruction (with its guard), passing load tags along.
    pub(super) fn exec(&mut self, t: usize, pc: usize, ins: &'a Instr) -> Result<Flow, Fail> {
        if !self.races {
            return self.exec_guarded(t, pc, ins);
        }
        self.trace(t, pc);
        if self.uses.shapes.len() <= pc {
            self.uses.shapes.resize_with(pc + 1, || None);
        }
        let shape = match self.uses.shapes[pc] {
            Some(s) => s,
            None => {
                let s = Shape::of(ins, &mut self.uses.slots);
                self.uses.shapes[pc] = Some(s);
                s
            }
        };
        self.exec_shaped(t, pc, ins, shape)
    }

    fn exec_shaped(
        &mut self,
        t: usize,
        pc: usize,
        ins: &'a Instr,
        shape: Shape,
    ) -> Result<Flow, Fail> {
        let (pure, is_load) = (shape.pure, shape.is_load);
        // The operands' tags (an accumulator's aside), gathered in a list kept between
        // instructions.
        let mut tags = std::mem::take(&mut self.uses.scratch);
        tags.clear();
        self.tags_into(t, &self.uses.slots[shape.others.range()], &mut tags);
        let mut guard_tags = Vec::new();
        self.tags_into(
            t,
            ins.guard.as_slice().iter().map(|g| &g.1),
            &mut guard_tags,
        );
        // Whether a pure instruction's tags were too many and are used up.
        let mut spent = false;
        if pure {
            union_into(&mut tags, &guard_tags);
            let acc = shape.acc.and_then(|d| self.reg_tags(t, d));
            if union_len(acc.map_or(&[], TagSet::as_slice), &tags) > MAX_TAGS {
                if let Some(a) = acc {
                    union_into(&mut tags, a.as_slice());
                }
                self.use_tags(&tags, ins)?;
                tags.clear();
                spent = true;
            }
        } else {
            // Whether it runs depends on the guard; what it does, on its operands
            // (used by `body_runs` once the guard lets it run).
            if !guard_tags.is_empty() {
                self.use_tags(&guard_tags, ins)?;
            }
            self.uses.operands = std::mem::take(&mut tags);
        }
        if is_load {
            self.uses.next += 1;
            self.uses.current = Some(self.uses.next);
        }
        let flow = self.exec_guarded(t, pc, ins);
        if !pure {
            // The operands' list, used or not, goes back to be reused.
            tags = std::mem::take(&mut self.uses.operands);
        }
        let loaded = self.uses.current.take();
        let flow = flow.inspect_err(|_| self.uses.scratch = std::mem::take(&mut tags))?;
        if pure || is_load {
            if is_load {
                tags.clear();
                tags.extend(loaded);
            }
            // A write that may not happen keeps the old value's tags.
            let keep = ins.guard.is_some() || self.path.is_some();
            let Uses { regs, slots, .. } = &mut self.uses;
            if let Some(m) = regs.get_mut(t) {
                for &d in &slots[shape.dsts.range()] {
                    let Some(e) = m.get_mut(d as usize) else {
                        continue;
                    };
                    if Some(d) == shape.acc {
                        // The value's tags are the accumulator's and `tags`, unless
                        // they were spent (none; a write that may not happen keeps the
                        // old ones).
                        match spent {
                            false => e.union_with(&tags),
                            true if !keep => e.clear(),
                            true => {}
                        }
                    } else if keep {
                        e.union_with(&tags);
                    } else {
                        e.set_from(&tags);
                    }
                }
            }
        }
        self.uses.scratch = tags;
        Ok(flow)
    }

    /// The tags of thread `t`'s register `slot`.
    fn reg_tags(&self, t: usize, slot: u32) -> Option<&TagSet> {
        self.uses.regs.get(t)?.get(slot as usize)
    }

    /// Adds the tags of these registers' values to the sorted, distinct `tags`,
    /// keeping them so. Each register's list is sorted already: they are appended, and
    /// sorted once at the end only if one did not lie after the tags before it (a few
    /// tags in all, usually: no merge or shift per register).
    fn tags_into<'r>(
        &self,
        t: usize,
        regs: impl IntoIterator<Item = &'r u32>,
        tags: &mut Vec<u32>,
    ) {
        let Some(m) = self.uses.regs.get(t) else {
            return;
        };
        let mut sorted = true;
        for s in regs {
            if let Some(ts) = m.get(*s as usize) {
                let ts = ts.as_slice();
                if let (Some(l), Some(f)) = (tags.last(), ts.first()) {
                    sorted &= l < f;
                }
                append(tags, ts);
            }
        }
        if !sorted {
            tags.sort_unstable();
            tags.dedup();
        }
    }

    /// The instruction's guard lets it run (or it has none): its operands are used.
    pub(super) fn body_runs(&mut self, ins: &Instr) -> Result<(), Fail> {
        if self.uses.operands.is_empty() {
            return Ok(());
        }
        let mut tags = std::mem::take(&mut self.uses.operands);
        let res = self.use_tags(&tags, ins);
        // Used once; the emptied list stays for reuse.
        tags.clear();
        self.uses.operands = tags;
        res
    }

    /// Mark the loads behind these tags used; a race kept aside for one of them is
    /// reported now.
    fn use_tags(&mut self, tags: &[u32], ins: &Instr) -> Result<(), Fail> {
        for g in tags {
            // (No race kept aside, the usual case: no table to look in.)
            if self.uses.mark(*g) && !self.uses.deferred.is_empty() {
                if let Some(d) = self.uses.deferred.remove(g) {
                    return fail(
                        ErrorKind::Race,
                        format!(
                            "{}; the value read is used at line {} (`{}`)",
                            d.message,
                            ins.line,
                            ins.mnemonic()
                        ),
                    );
                }
            }
        }
        Ok(())
    }
}
