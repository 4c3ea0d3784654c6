//! `lift race` beyond the launch's instance: an mbarrier pipeline's safety for every
//! value of its loop-count size (the number of K tiles).
//!
//! The count is the one size that is passed to the kernel as an integer argument
//! exactly (`"K"`), sizes a tensor, and enters no grid, block or shared-memory
//! expression. Every value from 1 to [`SWEEP`] is run one by one (the same run as the
//! launch's: a finding at any of them is the answer, `DEADLOCK at K=3`); beyond,
//! `ptx::exec::every` tries to prove that the pipeline's state repeats (see there), which
//! covers every larger count up to the bound it states.
//!
//! Invariant: "for every K" is claimed only when each count up to the sweep was run and
//! found safe and the repetition proof covers every count above it up to the bound
//! printed; anything less is said as what it is (swept counts, the reason the proof
//! stops).

use crate::error::Error;
use crate::exec::addresses::AddressOnly;
use crate::exec::ErrorKind;
use crate::kernel::Kernel;
use crate::launch::{ArgBinding, Expr, Instance};

/// Counts run one by one: 1 to `SWEEP`. Large enough to cover every residue of the
/// compilers' 4× and 8× unrolling, both phase parities and a ring of up to 8 stages
/// twice over.
pub const SWEEP: i64 = 32;

/// Counts run one by one where the repetition proof fails: up to `FURTHER`, so that a
/// bug that needs a few more tiles is still found.
pub const FURTHER: i64 = 128;

/// What `lift race` found for every value of the count.
#[derive(Clone, Debug, PartialEq)]
pub enum Every {
    /// Safe at every count from 1 to `swept`; beyond, `proof` says up to which count
    /// the repetition proof covers (and how), or why it does not.
    Safe {
        size: String,
        swept: i64,
        proof: Result<Proof, String>,
    },
    /// A finding at count `at` (the launch's count is safe).
    Unsafe {
        size: String,
        at: i64,
        kind: ErrorKind,
        message: String,
    },
    /// A count of the sweep lift could not decide (unsupported at that count).
    Unknown {
        size: String,
        at: i64,
        reason: String,
    },
}

/// The repetition proof's claim: safe for every count from `from` to `upto`.
#[derive(Clone, Debug, PartialEq)]
pub struct Proof {
    pub from: i64,
    pub upto: i64,
    /// How: the period, the counts it was proved from and what bounds `upto`.
    pub how: String,
}

/// The loop-count size of an mbarrier pipeline (see the module documentation), if the
/// kernel is one.
pub fn count_size(kernel: &Kernel) -> Option<String> {
    let ptx = kernel.ptx()?;
    let entry = ptx.module.entry(None)?;
    if !entry.body.iter().any(|i| i.op == "mbarrier") {
        return None;
    }
    let launch = &kernel.launch;
    let mut fixed: Vec<&Expr> = launch.grid.iter().chain(&launch.block).collect();
    fixed.extend(&launch.dynamic_shared);
    let shapes: Vec<&Expr> = launch
        .args
        .values()
        .filter_map(|a| match a {
            ArgBinding::Tensor { shape, .. } => Some(shape),
            _ => None,
        })
        .flatten()
        .collect();
    let mut names = launch.args.values().filter_map(|a| match a {
        ArgBinding::Int(Expr::Size(n)) => Some(n.clone()),
        _ => None,
    });
    let name = names.next()?;
    let used = |e: &Expr| mentions(e, &name);
    (names.next().is_none() && !fixed.iter().any(|e| used(e)) && shapes.iter().any(|e| used(e)))
        .then_some(name)
}

fn mentions(e: &Expr, name: &str) -> bool {
    match e {
        Expr::Int(_) => false,
        Expr::Size(n) => n == name,
        Expr::Neg(a) => mentions(a, name),
        Expr::Bin(_, a, b) => mentions(a, name) || mentions(b, name),
    }
}

/// A count's finding: its kind and message; `None` when safe.
pub type Finding = Option<(ErrorKind, String)>;

/// Run `check` at every count from 1 to [`SWEEP`] but the launch's (already run),
/// then `prove` beyond. `check` is `lift race`'s run at one instance.
pub fn every(
    kernel: &Kernel,
    inst: &Instance,
    size: &str,
    mut check: impl FnMut(&Instance) -> Result<Finding, Error>,
    prove: impl FnOnce(i64) -> Result<Proof, NoProof>,
) -> Result<Every, Error> {
    if let Some(found) = sweep(kernel, inst, size, 1..=SWEEP, &mut check)? {
        return Ok(found);
    }
    let mut swept = SWEEP;
    let proof = match prove(SWEEP + 1) {
        Ok(p) => Ok(p),
        Err(NoProof::Unknown(m)) => {
            if let Some(found) = sweep(kernel, inst, size, SWEEP + 1..=FURTHER, &mut check)? {
                return Ok(found);
            }
            swept = FURTHER;
            Err(m)
        }
        // A count the proof ran is unsafe: its own run says how.
        Err(NoProof::FindingAt(at)) => match sweep(kernel, inst, size, at..=at, &mut check)? {
            Some(found) => return Ok(found),
            None => Err(format!(
                "the proof's run at {size}={at} failed, the check there did not"
            )),
        },
    };
    Ok(Every::Safe {
        size: size.into(),
        swept,
        proof,
    })
}

/// Run `check` at each count of `counts` but the launch's: the first finding, or
/// `None`.
fn sweep(
    kernel: &Kernel,
    inst: &Instance,
    size: &str,
    counts: std::ops::RangeInclusive<i64>,
    check: &mut impl FnMut(&Instance) -> Result<Finding, Error>,
) -> Result<Option<Every>, Error> {
    let launch_count = inst.sizes.get(size).copied();
    for at in counts {
        if Some(at) == launch_count {
            continue;
        }
        let mut sizes = inst.sizes.clone();
        sizes.insert(size.to_string(), at);
        let one = kernel.instance(&sizes)?;
        match check(&one) {
            Ok(None) => {}
            Ok(Some((kind, message))) => {
                return Ok(Some(Every::Unsafe {
                    size: size.into(),
                    at,
                    kind,
                    message,
                }))
            }
            Err(e) => {
                return Ok(Some(Every::Unknown {
                    size: size.into(),
                    at,
                    reason: e.to_string(),
                }))
            }
        }
    }
    Ok(None)
}

impl Every {
    /// The lines `lift race` prints about it, above the verdict line.
    pub fn lines(&self) -> Vec<String> {
        match self {
            Every::Safe {
                size,
                swept,
                proof: Ok(p),
            } => vec![format!(
                "  for every {size} from 1 to {}: safe ({size} = 1 to {swept} run one by one; \
                 {size} = {} to {} proved: {})",
                p.upto, p.from, p.upto, p.how
            )],
            Every::Safe {
                size,
                swept,
                proof: Err(why),
            } => vec![format!(
                "  also safe at {size} = 1 to {swept} (run one by one); for every {size}: \
                 UNKNOWN — {why}"
            )],
            Every::Unsafe {
                size, at, message, ..
            } => vec![format!("  at {size}={at}: {message}")],
            Every::Unknown { size, at, reason } => vec![format!(
                "  for every {size}: UNKNOWN — at {size}={at} lift cannot decide: {reason}"
            )],
        }
    }

    /// What the verdict line adds after its word: ` for every K from 1 to 22369621`,
    /// ` at K=3`, or nothing.
    pub fn scope(&self) -> String {
        match self {
            Every::Safe {
                size, proof: Ok(p), ..
            } => format!(" for every {size} from 1 to {}", p.upto),
            Every::Unsafe { size, at, .. } => format!(" at {size}={at}"),
            _ => String::new(),
        }
    }

    /// The JSON object of `lift.race/1`'s `every_size`.
    pub fn to_json(&self) -> serde_json::Value {
        match self {
            Every::Safe { size, swept, proof } => serde_json::json!({
                "size": size,
                "verdict": "safe",
                "swept": [1, swept],
                "proved": proof.as_ref().ok().map(|p| [p.from, p.upto]),
                "how": proof.as_ref().ok().map(|p| p.how.clone()),
                "unknown": proof.as_ref().err(),
            }),
            Every::Unsafe {
                size, at, message, ..
            } => serde_json::json!({
                "size": size,
                "verdict": "unsafe",
                "at": at,
                "message": message,
            }),
            Every::Unknown { size, at, reason } => serde_json::json!({
                "size": size,
                "verdict": "unknown",
                "at": at,
                "unknown": reason,
            }),
        }
    }
}

/// Why the repetition proof gives no claim: a finding at a count it ran (to be
/// reported as that count's), or a reason.
pub enum NoProof {
    FindingAt(i64),
    Unknown(String),
}

/// Slopes tried: counts per step of the proof's `u`.
const STEPS: [i64; 5] = [1, 2, 4, 8, 16];

/// The repetition proof (`ptx::prove_count`) for every count from `from` on: for each
/// step `Q` of [`STEPS`] in turn, one run per residue class modulo `Q` at the class's
/// first count from `from`; the first `Q` whose every class proves gives the claim,
/// up to the least bound of its classes.
pub fn prove_beyond(
    kernel: &Kernel,
    inst: &Instance,
    size: &str,
    from: i64,
) -> Result<Proof, NoProof> {
    let unknown = |m: String| NoProof::Unknown(m);
    let Some(ptx) = kernel.ptx() else {
        return Err(unknown("not PTX".into()));
    };
    let entry = ptx
        .module
        .entry(None)
        .ok_or_else(|| unknown("no .entry".into()))?;
    if let Some(what) = crate::ptx::count_refused(entry) {
        return Err(unknown(format!(
            "the repetition proof does not model {what}"
        )));
    }
    let arg = kernel
        .launch
        .args
        .iter()
        .find(|(_, a)| matches!(a, ArgBinding::Int(Expr::Size(n)) if n == size))
        .map(|(k, _)| k.clone())
        .ok_or_else(|| unknown(format!("no argument is `{size}`")))?;
    // Elements per count of each tensor: its shape has the count once, as a whole dim.
    let mut per_count = Vec::new();
    for t in &inst.tensors {
        let shape = kernel.launch.args.values().find_map(|a| match a {
            ArgBinding::Tensor { tensor, shape, .. } if *tensor == t.name => Some(shape),
            _ => None,
        });
        let shape = shape.ok_or_else(|| unknown(format!("no shape for `{}`", t.name)))?;
        let (mut whole, mut rest) = (0, 1i64);
        for d in shape {
            match d {
                Expr::Size(n) if n == size => whole += 1,
                d if mentions(d, size) => {
                    return Err(unknown(format!("`{}`'s shape has {size} in `{d}`", t.name)))
                }
                d => rest *= d.eval(&inst.sizes).map_err(unknown)?,
            }
        }
        if whole > 1 {
            return Err(unknown(format!(
                "`{}`'s size is not linear in {size}",
                t.name
            )));
        }
        per_count.push(whole * rest);
    }
    let mut why = Vec::new();
    for q in STEPS {
        let mut upto = i64::MAX;
        let mut bound = None;
        let mut periods = Vec::new();
        let mut failed = None;
        let mut proved = 0;
        for r in 0..q {
            let n = from + (r - from).rem_euclid(q);
            let mut sizes = inst.sizes.clone();
            sizes.insert(size.to_string(), n);
            let at = kernel
                .instance(&sizes)
                .map_err(|e| unknown(e.to_string()))?;
            let setup = crate::ptx::CountSetup {
                arg: arg.clone(),
                n,
                q,
                numel_slope: per_count.iter().map(|c| c * q).collect(),
            };
            let mut shadow = AddressOnly::default();
            let res = crate::ptx::prove_count(&ptx.module, &at, &ptx.arg_order, &mut shadow, setup);
            match res {
                Ok(_) if shadow.steered() => {
                    failed = Some(format!("data steers the run at {size}={n}"));
                }
                Ok(p) => {
                    let last = n.saturating_add(q.saturating_mul(p.u_max));
                    if last < upto {
                        upto = last;
                        bound = p.bound;
                    }
                    periods.extend(p.periods);
                }
                Err(e) if e.kind == ErrorKind::Unsupported || e.kind == ErrorKind::Limit => {
                    failed = Some(format!("{size} = {n} + {q}·u: {}", e.message));
                }
                Err(_) => return Err(NoProof::FindingAt(n)),
            }
            if failed.is_some() {
                break;
            }
            proved += 1;
        }
        match failed {
            None => {
                periods.sort_unstable();
                periods.dedup();
                let bound = bound.map_or(String::new(), |b| format!("; bounded where {b}"));
                return Ok(Proof {
                    from,
                    upto,
                    how: format!(
                        "the state repeats every {q} {size} (every {periods:?} scheduler passes) \
                         from {size} = {from} to {} on{bound}",
                        from + q - 1
                    ),
                });
            }
            Some(m) => why.push(format!(
                "in steps of {q} ({proved} of {q} classes proved): {m}"
            )),
        }
    }
    Err(unknown(why.join("; ")))
}
