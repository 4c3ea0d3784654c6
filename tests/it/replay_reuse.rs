//! The all-sizes step's replays take the pairs the instance's proofs decided `Equal` on
//! the same terms as `Equal` undecided (`decide::Decided`, as `lift KERNEL` runs it):
//! the outcome is the one deciding every pair gives, and a bug in the pairs that are not
//! the instance's is still refuted.

use lift::decide::Decided;
use lift::term::Terms;
use lift::verify::{Limits, Scope};
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::Path;

/// `kernel`'s all-sizes outcome at its launch's sizes, its replays reusing the
/// instance's proofs or not, and how many pairs the instance recorded.
fn outcome(kernel: &Path, reuse: bool) -> (Scope, usize) {
    let k = Kernel::load(kernel, None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let mut lifted = lift::synth::lift(&k, &inst, &mut terms).unwrap();
    assert_eq!(lifted.exit_code(), 0, "{} lifts", kernel.display());
    let equal = std::mem::take(&mut lifted.equal_pairs);
    let recorded = equal.len();
    let decided = if reuse {
        Decided::none().with(&terms, &equal)
    } else {
        Decided::none()
    };
    let limits = Limits::default();
    lifted.verify_all_sizes_reusing(&k, &inst, &limits, &lift::formula::Formula::clone, &decided);
    (lifted.all_sizes.expect("the step ran").scope, recorded)
}

fn corpus(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(name)
        .join("kernel.ttir")
}

#[test]
fn causal_attention_replays_give_the_same_outcome_reusing_the_instance() {
    let path = corpus("fla_attn_causal");
    let (reused, recorded) = outcome(&path, true);
    // Every element of both outputs at B = 1, T = 48: 48 + 48·16 pairs.
    assert_eq!(recorded, 48 + 48 * 16);
    let (decided, _) = outcome(&path, false);
    assert_eq!(reused, decided);
    assert!(matches!(reused, Scope::Unknown { .. }), "{reused:?}");
}

/// The wrong twin: every batch element reads the first batch's `q`. At the launch's
/// B = 1 that is right and lifts; at B = 2 the first batch element is the instance's
/// proof again (reused) and the second is wrong, so the replay there must refute.
#[test]
fn a_bug_in_the_second_batch_element_is_refuted_at_b_2() {
    let dir = tempfile::tempdir().unwrap();
    let src = corpus("fla_attn_causal");
    let text = std::fs::read_to_string(&src).unwrap();
    let line = "%p_q_14 = tt.addptr %q, %p_q :";
    assert_eq!(text.matches(line).count(), 1, "the q base pointer moved");
    let wrong = text.replace(line, "%p_q_14 = tt.addptr %q, %c0_i64 :");
    let path = dir.path().join("kernel.ttir");
    std::fs::write(&path, wrong).unwrap();
    std::fs::copy(
        src.with_file_name("kernel.launch.toml"),
        dir.path().join("kernel.launch.toml"),
    )
    .unwrap();
    let (scope, recorded) = outcome(&path, true);
    assert!(recorded > 0);
    let Scope::Refuted { sizes, reason } = &scope else {
        panic!("not refuted: {scope:?}")
    };
    assert_eq!(
        sizes,
        &[("B".to_string(), 2), ("T".to_string(), 48)],
        "{reason}"
    );
}
