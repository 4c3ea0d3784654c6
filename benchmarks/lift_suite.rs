//! Times `lift KERNEL` (symbolic execution, synthesis, proof) for every correct kernel
//! of the suite at its launch's default sizes, checks each lifted formula also holds at
//! the fixture's second instance, and prints a Markdown table for
//! benchmarks/RESULTS.md. Run: `cargo bench --bench lift_suite`.

use lift::formula::ShapeEnv;
use lift::synth::{self, Lift};
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
    sizes: BTreeMap<String, i64>,
}

/// Runs per kernel (the median is reported); a kernel slower than a second runs once.
const REPEATS: usize = 3;

fn lift_once(k: &Kernel) -> (Duration, Lift, Terms) {
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let start = Instant::now();
    let l = synth::lift(k, &inst, &mut terms).unwrap();
    (start.elapsed(), l, terms)
}

/// Whether every lifted formula of `l` is proved at the sizes `sizes` too.
fn holds_at(k: &Kernel, l: &Lift, sizes: &BTreeMap<String, i64>) -> bool {
    let inst = k.instance(sizes).unwrap();
    let mut terms = Terms::new();
    let spec = k.spec(&inst, &mut terms).unwrap();
    let env = ShapeEnv::from_launch(&k.launch, &inst.sizes).unwrap();
    l.outputs.iter().all(|o| {
        let (Some(f), Some(t)) = (&o.formula, spec.outputs.iter().find(|t| t.name == o.name))
        else {
            return false;
        };
        let elems: Option<Vec<_>> = t.elems.iter().copied().collect();
        elems.is_some_and(|e| synth::prove(&mut terms, &env, f, &t.shape, &e).is_ok())
    })
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("fixture.toml").exists())
        .collect();
    dirs.sort();
    println!("| kernel | lifted | 2nd instance | execute (ms) | synthesize (ms) | prove (ms) | total, median (ms) |");
    println!("|---|---|---|---:|---:|---:|---:|");
    let (mut total, mut n, mut n_lifted) = (Duration::ZERO, 0, 0);
    for dir in dirs {
        let meta: FixtureToml =
            toml::from_str(&std::fs::read_to_string(dir.join("fixture.toml")).unwrap()).unwrap();
        if meta.expect != "verified" {
            continue;
        }
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let k = Kernel::load(&dir.join("kernel.ttir"), None).unwrap();
        let mut runs = vec![lift_once(&k)];
        if runs[0].0 < Duration::from_secs(1) {
            for _ in 1..REPEATS {
                runs.push(lift_once(&k));
            }
        }
        runs.sort_by_key(|r| r.0);
        let (time, l, _) = &runs[runs.len() / 2];
        let lifted = l.outputs.iter().filter(|o| o.formula.is_some()).count();
        let all = lifted == l.outputs.len();
        let second = match meta.instance.get(1) {
            Some(i) if all => {
                if holds_at(&k, l, &i.sizes) {
                    "proved"
                } else {
                    "NOT proved"
                }
            }
            _ => "-",
        };
        let t = &l.timings;
        println!(
            "| {name} | {} | {second} | {:.1} | {:.1} | {:.1} | {:.1} |",
            if all {
                "all".to_string()
            } else {
                format!("{lifted} of {}", l.outputs.len())
            },
            ms(t.execute),
            ms(t.synthesize),
            ms(t.prove),
            ms(*time)
        );
        total += *time;
        n += 1;
        n_lifted += all as usize;
    }
    println!();
    println!(
        "{n_lifted} of {n} correct kernels lift; whole suite {:.0} ms (sum of medians), {} threads",
        ms(total),
        rayon::current_num_threads()
    );
}
