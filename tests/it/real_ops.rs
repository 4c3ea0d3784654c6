//! Ops of real kernels (issue 42) on Triton 3.9 fixtures (`triton_ir/real_ops/`, built by
//! its `generate.py` from `kernels.py`): interleaved rotary embeddings (`tt.split` of the
//! row's pairs, `tt.join` of the rotated halves), seeded dropout (`tl.rand`: Philox's
//! `tt.mulhiui`), int8 row-wise quantisation (libdevice `llrintf`, half to even), a
//! split-K matmul (`tl.atomic_add` of each K slice's partial tile), a persistent
//! elementwise kernel (tiles strided by `tl.num_programs`) and a grouped matmul
//! (tutorial 03's GROUP_SIZE_M tile order).
//!
//! - Every fixture gets its `expect`ed verdict at each instance against its PyTorch
//!   spec, and every twin is REFUTED: the rotation by -angle, `floor(x + 1/2)` for
//!   `rint` (at a tie), dropout's `1/p` scale, its stream read at offset + 1 or at
//!   `pid * 2` (right on one program only), a skipped K slice, a stride that misses
//!   tiles, a last group taken GROUP_M high. Rotary, quantisation and the persistent
//!   kernel are VERIFIED for all sizes (`torch.round` is the formula op `rint`; the
//!   persistent kernel's coverage through its tiles' mixed-radix inverse, for every N on
//!   the launch's grid). An `elsewhere` twin is right at its instances and REFUTED at a
//!   size the all-sizes step finds (`n // BLOCK` tiles: any N not a multiple of 4; the
//!   grouped matmul's `pid_n` divided by GROUP_M: any odd number of tile rows). The
//!   grouped matmul is VERIFIED for all sizes (its program -> tile map proved a bijection
//!   onto the tile grid).
//! - Dropout's spec names Triton's random stream, `tl.rand(seed, offsets)` (the one
//!   extension of the spec language beyond PyTorch, the named function `rand`):
//!   VERIFIED for every N (the kernel's Philox proved to be `rand(seed, i)` element by
//!   element), the wrong-block twin, right on one program, REFUTED at a size of several
//!   programs that replays at the instance. `lift run` of the kernel at the launch's
//!   seed reproduces a NumPy Philox4x32-10 written in the generator (checked there
//!   against Random123's known answers) bit for bit, and `rand` agrees with a Philox
//!   written again in this test; plain `lift` is in `dropout_lift.rs`.
//! - The split-K verdict states that it reads the GPU's order of the float atomic adds
//!   as irrelevant. Split-K is VERIFIED for all sizes: the programs along `pid_z` (which
//!   the address leaves out) all add to one element, and their K slices together cover
//!   `0..K` once. Its twin that stops at the last multiple of 32 below K is right at the
//!   launch's K = 32, 64 and REFUTED at a K with a remainder; an atomic add inside a loop
//!   is proved on the instance and the all-sizes step says at once why it stops.
//! - Independently of lift's terms, `lift run` of each kernel on the NumPy references
//!   reproduces them exactly where the kernel is correct and differs where it is not.

use crate::common::output_text as text;
use crate::common::read_npys;
use assert_cmd::Command;
use lift::npy;
use lift::term::{Func, Terms};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

const FIXTURES: &[&str] = &[
    "rotary_interleaved",
    "rotary_interleaved_swap",
    "dropout",
    "dropout_scale",
    "dropout_offset",
    "dropout_block",
    "quant_rows",
    "quant_rows_floor",
    "matmul_splitk",
    "matmul_splitk_skip",
    "persistent_axpb",
    "persistent_axpb_stride",
    "persistent_axpb_floor",
    "matmul_grouped",
    "matmul_grouped_nomin",
    "matmul_splitk_rem",
    "rowsum_atomic",
    "rowsum_atomic_skip",
    "matmul_grouped_pidn",
    "persistent_axpb_sms",
    "persistent_axpb_rounds",
];

#[derive(Deserialize)]
struct Fixture {
    spec: Option<String>,
    /// The correct kernel is VERIFIED for every size, not only on the instance.
    #[serde(default)]
    all_sizes: bool,
    instance: Vec<Inst>,
}

#[derive(Deserialize)]
struct Inst {
    name: String,
    sizes: BTreeMap<String, i64>,
    expect: String,
}

fn dir(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("triton_ir/real_ops")
        .join(name)
}

fn fixture(name: &str) -> Fixture {
    toml::from_str(&std::fs::read_to_string(dir(name).join("fixture.toml")).unwrap()).unwrap()
}

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

/// `lift check` of the fixture in `dir` against `spec`: its exit code and output.
fn check(dir: &Path, spec: &str) -> (Option<i32>, String) {
    let o = lift()
        .arg("check")
        .arg(dir.join("kernel.ttir"))
        .args(["--spec", spec])
        .output()
        .unwrap();
    (o.status.code(), text(&o))
}

/// Sizes as the verdict line prints them: `K=64, M=16`.
fn sizes_text(sizes: &BTreeMap<String, i64>) -> String {
    let v: Vec<String> = sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
    v.join(", ")
}

#[test]
fn real_op_kernels_use_the_ops() {
    let uses = [
        ("rotary_interleaved", "tt.split"),
        ("rotary_interleaved", "tt.join"),
        ("dropout", "tt.mulhiui"),
        ("quant_rows", "__nv_llrintf"),
        ("matmul_splitk", "tt.atomic_rmw fadd"),
        ("persistent_axpb", "tt.get_num_programs"),
    ];
    for (name, op) in uses {
        let ttir = std::fs::read_to_string(dir(name).join("kernel.ttir")).unwrap();
        assert!(ttir.contains(op), "{name}: no {op}");
    }
}

#[test]
fn real_op_kernels_get_their_verdict_at_each_instance() {
    for name in FIXTURES {
        let fx = fixture(name);
        let Some(spec) = fx.spec else { continue };
        let kernel = dir(name).join("kernel.ttir");
        for inst in &fx.instance {
            let what = format!("{name}/{}", inst.name);
            let mut cmd = lift();
            cmd.arg("check").arg(&kernel).args(["--spec", &spec]);
            for (s, v) in &inst.sizes {
                cmd.args(["--size", &format!("{s}={v}")]);
            }
            let o = cmd.output().unwrap();
            let t = text(&o);
            match inst.expect.as_str() {
                "verified" => {
                    assert_eq!(o.status.code(), Some(0), "{what}:\n{t}");
                    assert!(t.contains("VERIFIED"), "{what}:\n{t}");
                    assert_eq!(fx.all_sizes, t.contains("VERIFIED for all"), "{what}:\n{t}");
                }
                "refuted" => {
                    assert_eq!(o.status.code(), Some(1), "{what}:\n{t}");
                    assert!(t.contains("REFUTED"), "{what}:\n{t}");
                }
                // right on the instance, wrong at another size the all-sizes step finds
                "elsewhere" => {
                    assert_eq!(o.status.code(), Some(1), "{what}:\n{t}");
                    assert!(t.contains("REFUTED at"), "{what}:\n{t}");
                    let at = format!("REFUTED at {}:", sizes_text(&inst.sizes));
                    assert!(!t.contains(&at), "{what}: refuted on the instance:\n{t}");
                }
                v => panic!("{what}: {v}"),
            }
        }
    }
}

#[test]
fn real_op_kernels_run_on_the_references_as_their_verdicts_say() {
    for name in FIXTURES {
        let fx = fixture(name);
        let kernel = dir(name).join("kernel.ttir");
        for inst in &fx.instance {
            let what = format!("{name}/{}", inst.name);
            let refs = dir(name).join("ref").join(&inst.name);
            let out = tempfile::tempdir().unwrap();
            let mut cmd = lift();
            cmd.arg("run").arg(&kernel).arg("--out").arg(out.path());
            for (s, v) in &inst.sizes {
                cmd.args(["--size", &format!("{s}={v}")]);
            }
            let ins = read_npys(&refs);
            for k in ins.keys() {
                cmd.arg("--input")
                    .arg(format!("{k}={}", refs.join(format!("{k}.npy")).display()));
            }
            let o = cmd.output().unwrap();
            assert_eq!(o.status.code(), Some(0), "{what}:\n{}", text(&o));
            let got = read_npys(out.path());
            let mut differs = false;
            for (k, want) in read_npys(&refs.join("expected")) {
                let g = &got[&k];
                assert_eq!(g.shape, want.shape, "{what}: {k}");
                differs |= g
                    .data
                    .iter()
                    .zip(&want.data)
                    // an element never written comes back NaN: it differs too
                    .any(|(a, b)| a.is_nan() || (a - b).abs() > 1e-6 * b.abs().max(1.0));
            }
            let wrong = matches!(inst.expect.as_str(), "refuted" | "differs");
            assert_eq!(differs, wrong, "{what}: {got:?}");
        }
    }
}

/// On the instance, seeded dropout is proved for every `x`: `lift spec` gives each
/// element as `x[i] / (1 - p)` (p = 1/4: `4 * x[i] / 3`) or `0`, kept exactly where the
/// NumPy Philox of the generator keeps it (read back from the reference: a kept
/// element is nonzero), so the IR's `tt.mulhiui` rounds are Philox's. The 1/p twin
/// gives `4 * x[i]` there. (`lift` of both: `tests/it/dropout_lift.rs`.)
#[test]
fn dropout_keeps_the_philox_mask_for_every_x_on_the_instance() {
    for (name, kept) in [
        ("dropout", "4 * x[{i}] / 3"),
        ("dropout_scale", "4 * x[{i}]"),
    ] {
        let fx = fixture(name);
        for inst in &fx.instance {
            let what = format!("{name}/{}", inst.name);
            let refs = dir(name).join("ref").join(&inst.name);
            let want = npy::read(&refs.join("expected/out.npy")).unwrap();
            let mut cmd = lift();
            cmd.arg("spec").arg(dir(name).join("kernel.ttir"));
            for (s, v) in &inst.sizes {
                cmd.args(["--size", &format!("{s}={v}")]);
            }
            let o = cmd.output().unwrap();
            let t = text(&o);
            assert_eq!(o.status.code(), Some(0), "{what}:\n{t}");
            let (mut n_kept, mut n_dropped) = (0, 0);
            for (i, w) in want.data.iter().enumerate() {
                let rhs = if *w != 0.0 {
                    n_kept += 1;
                    kept.replace("{i}", &i.to_string())
                } else {
                    n_dropped += 1;
                    "0".to_string()
                };
                let line = format!("  out[{i}] = {rhs}\n");
                assert!(t.contains(&line), "{what}: no `{}`:\n{t}", line.trim());
            }
            assert!(n_kept > 0 && n_dropped > 0, "{what}: a mask of one value");
        }
    }
}

/// `rint` folds constants half to even (`torch.round`, `llrint`), by hand: 5/2 -> 2,
/// 7/2 -> 4, -5/2 -> -2, -3/2 -> -2, 13/10 -> 1, -17/10 -> -2.
#[test]
fn rint_of_a_constant_is_the_nearest_integer_ties_to_even() {
    let mut t = Terms::new();
    for (n, d, want) in [
        (5, 2, 2),
        (7, 2, 4),
        (-5, 2, -2),
        (-3, 2, -2),
        (13, 10, 1),
        (-17, 10, -2),
    ] {
        let (a, b) = (t.int(n), t.int(d));
        let c = t.div(a, b);
        let r = t.call(Func::Rint, c);
        let w = t.int(want);
        assert_eq!(r, w, "rint({n}/{d})");
    }
}

/// `lift` on the quantiser prints its formula with `rint` (half to even) and proves it
/// for every size; on the `floor(x + 1/2)` twin `check` refutes at a tie: the
/// counterexample's `x / s` has a fraction of exactly 1/2, where the two roundings differ
/// (rint goes to the even neighbour, floor(x + 1/2) up).
#[test]
fn quantiser_lifts_to_rint_for_all_sizes_and_its_floor_twin_fails_at_a_tie() {
    let o = lift()
        .arg(dir("quant_rows").join("kernel.ttir"))
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(
        t.contains("= rint(") && t.contains("VERIFIED for all"),
        "{t}"
    );
    let spec = fixture("quant_rows_floor").spec.unwrap();
    let (code, t) = check(&dir("quant_rows_floor"), &spec);
    assert_eq!(code, Some(1), "{t}");
    // `at s[0] = -2, x[0,0] = -1`: the row's scale and the element's input
    let line = t
        .lines()
        .find(|l| l.trim_start().starts_with("at s["))
        .unwrap();
    let nums: Vec<f64> = line
        .split(", ")
        .map(|kv| kv.rsplit(" = ").next().unwrap().trim().parse().unwrap())
        .collect();
    let q = nums[1] / nums[0];
    assert_eq!((q - q.floor()), 0.5, "not a tie: {line}");
}

/// Interleaved rotary lifts for every M to the formula its source says
/// (kernels.py: `x0, x1 = tl.split(x.reshape(HALF, 2))`, `tl.join(x0·c − x1·s,
/// x0·s + x1·c)`): the even and the odd columns of each pair, concatenated along a new
/// axis of 2 and reshaped back, as the fixture's PyTorch spec writes it. The
/// rotation by −angle lifts to its own formula, never to this one.
#[test]
fn interleaved_rotary_lifts_to_its_pairs_for_every_size() {
    let x0 = "reshape(x, (M, 4, 2))[:, :, :1]";
    let x1 = "reshape(x, (M, 4, 2))[:, :, 1:2]";
    let (c, s) = ("cos[:, :, None]", "sin[:, :, None]");
    let want = format!(
        "out[M,8] = reshape(cat([{x0} * {c} - {x1} * {s}, {x0} * {s} + {x1} * {c}], axis=2), (M, 8))"
    );
    let o = lift()
        .arg(dir("rotary_interleaved").join("kernel.ttir"))
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(0), "{t}");
    assert!(t.lines().any(|l| l == want), "want {want}\n{t}");
    assert!(t.contains("VERIFIED for all M"), "{t}");
    let o = lift()
        .arg(dir("rotary_interleaved_swap").join("kernel.ttir"))
        .output()
        .unwrap();
    let t = text(&o);
    assert!(t.contains("out[M,8] = reshape(cat(["), "{t}");
    assert!(!t.lines().any(|l| l == want), "{t}");
}

/// The split-K verdict says the order of the float atomic adds was read as irrelevant
/// (the GPU's order is not fixed; over the reals the sum is the same in every order).
#[test]
fn split_k_verdict_states_the_order_of_its_atomic_adds() {
    let spec = fixture("matmul_splitk").spec.unwrap();
    let (code, t) = check(&dir("matmul_splitk"), &spec);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("atomic adds") && t.contains("irrelevant"), "{t}");
}

/// The persistent kernel `for tile in range(pid, cdiv(n, B), num_programs)` on a grid
/// of G programs stores lane `l` of iteration `u` of program `pid` at
/// `B·(pid + G·u) + l`: element `e` has exactly one writer, `l = e mod B`,
/// `pid = (e div B) mod G`, `u = e div (B·G)` (mixed radix), so every element is written
/// once for every N, on every grid. The grid is the launch's constant, so each grid is
/// its own claim: relaunched on 1, 2, 3, 5 and 132 programs (an H100's count of SMs)
/// the kernel is VERIFIED for all N;
/// the twin striding by the constant 3 is VERIFIED for all N on 3 programs (it is right
/// there) and REFUTED on 1 and 2 (no program does tile 1 on one program, tile 2 on two:
/// the instance's N = 17 has 5 tiles).
#[test]
fn persistent_tiles_are_covered_once_for_every_n_on_each_grid() {
    for (name, grid, proved) in [
        ("persistent_axpb", 1, true),
        ("persistent_axpb", 2, true),
        ("persistent_axpb", 3, true),
        ("persistent_axpb", 5, true),
        ("persistent_axpb", 132, true),
        ("persistent_axpb_three", 1, false),
        ("persistent_axpb_three", 2, false),
        ("persistent_axpb_three", 3, true),
    ] {
        let what = format!("{name} on {grid} programs");
        let tmp = tempfile::tempdir().unwrap();
        let kernel = tmp.path().join("kernel.ttir");
        std::fs::copy(dir(name).join("kernel.ttir"), &kernel).unwrap();
        let launch = std::fs::read_to_string(dir(name).join("kernel.launch.toml")).unwrap();
        assert!(launch.contains("grid = [3]"), "{what}: {launch}");
        let launch = launch.replace("grid = [3]", &format!("grid = [{grid}]"));
        std::fs::write(tmp.path().join("kernel.launch.toml"), launch).unwrap();
        let o = lift()
            .arg("check")
            .arg(&kernel)
            .args(["--spec", "y = 2 * x + 1"])
            .output()
            .unwrap();
        let t = text(&o);
        if proved {
            assert_eq!(o.status.code(), Some(0), "{what}:\n{t}");
            assert!(t.contains("VERIFIED for all N"), "{what}:\n{t}");
        } else {
            assert_eq!(o.status.code(), Some(1), "{what}:\n{t}");
            assert!(t.contains("REFUTED"), "{what}:\n{t}");
        }
    }
}

/// A twin right at its instances (N = 16, 24: multiples of the block) and wrong at
/// every other N: `n // BLOCK` tiles leave the ragged last tile undone. The all-sizes
/// step finds such an N (N mod 4 != 0) and the bounded run confirms it there.
#[test]
fn persistent_twin_with_floored_tiles_is_refuted_at_a_ragged_size() {
    let o = lift()
        .arg("check")
        .arg(dir("persistent_axpb_floor").join("kernel.ttir"))
        .args(["--spec", "y = 2 * x + 1"])
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    let n: i64 = t
        .split("REFUTED at N=")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("no refuting N:\n{t}"));
    assert_ne!(n % 4, 0, "{t}");
}

/// Split-K with SPLIT_K = 2, BLOCK_K = 16: program z adds K blocks z, z + 2, ... of its
/// tile, so over both programs every k < K is added once, for every K: VERIFIED for all
/// sizes, with the order of the atomic adds stated. The twin's loop ends at
/// `K - K % 32`: for any K that is not a multiple of 32 the last `K % 32` columns of `a`
/// are never added, and only there (the launch's K = 64 and its K = 32 are right). The
/// all-sizes step finds such a K, and the bounded check at that K refutes it too.
#[test]
fn split_k_is_proved_for_every_size_and_its_remainder_twin_refuted_where_k_is_ragged() {
    let spec = fixture("matmul_splitk").spec.unwrap();
    let (code, t) = check(&dir("matmul_splitk"), &spec);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("VERIFIED for all K, M, N"), "{t}");
    assert!(t.contains("atomic adds") && t.contains("irrelevant"), "{t}");

    let kernel = dir("matmul_splitk_rem").join("kernel.ttir");
    let o = lift()
        .arg("check")
        .arg(&kernel)
        .args(["--spec", &spec])
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "{t}");
    let k: i64 = t
        .split("REFUTED at K=")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("no refuting K:\n{t}"));
    assert_ne!(k % 32, 0, "{t}");
    // The size replays: the bounded check there refutes on its own.
    let o = lift()
        .arg("check")
        .arg(&kernel)
        .args([
            "--spec",
            &spec,
            "--scope",
            "instance",
            "--size",
            &format!("K={k}"),
        ])
        .output()
        .unwrap();
    let t = text(&o);
    assert_eq!(o.status.code(), Some(1), "K={k}:\n{t}");
}

/// A float atomic add inside a loop (one per column block of a row) is proved on the
/// instance; the all-sizes step does not read it and says so, naming the op, before
/// it spends any work (it never reaches the work limit).
#[test]
fn an_atomic_add_in_a_loop_is_proved_on_the_instance_and_named_for_all_sizes() {
    let spec = fixture("rowsum_atomic").spec.unwrap();
    let (code, t) = check(&dir("rowsum_atomic"), &spec);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("VERIFIED on this launch instance"), "{t}");
    assert!(
        t.contains("tt.atomic_rmw fadd") && t.contains("inside a loop"),
        "{t}"
    );
    assert!(!t.contains("work limit"), "{t}");
}

/// Tutorial 03's grouped tile order sends program `pid` to tile row
/// `2·(pid div 2n) + (pid mod 2n) mod h` and tile column `(pid mod 2n) div h`, with
/// `n = cdiv(N, 16)` tile columns and `h = min(cdiv(M, 16) - 2·(pid div 2n), 2)` the
/// group's height: a bijection from the `cdiv(M, 16)·n` programs onto the tiles, so the
/// kernel is VERIFIED for every M, N, K. The twin dividing by 2 for `h` is the same map
/// when every group is full (`cdiv(M, 16)` even: its instances M = 32, 64) and sends two
/// programs of a one-row last group to one tile otherwise: REFUTED at an M with an odd
/// number of 16-row tiles.
#[test]
fn grouped_tile_order_is_a_bijection_for_every_size_and_its_twin_fails_at_odd_rows() {
    let spec = fixture("matmul_grouped").spec.unwrap();
    let (code, t) = check(&dir("matmul_grouped"), &spec);
    assert_eq!(code, Some(0), "{t}");
    assert!(t.contains("VERIFIED for all K, M, N"), "{t}");
    let (code, t) = check(&dir("matmul_grouped_pidn"), &spec);
    assert_eq!(code, Some(1), "{t}");
    let m: i64 = t
        .split("REFUTED at ")
        .nth(1)
        .and_then(|r| r.split("M=").nth(1))
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|d| d.parse().ok())
        .unwrap_or_else(|| panic!("no refuting M:\n{t}"));
    assert_eq!((m + 15) / 16 % 2, 1, "{t}");
}

/// Philox4x32-10 and Triton's `uint_to_uniform_float`, written here from Random123's
/// description and `triton/language/random.py` (not from lift): 64-bit products, the
/// key schedule by addition, the sign fold `-x - 1`, f32 conversion and scale.
fn philox_rand(seed: i64, offset: i64) -> f32 {
    const M: u64 = 0xFFFF_FFFF;
    let (s, o) = (seed as u64, offset as u64);
    let (mut c0, mut c1, mut c2, mut c3) = (o & M, (o >> 32) & M, 0u64, 0u64);
    let (mut k0, mut k1) = (s & M, (s >> 32) & M);
    for _ in 0..10 {
        let (p0, p1) = (0xD251_1F53 * c0, 0xCD9E_8D57 * c2);
        (c0, c1, c2, c3) = (
            ((p1 >> 32) ^ c1 ^ k0) & M,
            p1 & M,
            ((p0 >> 32) ^ c3 ^ k1) & M,
            p0 & M,
        );
        k0 = (k0 + 0x9E37_79B9) & M;
        k1 = (k1 + 0xBB67_AE85) & M;
    }
    let x = c0 as u32 as i32 as i64;
    let x = if x < 0 { -x - 1 } else { x };
    (x as f32) * (4.656_612_734_2e-10_f64 as f32)
}

/// The named function `rand(seed, offset)` is Triton's stream bit for bit, at seeds of
/// both signs and wide, and at offsets past 2^32 (the counter's second word).
#[test]
fn rand_is_tritons_stream_bit_for_bit() {
    // Random123's first known answer: counter 0, key 0 gives 0x6627e8d5 first.
    assert_eq!(
        lift::term::rand::philox4x32_10([0; 4], [0; 2])[0],
        0x6627_e8d5
    );
    for seed in [0i64, 1234, -5, 1 << 40, i64::MIN + 7] {
        for offset in (0..40).chain([1 << 31, (1 << 32) + 3, 123_456_789_012]) {
            let (got, want) = (
                lift::term::rand::triton_rand(seed, offset),
                philox_rand(seed, offset),
            );
            assert_eq!(got.to_bits(), want.to_bits(), "rand({seed}, {offset})");
            assert!((0.0..1.0).contains(&got));
        }
    }
}

/// Seeded dropout for every size: the spec naming `tl.rand` is VERIFIED for all N
/// (read for every size as `rand(seed, arange(N))`, the kernel's Philox at offsets
/// `pid * 4 + arange(4)` proved to be it), and the twin that reads the stream at
/// `pid * 2 + arange(4)` (right while one program runs, N <= 4) is REFUTED at a size
/// of several programs, which the bounded check at that size confirms; the offset twin
/// is REFUTED at every instance, never VERIFIED for all sizes.
#[test]
fn dropout_is_verified_for_every_size_and_its_block_twin_refuted_at_several_programs() {
    let spec = fixture("dropout").spec.unwrap();
    let check = |name: &str, sizes: &[&str]| {
        let mut cmd = lift();
        cmd.arg("check")
            .arg(dir(name).join("kernel.ttir"))
            .args(["--spec", &spec]);
        for s in sizes {
            cmd.args(["--size", s]);
        }
        let o = cmd.output().unwrap();
        (o.status.code(), text(&o))
    };
    for n in ["N=10", "N=3", "N=33"] {
        let (code, t) = check("dropout", &[n]);
        assert_eq!(code, Some(0), "{n}:\n{t}");
        assert!(t.contains("VERIFIED for all N"), "{n}:\n{t}");
    }
    let (code, t) = check("dropout_block", &[]);
    assert_eq!(code, Some(1), "{t}");
    let at = t
        .split("REFUTED at N=")
        .nth(1)
        .and_then(|r| r.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|v| v.parse::<i64>().ok())
        .unwrap_or_else(|| panic!("no refuted size:\n{t}"));
    assert!(at > 4, "one program at N={at} is right:\n{t}");
    let (code, t) = check("dropout_block", &[&format!("N={at}")]);
    assert_eq!(code, Some(1), "N={at}:\n{t}");
    assert!(t.contains("counterexample"), "N={at}:\n{t}");
    for n in ["N=4", "N=16"] {
        let (code, t) = check("dropout_offset", &[n]);
        assert_eq!(code, Some(1), "{n}:\n{t}");
        assert!(!t.contains("VERIFIED for all"), "{n}:\n{t}");
    }
}
