//! The values of the all-sizes run: a lane is an integer over the sizes ([`Poly`]), a
//! condition on them ([`Cond`]), a real (a term), a pointer, or undefined; a value is a
//! shaped vector of lanes. Also the run's error ([`Unsupported`]) and the broadcast of
//! operands (the shape ops themselves are read in `exec::shape`).
//!
//! Invariant: nothing here asks Z3 or reads a path; `small_witness` only reads the
//! solver it is given.

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
/// then 1024, then any): a witness a person can replay. `None` when Z3 finds none.
pub fn small_witness<'ctx>(
    solver: &z3::Solver<'ctx>,
    smt: &Smt<'ctx>,
    sizes: &[String],
) -> Option<Vec<(String, i64)>> {
    for cap in [Some(16), Some(1024), None] {
        solver.push();
        if let Some(cap) = cap {
            for s in sizes {
                let c = Cond::cmp(Rel::Le, &Poly::sym(s), &Poly::constant(cap));
                solver.assert(&smt.cond(&c));
            }
        }
        let found = (solver.check() == SatResult::Sat)
            .then(|| solver.get_model())
            .flatten()
            .map(|m| {
                sizes
                    .iter()
                    .filter_map(|s| {
                        let v = m.eval(&z3::ast::Int::new_const(smt.ctx, s.as_str()), true)?;
                        Some((s.clone(), v.as_i64()?))
                    })
                    .collect()
            });
        solver.pop(1);
        if found.is_some() {
            return found;
        }
    }
    None
}

/// The name of the real-valued atom for element `idx` of tensor `name`; the formula
/// side names its inputs the same way ([`super::at_index`]).
pub fn atom_name(name: &str, idx: &[Poly]) -> String {
    let parts: Vec<String> = idx.iter().map(|p| p.to_string()).collect();
    format!("{name}[{}]", parts.join(", "))
}
