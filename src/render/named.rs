//! Renderings of a named form ([`Named`], from `simplify`): text
//! (`y[M,N] = softmax(x, axis=1)`), PyTorch (`torch.softmax(x, dim=1)`) and JSON.
//!
//! How: a named op or recognised constant is printed on its own and stands in the
//! formula as a placeholder leaf of its shape, so the arithmetic around it goes through
//! the formula renderers unchanged (same precedence and parentheses); the placeholders
//! are then replaced by their text. A recognised constant prints by name in text
//! (`sqrt(2/pi)`, `1/sqrt(2)` parenthesised as a quotient) and as its exact literal in
//! Python (it stands for that literal).
//!
//! Invariant: every rendering means exactly [`Named::expand`]; a torch call is used
//! only where PyTorch's op is that definition (`layer_norm` over the last axis with
//! 1-D weight and bias, else its expansion is printed).

use super::infix::{Dialect, Infix};
use crate::formula::{Formula, FormulaError, ShapeEnv};
use crate::simplify::{Named, NamedOp};
use serde_json::{json, Value};

/// The text of `n` (as `render::text::expr_in` prints formulas), a sub-formula that
/// repeats printed once and bound to a name (`... where s = softmax(x, axis=1)`,
/// [`super::share`]).
pub fn text(n: &Named, env: &ShapeEnv) -> String {
    let s = super::share::share(n, env, &plain_text);
    debug_assert_eq!(&s.inline(), n, "sharing changed the formula");
    let mut out = plain_text(&s.body, &s.env);
    for (k, (name, def)) in s.bindings.iter().enumerate() {
        out += if k == 0 { " where " } else { ", " };
        out += &format!("{name} = {}", plain_text(def, &s.env));
    }
    out
}

/// The text of `n` with every sub-formula written out where it occurs.
pub(super) fn plain_text(n: &Named, env: &ShapeEnv) -> String {
    Printer {
        dialect: Dialect::Text,
        latex: false,
        env,
    }
    .print(n)
}

/// `n` in LaTeX (as `render::latex::expr` prints formulas): named ops upright with the
/// reduced axis's index letter (`\operatorname{softmax}_{j}\left(x\right)`), constants
/// by their symbols (`\sqrt{2/\pi}`), a repeated sub-formula bound once
/// (`\quad\text{where } s = ...`).
pub fn latex(n: &Named, env: &ShapeEnv) -> String {
    let s = super::share::share(n, env, &plain_text);
    let print = |n: &Named| {
        Printer {
            dialect: Dialect::Text,
            latex: true,
            env: &s.env,
        }
        .print(n)
    };
    let mut out = print(&s.body);
    for (k, (name, def)) in s.bindings.iter().enumerate() {
        out += if k == 0 {
            " \\quad\\text{where } "
        } else {
            ",\\ "
        };
        out += &format!("{} = {}", super::latex::name(name), print(def));
    }
    out
}

/// `n` as a PyTorch expression (as `render::torch::expr` prints formulas).
pub fn torch(n: &Named, env: &ShapeEnv) -> String {
    Printer {
        dialect: Dialect::Torch,
        latex: false,
        env,
    }
    .print(n)
}

struct Printer<'a> {
    dialect: Dialect,
    /// LaTeX instead of the dialect's infix (names and calls as in text).
    latex: bool,
    env: &'a ShapeEnv,
}

/// The placeholder leaf standing for the `k`-th printed call.
fn placeholder(k: usize) -> String {
    format!("\u{1}{k}\u{2}")
}

impl Printer<'_> {
    fn print(&self, n: &Named) -> String {
        let mut calls = Vec::new();
        let mut env = self.env.clone();
        let f = self.stand_in(n, &mut calls, &mut env);
        let mut s = if self.latex {
            super::latex::expr(&f)
        } else {
            Infix {
                dialect: self.dialect,
                env: Some(&env),
            }
            .expr(&f)
        };
        // Later calls never contain earlier placeholders (each is printed whole).
        for (k, c) in calls.iter().enumerate() {
            let p = placeholder(k);
            let token = if self.latex {
                super::latex::name(&p)
            } else {
                p
            };
            s = s.replace(&token, c);
        }
        s
    }

    /// `n` as a formula whose named nodes are placeholders (declared in `env` with
    /// their shapes), their text pushed on `calls`.
    fn stand_in(&self, n: &Named, calls: &mut Vec<String>, env: &mut ShapeEnv) -> Formula {
        let mut go = |a: &Named| Box::new(self.stand_in(a, calls, env));
        match n {
            Named::Formula(f) => f.clone(),
            Named::Constant { value, .. } if self.dialect != Dialect::Text => {
                Formula::Const(value.clone())
            }
            Named::Constant { name, .. } => {
                let (one_over, atom) = match name.strip_prefix("1/") {
                    Some(rest) => (true, rest),
                    None => (false, name.as_str()),
                };
                let p = placeholder(calls.len());
                calls.push(if self.latex {
                    latex_constant(atom)
                } else {
                    atom.to_string()
                });
                *env = std::mem::take(env).scalar(&p);
                if one_over {
                    Formula::int(1) / Formula::scalar(&p)
                } else {
                    Formula::scalar(&p)
                }
            }
            Named::Unary(op, a) => Formula::Unary(*op, go(a)),
            Named::Binary(op, a, b) => {
                let a = go(a);
                Formula::Binary(*op, a, go(b))
            }
            Named::Powi(a, k) => Formula::Powi(go(a), *k),
            Named::Reduce {
                op,
                axis,
                keepdim,
                arg,
            } => Formula::Reduce {
                op: *op,
                axis: *axis,
                keepdim: *keepdim,
                arg: go(arg),
            },
            Named::MatMul(a, b) => {
                let a = go(a);
                Formula::MatMul(a, go(b))
            }
            Named::Transpose(a) => Formula::Transpose(go(a)),
            Named::Node(shell, args) => {
                let mut kids = args.iter().map(|a| self.stand_in(a, calls, env));
                let zero = Formula::int(0);
                (**shell)
                    .clone()
                    .map_children(&mut |_| kids.next().unwrap_or_else(|| zero.clone()))
            }
            Named::Call(op, args) => {
                let Some(text) = self.call(op, args) else {
                    // No PyTorch op is this definition here: print the definition.
                    return self.stand_in(&expand_once(op, args), calls, env);
                };
                let shape = n.expand().shape(self.env).unwrap_or_default();
                let p = placeholder(calls.len());
                calls.push(text);
                *env = std::mem::take(env).tensor(&p, &shape);
                Formula::input(&p)
            }
        }
    }

    /// The call's text; `None` where the dialect has no op that is this definition.
    fn call(&self, op: &NamedOp, args: &[Named]) -> Option<String> {
        if self.latex {
            let a: Vec<String> = args.iter().map(|a| self.print(a)).collect();
            let sub = op
                .axis()
                .map(|k| format!("_{{{}}}", super::latex::index_letter(k)))
                .unwrap_or_default();
            let name = match op {
                NamedOp::Sigmoid => "\\sigma".to_string(),
                NamedOp::GeluTanh { .. } => "\\operatorname{gelu}_{\\tanh}".to_string(),
                _ => format!("\\operatorname{{{}}}", op.name().replace('_', "\\_")),
            };
            return Some(format!("{name}{sub}\\left({}\\right)", a.join(", ")));
        }
        let a: Vec<String> = args.iter().map(|a| self.argument(a)).collect();
        let text = self.dialect == Dialect::Text;
        let x = &a[0];
        Some(match (op, text) {
            (NamedOp::Sigmoid | NamedOp::Silu | NamedOp::Relu | NamedOp::Gelu { .. }, true) => {
                format!("{}({x})", op.name())
            }
            (NamedOp::GeluTanh { .. }, true) => format!("gelu({x}, approximate='tanh')"),
            (
                NamedOp::Softmax { axis }
                | NamedOp::LogSoftmax { axis }
                | NamedOp::LogSumExp { axis, .. }
                | NamedOp::Var { axis, .. },
                true,
            ) => format!("{}({x}, axis={axis})", op.name()),
            (NamedOp::LayerNorm { axis }, true) => {
                format!("layer_norm({x}, {}, {}, {}, axis={axis})", a[1], a[2], a[3])
            }
            (NamedOp::RmsNorm { axis }, true) => {
                format!("rms_norm({x}, {}, {}, axis={axis})", a[1], a[2])
            }
            (NamedOp::CrossEntropy { ignore_index } | NamedOp::NllLoss { ignore_index }, true) => {
                format!(
                    "{}({x}, {}, ignore_index={})",
                    op.name(),
                    a[1],
                    integer(ignore_index)?
                )
            }
            // PyTorch's losses read the labels as int64 (references pass float64).
            (NamedOp::CrossEntropy { ignore_index } | NamedOp::NllLoss { ignore_index }, false) => {
                let t = if a[1].chars().all(|c| c.is_alphanumeric() || c == '_') {
                    format!("{}.long()", a[1])
                } else {
                    format!("({}).long()", a[1])
                };
                format!(
                    "torch.nn.functional.{}({x}, {t}, ignore_index={}, reduction='none')",
                    op.name(),
                    integer(ignore_index)?
                )
            }
            (NamedOp::Sigmoid, false) => format!("torch.sigmoid({x})"),
            (NamedOp::Silu, false) => format!("torch.nn.functional.silu({x})"),
            (NamedOp::Relu, false) => format!("torch.relu({x})"),
            (NamedOp::Gelu { .. }, false) => format!("torch.nn.functional.gelu({x})"),
            (NamedOp::GeluTanh { .. }, false) => {
                format!("torch.nn.functional.gelu({x}, approximate='tanh')")
            }
            (NamedOp::Softmax { axis }, false) => format!("torch.softmax({x}, dim={axis})"),
            (NamedOp::LogSoftmax { axis }, false) => format!("torch.log_softmax({x}, dim={axis})"),
            (NamedOp::LogSumExp { axis, keepdim }, false) => {
                format!(
                    "torch.logsumexp({x}, dim={axis}, keepdim={})",
                    py_bool(*keepdim)
                )
            }
            (NamedOp::Var { axis, keepdim }, false) => format!(
                "torch.var({x}, dim={axis}, keepdim={}, correction=0)",
                py_bool(*keepdim)
            ),
            (NamedOp::LayerNorm { axis }, false) => {
                let n = self.last_axis_extent(&args[0], *axis)?;
                self.vector_of(&args[1], n)?;
                self.vector_of(&args[2], n)?;
                format!(
                    "torch.nn.functional.layer_norm({x}, {}, {}, {}, {})",
                    last_axis_shape(x),
                    a[1],
                    a[2],
                    a[3]
                )
            }
            (NamedOp::RmsNorm { axis }, false) => {
                let n = self.last_axis_extent(&args[0], *axis)?;
                self.vector_of(&args[1], n)?;
                format!(
                    "torch.nn.functional.rms_norm({x}, {}, {}, {})",
                    last_axis_shape(x),
                    a[1],
                    a[2]
                )
            }
        })
    }

    /// A call's argument. In text a scaled matrix product reads as Python groups it,
    /// `scale * q @ k.T` (`*` and `@` bind alike, left to right; equal as reals to
    /// `scale * (q @ k.T)`), where the formula renderers parenthesize it.
    fn argument(&self, a: &Named) -> String {
        if let Named::Binary(crate::formula::BinaryOp::Mul, s, m) = a {
            if let Named::MatMul(l, r) = &**m {
                let atom = |n: &Named| {
                    matches!(
                        n,
                        Named::Transpose(_) | Named::Call(..) | Named::Formula(Formula::Input(_))
                    )
                };
                let number = matches!(&**s, Named::Formula(Formula::Scalar(_) | Formula::Const(_)));
                if self.dialect == Dialect::Text && number && atom(l) && atom(r) {
                    return format!("{} * {} @ {}", self.print(s), self.print(l), self.print(r));
                }
            }
        }
        self.print(a)
    }

    /// The extent of `axis` of `x` when it is `x`'s last axis.
    fn last_axis_extent(&self, x: &Named, axis: usize) -> Option<usize> {
        let shape = x.expand().shape(self.env).ok()?;
        (axis + 1 == shape.len()).then(|| shape[axis])
    }

    /// `Some` when `w` is a vector of `n` elements (what PyTorch's weight must be).
    fn vector_of(&self, w: &Named, n: usize) -> Option<()> {
        (w.expand().shape(self.env).ok()? == vec![n]).then_some(())
    }
}

/// A recognised constant's name (`rules/constants.egg`) as LaTeX.
fn latex_constant(name: &str) -> String {
    match name {
        "pi" => "\\pi".into(),
        "e" => "e".into(),
        "log2(e)" => "\\log_2 e".into(),
        "log(2)" => "\\ln 2".into(),
        "sqrt(2)" => "\\sqrt{2}".into(),
        "sqrt(2/pi)" => "\\sqrt{2/\\pi}".into(),
        n if n.parse::<f64>().is_ok() => n.into(),
        n => super::latex::name(n),
    }
}

/// An integral constant as Python writes it (`-100`); `None` for a fraction.
fn integer(q: &num_rational::BigRational) -> Option<String> {
    q.is_integer().then(|| q.to_integer().to_string())
}

fn py_bool(b: bool) -> &'static str {
    if b {
        "True"
    } else {
        "False"
    }
}

/// The op's definition over its (still named) operands: its expansion over stand-in
/// leaves, opened into named arithmetic, each leaf replaced by its operand.
fn expand_once(op: &NamedOp, args: &[Named]) -> Named {
    let stand: Vec<Formula> = (0..args.len())
        .map(|k| Formula::input(&format!("\u{3}{k}")))
        .collect();
    let opened = Named::open(&op.expand(&stand));
    stand.into_iter().zip(args).fold(opened, |n, (leaf, arg)| {
        super::share::replace(&n, &Named::Formula(leaf), arg)
    })
}

/// `n` as a JSON node: a named op is `{"op": "softmax", "axis": 1, "args": [...]}`, a
/// recognised constant `{"op": "constant", "name", "value", "f64"}`, the rest as
/// `render::json` writes formulas; every node has its `"shape"`.
pub fn json(n: &Named, env: &ShapeEnv) -> Result<Value, FormulaError> {
    let shape = n.expand().shape(env)?;
    let kids = |ks: &[&Named]| -> Result<Vec<Value>, FormulaError> {
        ks.iter().map(|k| json(k, env)).collect()
    };
    let mut v = match n {
        Named::Formula(f) => return super::json::expr(f, env),
        Named::Constant { name, value } => {
            use num_traits::ToPrimitive;
            json!({"op": "constant", "name": name, "value": value.to_string(),
                   "f64": value.to_f64()})
        }
        Named::Call(op, args) => {
            let mut m = json!({"op": op.name(), "args": kids(&args.iter().collect::<Vec<_>>())?});
            if let Some(axis) = op.axis() {
                m["axis"] = json!(axis);
            }
            if let NamedOp::GeluTanh { .. } = op {
                m["approximate"] = json!("tanh");
            }
            if let NamedOp::CrossEntropy { ignore_index } | NamedOp::NllLoss { ignore_index } = op {
                m["ignore_index"] = json!(ignore_index.to_string());
            }
            m
        }
        // Arithmetic over named operands: the formula node's fields, named children.
        _ => {
            let args: Vec<&Named> = match n {
                Named::Unary(_, a) | Named::Powi(a, _) | Named::Transpose(a) => vec![a],
                Named::Reduce { arg, .. } => vec![arg],
                Named::Binary(_, a, b) | Named::MatMul(a, b) => vec![a, b],
                Named::Node(_, args) => args.iter().collect(),
                _ => vec![],
            };
            let mut node = super::json::expr(&n.expand(), env)?;
            node["args"] = Value::Array(kids(&args)?);
            node
        }
    };
    v["shape"] = json!(shape);
    Ok(v)
}

/// [`super::torch::kernel_function`] with each output printed in its named form where
/// `named` gives one (PyTorch's own ops where proved equal).
pub fn torch_kernel_function(
    outputs: &[crate::formula::Output],
    env: &ShapeEnv,
    name: &str,
    sig: &super::torch::Signature,
    named: &dyn Fn(&Formula) -> Option<Named>,
) -> Result<String, FormulaError> {
    // A sub-formula used more than once is computed once, into a local (`share`).
    let expr = |f: &Formula| {
        let n = named(f).unwrap_or_else(|| Named::open(f));
        let s = super::share::share(&n, env, &torch);
        super::torch::PyExpr {
            // Bound largest first, so a local may use one bound after it: assign those first.
            locals: (s.bindings.iter().rev())
                .map(|(name, def)| (name.clone(), torch(def, &s.env)))
                .collect(),
            value: torch(&s.body, &s.env),
        }
    };
    super::torch::python_function(outputs, env, name, "import torch\n", &expr, Some(sig))
}

/// The normalized shape of a norm over the last axis of `x`, read from `x` itself so the
/// rendering holds at every size (`x.shape[-1:]`, not the instance's `(8,)`).
fn last_axis_shape(x: &str) -> String {
    if x.chars().all(|c| c.is_alphanumeric() || c == '_') {
        format!("{x}.shape[-1:]")
    } else {
        format!("({x}).shape[-1:]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_named_op_pytorch_lacks_here_prints_its_definition_over_its_operands() {
        // layer_norm over axis 0 of a [4, 8] tensor: F.layer_norm normalises the last
        // axes only, so the torch rendering is the definition, with x, w, b, eps put in.
        let env = ShapeEnv::new()
            .tensor("x", &[4, 8])
            .tensor("w", &[4, 1])
            .tensor("b", &[4, 1])
            .scalar("eps");
        let leaf = |n: &str| Named::Formula(Formula::input(n));
        let n = Named::Call(
            NamedOp::LayerNorm { axis: 0 },
            vec![
                leaf("x"),
                leaf("w"),
                leaf("b"),
                Named::Formula(Formula::scalar("eps")),
            ],
        );
        let t = torch(&n, &env);
        assert!(!t.contains("layer_norm") && !t.contains('\u{3}'), "{t}");
        assert!(
            t.contains("torch.rsqrt") && t.contains("eps") && t.contains("dim=0"),
            "{t}"
        );
        let direct = super::super::torch::expr(&n.expand(), &env);
        assert_eq!(t, direct, "the definition, printed as the formula it means");
    }

    #[test]
    fn a_local_is_assigned_before_the_local_that_uses_it() {
        // (s @ v) / sum(s, axis=1) where s = exp2(t - max(t, axis=1)), t = 3 * (q @ k.T):
        // `s` is bound first (larger) and uses `t`, so `t` is assigned first.
        use crate::formula::{BinaryOp, ReduceOp, UnaryOp};
        let env = ShapeEnv::new()
            .tensor("q", &[4, 2])
            .tensor("k", &[4, 2])
            .tensor("v", &[4, 2]);
        let t = Formula::binary(
            BinaryOp::Mul,
            Formula::int(3),
            Formula::input("q").matmul(Formula::input("k").t()),
        );
        let m = Formula::reduce(ReduceOp::Max, t.clone(), 1, true);
        let s = Formula::unary(UnaryOp::Exp2, Formula::binary(BinaryOp::Sub, t, m));
        let o = Formula::binary(
            BinaryOp::Div,
            s.clone().matmul(Formula::input("v")),
            Formula::reduce(ReduceOp::Sum, s, 1, true),
        );
        let inputs = ["q".to_string(), "k".to_string(), "v".to_string()];
        let sig = super::super::torch::Signature {
            inputs: &inputs,
            doc: "Returns `o`.",
        };
        let outputs = [crate::formula::Output::new("o", o)];
        let src = torch_kernel_function(&outputs, &env, "attn", &sig, &|_| None).unwrap();
        let at = |line: &str| {
            src.find(line)
                .unwrap_or_else(|| panic!("no `{line}` in\n{src}"))
        };
        assert!(
            at("    t = 3 * (q @ k.T)") < at("    s = torch.exp2(t - "),
            "{src}"
        );
        assert!(
            src.contains("o = (s @ v) / torch.sum(s, dim=1, keepdim=True)"),
            "{src}"
        );
    }
}
