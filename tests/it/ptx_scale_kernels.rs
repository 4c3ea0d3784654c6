//! Issue 16's benchmark kernels on their small instances (the large sizes are timed by
//! `benchmarks/scale.py`, never here):
//! - `ptx/sgemm/`: the SGEMM tutorial series on the whole 128 x 128 output at K = 16,
//!   each proved equal to `naive`; the wrong tile bound refuted; the missing barrier a
//!   RACE of the one 256-thread CTA; `coalesced` as NVRTC emits it (`bfi.b32`);
//! - `ptx/reduce_cg/`: row sums written with cooperative groups (`cg::reduce`,
//!   `thread_block_tile<32>::shfl_down`, `block.sync()`), whose PTX declares ~970
//!   libcu++ `.global` constants, some with negative initializers;
//! - `ptx/flash_attn/`: FlashAttention-1 and -2 style kernels (running max from
//!   `-INFINITY`) against a naive one, at one key tile (N = 32); the unscaled twin refuted; the missing barrier a RACE from
//!   two key tiles (N = 64) on; the FA1 kernels written as the public minimal ones
//!   (`fa1_*`: m and l in global memory, O re-divided by l every tile) proved at two key
//!   tiles (N = 64) and their twins refuted there (N = 128 is timed in benchmarks).

use crate::common;
use crate::common::read_npys;

use common::first_mismatch;
use lift::check::{self, CheckOptions, Outcome};
use lift::exec::ErrorKind;
use lift::race::{self, Safety};
use lift::{Error, Kernel};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn ptx(family: &str, variant: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("ptx")
        .join(family)
        .join(format!("{variant}.ptx"))
}

fn load(family: &str, variant: &str) -> Kernel {
    Kernel::load(&ptx(family, variant), None).unwrap()
}

fn sizes(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn equiv(family: &str, reference: &str, variant: &str, at: &[(&str, i64)]) -> Outcome {
    let r = check::equiv(
        &load(family, reference),
        &load(family, variant),
        &sizes(at),
        &CheckOptions::default(),
    )
    .unwrap_or_else(|e| panic!("{family}/{variant}: {e}"));
    if r.outcome != Outcome::Verified {
        eprintln!("{family}/{variant}:\n{}", r.to_text());
    }
    r.outcome
}

/// `lift race` on the variant's own launch with `at` overriding sizes: the verdict
/// and the finding's message.
fn race_of(family: &str, variant: &str, at: &[(&str, i64)]) -> (Option<ErrorKind>, String) {
    let k = load(family, variant);
    let inst = k.instance(&sizes(at)).unwrap();
    match race::race(&k, &inst).unwrap().safety {
        Safety::Safe => (None, String::new()),
        Safety::Unsafe { kind, message } => (Some(kind), message),
    }
}

/// Every correct variant, run concretely on the family's first reference instance
/// (`ref/<instance>/`, written by generate.py from NumPy), reproduces the float64
/// expected outputs; the wrong twins do not.
#[test]
fn concrete_runs_reproduce_the_numpy_references() {
    let cases: [(&str, &str, &[&str], &[&str]); 3] = [
        (
            "sgemm",
            "k16",
            &[
                "naive",
                "coalesced",
                "coalesced_offsets",
                "smem_tiled",
                "blocktile_1d",
                "blocktile_2d",
                "vectorized",
                "warptile",
            ],
            &["blocktile_1d_wrong_bound"],
        ),
        (
            "reduce_cg",
            "two_ctas",
            &[
                "block_tree",
                "tile_shfl_down",
                "cg_reduce",
                "two_per_thread",
            ],
            &["wrong_offset"],
        ),
        (
            "flash_attn",
            "n64",
            &[
                "naive",
                "flash1",
                "flash2",
                "max_init_zero",
                "fa1_minimal",
                "fa1_prescaled",
                "fa1_coeffs",
                "fa1_expf",
                "fa1_end_division",
            ],
            &[
                "unscaled",
                "no_rescale",
                "fa1_no_rescale",
                "fa1_max_init_per_tile",
                "fa1_l_not_rescaled",
            ],
        ),
    ];
    for (family, instance, good, bad) in cases {
        let dir = ptx(family, "x").with_file_name("ref").join(instance);
        let inputs = read_npys(&dir);
        let expected = read_npys(&dir.join("expected"));
        for (variant, ok) in good
            .iter()
            .map(|v| (v, true))
            .chain(bad.iter().map(|v| (v, false)))
        {
            let k = load(family, variant);
            let sizes = k.sizes_from_inputs(&inputs, &BTreeMap::new()).unwrap();
            let i = k.instance(&sizes).unwrap();
            let run = k.run(&i, &inputs, &BTreeMap::new()).unwrap();
            // A correct variant reproduces every output; a twin gets at least one wrong
            // (the FA1 twins keep the right running max, and some the right sum).
            let mut wrong = Vec::new();
            for (name, out) in &run.outputs {
                let miss = first_mismatch(out, &expected[name], 1e-4, 1e-5);
                if ok {
                    assert!(miss.is_none(), "{family}/{variant} {name}: {miss:?}");
                } else if miss.is_some() {
                    wrong.push(name.clone());
                }
            }
            assert!(
                ok || !wrong.is_empty(),
                "{family}/{variant}: every output right"
            );
        }
    }
}

const SGEMM_K16: &[(&str, i64)] = &[("M", 128), ("N", 128), ("K", 16)];

#[test]
fn sgemm_series_is_proved_equal_to_naive_at_k16() {
    for v in [
        "coalesced",
        "coalesced_offsets",
        "smem_tiled",
        "blocktile_1d",
        "blocktile_2d",
        "vectorized",
        "warptile",
    ] {
        assert_eq!(
            equiv("sgemm", "naive", v, SGEMM_K16),
            Outcome::Verified,
            "sgemm/{v}"
        );
    }
}

#[test]
fn sgemm_wrong_tile_bound_is_refuted() {
    assert_eq!(
        equiv("sgemm", "naive", "blocktile_1d_wrong_bound", SGEMM_K16),
        Outcome::Refuted
    );
}

#[test]
fn sgemm_missing_barrier_races_in_one_256_thread_cta() {
    let (kind, msg) = race_of("sgemm", "blocktile_2d_no_sync", SGEMM_K16);
    assert_eq!(kind, Some(ErrorKind::Race), "{msg}");
    assert!(msg.contains("data race on shared"), "{msg}");
    // with one K slice there is no next slice to store: no race
    let (kind, msg) = race_of("sgemm", "blocktile_2d_no_sync", &[("K", 8)]);
    assert_eq!(kind, None, "{msg}");
    // the correct kernels are SAFE at K = 16
    for v in [
        "naive",
        "coalesced",
        "coalesced_offsets",
        "smem_tiled",
        "blocktile_1d",
        "blocktile_2d",
        "vectorized",
        "warptile",
    ] {
        let (kind, msg) = race_of("sgemm", v, SGEMM_K16);
        assert_eq!(kind, None, "sgemm/{v}: {msg}");
    }
}

#[test]
fn reduce_cg_series_gets_its_verdicts() {
    for at in [[("B", 2), ("N", 128)], [("B", 3), ("N", 128)]] {
        for v in ["tile_shfl_down", "cg_reduce", "two_per_thread"] {
            assert_eq!(
                equiv("reduce_cg", "block_tree", v, &at),
                Outcome::Verified,
                "reduce_cg/{v} at {at:?}"
            );
        }
        assert_eq!(
            equiv("reduce_cg", "block_tree", "wrong_offset", &at),
            Outcome::Refuted
        );
        let (kind, msg) = race_of("reduce_cg", "missing_sync", &at);
        assert_eq!(kind, Some(ErrorKind::Race), "{msg}");
        assert!(msg.contains("partial"), "{msg}");
        for v in [
            "block_tree",
            "tile_shfl_down",
            "cg_reduce",
            "two_per_thread",
        ] {
            let (kind, msg) = race_of("reduce_cg", v, &at);
            assert_eq!(kind, None, "reduce_cg/{v}: {msg}");
        }
    }
}

/// The parser reads scalar and list initializers with negative elements (libcu++'s
/// `numeric_limits<float>::min_exponent = -125`, in every PTX that includes
/// `cooperative_groups.h`).
#[test]
fn negative_global_initializers_parse() {
    let src = "
.version 8.8
.target sm_80
.address_size 64
.global .align 4 .u32 lim = -125;
.global .align 1 .u8 yes = 1;
.global .align 4 .f32 one = 0f3F800000;
.global .align 4 .b32 tab[3] = {7, -2, 3};
.visible .entry k()
{
	ret;
}
";
    let m = lift::ptx::parse(src).unwrap();
    let init = |name: &str| {
        m.globals
            .iter()
            .find(|g| g.name == name)
            .unwrap_or_else(|| panic!("{name} not declared"))
            .init
            .clone()
    };
    assert_eq!(init("lim"), Some((-125i32).to_le_bytes().to_vec()));
    assert_eq!(init("yes"), Some(vec![1]));
    assert_eq!(init("one"), Some(1.0f32.to_bits().to_le_bytes().to_vec()));
    let tab: Vec<u8> = [7i32, -2, 3].iter().flat_map(|v| v.to_le_bytes()).collect();
    assert_eq!(init("tab"), Some(tab));
    // the cooperative-groups fixtures, ~970 such constants each, parse
    for v in ["block_tree", "cg_reduce"] {
        let text = std::fs::read_to_string(ptx("reduce_cg", v)).unwrap();
        let m = lift::ptx::parse(&text).unwrap();
        assert!(m.globals.len() > 900, "{v}: {} globals", m.globals.len());
    }
}

#[test]
fn flash_attention_one_tile_is_proved_and_the_unscaled_twin_refuted() {
    let n32 = [("N", 32), ("D", 64)];
    for v in ["flash1", "flash2"] {
        assert_eq!(
            equiv("flash_attn", "naive", v, &n32),
            Outcome::Verified,
            "flash_attn/{v}"
        );
    }
    assert_eq!(
        equiv("flash_attn", "naive", "unscaled", &n32),
        Outcome::Refuted
    );
}

#[test]
fn flash_attention_missing_barrier_races_from_two_key_tiles() {
    let (kind, msg) = race_of("flash_attn", "missing_sync", &[("N", 64)]);
    assert_eq!(kind, Some(ErrorKind::Race), "{msg}");
    assert!(msg.contains("Ks") || msg.contains("Vs"), "{msg}");
    // one key tile: no next tile to stage, no race
    let (kind, msg) = race_of("flash_attn", "missing_sync", &[("N", 32)]);
    assert_eq!(kind, None, "{msg}");
    for v in ["flash1", "flash2"] {
        let (kind, msg) = race_of("flash_attn", v, &[("N", 64)]);
        assert_eq!(kind, None, "flash_attn/{v}: {msg}");
    }
}

/// Over the reals the running max's start value cancels (e^(0 - m') multiplies l = 0
/// and o = 0), so lift proves the twin equal; the f32 difference (0 / 0 where every
/// score of a row underflows e^(s - 0)) is outside its semantics. If lift ever models
/// that underflow, this fails: make the twin `refuted` in generate.py.
#[test]
fn flash_attention_max_started_at_zero_is_equal_over_the_reals() {
    assert_eq!(
        equiv(
            "flash_attn",
            "naive",
            "max_init_zero",
            &[("N", 32), ("D", 64)]
        ),
        Outcome::Verified
    );
}

/// `no_rescale` is right with one key tile (N = 32) and wrong from two on, but at
/// N = 64 `lift equiv` ran past 300 s and 2.7 GB without a verdict (with the first,
/// slower naive reference). Ignored until the refuter finds it quickly.
#[test]
#[ignore]
fn flash_attention_without_rescale_is_refuted_at_two_key_tiles() {
    assert_eq!(
        equiv("flash_attn", "naive", "no_rescale", &[("N", 32), ("D", 64)]),
        Outcome::Verified
    );
    let r = check::equiv(
        &load("flash_attn", "naive"),
        &load("flash_attn", "no_rescale"),
        &sizes(&[("N", 64), ("D", 64)]),
        &CheckOptions::default(),
    );
    match r {
        Ok(r) => assert_eq!(r.outcome, Outcome::Refuted, "{}", r.to_text()),
        Err(Error::Exec { err, .. }) => panic!("{err}"),
        Err(e) => panic!("{e}"),
    }
}

/// `lift equiv VARIANT naive`: the FA1 kernels have the outputs `m` and `l` besides `o`
/// (the running max and sum in global memory), so they are the first kernel, whose
/// outputs the second need not have.
fn equiv_fa1(variant: &str, at: &[(&str, i64)]) -> Outcome {
    let r = check::equiv(
        &load("flash_attn", variant),
        &load("flash_attn", "naive"),
        &sizes(at),
        &CheckOptions::default(),
    )
    .unwrap_or_else(|e| panic!("flash_attn/{variant}: {e}"));
    if r.outcome != Outcome::Verified {
        eprintln!("flash_attn/{variant}:\n{}", r.to_text());
    }
    r.outcome
}

/// FlashAttention-1's output, re-divided by the running sum every key tile, is decided
/// at two key tiles (issue 46 item 4): the project's `flash1` and the minimal-style
/// variants (rescale before or after adding, two coefficients, the accurate `expf`,
/// the division at the end) equal `naive`. Without `decide::canon::cancel` the
/// conversion of `O` exceeded the monomial cap at N = 64 (UNKNOWN).
#[test]
fn flash_attention_1_is_proved_at_two_key_tiles() {
    let n64 = [("N", 64), ("D", 64)];
    assert_eq!(
        equiv("flash_attn", "naive", "flash1", &n64),
        Outcome::Verified
    );
    for v in [
        "fa1_minimal",
        "fa1_prescaled",
        "fa1_coeffs",
        "fa1_expf",
        "fa1_end_division",
    ] {
        assert_eq!(equiv_fa1(v, &n64), Outcome::Verified, "flash_attn/{v}");
    }
}

/// The minimal-style twins are right with one key tile and wrong from two on.
#[test]
fn flash_attention_1_twins_are_refuted_at_two_key_tiles() {
    let n32 = [("N", 32), ("D", 64)];
    let n64 = [("N", 64), ("D", 64)];
    for v in ["fa1_max_init_per_tile", "fa1_no_rescale"] {
        assert_eq!(equiv_fa1(v, &n32), Outcome::Verified, "flash_attn/{v}");
        assert_eq!(equiv_fa1(v, &n64), Outcome::Refuted, "flash_attn/{v}");
    }
}

#[test]
fn flash_attention_1_minimal_kernels_are_race_free() {
    for v in ["fa1_minimal", "fa1_end_division"] {
        let (kind, msg) = race_of("flash_attn", v, &[("N", 64)]);
        assert_eq!(kind, None, "flash_attn/{v}: {msg}");
    }
}
