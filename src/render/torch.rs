//! The PyTorch rendering: a runnable reference function.
//!
//! ```python
//! import torch
//!
//!
//! def kernel(x, w, eps):
//!     y = x * torch.rsqrt(torch.mean(x * x, dim=1, keepdim=True) + eps) * w
//!     return y
//! ```
//! Conventions (shared with [`super::numpy`]): parameters are the input tensors, then the
//! scalars (Python floats), each in order of first occurrence; one assignment per output,
//! returned in order (a tuple for several); an output whose name is also a parameter is
//! assigned to `<name>_out`. `torch.exp` etc. by name (`torch.rsqrt`, `torch.erf`);
//! element-wise max/min are `torch.maximum`/`torch.minimum`, or `torch.clamp(a, min=c)`
//! when one side is a number; `torch.where`; `torch.sum/amax/amin/mean(e, dim=k,
//! keepdim=True)`; `a @ b`; `a.T` for 2-D operands, `a.transpose(-2, -1)` otherwise; a
//! function of numbers only gets `torch.as_tensor(.., dtype=torch.float64)`; `cat` is
//! `torch.cat([..], dim=k)`; sizes used by slices (`x[:, H:]`) and broadcasts
//! (`torch.broadcast_to(.., (N,))`) are keyword parameters defaulting to the instance's
//! values (`H=8`). Constants are Python literals: integers, exact short decimals,
//! otherwise the shortest repr of the f64 equal to the constant (an f32 constant such as
//! `0.044715f32` prints as `0.044714998453855515`), else `p / q`.

use super::infix::{Dialect, Infix};
use super::{check, parameters};
use crate::formula::{Formula, FormulaError, Output, ShapeEnv};

/// One formula as a PyTorch expression.
pub fn expr(f: &Formula, env: &ShapeEnv) -> String {
    Infix {
        dialect: Dialect::Torch,
        env: Some(env),
    }
    .expr(f)
}

/// A Python module defining `def {name}(...)` that computes `outputs`.
pub fn function(outputs: &[Output], env: &ShapeEnv, name: &str) -> Result<String, FormulaError> {
    module(outputs, env, name, None)
}

/// [`function`] as a kernel's reference: `sig` orders the parameters and gives the
/// docstring.
pub fn kernel_function(
    outputs: &[Output],
    env: &ShapeEnv,
    name: &str,
    sig: &Signature,
) -> Result<String, FormulaError> {
    module(outputs, env, name, Some(sig))
}

fn module(
    outputs: &[Output],
    env: &ShapeEnv,
    name: &str,
    sig: Option<&Signature>,
) -> Result<String, FormulaError> {
    let mut imports = "import torch\n".to_string();
    if uses_recurrence(outputs) {
        imports.push_str(RECURRENCE);
    }
    if uses_rand(outputs) {
        imports.push_str(&rand_helper("torch.tensor(out, dtype=torch.float64)"));
    }
    python_function(outputs, env, name, &imports, &|f| plain(expr(f, env)), sig)
}

/// Whether some output holds a `linear_recurrence`, whose helper the module defines.
pub(super) fn uses_recurrence(outputs: &[Output]) -> bool {
    uses(outputs, &|f| matches!(f, Formula::Recurrence { .. }))
}

/// Whether some output holds a `rand`, whose helper `triton_rand` the module defines.
pub(super) fn uses_rand(outputs: &[Output]) -> bool {
    uses(outputs, &|f| matches!(f, Formula::Rand { .. }))
}

fn uses(outputs: &[Output], is: &dyn Fn(&Formula) -> bool) -> bool {
    fn has(f: &Formula, is: &dyn Fn(&Formula) -> bool) -> bool {
        is(f) || f.children().into_iter().any(|c| has(c, is))
    }
    outputs.iter().any(|o| has(&o.formula, is))
}

/// The Python of `triton_rand(seed, offsets)`, Triton's `tl.rand` (docs/semantics.md):
/// Philox4x32-10 on Python integers, the first word folded and scaled in float32;
/// `array` is the module's float64 array of the list `out`.
pub(super) fn rand_helper(array: &str) -> String {
    format!(
        "

def triton_rand(seed, offsets):
    \"\"\"Triton's tl.rand(seed, offsets): Philox4x32-10, first word folded, f32.\"\"\"
    import struct
    m = 0xFFFFFFFF
    f32 = lambda v: struct.unpack('f', struct.pack('f', v))[0]
    scale = f32(4.6566127342e-10)
    out = []
    for o in [int(v) for v in offsets.reshape(-1).tolist()]:
        c0, c1, c2, c3 = o & m, (o >> 32) & m, 0, 0
        k0, k1 = seed & m, (seed >> 32) & m
        for _ in range(10):
            p0, p1 = 0xD2511F53 * c0, 0xCD9E8D57 * c2
            c0, c1, c2, c3 = ((p1 >> 32) ^ c1 ^ k0) & m, p1 & m, ((p0 >> 32) ^ c3 ^ k1) & m, p0 & m
            k0, k1 = (k0 + 0x9E3779B9) & m, (k1 + 0xBB67AE85) & m
        w = c0 - (1 << 32) if c0 >> 31 else c0
        out.append(f32(f32(float(~w if w < 0 else w)) * scale))
    return {array}.reshape(offsets.shape)
"
    )
}

/// The helper a `linear_recurrence` calls: the loop over the axis it means.
const RECURRENCE: &str = "

def linear_recurrence(a, x, axis):
    \"\"\"h[t] = a[t] * h[t-1] + x[t] along axis, with h[-1] = 0.\"\"\"
    a, x = torch.movedim(a, axis, 0), torch.movedim(x, axis, 0)
    state, h = torch.zeros_like(x[0]), []
    for t in range(x.shape[0]):
        state = a[t] * state + x[t]
        h.append(state)
    return torch.movedim(torch.stack(h), 0, axis)
";

/// How a kernel's reference function is introduced.
pub struct Signature<'a> {
    /// The kernel's inputs (tensors and scalars) in the order of its parameters; the
    /// function's parameters follow it (any it leaves out come last).
    pub inputs: &'a [String],
    pub doc: &'a str,
}

/// A Python expression for size `n` read off the shape of one of the input tensors
/// `params` (an axis of extent `n`, or `k * n`).
fn size_from_inputs(n: &str, params: &[String], env: &ShapeEnv) -> Option<String> {
    use crate::launch::{BinOp, Expr};
    let mut scaled = None;
    for t in params.iter().filter(|p| env.tensors.contains_key(*p)) {
        for (a, e) in env.dim_exprs.get(t)?.iter().enumerate() {
            match e {
                Expr::Size(m) if m == n => return Some(format!("{t}.shape[{a}]")),
                Expr::Bin(BinOp::Mul, x, y) => match (&**x, &**y) {
                    (Expr::Int(k), Expr::Size(m)) | (Expr::Size(m), Expr::Int(k))
                        if m == n && *k > 0 =>
                    {
                        scaled.get_or_insert(format!("{t}.shape[{a}] // {k}"));
                    }
                    _ => {}
                },
                _ => {}
            }
        }
    }
    scaled
}

/// A formula as Python: local variables it assigns first (`s = torch.softmax(x, dim=1)`,
/// a sub-formula it uses more than once), then the expression.
pub(super) struct PyExpr {
    pub locals: Vec<(String, String)>,
    pub value: String,
}

/// An expression with no locals.
pub(super) fn plain(value: String) -> PyExpr {
    PyExpr {
        locals: Vec::new(),
        value,
    }
}

pub(super) fn python_function(
    outputs: &[Output],
    env: &ShapeEnv,
    name: &str,
    imports: &str,
    expr: &dyn Fn(&Formula) -> PyExpr,
    kernel: Option<&Signature>,
) -> Result<String, FormulaError> {
    check(outputs, env)?;
    let mut params = parameters(outputs);
    if let Some(k) = kernel {
        params.sort_by_key(|p| k.inputs.iter().position(|i| i == p).unwrap_or(usize::MAX));
    }
    // Sizes that slices and broadcasts use: keyword parameters, defaulting to `env`'s.
    let mut sig = params.clone();
    let mut sizes: Vec<String> = Vec::new();
    for o in outputs {
        for n in o.formula.size_names() {
            if !sizes.contains(&n) && !params.contains(&n) {
                sizes.push(n);
            }
        }
    }
    // A size read off an input's shape is computed from it (so the function works at
    // every size); any other is a keyword parameter defaulting to `env`'s value.
    let mut body = String::new();
    for n in &sizes {
        match size_from_inputs(n, &params, env) {
            Some(e) => body += &format!("    {n} = {e}\n"),
            None => {
                let v = env.sizes.get(n).copied().unwrap_or(0);
                sig.push(format!("{n}={v}"));
            }
        }
    }
    let doc = kernel
        .map(|k| format!("    \"\"\"{}\"\"\"\n", k.doc))
        .unwrap_or_default();
    let mut s = format!("{imports}\n\ndef {name}({}):\n{doc}{body}", sig.join(", "));
    let mut results = Vec::new();
    for o in outputs {
        let var = if params.contains(&o.name) {
            format!("{}_out", o.name)
        } else {
            o.name.clone()
        };
        let e = expr(&o.formula);
        for (local, value) in &e.locals {
            s += &format!("    {local} = {value}\n");
        }
        s += &format!("    {var} = {}\n", e.value);
        results.push(var);
    }
    s += &format!("    return {}\n", results.join(", "));
    Ok(s)
}
