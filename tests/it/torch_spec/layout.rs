//! Matrix products, layout ops and tensor creation.

use super::*;

// ---- linear algebra ------------------------------------------------------------------

fn matmul_ref(a: &A, b: &A) -> A {
    let (n, k) = (a.shape[0], a.shape[1]);
    let m = b.shape[1];
    A::build(&[n, m], |i| {
        (0..k).map(|kk| a.at(&[i[0], kk]) * b.at(&[kk, i[1]])).sum()
    })
}

#[test]
fn matmul_shapes() {
    let a = A::input("a", &[2, 3]);
    let b = A::input("b", &[3, 4]);
    let v = A::input("v", &[3]);
    let t: &[(&str, &[usize])] = &[("a", &[2, 3]), ("b", &[3, 4]), ("v", &[3])];
    let ab = matmul_ref(&a, &b);
    check("c = a @ b", t, &ab);
    check("c = torch.matmul(a, b)", t, &ab);
    check("c = torch.mm(a, b)", t, &ab);
    // `dtype`, `inplace` and `device` are accepted and mean nothing for real tensors.
    check("c = torch.matmul(a, b).to(device='cpu')", t, &ab);
    check(
        "c = torch.nn.functional.relu(a @ b, inplace=True)",
        t,
        &A::build(&[2, 4], |i| ab.at(&[i[0], i[1]]).max(0.0)),
    );
    // Slices along a leading dimension start at their offset (row 1 of a), concat is
    // PyTorch's alias of cat, `%` takes the sign of the divisor, `//` of ints floors.
    check("c = a[1:, :]", t, &A::build(&[1, 3], |i| a.at(&[1, i[1]])));
    check(
        "c = torch.concat([a, a])",
        t,
        &A::build(&[4, 3], |i| a.at(&[i[0] % 2, i[1]])),
    );
    check(
        "c = a % 0.75",
        t,
        &A::build(&[2, 3], |i| {
            let v = a.at(&[i[0], i[1]]);
            v - 0.75 * (v / 0.75).floor()
        }),
    );
    check(
        "c = a * (-7 // 2)",
        t,
        &A::build(&[2, 3], |i| -4.0 * a.at(&[i[0], i[1]])),
    );
    check(
        "c = a * (7 // -2)",
        t,
        &A::build(&[2, 3], |i| -4.0 * a.at(&[i[0], i[1]])),
    );
    // torch.linalg.matmul is PyTorch's alias of torch.matmul.
    check("c = torch.linalg.matmul(a, b)", t, &ab);
    // `.ndim` is the number of dimensions: 2 for a.
    check(
        "c = (a @ b) * a.ndim",
        t,
        &A::build(&[2, 4], |i| 2.0 * ab.at(&[i[0], i[1]])),
    );
    check("c = a.matmul(b)", t, &ab);
    check("c = (b.T @ a.T).T", t, &ab);
    check(
        "c = v @ b",
        t,
        &A::build(&[4], |i| {
            (0..3).map(|k| v.at(&[k]) * b.at(&[k, i[0]])).sum()
        }),
    );
    check(
        "c = a @ v",
        t,
        &A::build(&[2], |i| {
            (0..3).map(|k| a.at(&[i[0], k]) * v.at(&[k])).sum()
        }),
    );
    check(
        "c = v @ v",
        t,
        &A {
            shape: vec![],
            d: vec![v.d.iter().map(|e| e * e).sum()],
        },
    );

    // Batched, and batch broadcasting.
    let p = A::input("p", &[2, 2, 3]);
    let q = A::input("q", &[2, 3, 5]);
    let t3: &[(&str, &[usize])] = &[
        ("p", &[2, 2, 3]),
        ("q", &[2, 3, 5]),
        ("r", &[3, 5]),
        ("s", &[2, 1, 2, 3]),
    ];
    let bmm = A::build(&[2, 2, 5], |i| {
        (0..3)
            .map(|k| p.at(&[i[0], i[1], k]) * q.at(&[i[0], k, i[2]]))
            .sum()
    });
    check("c = torch.bmm(p, q)", t3, &bmm);
    check("c = p @ q", t3, &bmm);
    let r = A::input("r", &[3, 5]);
    check(
        "c = p @ r",
        t3,
        &A::build(&[2, 2, 5], |i| {
            (0..3)
                .map(|k| p.at(&[i[0], i[1], k]) * r.at(&[k, i[2]]))
                .sum()
        }),
    );
    let s4 = A::input("s", &[2, 1, 2, 3]);
    check(
        "c = s @ q",
        t3,
        &A::build(&[2, 2, 2, 5], |i| {
            (0..3)
                .map(|k| s4.at(&[i[0], 0, i[2], k]) * q.at(&[i[1], k, i[3]]))
                .sum()
        }),
    );

    // linear: x @ w.T + b.
    let x = A::input("x", &[2, 3]);
    let w = A::input("w", &[4, 3]);
    let bias = A::input("bias", &[4]);
    check(
        "y = F.linear(x, w, bias)",
        &[("x", &[2, 3]), ("w", &[4, 3]), ("bias", &[4])],
        &A::build(&[2, 4], |i| {
            (0..3)
                .map(|k| x.at(&[i[0], k]) * w.at(&[i[1], k]))
                .sum::<f64>()
                + bias.at(&[i[1]])
        }),
    );

    // Each element is one sum of k products.
    let run = run("c = a @ b", t);
    match run.terms.node(run.out[0].elems[0]) {
        Node::Add(ops) => assert_eq!(ops.len(), 3),
        other => panic!("{other:?}"),
    }
}

// ---- layout and creation ---------------------------------------------------------------

#[test]
fn layout_ops() {
    let x = A::input("x", &[2, 3, 4]);
    let m = A::input("m", &[2, 5]);
    let t: &[(&str, &[usize])] = &[("x", &[2, 3, 4]), ("m", &[2, 5]), ("v", &[5])];
    let cases: Vec<(&str, A)> = vec![
        (
            "y = torch.transpose(x, 0, -1)",
            A::build(&[4, 3, 2], |i| x.at(&[i[2], i[1], i[0]])),
        ),
        (
            "y = x.transpose(1, 2)",
            A::build(&[2, 4, 3], |i| x.at(&[i[0], i[2], i[1]])),
        ),
        ("y = m.T", A::build(&[5, 2], |i| m.at(&[i[1], i[0]]))),
        ("y = m.t()", A::build(&[5, 2], |i| m.at(&[i[1], i[0]]))),
        (
            "y = x.mT",
            A::build(&[2, 4, 3], |i| x.at(&[i[0], i[2], i[1]])),
        ),
        (
            "y = x.permute(2, 0, 1)",
            A::build(&[4, 2, 3], |i| x.at(&[i[1], i[2], i[0]])),
        ),
        (
            "y = torch.permute(x, (1, 2, 0))",
            A::build(&[3, 4, 2], |i| x.at(&[i[2], i[0], i[1]])),
        ),
        (
            "y = x.reshape(6, -1)",
            A {
                shape: vec![6, 4],
                d: x.d.clone(),
            },
        ),
        (
            "y = torch.reshape(x, (4, 6))",
            A {
                shape: vec![4, 6],
                d: x.d.clone(),
            },
        ),
        (
            "y = x.view(-1)",
            A {
                shape: vec![24],
                d: x.d.clone(),
            },
        ),
        (
            "y = x.flatten(1)",
            A {
                shape: vec![2, 12],
                d: x.d.clone(),
            },
        ),
        (
            "y = m.unsqueeze(1)",
            A {
                shape: vec![2, 1, 5],
                d: m.d.clone(),
            },
        ),
        (
            "y = torch.unsqueeze(m, -1)",
            A {
                shape: vec![2, 5, 1],
                d: m.d.clone(),
            },
        ),
        (
            "y = m[:, None].squeeze()",
            A {
                shape: vec![2, 5],
                d: m.d.clone(),
            },
        ),
        (
            "y = m.unsqueeze(0).squeeze(0)",
            A {
                shape: vec![2, 5],
                d: m.d.clone(),
            },
        ),
        ("y = m[:, :2]", A::build(&[2, 2], |i| m.at(i))),
        (
            "y = m[..., 2:]",
            A::build(&[2, 3], |i| m.at(&[i[0], i[1] + 2])),
        ),
        (
            "y = m[:, -2:]",
            A::build(&[2, 2], |i| m.at(&[i[0], i[1] + 3])),
        ),
        (
            "y = m[:, ::2]",
            A::build(&[2, 3], |i| m.at(&[i[0], 2 * i[1]])),
        ),
        ("y = m[1]", A::build(&[5], |i| m.at(&[1, i[0]]))),
        ("y = x[0, :, -1]", A::build(&[3], |i| x.at(&[0, i[0], 3]))),
        (
            "y = x[..., 1]",
            A::build(&[2, 3], |i| x.at(&[i[0], i[1], 1])),
        ),
        ("y = m.chunk(2, dim=-1)[0]", A::build(&[2, 3], |i| m.at(i))),
        (
            "y = torch.chunk(m, 2, -1)[1]",
            A::build(&[2, 2], |i| m.at(&[i[0], i[1] + 3])),
        ),
        (
            "y = torch.split(m, 2, dim=1)[2]",
            A::build(&[2, 1], |i| m.at(&[i[0], 4])),
        ),
        (
            "y = m.split([1, 4], -1)[1]",
            A::build(&[2, 4], |i| m.at(&[i[0], i[1] + 1])),
        ),
        (
            "y = torch.cat([m, m[:, :1]], dim=-1)",
            A::build(&[2, 6], |i| m.at(&[i[0], i[1] % 5])),
        ),
        (
            "y = torch.cat((m, m))",
            A::build(&[4, 5], |i| m.at(&[i[0] % 2, i[1]])),
        ),
        (
            "y = torch.stack([m, -m], dim=1)",
            A::build(&[2, 2, 5], |i| {
                if i[1] == 0 {
                    m.at(&[i[0], i[2]])
                } else {
                    -m.at(&[i[0], i[2]])
                }
            }),
        ),
        (
            "y = m.expand(3, 2, 5)",
            A::build(&[3, 2, 5], |i| m.at(&[i[1], i[2]])),
        ),
        ("y = m[:, :x.shape[1]]", A::build(&[2, 3], |i| m.at(i))),
        ("y = m[:, :m.size(-1) // 2]", A::build(&[2, 2], |i| m.at(i))),
    ];
    for (spec, want) in cases {
        check(spec, t, &want);
    }
}

#[test]
fn chunk_destructuring_and_glu() {
    let m = A::input("m", &[2, 6]);
    let t: &[(&str, &[usize])] = &[("m", &[2, 6])];
    let r = run("a, b = m.chunk(2, dim=-1); c = a * torch.sigmoid(b)", t);
    assert_eq!(names(&r), ["a", "b", "c"]);
    assert_close("a", &r.output(0), &A::build(&[2, 3], |i| m.at(i)));
    assert_close(
        "b",
        &r.output(1),
        &A::build(&[2, 3], |i| m.at(&[i[0], i[1] + 3])),
    );
    let glu = A::build(&[2, 3], |i| m.at(i) * sigmoid(m.at(&[i[0], i[1] + 3])));
    assert_close("c", &r.output(2), &glu);
    check("y = F.glu(m)", t, &glu);
    check(
        "y = F.silu(m[:, :3]) * m[:, 3:]",
        t,
        &A::build(&[2, 3], |i| {
            let a = m.at(i);
            a * sigmoid(a) * m.at(&[i[0], i[1] + 3])
        }),
    );
}

#[test]
fn creation_ops() {
    let t: &[(&str, &[usize])] = &[("x", &[2, 3])];
    check(
        "y = torch.zeros(N)",
        t,
        &A {
            shape: vec![4],
            d: vec![0.0; 4],
        },
    );
    check(
        "y = torch.ones(2, 3)",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![1.0; 6],
        },
    );
    check(
        "y = torch.ones((3,))",
        t,
        &A {
            shape: vec![3],
            d: vec![1.0; 3],
        },
    );
    check(
        "y = torch.full((2, 2), 0.5)",
        t,
        &A {
            shape: vec![2, 2],
            d: vec![0.5; 4],
        },
    );
    check(
        "y = torch.zeros_like(x)",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![0.0; 6],
        },
    );
    check(
        "y = torch.ones_like(x) * 2",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![2.0; 6],
        },
    );
    check(
        "y = torch.full_like(x, eps)",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![1e-3; 6],
        },
    );
    check(
        "y = torch.zeros(2, 3, dtype=torch.float64)",
        t,
        &A {
            shape: vec![2, 3],
            d: vec![0.0; 6],
        },
    );
}
