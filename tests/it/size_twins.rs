//! Size twins (triton_ir/README.md): kernels whose bug shows only at some sizes. Each is
//! verified by the bounded check at its own instances, and at its `bug_sizes` the bounded
//! check is not: refuted with a counterexample that `lift run` replays, or a kernel fault
//! (out of bounds, ...). The second half shows the bug is real, whatever an unbounded
//! prover says about the kernel.

use crate::common;

use assert_cmd::Command;
use common::{fixtures, Fixture};
use lift::check::{self, CheckOptions, Outcome};
use lift::Kernel;
use std::collections::BTreeMap;

fn size_twins() -> Vec<Fixture> {
    let twins: Vec<Fixture> = fixtures()
        .into_iter()
        .filter(|f| f.meta.size_bug.is_some())
        .collect();
    assert!(twins.len() >= 5, "only {} size twins", twins.len());
    twins
}

fn bug_sizes(f: &Fixture) -> &BTreeMap<String, i64> {
    f.meta
        .bug_sizes
        .as_ref()
        .unwrap_or_else(|| panic!("{}: size_bug without bug_sizes", f.name()))
}

#[test]
fn size_twins_are_well_formed() {
    for f in size_twins() {
        assert_eq!(f.meta.expect, "verified", "{}", f.name());
        assert!(
            f.meta.equiv.is_none(),
            "{}: a size twin has no equiv",
            f.name()
        );
        let at = bug_sizes(&f);
        for inst in &f.meta.instance {
            assert_eq!(
                inst.sizes.keys().collect::<Vec<_>>(),
                at.keys().collect::<Vec<_>>(),
                "{}/{}: bug_sizes names other sizes",
                f.name(),
                inst.name
            );
            assert_ne!(&inst.sizes, at, "{}: bug_sizes is an instance", f.name());
        }
    }
}

#[test]
fn size_twins_are_verified_at_their_instances() {
    for f in size_twins() {
        let k = Kernel::load(&f.kernel(), None).unwrap();
        for inst in &f.meta.instance {
            let i = k.instance(&inst.sizes).unwrap();
            let r = check::check(&k, &i, &f.meta.spec, &CheckOptions::default())
                .unwrap_or_else(|e| panic!("{}/{}: {e}", f.name(), inst.name));
            assert_eq!(
                r.outcome,
                Outcome::Verified,
                "{}/{}:\n{}",
                f.name(),
                inst.name,
                r.to_text()
            );
        }
    }
}

#[test]
fn size_twins_are_wrong_at_their_bug_sizes() {
    for f in size_twins() {
        let at = bug_sizes(&f);
        let k = Kernel::load(&f.kernel(), None).unwrap();
        let i = k.instance(at).unwrap();
        match check::check(&k, &i, &f.meta.spec, &CheckOptions::default()) {
            // A kernel fault (out of bounds, a read of a masked-off or unwritten value).
            Err(e) => assert_eq!(e.exit_code(), 1, "{} at {at:?}: {e}", f.name()),
            Ok(r) => {
                assert_eq!(
                    r.outcome,
                    Outcome::Refuted,
                    "{} at {at:?}:\n{}",
                    f.name(),
                    r.to_text()
                );
                let cx = r
                    .counterexample
                    .as_ref()
                    .unwrap_or_else(|| panic!("{}: refuted without a counterexample", f.name()));
                let (Some(kernel_value), Some(spec_value)) = (cx.left, cx.right) else {
                    continue; // an element the kernel never writes
                };
                // Replay: `lift run` on the counterexample's inputs gives the kernel value.
                let (arrays, scalars) = r.counterexample_inputs(&i, &BTreeMap::new());
                let arrays: BTreeMap<_, _> = arrays.into_iter().collect();
                let run = k.run(&i, &arrays, &scalars).unwrap();
                let out = &run.outputs.iter().find(|(n, _)| n == &cx.tensor).unwrap().1;
                let flat = cx
                    .index
                    .iter()
                    .zip(&out.shape)
                    .fold(0, |acc, (&x, &d)| acc * d + x);
                let replayed = out.data[flat];
                assert!(
                    (replayed - kernel_value).abs() <= 1e-6 * (1.0 + kernel_value.abs()),
                    "{}: lift run gives {replayed} at {}{:?}, counterexample says {kernel_value}",
                    f.name(),
                    cx.tensor,
                    cx.index
                );
                assert!(
                    (replayed - spec_value).abs() > 1e-5 * (1.0 + spec_value.abs()),
                    "{}: replay agrees with the spec",
                    f.name()
                );
            }
        }
    }
}

/// The same through the binary: `lift check --scope instance --size ...` exits 0 at
/// the launch's own sizes and 1 (refuted or a kernel fault) at `bug_sizes`; with the
/// default `--scope all`, the launch's own sizes already exit 1 (refuted at other
/// sizes) unless the proof is only under a constraint or not found.
#[test]
fn lift_check_exit_codes_of_size_twins() {
    let mut refuted_from_own_sizes = 0;
    for f in size_twins() {
        let (code, text) = {
            let out = Command::cargo_bin("lift")
                .unwrap()
                .arg("check")
                .arg(f.kernel())
                .args(["--spec", &f.meta.spec])
                .output()
                .unwrap();
            (
                out.status.code(),
                String::from_utf8_lossy(&out.stdout).to_string(),
            )
        };
        let verdict = text.lines().last().unwrap_or_default();
        match code {
            Some(1) => {
                assert!(verdict.starts_with("REFUTED at "), "{}: {text}", f.name());
                refuted_from_own_sizes += 1;
            }
            Some(0) => assert!(
                verdict.contains("UNKNOWN") || verdict.contains(" with "),
                "{}: a size twin proved for all sizes: {text}",
                f.name()
            ),
            _ => panic!("{}: {text}", f.name()),
        }
        let run = |sizes: Option<&BTreeMap<String, i64>>| {
            let mut cmd = Command::cargo_bin("lift").unwrap();
            cmd.arg("check")
                .arg(f.kernel())
                .args(["--scope", "instance"])
                .args(["--spec", &f.meta.spec]);
            for (n, v) in sizes.into_iter().flatten() {
                cmd.arg("--size").arg(format!("{n}={v}"));
            }
            let out = cmd.output().unwrap();
            let text = format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            (out.status.code(), text)
        };
        let (code, text) = run(None);
        assert_eq!(code, Some(0), "{}: {text}", f.name());
        assert!(text.contains("VERIFIED"), "{}: {text}", f.name());
        let (code, text) = run(Some(bug_sizes(&f)));
        assert_eq!(code, Some(1), "{} at bug_sizes: {text}", f.name());
        // A twin whose programs store one element with different values (a split sum
        // stored, not added) is a RACE between programs there: a finding as well.
        assert!(
            text.contains("REFUTED")
                || text.contains("OUT OF BOUNDS")
                || text.contains("data race"),
            "{} at bug_sizes: {text}",
            f.name()
        );
    }
    assert!(
        refuted_from_own_sizes >= 7,
        "only {refuted_from_own_sizes} refuted from their own sizes"
    );
}
