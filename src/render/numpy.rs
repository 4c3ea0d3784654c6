//! The NumPy rendering: a runnable reference function.
//!
//! ```python
//! import math
//! import numpy as np
//!
//!
//! def kernel(x):
//!     y = np.exp(x - np.max(x, axis=1, keepdims=True)) / np.sum(..., axis=1, keepdims=True)
//!     return y
//! ```
//! Conventions: parameters are the input tensors then the scalars, each in order of
//! first occurrence; outputs are returned in order (a tuple for several). A kernel's
//! reference ([`kernel_function`]) takes its inputs and returns its outputs in the
//! order of the kernel's parameters, and its docstring says what it returns. `np.exp`,
//! `np.exp2`, `np.log`, `np.log2`, `np.sqrt`, `1 / np.sqrt(..)` for rsqrt,
//! `np.vectorize(math.erf)` for erf (no SciPy); `np.maximum`/`np.minimum`; `np.where`;
//! `np.sum/max/min/mean(e, axis=k, keepdims=True)`; `a @ b`; `a.T` for 2-D operands,
//! `np.swapaxes(a, -1, -2)` otherwise; constants are Python literals of the same f64
//! (see [`super::torch`] for the shared rules).

use super::infix::{Dialect, Infix};
use crate::formula::{Formula, FormulaError, Output, ShapeEnv};

/// The helper a `linear_recurrence` calls: the loop over the axis it means.
const RECURRENCE: &str = "

def linear_recurrence(a, x, axis):
    \"\"\"h[t] = a[t] * h[t-1] + x[t] along axis, with h[-1] = 0.\"\"\"
    a, x = np.moveaxis(a, axis, 0), np.moveaxis(x, axis, 0)
    h = np.empty(x.shape, dtype=np.result_type(a, x))
    state = np.zeros(x.shape[1:], dtype=h.dtype)
    for t in range(x.shape[0]):
        state = a[t] * state + x[t]
        h[t] = state
    return np.moveaxis(h, 0, axis)
";

/// One formula as a NumPy expression.
pub fn expr(f: &Formula, env: &ShapeEnv) -> String {
    Infix {
        dialect: Dialect::Numpy,
        env: Some(env),
    }
    .expr(f)
}

/// A Python module defining `def {name}(...)` that computes `outputs`.
pub fn function(outputs: &[Output], env: &ShapeEnv, name: &str) -> Result<String, FormulaError> {
    module(outputs, env, name, None)
}

/// [`function`] as a kernel's reference (see [`super::torch::Signature`]).
pub fn kernel_function(
    outputs: &[Output],
    env: &ShapeEnv,
    name: &str,
    sig: &super::torch::Signature,
) -> Result<String, FormulaError> {
    module(outputs, env, name, Some(sig))
}

fn module(
    outputs: &[Output],
    env: &ShapeEnv,
    name: &str,
    sig: Option<&super::torch::Signature>,
) -> Result<String, FormulaError> {
    let mut imports = "import math\nimport numpy as np\n".to_string();
    if super::torch::uses_recurrence(outputs) {
        imports.push_str(RECURRENCE);
    }
    if super::torch::uses_rand(outputs) {
        imports.push_str(&super::torch::rand_helper(
            "np.array(out, dtype=np.float64)",
        ));
    }
    super::torch::python_function(
        outputs,
        env,
        name,
        &imports,
        &|f| super::torch::plain(expr(f, env)),
        sig,
    )
}
