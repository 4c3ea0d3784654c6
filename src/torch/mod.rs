//! PyTorch specs: the expression language of `lift check --spec '...'` and its op library.
//!
//! Architecture invariant: the instance reading depends only on `term` (the all-sizes
//! reading, `sizes`, also on `formula` and `launch`). It turns a spec text such
//! as `y = torch.softmax(x, dim=-1)` into one term per output element, over the same
//! input names the kernels' symbolic execution uses (`x[i,j]` is
//! `terms.input("x", &[i, j])`, a symbolic scalar is `terms.param("eps")`). Parsing and
//! instantiation return a [`SpecError`] with a column; they never panic.
//!
//! The language is a small subset of Python:
//! - statements `name = expr` (or `a, b = expr` to destructure a tuple, e.g. a `chunk`),
//!   separated by `;` or newlines, `#` comments; later statements may use earlier names;
//! - **every assigned name is an output**, in order of first assignment, except names
//!   starting with `_` (temporaries, e.g. `_h = x @ w; y = torch.relu(_h)`); `check`
//!   further reads an assigned name the kernel does not write as a temporary;
//! - numbers (`2`, `0.5`, `1e-5`), names, `+ - * / ** @ // %`, unary `-`, comparisons
//!   `> < >= <= == !=` (boolean tensors), `& | ~` on booleans, parentheses, tuples and
//!   lists, attribute access, calls with positional and keyword arguments, indexing with
//!   integers, slices `a:b:c`, `...` and `None`;
//! - `torch.f`, `torch.nn.functional.f`, `F.f`, `torch.special.f` and the method form
//!   `x.f(...)` all resolve to the one op library in `ops` (see
//!   [`SpecProgram::supported_ops`]).
//! - constants `math.pi`, `math.e`, `math.tau`, `math.inf`, `math.nan` (and `torch.pi`,
//!   `torch.e`, `torch.inf`, `torch.nan`), and `math`'s functions of one number
//!   (`math.sqrt(2)`, `math.log(3.0)`, `math.exp`, `math.fabs`, ...), which are the op of
//!   the same name on that number; a tensor argument is an error (use `torch.f`).
//!
//! One evaluator: `eval` is the only interpreter of the language, generic over a
//! `Reading` (what a tensor and an int are, what an op computes): `instance` reads a spec
//! at one launch's shapes (terms), `sizes` at every size (formulas over size
//! expressions). Both bind calls with the one `ops::bind_call` and look ops up in the one
//! op table (`ops/table.rs`, which also says how each op is read for every size or why
//! it is not); an elementwise op is read for every size by running its instance
//! definition on placeholders, so only shape-changing ops are written twice (a formula
//! beside the instance definition), and `check` compares the two readings at the
//! instance before it trusts the formulas. Modules: `lex`, `parse` (text to statements),
//! `program` (`parse`, `SpecProgram`), `value` (values, generic over the domain),
//! `eval`, `instance`, `sizes/`, `ops/` (the op library), `tensor`, `float`, `error`.
//!
//! Semantics: tensors are real (elements are terms); integers are exact; a decimal literal
//! is rounded to [`Env::float`] (exactly, from its decimal value) before it becomes a
//! constant, and so are the irrational constants of the op library (`sqrt(2/pi)` in
//! `gelu`). Broadcasting and negative dims follow NumPy/PyTorch. Reductions build one
//! n-ary term per output element; `softmax` is `exp(x - max) / sum(exp(x - max))`.

mod error;
mod eval;
mod float;
mod instance;
mod lex;
mod ops;
mod parse;
mod program;
mod sizes;
mod tensor;
mod value;

pub use error::SpecError;
pub use float::FloatType;
pub use instance::{Env, SpecOutput};
pub use program::{parse, SpecProgram};
pub use sizes::SymEnv;
