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
/// (the instruction runs once per thread and loop trip).
struct Shape {
    pure: bool,
    is_load: bool,
    /// Register slots read (for a pure instruction or a load, the sources only).
    srcs: Vec<u32>,
    /// Register slots written (pure instructions and loads).
    dsts: Vec<u32>,
}

impl Shape {
    fn of(ins: &Instr) -> Shape {
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
        Shape {
            pure,
            is_load,
            srcs,
            dsts,
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
pub(super) type Tags = Vec<Vec<Vec<u32>>>;

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
            self.regs.iter_mut().flatten().for_each(Vec::clear);
        } else {
            self.regs = vec![vec![Vec::new(); slots]; threads];
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

/// Adds the sorted, distinct `ts` to the sorted, distinct `acc`, keeping it so. Tags
/// are numbered in load order, so one list usually lies wholly after the other (an
/// accumulator's old tags, an operand's new one) or one is a tag or two: appended,
/// prepended or inserted in place; only long interleaved lists are merged into a new
/// list.
fn union_into(acc: &mut Vec<u32>, ts: &[u32]) {
    let (Some(&first), Some(&last)) = (ts.first(), ts.last()) else {
        return;
    };
    match (acc.first(), acc.last()) {
        (None, _) | (_, None) => acc.extend_from_slice(ts),
        (_, Some(&l)) if l < first => acc.extend_from_slice(ts),
        (Some(&f), _) if last < f => {
            acc.extend_from_slice(ts);
            acc.rotate_right(ts.len());
        }
        _ if ts.len() <= 4 => {
            for &g in ts {
                if let Err(at) = acc.binary_search(&g) {
                    acc.insert(at, g);
                }
            }
        }
        _ => *acc = merge_sorted(acc, ts),
    }
}

/// The sorted union of two sorted, distinct lists.
fn merge_sorted(a: &[u32], b: &[u32]) -> Vec<u32> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out.push(a[i]);
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out.push(b[j]);
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out.push(a[i]);
                i += 1;
                j += 1;
            }
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
    out
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
        let shape = self.uses.shapes[pc]
            .take()
            .unwrap_or_else(|| Shape::of(ins));
        let res = self.exec_shaped(t, pc, ins, &shape);
        self.uses.shapes[pc] = Some(shape);
        res
    }

    fn exec_shaped(
        &mut self,
        t: usize,
        pc: usize,
        ins: &'a Instr,
        shape: &Shape,
    ) -> Result<Flow, Fail> {
        let (pure, is_load) = (shape.pure, shape.is_load);
        // The operands' tags, gathered in a list kept between instructions.
        let mut tags = std::mem::take(&mut self.uses.scratch);
        tags.clear();
        self.tags_into(t, &shape.srcs, &mut tags);
        let mut guard_tags = Vec::new();
        self.tags_into(
            t,
            ins.guard.as_slice().iter().map(|g| &g.1),
            &mut guard_tags,
        );
        if pure {
            union_into(&mut tags, &guard_tags);
            if tags.len() > MAX_TAGS {
                self.use_tags(&tags, ins)?;
                tags.clear();
            }
        } else {
            // Whether it runs depends on the guard; what it does, on its operands
            // (used by `body_runs` once the guard lets it run).
            self.use_tags(&guard_tags, ins)?;
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
            if let Some(m) = self.uses.regs.get_mut(t) {
                for &d in &shape.dsts {
                    let Some(e) = m.get_mut(d as usize) else {
                        continue;
                    };
                    if keep {
                        union_into(e, &tags);
                    } else {
                        e.clone_from(&tags);
                    }
                }
            }
        }
        self.uses.scratch = tags;
        Ok(flow)
    }

    /// Adds the tags of these registers' values to `tags` (sorted and distinct, as
    /// each register's list is already: they are merged, not sorted again).
    fn tags_into<'r>(
        &self,
        t: usize,
        regs: impl IntoIterator<Item = &'r u32>,
        tags: &mut Vec<u32>,
    ) {
        if let Some(m) = self.uses.regs.get(t) {
            for s in regs {
                if let Some(ts) = m.get(*s as usize) {
                    union_into(tags, ts);
                }
            }
        }
    }

    /// The instruction's guard lets it run (or it has none): its operands are used.
    pub(super) fn body_runs(&mut self, ins: &Instr) -> Result<(), Fail> {
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
            if self.uses.mark(*g) {
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

#[cfg(test)]
mod tests {
    use super::union_into;

    /// `union_into` is the sorted set union, whatever the lists' order and overlap
    /// (checked against a set built independently).
    #[test]
    fn union_into_is_the_sorted_union() {
        let lists: &[&[u32]] = &[
            &[],
            &[5],
            &[1, 2, 3],
            &[7, 8, 9, 10, 11, 12],
            &[2, 9],
            &[0, 3, 5, 8, 13, 21],
            &[4, 5, 6],
            &[30],
        ];
        for a in lists {
            for b in lists {
                let mut acc = a.to_vec();
                union_into(&mut acc, b);
                let want: std::collections::BTreeSet<u32> =
                    a.iter().chain(b.iter()).copied().collect();
                assert_eq!(
                    acc,
                    want.into_iter().collect::<Vec<_>>(),
                    "{a:?} with {b:?}"
                );
            }
        }
    }
}
