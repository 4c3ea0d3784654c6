//! Persistent kernels on a size-dependent grid (issue 42): libraries launch
//! `for tile in range(pid, cdiv(n, B), num_programs)` on `min(NUM_SMS, cdiv(n, B))`
//! programs. The all-sizes proof takes the grid's two regimes (`verify::regimes`):
//! `NUM_SMS` programs striding where `NUM_SMS <= cdiv(N, B)`, one tile per program
//! where fewer tiles than SMs; together every N.
//!
//! Expected from the kernels' code (`triton_ir/real_ops/kernels.py`, B = 4):
//! - `persistent_axpb_kernel` writes tile `pid + G·u` for `u < cdiv(T - pid, G)`, `T =
//!   cdiv(N, 4)` tiles on `G` programs: every tile once for every `G >= 1`, so on `min(S,
//!   T)` programs for every N and every S;
//! - `persistent_axpb_rounds_kernel` does `T div G` whole rounds only: right where `G`
//!   divides `T` (always when `G = T`, i.e. `T <= S`), wrong where `T > S` and `S` does
//!   not divide `T` (tiles `S·(T div S)` onward never written);
//! - `persistent_axpb_three_kernel` strides by the constant 3: on `min(3, T)` programs it
//!   is right (one tile each below 3 tiles, the stride of the grid above); on `min(1, T)`
//!   = one program it does tiles 0, 3, 6, … only (at N = 17, 5 tiles: 1, 2, 4 missed).

use crate::common::output_text as text;
use assert_cmd::Command;
use std::path::{Path, PathBuf};

fn dir(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("triton_ir/real_ops")
        .join(name)
}

/// `lift check` of `name`'s kernel against `y = 2 * x + 1` on the launch with
/// `grid = [grid]` (written beside a copy of the kernel): exit code and output.
fn check_on(name: &str, grid: &str, extra: &[&str]) -> (Option<i32>, String) {
    let tmp = tempfile::tempdir().unwrap();
    let k = tmp.path().join("kernel.ttir");
    std::fs::copy(dir(name).join("kernel.ttir"), &k).unwrap();
    let launch = std::fs::read_to_string(dir(name).join("kernel.launch.toml")).unwrap();
    let line = launch.lines().find(|l| l.starts_with("grid = ")).unwrap();
    let launch = launch.replace(line, &format!("grid = [{grid}]"));
    std::fs::write(tmp.path().join("kernel.launch.toml"), launch).unwrap();
    run(&k, extra)
}

fn run(kernel: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let o = Command::cargo_bin("lift")
        .unwrap()
        .arg("check")
        .arg(kernel)
        .args(["--spec", "y = 2 * x + 1"])
        .args(extra)
        .output()
        .unwrap();
    (o.status.code(), text(&o))
}

/// The persistent kernel on `min(S, cdiv(N, 4))` programs is VERIFIED for all N, for
/// an H100's 132 SMs (the fixture's launch, at N = 17: one tile per program, and at
/// N = 541: 136 tiles on 132 programs) and for 1 and 3 SMs.
#[test]
fn persistent_kernel_on_a_min_grid_is_verified_for_every_n() {
    let launch =
        std::fs::read_to_string(dir("persistent_axpb_sms").join("kernel.launch.toml")).unwrap();
    assert!(
        launch.contains(r#"grid = ["min(132, cdiv(N, 4))"]"#),
        "{launch}"
    );
    for size in ["N=17", "N=541"] {
        let k = dir("persistent_axpb_sms").join("kernel.ttir");
        let (code, t) = run(&k, &["--size", size]);
        assert_eq!(code, Some(0), "{size}:\n{t}");
        assert!(t.contains("VERIFIED for all N"), "{size}:\n{t}");
    }
    for sms in [1, 3] {
        let grid = format!("\"min({sms}, cdiv(N, 4))\"");
        let (code, t) = check_on("persistent_axpb_sms", &grid, &[]);
        assert_eq!(code, Some(0), "{sms} SMs:\n{t}");
        assert!(t.contains("VERIFIED for all N"), "{sms} SMs:\n{t}");
    }
}

/// The whole-rounds twin is right at its instances (5 tiles on 5 programs, 264 on 132)
/// and REFUTED at an N with more than 132 tiles that 132 does not divide, a size that
/// replays on its own.
#[test]
fn whole_rounds_twin_is_refuted_where_the_grid_does_not_divide_the_tiles() {
    let k = dir("persistent_axpb_rounds").join("kernel.ttir");
    let (code, t) = run(&k, &[]);
    assert_eq!(code, Some(1), "{t}");
    let n: i64 = t
        .split("REFUTED at N=")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("no refuting N:\n{t}"));
    let tiles = (n + 3) / 4;
    assert!(tiles > 132 && tiles % 132 != 0, "N={n}:\n{t}");
    let (code, t) = run(&k, &["--scope", "instance", "--size", &format!("N={n}")]);
    assert_eq!(code, Some(1), "N={n}:\n{t}");
}

/// Striding by the constant 3 is right on `min(3, T)` programs for every N and wrong on
/// `min(1, T)` (one program at N = 17 misses tiles 1, 2 and 4).
#[test]
fn constant_stride_twin_is_right_on_a_grid_of_three_and_wrong_on_one() {
    let (code, t) = check_on("persistent_axpb_three", "\"min(3, cdiv(N, 4))\"", &[]);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("VERIFIED for all N"), "{t}");
    let (code, t) = check_on("persistent_axpb_three", "\"min(1, cdiv(N, 4))\"", &[]);
    assert_eq!(code, Some(1), "{t}");
    assert!(t.contains("REFUTED"), "{t}");
}
