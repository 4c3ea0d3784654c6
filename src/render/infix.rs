//! The one infix printer behind `text`, `torch` and `numpy`: the three share Python's
//! operator precedence (`<` < `+ -` < `* / @` < unary `-` < `**`/`^` < atoms) and differ
//! only in function names, constants and reductions.

use crate::formula::{
    cmp_symbol, BinaryOp, Formula, Geometry, ReduceOp, ShapeEnv, Size, TakeKind, UnaryOp, WindowOp,
};
use crate::term::format_const;
use num_rational::BigRational;
use num_traits::Signed;

pub(super) const P_CMP: u8 = 1;
pub(super) const P_ADD: u8 = 2;
pub(super) const P_MUL: u8 = 3;
pub(super) const P_NEG: u8 = 4;
pub(super) const P_POW: u8 = 5;
pub(super) const P_ATOM: u8 = 6;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    Text,
    Torch,
    Numpy,
}

pub(super) struct Infix<'a> {
    pub dialect: Dialect,
    /// Shapes, where the dialect needs them (`.T` versus `swapaxes` in Python).
    pub env: Option<&'a ShapeEnv>,
}

/// A constant as the term printer writes it (`3`, `0.375`, `0.044715f32`, `1/3`), with
/// its precedence on this module's scale.
pub(super) fn text_const(c: &BigRational) -> (String, u8) {
    let (s, _) = format_const(c);
    let p = if s.starts_with('-') {
        P_NEG
    } else if s.contains('/') {
        P_MUL
    } else {
        P_ATOM
    };
    (s, p)
}

/// A constant as a Python literal denoting the same f64 where the value is one (the
/// shortest round-trip repr, e.g. `0.044714998453855515` for the f32 `0.044715f32`),
/// else `p / q`.
pub(super) fn python_const(c: &BigRational) -> (String, u8) {
    let sign = if c.is_negative() { "-" } else { "" };
    let (s, _) = format_const(&c.abs());
    let body = if s.ends_with("f32") || s.ends_with("f64") {
        let f: f64 = num_traits::ToPrimitive::to_f64(&c.abs()).unwrap_or(f64::NAN);
        format!("{f:?}")
    } else if let Some((p, q)) = s.split_once('/') {
        return (format!("{sign}{p} / {q}"), P_MUL);
    } else {
        s
    };
    let p = if sign.is_empty() { P_ATOM } else { P_NEG };
    (format!("{sign}{body}"), p)
}

impl Infix<'_> {
    pub fn expr(&self, f: &Formula) -> String {
        self.repr(f, false).0
    }

    fn at(&self, f: &Formula, min: u8, elementwise: bool) -> String {
        let (s, p) = self.repr(f, elementwise);
        if p < min {
            format!("({s})")
        } else {
            s
        }
    }

    fn ndim(&self, f: &Formula) -> Option<usize> {
        self.env.and_then(|e| f.shape(e).ok()).map(|s| s.len())
    }

    /// `f` printed, with its precedence; `elementwise` says the parent is an element-wise
    /// operation (so a `keepdim` reduction broadcasts back).
    fn repr(&self, f: &Formula, elementwise: bool) -> (String, u8) {
        let d = self.dialect;
        let py = d != Dialect::Text;
        match f {
            Formula::Input(n) | Formula::Scalar(n) => (n.clone(), P_ATOM),
            Formula::Const(c) if py => python_const(c),
            Formula::Const(c) => text_const(c),
            Formula::Inf { negative } => {
                let sign = if *negative { "-" } else { "" };
                match d {
                    Dialect::Torch => (format!("float('{sign}inf')"), P_ATOM),
                    Dialect::Numpy => (format!("{sign}np.inf"), P_NEG),
                    Dialect::Text => (format!("{sign}inf"), P_NEG),
                }
            }
            Formula::Unary(UnaryOp::Neg, a) => (format!("-{}", self.at(a, P_NEG, true)), P_NEG),
            Formula::Unary(op, a) => {
                let arg = self.at(a, 0, true);
                match d {
                    Dialect::Text => (format!("{}({arg})", op.name()), P_ATOM),
                    Dialect::Numpy => match op {
                        UnaryOp::Rsqrt => (format!("1 / np.sqrt({arg})"), P_MUL),
                        UnaryOp::Erf => (format!("np.vectorize(math.erf)({arg})"), P_ATOM),
                        _ => (format!("np.{}({arg})", op.name()), P_ATOM),
                    },
                    Dialect::Torch => {
                        let arg = if a.is_number() {
                            format!("torch.as_tensor({arg}, dtype=torch.float64)")
                        } else {
                            arg
                        };
                        let name = match op {
                            // torch.round rounds half to even, as rint does
                            UnaryOp::Rint => "round",
                            op => op.name(),
                        };
                        (format!("torch.{name}({arg})"), P_ATOM)
                    }
                }
            }
            Formula::Binary(op @ (BinaryOp::Max | BinaryOp::Min), a, b) => {
                let (sa, sb) = (self.at(a, 0, true), self.at(b, 0, true));
                let is_max = *op == BinaryOp::Max;
                let s = match d {
                    Dialect::Text => format!("{}({sa}, {sb})", if is_max { "max" } else { "min" }),
                    Dialect::Numpy => format!("np.{}({sa}, {sb})", op.name()),
                    Dialect::Torch => {
                        let kw = if is_max { "min" } else { "max" };
                        match (a.is_number(), b.is_number()) {
                            (true, true) => {
                                format!("{}({sa}, {sb})", if is_max { "max" } else { "min" })
                            }
                            (false, true) => format!("torch.clamp({sa}, {kw}={sb})"),
                            (true, false) => format!("torch.clamp({sb}, {kw}={sa})"),
                            (false, false) => format!("torch.{}({sa}, {sb})", op.name()),
                        }
                    }
                };
                (s, P_ATOM)
            }
            Formula::Binary(op @ (BinaryOp::FMax | BinaryOp::FMin), a, b) => {
                let (sa, sb) = (self.at(a, 0, true), self.at(b, 0, true));
                let s = match d {
                    Dialect::Text => format!("{}({sa}, {sb})", op.name()),
                    Dialect::Numpy => format!("np.{}({sa}, {sb})", op.name()),
                    Dialect::Torch => {
                        // torch.fmax takes tensors only.
                        let t = |f: &Formula, s: String| {
                            if f.is_number() {
                                format!("torch.as_tensor({s}, dtype=torch.float64)")
                            } else {
                                s
                            }
                        };
                        format!("torch.{}({}, {})", op.name(), t(a, sa), t(b, sb))
                    }
                };
                (s, P_ATOM)
            }
            Formula::Binary(op, a, b) => {
                let (sym, p) = match op {
                    BinaryOp::Add => ("+", P_ADD),
                    BinaryOp::Sub => ("-", P_ADD),
                    BinaryOp::Mul => ("*", P_MUL),
                    _ => ("/", P_MUL),
                };
                // A matrix product beside `*` or `/` is parenthesized for the reader
                // (Python would group them left to right).
                let side = |x: &Formula, min: u8| match x {
                    Formula::MatMul(..) if p == P_MUL => self.at(x, P_ATOM, true),
                    _ => self.at(x, min, true),
                };
                (format!("{} {sym} {}", side(a, p), side(b, p + 1)), p)
            }
            Formula::Powi(a, k) => {
                let sym = if py { " ** " } else { "^" };
                (format!("{}{sym}{k}", self.at(a, P_ATOM, true)), P_POW)
            }
            Formula::Cmp(op, a, b) => (
                format!(
                    "{} {} {}",
                    self.at(a, P_ADD, true),
                    cmp_symbol(*op),
                    self.at(b, P_ADD, true)
                ),
                P_CMP,
            ),
            Formula::Select(c, a, b) => {
                let prefix = match d {
                    Dialect::Text => "",
                    Dialect::Numpy => "np.",
                    Dialect::Torch => "torch.",
                };
                (
                    format!(
                        "{prefix}where({}, {}, {})",
                        self.at(c, 0, true),
                        self.at(a, 0, true),
                        self.at(b, 0, true)
                    ),
                    P_ATOM,
                )
            }
            Formula::Reduce {
                op,
                axis,
                keepdim,
                arg,
            } => {
                let e = self.at(arg, 0, false);
                let s = match d {
                    Dialect::Text => {
                        let kd = if *keepdim && !elementwise {
                            ", keepdim=True"
                        } else {
                            ""
                        };
                        format!("{}({e}, axis={axis}{kd})", op.name())
                    }
                    Dialect::Numpy => {
                        let kd = if *keepdim { ", keepdims=True" } else { "" };
                        format!("np.{}({e}, axis={axis}{kd})", op.name())
                    }
                    Dialect::Torch => {
                        let name = match op {
                            ReduceOp::Sum => "sum",
                            ReduceOp::Max => "amax",
                            ReduceOp::Min => "amin",
                            ReduceOp::Mean => "mean",
                            ReduceOp::Prod => "prod",
                            ReduceOp::ArgMax => "argmax",
                            ReduceOp::ArgMin => "argmin",
                        };
                        let kd = if *keepdim { ", keepdim=True" } else { "" };
                        format!("torch.{name}({e}, dim={axis}{kd})")
                    }
                };
                (s, P_ATOM)
            }
            Formula::MatMul(a, b) => (
                format!(
                    "{} @ {}",
                    self.at(a, P_MUL + 1, false),
                    self.at(b, P_MUL + 1, false)
                ),
                P_MUL,
            ),
            Formula::Arange(n) => {
                let n = size_text(n);
                let s = match d {
                    Dialect::Text => format!("arange({n})"),
                    Dialect::Numpy => format!("np.arange({n}, dtype=np.float64)"),
                    Dialect::Torch => format!("torch.arange({n}, dtype=torch.float64)"),
                };
                (s, P_ATOM)
            }
            // NumPy and torch: the helper `triton_rand` the module defines.
            Formula::Rand { seed, offset } => {
                let o = self.at(offset, 0, false);
                let name = if py { "triton_rand" } else { "rand" };
                (format!("{name}({seed}, {o})"), P_ATOM)
            }
            Formula::Recurrence { axis, a, x } => {
                let (a, x) = (self.at(a, 0, false), self.at(x, 0, false));
                // NumPy and torch: the helper `linear_recurrence` the module defines.
                (format!("linear_recurrence({a}, {x}, axis={axis})"), P_ATOM)
            }
            Formula::Scan { op, axis, arg } => {
                let e = self.at(arg, 0, false);
                let s = match d {
                    Dialect::Text => format!("{}({e}, axis={axis})", op.name()),
                    Dialect::Numpy => format!("np.{}({e}, axis={axis})", op.name()),
                    Dialect::Torch => format!("torch.{}({e}, dim={axis})", op.name()),
                };
                (s, P_ATOM)
            }
            Formula::Tri {
                arg,
                upper,
                diagonal,
            } => {
                // The text dialect prints a broadcast number bare (the heading gives
                // the shape); under a triangle the shape is the point: `ones(T, S)`.
                let e = match &**arg {
                    Formula::Broadcast { arg: c, shape } if d == Dialect::Text && c.is_number() => {
                        let dims: Vec<String> = shape.iter().map(size_text).collect();
                        match &**c {
                            Formula::Const(one) if num_traits::One::is_one(one) => {
                                format!("ones({})", dims.join(", "))
                            }
                            c => format!("full(({}), {})", dims.join(", "), self.expr(c)),
                        }
                    }
                    _ => self.at(arg, 0, false),
                };
                let name = if *upper { "triu" } else { "tril" };
                let k = match (diagonal, d) {
                    (0, _) => String::new(),
                    (k, Dialect::Numpy) => format!(", k={k}"),
                    (k, _) => format!(", diagonal={k}"),
                };
                let s = match d {
                    Dialect::Text => format!("{name}({e}{k})"),
                    Dialect::Numpy => format!("np.{name}({e}{k})"),
                    Dialect::Torch => format!("torch.{name}({e}{k})"),
                };
                (s, P_ATOM)
            }
            Formula::Transpose(a) => {
                // A vector broadcast to a matrix and transposed is NumPy's `v[:, None]`
                // (`v.T` of a 1-D `v` would read as `v` itself, along the last axis).
                if let Formula::Broadcast { arg: v, shape } = &**a {
                    if d == Dialect::Text && shape.len() == 2 && self.ndim(v) == Some(1) {
                        return (format!("{}[:, None]", self.at(v, P_ATOM, false)), P_ATOM);
                    }
                }
                let s = self.at(a, P_ATOM, false);
                let two_d = self.ndim(a) == Some(2);
                match d {
                    Dialect::Text => (format!("{s}.T"), P_ATOM),
                    _ if two_d => (format!("{s}.T"), P_ATOM),
                    Dialect::Numpy => (format!("np.swapaxes({s}, -1, -2)"), P_ATOM),
                    Dialect::Torch => (format!("{s}.transpose(-2, -1)"), P_ATOM),
                }
            }
            Formula::Cat { axis, args } => {
                let parts: Vec<String> = args.iter().map(|a| self.at(a, 0, false)).collect();
                let parts = parts.join(", ");
                let s = match d {
                    Dialect::Text => format!("cat([{parts}], axis={axis})"),
                    Dialect::Numpy => format!("np.concatenate([{parts}], axis={axis})"),
                    Dialect::Torch => format!("torch.cat([{parts}], dim={axis})"),
                };
                (s, P_ATOM)
            }
            Formula::Slice {
                arg,
                axis,
                start,
                end,
            } => {
                let mut idx = vec![":".to_string(); *axis];
                let lo = match start {
                    Size::Int(0) => String::new(),
                    e => size_text(e),
                };
                let hi = end.as_ref().map(size_text).unwrap_or_default();
                idx.push(format!("{lo}:{hi}"));
                (
                    format!("{}[{}]", self.at(arg, P_ATOM, false), idx.join(", ")),
                    P_ATOM,
                )
            }
            Formula::Unsqueeze { arg, axis } => {
                // `x[:, None]`: the same in NumPy, PyTorch and the text form.
                let mut idx = vec![":".to_string(); *axis];
                idx.push("None".into());
                (
                    format!("{}[{}]", self.at(arg, P_ATOM, false), idx.join(", ")),
                    P_ATOM,
                )
            }
            Formula::Reshape { arg, shape } => {
                // `.reshape(B, T // 4, 4)`: the method, in NumPy and PyTorch alike.
                let dims: Vec<String> = shape.iter().map(size_text).collect();
                let tuple = match dims.len() {
                    1 => format!("({},)", dims[0]),
                    _ => format!("({})", dims.join(", ")),
                };
                let s = match d {
                    Dialect::Text => format!("reshape({}, {tuple})", self.at(arg, 0, false)),
                    // (a 0-d reshape needs the empty tuple itself)
                    _ if dims.is_empty() => format!("{}.reshape(())", self.at(arg, P_ATOM, false)),
                    _ => format!(
                        "{}.reshape({})",
                        self.at(arg, P_ATOM, false),
                        dims.join(", ")
                    ),
                };
                (s, P_ATOM)
            }
            Formula::Broadcast { arg, shape } => {
                let dims: Vec<String> = shape.iter().map(size_text).collect();
                let tuple = match dims.len() {
                    1 => format!("({},)", dims[0]),
                    _ => format!("({})", dims.join(", ")),
                };
                match d {
                    // The heading says the shape: `y[N] = 0`.
                    Dialect::Text => self.repr(arg, elementwise),
                    Dialect::Numpy => {
                        let a = self.at(arg, 0, false);
                        let a = if arg.is_number() {
                            format!("np.float64({a})")
                        } else {
                            a
                        };
                        (format!("np.broadcast_to({a}, {tuple})"), P_ATOM)
                    }
                    Dialect::Torch => {
                        let a = self.at(arg, 0, false);
                        (
                            format!(
                                "torch.broadcast_to(torch.as_tensor({a}, dtype=torch.float64), {tuple})"
                            ),
                            P_ATOM,
                        )
                    }
                }
            }
            Formula::Window { op, args, geometry } => (self.window(*op, args, geometry), P_ATOM),
            Formula::Take {
                kind,
                axis,
                data,
                index,
            } => (self.take(*kind, *axis, data, index), P_ATOM),
        }
    }

    /// A gather. Text: `take(x, t, axis=1)` (`x[i, t[i]]`) and `w[idx]` (`w[:, idx]`
    /// along axis 1). NumPy and PyTorch read a position outside the axis as the
    /// formula does, as 0 (where PyTorch's own ops raise): the data gets a zero slice
    /// appended along the axis and such a position reads it; positions are cast to
    /// integers (references pass every tensor as float64).
    fn take(&self, kind: TakeKind, axis: usize, data: &Formula, index: &Formula) -> String {
        let x = self.at(data, P_ATOM, false);
        let i = self.at(index, 0, false);
        let colons = ":, ".repeat(axis);
        let (padded, safe) = match self.dialect {
            Dialect::Text => {
                return match kind {
                    TakeKind::Along => format!("take({x}, {i}, axis={axis})"),
                    TakeKind::Index => format!("{x}[{colons}{i}]"),
                }
            }
            Dialect::Numpy => (
                format!(
                    "np.concatenate([{x}, np.zeros_like(np.take({x}, [0], axis={axis}))], axis={axis})"
                ),
                format!(
                    "np.where(({i} >= 0) & ({i} < np.shape({x})[{axis}]), {i}, np.shape({x})[{axis}]).astype(np.int64)"
                ),
            ),
            Dialect::Torch => (
                format!("torch.cat([{x}, torch.zeros_like({x}.narrow({axis}, 0, 1))], dim={axis})"),
                format!(
                    "torch.where(({i} >= 0) & ({i} < {x}.shape[{axis}]), {i}, {x}.shape[{axis}]).long()"
                ),
            ),
        };
        match (kind, self.dialect) {
            (TakeKind::Index, _) => format!("{padded}[{colons}{safe}]"),
            (TakeKind::Along, Dialect::Torch) => {
                format!("torch.gather({padded}, {axis}, {safe}.unsqueeze({axis})).squeeze({axis})")
            }
            (TakeKind::Along, _) => format!(
                "np.take_along_axis({padded}, np.expand_dims({safe}, {axis}), axis={axis}).squeeze({axis})"
            ),
        }
    }

    /// Pooling and convolution: PyTorch's call in text and torch; in NumPy, the windows
    /// of the padded input (`sliding_window_view`, strided and dilated by slicing)
    /// reduced or contracted with the weight.
    fn window(&self, op: WindowOp, args: &[Formula], g: &Geometry) -> String {
        let nd = g.nd();
        let ops: Vec<String> = args.iter().map(|a| self.at(a, 0, false)).collect();
        if self.dialect == Dialect::Numpy {
            return numpy_window(op, &ops, g);
        }
        // One number where every windowed axis agrees, else a tuple.
        let arg = |v: &[usize]| match v {
            [a, rest @ ..] if rest.iter().all(|b| b == a) => a.to_string(),
            _ => format!(
                "({})",
                v.iter()
                    .map(|a| a.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        let mut kw = Vec::new();
        if op != WindowOp::Conv {
            kw.push(format!("kernel_size={}", arg(&g.kernel)));
        }
        if op == WindowOp::Conv && g.stride.iter().any(|&s| s != 1)
            || op != WindowOp::Conv && g.stride != g.kernel
        {
            kw.push(format!("stride={}", arg(&g.stride)));
        }
        if g.padding.iter().any(|&p| p != 0) {
            kw.push(format!("padding={}", arg(&g.padding)));
        }
        if g.dilation.iter().any(|&d| d != 1) {
            kw.push(format!("dilation={}", arg(&g.dilation)));
        }
        let call = format!("{}({})", op.name(nd), [ops, kw].concat().join(", "));
        match self.dialect {
            Dialect::Torch => format!("torch.nn.functional.{call}"),
            _ => call,
        }
    }
}

/// NumPy for a window formula (see [`Infix::window`]).
fn numpy_window(op: WindowOp, ops: &[String], g: &Geometry) -> String {
    let nd = g.nd();
    let x = &ops[0];
    let axes = (1..=nd)
        .rev()
        .map(|a| format!("-{a}"))
        .collect::<Vec<_>>()
        .join(", ");
    let pad_value = if op == WindowOp::MaxPool {
        "-np.inf"
    } else {
        "0.0"
    };
    let pads = g
        .padding
        .iter()
        .map(|p| format!("({p}, {p})"))
        .collect::<Vec<_>>()
        .join(", ");
    let padded = format!(
        "np.pad({x}, [(0, 0)] * (np.ndim({x}) - {nd}) + [{pads}], constant_values={pad_value})"
    );
    // The dilated kernel's span along each windowed axis.
    let spans: Vec<String> = (0..nd)
        .map(|a| {
            let k = match op {
                WindowOp::Conv => format!("np.shape({})[{}]", ops[1], 2 + a),
                _ => g.kernel[a].to_string(),
            };
            match g.dilation[a] {
                1 => k,
                d => format!("{d} * ({k} - 1) + 1"),
            }
        })
        .collect();
    let steps: Vec<String> = g
        .stride
        .iter()
        .chain(&g.dilation)
        .map(|s| {
            if *s == 1 {
                ":".into()
            } else {
                format!("::{s}")
            }
        })
        .collect();
    let windows = format!(
        "np.lib.stride_tricks.sliding_window_view({padded}, ({},), axis=({axes},))[..., {}]",
        spans.join(", "),
        steps.join(", ")
    );
    let last: String = (1..=nd).map(|a| format!("-{a}, ")).collect();
    match op {
        WindowOp::MaxPool => format!("np.max({windows}, axis=({last}))"),
        WindowOp::AvgPool => format!("np.mean({windows}, axis=({last}))"),
        WindowOp::Conv => {
            // windows: [N, Ci, L.., K..]; weight [Co, Ci, K..] -> [N, Co, L..].
            let l: String = "lmn"[..nd].to_string();
            let k: String = "ijk"[..nd].to_string();
            let conv = format!("np.einsum('nc{l}{k},oc{k}->no{l}', {windows}, {})", ops[1]);
            match ops.get(2) {
                Some(b) => format!("({conv} + np.reshape({b}, (-1{})))", ", 1".repeat(nd)),
                None => conv,
            }
        }
    }
}

/// A size expression as Python reads it (`H`, `2 * H`), without outer parentheses.
pub(super) fn size_text(e: &Size) -> String {
    let s = e.to_string();
    match s.strip_prefix('(').and_then(|t| t.strip_suffix(')')) {
        Some(inner) if matches!(e, Size::Bin(..)) && !s.starts_with("cdiv") => inner.to_string(),
        _ => s,
    }
}
