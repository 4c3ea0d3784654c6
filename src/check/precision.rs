//! Looks for a size and an input where the kernel, computing in its own float types,
//! leaves PyTorch's tolerance for its dtype (docs/semantics.md, "Values"): a refutation the reals
//! cannot see.
//!
//! A proof reads f16/bf16 arithmetic as exact and names it; this search asks whether the
//! rounding matters. It runs the kernel concretely twice per point, in the reals and
//! in its own precision (`--precision ieee`: f16/bf16 steps rounded, f32 overflowing to
//! inf), and evaluates the spec exactly (f64) at the same inputs. A point refutes when
//! the real run agrees with the spec (so the size is one the kernel handles) and the
//! rounded run is outside `torch.testing.assert_close`'s default tolerance for the
//! dtype. The rounded run is what `lift run --precision ieee` computes on the same
//! inputs, so the counterexample replays.
//!
//! Where a kernel accumulates below f32 (a running f16 sum), the size that the
//! accumulation runs over is grown (each size doubled in turn from the launch's, up to
//! [`MAX_ELEMENTS`] elements per tensor), with all-equal and uniform inputs. Under
//! `--precision ieee` the launch's sizes are also tried with inputs of large magnitude
//! (±90, ±100, ±1e4, rounded to the tensor's type), where f32's `exp` overflows.
//!
//! Architecture invariant: deterministic (fixed sizes, fixed inputs, no clock); only
//! runs kernels ([`Kernel::execute`]) and evaluates terms; proves nothing.

use super::reference::spec_outputs;
use crate::crosscheck::PointInputs;
use crate::error::Error;
use crate::exec::domain::{Concrete, Precision};
use crate::kernel::Kernel;
use crate::launch::{ArgBinding, Instance, Role};
use crate::npy::Array;
use crate::term::{round_float, Evaluator, Terms, BF16, F16};
use crate::torch::SpecOutput;
use crate::triton_ir::ast::{FloatKind, Type};
use std::collections::BTreeMap;

/// The largest tensor (in elements) the growing search runs.
pub const MAX_ELEMENTS: usize = 1 << 20;

/// A point where the kernel's own precision leaves the dtype's tolerance.
#[derive(Clone, Debug)]
pub struct Found {
    pub sizes: BTreeMap<String, i64>,
    /// The output element.
    pub tensor: String,
    pub index: Vec<usize>,
    /// The kernel in its own precision (what `lift run --precision ieee` gives).
    pub rounded: f64,
    /// The kernel in the reals (what `lift run` gives).
    pub real: f64,
    /// The spec, evaluated in f64.
    pub expected: f64,
    /// The tolerance's dtype, `rtol`, `atol`.
    pub dtype: &'static str,
    pub rtol: f64,
    pub atol: f64,
    /// The inputs, in words (`x = 1 everywhere`).
    pub pattern: String,
    pub inputs: PointInputs,
}

impl Found {
    /// One line for a report.
    pub fn describe(&self) -> String {
        let sizes: Vec<String> = self.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        format!(
            "in its own precision the kernel gives {:?} (in the reals {:?}), outside \
             torch.testing's {} tolerance (rtol {:e}, atol {:e}) of {:?}, at {} with {}; \
             `lift run --precision ieee` replays it",
            self.rounded,
            self.real,
            self.dtype,
            self.rtol,
            self.atol,
            self.expected,
            sizes.join(", "),
            self.pattern
        )
    }
}

/// What to search.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Scope {
    /// Grow the sizes (the kernel accumulates below f32).
    pub grow: bool,
    /// Large magnitudes at the launch's sizes (`--precision ieee`).
    pub large: bool,
}

/// The search for `kernel` against the PyTorch spec `spec_src`, starting from `inst`;
/// `None` when no point leaves the tolerance (which proves nothing).
pub fn search(
    kernel: &Kernel,
    inst: &Instance,
    spec_src: &str,
    scope: Scope,
) -> Result<Option<Found>, Error> {
    if kernel.is_ptx() {
        // The PTX executor rounds no f16 arithmetic and keeps no f32 range yet.
        return Ok(None);
    }
    let program =
        crate::torch::parse(spec_src).map_err(|e| Error::Usage(format!("--spec: {e}")))?;
    let kinds = tensor_kinds(kernel);
    let (dtype, rtol, atol) = tolerance(&kinds);
    let search = Search {
        kernel,
        program: &program,
        kinds: &kinds,
        dtype,
        rtol,
        atol,
    };
    if scope.large {
        let spec = search.spec(inst)?;
        for pattern in LARGE {
            if let Point::Found(f) = search.at(inst, &spec, pattern)? {
                return Ok(Some(f));
            }
        }
    }
    if scope.grow {
        for size in growth_order(kernel, inst) {
            let mut sizes = inst.sizes.clone();
            while let Some(n) = sizes.get(&size).and_then(|n| n.checked_mul(2)) {
                sizes.insert(size.clone(), n.max(1));
                // A size the launch rejects, or one past the cap, ends this size's growth.
                let Ok(grown) = kernel.instance(&sizes) else {
                    break;
                };
                if grown.tensors.iter().any(|t| t.numel() > MAX_ELEMENTS) {
                    break;
                }
                let mut handled = true;
                let spec = search.spec(&grown)?;
                for pattern in GROWING {
                    match search.at(&grown, &spec, pattern)? {
                        Point::Found(f) => return Ok(Some(f)),
                        Point::NotHandled => handled = false,
                        Point::Within => {}
                    }
                }
                // The kernel does not compute the spec at this size even in the reals
                // (a size its all-sizes proof excludes): larger ones are not asked.
                if !handled {
                    break;
                }
            }
        }
    }
    Ok(None)
}

/// The inputs of one point.
#[derive(Clone, Copy, Debug)]
enum Pattern {
    /// Every element of every input tensor the same value.
    Constant(f64),
    /// Every element alternately `+c`, `-c`.
    Alternating(f64),
    /// Deterministic pseudo-random values in [0, 1).
    Uniform,
}

/// The patterns tried at each grown size: a sum of ones stops growing where the type's
/// integers end (2048 in f16, 256 in bf16); a tenth rounds at every step; uniform
/// values are what a user's test would use.
const GROWING: [Pattern; 3] = [
    Pattern::Constant(1.0),
    Pattern::Constant(0.1),
    Pattern::Uniform,
];

/// The patterns tried at the launch's sizes under `--precision ieee`: both sides of
/// where f32's `exp` overflows (88.7), and a magnitude whose square is still an f32
/// (larger ones overflow in PyTorch's f32 too, in a norm's sum of squares).
const LARGE: [Pattern; 8] = [
    Pattern::Constant(90.0),
    Pattern::Constant(-90.0),
    Pattern::Constant(100.0),
    Pattern::Constant(-100.0),
    Pattern::Constant(1e4),
    Pattern::Constant(-1e4),
    Pattern::Alternating(100.0),
    Pattern::Alternating(1e4),
];

impl Pattern {
    fn value(self, flat: usize) -> f64 {
        match self {
            Pattern::Constant(c) => c,
            Pattern::Alternating(c) if flat.is_multiple_of(2) => c,
            Pattern::Alternating(c) => -c,
            Pattern::Uniform => {
                // splitmix64 of the index: the same values on every machine.
                let mut z = (flat as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
                z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
                z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
                z ^= z >> 31;
                (z >> 11) as f64 / (1u64 << 53) as f64
            }
        }
    }

    fn describe(self, names: &[&str]) -> String {
        let all = names.join(", ");
        match self {
            Pattern::Constant(c) => format!("every element of {all} = {c}"),
            Pattern::Alternating(c) => format!("{all} alternately {c} and -{c}"),
            Pattern::Uniform => format!("{all} uniform in [0, 1) (splitmix64 of the index)"),
        }
    }
}

enum Point {
    /// Both runs within tolerance.
    Within,
    /// The real run does not agree with the spec: not a question of precision.
    NotHandled,
    Found(Found),
}

struct Search<'a> {
    kernel: &'a Kernel,
    program: &'a crate::torch::SpecProgram,
    kinds: &'a BTreeMap<String, FloatKind>,
    dtype: &'static str,
    rtol: f64,
    atol: f64,
}

impl Search<'_> {
    /// One point: the kernel in the reals and in its own precision against the spec.
    /// The spec's outputs on `inst`, as terms.
    fn spec(&self, inst: &Instance) -> Result<(Terms, Vec<SpecOutput>), Error> {
        let mut terms = Terms::new();
        let outputs = spec_outputs(self.kernel, inst, self.program, &mut terms)?;
        Ok((terms, outputs))
    }

    fn at(
        &self,
        inst: &Instance,
        (terms, expected): &(Terms, Vec<SpecOutput>),
        pattern: Pattern,
    ) -> Result<Point, Error> {
        let Some(inputs) = self.inputs(inst, pattern) else {
            return Ok(Point::Within);
        };
        // A run that fails (a size the kernel reads out of bounds at) is not a question
        // of precision either; the proof reports such sizes.
        let (Ok(real), Ok(rounded)) = (
            self.run(inst, &inputs, Precision::Real),
            self.run(inst, &inputs, Precision::Ieee),
        ) else {
            return Ok(Point::NotHandled);
        };
        let input = |name: &str, idx: &[i64]| -> f64 {
            let Some(a) = inputs.arrays.get(name) else {
                return f64::NAN;
            };
            let flat = idx
                .iter()
                .zip(&a.shape)
                .fold(0usize, |acc, (&i, &d)| acc * d + i as usize);
            a.data.get(flat).copied().unwrap_or(f64::NAN)
        };
        let param = |name: &str| inputs.scalars.get(name).copied().unwrap_or(f64::NAN);
        let mut ev = Evaluator::new(terms, &input, &param);
        let mut handled = true;
        for out in expected {
            let (Some(r), Some(g)) = (real.get(&out.name), rounded.get(&out.name)) else {
                continue;
            };
            for (flat, &id) in out.elems.iter().enumerate() {
                let want = ev.eval(id);
                if !want.is_finite() || want.abs() > f32::MAX as f64 {
                    // No tolerance to leave where the spec itself is not finite, nor
                    // where PyTorch's own f32 result would overflow (`exp(90)`).
                    continue;
                }
                if !close(r[flat], want, 1e-9, 1e-9) {
                    handled = false;
                    continue;
                }
                if !close(g[flat], want, self.rtol, self.atol) {
                    let names: Vec<&str> = inputs.arrays.keys().map(String::as_str).collect();
                    return Ok(Point::Found(Found {
                        sizes: inst.sizes.clone(),
                        tensor: out.name.clone(),
                        index: crate::exec::value::unravel(flat, &out.shape),
                        rounded: g[flat],
                        real: r[flat],
                        expected: want,
                        dtype: self.dtype,
                        rtol: self.rtol,
                        atol: self.atol,
                        pattern: pattern.describe(&names),
                        inputs,
                    }));
                }
            }
        }
        Ok(if handled {
            Point::Within
        } else {
            Point::NotHandled
        })
    }

    /// The pattern's values for every input tensor, each a value of the tensor's type;
    /// `None` when a value does not exist there (1e5 in f16).
    fn inputs(&self, inst: &Instance, pattern: Pattern) -> Option<PointInputs> {
        let mut arrays = BTreeMap::new();
        for t in inst.tensors.iter().filter(|t| t.role != Role::Out) {
            let kind = self.kinds.get(&t.name).copied();
            let mut data = Vec::with_capacity(t.numel());
            for flat in 0..t.numel() {
                let v = match kind {
                    Some(k) => in_kind(pattern.value(flat), k),
                    // Integer (or untyped) tensors: their own values, as the refuter's.
                    None => t.fit(pattern.value(flat)),
                };
                if !v.is_finite() {
                    return None;
                }
                data.push(v);
            }
            let shape = t.shape.clone();
            arrays.insert(t.name.clone(), Array { shape, data });
        }
        // Symbolic scalars (an `eps`) take the cross-check's first point's values.
        let scalars = PointInputs::at_seed(inst, crate::crosscheck::POINTS[0]).scalars;
        Some(PointInputs { arrays, scalars })
    }

    /// The outputs of one concrete run, by name.
    fn run(
        &self,
        inst: &Instance,
        inputs: &PointInputs,
        precision: Precision,
    ) -> Result<BTreeMap<String, Vec<f64>>, Error> {
        let data = inst
            .tensors
            .iter()
            .map(|t| inputs.arrays.get(&t.name).map(|a| a.data.clone()))
            .collect();
        let mut domain = Concrete {
            data,
            scalars: inputs.scalars.clone(),
            precision,
            values_only: true,
        };
        let run = self.kernel.execute(inst, &mut domain)?;
        Ok(run
            .outputs
            .into_iter()
            .map(|o| {
                let data = o.elems.iter().map(|e| e.unwrap_or(f64::NAN)).collect();
                (o.name, data)
            })
            .collect())
    }
}

/// `torch.testing.assert_close`'s test: equal non-finite values, or
/// `|got - want| <= atol + rtol·|want|`.
fn close(got: f64, want: f64, rtol: f64, atol: f64) -> bool {
    if !got.is_finite() || !want.is_finite() {
        return got == want || (got.is_nan() && want.is_nan());
    }
    (got - want).abs() <= atol + rtol * want.abs()
}

/// `x` as the nearest value of the float type `k`.
fn in_kind(x: f64, k: FloatKind) -> f64 {
    match k {
        FloatKind::F16 => round_float(x, F16),
        FloatKind::BF16 => round_float(x, BF16),
        FloatKind::F32 => x as f32 as f64,
        FloatKind::F64 | FloatKind::F8 => x,
    }
}

/// The float element type of each tensor, from the TTIR entry's pointer parameters.
fn tensor_kinds(kernel: &Kernel) -> BTreeMap<String, FloatKind> {
    let mut out = BTreeMap::new();
    for arg in kernel
        .triton()
        .and_then(|m| m.entry())
        .into_iter()
        .flat_map(|f| f.args.iter())
    {
        let Type::Ptr(t) = &arg.ty else { continue };
        let Type::Float(k) = t.elem() else { continue };
        if let Some(ArgBinding::Tensor { tensor, .. }) = kernel.launch.args.get(&arg.name) {
            out.insert(tensor.clone(), *k);
        }
    }
    out
}

/// `torch.testing.assert_close`'s default tolerance for the narrowest float type among
/// the kernel's tensors (the precision a PyTorch reference in that dtype would have).
fn tolerance(kinds: &BTreeMap<String, FloatKind>) -> (&'static str, f64, f64) {
    let rank = |k: &FloatKind| match k {
        FloatKind::F8 | FloatKind::BF16 => 0,
        FloatKind::F16 => 1,
        FloatKind::F32 => 2,
        FloatKind::F64 => 3,
    };
    match kinds.values().min_by_key(|k| rank(k)) {
        Some(FloatKind::BF16 | FloatKind::F8) => ("bfloat16", 1.6e-2, 1e-5),
        Some(FloatKind::F16) => ("float16", 1e-3, 1e-5),
        Some(FloatKind::F64) => ("float64", 1e-7, 1e-7),
        _ => ("float32", 1.3e-6, 1e-5),
    }
}

/// The sizes to grow, the likeliest reduction extents first: those that are the last
/// axis of an input tensor (a row's length), then the others.
fn growth_order(kernel: &Kernel, inst: &Instance) -> Vec<String> {
    let mut last_axis = Vec::new();
    for b in kernel.launch.args.values() {
        if let ArgBinding::Tensor { shape, role, .. } = b {
            if *role != Role::Out {
                if let Some(crate::launch::Expr::Size(s)) = shape.last() {
                    last_axis.push(s.clone());
                }
            }
        }
    }
    let mut order: Vec<String> = inst
        .sizes
        .keys()
        .filter(|s| last_axis.contains(s))
        .cloned()
        .collect();
    order.extend(
        inst.sizes
            .keys()
            .filter(|s| !last_axis.contains(s))
            .cloned(),
    );
    order
}
