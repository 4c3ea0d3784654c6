//! The values of the all-sizes run: a lane is an integer over the sizes ([`Poly`]), a
//! condition on them ([`Cond`]), a real (a term), a pointer, or undefined; a value is a
//! shaped vector of lanes. Also the run's error ([`Unsupported`]) and the broadcast of
//! operands (the shape ops themselves are read in `exec::shape`).
//!
//! Invariant: nothing here reads a path; `small_witness` and `least` only ask the
//! solver they are given, and leave its assertion stack as they found it.

use super::sym::{Cond, Poly, Rel, Smt};
use crate::exec::domain::Truth;
use crate::term::TermId;
use crate::triton_ir::ast::Loc;
use z3::SatResult;

/// Why the symbolic run stopped: a construct it cannot read for all sizes.
#[derive(Clone, Debug)]
pub struct Unsupported {
    pub message: String,
    pub line: u32,
    pub loc: Loc,
    /// Sizes where what could not be proved fails, when Z3 found some (the caller
    /// replays them).
    pub witness: Option<Vec<(String, i64)>>,
}

pub(super) type R<T> = Result<T, Unsupported>;

pub(super) fn unsupported<T>(message: impl Into<String>) -> R<T> {
    Err(Unsupported {
        message: message.into(),
        line: 0,
        loc: Loc::default(),
        witness: None,
    })
}

/// One lane of a runtime value.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Lane {
    Int(Poly),
    Bool(Cond),
    Float(TermId),
    /// A comparison of reals (an undecided boolean of the term domain).
    FBool(TermId),
    /// An integer chosen by the data (`tl.where(x < 0, -1, 1)`): the real it is, and
    /// the least value it can take. Only converted to float or stored (see
    /// `exec/ops/select.rs` for the bounded interpreter's fuller support).
    DataInt(TermId, i128),
    Ptr {
        tensor: usize,
        off: Poly,
    },
    /// A masked-off lane loaded without `other=`.
    Undef,
    /// An integer Philox mixes, exact modulo 2^w (`super::rand`).
    Bits(super::bits::BitId),
}

#[derive(Clone, Debug)]
pub(super) struct Val {
    pub(super) shape: Vec<usize>,
    pub(super) lanes: Vec<Lane>,
}

impl Val {
    pub(super) fn scalar(l: Lane) -> Val {
        Val {
            shape: vec![],
            lanes: vec![l],
        }
    }
    pub(super) fn splat(l: Lane, shape: &[usize]) -> Val {
        Val {
            shape: shape.to_vec(),
            lanes: vec![l; shape.iter().product()],
        }
    }
}

pub(super) type Env = crate::exec::walk::Env<Val>;

pub(super) type Flow = crate::exec::walk::Flow<Val>;

pub(super) fn truth(t: Truth<TermId>) -> Lane {
    match t {
        Truth::Known(b) => Lane::Bool(Cond::Const(b)),
        Truth::Unknown(v) => Lane::FBool(v),
    }
}

/// `a` broadcast (equal rank, unit axes stretched; a scalar splatted) to `shape`.
pub(super) fn bcast(a: &Val, shape: &[usize]) -> R<Val> {
    if a.shape == shape {
        return Ok(a.clone());
    }
    if a.lanes.len() == 1 {
        return Ok(Val::splat(a.lanes[0].clone(), shape));
    }
    match crate::exec::shape::broadcast(&a.shape, &a.lanes, shape) {
        Ok(lanes) => Ok(Val {
            shape: shape.to_vec(),
            lanes,
        }),
        Err(m) => unsupported(m),
    }
}

/// Sizes satisfying `solver`'s assertions, small ones first (every size at most 16,
/// then 1024, then any): a witness a person can replay. Within the first of those
/// caps that admits sizes, the least in the order of `sizes` ([`least`]), so the
/// witness is a function of the question, not of what the solver was asked before.
/// `None` when Z3 finds none.
pub fn small_witness<'ctx>(
    solver: &z3::Solver<'ctx>,
    smt: &Smt<'ctx>,
    sizes: &[String],
) -> Option<Vec<(String, i64)>> {
    let vars: Vec<(z3::ast::Int<'ctx>, i64)> = sizes
        .iter()
        .map(|s| (z3::ast::Int::new_const(smt.ctx, s.as_str()), 1))
        .collect();
    for cap in [Some(16), Some(1024), None] {
        solver.push();
        if let Some(cap) = cap {
            for s in sizes {
                let c = Cond::cmp(Rel::Le, &Poly::sym(s), &Poly::constant(cap));
                solver.assert(&smt.cond(&c));
            }
        }
        let found = least(solver, &vars).map(|vs| sizes.iter().cloned().zip(vs).collect());
        solver.pop(1);
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The least values of `vars` under `solver`'s assertions, in turn: the first as
/// small as it can be (at least its floor), then the second with the first fixed,
/// and so on. Read from satisfiability checks alone, never from a model, so the
/// answer depends on the assertions and not on Z3's history (which decides the
/// model it returns). `None` when the assertions are not satisfiable (or Z3 cannot
/// tell), or a value lies past `floor + 2^61`. The solver's stack is left as found.
pub(super) fn least<'ctx>(
    solver: &z3::Solver<'ctx>,
    vars: &[(z3::ast::Int<'ctx>, i64)],
) -> Option<Vec<i64>> {
    use z3::ast::{Ast, Int};
    if solver.check() != SatResult::Sat {
        return None;
    }
    let ctx = solver.get_context();
    let mut out = Vec::with_capacity(vars.len());
    solver.push();
    for (x, floor) in vars {
        solver.assert(&x.ge(&Int::from_i64(ctx, *floor)));
        let Some(v) = least_from(solver, x, *floor) else {
            break;
        };
        solver.assert(&x._eq(&Int::from_i64(ctx, v)));
        out.push(v);
    }
    solver.pop(1);
    (out.len() == vars.len()).then_some(out)
}

/// The least `v >= floor` such that the assertions (`x >= floor` among them) and
/// `x <= v` are satisfiable: probes `floor`, `floor + 1`, `floor + 3`, `floor + 7`, …
/// until one is, then halves the last gap, about `2·log2(v - floor + 1)` checks, so
/// the small witnesses wanted are cheap. An unknown check counts as unsatisfiable.
fn least_from<'ctx>(solver: &z3::Solver<'ctx>, x: &z3::ast::Int<'ctx>, floor: i64) -> Option<i64> {
    use z3::ast::Int;
    let ctx = solver.get_context();
    let at_most = |v: i64| {
        solver.push();
        solver.assert(&x.le(&Int::from_i64(ctx, v)));
        let sat = solver.check() == SatResult::Sat;
        solver.pop(1);
        sat
    };
    let (mut lo, mut hi) = (floor, floor);
    let mut gap: i64 = 1;
    while !at_most(hi) {
        if gap > 1 << 61 {
            return None;
        }
        lo = hi + 1;
        hi = floor.checked_add(2 * gap - 1)?;
        gap *= 2;
    }
    // `x <= hi` is satisfiable, `x <= lo - 1` is not.
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if at_most(mid) {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    Some(hi)
}

/// The name of the real-valued atom for element `idx` of tensor `name`; the formula
/// side names its inputs the same way ([`super::at_index`]).
pub fn atom_name(name: &str, idx: &[Poly]) -> String {
    let parts: Vec<String> = idx.iter().map(|p| p.to_string()).collect();
    format!("{name}[{}]", parts.join(", "))
}

#[cfg(test)]
mod tests {
    use super::least;
    use z3::ast::{Ast, Int};

    /// `least` answers the question, whatever was asked before: sizes `n` and `m` with
    /// `n % 4 == 3`, `n >= 6` and `m > n` (a failing path's kind of condition) give
    /// n = 7, m = 8 on a fresh solver and on one that was first asked about large
    /// values (whose models Z3 would otherwise drift towards); unsatisfiable
    /// assertions give `None`; the stack is left as found.
    #[test]
    fn least_values_do_not_depend_on_history() {
        let ctx = z3::Context::new(&z3::Config::new());
        let (n, m) = (Int::new_const(&ctx, "n"), Int::new_const(&ctx, "m"));
        let k = |v: i64| Int::from_i64(&ctx, v);
        let ask = |s: &z3::Solver| {
            s.assert(&n.modulo(&k(4))._eq(&k(3)));
            s.assert(&n.ge(&k(6)));
            s.assert(&m.gt(&n));
            least(s, &[(n.clone(), 1), (m.clone(), 1)])
        };
        let fresh = z3::Solver::new(&ctx);
        assert_eq!(ask(&fresh), Some(vec![7, 8]));

        let used = z3::Solver::new(&ctx);
        used.push();
        used.assert(&n.ge(&k(1_000_003)));
        used.assert(&m.ge(&k(5_000_000)));
        assert_eq!(used.check(), z3::SatResult::Sat);
        used.pop(1);
        assert_eq!(ask(&used), Some(vec![7, 8]));
        // The values it fixed on the way are popped: n = 11 is still possible, n = 9 not.
        used.push();
        used.assert(&n._eq(&k(11)));
        assert_eq!(used.check(), z3::SatResult::Sat);
        used.pop(1);
        used.assert(&n._eq(&k(9)));
        assert_eq!(used.check(), z3::SatResult::Unsat);

        let none = z3::Solver::new(&ctx);
        none.assert(&n.lt(&k(0)));
        assert_eq!(least(&none, &[(n.clone(), 1)]), None);
    }
}
