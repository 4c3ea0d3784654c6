//! Unit tests over real Triton 3.9 output: whole kernels in `testdata/*.ttir` (made by
//! `testdata/gen.py` and `testdata/gen2.py`) and single ops copied from them.

use super::ast::*;
use super::{parse, MAX_REGION_DEPTH};

fn all_ops<'m>(r: &'m Region, out: &mut Vec<&'m Op>) {
    for b in &r.blocks {
        for op in &b.ops {
            out.push(op);
            for sub in &op.regions {
                all_ops(sub, out);
            }
        }
    }
}

fn ops_of(m: &Module) -> Vec<&Op> {
    let mut v = Vec::new();
    for f in &m.funcs {
        all_ops(&f.body, &mut v);
    }
    v
}

const SAMPLES: &[(&str, &str)] = &[
    ("elem", include_str!("testdata/elem.ttir")),
    ("rowred", include_str!("testdata/rowred.ttir")),
    ("red2d", include_str!("testdata/red2d.ttir")),
    ("mm", include_str!("testdata/mm.ttir")),
    ("ctrl", include_str!("testdata/ctrl.ttir")),
    ("casts", include_str!("testdata/casts.ttir")),
    ("calls", include_str!("testdata/calls.ttir")),
    ("misc", include_str!("testdata/misc.ttir")),
    ("gath", include_str!("testdata/gath.ttir")),
];

fn sample(name: &str) -> Module {
    let src = SAMPLES.iter().find(|(n, _)| *n == name).unwrap().1;
    parse(src).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The first op named `name` whose first result is `result` (or any, if empty).
fn find<'m>(m: &'m Module, name: &str, result: &str) -> &'m Op {
    ops_of(m)
        .into_iter()
        .find(|o| {
            o.name == name
                && (result.is_empty() || o.results.first().map(String::as_str) == Some(result))
        })
        .unwrap_or_else(|| panic!("no {name} -> %{result}"))
}

/// Wraps op lines (copied from Triton output) in a module with a few locations.
fn one(ops: &str) -> Op {
    let src = format!(
        "#loc = loc(\"k.py\":3:1)\n\
         module {{\n  tt.func public @k(%x_ptr: !tt.ptr<f32> loc(\"x_ptr\"(#loc))) attributes {{noinline = false}} {{\n\
         {ops}\n    tt.return loc(#loc)\n  }} loc(#loc)\n}} loc(#loc)\n\
         #loc1 = loc(\"k.py\":12:9)\n#loc2 = loc(\"x\"(#loc1))\n"
    );
    let m = parse(&src).unwrap_or_else(|e| panic!("{e}\n{src}"));
    m.funcs[0].body.blocks[0].ops[0].clone()
}

fn t(s: &str) -> Type {
    let op = one(&format!("    %c = ub.poison : {s} loc(#loc1)"));
    op.result_types[0].clone()
}

fn f32t() -> Type {
    Type::Float(FloatKind::F32)
}

fn tensor(shape: &[i64], elem: Type) -> Type {
    Type::Tensor {
        shape: shape.to_vec(),
        elem: Box::new(elem),
    }
}

#[test]
fn every_sample_parses_and_ops_have_source_lines() {
    for (name, src) in SAMPLES {
        let m = parse(src).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ops = ops_of(&m);
        assert!(!ops.is_empty(), "{name}");
        for op in ops {
            assert_eq!(op.results.len(), op.result_types.len(), "{name}: {op:?}");
            if op.name != "arith.constant" {
                assert!(op.loc.file.is_some() && op.loc.line > 0, "{name}: {op:?}");
            }
        }
    }
}

#[test]
fn types() {
    assert_eq!(t("tensor<4x8xf32>"), tensor(&[4, 8], f32t()));
    assert_eq!(
        t("tensor<4x!tt.ptr<f32>>"),
        tensor(&[4], Type::Ptr(Box::new(f32t())))
    );
    assert_eq!(
        t("!tt.ptr<f16, 1>"),
        Type::Ptr(Box::new(Type::Float(FloatKind::F16)))
    );
    assert_eq!(
        t("tensor<16x16xbf16>").elem(),
        &Type::Float(FloatKind::BF16)
    );
    assert_eq!(t("tensor<4xf8E5M2>").elem(), &Type::Float(FloatKind::F8));
    assert_eq!(t("i1"), Type::Int(1));
    assert_eq!(t("index"), Type::Index);
    assert_eq!(t("tensor<8xi32, #blocked>"), tensor(&[8], Type::Int(32)));
    assert_eq!(
        t("!tt.tensordesc<tensor<16xf32>>"),
        Type::Other("!tt.tensordesc<tensor<16xf32>>".into())
    );
}

#[test]
fn binary_op_and_location_through_named_alias() {
    // From elem.ttir.
    let op = one("    %y_11 = arith.addf %y_9, %y_10 : tensor<4xf32> loc(#loc2)");
    assert_eq!(op.name, "arith.addf");
    assert_eq!(op.results, ["y_11"]);
    assert_eq!(op.operands, ["y_9", "y_10"]);
    let ty = tensor(&[4], f32t());
    assert_eq!(op.operand_types, [ty.clone(), ty.clone()]);
    assert_eq!(op.result_types, [ty]);
    assert_eq!(op.loc.file.as_deref(), Some("k.py"));
    assert_eq!((op.loc.line, op.loc.col), (12, 9));
    assert_eq!(op.loc.name.as_deref(), Some("x"));
    assert_eq!(op.line, 4);
}

#[test]
fn compare_predicate_and_result_type() {
    let op = one("    %m_5 = arith.cmpi slt, %offs_4, %m : tensor<4xi32> loc(#loc1)");
    assert_eq!(op.attr("predicate"), Some(&Attr::Str("slt".into())));
    assert_eq!(op.operands, ["offs_4", "m"]);
    assert_eq!(op.result_types, [tensor(&[4], Type::Int(1))]);
    let op = one("    %gt = arith.cmpf ogt, %am_12, %am_14 : f32 loc(#loc1)");
    assert_eq!(op.attr("predicate").and_then(Attr::as_str), Some("ogt"));
    assert_eq!(op.result_types, [Type::Int(1)]);
}

#[test]
fn constants() {
    let op = one("    %x = arith.constant dense<0xFF800000> : tensor<4xf32> loc(#loc1)");
    assert_eq!(
        op.attr("value"),
        Some(&Attr::Dense {
            values: vec![Scalar::Float(f64::NEG_INFINITY)],
            ty: tensor(&[4], f32t())
        })
    );
    let op = one("    %y_0 = arith.constant dense<4.471500e-02> : tensor<4xf32> loc(#loc1)");
    match op.attr("value") {
        Some(Attr::Dense { values, .. }) => {
            assert_eq!(values, &[Scalar::Float(0.044715f32 as f64)])
        }
        a => panic!("{a:?}"),
    }
    let op = one("    %offs = arith.constant 4 : i32 loc(#loc1)");
    assert_eq!(op.attr("value"), Some(&Attr::Scalar(Scalar::Int(4))));
    assert_eq!(op.result_types, [Type::Int(32)]);
    let op = one("    %cst = arith.constant dense<true> : tensor<8xi1> loc(#loc1)");
    match op.attr("value") {
        Some(Attr::Dense { values, .. }) => assert_eq!(values, &[Scalar::Bool(true)]),
        a => panic!("{a:?}"),
    }
    let op = one("    %big = arith.constant dense<12345678901> : tensor<8xi64> loc(#loc1)");
    match op.attr("value") {
        Some(Attr::Dense { values, .. }) => assert_eq!(values, &[Scalar::Int(12345678901)]),
        a => panic!("{a:?}"),
    }
    // f16 / bf16 decimals round to their own format (from misc.ttir): 0x2E66, 0x3E9A.
    let op = one("    %hh = arith.constant dense<9.997550e-02> : tensor<8xf16> loc(#loc1)");
    match op.attr("value") {
        Some(Attr::Dense { values, .. }) => {
            assert_eq!(values, &[Scalar::Float(0.0999755859375)])
        }
        a => panic!("{a:?}"),
    }
    let op = one("    %bb = arith.constant dense<3.007810e-01> : tensor<8xbf16> loc(#loc1)");
    match op.attr("value") {
        Some(Attr::Dense { values, .. }) => assert_eq!(values, &[Scalar::Float(0.30078125)]),
        a => panic!("{a:?}"),
    }
    let op = one("    %c = arith.constant -1.000000e-01 : f32 loc(#loc1)");
    assert_eq!(
        op.attr("value"),
        Some(&Attr::Scalar(Scalar::Float(-0.1f32 as f64)))
    );
    let op = one("    %true = arith.constant true loc(#loc1)");
    assert_eq!(op.attr("value"), Some(&Attr::Scalar(Scalar::Bool(true))));
    assert_eq!(op.result_types, [Type::Int(1)]);
    // MLIR's forms for non-splat tensors: a list, or little-endian hex bytes.
    let op = one("    %c = arith.constant dense<[1, 2, 3, -4]> : tensor<4xi32> loc(#loc1)");
    match op.attr("value") {
        Some(Attr::Dense { values, .. }) => assert_eq!(
            values,
            &[
                Scalar::Int(1),
                Scalar::Int(2),
                Scalar::Int(3),
                Scalar::Int(-4)
            ]
        ),
        a => panic!("{a:?}"),
    }
    let op =
        one("    %c = arith.constant dense<\"0x0000803F000000C0\"> : tensor<2xf32> loc(#loc1)");
    match op.attr("value") {
        Some(Attr::Dense { values, .. }) => {
            assert_eq!(values, &[Scalar::Float(1.0), Scalar::Float(-2.0)])
        }
        a => panic!("{a:?}"),
    }
}

#[test]
fn program_id_range_splat_addptr() {
    let op = one("    %pn = tt.get_program_id y : i32 loc(#loc1)");
    assert_eq!(op.attr("axis"), Some(&Attr::Int(1)));
    assert_eq!(op.result_types, [Type::Int(32)]);
    let op = one(
        "    %offs_2 = tt.make_range {end = 4 : i32, start = 0 : i32} : tensor<4xi32> loc(#loc1)",
    );
    assert_eq!(op.attr("start"), Some(&Attr::Int(0)));
    assert_eq!(op.attr("end"), Some(&Attr::Int(4)));
    assert!(op.operands.is_empty());
    let op = one("    %x_6 = tt.splat %x_ptr : !tt.ptr<f32> -> tensor<4x!tt.ptr<f32>> loc(#loc1)");
    assert_eq!(op.operand_types, [Type::Ptr(Box::new(f32t()))]);
    assert_eq!(op.result_types, [tensor(&[4], Type::Ptr(Box::new(f32t())))]);
    let op = one("    %x_2 = tt.addptr %x_ptr, %x_1 : !tt.ptr<f32>, i32 loc(#loc1)");
    assert_eq!(op.result_types, [Type::Ptr(Box::new(f32t()))]);
    assert_eq!(op.operand_types[1], Type::Int(32));
}

#[test]
fn loads_and_stores() {
    let op = one("    %x_8 = tt.load %x_7, %m_5, %x : tensor<4x!tt.ptr<f32>> loc(#loc1)");
    assert_eq!(op.operands, ["x_7", "m_5", "x"]);
    assert_eq!(op.result_types, [tensor(&[4], f32t())]);
    assert_eq!(op.operand_types[1], tensor(&[4], Type::Int(1)));
    let op = one("    %x_5 = tt.load %x_4, %m_0, %x {cachePolicy = #tt.cache_policy<cache_modifier = cg, eviction_policy = evict_normal>} : tensor<8x!tt.ptr<f32>> loc(#loc1)");
    assert_eq!(op.attr("cacheModifier").and_then(Attr::as_str), Some("cg"));
    assert_eq!(
        op.attr("evictionPolicy").and_then(Attr::as_str),
        Some("evict_normal")
    );
    let op = one("    %x_18 = tt.load %x_17, %x_8, %x {isVolatile = true} : tensor<4x8x!tt.ptr<f32>> loc(#loc1)");
    assert_eq!(
        op.attr("isVolatile"),
        Some(&Attr::Scalar(Scalar::Bool(true)))
    );
    let op = one("    %x = tt.load %x_ptr : !tt.ptr<f32> loc(#loc1)");
    assert_eq!(op.result_types, [f32t()]);
    let op = one("    tt.store %1, %y_41, %m_5 : tensor<4x!tt.ptr<f32>> loc(#loc1)");
    assert!(op.results.is_empty() && op.result_types.is_empty());
    assert_eq!(op.operands, ["1", "y_41", "m_5"]);
    assert_eq!(op.operand_types.len(), 3);
}

#[test]
fn shape_ops_dot_and_casts() {
    let op = one("    %rm_0 = tt.expand_dims %rm {axis = 1 : i32} : tensor<4xi32> -> tensor<4x1xi32> loc(#loc1)");
    assert_eq!(op.attr("axis"), Some(&Attr::Int(1)));
    assert_eq!(op.result_types, [tensor(&[4, 1], Type::Int(32))]);
    let op = one("    %xt = tt.trans %x_18 {order = array<i32: 1, 0>} : tensor<4x8xf32> -> tensor<8x4xf32> loc(#loc1)");
    assert_eq!(op.attr("order"), Some(&Attr::Array(vec![1, 0])));
    let op = one("    %acc_30 = tt.dot %a_18, %b_29, %acc_5, inputPrecision = tf32 : tensor<16x16xf16> * tensor<16x16xf16> -> tensor<16x16xf32> loc(#loc1)");
    assert_eq!(op.operands, ["a_18", "b_29", "acc_5"]);
    assert_eq!(
        op.attr("inputPrecision").and_then(Attr::as_str),
        Some("tf32")
    );
    assert_eq!(op.result_types, [tensor(&[16, 16], f32t())]);
    assert_eq!(op.operand_types.len(), 3);
    let op = one("    %z_36 = arith.extf %z : tensor<4xf16> to tensor<4xf32> loc(#loc1)");
    assert_eq!(
        op.operand_types,
        [tensor(&[4], Type::Float(FloatKind::F16))]
    );
    assert_eq!(op.result_types, [tensor(&[4], f32t())]);
    let op = one("    %f8 = tt.fp_to_fp %x_1, rounding = rtne : tensor<4xf32> -> tensor<4xf8E5M2> loc(#loc1)");
    assert_eq!(op.attr("rounding").and_then(Attr::as_str), Some("rtne"));
    let op = one(
        "    %y_29 = arith.select %y_27, %y_26, %y_28 : tensor<4xi1>, tensor<4xf32> loc(#loc1)",
    );
    assert_eq!(op.result_types, [tensor(&[4], f32t())]);
    assert_eq!(op.operand_types[0], tensor(&[4], Type::Int(1)));
    let op = one("    %v_ret = arith.select %gt_18, %am_12, %am_14 : f32 loc(#loc1)");
    assert_eq!(op.result_types, [f32t()]);
    assert_eq!(op.operand_types, [Type::Int(1), f32t(), f32t()]);
    let op = one("    %c = tt.cat %x_1, %g : tensor<4xf32> -> tensor<8xf32> loc(#loc1)");
    assert_eq!(op.operand_types.len(), 2);
}

#[test]
fn extern_elementwise_and_other_custom_forms() {
    let op = one("    %y_32 = tt.extern_elementwise %x_8, %cst {libname = \"\", libpath = \"\", pure = true, symbol = \"__nv_powif\"} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32> loc(#loc1)");
    assert_eq!(op.attr("symbol").and_then(Attr::as_str), Some("__nv_powif"));
    assert_eq!(op.attr("pure"), Some(&Attr::Scalar(Scalar::Bool(true))));
    assert_eq!(op.operand_types[1], tensor(&[4], Type::Int(32)));
    // From misc.ttir.
    let op = one("    %4 = tt.atomic_rmw fadd, acq_rel, gpu, %2, %3, %cst : (tensor<8x!tt.ptr<f32>>, tensor<8xf32>, tensor<8xi1>) -> tensor<8xf32> loc(#loc1)");
    assert_eq!(
        op.attr("atomic_rmw_op").and_then(Attr::as_str),
        Some("fadd")
    );
    assert_eq!(op.attr("scope").and_then(Attr::as_str), Some("gpu"));
    assert_eq!(op.operands, ["2", "3", "cst"]);
    let op = one("    tt.print \" x: \" {hex = false, isSigned = array<i32: 0>} : %x_8 : tensor<8xf32> loc(#loc1)");
    assert_eq!(op.attr("prefix").and_then(Attr::as_str), Some(" x: "));
    assert_eq!(op.operands, ["x_8"]);
    let op = one("    %r = tt.elementwise_inline_asm \"mov.b32 $0, $1;\" {constraints = \"=r,r\", packed_element = 1 : i32, pure = true} %c_9 : tensor<8xf32> -> tensor<8xf32> loc(#loc1)");
    assert_eq!(op.operands, ["c_9"]);
    assert_eq!(
        op.attr("asm_string").and_then(Attr::as_str),
        Some("mov.b32 $0, $1;")
    );
    let op = one("    %g = tt.gather %x_1[%i_3] {axis = 0 : i32} : (tensor<4xf32>, tensor<4xi32>) -> tensor<4xf32> loc(#loc1)");
    assert_eq!(op.operands, ["x_1", "i_3"]);
    let op =
        one("    %c_9 = tt.clampf %x_8, %c_5, %c, propagateNan = none : tensor<8xf32> loc(#loc1)");
    assert_eq!(op.operands.len(), 3);
    assert_eq!(op.attr("propagateNan").and_then(Attr::as_str), Some("none"));
    // An op the parser has no rule for is still read generically.
    let op = one("    %0 = foo.bar baz, %a, %b {k = 2 : i32} : f32 loc(#loc1)");
    assert_eq!(op.name, "foo.bar");
    assert_eq!(op.attr("kw0").and_then(Attr::as_str), Some("baz"));
    assert_eq!(op.attr("k"), Some(&Attr::Int(2)));
}

#[test]
fn reduce_with_two_results_and_callsite_locations() {
    let m = sample("rowred");
    let op = find(&m, "tt.reduce", "am#0");
    assert_eq!(op.results, ["am#0", "am#1"]);
    assert_eq!(op.operands, ["x_9", "cols"]);
    assert_eq!(op.attr("axis"), Some(&Attr::Int(0)));
    assert_eq!(op.result_types, [f32t(), Type::Int(32)]);
    let body = &op.regions[0].blocks[0];
    assert_eq!(body.label.as_deref(), Some("bb0"));
    assert_eq!(body.args.len(), 4);
    assert_eq!(body.args[1].ty, Type::Int(32));
    let ret = body.ops.last().unwrap();
    assert_eq!(ret.name, "tt.reduce.return");
    assert_eq!(ret.operands, ["v_ret", "i_ret"]);
    assert_eq!(ret.operand_types, [f32t(), Type::Int(32)]);
    // callsite(std lib at callsite(... at "am"(gen.py:41))): the user's line is kept.
    let tie = body.ops.first().unwrap();
    assert_eq!(tie.loc.file.as_deref(), Some("/tmp/ttgen/gen.py"));
    assert_eq!(tie.loc.line, 41);
    assert_eq!(tie.loc.name.as_deref(), Some("am"));
    let store = ops_of(&m)
        .into_iter()
        .find(|o| o.name == "tt.store" && o.operands.iter().any(|x| x == "am#1"))
        .unwrap();
    assert_eq!(store.operands, ["5", "am#1"]);
    let scan = find(&m, "tt.scan", "cs");
    assert_eq!(
        scan.attr("reverse"),
        Some(&Attr::Scalar(Scalar::Bool(false)))
    );
    assert_eq!(scan.result_types, [tensor(&[8], f32t())]);
}

#[test]
fn scf_for_with_iter_args() {
    let m = sample("mm");
    let op = find(&m, "scf.for", "acc");
    assert_eq!(op.operands, ["c0_i32", "K", "c16_i32", "cst"]);
    assert_eq!(op.result_types, [tensor(&[16, 16], f32t())]);
    let entry = &op.regions[0].blocks[0];
    assert_eq!(entry.label, None);
    let names: Vec<_> = entry.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["k", "acc_5"]);
    assert_eq!(entry.args[0].ty, Type::Int(32));
    assert_eq!(entry.ops.last().unwrap().name, "scf.yield");
    // `} loc(#loc40)`, #loc40 = "acc"(#loc1), #loc1 = gen.py:65:5
    assert_eq!(op.loc.line, 65);
    assert_eq!(op.loc.name.as_deref(), Some("acc"));
}

#[test]
fn scf_if_while_and_for_without_iter_args() {
    let m = sample("ctrl");
    let op = find(&m, "scf.if", "1");
    assert_eq!(op.operands, ["0"]);
    assert_eq!(op.result_types, [f32t()]);
    assert_eq!(op.regions.len(), 2);
    assert_eq!(
        op.regions[1].blocks[0].ops.last().unwrap().name,
        "scf.yield"
    );
    let w = find(&m, "scf.while", "i#0");
    assert_eq!(w.results, ["i#0", "i#1"]);
    assert_eq!(w.operands, ["1", "c0_i32"]);
    assert_eq!(w.result_types, [f32t(), Type::Int(32)]);
    let before = &w.regions[0].blocks[0];
    let names: Vec<_> = before.args.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["r_2", "i_3"]);
    let cond = before.ops.last().unwrap();
    assert_eq!(cond.name, "scf.condition");
    assert_eq!(cond.operands, ["2", "r_2", "i_3"]);
    assert_eq!(cond.operand_types, [Type::Int(1), f32t(), Type::Int(32)]);
    let after = &w.regions[1].blocks[0];
    assert_eq!(after.label.as_deref(), Some("bb0"));
    assert_eq!(after.args[1].loc.name.as_deref(), Some("i"));
    let f = find(&m, "scf.for", "r");
    assert_eq!(f.operands, ["c0_i32", "n", "c1_i32", "i#0"]);
}

#[test]
fn branches_calls_and_private_functions() {
    let m = sample("calls");
    assert_eq!(m.funcs.len(), 2);
    let main = m.entry().unwrap();
    assert_eq!(main.name, "calls");
    // The entry block carries the function's arguments, as in MLIR.
    assert_eq!(main.body.blocks[0].args, main.args);
    assert_eq!(main.args[2].name, "n");
    assert_eq!(main.body.blocks.len(), 3);
    assert_eq!(main.body.blocks[1].label.as_deref(), Some("bb1"));
    let br = main.body.blocks[0].ops.last().unwrap();
    assert_eq!(br.name, "cf.cond_br");
    assert_eq!(br.operands, ["1"]);
    let labels: Vec<_> = br.successors.iter().map(|s| s.label.as_str()).collect();
    assert_eq!(labels, ["bb1", "bb2"]);
    let call = find(&m, "tt.call", "y");
    assert_eq!(
        call.attr("callee").and_then(Attr::as_str),
        Some("__main__.helper__fp32_fp32")
    );
    assert_eq!(call.operands, ["x_0", "x_0"]);
    assert_eq!(call.result_types, [f32t()]);
    let helper = m.func("__main__.helper__fp32_fp32").unwrap();
    assert!(!helper.public);
    assert_eq!(helper.result_types, [f32t()]);
    assert_eq!(helper.args[0].loc.name.as_deref(), Some("x"));
    let ret = helper.body.blocks[0].ops.last().unwrap();
    assert_eq!(
        (ret.name.as_str(), ret.operands.as_slice()),
        ("tt.return", &["1".to_string()][..])
    );
}

#[test]
fn branch_with_arguments() {
    // MLIR's printed form of cf.br / cf.cond_br with block arguments.
    let src = "module {\n  tt.func public @k(%c: i1, %x: f32) {\n    cf.cond_br %c, ^bb1(%x : f32), ^bb2\n  ^bb1(%a: f32):\n    cf.br ^bb2\n  ^bb2:\n    tt.return\n  }\n}\n";
    let m = parse(src).unwrap();
    let b = &m.funcs[0].body.blocks;
    assert_eq!(b.len(), 3);
    assert_eq!(
        b[0].ops[0].successors[0],
        Successor {
            label: "bb1".into(),
            args: vec!["x".into()]
        }
    );
    assert_eq!(b[1].args[0].name, "a");
    assert_eq!(b[1].ops[0].successors[0].label, "bb2");
    assert_eq!(b[2].ops[0].name, "tt.return");
}

#[test]
fn location_forms() {
    let src = "module {\n  tt.func @k() {\n\
        tt.return loc(fused[\"a.py\":1:2, \"b.py\":3:4])\n  } loc(callsite(unknown at \"u.py\":9:1))\n} loc(unknown)\n";
    let m = parse(src).unwrap();
    let f = &m.funcs[0];
    assert_eq!(f.loc.file.as_deref(), Some("u.py"));
    assert_eq!(f.loc.line, 9);
    let r = &f.body.blocks[0].ops[0];
    assert_eq!(
        (r.loc.file.as_deref(), r.loc.line, r.loc.col),
        (Some("a.py"), 1, 2)
    );
}

#[test]
fn errors_name_position_and_expectation() {
    let e = parse("module {\n  tt.func @k() {\n    %0 = arith.addf %a, %b loc(unknown)\n  }\n}")
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "3:28: expected ':' and the result type after the operands of arith.addf (line 3), found 'loc'"
    );
    let e = parse("module {\n  tt.func @k() {\n    tt.return loc(#loc7)\n  }\n}").unwrap_err();
    assert_eq!((e.line, e.col), (3, 15));
    assert!(e.message.contains("#loc7"), "{e}");
    let e = parse("module {\n  tt.func @k( {\n").unwrap_err();
    assert_eq!(e.line, 2);
    let e = parse("module {\n  tt.func @k() {\n    %1 = scf.for %i = %a too %b step %c : i32 {\n")
        .unwrap_err();
    assert!(
        e.to_string().starts_with("3:26: expected 'to' in scf.for"),
        "{e}"
    );
    let e = parse("#loc1 = loc(#loc2)\n#loc2 = loc(#loc1)\nmodule {\n tt.func @k() {\n tt.return loc(#loc1)\n }\n}").unwrap_err();
    assert!(e.message.contains("cycle"), "{e}");
    let e = parse(
        "module {\n  tt.func @k() {\n    %0 = arith.constant dense<[1, 2]> : tensor<4xi32>\n  }\n}",
    )
    .unwrap_err();
    assert!(e.message.contains("2 elements"), "{e}");
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    let depth = MAX_REGION_DEPTH as usize + 10;
    let mut s = String::from("module {\n tt.func @k(%c: i1) {\n");
    for _ in 0..depth {
        s.push_str("scf.if %c {\n");
    }
    for _ in 0..depth {
        s.push_str("}\n");
    }
    s.push_str("tt.return\n }\n}\n");
    let e = parse(&s).unwrap_err();
    assert!(e.message.contains("nested deeper"), "{e}");
    // Within the cap it parses.
    let mut s = String::from("module {\n tt.func @k(%c: i1) {\n");
    for _ in 0..40 {
        s.push_str("scf.if %c {\n");
    }
    for _ in 0..40 {
        s.push_str("}\n");
    }
    s.push_str("tt.return\n }\n}\n");
    parse(&s).unwrap();
    // Deep brackets in types, attributes and locations.
    let s = format!(
        "module {{ tt.func @k() {{ tt.return loc({}\"a\":1:1{}) }} }}",
        "\"n\"(".repeat(10_000),
        ")".repeat(10_000)
    );
    assert!(parse(&s).is_err());
    let s = format!(
        "module attributes {{k = {}1{}}} {{ }}",
        "[".repeat(10_000),
        "]".repeat(10_000)
    );
    let _ = parse(&s);
    let s = format!(
        "module {{ tt.func @k(%a: {}f32{}) {{ }} }}",
        "!tt.ptr<".repeat(10_000),
        ">".repeat(10_000)
    );
    assert!(parse(&s).is_err());
}
