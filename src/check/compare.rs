//! Pairing: every output element of the kernel with the other side's element (a spec's
//! or a second kernel's), all pairs decided, the verdicts folded into a [`Report`].
//!
//! Architecture invariant: `Verified` only when every paired element is `Equal`; a
//! refutation carries `decide`'s point, an unknown its reason.

use super::findings::{CheckOptions, Finding, Outcome, Report};
use crate::decide::{self, Counterexample, Leaf, Verdict as ElemVerdict};
use crate::error::Error;
use crate::launch::Instance;
use crate::spec::Spec;
use crate::term::{TermId, Terms};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Instant;

type Side = BTreeMap<String, (Vec<usize>, Vec<Option<TermId>>)>;

/// The name `compare` gives a PyTorch spec: the right side, which a kernel refines
/// where the spec is NaN outside its domain (`decide::SpecSide`).
pub(super) const SPEC: &str = "spec";

#[allow(clippy::too_many_arguments)]
pub(super) fn compare(
    terms: &mut Terms,
    left: &Spec,
    right: Side,
    right_name: &str,
    title: String,
    inst: &Instance,
    opts: &CheckOptions,
    start: Instant,
) -> Result<Report, Error> {
    let mut pairs = Vec::new();
    let mut slots = Vec::new(); // (tensor position in left.outputs, flat)
    let mut findings_unwritten = Vec::new();
    let mut tensors = Vec::new();
    let mut unchecked = Vec::new();
    for (ti, t) in left.outputs.iter().enumerate() {
        let Some((shape, elems)) = right.get(&t.name) else {
            unchecked.push(t.name.clone());
            continue;
        };
        if shape != &t.shape {
            return Err(Error::Usage(format!(
                "output `{}` has shape {:?} in the kernel but {:?} in the {right_name}",
                t.name, t.shape, shape
            )));
        }
        tensors.push((t.name.clone(), t.shape.clone(), 0usize));
        for (flat, (l, r)) in t.elems.iter().zip(elems).enumerate() {
            match (l, r) {
                (Some(a), Some(b)) => {
                    pairs.push((*a, *b));
                    slots.push((ti, flat));
                }
                (None, None) => {}
                (l, _) => findings_unwritten.push(Finding {
                    tensor: t.name.clone(),
                    index: t.index(flat),
                    left: None,
                    right: None,
                    inputs: Vec::new(),
                    reason: if l.is_none() {
                        "the kernel never writes this element".into()
                    } else {
                        format!("the {right_name} never writes this element")
                    },
                    plain: false,
                    source: t.sources[flat].clone(),
                    point: None,
                }),
            }
        }
    }
    for name in right.keys() {
        if !left.outputs.iter().any(|t| &t.name == name) {
            return Err(Error::Usage(format!(
                "the {right_name} defines `{name}`, which is not an output of the kernel (outputs: {})",
                left.outputs.iter().map(|t| t.name.as_str()).collect::<Vec<_>>().join(", ")
            )));
        }
    }

    // Without given inputs, the first point sets the inputs of a running extremum's
    // finite seed beyond it (`exec::extrema::seed_witness`).
    let roots: Vec<TermId> = pairs.iter().map(|p| p.0).collect();
    let seeds = if opts.inputs.is_empty() {
        crate::exec::extrema::seed_witness(terms, &roots)
    } else {
        BTreeMap::new()
    };
    let extra = |leaf: &Leaf| -> Option<f64> {
        match leaf {
            Leaf::Input { tensor, index } => {
                let Some(a) = opts.inputs.get(&**tensor) else {
                    return seeds.get(&(tensor.to_string(), index.to_vec())).copied();
                };
                let flat = flat_index(index, &a.shape)?;
                a.data.get(flat).copied()
            }
            Leaf::Param(p) => opts.scalars.get(&**p).copied(),
        }
    };
    let decide_opts = decide::Options {
        spec: if right_name == SPEC {
            decide::SpecSide::Right
        } else {
            opts.decide.spec
        },
        ..opts.decide.clone()
    };
    let mut verdicts: Vec<ElemVerdict> =
        decide::decide_all_with_points(terms, &pairs, &decide_opts, &extra);
    // Labels and indices with declared values: an open pair is split over them.
    for (v, &(a, b)) in verdicts.iter_mut().zip(&pairs) {
        if matches!(v, ElemVerdict::Unknown { .. }) {
            if let Some(pre) = super::cases::equal_by_declared_values(terms, a, b, &decide_opts) {
                *v = ElemVerdict::Equal { preconditions: pre };
            }
        }
    }

    let mut preconditions = BTreeSet::new();
    let mut counterexample = findings_unwritten.first().cloned();
    let mut unknown = Vec::new();
    let mut proved = vec![0usize; left.outputs.len()];
    for ((ti, flat), v) in slots.iter().zip(verdicts) {
        let t = &left.outputs[*ti];
        match v {
            ElemVerdict::Equal { preconditions: pre } => {
                proved[*ti] += 1;
                preconditions.extend(pre.iter().map(|p| p.to_string()));
            }
            ElemVerdict::NotEqual(cx) => {
                if counterexample.is_none() {
                    counterexample = Some(refutation(t, *flat, &cx));
                }
            }
            ElemVerdict::Unknown { reason } => unknown.push(Finding {
                tensor: t.name.clone(),
                index: t.index(*flat),
                left: None,
                right: None,
                inputs: Vec::new(),
                // Bit-level code that looks like a libm function says which.
                reason: match left
                    .notes
                    .iter()
                    .find(|(n, f, _)| *n == t.name && f == flat)
                {
                    Some((_, _, note)) => format!("{reason}; {note}"),
                    None => reason,
                },
                plain: false,
                source: t.sources[*flat].clone(),
                point: None,
            }),
        }
    }
    for (name, _, n) in tensors.iter_mut() {
        if let Some(ti) = left.outputs.iter().position(|t| &t.name == name) {
            *n = proved[ti];
        }
    }
    let outcome = if counterexample.is_some() {
        Outcome::Refuted
    } else if !unknown.is_empty() || tensors.is_empty() {
        Outcome::Unknown
    } else {
        Outcome::Verified
    };
    unknown.truncate(5);
    Ok(Report {
        outcome,
        title,
        sizes: inst.sizes.clone(),
        tensors,
        unchecked,
        temporaries: Vec::new(),
        preconditions: preconditions.into_iter().collect(),
        assumptions: Vec::new(),
        precision: None,
        ir: "ttir",
        counterexample,
        unknown,
        all_sizes: None,
        rounding: None,
        seconds: start.elapsed().as_secs_f64(),
    })
}

fn flat_index(index: &[i64], shape: &[usize]) -> Option<usize> {
    if index.len() != shape.len() {
        return None;
    }
    let mut flat = 0usize;
    for (&i, &d) in index.iter().zip(shape) {
        if i < 0 || i as usize >= d {
            return None;
        }
        flat = flat * d + i as usize;
    }
    Some(flat)
}

fn refutation(t: &crate::spec::SpecTensor, flat: usize, cx: &Counterexample) -> Finding {
    let plain = !cx.below_f32;
    let inputs = cx
        .values
        .iter()
        .map(|(leaf, v)| (leaf_name(leaf), *v))
        .collect();
    Finding {
        tensor: t.name.clone(),
        index: t.index(flat),
        left: Some(cx.lhs),
        right: Some(cx.rhs),
        inputs,
        reason: if cx.below_f32 {
            format!(
                "they differ by {:e}: below f32's resolution at these values (a real \
                 difference, which a kernel computing in f32 may round away)",
                (cx.lhs - cx.rhs).abs()
            )
        } else {
            "the two sides differ at these inputs".into()
        },
        plain,
        source: t.sources[flat].clone(),
        point: Some(cx.point),
    }
}

/// `x[1,2]` for an input element, the name for a scalar (as terms print them).
pub(super) fn leaf_name(leaf: &Leaf) -> String {
    match leaf {
        Leaf::Input { tensor, index } => {
            let parts: Vec<String> = index.iter().map(|i| i.to_string()).collect();
            format!("{tensor}[{}]", parts.join(","))
        }
        Leaf::Param(p) => p.to_string(),
    }
}
