//! Unbounded verification (`src/verify/`) on named kernels: loops over sizes proved and
//! their twins refuted, a derived bound that is needed, a spent limit that gives UNKNOWN.
//! The rules for every fixture (a correct kernel never refuted for all sizes and proved when
//! loop-free, agreement with bounded checks at random sizes, size twins never proved past
//! their bug) run per fixture, by name, in tests/it/fixtures.rs.

use crate::common;

use common::{fixtures, Fixture};
use lift::term::Terms;
use lift::verify::Scope;
use lift::Kernel;
use std::collections::BTreeMap;

/// The all-sizes outcome (scope and paths run) of the suite kernel in `dir` under
/// `limits`.
fn outcome_under(dir: &str, limits: &lift::verify::Limits) -> (Scope, usize) {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let k = Kernel::load(&root.join(dir).join("kernel.ttir"), None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let mut lifted = lift::synth::lift(&k, &inst, &mut terms).unwrap();
    lifted.verify_all_sizes_with(&k, &inst, limits);
    let o = lifted.all_sizes.expect("the step ran");
    (o.scope, o.paths)
}

fn all_sizes(f: &Fixture) -> Option<(lift::verify::Outcome, Kernel)> {
    let k = Kernel::load(&f.kernel(), None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let mut lifted = lift::synth::lift(&k, &inst, &mut terms).ok()?;
    if lifted.exit_code() != 0 {
        return None;
    }
    lifted.verify_all_sizes(&k, &inst);
    lifted.all_sizes.map(|o| (o, k))
}

/// Loops over sizes (src/verify/loops.rs), one kernel per proof path: running sums
/// (lane-wise, then reduced), a running max, stores inside the loop, a mean over a loop,
/// online softmax's rescaled sum (in base e, and in base 2 over log2(e)-scaled scores),
/// K loops of `tl.dot` under row, column and K masks
/// (lazy masks, src/verify/guards.rs; residue-class extent and coverage queries),
/// Welford's running mean and M2 (src/verify/welford.rs), and a running argmax (and,
/// with the comparison flipped, argmin) with PyTorch's first-index rule
/// (src/verify/argext.rs).
const LOOPS_PROVED: &[&str] = &[
    "sum_tree",
    "max_looped",
    "scale_looped",
    "mean_looped",
    "softmax_online",
    "softmax_online_exp2",
    "softmax_looped",
    "matmul",
    "matmul_tiles",
    "layer_norm_welford",
    "argmax_loop",
    // Wrong against its argmax spec, but `lift` reads it as the argmin it is.
    "argmax_loop_bug",
];

/// Their wrong twins, each wrong only at sizes other than its instances: a loop that
/// stops a tile early (never reaches the tail), skips the last element when N % 4 == 1,
/// adds overlapping tiles twice, never stores the ragged tail, divides by the padded
/// length, runs `K // 16` K tiles, masks K with `<=`, lets Welford's count saturate
/// at 8 (so it is no count past N = 8), or runs a row argmax from column 2 or up to
/// the last column but one (right only at N = 1).
const LOOPS_REFUTED: &[&str] = &[
    "layer_norm_welford_cap",
    "sum_loop_floor",
    "max_loop_short",
    "sum_loop_overlap",
    "scale_looped_floor",
    "mean_looped_div",
    "matmul_kfloor",
    "matmul_mask_le",
    "argmax_loop_start2",
    "argmax_loop_short",
];

#[test]
fn online_softmax_without_its_rescale_is_proved_only_for_one_tile() {
    // The wrong twin of the rescaled-sum summary: `l + Σ exp(x - m')` without
    // `l·exp(m - m')`. Candidates go weakest first, so a bound in the result means the
    // unconstrained proof failed.
    let all = fixtures();
    let f = all
        .iter()
        .find(|f| f.name() == "softmax_online_norescale")
        .expect("fixture softmax_online_norescale");
    let (o, _) = all_sizes(f).expect("it lifts on one tile");
    match &o.scope {
        Scope::AllSizes { bounds, .. } => {
            assert_eq!(bounds, &[("N".to_string(), 4)], "{:?}", o.scope)
        }
        Scope::Refuted { .. } => {}
        Scope::Unknown { reason } => panic!("neither bounded nor refuted: {reason}"),
    }
}

#[test]
fn loops_over_sizes_are_proved_and_their_twins_refuted() {
    let all = fixtures();
    let find = |n: &str| {
        all.iter()
            .find(|f| f.name() == n)
            .unwrap_or_else(|| panic!("no fixture {n}"))
    };
    for n in LOOPS_PROVED {
        let f = find(n);
        assert!(common::has_loop(&f.kernel()), "{n} has no loop");
        let (o, _) = all_sizes(f).unwrap_or_else(|| panic!("{n} does not lift"));
        assert!(
            matches!(&o.scope, Scope::AllSizes { bounds, .. } if bounds.is_empty()),
            "{n}: not proved for all sizes without a bound: {:?}",
            o.scope
        );
    }
    for n in LOOPS_REFUTED {
        let f = find(n);
        assert!(common::has_loop(&f.kernel()), "{n} has no loop");
        let (o, _) = all_sizes(f).unwrap_or_else(|| panic!("{n} does not lift"));
        let Scope::Refuted { sizes, .. } = &o.scope else {
            panic!("{n}: not refuted: {:?}", o.scope)
        };
        // The witness is a size where the fixture's own description says the bug shows.
        let inst: Vec<BTreeMap<String, i64>> =
            f.meta.instance.iter().map(|i| i.sizes.clone()).collect();
        let w: BTreeMap<String, i64> = sizes.iter().cloned().collect();
        assert!(!inst.contains(&w), "{n}: refuted at its own instance {w:?}");
    }
}

#[test]
fn a_derived_bound_is_needed_one_past_it_fails() {
    // softmax's one block of 8 per row: proved for N <= 8, and at N = 9 the bounded
    // run leaves elements unwritten, so the bound is the weakest that holds.
    let f = fixtures()
        .into_iter()
        .find(|f| f.name() == "softmax")
        .unwrap();
    let (o, k) = all_sizes(&f).unwrap();
    let Scope::AllSizes { bounds, .. } = &o.scope else {
        panic!("softmax: {}", o.describe())
    };
    assert_eq!(bounds, &[("N".to_string(), 8)]);
    assert!(o.describe().starts_with("for all M, N with N <= 8"));
    let inst = k.instance(&BTreeMap::from([("N".to_string(), 9)])).unwrap();
    let mut terms = Terms::new();
    let spec = k.spec(&inst, &mut terms).unwrap();
    assert!(spec.outputs[0].elems.iter().any(|e| e.is_none()));
}

/// Verdicts depend on counts of work, never on the machine: the one wall-clock limit, the
/// last-resort timeout, can only give UNKNOWN and says so. A kernel proved for all sizes
/// (`add`) and a size twin refuted (`add_tail`) both become UNKNOWN under a timeout of
/// zero, and a work limit of one step gives the same UNKNOWN on every run.
#[test]
fn a_spent_timeout_gives_unknown_never_a_proof_or_a_refutation() {
    use lift::verify::Limits;
    let outcome = |name: &str, limits: &Limits| {
        let f = fixtures().into_iter().find(|f| f.name() == name).unwrap();
        let k = Kernel::load(&f.kernel(), None).unwrap();
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let mut terms = Terms::new();
        let mut lifted = lift::synth::lift(&k, &inst, &mut terms).unwrap();
        lifted.verify_all_sizes_with(&k, &inst, limits);
        lifted.all_sizes.expect("the step ran").scope
    };
    let timeout = Limits {
        timeout: Some(std::time::Duration::ZERO),
        ..Limits::default()
    };
    let one_step = Limits {
        steps: 1,
        ..Limits::default()
    };
    assert!(matches!(
        outcome("add", &Limits::default()),
        Scope::AllSizes { .. }
    ));
    assert!(matches!(
        outcome("add_tail", &Limits::default()),
        Scope::Refuted { .. }
    ));
    for name in ["add", "add_tail"] {
        match outcome(name, &timeout) {
            Scope::Unknown { reason } => assert!(
                reason.contains("this verdict depends on the machine"),
                "{name}: {reason}"
            ),
            s => panic!("{name}: a spent timeout gave {s:?}"),
        }
    }
    let first = outcome("add", &one_step);
    assert!(
        matches!(&first, Scope::Unknown { reason } if reason.contains("work limit")),
        "{first:?}"
    );
    assert_eq!(first, outcome("add", &one_step));
}

/// A forking attempt whose lazy twin failed on its first path with no mask lane left
/// open is skipped and that failure repeated (src/verify/mod.rs, `forks_alike`): the
/// outcome, reason included, is the one the forking attempts give when run. The
/// kernels are ones where it applies (a load from a tensor the kernel writes, an
/// integer compare of loaded labels, each met on the first path with every mask lane
/// decided) and one where it does not (attention's lazy run leaves its key masks open).
#[test]
fn a_skipped_forking_attempt_gives_the_outcome_the_run_one_gives() {
    use lift::verify::Limits;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for dir in [
        "corpus/liger_geglu_bwd",
        "corpus/liger_tvd_labels",
        "triton_ir/attention_norescale",
    ] {
        let k = Kernel::load(&root.join(dir).join("kernel.ttir"), None).unwrap();
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let outcome = |skip: bool| {
            let mut terms = Terms::new();
            let mut lifted = lift::synth::lift(&k, &inst, &mut terms).unwrap();
            let limits = Limits {
                skip_repeated_forks: skip,
                ..Limits::default()
            };
            lifted.verify_all_sizes_with(&k, &inst, &limits);
            let o = lifted.all_sizes.expect("the step ran");
            (o.scope, o.paths)
        };
        let (skipped, run) = (outcome(true), outcome(false));
        assert!(
            matches!(skipped.0, Scope::Unknown { .. }),
            "{dir}: {skipped:?}"
        );
        assert_eq!(skipped, run, "{dir}");
    }
}

/// A forking attempt projected to pass its Z3 units stops before it spends them
/// (`Work::fork_projected`, a budget policy): the outcome, reason and paths included,
/// is the one the attempt gives when run until `fork_z3_work` stops it. Both kernels
/// have such an attempt: `attention_norescale` under `D == 16 and N <= 16` (16 row
/// by 16 key mask cases, about 90k units each), `attention_naive_nomask` under
/// `D == 16`.
#[test]
fn a_forking_attempt_projected_past_its_units_gives_the_outcome_the_run_one_gives() {
    use lift::verify::Limits;
    for (dir, refuted) in [
        ("triton_ir/attention_norescale", false),
        ("triton_ir/attention_naive_nomask", true),
    ] {
        let outcome = |project: bool| {
            let limits = Limits {
                project_fork_work: project,
                ..Limits::default()
            };
            outcome_under(dir, &limits)
        };
        let projected = outcome(true);
        assert_eq!(
            matches!(projected.0, Scope::Refuted { .. }),
            refuted,
            "{dir}: {projected:?}"
        );
        assert_eq!(projected, outcome(false), "{dir}");
    }
}

/// Attention in one block of keys (`attention_naive`): each stored element's summands
/// are the formula's times the row sum's inverse, found by the common-factor scale once
/// one summand pair, decided whole, is refuted before any proof (src/verify/resolve.rs:
/// the other pairs are then never decided whole). It is proved for every size its one
/// key block holds (N <= 32, with D == 16). Its twin that leaves the padding keys'
/// scores unmasked (`attention_naive_nomask`, right only when N fills the block) is
/// still refuted, at a size with padded keys.
#[test]
fn attention_in_one_block_is_proved_and_its_unmasked_twin_refuted() {
    let all = fixtures();
    let find = |n: &str| {
        all.iter()
            .find(|f| f.name() == n)
            .unwrap_or_else(|| panic!("no fixture {n}"))
    };
    let (o, _) = all_sizes(find("attention_naive")).expect("attention_naive lifts");
    let Scope::AllSizes { bounds, fixed, .. } = &o.scope else {
        panic!("attention_naive: not proved for all sizes: {:?}", o.scope)
    };
    let bound = |s: &str| bounds.iter().find(|(n, _)| n == s).map(|b| b.1);
    assert_eq!(bound("N"), Some(32), "{bounds:?}");
    assert_eq!(bound("D"), Some(16), "{bounds:?}");
    assert!(fixed.iter().all(|(n, _)| n == "D"), "{fixed:?}");
    let (o, _) = all_sizes(find("attention_naive_nomask")).expect("the twin lifts");
    let Scope::Refuted { sizes, .. } = &o.scope else {
        panic!("attention_naive_nomask: not refuted: {:?}", o.scope)
    };
    let n = sizes.iter().find(|(s, _)| s == "N").expect("N").1;
    assert!(n < 32, "refuted at {sizes:?}, where no key is padded");
}

/// A forking run stops at a loop whose probe shows the stall its lazy twin met
/// (src/verify/stall.rs): attention whose accumulator is never rescaled adds to it
/// only (`tl.dot(p, v, acc)`), attention proper scales it by alpha first. The stop
/// changes no outcome, reason included, and attention is still proved.
#[test]
fn a_forking_run_stops_where_its_lazy_twin_stalled() {
    use lift::verify::stall::additive;
    use lift::verify::Limits;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let acc_is_additive = |dir: &str| {
        let src = std::fs::read_to_string(root.join(dir).join("kernel.ttir")).unwrap();
        let module = lift::triton_ir::parse(&src).unwrap();
        let func = module.entry().unwrap();
        let for_op = func.body.blocks[0]
            .ops
            .iter()
            .find(|o| o.name == "scf.for")
            .expect("one loop");
        // Carried values: m_i, l_i, acc.
        (0..3)
            .map(|k| additive(&for_op.regions[0], k))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        acc_is_additive("triton_ir/attention_norescale"),
        [false, false, true]
    );
    assert_eq!(
        acc_is_additive("triton_ir/attention"),
        [false, false, false]
    );

    for (dir, proved) in [
        ("triton_ir/attention_norescale", false),
        ("triton_ir/attention", true),
    ] {
        let outcome = |skip: bool| {
            let limits = Limits {
                skip_stalled_loops: skip,
                ..Limits::default()
            };
            outcome_under(dir, &limits)
        };
        let stopped = outcome(true);
        assert_eq!(
            matches!(stopped.0, Scope::AllSizes { .. }),
            proved,
            "{dir}: {stopped:?}"
        );
        if !proved {
            let Scope::Unknown { reason } = &stopped.0 else {
                panic!("{dir}: {stopped:?}")
            };
            assert!(reason.contains("not a running sum"), "{dir}: {reason}");
            assert_eq!(stopped, outcome(false), "{dir}");
        }
    }
}
