//! The formula language on its own: shapes and their errors, instantiation to exactly the
//! terms the kernels and specs use, and the renderers' conventions (precedence,
//! constants, keepdim, Python forms, JSON schema).

use lift::formula::{Formula, Output, ShapeEnv};
use lift::render;
use lift::term::{CmpOp, Node, Terms};

fn x() -> Formula {
    Formula::input("x")
}
fn w() -> Formula {
    Formula::input("w")
}

fn env() -> ShapeEnv {
    ShapeEnv::new()
        .named_tensor("x", &[("M", 3), ("N", 4)])
        .named_tensor("w", &[("N", 4)])
        .tensor("b3", &[2, 3, 4])
        .tensor("v", &[4])
        .scalar("eps")
}

fn text(f: &Formula) -> String {
    render::text::expr(f)
}

#[test]
fn shapes_broadcast_reduce_and_multiply() {
    let e = env();
    assert_eq!(x().shape(&e).unwrap(), vec![3, 4]);
    assert_eq!((x() * w()).shape(&e).unwrap(), vec![3, 4]);
    assert_eq!((x() - x().max(1, true)).shape(&e).unwrap(), vec![3, 4]);
    assert_eq!(x().sum(1, false).shape(&e).unwrap(), vec![3]);
    assert_eq!(x().sum(0, true).shape(&e).unwrap(), vec![1, 4]);
    assert_eq!(
        (Formula::scalar("eps") + Formula::int(1))
            .shape(&e)
            .unwrap(),
        Vec::<usize>::new()
    );
    assert_eq!(x().matmul(x().t()).shape(&e).unwrap(), vec![3, 3]);
    assert_eq!(x().matmul(Formula::input("v")).shape(&e).unwrap(), vec![3]);
    assert_eq!(
        Formula::input("v").matmul(x().t()).shape(&e).unwrap(),
        vec![3]
    );
    assert_eq!(
        Formula::input("v")
            .matmul(Formula::input("v"))
            .shape(&e)
            .unwrap(),
        Vec::<usize>::new()
    );
    assert_eq!(
        Formula::input("b3").matmul(x().t()).shape(&e).unwrap(),
        vec![2, 3, 3]
    );
    assert_eq!(Formula::input("b3").t().shape(&e).unwrap(), vec![2, 4, 3]);
    // Size names follow the axes they come from.
    let d = x().matmul(x().t()).dims(&e).unwrap();
    assert_eq!(d[0].name.as_deref(), Some("M"));
    let d = (x() / x().sum(1, true)).dims(&e).unwrap();
    assert_eq!(
        d.iter()
            .map(|d| d.name.clone().unwrap())
            .collect::<Vec<_>>(),
        ["M", "N"]
    );
}

#[test]
fn shape_errors_say_what_and_where() {
    let e = env();
    let cases = [
        (x() + x().sum(1, false), "do not broadcast"),
        (x().sum(2, false), "axis 2 out of range"),
        (x().matmul(x()), "do not multiply"),
        (Formula::input("v").t(), "at least 2 axes"),
        (Formula::input("nope"), "unknown input tensor `nope`"),
        (Formula::scalar("nope"), "unknown scalar `nope`"),
        (Formula::input("eps"), "is a scalar"),
    ];
    for (f, want) in cases {
        let err = f.shape(&e).unwrap_err().message;
        assert!(err.contains(want), "{f}: {err}");
        let mut terms = Terms::new();
        assert!(f.instantiate(&mut terms, &e).is_err());
    }
    let bad = [Output::new("y", x() + x().sum(1, false))];
    let err = render::text::outputs(&bad, &e).unwrap_err().message;
    assert!(
        err.starts_with("output `y`: shapes [3, 4] and [3]"),
        "{err}"
    );
}

#[test]
fn instantiate_builds_the_shared_terms() {
    let e = env();
    let mut t = Terms::new();
    // Inputs: exactly `terms.input(name, &[i, j])`, row-major.
    let got = x().instantiate(&mut t, &e).unwrap();
    assert_eq!(got.len(), 12);
    assert_eq!(got[6], t.input("x", &[1, 2]));
    // A reduction is one n-ary term per output element.
    let s = x().sum(1, false).instantiate(&mut t, &e).unwrap();
    let row: Vec<_> = (0..4).map(|j| t.input("x", &[2, j])).collect();
    assert_eq!(s[2], t.sum(&row));
    let m = x().max(1, false).instantiate(&mut t, &e).unwrap();
    assert_eq!(m[2], t.maxn(&row));
    // mean = sum * (1/n), with 1/n exact.
    let mean = x().mean(1, false).instantiate(&mut t, &e).unwrap();
    let quarter = t.constant(num_rational::BigRational::new(1.into(), 4.into()));
    let s2 = t.sum(&row);
    assert_eq!(mean[2], t.mul(s2, quarter));
    // Scalars are params; broadcasting repeats the row vector.
    let y = (x() * w() + Formula::scalar("eps"))
        .instantiate(&mut t, &e)
        .unwrap();
    let (x12, w2, eps) = (t.input("x", &[1, 2]), t.input("w", &[2]), t.param("eps"));
    let p = t.mul(x12, w2);
    assert_eq!(y[6], t.add(p, eps));
    // matmul: one sum of products; transpose swaps indices.
    let g = x().matmul(x().t()).instantiate(&mut t, &e).unwrap();
    let prods: Vec<_> = (0..4)
        .map(|k| {
            let (a, b) = (t.input("x", &[0, k]), t.input("x", &[2, k]));
            t.mul(a, b)
        })
        .collect();
    assert_eq!(g[2], t.sum(&prods));
    assert!(matches!(t.node(g[2]), Node::Add(ops) if ops.len() == 4));
    let tr = Formula::input("b3").t().instantiate(&mut t, &e).unwrap();
    assert_eq!(tr[12 + 2 * 3 + 1], t.input("b3", &[1, 1, 2]));
    // Batched matmul broadcasts the 2-D operand over the batch.
    let bm = Formula::input("b3")
        .matmul(x().t())
        .instantiate(&mut t, &e)
        .unwrap();
    let prods: Vec<_> = (0..4)
        .map(|k| {
            let (a, b) = (t.input("b3", &[1, 2, k]), t.input("x", &[0, k]));
            t.mul(a, b)
        })
        .collect();
    assert_eq!(bm[9 + 2 * 3], t.sum(&prods));
    // Vector on both sides.
    let vx = Formula::input("v")
        .matmul(x().t())
        .instantiate(&mut t, &e)
        .unwrap();
    assert_eq!(vx.len(), 3);
    // where / comparisons / unary ops.
    let r = Formula::select(Formula::cmp(CmpOp::Gt, x(), Formula::int(0)), x(), -x())
        .instantiate(&mut t, &e)
        .unwrap();
    let z = t.zero();
    let c = t.cmp(CmpOp::Gt, x12, z);
    let n = t.neg(x12);
    assert_eq!(r[6], t.select(c, x12, n));
}

/// A product met twice in one formula is instantiated once (`formula::instantiate`'s
/// memo): the repeat gives the same elements, and its twins in the same formula (an
/// operand transposed, another operand) are products of their own, built here by hand.
#[test]
fn a_repeated_product_and_its_twins() {
    let e = env();
    let mut t = Terms::new();
    let xxt = || x().matmul(x().t());
    let alone = xxt().instantiate(&mut t, &e).unwrap();
    let squared = (xxt() * xxt()).instantiate(&mut t, &e).unwrap();
    for (k, &s) in squared.iter().enumerate() {
        assert_eq!(s, t.mul(alone[k], alone[k]), "element {k}");
    }
    // `(x @ x.T) @ (x @ w) - x @ ((x.T @ x) @ w)`: four products, none the same.
    let f = xxt().matmul(x().matmul(w())) - x().matmul(x().t().matmul(x()).matmul(w()));
    let got = f.instantiate(&mut t, &e).unwrap();
    let x_ = |t: &mut Terms, i: i64, k: i64| t.input("x", &[i, k]);
    let dot = |t: &mut Terms, pairs: Vec<(lift::term::TermId, lift::term::TermId)>| {
        let prods: Vec<_> = pairs.into_iter().map(|(a, b)| t.mul(a, b)).collect();
        t.sum(&prods)
    };
    let mut g = vec![vec![]; 3]; // x @ x.T
    let mut h = vec![vec![]; 4]; // x.T @ x
    let mut xw = vec![]; // x @ w
    for i in 0..3 {
        for m in 0..3 {
            let p = (0..4)
                .map(|k| (x_(&mut t, i, k), x_(&mut t, m, k)))
                .collect();
            g[i as usize].push(dot(&mut t, p));
        }
        let p = (0..4)
            .map(|k| (x_(&mut t, i, k), t.input("w", &[k])))
            .collect();
        xw.push(dot(&mut t, p));
    }
    for k in 0..4 {
        for l in 0..4 {
            let p = (0..3)
                .map(|m| (x_(&mut t, m, k), x_(&mut t, m, l)))
                .collect();
            h[k as usize].push(dot(&mut t, p));
        }
    }
    let hw: Vec<_> = (0..4)
        .map(|k| {
            let p = (0..4)
                .map(|l| (h[k][l], t.input("w", &[l as i64])))
                .collect();
            dot(&mut t, p)
        })
        .collect();
    for i in 0..3 {
        let p = (0..3).map(|m| (g[i][m], xw[m])).collect();
        let left = dot(&mut t, p);
        let p = (0..4)
            .map(|k| (x_(&mut t, i as i64, k as i64), hw[k]))
            .collect();
        let right = dot(&mut t, p);
        assert_eq!(got[i], t.sub(left, right), "element {i}");
    }
}

#[test]
fn text_parenthesizes_by_precedence_only() {
    let (a, b, c) = (
        Formula::scalar("a"),
        Formula::scalar("b"),
        Formula::scalar("c"),
    );
    assert_eq!(text(&(a.clone() - (b.clone() - c.clone()))), "a - (b - c)");
    assert_eq!(text(&((a.clone() - b.clone()) - c.clone())), "a - b - c");
    assert_eq!(text(&((a.clone() + b.clone()) * c.clone())), "(a + b) * c");
    assert_eq!(text(&(a.clone() / (b.clone() * c.clone()))), "a / (b * c)");
    assert_eq!(text(&(-(a.clone().powi(2)))), "-a^2");
    assert_eq!(text(&(-a.clone()).powi(2)), "(-a)^2");
    assert_eq!(text(&(a.clone() * b.clone()).powi(-1)), "(a * b)^-1");
    assert_eq!(text(&(x() + w()).t()), "(x + w).T");
    assert_eq!(
        text(&Formula::cmp(CmpOp::Le, a.clone() + b.clone(), c.clone())),
        "a + b <= c"
    );
    assert_eq!(text(&a.clone().maximum(b.clone() * c)), "max(a, b * c)");
    assert_eq!(text(&x().matmul(w()).exp()), "exp(x @ w)");
}

#[test]
fn text_prints_keepdim_only_outside_elementwise_operations() {
    assert_eq!(text(&(x() - x().max(1, true))), "x - max(x, axis=1)");
    assert_eq!(text(&x().max(1, true)), "max(x, axis=1, keepdim=True)");
    assert_eq!(text(&x().max(1, false)), "max(x, axis=1)");
    assert_eq!(
        text(&x().mean(1, true).sum(0, false)),
        "sum(mean(x, axis=1, keepdim=True), axis=0)"
    );
}

#[test]
fn constants_print_honestly() {
    let cases = [
        (Formula::int(3), "3", "3"),
        (Formula::int(-2), "-2", "-2"),
        (Formula::ratio(3, 8), "0.375", "0.375"),
        (
            Formula::float(0.044715f32 as f64),
            "0.044715f32",
            "0.044714998453855515",
        ),
        (Formula::float(0.1), "0.1f64", "0.1"),
        (Formula::ratio(1, 3), "1/3", "1 / 3"),
        (Formula::ratio(-1, 3), "-1/3", "-1 / 3"),
    ];
    let e = env();
    for (f, t, py) in cases {
        assert_eq!(text(&f), t);
        assert_eq!(render::numpy::expr(&f, &e), py);
        assert_eq!(render::torch::expr(&f, &e), py);
    }
    // A fraction is a product in precedence: its power is parenthesized.
    assert_eq!(text(&Formula::ratio(1, 3).powi(2)), "(1/3)^2");
    assert_eq!(
        render::numpy::expr(&Formula::ratio(1, 3).powi(2), &e),
        "(1 / 3) ** 2"
    );
    assert_eq!(
        render::latex::expr(&(x() * Formula::ratio(1, 3))),
        "x \\cdot \\frac{1}{3}"
    );
    assert_eq!(
        render::latex::expr(&Formula::float(0.044715f32 as f64)),
        "0.044715"
    );
}

#[test]
fn python_forms() {
    let e = env();
    let np = |f: &Formula| render::numpy::expr(f, &e);
    let th = |f: &Formula| render::torch::expr(f, &e);
    let relu = x().maximum(Formula::int(0));
    assert_eq!(np(&relu), "np.maximum(x, 0)");
    assert_eq!(th(&relu), "torch.clamp(x, min=0)");
    assert_eq!(th(&Formula::int(1).minimum(x())), "torch.clamp(x, max=1)");
    assert_eq!(th(&x().maximum(w())), "torch.maximum(x, w)");
    assert_eq!(
        th(&Formula::scalar("eps").sqrt()),
        "torch.sqrt(torch.as_tensor(eps, dtype=torch.float64))"
    );
    assert_eq!(np(&(-x()).powi(2)), "(-x) ** 2");
    assert_eq!(np(&x().rsqrt().powi(2)), "(1 / np.sqrt(x)) ** 2");
    assert_eq!(np(&x().erf()), "np.vectorize(math.erf)(x)");
    assert_eq!(th(&x().erf()), "torch.erf(x)");
    assert_eq!(np(&x().sum(0, true)), "np.sum(x, axis=0, keepdims=True)");
    assert_eq!(th(&x().max(1, false)), "torch.amax(x, dim=1)");
    assert_eq!(np(&Formula::input("b3").t()), "np.swapaxes(b3, -1, -2)");
    assert_eq!(th(&Formula::input("b3").t()), "b3.transpose(-2, -1)");
    assert_eq!(np(&x().t()), "x.T");
    assert_eq!(
        np(&Formula::select(
            Formula::cmp(CmpOp::Gt, x(), Formula::int(0)),
            x(),
            Formula::int(0)
        )),
        "np.where(x > 0, x, 0)"
    );
    // An output named like an input does not shadow it for later outputs.
    let outs = [
        Output::new("x", x() * Formula::int(2)),
        Output::new("y", x() + Formula::scalar("eps")),
    ];
    let src = render::numpy::function(&outs, &e, "kernel").unwrap();
    assert!(
        src.contains(
            "def kernel(x, eps):\n    x_out = x * 2\n    y = x + eps\n    return x_out, y\n"
        ),
        "{src}"
    );
}

#[test]
fn text_headings_use_size_names() {
    let e = env();
    let outs = [
        Output::new("y", x() / x().sum(1, true)),
        Output::new("s", x().sum(1, true)),
        Output::new("t", Formula::scalar("eps")),
        Output::new("g", Formula::input("b3").sum(0, false)),
    ];
    assert_eq!(
        render::text::outputs(&outs, &e).unwrap(),
        "y[M,N] = x / sum(x, axis=1)\n\
         s[M,1] = sum(x, axis=1, keepdim=True)\n\
         t = eps\n\
         g[3,4] = sum(b3, axis=0)\n"
    );
}

#[test]
fn json_schema() {
    let e = env();
    let outs = [Output::new(
        "y",
        (x() - x().max(1, true)).exp().powi(2) * Formula::scalar("eps"),
    )];
    let doc = render::json::outputs(&outs, &e).unwrap();
    assert_eq!(doc["schema"], "lift.formula/1");
    assert_eq!(doc["inputs"][0]["name"], "x");
    assert_eq!(doc["inputs"][0]["dims"], serde_json::json!(["M", "N"]));
    assert_eq!(doc["scalars"], serde_json::json!(["eps"]));
    let f = &doc["outputs"][0]["formula"];
    assert_eq!(f["op"], "mul");
    assert_eq!(f["shape"], serde_json::json!([3, 4]));
    let pow = &f["args"][0];
    assert_eq!(pow["op"], "pow");
    assert_eq!(pow["exponent"], 2);
    let max = &pow["args"][0]["args"][0]["args"][1];
    assert_eq!(max["op"], "max");
    assert_eq!(max["axis"], 1);
    assert_eq!(max["keepdim"], true);
    assert_eq!(max["shape"], serde_json::json!([3, 1]));
    assert_eq!(
        f["args"][1],
        serde_json::json!({"op": "scalar", "name": "eps", "shape": []})
    );
}

#[test]
fn latex_forms() {
    let l = render::latex::expr;
    assert_eq!(l(&(x().sum(1, false) + Formula::int(1))), "\\sum_{j} x + 1");
    assert_eq!(
        l(&(x().sum(1, false) * w())),
        "\\left(\\sum_{j} x\\right) \\cdot w"
    );
    assert_eq!(l(&(w() * x().sum(1, false))), "w \\cdot \\sum_{j} x");
    assert_eq!(
        l(&(x().sum(1, false).powi(2))),
        "\\left(\\sum_{j} x\\right)^{2}"
    );
    assert_eq!(l(&(x() / w()).exp()), "\\exp\\left(\\frac{x}{w}\\right)");
    assert_eq!(l(&x().matmul(x().t())), "x x^{\\top}");
    assert_eq!(
        l(&Formula::scalar("eps").rsqrt()),
        "\\frac{1}{\\sqrt{\\varepsilon}}"
    );
    assert_eq!(
        l(&Formula::select(
            Formula::cmp(CmpOp::Ge, x(), Formula::int(0)),
            x(),
            -x()
        )),
        "\\begin{cases} x & \\text{if } x \\geq 0 \\\\ -x & \\text{otherwise} \\end{cases}"
    );
}

fn sized_env() -> ShapeEnv {
    ShapeEnv::new()
        .named_tensor("a", &[("N1", 2)])
        .named_tensor("b", &[("N2", 3)])
        .tensor("x", &[2, 6])
        .size("N1", 2)
        .size("N2", 3)
        .size("H", 3)
}

fn h() -> lift::formula::Size {
    lift::formula::Size::Size("H".into())
}

#[test]
fn cat_slice_broadcast_shapes_and_errors() {
    let e = sized_env();
    let (a, b) = (Formula::input("a"), Formula::input("b"));
    let xs = || Formula::input("x");
    assert_eq!(
        Formula::cat(vec![a.clone(), b.clone()], 0)
            .shape(&e)
            .unwrap(),
        vec![5]
    );
    assert_eq!(
        Formula::cat(vec![xs(), xs()], 1).shape(&e).unwrap(),
        vec![2, 12]
    );
    assert_eq!(xs().slice(1, h(), None).shape(&e).unwrap(), vec![2, 3]);
    let lo = xs().slice(1, lift::formula::Size::Int(0), Some(h()));
    assert_eq!(lo.dims(&e).unwrap()[1].name.as_deref(), Some("H"));
    let zeros = Formula::int(0).broadcast_to(vec![lift::formula::Size::Size("N2".into())]);
    assert_eq!(zeros.dims(&e).unwrap()[0].name.as_deref(), Some("N2"));
    // Errors, not panics.
    let bad = [
        (Formula::cat(vec![a.clone(), xs()], 0), "do not concatenate"),
        (
            Formula::cat(vec![xs(), Formula::input("x").t()], 0),
            "do not concatenate",
        ),
        (
            Formula::cat(vec![a.clone(), b.clone()], 1),
            "axis 1 out of range",
        ),
        (Formula::cat(vec![], 0), "no operands"),
        (
            xs().slice(1, h(), Some(lift::formula::Size::Int(7))),
            "out of range",
        ),
        (
            xs().slice(1, lift::formula::Size::Int(4), Some(h())),
            "out of range",
        ),
        (xs().slice(2, h(), None), "axis 2 out of range"),
        (
            xs().slice(1, lift::formula::Size::Size("Q".into()), None),
            "unknown size",
        ),
        (
            xs().broadcast_to(vec![lift::formula::Size::Int(3)]),
            "does not broadcast",
        ),
    ];
    for (f, msg) in bad {
        let err = f.shape(&e).unwrap_err();
        assert!(err.message.contains(msg), "{}: {}", text(&f), err.message);
        let mut terms = Terms::new();
        assert!(f.instantiate(&mut terms, &e).is_err());
    }
}

#[test]
fn cat_slice_broadcast_instantiate_as_computed_directly() {
    let e = sized_env();
    let mut t = Terms::new();
    let got = Formula::cat(vec![Formula::input("a"), Formula::input("b")], 0)
        .instantiate(&mut t, &e)
        .unwrap();
    let mut want: Vec<_> = (0..2).map(|i| t.input("a", &[i])).collect();
    want.extend((0..3).map(|i| t.input("b", &[i])));
    assert_eq!(got, want);
    // Along the last axis of a 2-D operand: x | x[:, H:].
    let xs = Formula::input("x");
    let got = Formula::cat(vec![xs.clone(), xs.clone().slice(1, h(), None)], 1)
        .instantiate(&mut t, &e)
        .unwrap();
    let mut want = Vec::new();
    for i in 0..2 {
        for j in 0..6 {
            want.push(t.input("x", &[i, j]));
        }
        for j in 3..6 {
            want.push(t.input("x", &[i, j]));
        }
    }
    assert_eq!(got, want);
    let got = xs
        .clone()
        .slice(1, lift::formula::Size::Int(1), Some(h()))
        .instantiate(&mut t, &e)
        .unwrap();
    let want: Vec<_> = [(0, 1), (0, 2), (1, 1), (1, 2)]
        .iter()
        .map(|&(i, j)| t.input("x", &[i, j]))
        .collect();
    assert_eq!(got, want);
    let got = Formula::input("a")
        .broadcast_to(vec![
            lift::formula::Size::Int(2),
            lift::formula::Size::Size("N1".into()),
        ])
        .instantiate(&mut t, &e)
        .unwrap();
    let a0 = t.input("a", &[0]);
    let a1 = t.input("a", &[1]);
    assert_eq!(got, vec![a0, a1, a0, a1]);
    // The same formula at other sizes: bounds are size expressions.
    let e2 = sized_env().tensor("x", &[2, 10]).size("H", 5);
    let got = xs.slice(1, h(), None).instantiate(&mut t, &e2).unwrap();
    assert_eq!(got.len(), 10);
    let x05 = t.input("x", &[0, 5]);
    assert_eq!(got[0], x05);
}

#[test]
fn cat_slice_broadcast_render_in_every_form() {
    let e = sized_env();
    let xs = || Formula::input("x");
    let swiglu = xs().slice(1, lift::formula::Size::Int(0), Some(h())) * xs().slice(1, h(), None);
    let cat = Formula::cat(vec![Formula::input("a"), Formula::input("b")], 0);
    let zeros = Formula::int(0).broadcast_to(vec![lift::formula::Size::Size("N2".into())]);
    assert_eq!(text(&swiglu), "x[:, :H] * x[:, H:]");
    assert_eq!(text(&cat), "cat([a, b], axis=0)");
    assert_eq!(text(&zeros), "0");
    assert_eq!(render::numpy::expr(&swiglu, &e), "x[:, :H] * x[:, H:]");
    assert_eq!(
        render::numpy::expr(&cat, &e),
        "np.concatenate([a, b], axis=0)"
    );
    assert_eq!(
        render::numpy::expr(&zeros, &e),
        "np.broadcast_to(np.float64(0), (N2,))"
    );
    assert_eq!(render::torch::expr(&cat, &e), "torch.cat([a, b], dim=0)");
    assert_eq!(
        render::torch::expr(&zeros, &e),
        "torch.broadcast_to(torch.as_tensor(0, dtype=torch.float64), (N2,))"
    );
    let outs = [Output::new("y", zeros.clone())];
    assert_eq!(render::text::outputs(&outs, &e).unwrap(), "y[N2] = 0\n");
    let src = render::numpy::function(&outs, &e, "kernel").unwrap();
    assert!(src.contains("def kernel(N2=3):\n"), "{src}");
    let src = render::torch::function(&[Output::new("y", swiglu.clone())], &e, "kernel").unwrap();
    assert!(src.contains("def kernel(x, H=3):\n"), "{src}");
    assert_eq!(
        render::latex::expr(&swiglu),
        "x_{[:,\\, :H]} \\cdot x_{[:,\\, H:]}"
    );
    assert_eq!(
        render::latex::expr(&cat),
        "\\operatorname{cat}_{i}\\left(a, b\\right)"
    );
    assert_eq!(render::latex::expr(&zeros), "0");
    let j = render::json::expr(&swiglu, &e).unwrap();
    assert_eq!(j["args"][1]["op"], "slice");
    assert_eq!(j["args"][1]["start"], "H");
    assert_eq!(j["args"][1]["end"], serde_json::Value::Null);
    let j = render::json::expr(&zeros, &e).unwrap();
    assert_eq!(j["op"], "broadcast");
    assert_eq!(j["to"][0], "N2");
    assert_eq!(j["shape"][0], 3);
    assert_eq!(render::json::expr(&cat, &e).unwrap()["op"], "cat");
}

/// A unit axis inserted into a formula reaches the reduction that removed that axis
/// (how synthesis reuses an earlier output, `rstd[M]`, as the `[M, 1]` factor of `y`):
/// the same elements, in the same order, under the new shape.
#[test]
fn unit_axes_push_down_to_the_reduction() {
    let e = env();
    let mut t = Terms::new();
    let rstd = Formula::unary(
        lift::formula::UnaryOp::Rsqrt,
        x().mean(1, false) + Formula::scalar("eps"),
    );
    let kept = rstd.with_unit_axis(1, &e).expect("pushed into the mean");
    assert_eq!(
        render::numpy::expr(&kept, &e),
        "1 / np.sqrt(np.mean(x, axis=1, keepdims=True) + eps)"
    );
    assert_eq!(kept.shape(&e).unwrap(), vec![3, 1]);
    assert_eq!(
        kept.instantiate(&mut t, &e).unwrap(),
        rstd.instantiate(&mut t, &e).unwrap()
    );
    // Over axis 0 the new axis goes first.
    let col = x().sum(0, false) * w();
    let kept = col.with_unit_axis(0, &e).expect("pushed into the sum");
    assert_eq!(kept.shape(&e).unwrap(), vec![1, 4]);
    assert_eq!(
        kept.instantiate(&mut t, &e).unwrap(),
        col.instantiate(&mut t, &e).unwrap()
    );
    // Both operands at full rank: each takes the axis.
    let both = x().sum(0, false) + x().max(0, false);
    let kept = both.with_unit_axis(0, &e).expect("pushed into both");
    assert_eq!(kept.shape(&e).unwrap(), vec![1, 4]);
    // No reduction removed that axis: nothing to push into.
    assert_eq!(x().sum(0, false).with_unit_axis(1, &e), None);
    assert_eq!(w().with_unit_axis(0, &e), None);
}

/// `(a / r) @ b` with `r` a row reduction kept as a unit axis is `(a @ b) / r` (the
/// form flash attention computes): the rewrite's terms are decide-equal to the
/// original's at an instance, also batch by batch, and it leaves alone a vector right
/// operand, where dividing the product by `r` would broadcast to the wrong shape.
#[test]
fn divisors_come_out_of_matrix_products_only_for_matrices() {
    use lift::decide::{self, Verdict};
    let e = ShapeEnv::new()
        .named_tensor("s", &[("M", 3), ("N", 4)])
        .named_tensor("v", &[("N", 4), ("D", 2)])
        .named_tensor("u", &[("N", 4)]);
    let p = Formula::input("s").exp();
    let softmax = Formula::binary(
        lift::formula::BinaryOp::Div,
        p.clone(),
        p.clone().sum(1, true),
    );
    let f = softmax.clone().matmul(Formula::input("v"));
    let g = f.clone().divisors_out_of_matmuls(&e);
    assert_ne!(g, f, "the row sum comes out of the product");
    assert_eq!(text(&g), "(exp(s) @ v) / sum(exp(s), axis=1)");
    let mut t = Terms::new();
    let a = f.instantiate(&mut t, &e).unwrap();
    let b = g.instantiate(&mut t, &e).unwrap();
    assert_eq!(a.len(), 6);
    let pairs: Vec<_> = a.into_iter().zip(b).collect();
    let verdicts = decide::decide_all(&t, &pairs, &decide::Options::default());
    assert!(verdicts.iter().all(|v| matches!(v, Verdict::Equal { .. })));
    // A vector on the right: `(a @ u) / r` would broadcast [M] against [M, 1].
    let f = softmax.clone().matmul(Formula::input("u"));
    assert_eq!(f.clone().divisors_out_of_matmuls(&e), f);
    // A divisor that is no row reduction stays inside.
    let f = Formula::binary(
        lift::formula::BinaryOp::Div,
        p.clone(),
        p.clone().sum(0, true),
    )
    .matmul(Formula::input("v"));
    assert_eq!(f.clone().divisors_out_of_matmuls(&e), f);
    // Batched: a batch of row sums divides a batch of products (causal attention over
    // heads), and a reduction over the batch axis stays inside.
    let e = ShapeEnv::new()
        .named_tensor("s", &[("B", 2), ("M", 3), ("N", 4)])
        .named_tensor("v", &[("B", 2), ("N", 4), ("D", 2)]);
    let softmax = Formula::binary(
        lift::formula::BinaryOp::Div,
        p.clone(),
        p.clone().sum(2, true),
    );
    let f = softmax.matmul(Formula::input("v"));
    let g = f.clone().divisors_out_of_matmuls(&e);
    assert_eq!(text(&g), "(exp(s) @ v) / sum(exp(s), axis=2)");
    let mut t = Terms::new();
    let a = f.instantiate(&mut t, &e).unwrap();
    let b = g.instantiate(&mut t, &e).unwrap();
    assert_eq!(a.len(), 12);
    let pairs: Vec<_> = a.into_iter().zip(b).collect();
    let verdicts = decide::decide_all(&t, &pairs, &decide::Options::default());
    assert!(verdicts.iter().all(|v| matches!(v, Verdict::Equal { .. })));
    let f = Formula::binary(
        lift::formula::BinaryOp::Div,
        p.clone(),
        p.clone().sum(1, true),
    )
    .matmul(Formula::input("v"));
    assert_eq!(f.clone().divisors_out_of_matmuls(&e), f);
}

#[test]
fn products_argmax_scans_and_triangles_instantiate_as_their_definitions_and_render() {
    use lift::formula::{ReduceOp, ScanOp};
    let e = env();
    let mut t = Terms::new();
    let xs = |t: &mut Terms, i: i64, js: std::ops::Range<i64>| -> Vec<_> {
        js.map(|j| t.input("x", &[i, j])).collect()
    };
    // prod: one n-ary product per row.
    let prod = Formula::reduce(ReduceOp::Prod, x(), 1, false);
    assert_eq!(prod.shape(&e).unwrap(), vec![3]);
    let got = prod.instantiate(&mut t, &e).unwrap();
    let row1 = xs(&mut t, 1, 0..4);
    let want = t.product(&row1);
    assert_eq!(got[1], want);
    // argmax: the first index of the row's maximum, by the definition spelt out here.
    let am = Formula::reduce(ReduceOp::ArgMax, x(), 1, false);
    let got = am.instantiate(&mut t, &e).unwrap();
    let m = t.maxn(&row1);
    let mut want = t.int(3);
    for i in (0..3).rev() {
        let c = t.cmp(CmpOp::Eq, row1[i], m);
        let k = t.int(i as i64);
        want = t.select(c, k, want);
    }
    assert_eq!(got[1], want);
    // Concretely: ties go to the first index, as PyTorch's argmax.
    let row = [1.0, 5.0, 5.0, -2.0];
    let v = t.eval(got[1], &|_, idx: &[i64]| row[idx[1] as usize], &|_| 0.0);
    assert_eq!(v, 1.0);
    let amin = Formula::reduce(ReduceOp::ArgMin, x(), 0, true);
    assert_eq!(amin.shape(&e).unwrap(), vec![1, 4]);
    // cumsum along axis 1: element j sums x[i, 0..=j]; cumprod multiplies.
    let cs = Formula::scan(ScanOp::Sum, x(), 1);
    assert_eq!(cs.shape(&e).unwrap(), vec![3, 4]);
    let got = cs.instantiate(&mut t, &e).unwrap();
    let p = xs(&mut t, 2, 0..3);
    let want = t.sum(&p);
    assert_eq!(got[2 * 4 + 2], want);
    let x20 = t.input("x", &[2, 0]);
    assert_eq!(got[2 * 4], x20);
    let cp = Formula::scan(ScanOp::Prod, x(), 0)
        .instantiate(&mut t, &e)
        .unwrap();
    let col = [t.input("x", &[0, 3]), t.input("x", &[1, 3])];
    let want = t.product(&col);
    assert_eq!(cp[4 + 3], want);
    // tril keeps j - i <= k, triu keeps j - i >= k; the rest is 0.
    let tl = x().tri(false, 0).instantiate(&mut t, &e).unwrap();
    let zero = t.zero();
    let x10 = t.input("x", &[1, 0]);
    assert_eq!((tl[1], tl[4]), (zero, x10));
    let tu = x().tri(true, 1).instantiate(&mut t, &e).unwrap();
    let x01 = t.input("x", &[0, 1]);
    assert_eq!((tu[0], tu[1], tu[4 + 1]), (zero, x01, zero));
    // Shape errors name the operator.
    let bad = w().tri(false, 0).shape(&e).unwrap_err().to_string();
    assert!(bad.contains("tril/triu needs at least 2 axes"), "{bad}");
    let bad = Formula::scan(ScanOp::Sum, w(), 1)
        .shape(&e)
        .unwrap_err()
        .to_string();
    assert!(bad.contains("axis 1 out of range"), "{bad}");
    // Renderings: NumPy's and PyTorch's names and keywords.
    let np = |f: &Formula| render::numpy::expr(f, &e);
    let th = |f: &Formula| render::torch::expr(f, &e);
    assert_eq!(text(&am), "argmax(x, axis=1)");
    assert_eq!(np(&am), "np.argmax(x, axis=1)");
    assert_eq!(th(&am), "torch.argmax(x, dim=1)");
    assert_eq!(np(&amin), "np.argmin(x, axis=0, keepdims=True)");
    assert_eq!(th(&prod), "torch.prod(x, dim=1)");
    assert_eq!(text(&cs), "cumsum(x, axis=1)");
    assert_eq!(np(&cs), "np.cumsum(x, axis=1)");
    assert_eq!(
        th(&Formula::scan(ScanOp::Prod, x(), 0)),
        "torch.cumprod(x, dim=0)"
    );
    let tri = x().tri(false, 0).matmul(w());
    assert_eq!(text(&tri), "tril(x) @ w");
    assert_eq!(np(&x().tri(false, -1)), "np.tril(x, k=-1)");
    assert_eq!(th(&x().tri(true, 2)), "torch.triu(x, diagonal=2)");
    let j = render::json::expr(&x().tri(true, 1), &e).unwrap();
    assert_eq!(
        (j["op"].as_str(), j["diagonal"].as_i64()),
        (Some("triu"), Some(1))
    );
    let outs = [Output::new("y", cs.clone())];
    let tex = render::latex::outputs(&outs, &e).unwrap();
    assert!(tex.contains("\\operatorname{cumsum}"), "{tex}");
}

#[test]
fn windows_instantiate_as_pytorch_defines_them_and_reject_what_does_not_fit() {
    use lift::formula::{Geometry, WindowOp};
    let geom = |k: usize, s: usize, p: usize, d: usize| Geometry {
        kernel: vec![k],
        stride: vec![s],
        padding: vec![p],
        dilation: vec![d],
    };
    let e = env()
        .tensor("img", &[2, 3, 5])
        .tensor("k3", &[4, 3, 2])
        .tensor("k2", &[4, 2, 2]);
    let mut t = Terms::new();
    // max_pool1d(x, 2): windows (4 - 2) / 2 + 1 = 2 along the last axis.
    let mp = Formula::window(WindowOp::MaxPool, vec![x()], geom(2, 2, 0, 1));
    assert_eq!(mp.shape(&e).unwrap(), vec![3, 2]);
    assert_eq!(text(&mp), "max_pool1d(x, kernel_size=2)");
    let got = mp.instantiate(&mut t, &e).unwrap();
    let (a, b) = (t.input("x", &[1, 2]), t.input("x", &[1, 3]));
    let want = t.maxn(&[a, b]);
    assert_eq!(got[3], want);
    // avg_pool1d(x, 3, stride=2, padding=1): window 0 reads [pad, x0, x1] and still
    // divides by 3 (count_include_pad=True).
    let ap = Formula::window(WindowOp::AvgPool, vec![x()], geom(3, 2, 1, 1));
    assert_eq!(ap.shape(&e).unwrap(), vec![3, 2]);
    let got = ap.instantiate(&mut t, &e).unwrap();
    let (a, b) = (t.input("x", &[0, 0]), t.input("x", &[0, 1]));
    let s = t.sum(&[a, b]);
    let third = t.constant(num_rational::BigRational::new(1.into(), 3.into()));
    let want = t.mul(s, third);
    assert_eq!(got[0], want);
    // Dilation 2 with kernel 2 spans 3 positions: windows at 0 and 1 of a length-4 axis.
    let dil = Formula::window(WindowOp::MaxPool, vec![x()], geom(2, 1, 0, 2));
    assert_eq!(dil.shape(&e).unwrap(), vec![3, 2]);
    let got = dil.instantiate(&mut t, &e).unwrap();
    let (a, b) = (t.input("x", &[2, 1]), t.input("x", &[2, 3]));
    let want = t.maxn(&[a, b]);
    assert_eq!(got[5], want);
    // conv1d(img, k3, v): y[n, o, l] = v[o] + Σ_c Σ_j img[n, c, l + j] · k3[o, c, j].
    let conv = Formula::window(
        WindowOp::Conv,
        vec![
            Formula::input("img"),
            Formula::input("k3"),
            Formula::input("v"),
        ],
        Geometry {
            kernel: vec![],
            ..geom(0, 1, 0, 1)
        },
    );
    assert_eq!(conv.shape(&e).unwrap(), vec![2, 4, 4]);
    assert_eq!(text(&conv), "conv1d(img, k3, v)");
    let got = conv.instantiate(&mut t, &e).unwrap();
    let mut summands = vec![t.input("v", &[3])];
    for c in 0..3 {
        for j in 0..2 {
            let xi = t.input("img", &[1, c, 2 + j]);
            let wi = t.input("k3", &[3, c, j]);
            summands.push(t.mul(xi, wi));
        }
    }
    let want = t.sum(&summands);
    assert_eq!(got[(4 + 3) * 4 + 2], want);
    // What does not fit is an error naming the call.
    let big = Formula::window(WindowOp::MaxPool, vec![x()], geom(9, 1, 0, 1));
    assert!(big.shape(&e).unwrap_err().message.contains("does not fit"));
    let wrong_channels = Formula::window(
        WindowOp::Conv,
        vec![Formula::input("img"), Formula::input("k2")],
        Geometry {
            kernel: vec![],
            ..geom(0, 1, 0, 1)
        },
    );
    let msg = wrong_channels.shape(&e).unwrap_err().message;
    assert!(msg.contains("conv1d") && msg.contains("[2, 3, 5]"), "{msg}");
}

/// `x[:, None]`: a new unit axis. Its shape, its elements (the operand's, in the same
/// row-major order), its renderings (each dialect's own indexing, checked by NumPy in
/// the corpus test through RoPE's `cos[:, :4][:, None]`), and the error for an axis
/// past the end.
#[test]
fn unsqueeze_shapes_instantiates_and_renders() {
    let e = sized_env();
    let xs = || Formula::input("x");
    assert_eq!(xs().unsqueeze(1).shape(&e).unwrap(), vec![2, 1, 6]);
    assert_eq!(xs().unsqueeze(0).shape(&e).unwrap(), vec![1, 2, 6]);
    assert_eq!(xs().unsqueeze(2).shape(&e).unwrap(), vec![2, 6, 1]);
    let err = xs().unsqueeze(3).shape(&e).unwrap_err();
    assert!(err.message.contains("out of range"), "{}", err.message);
    let mut t = Terms::new();
    assert!(xs().unsqueeze(3).instantiate(&mut t, &e).is_err());
    let plain = xs().instantiate(&mut t, &e).unwrap();
    assert_eq!(xs().unsqueeze(1).instantiate(&mut t, &e).unwrap(), plain);
    // Broadcast against a [2, 3, 6] operand: x[i, j] for every middle index k.
    let e3 = sized_env().tensor("z", &[2, 3, 6]);
    let sum = (xs().unsqueeze(1) + Formula::input("z"))
        .instantiate(&mut t, &e3)
        .unwrap();
    assert_eq!(sum.len(), 36);
    let (x05, z125) = (t.input("x", &[0, 5]), t.input("z", &[1, 2, 5]));
    let x15 = t.input("x", &[1, 5]);
    let z005 = t.input("z", &[0, 0, 5]);
    assert_eq!(sum[5], t.add(x05, z005));
    assert_eq!(sum[2 * 6 + 5 + 18], t.add(x15, z125));
    let f = xs()
        .slice(1, lift::formula::Size::Int(0), Some(h()))
        .unsqueeze(1);
    assert_eq!(text(&f), "x[:, :H][:, None]");
    assert_eq!(render::numpy::expr(&f, &e), "x[:, :H][:, None]");
    assert_eq!(render::torch::expr(&f, &e), "x[:, :H][:, None]");
    assert_eq!(text(&xs().unsqueeze(0)), "x[None]");
    assert_eq!(
        render::latex::expr(&xs().unsqueeze(1)),
        "x_{[:,\\, \\mathrm{None}]}"
    );
    let j = render::json::expr(&f, &e).unwrap();
    assert_eq!(j["op"], "unsqueeze");
    assert_eq!(j["axis"], 1);
    assert_eq!(j["shape"], serde_json::json!([2, 1, 3]));
}
