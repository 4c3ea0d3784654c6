//! Integers as the GPU has them (docs/semantics.md, "Values"): concrete runs wrap every integer
//! op in its width, and a claim for every size never covers a size where a narrowing
//! cast, index arithmetic or a loop counter wraps. Fixtures: tests/int_widths/
//! (generate.py, real Triton 3.9 output).
//!
//! Every expected bound is derived here from the kernel's own arithmetic (its block
//! width and the width of the type), not read off lift's output.

use assert_cmd::Command;

const DIR: &str = "tests/int_widths";

/// `lift ARGS`: its exit code and stdout + stderr.
fn lift(args: &[&str]) -> (i32, String) {
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
    (out.status.code().unwrap_or(-1), text)
}

fn kernel(name: &str) -> String {
    format!("{DIR}/{name}.ttir")
}

fn check(name: &str, spec: &str, extra: &[&str]) -> (i32, String) {
    let k = kernel(name);
    let mut args = vec!["check", k.as_str(), "--spec", spec];
    args.extend_from_slice(extra);
    lift(&args)
}

/// The last line: the verdict.
fn verdict(text: &str) -> &str {
    text.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
}

/// The first size `n` at which an elementwise kernel of `block`-wide programs over
/// `cdiv(n, block)` programs computes an offset (masked lanes included) past
/// `i16::MAX`: its last program's last lane is `cdiv(n, block) * block - 1`.
fn first_wrapping_elementwise_size(block: i64, max: i64) -> i64 {
    (1..)
        .find(|n| (n + block - 1) / block * block - 1 > max)
        .unwrap()
}

/// The largest `n` (an i32) at which every increment `off + step` of
/// `for off in range(0, n, step)` fits an i32: the last iteration is the largest
/// multiple of `step` below `n`. Bisection over the predicate.
fn largest_counter_safe_size(step: i64) -> i64 {
    let wraps = |n: i64| (n - 1) / step * step + step > i32::MAX as i64;
    let (mut lo, mut hi) = (1i64, i32::MAX as i64 + 1);
    assert!(!wraps(lo));
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if wraps(mid) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    lo
}

#[test]
fn expected_bounds_from_the_arithmetic() {
    // Offsets in blocks of 4 through int16: lanes up to 32767 fit, so 32768 elements.
    assert_eq!(first_wrapping_elementwise_size(4, (1 << 15) - 1), 32769);
    // 2^31 - 1 = 128·(2^24 - 1) + 127: the last safe start is 2^31 - 256.
    assert_eq!(largest_counter_safe_size(128), (1 << 31) - 128);
    assert_eq!(largest_counter_safe_size(4), 2147483644);
}

/// The int16 twin: proved at its instance, refuted where its offsets wrap (the bounded
/// run wraps the cast and stores before the start of `y`), never VERIFIED for all N.
#[test]
fn a_narrowing_cast_twin_is_refuted_where_it_wraps() {
    let bad = first_wrapping_elementwise_size(4, i16::MAX as i64);
    let (code, text) = check("scale_i16", "y = 2 * x", &[]);
    let v = verdict(&text);
    assert!(!v.contains("VERIFIED for all"), "{text}");
    assert_eq!(code, 1, "{text}");
    assert!(v.starts_with(&format!("REFUTED at N={bad}")), "{text}");
    assert!(v.contains(&format!("N <= {}", bad - 1)), "{text}");
    assert!(v.contains("cast to i16"), "{text}");
    // The instance reading agrees: the bounded run at that size wraps the offsets.
    let size = format!("N={bad}");
    let (code, text) = check(
        "scale_i16",
        "y = 2 * x",
        &["--scope", "instance", "--size", &size],
    );
    assert_eq!(code, 1, "{text}");
    assert!(
        text.contains("out of bounds") && text.contains("x[-32768]"),
        "{text}"
    );
    let size = format!("N={}", bad - 1);
    let (code, text) = check(
        "scale_i16",
        "y = 2 * x",
        &["--scope", "instance", "--size", &size],
    );
    assert_eq!(code, 0, "{text}");
}

/// The int16 shift twin: rows of a `[N, 2]` x addressed at `i << 1`, which wraps once
/// `2·i` passes `i16::MAX`. Refuted there (the bounded run wraps the shift and loads
/// before the start of x), never VERIFIED for all N.
#[test]
fn a_left_shift_twin_is_refuted_where_it_wraps() {
    let bad = first_wrapping_elementwise_size(4, i16::MAX as i64 / 2);
    let (code, text) = check("shl_pairs_i16", "y = x.sum(1)", &[]);
    let v = verdict(&text);
    assert!(!v.contains("VERIFIED for all"), "{text}");
    assert_eq!(code, 1, "{text}");
    assert!(v.starts_with(&format!("REFUTED at N={bad}")), "{text}");
    assert!(v.contains(&format!("N <= {}", bad - 1)), "{text}");
    let size = format!("N={bad}");
    let (code, text) = check(
        "shl_pairs_i16",
        "y = x.sum(1)",
        &["--scope", "instance", "--size", &size],
    );
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("out of bounds"), "{text}");
    let size = format!("N={}", bad - 1);
    let (code, text) = check(
        "shl_pairs_i16",
        "y = x.sum(1)",
        &["--scope", "instance", "--size", &size],
    );
    assert_eq!(code, 0, "{text}");
}

/// The control shifts in int32: proved for every N up to where `i << 1` would pass
/// `i32::MAX`, and the claim says so.
#[test]
fn a_left_shift_in_i32_states_its_bound() {
    let bound = first_wrapping_elementwise_size(4, i32::MAX as i64 / 2) - 1;
    assert_eq!(bound, 1 << 30);
    let (code, text) = check("shl_pairs_i32", "y = x.sum(1)", &[]);
    assert_eq!(code, 0, "{text}");
    let v = verdict(&text);
    assert!(v.starts_with("VERIFIED for all N"), "{text}");
    assert!(
        v.contains(&format!("N <= {bound} (i32 index arithmetic")),
        "{text}"
    );
}

/// The control widens its offsets: nothing can wrap, no bound.
#[test]
fn a_widening_cast_needs_no_bound() {
    let (code, text) = check("scale_i64", "y = 2 * x", &[]);
    assert_eq!(code, 0, "{text}");
    assert!(verdict(&text).starts_with("VERIFIED for all N ("), "{text}");
}

/// The i32 loop counter twin: the claim excludes every N where `off + 128` wraps.
#[test]
fn a_loop_counter_twin_prints_the_bound_it_needs() {
    let (code, text) = check("row_sum_loop_i32", "y = torch.sum(x, dim=1)", &[]);
    assert_eq!(code, 0, "{text}");
    let v = verdict(&text);
    let bound = largest_counter_safe_size(128);
    assert!(
        v.contains(&format!(
            "N <= {bound} (i32 loop counter at {DIR}/kernels.py:35)"
        )),
        "{text}"
    );
}

/// The same loop with an int64 counter (bounded by an i32): proved not to wrap.
#[test]
fn an_i64_loop_counter_is_proved_not_to_wrap() {
    let (code, text) = check("row_sum_loop_i64", "y = torch.sum(x, dim=1)", &[]);
    assert_eq!(code, 0, "{text}");
    let v = verdict(&text);
    assert!(v.starts_with("VERIFIED for all M, N"), "{text}");
    assert!(!v.contains("loop counter") && !v.contains("N <="), "{text}");
}

/// The suite's correct looped mean (column tiles of 4): its claim carries the
/// counter's bound, 4·⌊(2^31 - 1)/4⌋.
#[test]
fn a_correct_looped_kernel_states_its_counter_bound() {
    let (code, text) = lift(&[
        "check",
        "triton_ir/mean_looped/kernel.ttir",
        "--spec",
        "y = torch.mean(x, dim=1)",
    ]);
    assert_eq!(code, 0, "{text}");
    let bound = largest_counter_safe_size(4);
    assert!(
        verdict(&text).contains(&format!("N <= {bound} (i32 loop counter at")),
        "{text}"
    );
}

/// `x[:, :N-3]` at N = 2 is `x[:, :-1]` in Python: the all-sizes reading refuses it
/// rather than claim N = 2, where the instance reading refutes the kernel.
#[test]
fn a_slice_bound_negative_at_some_sizes_is_not_read_for_all_sizes() {
    let spec = "y = x[:, :N-3].sum(1)";
    let (code, text) = check("head_sum", spec, &["--scope", "instance", "--size", "N=2"]);
    assert_eq!(code, 1, "{text}");
    assert!(verdict(&text).starts_with("REFUTED"), "{text}");
    let (code, text) = check("head_sum", spec, &[]);
    let v = verdict(&text);
    assert!(!v.contains("VERIFIED for all"), "{text}");
    assert!(v.contains("UNKNOWN") && v.contains("`(N - 3)`"), "{text}");
    assert_eq!(code, 0, "the instance (N = 8) is verified: {text}");
}

/// `arith.uitofp` reads its operand's bits unsigned: `d = n - 1000` is 0 at the launch's
/// N = 1000 and -1 at N = 999, where the GPU converts 2^32 - 1, so the kernel adds
/// `u - d` = 2^32 there (in f32: 4294967296). Read as the real d, `u - d` would be zero
/// at every size: the all-sizes step must not claim `y = x` past N = 1000.
#[test]
fn an_unsigned_conversion_of_a_negative_integer_is_not_read_as_the_real() {
    let (code, text) = check(
        "unsigned_shift",
        "y = x",
        &["--scope", "instance", "--size", "N=999"],
    );
    assert_eq!(code, 1, "2^32 is added at N = 999: {text}");
    let lifted = vec![kernel("unsigned_shift")];
    let checked = ["check", &kernel("unsigned_shift"), "--spec", "y = x"].map(String::from);
    for args in [lifted, checked.to_vec()] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (code, text) = lift(&args);
        let v = verdict(&text);
        assert!(!v.contains("VERIFIED for all"), "{text}");
        // Refuted at a size below 1000 (where 2^32 is added), or not read for all sizes.
        let below = v
            .strip_prefix("REFUTED at N=")
            .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
            .and_then(|n| n.parse::<i64>().ok())
            .is_some_and(|n| n < 1000);
        let unknown = v.contains("UNKNOWN") && v.contains("uitofp");
        assert!(below || unknown, "{text}");
        assert_eq!(code, if below { 1 } else { 0 }, "{text}");
    }
}

/// An integer division by zero (`1 // (n - 1000)` at N = 1000) is undefined on the GPU:
/// a fault of the kernel, so `check`, `lift` and `run` exit 1 (a finding) and name the
/// division, never 2 (which says the input or the usage was wrong).
#[test]
fn an_integer_division_by_zero_is_a_finding() {
    let k = kernel("div_by_zero");
    for args in [
        vec!["check", k.as_str(), "--spec", "y = x"],
        vec![k.as_str()],
    ] {
        let (code, text) = lift(&args);
        assert_eq!(code, 1, "{args:?}: {text}");
        assert!(text.contains("division by zero"), "{args:?}: {text}");
    }
    // At N = 1001 the divisor is 1 and the kernel is y = x.
    let (code, text) = check(
        "div_by_zero",
        "y = x",
        &["--scope", "instance", "--size", "N=1001"],
    );
    assert_eq!(code, 0, "{text}");
}
