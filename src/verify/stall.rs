//! A loop summary that a forking attempt would reach only to stall where its lazy twin
//! stalled, recognised from the loop's probe run, before the real body run (whose
//! per-lane index queries are most of a forking attempt's cost).
//!
//! The stall: a float lane `a` that the loop updates only additively (`a' = a + R`
//! through `arith.addf` and `tt.dot`'s accumulator, read off the IR: [`additive`]),
//! with `R` reading another carried float in some case: attention whose accumulator
//! is not rescaled. No template takes it: the running sum needs `R` free of carried
//! floats in every case, the linear recurrence needs its other summands free of them,
//! the rescaled sum needs `a` multiplied by its factor (it fails on the first case of
//! an additive lane, before any query), Welford needs a counter lane and a running
//! argmax an integer lane. So once the summary reaches `a` it fails with
//! `loops::NOT_A_RUNNING_OP`.
//!
//! Why the probe's cases decide it: the loop carries floats only and its body loads no
//! integers and casts no float to an integer, so every integer and condition of the
//! real run is the probe's and so are its cases; a probe case's values are the real
//! case's with the carried floats and loaded elements renamed to parameters, and a
//! term whose renaming reads a carried parameter reads the carried float itself.
//!
//! What the real run would add is its accesses' checks and the other lanes'
//! summaries. The first are skipped only where the lazy twin under the same
//! candidate stopped at this loop's summary with this stall and no failed access on
//! its path (`records::Stall`), the forking path holding every condition that path held:
//! each forking case only adds decided mask lanes to what the lazy run assumed, so
//! an access it proved in bounds stays in bounds. The second cannot fail sooner: each
//! lane stays a float in every case (checked here) and no lane is combined by
//! different operations in the probe (checked here; the one gap: a probe names a
//! loaded element by its offset, so two tensors read at one offset share a parameter,
//! and a lane could only then combine differently in the real run, a failure with
//! another message and the same UNKNOWN). As with `forks_alike` (`super::run`), a
//! run that would later spend the step's whole budget could end with that limit's
//! message instead.
//!
//! Invariant: the early stop only ever ends an attempt with the failure it would have
//! ended with; it never proves and never refutes.

use super::lane::{Lane, Val};
use super::run::Run;
use super::summary::{Case, Reach};
use crate::term::{Node, TermId};
use crate::triton_ir::ast::{Op, Region, Type};
use std::collections::HashSet;
use std::rc::Rc;

impl Run<'_, '_, '_> {
    /// Whether this forking run's summary of loop `op` stalls as its lazy twin's did,
    /// decided from the probe run's `cases` (`probe`: its carried arguments, the
    /// induction variable first). Asks no Z3 query and makes no term.
    pub(super) fn stalls_as_lazy_twin(
        &self,
        op: &Op,
        body: &Region,
        probe: &[Rc<Val>],
        cases: &[Case],
    ) -> bool {
        if self.setup.lazy_masks || !self.setup.work.limits.skip_stalled_loops {
            return false;
        }
        let Some(stall) = self.setup.lazy_stall else {
            return false;
        };
        if stall.line != op.line
            || stall.loc != op.loc
            || !stall.cond.iter().all(|c| self.path.cond.contains(c))
            || !data_free(body)
        {
            return false;
        }
        let carried = &probe[1..];
        let mut accs: Vec<Vec<TermId>> = Vec::with_capacity(carried.len());
        for v in carried {
            let mut lanes = Vec::with_capacity(v.lanes.len());
            for l in &v.lanes {
                let Lane::Float(t) = l else { return false };
                lanes.push(*t);
            }
            accs.push(lanes);
        }
        let terms = &*self.domain.terms;
        let all: rustc_hash::FxHashSet<TermId> = accs.iter().flatten().copied().collect();
        let mut reads = Reach::any(&all);
        let mut dead = false;
        for (k, lanes) in accs.iter().enumerate() {
            let additive = additive(body, k);
            for (j, &acc) in lanes.iter().enumerate() {
                let mut combine = None;
                for case in cases {
                    let Some(Lane::Float(after)) = case.outs.get(k).and_then(|v| v.lanes.get(j))
                    else {
                        return false;
                    };
                    let kids = match terms.node(*after) {
                        Node::Add(kids) | Node::Max(kids) | Node::Min(kids) => kids,
                        _ => continue,
                    };
                    if !kids.contains(&acc) {
                        continue;
                    }
                    let kind = std::mem::discriminant(terms.node(*after));
                    if combine.is_some_and(|c| c != kind) {
                        return false;
                    }
                    combine = Some(kind);
                    let sum = matches!(terms.node(*after), Node::Add(_));
                    let free = kids
                        .iter()
                        .filter(|&&c| c != acc)
                        .all(|&c| !reads.contains(terms, c));
                    // A sum with an addend free of carried floats could be Welford's
                    // trip counter (whatever it starts from: this check is coarser).
                    if sum && free {
                        return false;
                    }
                    if additive && sum && !free {
                        dead = true;
                    }
                }
            }
        }
        dead
    }
}

/// Whether carried value `k` of the loop whose body is `body` reaches its yield only
/// additively: through `arith.addf` with an operand free of it, or as `tt.dot`'s
/// accumulator with both factors free of it.
pub fn additive(body: &Region, k: usize) -> bool {
    let [block] = &body.blocks[..] else {
        return false;
    };
    let Some(arg) = block.args.get(k + 1) else {
        return false;
    };
    let Some(yield_op) = block.ops.last().filter(|o| o.name == "scf.yield") else {
        return false;
    };
    // The values computed from the carried one (an op with regions taints its results
    // when anything inside it reads a tainted value).
    let mut tainted: HashSet<&str> = HashSet::from([arg.name.as_str()]);
    for o in &block.ops {
        let mut reads = o.operands.iter().any(|x| tainted.contains(x.as_str()));
        if !reads && !o.regions.is_empty() {
            reads = mentions(&o.regions, &tainted);
        }
        if reads {
            tainted.extend(o.results.iter().map(String::as_str));
        }
    }
    let Some(mut at) = yield_op.operands.get(k).map(String::as_str) else {
        return false;
    };
    let t = |x: &String| tainted.contains(x.as_str());
    loop {
        if at == arg.name {
            return true;
        }
        let Some(def) = block.ops.iter().find(|o| o.results.iter().any(|r| r == at)) else {
            return false;
        };
        at = match (def.name.as_str(), &def.operands[..]) {
            ("arith.addf", [x, y]) if t(x) != t(y) => {
                if t(x) {
                    x
                } else {
                    y
                }
            }
            ("tt.dot", [a, b, c, ..]) if !t(a) && !t(b) && t(c) => c,
            _ => return false,
        };
    }
}

fn mentions(regions: &[Region], names: &HashSet<&str>) -> bool {
    regions.iter().flat_map(|r| &r.blocks).any(|b| {
        b.ops.iter().any(|o| {
            o.operands.iter().any(|x| names.contains(x.as_str())) || mentions(&o.regions, names)
        })
    })
}

/// Whether no integer in the body comes from data: it loads only floats and casts no
/// float to an integer, so the probe's integers (and so its cases) are the real run's.
fn data_free(body: &Region) -> bool {
    body.blocks.iter().flat_map(|b| &b.ops).all(|o| {
        let int_load = o.name == "tt.load"
            && o.result_types
                .iter()
                .any(|t| !matches!(t.elem(), Type::Float(_)));
        let cast = matches!(
            o.name.as_str(),
            "arith.fptosi" | "arith.fptoui" | "arith.bitcast" | "tt.bitcast"
        );
        !int_load && !cast && o.regions.iter().all(data_free)
    })
}
