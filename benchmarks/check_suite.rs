//! Times `lift check` of every suite kernel against its PyTorch spec and `lift equiv`
//! of every second implementation against its first, per instance, and prints a
//! Markdown table for benchmarks/RESULTS.md. Run: `cargo bench --bench check_suite`.

use lift::check::{self, CheckOptions};
use lift::Kernel;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Deserialize)]
struct FixtureToml {
    expect: String,
    #[serde(default)]
    spec: String,
    #[serde(default)]
    equiv: Option<String>,
    #[serde(default)]
    instance: Vec<Instance>,
}

#[derive(Deserialize)]
struct Instance {
    name: String,
    sizes: BTreeMap<String, i64>,
}

const REPEATS: usize = 3;

fn median(mut f: impl FnMut() -> String) -> (Duration, String) {
    let mut times = Vec::new();
    let mut verdict = String::new();
    for _ in 0..REPEATS {
        let start = Instant::now();
        verdict = f();
        times.push(start.elapsed());
    }
    times.sort();
    (times[REPEATS / 2], verdict)
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("fixture.toml").exists())
        .collect();
    dirs.sort();
    let threads = rayon::current_num_threads();
    println!("| kernel | instance | command | verdict | median time (ms) |");
    println!("|---|---|---|---|---:|");
    let (mut total_check, mut n_check) = (Duration::ZERO, 0);
    let (mut total_equiv, mut n_equiv) = (Duration::ZERO, 0);
    let mut slowest = (Duration::ZERO, String::new());
    for dir in dirs {
        let meta: FixtureToml =
            toml::from_str(&std::fs::read_to_string(dir.join("fixture.toml")).unwrap()).unwrap();
        if meta.expect == "error" {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let k = Kernel::load(&dir.join("kernel.ttir"), None).unwrap();
        for inst in &meta.instance {
            let i = k.instance(&inst.sizes).unwrap();
            let (t, verdict) = median(|| {
                let r = check::check(&k, &i, &meta.spec, &CheckOptions::default()).unwrap();
                format!("{:?}", r.outcome).to_lowercase()
            });
            println!(
                "| {name} | {} | check | {verdict} | {:.1} |",
                inst.name,
                t.as_secs_f64() * 1e3
            );
            total_check += t;
            n_check += 1;
            if t > slowest.0 {
                slowest = (t, format!("check {name}/{}", inst.name));
            }
            if let Some(other) = &meta.equiv {
                let a = Kernel::load(&root.join(other).join("kernel.ttir"), None).unwrap();
                let (t, verdict) = median(|| {
                    let r = check::equiv(&a, &k, &inst.sizes, &CheckOptions::default()).unwrap();
                    format!("{:?}", r.outcome).to_lowercase()
                });
                println!(
                    "| {name} | {} | equiv {other} | {verdict} | {:.1} |",
                    inst.name,
                    t.as_secs_f64() * 1e3
                );
                total_equiv += t;
                n_equiv += 1;
            }
        }
    }
    println!();
    println!(
        "check: {n_check} kernel instances, {:.2} s in total (sum of medians); equiv: {n_equiv} pairs, {:.2} s; slowest: {} ({:.2} s); rayon threads: {threads}.",
        total_check.as_secs_f64(),
        total_equiv.as_secs_f64(),
        slowest.1,
        slowest.0.as_secs_f64()
    );
}
