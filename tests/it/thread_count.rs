//! Verdicts, counterexamples and messages do not depend on how many threads run them
//! (issue 16: parallel work must stay deterministic). Each case runs in a rayon pool of
//! one thread and in one of four, and the JSON reports must be equal once timings are
//! removed. The cases cover the parallel paths: `equiv`'s concrete cross-check beside
//! its symbolic runs (points and kernels in parallel), and `decide` over output
//! elements; a refuted twin pins that the *first* counterexample is the same one.

use lift::check::{self, CheckOptions};
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn ptx(family: &str, variant: &str) -> Kernel {
    let dir = root().join("ptx").join(family);
    Kernel::load(
        &dir.join(format!("{variant}.ptx")),
        Some(&dir.join(format!("{variant}.launch.toml"))),
    )
    .unwrap()
}

fn ttir(op: &str) -> Kernel {
    Kernel::load(&root().join("triton_ir").join(op).join("kernel.ttir"), None).unwrap()
}

/// The report without its timings.
fn stripped(mut v: serde_json::Value) -> serde_json::Value {
    match &mut v {
        serde_json::Value::Object(m) => {
            m.retain(|k, _| k != "seconds" && k != "time_ms");
            for x in m.values_mut() {
                *x = stripped(x.take());
            }
        }
        serde_json::Value::Array(xs) => {
            for x in xs.iter_mut() {
                *x = stripped(x.take());
            }
        }
        _ => {}
    }
    v
}

fn in_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

fn same_with_1_and_4_threads(what: &str, f: impl Fn() -> serde_json::Value + Sync) {
    let one = stripped(in_pool(1, &f));
    let four = stripped(in_pool(4, &f));
    assert_eq!(one, four, "{what}: the report depends on the thread count");
}

fn sizes(kv: &[(&str, i64)]) -> BTreeMap<String, i64> {
    kv.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

#[test]
fn equiv_reports_do_not_depend_on_the_thread_count() {
    let naive = ptx("matmul", "naive");
    let tiled = ptx("matmul", "smem_tiled");
    let wrong = ptx("matmul", "wrong_bound");
    let s = sizes(&[("M", 32), ("N", 32), ("K", 32)]);
    let opts = CheckOptions::default();
    same_with_1_and_4_threads("naive vs smem_tiled", || {
        let r = check::equiv(&naive, &tiled, &s, &opts).unwrap();
        assert_eq!(r.outcome, check::Outcome::Verified);
        r.to_json()
    });
    same_with_1_and_4_threads("naive vs wrong_bound", || {
        let r = check::equiv(&naive, &wrong, &s, &opts).unwrap();
        assert_eq!(r.outcome, check::Outcome::Refuted);
        assert!(r.counterexample.is_some());
        r.to_json()
    });
}

#[test]
fn check_reports_do_not_depend_on_the_thread_count() {
    let opts = CheckOptions::default();
    for (op, spec, want) in [
        (
            "softmax",
            "y = torch.softmax(x, dim=-1)",
            check::Outcome::Verified,
        ),
        (
            "softmax_bug",
            "y = torch.softmax(x, dim=-1)",
            check::Outcome::Refuted,
        ),
    ] {
        let k = ttir(op);
        let inst = k.instance(&BTreeMap::new()).unwrap();
        same_with_1_and_4_threads(op, || {
            let r = check::check(&k, &inst, spec, &opts).unwrap();
            assert_eq!(r.outcome, want, "{op}");
            r.to_json()
        });
    }
}
