//! Times symbolic execution (`lift spec`: parse + launch + execute) of every kernel
//! of the suite on each of its instances, and prints a Markdown table for
//! benchmarks/RESULTS.md. Run: `cargo bench --bench spec_suite`.

use lift::term::Terms;
use lift::Kernel;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Deserialize)]
struct FixtureToml {
    expect: String,
    #[serde(default)]
    instance: Vec<Instance>,
}

#[derive(Deserialize)]
struct Instance {
    name: String,
    sizes: BTreeMap<String, i64>,
}

const REPEATS: usize = 5;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("fixture.toml").exists())
        .collect();
    dirs.sort();
    println!("| kernel | instance | sizes | ops executed | terms | median time (ms) |");
    println!("|---|---|---|---:|---:|---:|");
    let mut total = Duration::ZERO;
    let mut count = 0;
    for dir in dirs {
        let meta: FixtureToml =
            toml::from_str(&std::fs::read_to_string(dir.join("fixture.toml")).unwrap()).unwrap();
        if meta.expect == "error" {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        for inst in &meta.instance {
            let mut times = Vec::with_capacity(REPEATS);
            let mut terms_len = 0;
            for _ in 0..REPEATS {
                let start = Instant::now();
                let k = Kernel::load(&dir.join("kernel.ttir"), None).unwrap();
                let i = k.instance(&inst.sizes).unwrap();
                let mut terms = Terms::new();
                let spec = k.spec(&i, &mut terms).unwrap();
                times.push(start.elapsed());
                terms_len = terms.len();
                std::hint::black_box(spec);
            }
            times.sort();
            let median = times[REPEATS / 2];
            total += median;
            count += 1;
            let sizes: Vec<String> = inst.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
            let ops = ops_executed(&dir, &inst.sizes);
            println!(
                "| {name} | {} | {} | {ops} | {terms_len} | {:.3} |",
                inst.name,
                sizes.join(" "),
                median.as_secs_f64() * 1e3
            );
        }
    }
    println!();
    println!(
        "Whole suite: {count} kernel instances, {:.1} ms in total (sum of medians); peak RSS {} KiB.",
        total.as_secs_f64() * 1e3,
        peak_rss_kib()
    );
}

fn ops_executed(dir: &Path, sizes: &BTreeMap<String, i64>) -> u64 {
    let k = Kernel::load(&dir.join("kernel.ttir"), None).unwrap();
    let i = k.instance(sizes).unwrap();
    let mut terms = Terms::new();
    let tensor_names = i.tensors.iter().map(|t| t.name.as_str().into()).collect();
    let mut d = lift::exec::domain::Symbolic {
        terms: &mut terms,
        tensor_names,
        precision: Default::default(),
    };
    lift::exec::execute(k.triton().unwrap(), &i, &mut d)
        .unwrap()
        .ops_executed
}

fn peak_rss_kib() -> String {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.split_whitespace().nth(1).unwrap_or("?").to_string())
        })
        .unwrap_or_else(|| "?".into())
}
