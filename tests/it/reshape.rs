//! Reshapes (`Formula::Reshape`): a kernel writing one partial result per block is
//! `x.view(-1, 4).sum(1)`, and fla-core's chunk mean pooling is
//! `x.view(B, T // 4, 4, H, D).mean(2)`.
//!
//! Expected values come from the definitions, not from lift: a reshape keeps NumPy's
//! row-major order, so element `k` of `x.reshape(-1)` is `x[k // N, k % N]`; the suite's
//! `block_sum` sums blocks of 4 and its size twin `block_sum_cap` reads nothing past
//! element 16, so it is right exactly while `4 P <= 16`.

use assert_cmd::Command;
use lift::formula::{Formula, ShapeEnv, Size};
use lift::term::Terms;
use std::path::{Path, PathBuf};

fn env() -> ShapeEnv {
    ShapeEnv::new()
        .named_tensor("x", &[("M", 3), ("N", 4)])
        .size("M", 3)
        .size("N", 4)
}

fn name(n: &str) -> Size {
    Size::Size(n.into())
}

fn fixture(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(dir)
        .join("kernel.ttir")
}

/// `lift ARGS...`: exit code and stdout.
fn lift(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::cargo_bin("lift")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code(), text)
}

#[test]
fn a_reshape_keeps_row_major_order_and_the_element_count() {
    let e = env();
    let mut t = Terms::new();
    // [M, N] -> [N, M]: the same twelve elements, row-major, in another shape.
    let r = Formula::input("x").reshape(vec![name("N"), name("M")]);
    assert_eq!(r.shape(&e).unwrap(), vec![4, 3]);
    let got = r.instantiate(&mut t, &e).unwrap();
    for k in 0..12 {
        assert_eq!(
            got[k],
            t.input("x", &[(k / 4) as i64, (k % 4) as i64]),
            "element {k}"
        );
    }
    // [M, N] -> [M * N].
    let flat = Formula::input("x").reshape(vec![Size::parse("M * N").unwrap()]);
    assert_eq!(flat.shape(&e).unwrap(), vec![12]);
    // A reshape of a reshape is one reshape of the original.
    let twice = flat.clone().reshape(vec![name("M"), name("N")]);
    assert!(matches!(&twice, Formula::Reshape { arg, .. } if **arg == Formula::input("x")));
    // Another element count is an error that names both shapes.
    let bad = Formula::input("x").reshape(vec![Size::Int(5), Size::Int(2)]);
    let err = bad.shape(&e).unwrap_err().to_string();
    assert!(
        err.contains("12 elements") && err.contains("10 elements"),
        "{err}"
    );
}

#[test]
fn a_reshape_renders_as_numpy_and_pytorch_write_it() {
    let f = Formula::input("x")
        .reshape(vec![Size::parse("N // 4").unwrap(), Size::Int(4)])
        .sum(1, false);
    assert_eq!(
        lift::render::text::expr(&f),
        "sum(reshape(x, (N // 4, 4)), axis=1)"
    );
    let one = Formula::input("x").reshape(vec![name("N")]);
    assert_eq!(lift::render::text::expr(&one), "reshape(x, (N,))");
}

/// The suite's `block_sum` lifts to the partial sums of blocks of 4, proved for every P.
#[test]
fn block_sums_lift_to_a_reshape_proved_for_all_sizes() {
    let k = fixture("triton_ir/block_sum");
    let (code, text) = lift(&[k.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("y[P] = sum(reshape(x, (P, 4)), axis=1)"),
        "{text}"
    );
    assert!(text.contains("VERIFIED for all P ("), "{text}");
    // The NumPy rendering names P from x's length.
    let (_, py) = lift(&[
        k.to_str().unwrap(),
        "--format",
        "numpy",
        "--scope",
        "instance",
    ]);
    assert!(
        py.contains("P = x.shape[0] // 4") && py.contains("x.reshape(P, 4)"),
        "{py}"
    );
}

/// The PyTorch spec as people write it is proved for every size on the right kernel,
/// only while `4 P <= 16` on the capped twin, and refuted where its bug shows.
#[test]
fn view_specs_are_proved_and_refuted_for_all_sizes() {
    let spec = "y = x.view(-1, 4).sum(1)";
    let (code, text) = lift(&[
        "check",
        fixture("triton_ir/block_sum").to_str().unwrap(),
        "--spec",
        spec,
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("VERIFIED for all P ("), "{text}");
    let cap = fixture("triton_ir/block_sum_cap");
    let (code, text) = lift(&["check", cap.to_str().unwrap(), "--spec", spec]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("VERIFIED for all P with P <= 4"), "{text}");
    let (code, text) = lift(&[
        "check",
        cap.to_str().unwrap(),
        "--spec",
        spec,
        "--size",
        "P=5",
    ]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
    // The wrong view: `view(4, -1).sum(0)` sums every third element at P = 3.
    let wrong = "y = x.view(4, -1).sum(0)";
    let (code, text) = lift(&[
        "check",
        fixture("triton_ir/block_sum").to_str().unwrap(),
        "--spec",
        wrong,
    ]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("REFUTED"), "{text}");
    // A flatten and a view back is the identity, proved as the plain row sum is.
    let round = "m, n = x.shape; y = x.reshape(-1).view(m, n).sum(1)";
    let (code, text) = lift(&[
        "check",
        fixture("triton_ir/sum").to_str().unwrap(),
        "--spec",
        round,
    ]);
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("VERIFIED for all M, N with N <= 8"), "{text}");
}

/// fla-core's mean pooling (corpus `fla_mean_pooling`) lifts to a mean over a reshaped
/// sequence axis; its off-by-one twin divides the last chunk by 3 and is refuted.
#[test]
fn chunk_mean_pooling_lifts_to_a_reshape_and_its_twin_is_refuted() {
    let k = fixture("corpus/fla_mean_pooling");
    let (code, text) = lift(&[k.to_str().unwrap(), "--scope", "instance"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("o[B,NT,2,8] = mean(reshape(x, (B, NT, 4, 2, 8)), axis=2)"),
        "{text}"
    );
    let spec = "B, T, H, D = x.shape; o = x.view(B, T // 4, 4, H, D).mean(2)";
    let twin = fixture("corpus/fla_mean_pooling_count_bug");
    let (code, text) = lift(&[
        "check",
        twin.to_str().unwrap(),
        "--spec",
        spec,
        "--scope",
        "instance",
    ]);
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("REFUTED") && text.contains("o[0,2,"),
        "{text}"
    );
}
