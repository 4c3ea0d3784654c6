//! Formulas: the tensor language `lift` lifts kernels to, e.g.
//! `y[M,N] = exp(x - max(x, axis=1)) / sum(exp(x - max(x, axis=1)), axis=1)`.
//!
//! Architecture invariant: this module depends only on `term` (and `launch`, to read a
//! [`ShapeEnv`] off a launch). A [`Formula`] is a plain tree over named launch tensors and
//! scalars; it has a shape ([`Formula::shape`]) and, at concrete sizes, one term per
//! output element ([`Formula::instantiate`]), built with the same `Terms` constructors the
//! kernels' execution and the PyTorch specs use, so that `decide` can compare them.
//! Nothing here panics on a malformed formula: shape errors are [`FormulaError`]s.
//!
//! Grammar (kept small on purpose; idioms such as `sigmoid` are recognised by renderers
//! and `simplify`, not by the grammar):
//! ```text
//! f ::= Input(name)                 a launch tensor
//!     | Scalar(name)                a real scalar argument (0-d)
//!     | Const(p/q)                  an exact rational (0-d)
//!     | Unary(op, f)                neg exp exp2 log log2 sqrt rsqrt tanh sin cos erf abs
//!     | Binary(op, f, f)            add sub mul div max min, NumPy broadcasting
//!     | Powi(f, k)                  integer power
//!     | Cmp(op, f, f)               < <= > >= == != (0/1-valued), broadcasting
//!     | Select(c, f, f)             where(c, a, b), broadcasting over all three
//!     | Reduce { op, axis, keepdim, arg }   sum max min mean prod argmax argmin over
//!                                   one axis (argmax/argmin: PyTorch's first index)
//!     | Scan { op, axis, arg }      cumsum / cumprod along one axis
//!     | Recurrence { axis, a, x }   linear_recurrence: h[t] = a[t]·h[t-1] + x[t], h[-1] = 0
//!     | Tri { arg, upper, diagonal }  tril / triu of the last two axes (zeros elsewhere)
//!     | MatMul(f, f)                NumPy `@` (1-D operands and batch dims as NumPy)
//!     | Transpose(f)                swaps the last two axes (needs ≥ 2 axes)
//!     | Cat(axis, [f, ...])         concatenation along an axis (equal ranks, other axes equal)
//!     | Slice(f, axis, start, end)  `f[.., start:end]` along one axis; bounds are size
//!                                   expressions (`H`, `2 * H`), `end` absent = to the end
//!     | Unsqueeze(f, axis)          `f` with a new axis of extent 1 at `axis`
//!     | Broadcast(f, [size, ...])   `f` broadcast to a shape of size expressions (a
//!                                   constant output, `y[N] = 0`)
//!     | Reshape(f, [size, ...])     `f`'s elements, row-major, in a shape of size
//!                                   expressions with the same count (`x.view(-1, 4)`)
//!     | Take(kind, axis, f, index)  a gather at an integer tensor's values: `Along`,
//!                                   `x[i, t[i]]`; `Index`, `w[idx]` (0 outside the axis)
//!     | Window(op, [f, ...], geometry)  max/avg pooling and convolution over the
//!                                   trailing axes, PyTorch's geometry (`window.rs`)
//! ```
//! Sizes in `Slice`/`Broadcast`/`Reshape` are launch size expressions ([`Size`]), evaluated at the
//! sizes of the [`ShapeEnv`], so one formula holds at every instance.
//! Semantics: elements are reals; `mean = sum · (1/n)` with `1/n` an exact constant;
//! reductions are one n-ary `sum`/`maxn`/`minn` term per output element; the product of a
//! matmul is one n-ary `sum` of binary products. There is no `Let`: shared
//! subexpressions are repeated (renderers print them once per occurrence).
//!
//! [`expr`] holds the tree and its constructors, [`shape`] the shape rules and the
//! [`ShapeEnv`], [`mod@instantiate`] the terms at concrete sizes, [`window`] the pooling and
//! convolution geometry.

mod expr;
mod instantiate;
mod shape;
pub mod window;

/// A size expression of a launch (`N`, `2 * H`, `N1 + N2`), as in shapes and bounds.
pub use crate::launch::Expr as Size;
pub use expr::{
    cmp_name, cmp_symbol, size_names, BinaryOp, Formula, Output, ReduceOp, ScanOp, TakeKind,
    UnaryOp,
};
pub use instantiate::Products;
pub use shape::{broadcast, matmul_dims, Dim, FormulaError, ShapeEnv};
pub use window::{Geometry, WindowOp};
