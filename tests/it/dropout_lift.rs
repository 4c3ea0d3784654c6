//! Plain `lift` of seeded dropout (`triton_ir/real_ops/`, issue 42): the instance's terms
//! are folded (each element `x[i] / (1 - p)` or `0`, no trace of the stream), and
//! synthesis reads the mask back as Triton's stream (`synth::philox`), so `lift` prints
//! the formula with the named function `rand` and proves it for every N.
//!
//! Expected formulas come from `kernels.py` and the launch (seed 1234, p = 0.25, offsets
//! `pid * BLOCK + arange(BLOCK)`, i.e. element `i` reads `rand(seed, i)`):
//! - `dropout_kernel` keeps `x / (1 - p) = 4/3 · x` where `rand(1234, i) > 0.25`, else 0;
//! - `dropout_scale_kernel` keeps `x / p = 4x` there (right for its own code, not
//!   dropout's: it may lift to that formula, never to `4/3 * x`);
//! - `dropout_offset_kernel` reads `rand(1234, i + 1)` and `dropout_block_kernel`
//!   `rand(1234, 2·pid + i mod 4)`: neither may lift to the stream at `arange(N)`.

use crate::common::output_text as text;
use assert_cmd::Command;
use std::path::PathBuf;

fn kernel(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("triton_ir/real_ops")
        .join(name)
        .join("kernel.ttir")
}

/// `lift KERNEL [--size N=n]`: exit code and output.
fn lift(name: &str, n: Option<i64>) -> (Option<i32>, String) {
    let mut cmd = Command::cargo_bin("lift").unwrap();
    cmd.arg(kernel(name));
    if let Some(n) = n {
        cmd.args(["--size", &format!("N={n}")]);
    }
    let o = cmd.output().unwrap();
    (o.status.code(), text(&o))
}

/// The stream dropout reads: `rand(seed, arange(N))` compared with `p`, as the launch
/// fixes them.
const MASK: &str = "where(rand(1234, arange(N)) > 0.25, ";

/// `lift` of the dropout kernel prints `out[N] = where(rand(1234, arange(N)) > 0.25,
/// 4/3 * x, 0)` (x / (1 - 0.25)) and proves it for all N, at the launch's N = 10 (a
/// ragged last block), 16 and 33. (At a size where every element is kept, N = 3, no
/// mask is seen: `lift` proposes `4/3 * x`, and the all-sizes step refutes it.)
#[test]
fn lift_of_dropout_prints_the_stream_formula_verified_for_all_n() {
    for n in [None, Some(16), Some(33)] {
        let (code, t) = lift("dropout", n);
        assert_eq!(code, Some(0), "N={n:?}:\n{t}");
        let want = format!("out[N] = {MASK}4/3 * x, 0)");
        assert!(t.contains(&want), "N={n:?}: no `{want}`:\n{t}");
        assert!(t.contains("VERIFIED for all N"), "N={n:?}:\n{t}");
    }
}

/// The twins never get dropout's formula: the stream read at offset + 1 and the
/// wrong-block stream are no `rand(1234, arange(N))` mask (UNKNOWN, never VERIFIED);
/// the 1/p twin, if it lifts, keeps `4 * x` (its own code), never `4/3 * x`.
#[test]
fn dropout_twins_do_not_lift_to_the_dropout_formula() {
    let right = format!("{MASK}4/3 * x, 0)");
    for name in ["dropout_offset", "dropout_block"] {
        let (code, t) = lift(name, Some(16));
        assert_eq!(code, Some(3), "{name}:\n{t}");
        assert!(
            !t.contains(&right) && !t.contains("VERIFIED"),
            "{name}:\n{t}"
        );
    }
    let (code, t) = lift("dropout_scale", Some(16));
    assert!(!t.contains(&right), "{t}");
    if code == Some(0) {
        assert!(t.contains(&format!("out[N] = {MASK}4 * x, 0)")), "{t}");
    } else {
        assert_eq!(code, Some(3), "{t}");
    }
}
