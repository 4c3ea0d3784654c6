//! Unit tests of launch parsing, size expressions and instantiation.

use super::*;
use std::collections::BTreeMap;

fn eval(text: &str, sizes: &[(&str, i64)]) -> Result<i64, String> {
    let sizes = sizes.iter().map(|(k, v)| (k.to_string(), *v)).collect();
    Expr::parse(text)?.eval(&sizes)
}

#[test]
fn expressions_follow_python_integer_semantics() {
    assert_eq!(eval("cdiv(N, 4)", &[("N", 9)]), Ok(3));
    assert_eq!(eval("cdiv(N, 4)", &[("N", 8)]), Ok(2));
    assert_eq!(eval("M * N + 1", &[("M", 3), ("N", 4)]), Ok(13));
    assert_eq!(eval("(M + 1) * 2", &[("M", 3)]), Ok(8));
    assert_eq!(eval("-7 // 2", &[]), Ok(-4));
    assert_eq!(eval("-7 % 2", &[]), Ok(1));
    assert_eq!(eval("min(N, 4) - max(1, 2)", &[("N", 9)]), Ok(2));
}

#[test]
fn bad_expressions_say_what_is_wrong() {
    assert!(eval("N +", &[("N", 1)])
        .unwrap_err()
        .contains("ends too early"));
    assert!(eval("K", &[("N", 1)])
        .unwrap_err()
        .contains("unknown size 'K'"));
    assert!(eval("N / 2", &[("N", 1)])
        .unwrap_err()
        .contains("unexpected character '/'"));
    assert!(eval("N // 0", &[("N", 1)])
        .unwrap_err()
        .contains("division by zero"));
}

#[test]
fn launch_instantiates_tensors_and_ints() {
    let l = Launch::parse(
        r#"
grid = ["M"]
sizes = { M = 3, N = 4 }
[args]
y_ptr = { tensor = "y", shape = ["M", "N"], role = "out" }
x_ptr = { tensor = "x", shape = ["M", "N"] }
n_cols = "N"
eps = { scalar = "eps" }
alpha = { value = 0.5 }
"#,
        "t.toml",
    )
    .unwrap();
    let inst = l
        .instantiate(&[("N".to_string(), 5)].into_iter().collect())
        .unwrap();
    assert_eq!(inst.grid, [3, 1, 1]);
    assert_eq!(inst.args["n_cols"], ArgValue::Int(5));
    assert_eq!(inst.args["alpha"], ArgValue::Value(0.5));
    assert_eq!(inst.args["eps"], ArgValue::Scalar("eps".into()));
    let ArgValue::Tensor(y) = inst.args["y_ptr"] else {
        panic!("y_ptr is not a tensor")
    };
    assert_eq!(inst.tensors[y].shape, vec![3, 5]);
    assert_eq!(inst.tensors[y].role, Role::Out);
    assert_eq!(inst.tensors[y].unravel(7), vec![1, 2]);
}

#[test]
fn tensors_have_a_dtype_float32_by_default() {
    let text = r#"
        sizes = { N = 3 }
        [args]
        x = { tensor = "x", shape = ["N"] }
        y = { tensor = "y", shape = ["N"], role = "out", dtype = "int64" }
        m = { tensor = "m", shape = ["N"], dtype = "bool" }
        h = { tensor = "h", shape = ["N"], dtype = "f16" }
    "#;
    let inst = Launch::parse(text, "t.toml")
        .unwrap()
        .instantiate(&BTreeMap::new())
        .unwrap();
    let dtype = |n: &str| inst.tensors.iter().find(|t| t.name == n).unwrap().dtype;
    assert_eq!(dtype("x"), Dtype::F32);
    assert_eq!(dtype("y"), Dtype::I64);
    assert_eq!(dtype("m"), Dtype::Bool);
    assert_eq!(dtype("h"), Dtype::F16);
    assert_eq!(
        (Dtype::I64.bytes(), Dtype::Bool.bytes(), Dtype::F16.bytes()),
        (8, 1, 2)
    );
    assert_eq!(Dtype::Bool.int_range(), Some((0, 1)));
    assert_eq!(Dtype::I8.int_range(), Some((-128, 127)));
    assert_eq!(Dtype::U16.int_range(), Some((0, 65535)));
    assert_eq!(Dtype::F64.int_range(), None);
    assert_eq!(inst.npy_dtype("y"), "int64");
    assert_eq!(inst.npy_dtype("m"), "bool");
    assert_eq!(inst.npy_dtype("x"), "float64");
    for d in Dtype::ALL {
        assert_eq!(Dtype::parse(d.name()), Some(d));
    }
}

#[test]
fn integer_inputs_declare_their_values() {
    let text = r#"
        sizes = { N = 4 }
        [args]
        t = { tensor = "t", shape = [3], dtype = "int64", values = ["0..N", -100] }
        u = { tensor = "u", shape = [3], dtype = "i32", values = "1..=N - 2" }
        v = { tensor = "v", shape = [3], dtype = "i32" }
    "#;
    let inst = Launch::parse(text, "t.toml")
        .unwrap()
        .instantiate(&BTreeMap::from([("N".to_string(), 5)]))
        .unwrap();
    let decl = |n: &str| inst.tensors.iter().find(|t| t.name == n).unwrap().clone();
    assert_eq!(decl("t").values, Some(vec![-100, 0, 1, 2, 3, 4]));
    assert_eq!(decl("u").values, Some(vec![1, 2, 3]));
    assert_eq!(decl("v").values, None);
    // Points become the nearest declared value (ties to the smaller).
    let t = decl("t");
    assert_eq!(
        [-1000.0, -51.0, -49.0, 2.5, 2.6, 99.0].map(|v| t.fit(v)),
        [-100.0, -100.0, 0.0, 2.0, 3.0, 4.0]
    );
    assert_eq!(decl("v").fit(2.6), 3.0);
}

#[test]
fn bad_values_are_errors_naming_the_tensor() {
    for (args, want) in [
        (
            r#"x = { tensor = "x", shape = [2], values = "0..2" }"#,
            "integer dtype",
        ),
        (
            r#"x = { tensor = "x", shape = [2], dtype = "u8", values = "-1..2" }"#,
            "-1 is not a value of uint8",
        ),
        (
            r#"x = { tensor = "x", shape = [2], dtype = "i64", values = "2..2" }"#,
            "no value",
        ),
        (
            r#"x = { tensor = "x", shape = [2], dtype = "i64", role = "out", values = "0..2" }"#,
            "output",
        ),
        (
            r#"x = { tensor = "x", shape = [2], dtype = "i64", values = "0..M" }"#,
            "M",
        ),
    ] {
        let text = format!("[args]\n{args}\n");
        let e = Launch::parse(&text, "t.toml")
            .and_then(|l| l.instantiate(&BTreeMap::new()))
            .unwrap_err()
            .to_string();
        assert!(e.contains("values of x") || e.contains("values"), "{e}");
        assert!(e.contains(want), "{args}: {e}");
    }
}

#[test]
fn bad_dtypes_are_errors_naming_the_argument() {
    let text = r#"
        [args]
        y = { tensor = "y", shape = [2], dtype = "int128" }
    "#;
    let e = Launch::parse(text, "t.toml").unwrap_err().to_string();
    assert!(
        e.contains("t.toml") && e.contains("args.y") && e.contains("int128"),
        "{e}"
    );
    // One tensor bound twice with two dtypes.
    let text = r#"
        [args]
        a = { tensor = "y", shape = [2], dtype = "int32" }
        b = { tensor = "y", shape = [2], dtype = "int64" }
    "#;
    let e = Launch::parse(text, "t.toml")
        .unwrap()
        .instantiate(&BTreeMap::new())
        .unwrap_err()
        .to_string();
    assert!(e.contains("dtypes"), "{e}");
}

#[test]
fn unknown_keys_are_rejected_with_the_file_name() {
    let e = Launch::parse("grd = [1]", "k.launch.toml").unwrap_err();
    assert!(e.to_string().starts_with("k.launch.toml:"), "{e}");
    assert!(e.to_string().contains("grd"), "{e}");
}

/// A tensor map passed by value binds its parameter to the mapped tensor (an input)
/// and keeps its box and swizzle; a box of the wrong rank or a swizzle TMA has not are
/// errors naming the file and the argument.
#[test]
fn a_tensor_map_binds_its_tensor_box_and_swizzle() {
    let text = "grid = [1]\nsizes = { M = 64, K = 128 }\n[args]\n\
                param_0 = { tensormap = { tensor = \"A\", shape = [\"M\", \"K\"], dtype = \"float16\", box = [64, 32], swizzle = 64 } }\n";
    let inst = Launch::parse(text, "t.launch.toml")
        .unwrap()
        .instantiate(&BTreeMap::new())
        .unwrap();
    assert_eq!(inst.args["param_0"], ArgValue::Tensor(0));
    assert_eq!(inst.tensors[0].shape, vec![64, 128]);
    assert_eq!(inst.tensors[0].role, Role::In);
    assert_eq!(inst.tensors[0].dtype.name(), "float16");
    assert_eq!(
        inst.tensormaps["param_0"],
        TensorMapBox {
            box_dim: vec![64, 32],
            swizzle: 64
        }
    );
    let bad_rank = text.replace("box = [64, 32]", "box = [64]");
    let e = Launch::parse(&bad_rank, "t.launch.toml").unwrap_err();
    assert!(
        e.to_string()
            .starts_with("t.launch.toml: args.param_0.tensormap: `box` has 1 entries"),
        "{e}"
    );
    let bad_swizzle = text.replace("swizzle = 64", "swizzle = 48");
    let e = Launch::parse(&bad_swizzle, "t.launch.toml").unwrap_err();
    assert!(
        e.to_string()
            .contains("swizzle = 48 (0, 32, 64 or 128 bytes)"),
        "{e}"
    );
}
