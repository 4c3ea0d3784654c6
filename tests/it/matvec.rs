//! A matrix-vector kernel (tests/matvec/, Triton 3.9.0, see generate.py there): one
//! program per row, `y[i] = sum_k w[k] * x[i, k]`. Its lifted formula is `w @ x.T` (or
//! `x @ w`) with a 1-D operand, which the all-sizes step reads as NumPy's matmul does
//! (a 1-D left operand is a row, a 1-D right one a column). It once panicked there.

use assert_cmd::Command;

fn lift(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::cargo_bin("lift")
        .unwrap()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).to_string() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn the_matrix_vector_kernel_lifts_for_every_size() {
    let (code, text) = lift(&["tests/matvec/matvec.ttir"]);
    assert_eq!(code, Some(0), "{text}");
    let first = text.lines().next().unwrap_or("");
    assert!(first.starts_with("y[M] = "), "{text}");
    assert!(
        first.contains('w') && first.contains('x') && first.contains('@'),
        "{text}"
    );
    assert!(text.contains("VERIFIED for all"), "{text}");
}

#[test]
fn the_matrix_vector_kernel_checks_against_its_spec() {
    for spec in [
        "y = x @ w",
        "y = torch.matmul(w, x.T)",
        "y = (x * w).sum(dim=1)",
    ] {
        let (code, text) = lift(&["check", "tests/matvec/matvec.ttir", "--spec", spec]);
        assert_eq!(code, Some(0), "{spec}: {text}");
        assert!(text.contains("VERIFIED"), "{spec}: {text}");
    }
    // A spec the kernel does not compute is refuted.
    let (code, text) = lift(&[
        "check",
        "tests/matvec/matvec.ttir",
        "--spec",
        "y = (x * w).sum(dim=1) + 1",
    ]);
    assert_eq!(code, Some(1), "{text}");
}
