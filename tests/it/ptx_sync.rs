//! The CTA simulator's synchronisation rules on small PTX kernels: barriers order a
//! whole CTA, `bar.warp.sync` only its lanes, nothing is warp-synchronous by itself;
//! barriers that cannot complete are deadlocks; out-of-bounds and unwritten reads fail.

use lift::exec::domain::Concrete;
use lift::exec::{ErrorKind, ExecError, Execution};
use lift::launch::Launch;
use std::collections::BTreeMap;

const LAUNCH: &str = r#"
block = [64]
grid = [1]
[args]
param_0 = { tensor = "x", shape = [64], role = "in" }
param_1 = { tensor = "y", shape = [64], role = "out" }
"#;

/// A kernel over x[64] -> y[64] whose body is `body`; %r1 = tid, %rd1 = &x[tid],
/// %rd2 = &y[tid], %rd3 = &s[tid] (s: 64 floats of shared memory).
fn kernel(body: &str) -> String {
    format!(
        r#"
.version 8.8
.target sm_80
.address_size 64
.visible .entry k(.param .u64 k_param_0, .param .u64 k_param_1)
{{
	.reg .pred %p<4>;
	.reg .f32 %f<8>;
	.reg .b32 %r<8>;
	.reg .b64 %rd<8>;
	.shared .align 4 .b8 s[256];
	ld.param.u64 %rd4, [k_param_0];
	ld.param.u64 %rd5, [k_param_1];
	cvta.to.global.u64 %rd4, %rd4;
	cvta.to.global.u64 %rd5, %rd5;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd6, %r1, 4;
	add.s64 %rd1, %rd4, %rd6;
	add.s64 %rd2, %rd5, %rd6;
	mov.u64 %rd7, s;
	add.s64 %rd3, %rd7, %rd6;
{body}
	ret;
}}
"#
    )
}

fn run(body: &str) -> Result<Execution<f64>, ExecError> {
    let m = lift::ptx::parse(&kernel(body)).unwrap_or_else(|e| panic!("{e}"));
    let inst = Launch::parse(LAUNCH, "t.toml")
        .unwrap()
        .instantiate(&BTreeMap::new())
        .unwrap();
    let x: Vec<f64> = (0..64).map(|i| i as f64).collect();
    let mut d = Concrete {
        data: vec![Some(x), None],
        scalars: BTreeMap::new(),
        precision: Default::default(),
        values_only: false,
    };
    lift::ptx::execute(&m, &inst, &[], &mut d)
}

fn kind(body: &str) -> Option<ErrorKind> {
    run(body).err().map(|e| e.kind)
}

/// Each thread writes s[tid], then reads s[tid ^ 1] (its neighbour, same warp).
fn exchange(sync: &str) -> String {
    format!(
        "	ld.global.f32 %f1, [%rd1];
	st.shared.f32 [%rd3], %f1;
{sync}
	xor.b32 %r2, %r1, 1;
	mul.wide.u32 %rd6, %r2, 4;
	add.s64 %rd6, %rd7, %rd6;
	ld.shared.f32 %f2, [%rd6];
	st.global.f32 [%rd2], %f2;"
    )
}

#[test]
fn a_cta_barrier_orders_shared_accesses() {
    let e = run(&exchange("	bar.sync 0;")).unwrap();
    let y: Vec<f64> = e.outputs[0].elems.iter().map(|v| v.unwrap()).collect();
    assert_eq!(y[0], 1.0);
    assert_eq!(y[1], 0.0);
    assert_eq!(y[63], 62.0);
}

#[test]
fn warp_lanes_are_not_synchronous_without_a_warp_barrier() {
    let e = run(&exchange("")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    assert!(
        e.message.contains("s[1]") || e.message.contains("s[0]"),
        "{e}"
    );
}

#[test]
fn a_full_warp_barrier_orders_its_lanes() {
    assert!(run(&exchange("	bar.warp.sync -1;")).is_ok());
}

#[test]
fn a_warp_barrier_orders_only_the_lanes_in_its_mask() {
    // Lanes 0 and 1 are in different halves of no mask: mask 0x55555555 holds only
    // the even lanes, so the odd lanes must sync with another mask (their own).
    let body = exchange(
        "	and.b32 %r3, %r1, 1;
	setp.eq.u32 %p1, %r3, 0;
	@%p1 bar.warp.sync 0x55555555;
	@!%p1 bar.warp.sync 0xAAAAAAAA;",
    );
    assert_eq!(kind(&body), Some(ErrorKind::Race));
}

#[test]
fn a_barrier_not_reached_by_every_thread_is_a_deadlock() {
    let body = "	setp.lt.u32 %p1, %r1, 32;
	@%p1 bar.sync 0;";
    let e = run(body).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("has returned"), "{e}");
}

#[test]
fn threads_at_different_barriers_deadlock() {
    let body = "	setp.lt.u32 %p1, %r1, 32;
	@%p1 bra $L1;
	bar.sync 0;
	bra $L2;
$L1:
	bar.sync 0;
$L2:";
    let e = run(body).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Deadlock, "{e}");
    assert!(e.message.contains("different barriers"), "{e}");
}

#[test]
fn a_shuffle_reads_the_partner_lane() {
    let body = "	ld.global.f32 %f1, [%rd1];
	mov.b32 %r4, %f1;
	shfl.sync.bfly.b32 %r5|%p2, %r4, 1, 31, -1;
	mov.b32 %f2, %r5;
	st.global.f32 [%rd2], %f2;";
    let e = run(body).unwrap();
    let y: Vec<f64> = e.outputs[0].elems.iter().map(|v| v.unwrap()).collect();
    assert_eq!(&y[..4], &[1.0, 0.0, 3.0, 2.0]);
    let body = body.replace(
        "bfly.b32 %r5|%p2, %r4, 1, 31",
        "down.b32 %r5|%p2, %r4, 4, 31",
    );
    let y: Vec<f64> = run(&body).unwrap().outputs[0]
        .elems
        .iter()
        .map(|v| v.unwrap())
        .collect();
    assert_eq!(y[0], 4.0);
    assert_eq!(y[31], 31.0, "out of range: own value");
    assert_eq!(y[32], 36.0, "second warp");
}

#[test]
fn a_shuffle_some_lanes_skip_deadlocks() {
    let body = "	mov.b32 %r4, 0;
	setp.lt.u32 %p1, %r1, 16;
	@%p1 shfl.sync.bfly.b32 %r5, %r4, 1, 31, -1;";
    assert_eq!(kind(body), Some(ErrorKind::Deadlock));
}

#[test]
fn out_of_bounds_and_unwritten_reads_fail() {
    assert_eq!(
        kind("	ld.global.f32 %f1, [%rd1+256];"),
        Some(ErrorKind::OutOfBounds)
    );
    assert_eq!(
        kind("	ld.shared.f32 %f1, [%rd3];"),
        Some(ErrorKind::NeverWritten)
    );
    assert_eq!(
        kind("	ld.shared.f32 %f1, [%rd3+256];"),
        Some(ErrorKind::OutOfBounds)
    );
    assert_eq!(
        kind("	ld.global.f32 %f1, [%rd1];\n	st.global.f32 [%rd1], %f1;"),
        Some(ErrorKind::WriteToInput)
    );
}

#[test]
fn writes_to_one_global_element_by_two_threads_race() {
    let body = "	ld.global.f32 %f1, [%rd1];
	st.global.f32 [%rd5], %f1;";
    let e = run(body).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    assert!(e.message.contains("`y`[0]"), "{e}");
}

#[test]
fn float_bit_tricks_follow_ieee() {
    // -inf from bits, abs by mask, neg by xor.
    let body = "	ld.global.f32 %f1, [%rd1];
	sub.f32 %f1, 0f00000000, %f1;
	mov.b32 %r4, %f1;
	and.b32 %r5, %r4, 2147483647;
	xor.b32 %r6, %r5, -2147483648;
	mov.b32 %r7, -8388608;
	max.f32 %r6, %r6, %r7;
	mov.b32 %f3, %r6;
	st.global.f32 [%rd2], %f3;";
    let e = run(body).unwrap();
    let y: Vec<f64> = e.outputs[0].elems.iter().map(|v| v.unwrap()).collect();
    assert_eq!(y[5], -5.0);
}

#[test]
fn unsupported_instructions_are_named() {
    let e = run("	bfind.u32 %r2, %r1;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.message.contains("bfind.u32"), "{e}");
    // prmt is modelled in its default mode only.
    let e = run("	prmt.b32.f4e %r2, %r1, %r1, 0;").unwrap_err();
    assert_eq!(e.kind, ErrorKind::Unsupported);
    assert!(e.message.contains("prmt mode .f4e"), "{e}");
}

/// Two shared arrays `a`, `b` (declared by `decls`, in the entry or, `.extern`, in the
/// module), 64 threads: `body` runs with %r1 = tid, %rd1 = &x[tid], %rd2 = &y[tid],
/// %rd3 = &a[tid], %rd7 = b.
fn two_arrays(decls: &str, body: &str) -> Result<Execution<f64>, ExecError> {
    let (module, entry) = if decls.contains(".extern") {
        (decls, "")
    } else {
        ("", decls)
    };
    let text = kernel(body)
        .replace("	.shared .align 4 .b8 s[256];", entry)
        .replace(".visible .entry", &format!("{module}\n.visible .entry"))
        .replace("%rd<8>", "%rd<12>")
        .replace("mov.u64 %rd7, s;", "mov.u64 %rd8, a;\n	mov.u64 %rd7, b;")
        .replace("add.s64 %rd3, %rd7, %rd6;", "add.s64 %rd3, %rd8, %rd6;");
    let m = lift::ptx::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let inst = Launch::parse(LAUNCH, "t.toml")
        .unwrap()
        .instantiate(&BTreeMap::new())
        .unwrap();
    let mut d = Concrete {
        data: vec![Some((0..64).map(|i| i as f64).collect()), None],
        scalars: BTreeMap::new(),
        precision: Default::default(),
        values_only: false,
    };
    lift::ptx::execute(&m, &inst, &[], &mut d)
}

#[test]
fn an_index_past_a_shared_array_is_out_of_bounds_not_its_neighbour() {
    // `a` holds 32 floats, the CTA has 64 threads: thread 32 stores a[32]. Laid out
    // back to back, a[32] would be b[0] and the run SAFE (ptx/races/oob_shared_into_neighbour).
    let decls = "	.shared .align 4 .b8 a[128];\n	.shared .align 4 .b8 b[128];";
    let body = "	ld.global.f32 %f1, [%rd1];
	st.shared.f32 [%rd3], %f1;
	st.global.f32 [%rd2], %f1;";
    let e = two_arrays(decls, body).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfBounds, "{e}");
    assert!(
        e.message
            .contains("outside every tensor and shared variable"),
        "{e}"
    );
    // An index before the start of `b` is out of bounds too.
    let body = "	ld.global.f32 %f1, [%rd1];
	st.shared.f32 [%rd7+-4], %f1;";
    let e = two_arrays(decls, body).unwrap_err();
    assert_eq!(e.kind, ErrorKind::OutOfBounds, "{e}");
}

#[test]
fn extern_shared_arrays_are_one_memory() {
    // Every unsized `.extern .shared` array starts at the dynamic shared memory: b[i]
    // is a[i]. Thread t stores a[t] and loads b[t ^ 1], its neighbour's store
    // (ptx/races/dynamic_shared_views).
    let decls = ".extern .shared .align 16 .b8 a[];\n.extern .shared .align 16 .b8 b[];";
    let body = |sync: &str| {
        format!(
            "	ld.global.f32 %f1, [%rd1];
	st.shared.f32 [%rd3], %f1;
{sync}
	xor.b32 %r2, %r1, 1;
	mul.wide.u32 %rd9, %r2, 4;
	add.s64 %rd9, %rd7, %rd9;
	ld.shared.f32 %f2, [%rd9];
	st.global.f32 [%rd2], %f2;"
        )
    };
    let e = two_arrays(decls, &body("")).unwrap_err();
    assert_eq!(e.kind, ErrorKind::Race, "{e}");
    let e = two_arrays(decls, &body("	bar.sync 0;")).unwrap();
    let y: Vec<f64> = e.outputs[0].elems.iter().map(|v| v.unwrap()).collect();
    assert_eq!((y[0], y[1], y[63]), (1.0, 0.0, 62.0));
}

#[test]
fn barrier_reductions_count_and_order() {
    // `__syncthreads_count(t & 1)`, `__syncthreads_and(t & 1)`, `__syncthreads_or(!(t &
    // 1))`: barriers (the neighbour's shared store is ordered before the load) whose
    // results are 32, false and true.
    let body = "	ld.global.f32 %f1, [%rd1];
	st.shared.f32 [%rd3], %f1;
	and.b32 %r2, %r1, 1;
	setp.ne.u32 %p1, %r2, 0;
	bar.red.popc.u32 %r3, 0, %p1;
	bar.red.and.pred %p2, 0, %p1;
	bar.red.or.pred %p3, 0, !%p1;
	selp.u32 %r4, 1000, 0, %p2;
	selp.u32 %r5, 100, 0, %p3;
	add.u32 %r3, %r3, %r4;
	add.u32 %r3, %r3, %r5;
	cvt.rn.f32.u32 %f2, %r3;
	xor.b32 %r2, %r1, 1;
	mul.wide.u32 %rd6, %r2, 4;
	add.s64 %rd6, %rd7, %rd6;
	ld.shared.f32 %f3, [%rd6];
	add.f32 %f3, %f3, %f2;
	st.global.f32 [%rd2], %f3;";
    let e = run(body).unwrap();
    let y: Vec<f64> = e.outputs[0].elems.iter().map(|v| v.unwrap()).collect();
    assert_eq!((y[0], y[1], y[63]), (133.0, 132.0, 194.0));
    // Reached by only some threads, it is a deadlock like bar.sync.
    let body = "	setp.lt.u32 %p1, %r1, 32;
	@%p1 bar.red.popc.u32 %r3, 0, %p1;";
    assert_eq!(kind(body), Some(ErrorKind::Deadlock));
}
