//! Times the PTX work of lift over ptx/: for every NVRTC variant and instance, the
//! symbolic CTA execution alone (instructions executed, instructions per second) and
//! `equiv` against the family's reference variant (execution of both + deciding).
//! Run: `cargo bench --bench ptx_suite`.

use lift::check::{self, CheckOptions};
use lift::exec::domain::Symbolic;
use lift::term::Terms;
use lift::Kernel;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

#[derive(Deserialize)]
struct Fixture {
    expect: String,
    equiv: String,
    instance: Vec<Instance>,
}

#[derive(Deserialize)]
struct Instance {
    name: String,
    sizes: BTreeMap<String, i64>,
}

const REPEATS: usize = 3;

fn median<T>(mut f: impl FnMut() -> T) -> (Duration, T) {
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..REPEATS {
        let start = Instant::now();
        last = Some(f());
        times.push(start.elapsed());
    }
    times.sort();
    (times[REPEATS / 2], last.unwrap())
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("ptx");
    let mut fixtures = Vec::new();
    for family in ["reduce", "matmul", "softmax"] {
        let mut names: Vec<_> = std::fs::read_dir(root.join(family))
            .unwrap()
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.to_string_lossy().ends_with(".fixture.toml"))
            .collect();
        names.sort();
        fixtures.extend(names);
    }
    println!("| variant | instance | threads × CTAs | PTX instructions executed | exec (ms) | instructions/s | equiv vs reference | equiv (ms) |");
    println!("|---|---|---:|---:|---:|---:|---|---:|");
    for path in fixtures {
        let f: Fixture = toml::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
        if f.expect == "race" {
            continue;
        }
        let stem = path
            .file_name()
            .unwrap()
            .to_string_lossy()
            .replace(".fixture.toml", "");
        let family = path
            .parent()
            .unwrap()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let kernel = Kernel::load(&path.with_file_name(format!("{stem}.ptx")), None).unwrap();
        let reference =
            Kernel::load(&path.with_file_name(format!("{}.ptx", f.equiv)), None).unwrap();
        for inst in &f.instance {
            let i = kernel.instance(&inst.sizes).unwrap();
            let (t_exec, ops) = median(|| {
                let mut terms = Terms::new();
                let names = i.tensors.iter().map(|t| t.name.as_str().into()).collect();
                let mut d = Symbolic {
                    terms: &mut terms,
                    tensor_names: names,
                    precision: Default::default(),
                };
                kernel
                    .execute(&i, &mut d)
                    .map(|e| e.ops_executed)
                    .unwrap_or(0)
            });
            let (t_equiv, verdict) = median(|| {
                match check::equiv(&reference, &kernel, &inst.sizes, &CheckOptions::default()) {
                    Ok(r) => format!("{:?}", r.outcome).to_lowercase(),
                    Err(e) => format!("error (exit {})", e.exit_code()),
                }
            });
            let threads: i64 = i.block.iter().map(|&b| b.max(1)).product();
            let ctas: i64 = i.grid.iter().product();
            println!(
                "| {family}/{stem} | {} | {threads} × {ctas} | {ops} | {:.2} | {:.2e} | {verdict} | {:.2} |",
                inst.name,
                t_exec.as_secs_f64() * 1e3,
                ops as f64 / t_exec.as_secs_f64().max(1e-9),
                t_equiv.as_secs_f64() * 1e3
            );
        }
    }
    // Triton PTX with inlined libdevice expansions (recognised by src/ptx/libm.rs)
    // against the same kernel's TTIR.
    println!();
    println!("| Triton PTX ≡ TTIR (libdevice) | instance | equiv | equiv (ms) |");
    println!("|---|---|---|---:|");
    let tri = Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir");
    for op in [
        "log",
        "sin",
        "cos",
        "tanh",
        "gelu",
        "gelu_bug",
        "gelu_mul",
        "log_softmax",
        "log_softmax_bug",
    ] {
        let dir = tri.join(op);
        let ttir = Kernel::load(&dir.join("kernel.ttir"), None).unwrap();
        let ptx = Kernel::load(&dir.join("kernel.ptx"), None).unwrap();
        let f: toml::Value =
            toml::from_str(&std::fs::read_to_string(dir.join("fixture.toml")).unwrap()).unwrap();
        for inst in f["instance"].as_array().unwrap() {
            let sizes: std::collections::BTreeMap<String, i64> = inst["sizes"]
                .as_table()
                .unwrap()
                .iter()
                .map(|(k, v)| (k.clone(), v.as_integer().unwrap()))
                .collect();
            let (t, verdict) =
                median(
                    || match check::equiv(&ttir, &ptx, &sizes, &CheckOptions::default()) {
                        Ok(r) => format!("{:?}", r.outcome).to_lowercase(),
                        Err(e) => format!("error (exit {})", e.exit_code()),
                    },
                );
            println!(
                "| {op} | {} | {verdict} | {:.2} |",
                inst["name"].as_str().unwrap(),
                t.as_secs_f64() * 1e3
            );
        }
    }
}
