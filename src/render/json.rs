//! The JSON rendering, schema `lift.formula/1` (stable: extend compatibly only).
//!
//! ```json
//! {"schema": "lift.formula/1",
//!  "inputs": [{"name": "x", "shape": [4, 8], "dims": ["M", "N"]}],
//!  "scalars": ["eps"],
//!  "outputs": [{"name": "y", "shape": [4, 8], "dims": ["M", "N"], "formula": NODE}]}
//! ```
//! `NODE` is `{"op": OP, "shape": [...], "args": [NODE...], ...}`, with `op` one of
//! `input` (+ `"name"`), `scalar` (+ `"name"`), `const` (+ `"value"`: the exact rational
//! as `"p/q"` or an integer string, and `"f64"`: its nearest double), `inf` (+
//! `"negative"`: `true` for -inf, a masked score's fill), the unary ops
//! `neg exp exp2 log log2 sqrt rsqrt tanh sin cos erf abs rint`, the binary ops `add sub mul
//! div maximum minimum`, `pow` (+ `"exponent"`: an integer), comparisons `lt le gt ge eq
//! ne`, `where` (args: condition, then, else), reductions `sum max min mean` (+ `"axis"`,
//! `"keepdim"`), `matmul`, `transpose` (swaps the last two axes), `cat` (+ `"axis"`),
//! `slice` (+ `"axis"`, `"start"`, `"end"`: size expressions as text, `end` `null` for
//! the end of the axis), `take` (args: data, index; + `"axis"`, `"kind"`: `"along"`,
//! `x[i, t[i]]`, or `"index"`, `w[idx]`; a position outside the axis reads 0),
//! `cumsum` `cumprod` (+ `"axis"`), `linear_recurrence` (args: a, x; + `"axis"`:
//! `h[t] = a[t]·h[t-1] + x[t]` from `h[-1] = 0`),
//! `broadcast` and `reshape` (+ `"to"`: the shape as size
//! expressions; a reshape keeps the row-major order of the elements). Leaves
//! have no `args`.
//! `dims` entries are size names or `null`. Object keys are sorted.

use super::check;
use crate::formula::{cmp_name, Dim, Formula, FormulaError, Output, ShapeEnv};
use num_traits::ToPrimitive;
use serde_json::{json, Map, Value};

fn dims_json(d: &[Dim]) -> Value {
    Value::Array(
        d.iter()
            .map(|d| d.name.clone().map_or(Value::Null, Value::String))
            .collect(),
    )
}

/// One formula as a `NODE`.
pub fn expr(f: &Formula, env: &ShapeEnv) -> Result<Value, FormulaError> {
    let shape = f.shape(env)?;
    let mut m = Map::new();
    let args: Vec<Value> = f
        .children()
        .into_iter()
        .map(|c| expr(c, env))
        .collect::<Result<_, _>>()?;
    let op: &str = match f {
        Formula::Input(n) => {
            m.insert("name".into(), json!(n));
            "input"
        }
        Formula::Scalar(n) => {
            m.insert("name".into(), json!(n));
            "scalar"
        }
        Formula::Const(c) => {
            m.insert("value".into(), json!(c.to_string()));
            let v = c.to_f64().unwrap_or(f64::NAN);
            m.insert("f64".into(), json!(v));
            "const"
        }
        Formula::Inf { negative } => {
            m.insert("negative".into(), json!(negative));
            "inf"
        }
        Formula::Unary(op, _) => op.name(),
        Formula::Binary(op, _, _) => op.name(),
        Formula::Powi(_, k) => {
            m.insert("exponent".into(), json!(k));
            "pow"
        }
        Formula::Cmp(op, _, _) => cmp_name(*op),
        Formula::Select(..) => "where",
        Formula::Reduce {
            op, axis, keepdim, ..
        } => {
            m.insert("axis".into(), json!(axis));
            m.insert("keepdim".into(), json!(keepdim));
            op.name()
        }
        Formula::MatMul(..) => "matmul",
        Formula::Transpose(_) => "transpose",
        Formula::Scan { op, axis, .. } => {
            m.insert("axis".into(), json!(axis));
            op.name()
        }
        Formula::Recurrence { axis, .. } => {
            m.insert("axis".into(), json!(axis));
            "linear_recurrence"
        }
        Formula::Tri {
            upper, diagonal, ..
        } => {
            m.insert("diagonal".into(), json!(diagonal));
            if *upper {
                "triu"
            } else {
                "tril"
            }
        }
        Formula::Cat { axis, .. } => {
            m.insert("axis".into(), json!(axis));
            "cat"
        }
        Formula::Slice {
            axis, start, end, ..
        } => {
            m.insert("axis".into(), json!(axis));
            m.insert("start".into(), json!(super::infix::size_text(start)));
            m.insert(
                "end".into(),
                end.as_ref()
                    .map_or(Value::Null, |e| json!(super::infix::size_text(e))),
            );
            "slice"
        }
        Formula::Unsqueeze { axis, .. } => {
            m.insert("axis".into(), json!(axis));
            "unsqueeze"
        }
        Formula::Arange(n) => {
            m.insert("n".into(), json!(super::infix::size_text(n)));
            "arange"
        }
        Formula::Rand { seed, .. } => {
            m.insert("seed".into(), json!(seed));
            "rand"
        }
        Formula::Take { kind, axis, .. } => {
            m.insert("axis".into(), json!(axis));
            m.insert("kind".into(), json!(kind.name()));
            "take"
        }
        Formula::Broadcast { shape: to, .. } => {
            let to: Vec<String> = to.iter().map(super::infix::size_text).collect();
            m.insert("to".into(), json!(to));
            "broadcast"
        }
        Formula::Reshape { shape: to, .. } => {
            let to: Vec<String> = to.iter().map(super::infix::size_text).collect();
            m.insert("to".into(), json!(to));
            "reshape"
        }
        Formula::Window {
            op, geometry: g, ..
        } => {
            if *op != crate::formula::WindowOp::Conv {
                m.insert("kernel_size".into(), json!(g.kernel));
            }
            m.insert("stride".into(), json!(g.stride));
            m.insert("padding".into(), json!(g.padding));
            m.insert("dilation".into(), json!(g.dilation));
            match op {
                crate::formula::WindowOp::MaxPool => "max_pool",
                crate::formula::WindowOp::AvgPool => "avg_pool",
                crate::formula::WindowOp::Conv => "conv",
            }
        }
    };
    m.insert("op".into(), json!(op));
    m.insert("shape".into(), json!(shape));
    if !args.is_empty() {
        m.insert("args".into(), Value::Array(args));
    }
    Ok(Value::Object(m))
}

/// The whole lift result as a `lift.formula/1` document.
pub fn outputs(outputs: &[Output], env: &ShapeEnv) -> Result<Value, FormulaError> {
    let dims = check(outputs, env)?;
    let mut inputs = Vec::new();
    let mut scalars = Vec::new();
    for p in super::parameters(outputs) {
        if let Some(shape) = env.tensors.get(&p) {
            let d = Formula::Input(p.clone()).dims(env)?;
            inputs.push(json!({"name": p, "shape": shape, "dims": dims_json(&d)}));
        } else {
            scalars.push(json!(p));
        }
    }
    let outs = outputs
        .iter()
        .zip(&dims)
        .map(|(o, d)| {
            Ok(json!({
                "name": o.name,
                "shape": d.iter().map(|d| d.size).collect::<Vec<_>>(),
                "dims": dims_json(d),
                "formula": expr(&o.formula, env)?,
            }))
        })
        .collect::<Result<Vec<_>, FormulaError>>()?;
    Ok(json!({
        "schema": "lift.formula/1",
        "inputs": inputs,
        "scalars": scalars,
        "outputs": outs,
    }))
}
