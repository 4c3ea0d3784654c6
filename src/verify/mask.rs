//! Mask lanes as the path sees them ([`MaskLane`]) and which symbols the path's
//! constraints link ([`Classes`]): what lazy masks (`guards.rs`) decide with.
//!
//! Invariant: `Classes` only serves to skip queries whose answer is "open".

use super::sym::Cond;
use std::collections::HashMap;
use std::sync::Arc;

/// A lane of a mask as the path sees it.
#[derive(Clone, Debug)]
pub(super) enum MaskLane {
    On,
    Off,
    /// Not decided by the path (lazy masks only).
    Guard(Cond),
}

/// The conjuncts of `c` (nested conjunctions flattened).
pub(super) fn conjuncts(c: &Cond) -> Vec<Cond> {
    fn go(c: &Cond, out: &mut Vec<Cond>) {
        match c {
            Cond::And(cs) => cs.iter().for_each(|c| go(c, out)),
            c => out.push(c.clone()),
        }
    }
    let mut out = Vec::new();
    go(c, &mut out);
    out
}

/// Which symbols the solver's constraints link: the classes of the graph joining the
/// symbols of each constraint. Constraints over unlinked symbols constrain each other
/// not at all: on a satisfiable context, a model of one condition and a model of
/// another, each read on its own classes, combine into a model of both. So a condition
/// open on the path stays open under an assumption over unlinked symbols, and a
/// conjunction of open conditions over mutually unlinked symbols is open. Used only to
/// skip queries whose answer is "open", which settles nothing.
pub(super) struct Classes {
    /// The context this was built for (path conditions, loops, loops entered).
    pub(super) stamp: (usize, usize, usize),
    class: HashMap<Arc<str>, usize>,
}

impl Classes {
    pub(super) fn new<'c>(
        conds: impl Iterator<Item = &'c Cond>,
        stamp: (usize, usize, usize),
    ) -> Classes {
        let mut index: HashMap<Arc<str>, usize> = HashMap::new();
        let mut parent: Vec<usize> = Vec::new();
        fn find(parent: &mut [usize], mut i: usize) -> usize {
            while parent[i] != i {
                parent[i] = parent[parent[i]];
                i = parent[i];
            }
            i
        }
        for c in conds {
            let mut syms = Vec::new();
            c.symbols(&mut syms);
            let mut first = None;
            for s in syms {
                let n = index.len();
                let i = *index.entry(s).or_insert_with(|| {
                    parent.push(n);
                    n
                });
                match first {
                    None => first = Some(i),
                    Some(f) => {
                        let (a, b) = (find(&mut parent, f), find(&mut parent, i));
                        parent[b] = a;
                    }
                }
            }
        }
        let class = index
            .into_iter()
            .map(|(s, i)| (s, find(&mut parent, i)))
            .collect();
        Classes { stamp, class }
    }

    /// Whether a symbol of `a` and one of `b` are the same or in one class.
    pub(super) fn link(&self, a: &[Arc<str>], b: &[Arc<str>]) -> bool {
        a.iter().any(|s| {
            b.iter().any(|t| {
                s == t
                    || matches!((self.class.get(s), self.class.get(t)), (Some(x), Some(y)) if x == y)
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::sym::{Poly, Rel, Smt};

    fn lt(a: &str, b: &str, k: i128) -> Cond {
        Cond::cmp(
            Rel::Lt,
            &Poly::sym(a).add(&Poly::constant(k)),
            &Poly::sym(b),
        )
    }

    #[test]
    fn classes_link_symbols_through_constraints() {
        // pid < M, M <= 64 link pid and M; K <= 16 stands alone; a chain links a to c.
        let ctx = [
            lt("pid", "M", 0),
            Cond::cmp(Rel::Le, &Poly::sym("M"), &Poly::constant(64)),
            Cond::cmp(Rel::Le, &Poly::sym("K"), &Poly::constant(16)),
            lt("a", "b", 0),
            lt("b", "c", 1),
        ];
        let k = Classes::new(ctx.iter(), (0, 0, 0));
        let s = |x: &str| vec![Arc::from(x)];
        assert!(k.link(&s("pid"), &s("M")));
        assert!(k.link(&s("a"), &s("c")));
        assert!(!k.link(&s("K"), &s("M")));
        assert!(!k.link(&s("K"), &s("pid")));
        // A symbol no constraint mentions links only to itself.
        assert!(k.link(&s("N"), &s("N")));
        assert!(!k.link(&s("N"), &s("M")));
        assert!(k.link(&[Arc::from("K"), Arc::from("pid")], &s("M")));
    }

    /// The claim the classes license, checked by Z3: a condition open on the context
    /// stays open under an assumption over unlinked symbols, and a conjunction of
    /// unlinked open conditions is open.
    #[test]
    fn unlinked_open_conditions_stay_open() {
        let z = z3::Context::new(&z3::Config::new());
        let smt = Smt { ctx: &z };
        let ctx = [
            Cond::cmp(Rel::Le, &Poly::constant(1), &Poly::sym("M")),
            Cond::cmp(Rel::Le, &Poly::constant(1), &Poly::sym("K")),
            Cond::cmp(Rel::Le, &Poly::sym("K"), &Poly::constant(16)),
            Cond::cmp(Rel::Le, &Poly::constant(0), &Poly::sym("pid")),
            lt("pid", "M", 0),
        ];
        let k = Classes::new(ctx.iter(), (0, 0, 0));
        let solver = z3::Solver::new(&z);
        for c in &ctx {
            solver.assert(&smt.cond(c));
        }
        let open = |s: &z3::Solver, c: &Cond| !smt.holds(s, c) && !smt.holds(s, &c.clone().not());
        let row = Cond::cmp(
            Rel::Lt,
            &Poly::sym("pid").scale(16).add(&Poly::constant(3)),
            &Poly::sym("M"),
        );
        let kl = Cond::cmp(Rel::Lt, &Poly::constant(5), &Poly::sym("K"));
        let (mut sr, mut sk) = (Vec::new(), Vec::new());
        row.symbols(&mut sr);
        kl.symbols(&mut sk);
        assert!(!k.link(&sr, &sk));
        assert!(open(&solver, &row) && open(&solver, &kl));
        assert!(open(&solver, &Cond::and(row.clone(), kl.clone())));
        solver.push();
        solver.assert(&smt.cond(&row));
        assert!(open(&solver, &kl), "open under an unlinked assumption");
        solver.pop(1);
    }
}
