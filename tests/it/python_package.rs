//! The Python package (`python/`, issue 45 item 1): its pytest suite, run with the
//! `.venv-python` that scripts/setup.sh builds (maturin, Triton 3.9, NumPy, pytest).
//!
//! `python/tests/test_lift.py` proves Triton kernels written there from their calls on
//! NumPy arrays, on the CPU, and catches a wrong twin whose counterexample Triton's CPU
//! interpreter confirms; `test_cuda.py` does the same for CUDA source (NVRTC from the
//! venv scripts/setup.sh installs, passed as `LIFT_NVRTC`). Without the venv this test prints `skipped: ...`, and fails
//! when `CI` is set. The package is built by scripts/setup.sh, not here (a nested cargo
//! would wait on this run's lock of the target directory): an extension older than
//! `src/` is said on stderr, since the tests then run the library as last built.

use crate::common;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The venv's Python when it imports the package and its test dependencies.
fn package_python() -> Option<PathBuf> {
    let python = root().join(".venv-python/bin/python");
    let ok = std::process::Command::new(&python)
        .args(["-c", "import lift._lift, triton, numpy, pytest"])
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then_some(python)
}

/// The newest modification time of the files under `dir`.
fn newest(dir: &Path) -> Option<SystemTime> {
    let mut best = None;
    for entry in std::fs::read_dir(dir).ok()?.flatten() {
        let path = entry.path();
        let t = if path.is_dir() {
            newest(&path)
        } else {
            entry.metadata().and_then(|m| m.modified()).ok()
        };
        best = best.max(t);
    }
    best
}

/// A note on stderr where the built extension is older than the Rust sources.
fn note_if_stale(python: &Path) {
    let out = std::process::Command::new(python)
        .args(["-c", "import lift._lift as m; print(m.__file__)"])
        .output();
    let Ok(out) = out else { return };
    let so = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let built = std::fs::metadata(&so).and_then(|m| m.modified()).ok();
    let sources = newest(&root().join("src")).max(newest(&root().join("python/src")));
    if let (Some(built), Some(sources)) = (built, sources) {
        if sources > built {
            eprintln!(
                "note: {} is older than src/: the Python tests run the library as last built (rerun scripts/setup.sh)",
                so.display()
            );
        }
    }
}

#[test]
fn python_package_pytest_suite() {
    let Some(python) = package_python() else {
        common::missing(
            "python_package_pytest_suite",
            ".venv-python with the lift package, Triton 3.9, NumPy and pytest",
        );
        return;
    };
    note_if_stale(&python);
    // python/tests/test_cuda.py compiles CUDA source through the NVRTC setup.sh installs.
    let Some(nvrtc) = crate::cuda_source::nvrtc_library("python_package_pytest_suite") else {
        return;
    };
    let cache = tempfile::tempdir().expect("temporary directory");
    let out = std::process::Command::new(&python)
        .args([
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "python/tests",
        ])
        .current_dir(root())
        .env("LIFT_CACHE_DIR", cache.path())
        .env("LIFT_NVRTC", &nvrtc)
        .env("TRITON_CACHE_DIR", cache.path().join("triton"))
        .env_remove("TRITON_INTERPRET")
        .output()
        .expect("run pytest");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "pytest python/tests failed:\n{text}");
    // Every test ran: none skipped, the count the suite holds.
    assert!(
        text.contains(" passed") && !text.contains("skipped"),
        "pytest python/tests:\n{text}"
    );
}
