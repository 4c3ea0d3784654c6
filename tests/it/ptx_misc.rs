//! Issue 19, items 6–8 on the PTX side: Triton's PTX (cache policies, `prmt`,
//! `setp.num`, replicated lanes of small blocks), NVRTC's f64 code (`mov.b64 {lo, hi}`
//! and the double libm), `trap`, `WARP_SZ`, `__constant__` tables, typed launch values
//! and `lift race --format json`.
//!
//! Fixtures: every `triton_ir/<op>/kernel.ptx` (Triton 3.9), `ptx/triton/*` (Triton,
//! `ptx/triton/generate.py`), `ptx/{gelu64,trap,const_table,eps_param}/*` (NVRTC,
//! `ptx/generate.py`), `ptx/{struct_clamp,struct_args}/*` (structs passed by value).
//! Their `lift check` verdicts are walked by
//! `tests/ptx_spec_checks.rs`, their `equiv` verdicts by `tests/ptx_equiv.rs`.

#![allow(clippy::result_large_err)]

use assert_cmd::Command;
use lift::check::{self, CheckOptions, Outcome};
use lift::exec::ErrorKind;
use lift::npy::Array;
use lift::race::{race, Safety};
use lift::{Error, Kernel};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn kernel(rel: &str) -> Kernel {
    Kernel::load(&root().join(rel), None).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

fn lift() -> Command {
    Command::cargo_bin("lift").unwrap()
}

// ----- parser -----

const CACHE_HINTS: &str = r#"
.version 8.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 .ptr .global .align 1 k_param_0)
.reqntid 1
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<3>;
	ld.param.b64 %rd1, [k_param_0];
	createpolicy.fractional.L2::evict_last.b64 %rd2, 1.0;
	ld.global.L1::evict_last.L2::cache_hint.b32 { %r1 }, [ %rd1 + 0 ], %rd2;
	st.global.L2::cache_hint.b32 [ %rd1 + 0 ], { %r1 }, %rd2;
$L__done:
	ret;
}
"#;

#[test]
fn double_colon_qualifiers_stay_in_the_mnemonic() {
    let m = lift::ptx::parse(CACHE_HINTS).unwrap();
    let e = m.entry(None).unwrap();
    let names: Vec<String> = e.body.iter().map(|i| i.mnemonic()).collect();
    assert_eq!(
        names,
        [
            "ld.param.b64",
            "createpolicy.fractional.L2::evict_last.b64",
            "ld.global.L1::evict_last.L2::cache_hint.b32",
            "st.global.L2::cache_hint.b32",
            "ret"
        ]
    );
    // A label is still a label.
    assert_eq!(e.labels.get("$L__done"), Some(&4));
    // `::` must be followed by a qualifier, and glued to the mnemonic.
    for bad in [
        "ld.global.L2:: .b32 %r1, [%rd1];",
        "ld.global.L2::;",
        "ld.global.L2 ::cache_hint.b32 %r1, [%rd1];",
    ] {
        let src = CACHE_HINTS.replace("ret;", bad);
        let err = lift::ptx::parse(&src).unwrap_err();
        assert!(err.line > 0, "{bad}: {err:?}");
    }
}

/// `prmt.b32` picks bytes of `{b, a}` by the selector's nibbles; the result is stored
/// as a float bit pattern: 0x40C00000 (6.0) from a = 1.5f, b = 3.0f, selector 0x7210.
#[test]
fn prmt_picks_bytes_and_brace_moves_round_trip() {
    let ptx = r#"
.version 8.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0)
.reqntid 1
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<4>;
	.reg .f64 %fd<3>;
	ld.param.u64 %rd1, [k_param_0];
	mov.b32 %r1, 0x3FC00000;
	mov.b32 %r2, 0x40400000;
	prmt.b32 %r3, %r1, %r2, 0x7210;
	st.global.b32 [%rd1], %r3;
	prmt.b32 %r4, %r1, %r2, 0x8880;
	st.global.b32 [%rd1+4], %r4;
	mov.f64 %fd1, 0d4014000000000000;
	mov.b64 {%r5, %r6}, %fd1;
	add.s32 %r6, %r6, 1048576;
	mov.b64 %fd2, {%r5, %r6};
	cvt.rn.f32.f64 %r7, %fd2;
	st.global.b32 [%rd1+8], %r7;
	mov.u32 %r7, WARP_SZ;
	cvt.rn.f32.u32 %r7, %r7;
	st.global.b32 [%rd1+12], %r7;
	ret;
}
"#;
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("k.ptx");
    std::fs::write(&p, ptx).unwrap();
    std::fs::write(
        dir.path().join("k.launch.toml"),
        "grid = [1]\nsizes = {}\n[args]\nk_param_0 = { tensor = \"y\", shape = [4], role = \"out\" }\n",
    )
    .unwrap();
    let k = Kernel::load(&p, None).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let r = k.run(&inst, &BTreeMap::new(), &BTreeMap::new()).unwrap();
    let y = &r.outputs.iter().find(|(n, _)| n == "y").unwrap().1.data;
    // 0x7210 → 0x40C00000 = 6.0; 0x8880 → bytes (sign of a.b0 = 0, 0, 0, a.b0 = 0) = 0.0;
    // 5.0 with 1 added to its exponent = 10.0; WARP_SZ = 32.
    assert_eq!(y, &vec![6.0, 0.0, 10.0, 32.0]);
}

// ----- Triton's PTX -----

#[derive(Deserialize)]
struct TritonFixture {
    expect: String,
    #[serde(default)]
    spec: Option<String>,
}

/// What `lift race` says about `triton_ir/<op>/kernel.ptx`, by kind of kernel: only
/// these two stop on a construct owned elsewhere (named in the message).
const TRITON_UNSUPPORTED: &[(&str, &str)] = &[("add_f16", "2-byte"), ("matmul_tf32", "mma.sync")];

#[test]
fn every_triton_ptx_is_race_free_and_its_check_agrees_with_the_ttir() {
    let mut safe = 0;
    let mut agree = 0;
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root().join("triton_ir"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("kernel.ptx").exists())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 90, "only {} Triton PTX kernels", dirs.len());
    for dir in &dirs {
        let op = dir.file_name().unwrap().to_string_lossy().into_owned();
        let f: TritonFixture =
            toml::from_str(&std::fs::read_to_string(dir.join("fixture.toml")).unwrap()).unwrap();
        let k = Kernel::load(
            &dir.join("kernel.ptx"),
            Some(&dir.join("kernel.launch.toml")),
        )
        .unwrap_or_else(|e| panic!("{op}: {e}"));
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let unsupported = TRITON_UNSUPPORTED.iter().find(|(o, _)| *o == op);
        match (race(&k, &inst), unsupported) {
            (Err(e), Some((_, what))) => {
                assert_eq!(e.exit_code(), 3, "{op}: {e}");
                assert!(e.to_string().contains(what), "{op}: {e}");
                continue;
            }
            (r, Some(_)) => panic!("{op}: now runs ({r:?}); drop it from TRITON_UNSUPPORTED"),
            (Err(e), None) => panic!("{op}: {e}"),
            // Error kernels: err_oob and err_unwritten are findings in the PTX too;
            // masked loads without `other=` (err_undef, sum_noother_bug) are
            // zero-filled by Triton's PTX (`mov.u32 %r, 0` before the predicated load).
            (Ok(r), None) if f.expect == "error" => {
                if matches!(op.as_str(), "err_oob" | "err_unwritten") {
                    assert_ne!(r.safety, Safety::Safe, "{op}: an error kernel is SAFE");
                }
                continue;
            }
            (Ok(r), None) => {
                assert_eq!(r.safety, Safety::Safe, "{op}: {}", r.to_text());
                safe += 1;
            }
        }
        // The PTX check against the TTIR's spec never contradicts the TTIR verdict.
        let Some(spec) = f.spec else { continue };
        let opts = CheckOptions::default();
        match check::check(&k, &inst, &spec, &opts) {
            Ok(r) => {
                let want = match f.expect.as_str() {
                    "verified" => Outcome::Verified,
                    _ => Outcome::Refuted,
                };
                if r.outcome == want {
                    agree += 1;
                } else {
                    assert_eq!(r.outcome, Outcome::Unknown, "{op}: {}", r.to_text());
                    let text = r.to_text();
                    assert!(
                        text.contains("bit-level code") || text.contains("undecided"),
                        "{op}: UNKNOWN without naming why:\n{text}"
                    );
                }
            }
            Err(e) => assert_eq!(e.exit_code(), 3, "{op}: {e}"),
        }
    }
    eprintln!("{safe} Triton kernels SAFE, {agree} PTX checks agree with the TTIR verdicts");
    assert!(safe >= 89, "only {safe} Triton kernels SAFE");
    assert!(
        agree >= 86,
        "only {agree} PTX checks agree with the TTIR verdicts"
    );
}

#[derive(Deserialize)]
struct Fixture {
    variant: String,
    #[serde(default)]
    race_verdict: Option<String>,
    #[serde(default)]
    instance: Vec<Instance>,
}

#[derive(Deserialize)]
struct Instance {
    sizes: BTreeMap<String, i64>,
}

fn fixtures(family: &str) -> Vec<(PathBuf, Fixture)> {
    let dir = root().join("ptx").join(family);
    let mut out: Vec<(PathBuf, Fixture)> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.to_string_lossy().ends_with(".fixture.toml"))
        .map(|p| {
            let f: Fixture = toml::from_str(&std::fs::read_to_string(&p).unwrap()).unwrap();
            (dir.join(format!("{}.ptx", f.variant)), f)
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// Replicated lanes: every thread of an element loads it, one stores it back. The
/// loads whose value no store uses do not race with the store; a load whose value is
/// stored does.
#[test]
fn triton_replicated_lanes_race_only_where_the_read_is_used() {
    let fx = fixtures("triton");
    assert!(fx.len() >= 3);
    for (ptx, f) in fx {
        let k = Kernel::load(&ptx, None).unwrap();
        let want = f.race_verdict.as_deref().expect("race_verdict");
        for inst in &f.instance {
            let i = k.instance(&inst.sizes).unwrap();
            let r = race(&k, &i).unwrap_or_else(|e| panic!("{}: {e}", ptx.display()));
            assert_eq!(
                r.safety.verdict(),
                want,
                "{}:\n{}",
                ptx.display(),
                r.to_text()
            );
            // The replicated-lanes race; `matmul_ws_sm90_m64`'s is tested in ptx_tma.rs.
            if want == "RACE" && f.variant.starts_with("inplace") {
                let text = r.to_text();
                assert!(text.contains("data race on `x`"), "{text}");
                assert!(text.contains("L2::cache_hint"), "{text}");
            }
        }
    }
}

// ----- traps -----

#[test]
fn a_reachable_trap_is_a_finding_naming_its_line_and_an_unreachable_one_is_not() {
    let ok = kernel("ptx/trap/checked.ptx");
    let inst = ok.instance(&BTreeMap::new()).unwrap();
    assert_eq!(race(&ok, &inst).unwrap().safety, Safety::Safe);

    let bad = kernel("ptx/trap/wrong_check.ptx");
    let inst = bad.instance(&BTreeMap::new()).unwrap();
    match race(&bad, &inst).unwrap().safety {
        Safety::Unsafe { kind, message } => {
            assert_eq!(kind, ErrorKind::Trap);
            assert!(message.contains("`trap` at line 39"), "{message}");
        }
        s => panic!("{s:?}"),
    }
    let out = lift()
        .arg("race")
        .arg(root().join("ptx/trap/wrong_check.ptx"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("TRAP in"));
}

/// A trap under a data-dependent condition: the input lift names reaches it in a
/// concrete run, and an input that does not reach it runs through.
#[test]
fn a_data_dependent_trap_names_an_input_that_replays_it() {
    let k = kernel("ptx/trap/data_trap.ptx");
    let sizes = BTreeMap::from([("N".to_string(), 8)]);
    let inst = k.instance(&sizes).unwrap();
    let Safety::Unsafe { kind, message } = race(&k, &inst).unwrap().safety else {
        panic!("no trap")
    };
    assert_eq!(kind, ErrorKind::Trap);
    let tail = message
        .split("reached for the inputs ")
        .nth(1)
        .expect(&message);
    let tail = tail.split(" (thread").next().unwrap();
    let mut x = vec![0.5; 8];
    for part in tail.split(", ") {
        let (lhs, v) = part.split_once(" = ").unwrap();
        let j: usize = lhs
            .trim_start_matches("x[")
            .trim_end_matches(']')
            .parse()
            .unwrap();
        x[j] = v.parse().unwrap();
    }
    let run = |x: Vec<f64>| {
        let inputs = BTreeMap::from([(
            "x".to_string(),
            Array {
                shape: vec![8],
                data: x,
            },
        )]);
        k.run(&inst, &inputs, &BTreeMap::new())
    };
    match run(x) {
        Err(Error::Exec { err, .. }) => assert_eq!(err.kind, ErrorKind::Trap, "{err}"),
        r => panic!(
            "the witness does not reach the trap: {:?}",
            r.map(|r| r.outputs)
        ),
    }
    assert!(run(vec![0.5; 8]).is_ok());
}

// ----- f64, constant tables, typed values -----

#[test]
fn double_precision_gelu_is_proved_and_its_tanh_twin_refuted() {
    let sizes = BTreeMap::from([("N".to_string(), 8)]);
    let opts = CheckOptions::default();
    let spec = "y = torch.nn.functional.gelu(x)";
    let erf = kernel("ptx/gelu64/erf.ptx");
    let inst = erf.instance(&sizes).unwrap();
    let r = check::check(&erf, &inst, spec, &opts).unwrap();
    assert_eq!(r.outcome, Outcome::Verified, "{}", r.to_text());
    let tanh = kernel("ptx/gelu64/tanh.ptx");
    let inst = tanh.instance(&sizes).unwrap();
    let r = check::check(&tanh, &inst, spec, &opts).unwrap();
    assert_eq!(r.outcome, Outcome::Refuted, "{}", r.to_text());
}

#[test]
fn constant_tables_read_their_initialisers() {
    let sizes = BTreeMap::from([("N".to_string(), 8)]);
    let opts = CheckOptions::default();
    let spec = "y = 1 + x / 2 + x * x / 4 + x * x * x / 8";
    for (rel, want) in [
        ("ptx/const_table/poly.ptx", Outcome::Verified),
        ("ptx/const_table/wrong_coef.ptx", Outcome::Refuted),
    ] {
        let k = kernel(rel);
        let inst = k.instance(&sizes).unwrap();
        let r = check::check(&k, &inst, spec, &opts).unwrap();
        assert_eq!(r.outcome, want, "{rel}:\n{}", r.to_text());
    }
}

/// A launch may give a `__constant__` table's contents (host-written with
/// cudaMemcpyToSymbol): `coef = { tensor = "c", shape = [4] }` makes the table the
/// input tensor `c`; anything but a tensor is a launch error.
#[test]
fn a_launch_may_give_a_constant_tables_contents() {
    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(root().join("ptx/const_table/poly.launch.toml")).unwrap();
    let launch = dir.path().join("given.launch.toml");
    std::fs::write(
        &launch,
        format!("{base}coef = {{ tensor = \"c\", shape = [4] }}\n"),
    )
    .unwrap();
    let k = Kernel::load(&root().join("ptx/const_table/poly.ptx"), Some(&launch)).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = lift::term::Terms::new();
    let spec = k.spec(&inst, &mut terms).unwrap();
    let text = spec.to_text(&terms);
    assert!(text.contains("y[0] = c[0] + x[0] * (c[1]"), "{text}");
    let inputs = BTreeMap::from([
        (
            "x".to_string(),
            Array {
                shape: vec![8],
                data: (0..8).map(f64::from).collect(),
            },
        ),
        (
            "c".to_string(),
            Array {
                shape: vec![4],
                data: vec![2.0, 0.0, 0.0, 1.0],
            },
        ),
    ]);
    let r = k.run(&inst, &inputs, &BTreeMap::new()).unwrap();
    let y = &r.outputs.iter().find(|(n, _)| n == "y").unwrap().1.data;
    assert_eq!(
        y,
        &(0..8)
            .map(|v| 2.0 + f64::from(v).powi(3))
            .collect::<Vec<_>>()
    );

    std::fs::write(&launch, format!("{base}coef = 3\n")).unwrap();
    let k = Kernel::load(&root().join("ptx/const_table/poly.ptx"), Some(&launch)).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let err = race(&k, &inst).unwrap_err();
    assert_eq!(err.exit_code(), 2, "{err}");
    assert!(err.to_string().contains("module variable `coef`"), "{err}");
}

/// `{ value = 1e-5 }` for an `.f32` parameter is the float nearest 1e-5, like the
/// spec's decimal: proved (read as the f64 1e-5 it would not be). A launch with
/// another value is refuted.
#[test]
fn a_float_argument_is_rounded_to_its_type() {
    let opts = CheckOptions::default();
    let spec = "y = x / torch.sqrt(x * x + 1e-5)";
    let k = kernel("ptx/eps_param/inside.ptx");
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let r = check::check(&k, &inst, spec, &opts).unwrap();
    assert_eq!(r.outcome, Outcome::Verified, "{}", r.to_text());
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("ptx/eps_param/inside.launch.toml"))
        .unwrap()
        .replace("1e-05", "2e-05");
    let launch = dir.path().join("other.launch.toml");
    std::fs::write(&launch, text).unwrap();
    let k2 = Kernel::load(&root().join("ptx/eps_param/inside.ptx"), Some(&launch)).unwrap();
    let inst = k2.instance(&BTreeMap::new()).unwrap();
    let r = check::check(&k2, &inst, spec, &opts).unwrap();
    assert_eq!(r.outcome, Outcome::Refuted, "{}", r.to_text());
}

// ----- structs passed by value -----

/// A struct parameter's fields are bound by byte offset: the clamp bounds (floats,
/// rounded to f32 like any float argument) and, in `struct_args`, the tensor pointers
/// themselves. Proved against the spec, the swapped twin refuted (its counterexample is
/// replayed by `tests/ptx_spec_checks.rs`, which walks the fixtures' checks), the
/// off-by-one twin out of bounds through the struct's pointer; a launch
/// that binds the struct as one value, misses a field the kernel reads, or gives
/// fields to a scalar parameter is an error naming the parameter and offset.
#[test]
fn struct_parameters_bind_their_fields_by_offset() {
    let opts = CheckOptions::default();
    for (rel, spec, want) in [
        (
            "ptx/struct_clamp/clamp.ptx",
            "y = torch.clamp(x, -0.5, 0.75)",
            Outcome::Verified,
        ),
        (
            "ptx/struct_clamp/swapped.ptx",
            "y = torch.clamp(x, -0.5, 0.75)",
            Outcome::Refuted,
        ),
        (
            "ptx/struct_args/scale.ptx",
            "y = 0.5 * x",
            Outcome::Verified,
        ),
        (
            "ptx/struct_args/scale.ptx",
            "y = 0.25 * x",
            Outcome::Refuted,
        ),
    ] {
        let k = kernel(rel);
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let r = check::check(&k, &inst, spec, &opts).unwrap();
        assert_eq!(r.outcome, want, "{rel}: {}", r.to_text());
    }
    let k = kernel("ptx/struct_args/past_end.ptx");
    let inst = k.instance(&BTreeMap::new()).unwrap();
    match race(&k, &inst).unwrap().safety {
        Safety::Unsafe { kind, message } => {
            assert_eq!(kind, ErrorKind::OutOfBounds, "{message}");
            assert!(message.contains("outside its 8 elements"), "{message}");
        }
        other => panic!("past_end: {other:?}"),
    }

    let dir = tempfile::tempdir().unwrap();
    let base = std::fs::read_to_string(root().join("ptx/struct_args/scale.launch.toml")).unwrap();
    let launch = dir.path().join("bad.launch.toml");
    let error_of = |text: String| {
        std::fs::write(&launch, text).unwrap();
        let k = Kernel::load(&root().join("ptx/struct_args/scale.ptx"), Some(&launch)).unwrap();
        let inst = k.instance(&BTreeMap::new()).unwrap();
        let err = race(&k, &inst).unwrap_err();
        assert_eq!(err.exit_code(), 2, "{err}");
        err.to_string()
    };
    let e = error_of(base.replace(", 20 = \"N\"", ""));
    assert!(
        e.contains("reads byte 20 of struct parameter `struct_args_scale_param_0`"),
        "{e}"
    );
    assert!(e.contains("bound offsets: 0, 8, 16"), "{e}");
    let whole = base
        .lines()
        .map(|l| {
            if l.starts_with("struct_args_scale_param_0") {
                "struct_args_scale_param_0 = \"N\""
            } else {
                l
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    let e = error_of(whole);
    assert!(e.contains("is a struct passed by value"), "{e}");

    let base = std::fs::read_to_string(root().join("ptx/struct_clamp/clamp.launch.toml")).unwrap();
    let launch = dir.path().join("scalar.launch.toml");
    std::fs::write(
        &launch,
        base.replace("_param_3 = \"N\"", "_param_3 = { fields = { 0 = \"N\" } }"),
    )
    .unwrap();
    let k = Kernel::load(&root().join("ptx/struct_clamp/clamp.ptx"), Some(&launch)).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let err = race(&k, &inst).unwrap_err();
    assert!(err.to_string().contains("is not a struct"), "{err}");

    // A Triton kernel has no struct parameters.
    let base = std::fs::read_to_string(root().join("triton_ir/add/kernel.launch.toml")).unwrap();
    let launch = dir.path().join("ttir.launch.toml");
    std::fs::write(
        &launch,
        base.replace(
            "n_elements = \"N\"",
            "n_elements = { fields = { 0 = \"N\" } }",
        ),
    )
    .unwrap();
    let k = Kernel::load(&root().join("triton_ir/add/kernel.ttir"), Some(&launch)).unwrap();
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let err = race(&k, &inst).unwrap_err();
    assert!(
        err.to_string().contains("only a PTX struct parameter has"),
        "{err}"
    );
}

// ----- lift race --format json -----

#[test]
fn race_json_has_checks_shape() {
    let run = |rel: &str| {
        let out = lift()
            .args(["race", "--format", "json"])
            .arg(root().join(rel))
            .output()
            .unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{rel}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        (out.status.code(), v)
    };
    let (code, v) = run("ptx/triton/inplace_small.ptx");
    assert_eq!(code, Some(0));
    assert_eq!(v["schema"], "lift.race/1");
    assert_eq!(v["verdict"], "safe");
    assert_eq!(v["scope"], "instance");
    assert!(v["finding"].is_null());
    assert_eq!(v["sizes"]["N"], 8);
    assert!(v["seconds"].is_number());
    let (code, v) = run("ptx/triton/inplace_shift.ptx");
    assert_eq!(code, Some(1));
    assert_eq!(v["verdict"], "race");
    assert_eq!(v["finding"]["kind"], "race");
    assert!(v["finding"]["message"]
        .as_str()
        .unwrap()
        .contains("data race"));
    let (code, v) = run("ptx/trap/wrong_check.ptx");
    assert_eq!(code, Some(1));
    assert_eq!(v["verdict"], "trap");
    let (code, v) = run("triton_ir/matmul_tf32/kernel.ptx");
    assert_eq!(code, Some(3));
    assert_eq!(v["verdict"], "unknown");
    assert!(v["reason"].as_str().unwrap().contains("mma"));
}
