//! Recognising libm expansions: read a whole inlined libdevice / CUDA-libm expansion
//! (`__nv_logf`, `__nv_sinf`, `__nv_cosf`, `__nv_tanhf`, `__nv_erff`, and CUDA's own
//! `expf`, `tanhf`, `erff` as NVRTC emits them) as
//! the exact function, as `ex2.approx` is read as `2^x`.
//!
//! Architecture invariant: works on terms only, after execution and before `decide`
//! (exec → recognise → decide); the executor knows nothing of it. A subterm is
//! replaced by `f(a)` only when it is *identical* (the same hash-consed id) to the
//! term the probe kernel's PTX yields with its input bound to `a`, i.e. when the code
//! is exactly the probe's code; anything else keeps its opaque bit-level nodes and
//! `decide` answers `Unknown`. The probes are real compiler output
//! (`ptx/libm/generate.py`), embedded in the binary, and each is validated
//! numerically against the function it stands for (tests/ptx_libm.rs).

use super::ast::Module;
use crate::exec::domain::{Binary, Domain, Symbolic, Truth};
use crate::exec::Output;
use crate::launch::{Instance, Launch};
use crate::term::{CmpOp, Func, Node, TermId, Terms};
use num_rational::BigRational;
use num_traits::Zero;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One probe: `y[i] = f(x[i])` compiled as the suite's kernels are.
pub struct Probe {
    pub name: &'static str,
    pub func: Func,
    pub module: Module,
    pub inst: Instance,
    pub arg_order: Vec<String>,
    /// How the expansion's code uses its argument: the shapes of the argument's
    /// direct parents (see [`parent_shape`]), a cheap prefilter for candidates.
    uses: FxHashSet<String>,
    /// The constants `c` of the expansion's `c · x` nodes. An argument `k · u` reaches
    /// the kernel's term as `(k·c) · u` (products flatten, constants fold), so the node
    /// `k · u` itself may not exist: these let [`recognise`] solve for `k`.
    scales: Vec<BigRational>,
}

const SOURCES: [(&str, Func, &str, &str); 8] = [
    (
        "log",
        Func::Log,
        include_str!("../../ptx/libm/log.ptx"),
        include_str!("../../ptx/libm/log.launch.toml"),
    ),
    (
        "sin",
        Func::Sin,
        include_str!("../../ptx/libm/sin.ptx"),
        include_str!("../../ptx/libm/sin.launch.toml"),
    ),
    (
        "cos",
        Func::Cos,
        include_str!("../../ptx/libm/cos.ptx"),
        include_str!("../../ptx/libm/cos.launch.toml"),
    ),
    (
        "tanh",
        Func::Tanh,
        include_str!("../../ptx/libm/tanh.ptx"),
        include_str!("../../ptx/libm/tanh.launch.toml"),
    ),
    (
        "erf",
        Func::Erf,
        include_str!("../../ptx/libm/erf.ptx"),
        include_str!("../../ptx/libm/erf.launch.toml"),
    ),
    (
        "expf",
        Func::Exp,
        include_str!("../../ptx/libm/expf.ptx"),
        include_str!("../../ptx/libm/expf.launch.toml"),
    ),
    (
        "tanhf",
        Func::Tanh,
        include_str!("../../ptx/libm/tanhf.ptx"),
        include_str!("../../ptx/libm/tanhf.launch.toml"),
    ),
    (
        "erff",
        Func::Erf,
        include_str!("../../ptx/libm/erff.ptx"),
        include_str!("../../ptx/libm/erff.launch.toml"),
    ),
];

/// The probes, parsed once per process.
pub fn probes() -> &'static [Probe] {
    static PROBES: OnceLock<Vec<Probe>> = OnceLock::new();
    PROBES.get_or_init(|| {
        SOURCES
            .iter()
            .map(|&(name, func, ptx, launch)| {
                let module = super::parse(ptx).expect("embedded libm probe parses");
                let mut inst = Launch::parse(launch, name)
                    .and_then(|l| l.instantiate(&BTreeMap::new()))
                    .expect("embedded libm probe launch");
                // One element, one thread: the element's code is all that matters.
                inst.block = [1, 1, 1];
                let mut p = Probe {
                    name,
                    func,
                    module,
                    inst,
                    arg_order: super::launch_arg_order(launch),
                    uses: FxHashSet::default(),
                    scales: Vec::new(),
                };
                let mut terms = Terms::new();
                let x = terms.input("x", &[0]);
                if let Some(y) = p.apply(&mut terms, x) {
                    for t in reachable(&terms, &[y]) {
                        if terms.children(t).contains(&x) {
                            p.uses.insert(parent_shape(&terms, t, x));
                        }
                        if let Node::Mul(ops) = terms.node(t) {
                            if let (2, Some(c)) = (ops.len(), terms.as_const(ops[0])) {
                                if ops[1] == x && !p.scales.contains(c) {
                                    p.scales.push(c.clone());
                                }
                            }
                        }
                    }
                }
                p
            })
            .collect()
    })
}

/// The symbolic domain with the probe's input element bound to a given term.
struct Bound<'t> {
    sym: Symbolic<'t>,
    arg: TermId,
}

impl Domain for Bound<'_> {
    type V = TermId;
    fn constant(&mut self, x: f64) -> TermId {
        self.sym.constant(x)
    }
    fn input(&mut self, _tensor: usize, _index: &[i64], _flat: usize) -> TermId {
        self.arg
    }
    fn param(&mut self, name: &str) -> Option<TermId> {
        self.sym.param(name)
    }
    fn neg(&mut self, a: TermId) -> TermId {
        self.sym.neg(a)
    }
    fn func(&mut self, f: Func, a: TermId) -> TermId {
        self.sym.func(f, a)
    }
    fn powi(&mut self, a: TermId, n: i32) -> TermId {
        self.sym.powi(a, n)
    }
    fn binary(&mut self, op: Binary, a: TermId, b: TermId) -> TermId {
        self.sym.binary(op, a, b)
    }
    fn sum(&mut self, xs: &[TermId]) -> TermId {
        self.sym.sum(xs)
    }
    fn cmp(&mut self, op: CmpOp, a: TermId, b: TermId) -> Truth<TermId> {
        self.sym.cmp(op, a, b)
    }
    fn select(&mut self, c: TermId, a: TermId, b: TermId) -> TermId {
        self.sym.select(c, a, b)
    }
    fn not(&mut self, a: TermId) -> Truth<TermId> {
        self.sym.not(a)
    }
    fn and(&mut self, a: TermId, b: TermId) -> Truth<TermId> {
        self.sym.and(a, b)
    }
    fn or(&mut self, a: TermId, b: TermId) -> Truth<TermId> {
        self.sym.or(a, b)
    }
    fn as_number(&self, a: TermId) -> Option<f64> {
        self.sym.as_number(a)
    }
    fn opaque(&mut self, op: &str, args: &[TermId]) -> Option<TermId> {
        self.sym.opaque(op, args)
    }
    fn bits(&mut self, b: u64) -> TermId {
        self.sym.bits(b)
    }
}

impl Probe {
    /// The term the probe stores for input `arg`, built in `terms`.
    pub fn apply(&self, terms: &mut Terms, arg: TermId) -> Option<TermId> {
        let mut d = Bound {
            sym: Symbolic {
                terms,
                tensor_names: Vec::new(),
                precision: Default::default(),
            },
            arg,
        };
        let run = super::execute(&self.module, &self.inst, &self.arg_order, &mut d).ok()?;
        let y = run.outputs.iter().find(|o| o.name == "y")?;
        y.elems.first().copied().flatten()
    }
}

/// A parent `p` of `a` with `a` as `#`, constants by value and other operands as `?`
/// (operands sorted, as n-ary nodes sort by id, which differs between stores).
fn parent_shape(terms: &Terms, p: TermId, a: TermId) -> String {
    let kind = terms.node(p).op_name();
    let ordered = matches!(
        terms.node(p),
        Node::Cmp(..) | Node::Select(..) | Node::Opaque(..)
    );
    let mut ops: Vec<String> = terms
        .children(p)
        .iter()
        .map(|&c| {
            if c == a {
                "#".into()
            } else if let Some(v) = terms.as_const(c) {
                v.to_string()
            } else {
                "?".into()
            }
        })
        .collect();
    if !ordered {
        ops.sort();
    }
    format!("{kind}({})", ops.join(","))
}

/// Replace every recognised libm expansion in the outputs by the exact function.
/// Returns how many distinct expansions were replaced.
pub fn recognise(terms: &mut Terms, outputs: &mut [Output<TermId>]) -> usize {
    let mut total = 0;
    // Nested calls (log(sin(x))) are recognised innermost first, one level a round.
    for _round in 0..4 {
        let roots: Vec<TermId> = outputs
            .iter()
            .flat_map(|o| o.elems.iter().flatten().copied())
            .collect();
        let dag = reachable(terms, &roots);
        let opaque = |t: &TermId| matches!(terms.node(*t), Node::Opaque(..));
        if !dag.iter().any(opaque) {
            break;
        }
        // Opaque-free nodes below some opaque node: every expansion feeds its
        // argument into bit-level code.
        let mut has_opaque: FxHashMap<TermId, bool> = FxHashMap::default();
        for &t in &dag {
            let mut h = opaque(&t);
            terms.for_each_child(t, |c| h |= has_opaque[&c]);
            has_opaque.insert(t, h);
        }
        let mut under: FxHashSet<TermId> = FxHashSet::default();
        for &t in dag.iter().rev() {
            if opaque(&t) || under.contains(&t) {
                terms.for_each_child(t, |c| {
                    under.insert(c);
                });
            }
        }
        let candidates: Vec<TermId> = dag
            .iter()
            .copied()
            .filter(|t| {
                under.contains(t)
                    && !has_opaque[t]
                    && terms.as_const(*t).is_none()
                    && !terms.is_boolean(*t)
                    && !matches!(terms.node(*t), Node::Inf { .. } | Node::NaN)
            })
            .collect();
        let in_dag: FxHashSet<TermId> = dag.iter().copied().collect();
        let mut parents: FxHashMap<TermId, Vec<TermId>> = FxHashMap::default();
        for &t in &dag {
            terms.for_each_child(t, |c| parents.entry(c).or_default().push(t));
        }
        // (argument, probe) pairs to try: nodes of the DAG whose parents look like
        // the probe's uses of its argument, and scaled arguments (below).
        let mut tries: Vec<(TermId, usize)> = Vec::new();
        for &a in &candidates {
            let shapes: FxHashSet<String> = parents
                .get(&a)
                .map(|ps| ps.iter().map(|&p| parent_shape(terms, p, a)).collect())
                .unwrap_or_default();
            for (i, p) in probes().iter().enumerate() {
                if !p.uses.is_disjoint(&shapes) {
                    tries.push((a, i));
                }
            }
        }
        tries.extend(scaled_arguments(terms, &candidates, &in_dag));
        let mut seen: FxHashSet<(TermId, usize)> = FxHashSet::default();
        tries.retain(|t| seen.insert(*t));
        let mut subst: FxHashMap<TermId, TermId> = FxHashMap::default();
        // Expansions whose value is a product or sum that the host flattened into a
        // larger one (`e / s` = `Mul([e's factors..., s^-1])`).
        let mut flat: Vec<(bool, Vec<TermId>, TermId)> = Vec::new();
        for (a, i) in tries {
            let p = &probes()[i];
            let Some(y) = p.apply(terms, a) else {
                continue;
            };
            if subst.contains_key(&y) {
                continue;
            }
            if in_dag.contains(&y) {
                let f = terms.call(p.func, a);
                subst.insert(y, f);
            } else if let Node::Add(ops) | Node::Mul(ops) = terms.node(y) {
                let is_add = matches!(terms.node(y), Node::Add(_));
                let ops = ops.to_vec();
                let inside = parents.get(&ops[0]).is_some_and(|ps| {
                    ps.iter().any(|&h| match terms.node(h) {
                        Node::Add(hs) if is_add => ops.iter().all(|o| hs.contains(o)),
                        Node::Mul(hs) if !is_add => ops.iter().all(|o| hs.contains(o)),
                        _ => false,
                    })
                });
                if inside {
                    let f = terms.call(p.func, a);
                    subst.insert(y, f);
                    flat.push((is_add, ops, f));
                }
            }
        }
        if subst.is_empty() {
            break;
        }
        total += subst.len();
        let mut memo = subst;
        for o in outputs.iter_mut() {
            for e in o.elems.iter_mut().flatten() {
                *e = rebuild(terms, *e, &mut memo, &flat);
            }
        }
    }
    total
}

/// Scaled arguments: `(k · u, probe)` for each node `c' · u` of the DAG and scale `c`
/// of a probe, `k = c'/c`, where every other scale `c_i` of that probe also occurs as
/// `(k·c_i) · u`. `expf(-x)` computes `c · (-x)`, which the product normaliser folds to
/// `(-c) · x`: the argument `-x` is then no node of the kernel's term. This is only a
/// guess at the argument; [`recognise`] still requires the probe's term for it to be
/// identical to the kernel's.
fn scaled_arguments(
    terms: &mut Terms,
    candidates: &[TermId],
    in_dag: &FxHashSet<TermId>,
) -> Vec<(TermId, usize)> {
    let mut out = Vec::new();
    for &t in candidates {
        let Node::Mul(ops) = terms.node(t) else {
            continue;
        };
        let Some(c1) = terms.as_const(ops[0]).cloned() else {
            continue;
        };
        let rest = ops[1..].to_vec();
        let u = terms.product(&rest);
        for (i, p) in probes().iter().enumerate() {
            for c in &p.scales {
                if c.is_zero() {
                    continue;
                }
                let k = &c1 / c;
                let all = p.scales.iter().all(|ci| {
                    let kc = terms.constant(&k * ci);
                    let s = terms.product(&[kc, u]);
                    in_dag.contains(&s)
                });
                if all {
                    let kc = terms.constant(k);
                    out.push((terms.product(&[kc, u]), i));
                }
            }
        }
    }
    out
}

/// The nodes reachable from `roots`, children before parents (ascending ids).
fn reachable(terms: &Terms, roots: &[TermId]) -> Vec<TermId> {
    let mut seen: FxHashSet<TermId> = FxHashSet::default();
    let mut todo: Vec<TermId> = roots.to_vec();
    while let Some(t) = todo.pop() {
        if seen.insert(t) {
            terms.for_each_child(t, |c| todo.push(c));
        }
    }
    let mut v: Vec<TermId> = seen.into_iter().collect();
    v.sort_unstable();
    v
}

/// `id` with every key of `memo` replaced by its value (the smart constructors
/// rebuild the parents of replaced nodes; untouched nodes keep their ids).
fn rebuild(
    terms: &mut Terms,
    id: TermId,
    memo: &mut FxHashMap<TermId, TermId>,
    flat: &[(bool, Vec<TermId>, TermId)],
) -> TermId {
    for t in reachable(terms, &[id]) {
        if memo.contains_key(&t) {
            continue;
        }
        let node = terms.node(t).clone();
        let kids = terms.children(t);
        let mut new: Vec<TermId> = kids
            .iter()
            .map(|c| memo.get(c).copied().unwrap_or(*c))
            .collect();
        if let Node::Add(_) | Node::Mul(_) = node {
            let is_add = matches!(node, Node::Add(_));
            for (add, ops, f) in flat {
                if *add == is_add && ops.len() < new.len() && ops.iter().all(|o| new.contains(o)) {
                    for o in ops {
                        if let Some(i) = new.iter().position(|x| x == o) {
                            new.remove(i);
                        }
                    }
                    new.push(*f);
                }
            }
        }
        let r = if new == kids {
            t
        } else {
            match node {
                Node::Add(_) => terms.sum(&new),
                Node::Mul(_) => terms.product(&new),
                Node::Pow(_, k) => terms.powi(new[0], k),
                Node::Call(f, _) => terms.call(f, new[0]),
                Node::Max(_) => terms.maxn(&new),
                Node::Min(_) => terms.minn(&new),
                Node::Cmp(op, _, _) => terms.cmp(op, new[0], new[1]),
                Node::Not(_) => terms.not(new[0]),
                Node::And(_) => terms.andn(&new),
                Node::Or(_) => terms.orn(&new),
                Node::Select(..) => terms.select(new[0], new[1], new[2]),
                Node::Opaque(op, _) => terms.opaque(&op, &new),
                Node::Input { .. }
                | Node::Param(_)
                | Node::Const(_)
                | Node::Inf { .. }
                | Node::NaN => t,
            }
        };
        memo.insert(t, r);
    }
    memo[&id]
}
