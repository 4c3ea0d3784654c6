//! Programs (outputs and temporaries) and error messages.

use super::*;

// ---- programs: outputs, temporaries, statements --------------------------------------

#[test]
fn outputs_are_assigned_names_except_underscored_temporaries() {
    let x = A::input("x", &[3]);
    let r = run(
        "_h = x * 2; y = _h + 1\n# a comment\nz = y * y\n",
        &[("x", &[3])],
    );
    assert_eq!(names(&r), ["y", "z"]);
    assert_close("y", &r.output(0), &x.map(|v| 2.0 * v + 1.0));
    assert_close("z", &r.output(1), &x.map(|v| (2.0 * v + 1.0).powi(2)));
    // Rebinding keeps the first position and the last value.
    let r = run("y = x; z = -y; y = y + 1", &[("x", &[3])]);
    assert_eq!(names(&r), ["y", "z"]);
    assert_close("y", &r.output(0), &x.map(|v| v + 1.0));
    assert_eq!(torch::parse("a, _ = x.chunk(2)").unwrap().outputs, ["a"]);
    // Targets in parentheses: the spec's first character is an operator (the lexer's
    // look-ahead must start at column 1).
    assert_eq!(
        torch::parse("(a, b) = x.chunk(2)").unwrap().outputs,
        ["a", "b"]
    );
    // A number assigned to an output is a 0-d tensor.
    let r = run("y = 3", &[]);
    assert_eq!(r.out[0].shape, Vec::<usize>::new());
    // Input elements are exactly `terms.input(name, index)`, params `terms.param`.
    let mut r = run("y = x + eps", &[("x", &[3])]);
    let x1 = r.terms.input("x", &[1]);
    let eps = r.terms.param("eps");
    let want = r.terms.add(x1, eps);
    assert_eq!(r.out[0].elems[1], want);
}

// ---- errors ------------------------------------------------------------------------------

#[test]
fn error_messages_name_the_op_the_argument_and_the_shapes() {
    let t: &[(&str, &[usize])] = &[("x", &[2, 3]), ("y", &[4]), ("a", &[2, 3]), ("b", &[4, 5])];
    let cases: &[(&str, usize, &[&str])] = &[
        ("y = torch.foo(x)", 11, &["unknown function `torch.foo`", "softmax", "layer_norm"]),
        ("z = x.frobnicate()", 17, &["unknown method `.frobnicate`", "supported ops"]),
        ("z = F.nll_loss(x, x)", 15, &["nll_loss: expects input [N, C] and target [N] (class indices)"]),
        ("z = torch.softmax(x, -1, None, 3)", 18, &["softmax: takes at most 3 positional arguments (4 given)"]),
        ("z = torch.softmax(x, dimm=-1)", 18, &["softmax: unexpected keyword argument `dimm`", "input, dim, dtype"]),
        ("z = torch.softmax(x)", 18, &["softmax: missing required argument `dim`"]),
        ("z = torch.softmax(x, dim=-1, dim=0)", 18, &["softmax: got multiple values for argument `dim`"]),
        ("z = x + y", 7, &["add: shapes [2, 3] and [4] cannot be broadcast together"]),
        ("z = torch.maximum(x, y)", 18, &["maximum: shapes [2, 3] and [4]"]),
        ("z = torch.where(x > 0, x, y)", 16, &["where: shapes [2, 3], [2, 3] and [4]"]),
        ("c = a @ b", 7, &["shapes [2, 3] and [4, 5] cannot be multiplied (3 != 4)"]),
        ("c = torch.mm(a, y)", 13, &["mm: expects two 2-D tensors, got shapes [2, 3] and [4]"]),
        ("z = torch.sum(x, dim=3)", 14, &["sum: dimension 3 is out of range", "[2, 3]"]),
        ("z = torch.softmax(x, dim=-3)", 18, &["softmax: dimension -3 is out of range"]),
        ("z = torch.cat([x, b], dim=0)", 14, &["cat: tensors must have the same shape except in dimension 0, got [2, 3] and [4, 5]"]),
        ("z = F.layer_norm(x, (4,))", 17, &["layer_norm: normalized_shape [4] does not match the trailing dims of input shape [2, 3]"]),
        ("z = F.layer_norm(x, (3,), y)", 17, &["layer_norm: weight has shape [4] but normalized_shape is [3]"]),
        ("z = x.reshape(4, -1)", 14, &["reshape: shape [4, -1] is invalid for input of shape [2, 3]"]),
        ("z = x ** y", 7, &["the exponent must be a constant"]),
        ("z = F.gelu(x, approximate='fast')", 11, &["gelu: argument `approximate` must be 'none' or 'tanh'"]),
        ("z = torch.softmax(x, dim='a')", 18, &["softmax: argument `dim` must be an int, got the string 'a'"]),
        ("z = torch.exp(q)", 15, &["unknown name `q`", "tensors a, b, x, y", "scalars alpha, eps, half", "sizes N"]),
        ("z = x.max(dim=-1)", 1, &["write `.values`"]),
        ("z = x.max(dim=-1).indices", 19, &["`.indices` of max/min is not supported"]),
        ("z = x[0, 0, 0]", 6, &["too many indices for a tensor of shape [2, 3]: 3"]),
        ("z = x[5]", 6, &["index 5 is out of bounds for dimension 0 with size 2"]),
        ("a, b = x.chunk(3, -1)", 15, &["cannot destructure a tuple of 3 elements into 2 names"]),
    ];
    for (spec, col, parts) in cases {
        let e = match try_run(spec, t, &[("N", 4)], FloatType::F32) {
            Ok(_) => panic!("{spec}: no error"),
            Err(e) => e,
        };
        for p in *parts {
            assert!(e.message.contains(p), "{spec}: `{}` lacks `{p}`", e.message);
        }
        assert_eq!(e.col, *col, "{spec}: {e}");
        assert!(e.to_string().starts_with(&format!("col {col}: ")));
    }
}

#[test]
fn chunk_of_odd_split_error_is_about_count() {
    // x.chunk(3) on a dim of size 2 gives 2 chunks, as in PyTorch.
    let r = run("a, b = x.chunk(3)", &[("x", &[2, 3])]);
    assert_eq!(r.out[0].shape, [1, 3]);
}

#[test]
fn parse_errors_have_columns() {
    let cases: &[(&str, usize, &str)] = &[
        (
            "y = torch.exp(x",
            16,
            "expected `)`, found the end of the spec",
        ),
        ("y = ", 5, "expected an expression"),
        ("y = x $ 2", 7, "unexpected character `$`"),
        ("y x", 3, "expected `=`"),
        ("torch.exp(x)", 6, "expected `=`"),
        ("3 = x", 1, "expected an output name"),
        ("= x", 1, "expected an output name"),
        ("y = x y", 7, "expected `;` or a newline"),
        (
            "y = f(a=1, b)",
            12,
            "positional argument follows keyword argument",
        ),
        ("y = 'abc", 5, "unterminated string"),
        ("y = 1e", 5, "exponent without digits"),
        ("y = a < b < c", 11, "chained comparisons"),
        ("_t = x", 1, "assigns no output"),
        ("", 1, "assigns no output"),
    ];
    for (spec, col, msg) in cases {
        let e = torch::parse(spec)
            .err()
            .unwrap_or_else(|| panic!("{spec}: parsed"));
        assert!(e.message.contains(msg), "{spec}: {e}");
        assert_eq!(e.col, *col, "{spec}: {e}");
    }
}

#[test]
fn supported_ops_all_resolve() {
    let ops = SpecProgram::supported_ops();
    assert!(ops.len() > 80);
    for op in ops {
        // A call with no arguments reaches the op (and fails on its arguments), never
        // "unknown function".
        let spec = format!("y = torch.{op}()");
        match try_run(&spec, &[("x", &[2])], &[], FloatType::F32) {
            Ok(_) => {}
            Err(e) => assert!(!e.message.contains("unknown"), "{spec}: {e}"),
        }
    }
}

#[test]
fn no_panics_on_odd_inputs() {
    let t: &[(&str, &[usize])] = &[("x", &[2, 3]), ("e", &[0]), ("s", &[])];
    for spec in [
        "y = torch.sum(e)",
        "y = torch.amax(e, 0)",
        "y = torch.mean(e)",
        "y = s.sum(0)",
        "y = torch.softmax(s, 0)",
        "y = s.T",
        "y = torch.cat([e, e])",
        "y = x[:, 5:]",
        "y = x[:, 2:1]",
        "y = x.chunk(5, -1)[2]",
        "y = x.reshape(-1, -1)",
        "y = x.permute(0, 0)",
        "y = x.transpose(0, 7)",
        "y = torch.zeros(-1)",
        "y = 9223372036854775807 + 1",
        "y = (-9223372036854775807 - 1) // -1",
        "y = 2 ** 100",
        "y = x ** 4294967296",
        "y = x[::0]",
        "y = x.unsqueeze(5)",
        "y = x.squeeze(4)",
        "y = 1e999999",
        "y = torch.exp",
        "y = x(1)",
        "y = torch.nn",
        "y = torch.stack([])",
        "y = torch.flatten(x, 1, 0)",
        "y = x.expand(1)",
        "y = x.split(0)",
        "y = x @ s",
        "y = torch.bmm(x, x)",
        "y = F.linear(x, s)",
        "y = 1 // 0",
        "y = x.size(5)",
        "y = torch.argmax(e)",
        "y = torch.argmin(e, 0)",
        "y = torch.argmax(s, 0)",
        "y = torch.cumsum(e, 0)",
        "y = torch.cumprod(s, 0)",
        "y = torch.flip(e, [0])",
        "y = torch.diag(e)",
        "y = torch.diag(x, -9223372036854775807)",
        "y = torch.diag(s, 9223372036854775807)",
        "y = torch.tril(e)",
        "y = torch.norm(e)",
        "y = torch.linalg.vector_norm(s, ord=math.inf)",
        "y = F.max_pool1d(x, 0)",
        "y = F.max_pool1d(x, 9223372036854775807)",
        "y = F.max_pool1d(x, 2, dilation=4611686018427387904)",
        "y = F.avg_pool1d(x, 1, -1)",
        "y = F.avg_pool2d(x, 1)",
        "y = F.avg_pool2d(x.unsqueeze(0), 1, divisor_override=0)",
        "y = F.max_pool2d(e, 1)",
        "y = F.conv1d(x, e)",
        "y = F.conv1d(x, x.unsqueeze(0), groups=0)",
        "y = F.conv1d(x, x.unsqueeze(0), stride=-1)",
        "y = F.conv2d(x.unsqueeze(0), x.unsqueeze(0).unsqueeze(0), padding='same', stride=2)",
        "y = F.mse_loss(x, e)",
        "y = F.kl_div(s, s, reduction='batchmean')",
        "y = F.cosine_similarity(s, s)",
        "y = F.triplet_margin_loss(s, s, s)",
        "y = F.smooth_l1_loss(x, x, beta=eps)",
        "y = math.sqrt(x)",
        "y = math.pi()",
    ] {
        let _ = try_run(spec, t, &[], FloatType::F32);
    }
}
