//! The concrete cross-check that runs before any "yes".
//!
//! A proof is about the kernel's *terms*; the terms come from the symbolic run, whose
//! smart constructors fold and normalise. The concrete run (the same interpreter over
//! f64, what `lift run` prints) folds nothing. Before `check`, `equiv` or a lift says
//! VERIFIED, the kernel runs concretely at the refuter's first points and every output
//! element is compared with what the claim says it is there. A NaN or infinity on one
//! side where the other is finite, or values apart beyond rounding, is a counterexample
//! that `lift run` replays by construction: a proof and lift's own execution can never
//! contradict each other.
//!
//! The concrete runs look at values only ([`Kernel::run_values`]): races, barrier
//! faults and the other synchronisation errors are the symbolic run's to find, on the
//! same schedule, and the verdict stands on that run.
//!
//! Architecture invariant: this module only runs kernels (through [`Kernel::run_values`]) and
//! evaluates terms (through [`Terms::eval`]); it proves nothing and never mutates terms.

use crate::decide::{point_value, Leaf};
use crate::error::Error;
use crate::kernel::Kernel;
use crate::launch::{ArgValue, Instance, Role};
use crate::npy::Array;
use crate::term::{Evaluator, TermId, Terms};
use rayon::prelude::*;
use std::collections::BTreeMap;

/// The refuter's ordinary points the cross-check runs at (one all-positive, one of
/// mixed signs: see [`point_value`]).
pub const POINTS: [u64; 2] = [1, 2];

/// Inputs of one point: every input tensor and every symbolic scalar of the instance.
#[derive(Clone, Debug, Default)]
pub struct PointInputs {
    pub arrays: BTreeMap<String, Array>,
    pub scalars: BTreeMap<String, f64>,
}

impl PointInputs {
    /// The values [`point_value`] gives at `seed`, for every input element and scalar.
    pub fn at_seed(inst: &Instance, seed: u64) -> PointInputs {
        let mut arrays = BTreeMap::new();
        for t in inst.tensors.iter().filter(|t| t.role != Role::Out) {
            let data = (0..t.numel())
                .map(|flat| {
                    let leaf = Leaf::Input {
                        tensor: t.name.as_str().into(),
                        index: t.unravel(flat).into(),
                    };
                    let v = point_value(seed, &leaf);
                    // Integer tensors take their declared values (or integers of their dtype), as the
                    // refuter's points do (`Terms::fit_input_value`).
                    t.fit(v)
                })
                .collect();
            let shape = t.shape.clone();
            arrays.insert(t.name.clone(), Array { shape, data });
        }
        let scalars = inst
            .args
            .values()
            .filter_map(|a| match a {
                ArgValue::Scalar(name) => Some(name.clone()),
                _ => None,
            })
            .map(|name| {
                let v = point_value(seed, &Leaf::Param(name.as_str().into()));
                (name, v)
            })
            .collect();
        PointInputs { arrays, scalars }
    }

    /// The values of terms at these inputs (f64, as the refuter evaluates them).
    fn eval(&self, terms: &Terms, ids: &[Option<TermId>]) -> Vec<Option<f64>> {
        let input = |name: &str, idx: &[i64]| -> f64 {
            let Some(a) = self.arrays.get(name) else {
                return f64::NAN;
            };
            let flat = idx
                .iter()
                .zip(&a.shape)
                .fold(0usize, |acc, (&i, &d)| acc * d + i as usize);
            a.data.get(flat).copied().unwrap_or(f64::NAN)
        };
        let param = |name: &str| self.scalars.get(name).copied().unwrap_or(f64::NAN);
        let mut ev = Evaluator::new(terms, &input, &param);
        ids.iter().map(|e| e.map(|id| ev.eval(id))).collect()
    }
}

/// Where the concrete run and the claim part.
#[derive(Clone, Debug)]
pub struct Disagreement {
    pub tensor: String,
    pub flat: usize,
    /// What the kernel computes (the concrete run).
    pub kernel: f64,
    /// What the claim (spec, formula or second kernel) says.
    pub claimed: f64,
    /// The point's seed (the caller's inputs: [`crate::decide::CALLER_POINT`]).
    pub point: u64,
    pub inputs: PointInputs,
}

/// What a claim says the outputs are.
pub enum Claim<'a> {
    /// One term per element of each named output (`None`: the claim has no value there).
    Terms(&'a Terms, &'a BTreeMap<String, Vec<Option<TermId>>>),
    /// As `Terms`, for a PyTorch spec: where it is NaN, PyTorch has no value and the
    /// kernel's refines it (`decide::SpecSide`, which refutes a spec NaN at a point that
    /// stays in its domain before any cross-check runs).
    Spec(&'a Terms, &'a BTreeMap<String, Vec<Option<TermId>>>),
    /// A second kernel on its own instance (same tensor names).
    Kernel(&'a Kernel, &'a Instance),
}

/// Runs `kernel` concretely at the cross-check points (the caller's inputs first, when
/// given) and compares each output the claim covers; the first disagreement, if any.
pub fn cross_check(
    kernel: &Kernel,
    inst: &Instance,
    claim: &Claim,
    given: Option<&PointInputs>,
) -> Result<Option<Disagreement>, Error> {
    let mut points: Vec<(u64, PointInputs)> = Vec::new();
    if let Some(g) = given {
        if !g.arrays.is_empty() {
            points.push((crate::decide::CALLER_POINT, g.clone()));
        }
    }
    for seed in POINTS {
        points.push((seed, PointInputs::at_seed(inst, seed)));
    }
    // The points, and the two kernels of an `equiv`, run in parallel; the first
    // disagreement in point order is reported, whatever the thread count.
    type Claimed = BTreeMap<String, Vec<Option<f64>>>;
    let results: Vec<Result<(crate::kernel::RunResult, Claimed), Error>> = points
        .par_iter()
        .map(|(_, inputs)| {
            let (run, claimed) = rayon::join(
                || kernel.run_values(inst, &inputs.arrays, &inputs.scalars),
                || -> Result<Claimed, Error> {
                    Ok(match claim {
                        Claim::Terms(terms, elems) | Claim::Spec(terms, elems) => elems
                            .iter()
                            .map(|(name, ids)| (name.clone(), inputs.eval(terms, ids)))
                            .collect(),
                        Claim::Kernel(other, other_inst) => other
                            .run_values(other_inst, &inputs.arrays, &inputs.scalars)?
                            .outputs
                            .into_iter()
                            .map(|(name, a)| (name, a.data.into_iter().map(Some).collect()))
                            .collect(),
                    })
                },
            );
            Ok((run?, claimed?))
        })
        .collect();
    for ((seed, inputs), result) in points.into_iter().zip(results) {
        let (run, claimed) = result?;
        for (name, got) in &run.outputs {
            let Some(want) = claimed.get(name) else {
                continue;
            };
            for (flat, (&k, c)) in got.data.iter().zip(want).enumerate() {
                let Some(c) = *c else { continue };
                if c.is_nan() && matches!(claim, Claim::Spec(..)) {
                    continue;
                }
                if disagree(k, c) {
                    return Ok(Some(Disagreement {
                        tensor: name.clone(),
                        flat,
                        kernel: k,
                        claimed: c,
                        point: seed,
                        inputs,
                    }));
                }
            }
        }
    }
    Ok(None)
}

/// NaN or ±inf against a different value, or finite values apart beyond what f64
/// rounding of the two evaluation orders explains.
fn disagree(a: f64, b: f64) -> bool {
    if !a.is_finite() || !b.is_finite() {
        return !((a.is_nan() && b.is_nan()) || a == b);
    }
    (a - b).abs() > 1e-6 * (1.0 + a.abs().max(b.abs()))
}
