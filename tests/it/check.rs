//! `lift check` and `lift equiv` over the suite: every correct kernel is verified
//! against its PyTorch spec at both instances; every wrong twin is refuted with a
//! counterexample that replays through `lift run` against the NumPy reference; every
//! second implementation is proved equivalent to its first, every twin refuted.

use crate::common;

use common::{fixtures, Fixture, InstanceToml};
use lift::check::{self, CheckOptions, Outcome, Report};
use lift::Kernel;

fn check_fixture(f: &Fixture, inst: &InstanceToml, with_reference_inputs: bool) -> Report {
    let k = Kernel::load(&f.kernel(), None).unwrap();
    let i = k.instance(&inst.sizes).unwrap();
    let mut opts = CheckOptions::default();
    if with_reference_inputs {
        opts.inputs = f.inputs(inst);
        opts.scalars = inst.scalars.clone();
    }
    check::check(&k, &i, &f.meta.spec, &opts)
        .unwrap_or_else(|e| panic!("{}/{}: {e}", f.name(), inst.name))
}

#[test]
fn every_correct_kernel_is_verified_against_its_spec_at_two_instances() {
    let mut failures = Vec::new();
    let mut verified = 0;
    let mut with_preconditions = 0;
    for f in fixtures().iter().filter(|f| f.meta.expect == "verified") {
        for inst in &f.meta.instance {
            let r = check_fixture(f, inst, false);
            if r.outcome == Outcome::Verified {
                verified += 1;
                let text = r.to_text();
                assert!(
                    text.contains("elements proved equal"),
                    "{}/{}: {text}",
                    f.name(),
                    inst.name
                );
                // The text shows three preconditions, then "…" only if there are more.
                assert_eq!(
                    text.contains("(all of them with --format json)"),
                    r.preconditions.len() > 3,
                    "{}/{}: {text}",
                    f.name(),
                    inst.name
                );
                with_preconditions += usize::from(!r.preconditions.is_empty());
            } else {
                failures.push(format!("{}/{}:\n{}", f.name(), inst.name, r.to_text()));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} not verified:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(verified >= 80, "only {verified} verified");
    assert!(
        with_preconditions > 0,
        "no verified kernel has a precondition"
    );
}

#[test]
fn every_wrong_twin_is_refuted_with_a_counterexample_that_replays() {
    let mut against_numpy = 0;
    for f in fixtures().iter().filter(|f| f.meta.expect == "refuted") {
        let mut refuted = false;
        for inst in &f.meta.instance {
            // The reference inputs are tried first, so a counterexample there can be
            // replayed against the NumPy reference outputs.
            let r = check_fixture(f, inst, true);
            assert_ne!(
                r.outcome,
                Outcome::Verified,
                "{}/{}: twin verified!\n{}",
                f.name(),
                inst.name,
                r.to_text()
            );
            let Some(cx) = &r.counterexample else {
                continue;
            };
            refuted = true;
            assert_eq!(r.outcome, Outcome::Refuted);
            let (Some(kernel_value), Some(spec_value)) = (cx.left, cx.right) else {
                continue; // an element the kernel never writes
            };
            // Replay: run the kernel concretely on the counterexample's inputs.
            let k = Kernel::load(&f.kernel(), None).unwrap();
            let i = k.instance(&inst.sizes).unwrap();
            let given = f.inputs(inst);
            let (arrays, scalars) = r.counterexample_inputs(&i, &given);
            let arrays: std::collections::BTreeMap<_, _> = arrays.into_iter().collect();
            let run = k.run(&i, &arrays, &scalars).unwrap();
            let out = &run.outputs.iter().find(|(n, _)| n == &cx.tensor).unwrap().1;
            let flat = cx
                .index
                .iter()
                .zip(&out.shape)
                .fold(0, |acc, (&x, &d)| acc * d + x);
            let replayed = out.data[flat];
            let same = |a: f64, b: f64| {
                (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 1e-6 * (1.0 + b.abs())
            };
            assert!(
                same(replayed, kernel_value),
                "{}/{}: lift run gives {replayed} at {}{:?}, counterexample says {kernel_value}",
                f.name(),
                inst.name,
                cx.tensor,
                cx.index
            );
            // At the reference inputs the expected value is NumPy's.
            let same_scalars = scalars.iter().all(|(n, v)| inst.scalars.get(n) == Some(v));
            if same_scalars
                && arrays
                    .iter()
                    .all(|(n, a)| given.get(n).is_some_and(|g| g.data == a.data))
            {
                let want = f.expected(inst)[&cx.tensor].data[flat];
                assert!(
                    (spec_value - want).abs() <= 1e-5 * (1.0 + want.abs()),
                    "{}/{}: spec value {spec_value} but NumPy says {want}",
                    f.name(),
                    inst.name
                );
                assert!(
                    !((replayed - want).abs() <= 1e-5 * (1.0 + want.abs())),
                    "{}: replay agrees with NumPy",
                    f.name()
                );
                against_numpy += 1;
            }
        }
        assert!(refuted, "{}: no instance refuted", f.name());
    }
    assert!(
        against_numpy >= 16,
        "only {against_numpy} counterexamples replayed against NumPy"
    );
}

#[test]
fn second_implementations_are_equivalent_and_twins_are_not() {
    let mut proved = 0;
    for f in fixtures().iter().filter(|f| f.meta.equiv.is_some()) {
        let other = common::suite_dir()
            .join(f.meta.equiv.as_ref().unwrap())
            .join("kernel.ttir");
        let a = Kernel::load(&other, None).unwrap();
        let b = Kernel::load(&f.kernel(), None).unwrap();
        for inst in &f.meta.instance {
            let r = check::equiv(&a, &b, &inst.sizes, &CheckOptions::default())
                .unwrap_or_else(|e| panic!("{}/{}: {e}", f.name(), inst.name));
            match f.meta.expect.as_str() {
                "verified" => {
                    assert_eq!(
                        r.outcome,
                        Outcome::Verified,
                        "{}/{}:\n{}",
                        f.name(),
                        inst.name,
                        r.to_text()
                    );
                    proved += 1;
                }
                _ => assert_ne!(
                    r.outcome,
                    Outcome::Verified,
                    "{}/{}: twin proved equivalent!",
                    f.name(),
                    inst.name
                ),
            }
        }
    }
    assert!(proved >= 14, "only {proved} equivalences proved");
}

#[test]
fn looped_online_softmax_equals_one_pass_softmax() {
    // softmax_online has its own instances; compare it on a size both handle.
    let one_pass = Kernel::load(&common::suite_dir().join("softmax/kernel.ttir"), None).unwrap();
    let online = Kernel::load(
        &common::suite_dir().join("softmax_online/kernel.ttir"),
        None,
    )
    .unwrap();
    let sizes = [("M".to_string(), 2), ("N".to_string(), 7)]
        .into_iter()
        .collect();
    let r = check::equiv(&one_pass, &online, &sizes, &CheckOptions::default()).unwrap();
    assert_eq!(r.outcome, Outcome::Verified, "{}", r.to_text());
}

/// The concrete cross-check stands behind every "yes": a claim that contradicts the
/// kernel's concrete run (here: "every element is 0" for the NaN twin, and the right
/// terms with one element off by 1/2) is caught with the point and the two values,
/// while the true spec's terms pass.
#[test]
fn the_concrete_cross_check_catches_a_claim_the_kernel_does_not_compute() {
    use lift::crosscheck::{cross_check, Claim};
    use lift::term::Terms;
    use std::collections::BTreeMap;
    let suite = common::suite_dir();
    for (op, nan_kernel) in [("ratio_sum_nan", true), ("ratio_sum", false)] {
        let k = Kernel::load(&suite.join(op).join("kernel.ttir"), None).unwrap();
        let i = k.instance(&Default::default()).unwrap();
        let mut terms = Terms::new();
        let zeros = vec![Some(terms.zero()); 3];
        let claimed = BTreeMap::from([("y".to_string(), zeros)]);
        let d = cross_check(&k, &i, &Claim::Terms(&terms, &claimed), None)
            .unwrap()
            .expect("y = 0 is not what either kernel computes");
        assert_eq!(d.tensor, "y");
        assert_eq!(d.claimed, 0.0);
        assert_eq!(d.kernel.is_nan(), nan_kernel, "{op}: {d:?}");
    }
    // The correct kernel against its own spec's terms: no disagreement; one element
    // moved by 1/2: found.
    let k = Kernel::load(&suite.join("ratio_sum").join("kernel.ttir"), None).unwrap();
    let i = k.instance(&Default::default()).unwrap();
    let mut terms = Terms::new();
    let spec = k.spec(&i, &mut terms).unwrap();
    let elems = spec.outputs[0].elems.clone();
    let claimed = BTreeMap::from([("y".to_string(), elems.clone())]);
    assert!(cross_check(&k, &i, &Claim::Terms(&terms, &claimed), None)
        .unwrap()
        .is_none());
    let mut off = elems;
    let half = terms.float(0.5);
    off[2] = Some(terms.add(off[2].unwrap(), half));
    let claimed = BTreeMap::from([("y".to_string(), off)]);
    let d = cross_check(&k, &i, &Claim::Terms(&terms, &claimed), None)
        .unwrap()
        .expect("an element off by 1/2");
    assert_eq!((d.flat, d.point), (2, lift::crosscheck::POINTS[0]));
    assert!((d.claimed - d.kernel - 0.5).abs() < 1e-9, "{d:?}");
}

/// No VERIFIED rests on a premise that fails for some input: for every correct kernel of
/// the suite, at the refuter's random and boundary points (zeros, all-negative rows, large
/// magnitudes, ...) and at the reference inputs, wherever the spec is finite the kernel is
/// finite and equal to it, and wherever the kernel is NaN/inf so is the spec. (Evaluated
/// here with `Terms::eval`, independently of the decider's proof.)
#[test]
fn verified_kernels_are_defined_wherever_their_specs_are() {
    use lift::decide::{point_value, Leaf, BOUNDARY_POINT, BOUNDARY_POINTS};
    let seeds: Vec<u64> = (1..=8)
        .chain(BOUNDARY_POINT..BOUNDARY_POINT + BOUNDARY_POINTS)
        .collect();
    let mut compared = 0usize;
    for f in fixtures().iter().filter(|f| f.meta.expect == "verified") {
        let inst = &f.meta.instance[0];
        let k = Kernel::load(&f.kernel(), None).unwrap();
        let i = k.instance(&inst.sizes).unwrap();
        let mut terms = lift::term::Terms::new();
        let (spec, outs) = check::spec_terms(&k, &i, &f.meta.spec, &mut terms)
            .unwrap_or_else(|e| panic!("{}: {e}", f.name()));
        for &seed in &seeds {
            let input = |name: &str, idx: &[i64]| {
                point_value(
                    seed,
                    &Leaf::Input {
                        tensor: name.into(),
                        index: idx.into(),
                    },
                )
            };
            let param = |name: &str| point_value(seed, &Leaf::Param(name.into()));
            let mut ev = lift::term::Evaluator::new(&terms, &input, &param);
            for out in &outs {
                let Some(t) = spec.outputs.iter().find(|t| t.name == out.name) else {
                    continue;
                };
                for (flat, (&s, k)) in out.elems.iter().zip(&t.elems).enumerate() {
                    let Some(k) = *k else { continue };
                    let (kv, sv) = (ev.eval(k), ev.eval(s));
                    // Loose: `Terms::eval` reads an f32 log2(e) as its f32 value, which
                    // at |x| = 256 moves exp(x) by about 1e-5 relative.
                    let ok = if sv.is_finite() {
                        kv.is_finite() && (kv - sv).abs() <= 1e-4 * (1.0 + sv.abs())
                    } else {
                        !kv.is_finite()
                    };
                    assert!(
                        ok,
                        "{}: {}[#{flat}] at point {seed}: kernel {kv}, spec {sv}",
                        f.name(),
                        out.name
                    );
                    compared += 1;
                }
            }
        }
    }
    assert!(compared > 5000, "only {compared} comparisons");
}

/// A name the kernel does not write is a temporary of the spec, as people write
/// references (`e = ...; y = e / e.sum(...)`); the report names it, so a misspelt output
/// shows. A spec that assigns none of the kernel's outputs is an error; a wrong spec
/// written with temporaries is still refuted.
#[test]
fn spec_temporaries_are_locals_and_named_in_the_report() {
    let k = Kernel::load(std::path::Path::new("triton_ir/softmax/kernel.ttir"), None).unwrap();
    let i = k.instance(&k.launch.sizes).unwrap();
    let opts = CheckOptions::default();
    let spec = "e = torch.exp(x - x.amax(-1, keepdim=True)); y = e / e.sum(-1, keepdim=True)";
    let r = check::check(&k, &i, spec, &opts).unwrap();
    assert_eq!(r.outcome, Outcome::Verified, "{}", r.to_text());
    assert_eq!(r.temporaries, ["e"]);
    assert!(r
        .to_text()
        .contains("temporaries of the spec (not kernel outputs): e"));

    let wrong = "e = torch.exp(x); y = e / e.sum(-1, keepdim=True) + 1";
    let r = check::check(&k, &i, wrong, &opts).unwrap();
    assert_eq!(r.outcome, Outcome::Refuted, "{}", r.to_text());

    let err = check::check(&k, &i, "yy = torch.softmax(x, dim=-1)", &opts)
        .expect_err("no output assigned")
        .to_string();
    assert!(
        err.contains("none of the kernel's outputs (y)") && err.contains("`yy`"),
        "{err}"
    );
}
