//! The PyTorch spec language: every op against an independent f64 implementation written
//! here with plain loops, at pseudo-random inputs; broadcasting, keepdim, negative dims,
//! layout ops, outputs and temporaries, error messages, constant rounding, and printed
//! terms of tiny specs.

use lift::term::{erf, Node, Terms};
use lift::torch::{self, Env, FloatType, SpecError, SpecOutput, SpecProgram};
use num_rational::BigRational;
use std::collections::{BTreeMap, BTreeSet};

mod constants;
mod elementwise;
mod issue20;
mod layout;
mod programs;
mod reductions;

// ---- harness ---------------------------------------------------------------------------

/// Deterministic pseudo-random input values: in [-2, 2], or [0.25, 4] for tensors whose
/// name starts with `p` (for log, sqrt, division).
fn rnd(name: &str, idx: &[i64]) -> f64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in name.bytes().chain(idx.iter().flat_map(|i| i.to_le_bytes())) {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h ^= h >> 33;
    h = h.wrapping_mul(0xff51afd7ed558ccd);
    h ^= h >> 33;
    let u = (h >> 11) as f64 / (1u64 << 53) as f64;
    if name.starts_with('p') {
        0.25 + 3.75 * u
    } else {
        -2.0 + 4.0 * u
    }
}

fn param(p: &str) -> f64 {
    match p {
        "eps" => 1e-3,
        "alpha" => 0.7,
        _ => panic!("unknown param {p}"),
    }
}

/// A reference tensor filled with the inputs `rnd` gives `name`.
#[derive(Clone, Debug)]
struct A {
    shape: Vec<usize>,
    d: Vec<f64>,
}

fn unravel(shape: &[usize], mut flat: usize) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for k in (0..shape.len()).rev() {
        idx[k] = flat % shape[k];
        flat /= shape[k];
    }
    idx
}

impl A {
    fn input(name: &str, shape: &[usize]) -> A {
        let n: usize = shape.iter().product();
        let d = (0..n)
            .map(|f| {
                let idx: Vec<i64> = unravel(shape, f).iter().map(|&i| i as i64).collect();
                rnd(name, &idx)
            })
            .collect();
        A {
            shape: shape.to_vec(),
            d,
        }
    }
    fn at(&self, idx: &[usize]) -> f64 {
        let mut f = 0;
        for (&i, &s) in idx.iter().zip(&self.shape) {
            f = f * s + i;
        }
        self.d[f]
    }
    fn build(shape: &[usize], mut f: impl FnMut(&[usize]) -> f64) -> A {
        let n: usize = shape.iter().product();
        let d = (0..n).map(|k| f(&unravel(shape, k))).collect();
        A {
            shape: shape.to_vec(),
            d,
        }
    }
    fn map(&self, f: impl Fn(f64) -> f64) -> A {
        A {
            shape: self.shape.clone(),
            d: self.d.iter().map(|&v| f(v)).collect(),
        }
    }
}

struct Run {
    terms: Terms,
    out: Vec<SpecOutput>,
}

fn try_run(
    spec: &str,
    tensors: &[(&str, &[usize])],
    sizes: &[(&str, i64)],
    float: FloatType,
) -> Result<Run, SpecError> {
    let prog = torch::parse(spec)?;
    let tensors: BTreeMap<String, Vec<usize>> = tensors
        .iter()
        .map(|(n, s)| (n.to_string(), s.to_vec()))
        .collect();
    let scalars: BTreeSet<String> = ["eps".to_string(), "alpha".to_string()].into();
    let values: BTreeMap<String, f64> = [("half".to_string(), 0.5)].into();
    let sizes: BTreeMap<String, i64> = sizes.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let env = Env {
        tensors: &tensors,
        scalars: &scalars,
        values: &values,
        sizes: &sizes,
        float,
    };
    let mut terms = Terms::new();
    let out = prog.instantiate(&mut terms, &env)?;
    Ok(Run { terms, out })
}

fn run(spec: &str, tensors: &[(&str, &[usize])]) -> Run {
    try_run(spec, tensors, &[("N", 4)], FloatType::F64).unwrap_or_else(|e| panic!("{spec}: {e}"))
}

fn names(r: &Run) -> Vec<String> {
    r.out.iter().map(|o| o.name.clone()).collect()
}

impl Run {
    fn output(&self, i: usize) -> (Vec<usize>, Vec<f64>) {
        let o = &self.out[i];
        let vals = o
            .elems
            .iter()
            .map(|&e| self.terms.eval(e, &|n, idx| rnd(n, idx), &|p| param(p)))
            .collect();
        (o.shape.clone(), vals)
    }
}

fn assert_close(spec: &str, got: &(Vec<usize>, Vec<f64>), want: &A) {
    assert_eq!(got.0, want.shape, "{spec}: shape");
    for (i, (&g, &w)) in got.1.iter().zip(&want.d).enumerate() {
        let ok = if w.is_finite() {
            (g - w).abs() <= 1e-12 + 1e-10 * w.abs()
        } else {
            g == w
        };
        assert!(
            ok,
            "{spec}: element {i} ({:?}) is {g}, expected {w}",
            unravel(&want.shape, i)
        );
    }
}

/// Runs `spec` and compares its first output with `want`.
fn check(spec: &str, tensors: &[(&str, &[usize])], want: &A) {
    let r = run(spec, tensors);
    assert_close(spec, &r.output(0), want);
}

fn sigmoid(v: f64) -> f64 {
    1.0 / (1.0 + (-v).exp())
}
