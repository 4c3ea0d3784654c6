//! Recognising libm expansions: read a whole inlined libdevice / CUDA-libm expansion
//! (Triton's `__nv_logf`, `__nv_sinf`, `__nv_cosf`, `__nv_tanhf`, `__nv_erff`; CUDA's
//! own `expf`, `tanhf`, `erff`, `log2f`, `log1pf`, `expm1f`, `erfcf`, `powf(x, k)` as
//! NVRTC emits them) as the exact function, as `ex2.approx` is read as `2^x` (docs/semantics.md:
//! libm calls are the exact real functions).
//!
//! Architecture invariant: works on terms only, after execution and before `decide`
//! (exec → recognise → decide); the executor knows nothing of it. A subterm is
//! replaced by `f(a)` only when it is *identical* (the same hash-consed id) to the
//! term the probe kernel's PTX yields with its input bound to `a`, i.e. when the code
//! is exactly the probe's code at the argument `a`; anything else keeps its opaque
//! bit-level nodes and `decide` answers `Unknown`. The probes are real compiler output
//! (`ptx/libm/generate.py`), embedded in the binary, and each is validated
//! numerically against the function it stands for (tests/it/ptx_libm.rs).
//!
//! Finding `a` is a search, and only a search: any guess is checked by that identity.
//! The argument need not be a node of the kernel's term: `expf(-x)` computes `c · (-x)`,
//! which the product normaliser folds to `(-c) · x`, and NVRTC itself folds `-x < c`
//! into `x > -c`. So the guesses are (1) nodes whose parents include every use the
//! probe's code makes of its argument (exact shapes for plain arguments; for sums and
//! scaled arguments the probe's uses at `x + 1/4`, `2x`, `-2x` with constants erased),
//! (2) `-u` for nodes `u` used as the probe uses `x` at `-x`, and (3) `k · u` for each
//! `c' · u` of the kernel and scale `c` of the probe (`k = c'/c`, every other scale of
//! the probe present as `(k·c_i) · u`): an affine argument `k·u + b` folded into the
//! expansion's constants. Comparisons and `|·|` are brought to one form in probe and
//! kernel terms alike ([`canonical`]), exactly. An element left with bit-level code that
//! shares most of a probe's constants gets a note naming that function (`diagnose`).

mod diagnose;
mod fingerprints;
mod probes;

pub use fingerprints::STORED as STORED_FINGERPRINTS;
pub use probes::{measured_fingerprints, probes, Meaning, Probe};

use crate::exec::Output;
use crate::term::{Func, Node, TermId, Terms};
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use rustc_hash::{FxHashMap, FxHashSet};

/// A parent `p` of `a` with `a` as `#`, constants by value and other operands as `?`
/// (operands sorted, as n-ary nodes sort by id, which differs between stores).
/// With `erase`, constants are `c` (the shape of a use whatever the argument's scale).
fn parent_shape(terms: &Terms, p: TermId, a: TermId, erase: bool) -> String {
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
                if erase {
                    "c".into()
                } else {
                    v.to_string()
                }
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
pub fn recognise(terms: &mut Terms, outputs: &mut [Output<TermId>]) -> Recognition {
    // An opaque node makes every node above it "may be non-finite": outputs with no
    // such flag hold no bit-level code (a walk of a large DAG saved).
    let flagged = |o: &Output<TermId>| o.elems.iter().flatten().any(|&e| terms.may_be_nonfinite(e));
    if !outputs.iter().any(flagged) {
        return Recognition {
            replaced: 0,
            unrecognised: Vec::new(),
        };
    }
    let mut total = 0;
    // Tries that passed the prefilter but whose code differs from the probe's.
    let mut missed: Vec<(TermId, usize)> = Vec::new();
    // Nested calls (log(sin(x))) are recognised innermost first, one level a round.
    // One form for comparisons and |·| in the kernel's terms, as in the probes'.
    if has_opaque(terms, outputs) {
        let mut memo = FxHashMap::default();
        for o in outputs.iter_mut() {
            for e in o.elems.iter_mut().flatten() {
                *e = rebuild(terms, *e, &mut memo, &[], true);
            }
        }
    }
    // Each probe's term at a placeholder argument, built once in the kernel's store.
    let mut at_x: FxHashMap<usize, Option<(TermId, TermId)>> = FxHashMap::default();
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
        // Probes whose code could be in the DAG at all: at least half of their
        // constants occur in it (in magnitude). Code at any argument keeps most of
        // the probe's constants (polynomial coefficients, split constants); only its
        // scales and comparison bounds move with a scaled argument. A cheap cut:
        // recognition is still decided by the identity of terms.
        let mine: FxHashSet<BigRational> = dag
            .iter()
            .filter_map(|t| terms.as_const(*t))
            .map(|c| c.abs())
            .collect();
        let plausible: Vec<bool> = probes()
            .iter()
            .map(|p| 2 * p.constants.intersection(&mine).count() >= p.constants.len())
            .collect();
        // (argument, probe) pairs to try: nodes of the DAG whose parents look like
        // the probe's uses of its argument, and scaled arguments (below).
        let mut tries: Vec<(TermId, usize)> = Vec::new();
        for &a in &candidates {
            let shapes: FxHashSet<String> = parents
                .get(&a)
                .map(|ps| {
                    ps.iter()
                        .map(|&p| parent_shape(terms, p, a, false))
                        .collect()
                })
                .unwrap_or_default();
            let erased: FxHashSet<String> = parents
                .get(&a)
                .map(|ps| {
                    ps.iter()
                        .map(|&p| parent_shape(terms, p, a, true))
                        .collect()
                })
                .unwrap_or_default();
            // A sum or scaled argument is compared with the probe at `x + 1/4`, `2x` or
            // `-2x` (constants erased); anything else with the probe at `x`.
            let form = match terms.node(a) {
                Node::Add(_) => Some(0),
                Node::Mul(ops) => terms
                    .as_const(ops[0])
                    .map(|k| if k.is_negative() { 2 } else { 1 }),
                _ => None,
            };
            let within =
                |u: &FxHashSet<String>, s: &FxHashSet<String>| !u.is_empty() && u.is_subset(s);
            for (i, p) in probes().iter().enumerate() {
                if !plausible[i] {
                    continue;
                }
                let plain = match form {
                    Some(j) => p.form_uses[j].as_ref().is_some_and(|u| within(u, &erased)),
                    None => within(&p.uses, &shapes),
                };
                if plain {
                    tries.push((a, i));
                }
                if within(&p.neg_uses, &shapes) {
                    tries.push((terms.neg(a), i));
                }
            }
        }
        tries.extend(scaled_arguments(
            terms,
            &candidates,
            &in_dag,
            &parents,
            &plausible,
        ));
        let mut seen: FxHashSet<(TermId, usize)> = FxHashSet::default();
        tries.retain(|t| seen.insert(*t));
        let mut subst: FxHashMap<TermId, TermId> = FxHashMap::default();
        // Expansions whose value is a product or sum that the host flattened into a
        // larger one (`e / s` = `Mul([e's factors..., s^-1])`).
        let mut flat: Vec<(bool, Vec<TermId>, TermId)> = Vec::new();
        for (a, i) in tries {
            let p = &probes()[i];
            let Some(y) = at_argument(terms, &mut at_x, i, a) else {
                continue;
            };
            if subst.contains_key(&y) {
                continue;
            }
            if in_dag.contains(&y) {
                let f = p.meaning.build(terms, a);
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
                    let f = p.meaning.build(terms, a);
                    subst.insert(y, f);
                    flat.push((is_add, ops, f));
                } else {
                    missed.push((a, i));
                }
            } else {
                missed.push((a, i));
            }
        }
        if subst.is_empty() {
            break;
        }
        total += subst.len();
        let mut memo = subst;
        for o in outputs.iter_mut() {
            for e in o.elems.iter_mut().flatten() {
                *e = rebuild(terms, *e, &mut memo, &flat, false);
            }
        }
    }
    Recognition {
        replaced: total,
        unrecognised: diagnose::likely(terms, outputs, &missed),
    }
}

/// Probe `i`'s term at the argument `a`. The probe's code runs once per kernel, at a
/// placeholder input `x`; each argument then substitutes `a` for `x` through the smart
/// constructors (comparisons and `|·|` brought to [`canonical`] form, as the run
/// does), a walk of the term instead of a run of the code per try. Substitution keeps
/// the meaning (every constructor's rewrite holds for every finite real `x`, and `a`
/// is finite), so the result is the probe's function at `a`, as a run at `a` is. It is
/// also the same node as a run's, except where `a` is a sum: a run flattens `a + t`
/// into one sum (and combines its summands with the code's), which a substituted
/// `Add` node does not, so a sum argument runs the code at `a` itself, as does an `a`
/// that may be non-finite.
fn at_argument(
    terms: &mut Terms,
    at_x: &mut FxHashMap<usize, Option<(TermId, TermId)>>,
    i: usize,
    a: TermId,
) -> Option<TermId> {
    let p = &probes()[i];
    if terms.may_be_nonfinite(a) || matches!(terms.node(a), Node::Add(_)) {
        return p.apply(terms, a);
    }
    let (x, y) = (*at_x.entry(i).or_insert_with(|| {
        let x = terms.input("\u{1}libm-argument", &[]);
        p.apply(terms, x).map(|y| (x, y))
    }))?;
    let mut memo = FxHashMap::default();
    memo.insert(x, a);
    Some(rebuild(terms, y, &mut memo, &[], true))
}

/// What [`recognise`] did.
pub struct Recognition {
    /// How many distinct expansions were replaced by their functions.
    pub replaced: usize,
    /// Output elements still holding bit-level code that looks like a libm function:
    /// (output position, flat index, a note naming the function), first few only.
    pub unrecognised: Vec<(usize, usize, String)>,
}

/// Scaled arguments: `(k · u, probe)` for each node `c' · u` of the DAG and scale `c`
/// of a probe, `k = c'/c`, where every other scale `c_i` of that probe also occurs as
/// `(k·c_i) · u` and `u` has the probe's other uses of a scaled argument
/// (`Probe::scaled_uses`). `expf(-x)` computes `c · (-x)`, which the product normaliser folds to
/// `(-c) · x`: the argument `-x` is then no node of the kernel's term. This is only a
/// guess at the argument; [`recognise`] still requires the probe's term for it to be
/// identical to the kernel's.
fn scaled_arguments(
    terms: &mut Terms,
    candidates: &[TermId],
    in_dag: &FxHashSet<TermId>,
    parents: &FxHashMap<TermId, Vec<TermId>>,
    plausible: &[bool],
) -> Vec<(TermId, usize)> {
    let mut out = Vec::new();
    // The uses of a node whatever their constants (none for a term that is no node).
    let mut erased: FxHashMap<TermId, FxHashSet<String>> = FxHashMap::default();
    let mut uses_of = |terms: &Terms, a: TermId| -> FxHashSet<String> {
        erased
            .entry(a)
            .or_insert_with(|| {
                parents
                    .get(&a)
                    .map(|ps| {
                        ps.iter()
                            .map(|&p| parent_shape(terms, p, a, true))
                            .collect()
                    })
                    .unwrap_or_default()
            })
            .clone()
    };
    // How many nodes `c' · u` of the DAG scale each `u` (by u's factors): a probe with
    // more non-zero scales than `u` has scaled nodes (and `u` itself, for `k·c_i = 1`)
    // cannot match, and is passed over before any rational arithmetic.
    let mut scaled_nodes: FxHashMap<Vec<TermId>, usize> = FxHashMap::default();
    for &t in in_dag {
        if let Node::Mul(ops) = terms.node(t) {
            if ops.len() >= 2 && terms.as_const(ops[0]).is_some() {
                *scaled_nodes.entry(ops[1..].to_vec()).or_default() += 1;
            }
        }
    }
    for &t in candidates {
        let Node::Mul(ops) = terms.node(t) else {
            continue;
        };
        let Some(c1) = terms.as_const(ops[0]).cloned() else {
            continue;
        };
        let rest = ops[1..].to_vec();
        let available = scaled_nodes.get(&rest).copied().unwrap_or(0);
        let u = terms.product(&rest);
        let available = available + in_dag.contains(&u) as usize;
        for (i, p) in probes().iter().enumerate() {
            if !plausible[i] || p.scales.iter().filter(|c| !c.is_zero()).count() > available {
                continue;
            }
            for c in &p.scales {
                if c.is_zero() {
                    continue;
                }
                let k = &c1 / c;
                let neg = k.is_negative() as usize;
                if p.scaled_uses[neg].is_none() && p.form_uses[1 + neg].is_none() {
                    continue;
                }
                let all = p.scales.iter().all(|ci| {
                    let kc = terms.constant(crate::term::rational_mul(&k, ci));
                    let s = terms.product(&[kc, u]);
                    in_dag.contains(&s)
                });
                if !all {
                    continue;
                }
                let kc = terms.constant(k);
                let a = terms.product(&[kc, u]);
                // `k · u` a node of the kernel (the code keeps its argument, as expm1f
                // does, but the search reached it only through `(k·c) · u`), or not.
                let fits = if in_dag.contains(&a) {
                    p.form_uses[1 + neg]
                        .as_ref()
                        .is_some_and(|n| !n.is_empty() && n.is_subset(&uses_of(terms, a)))
                } else {
                    p.scaled_uses[neg]
                        .as_ref()
                        .is_some_and(|n| n.is_subset(&uses_of(terms, u)))
                };
                if fits {
                    out.push((a, i));
                }
            }
        }
    }
    out
}

/// Whether some output reads bit-level code.
fn has_opaque(terms: &Terms, outputs: &[Output<TermId>]) -> bool {
    let roots: Vec<TermId> = outputs
        .iter()
        .flat_map(|o| o.elems.iter().flatten().copied())
        .collect();
    reachable(terms, &roots)
        .iter()
        .any(|t| matches!(terms.node(*t), Node::Opaque(..)))
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

/// Compilers fold an argument's sign or scale into comparisons and `|·|`: NVRTC emits
/// `logf(-x)`'s subnormal test `-x < 2^-126` as `x > -2^-126`, and `fabsf(-x)` as
/// `fabsf(x)`. Probe and kernel terms are both brought to one form, so that such code
/// is still identical to the probe's: a comparison of `k · u` with a constant `c`
/// becomes `u` against `c / k` (the operator flipped for `k < 0`), and `|k · u|` with
/// `k < 0` becomes `|(-k) · u|`. Both rewrites are exact over the reals and keep the
/// IEEE values at ±inf and NaN (`k` is a non-zero rational).
pub(super) fn canonical(terms: &mut Terms, t: TermId) -> TermId {
    // `k · u` as (k, u) for a constant `k != 0`.
    fn scaled(terms: &mut Terms, a: TermId) -> Option<(BigRational, TermId)> {
        let Node::Mul(ops) = terms.node(a) else {
            return None;
        };
        let k = terms.as_const(ops[0]).filter(|k| !k.is_zero())?.clone();
        let rest = ops[1..].to_vec();
        Some((k, terms.product(&rest)))
    }
    match terms.node(t).clone() {
        Node::Cmp(op, a, b) => {
            let op_for = |k: &BigRational| if k.is_negative() { op.flipped() } else { op };
            if let Some(c) = terms.as_const(b).cloned() {
                if let Some((k, u)) = scaled(terms, a) {
                    let op = op_for(&k);
                    let c = terms.constant(c / k);
                    return terms.cmp(op, u, c);
                }
            }
            if let Some(c) = terms.as_const(a).cloned() {
                if let Some((k, u)) = scaled(terms, b) {
                    let op = op_for(&k);
                    let c = terms.constant(c / k);
                    return terms.cmp(op, c, u);
                }
            }
            t
        }
        Node::Call(Func::Abs, a) => match scaled(terms, a) {
            Some((k, u)) if k.is_negative() => {
                let k = terms.constant(-k);
                let a = terms.product(&[k, u]);
                terms.call(Func::Abs, a)
            }
            _ => t,
        },
        _ => t,
    }
}

/// `id` with every key of `memo` replaced by its value (the smart constructors
/// rebuild the parents of replaced nodes; untouched nodes keep their ids).
/// With `canon`, every rebuilt node is also brought to [`canonical`] form.
fn rebuild(
    terms: &mut Terms,
    id: TermId,
    memo: &mut FxHashMap<TermId, TermId>,
    flat: &[(bool, Vec<TermId>, TermId)],
    canon: bool,
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
            terms.with_children(t, &new)
        };
        let r = if canon { canonical(terms, r) } else { r };
        memo.insert(t, r);
    }
    memo[&id]
}
