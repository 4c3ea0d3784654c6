//! A spec read for every size: the same statements as [`super::eval`], but each value is
//! a [`Formula`] over the launch's tensors with a shape of size expressions, so `verify`
//! can prove a kernel equal to the spec at every size (`lift check`, unbounded step).
//!
//! Invariant: an op's meaning is PyTorch's, as the instance evaluator defines it.
//! Elementwise ops are not written again here: the op library itself is run on one
//! placeholder scalar per tensor argument ([`Reader::elementwise`]) and the term it
//! builds is read back as a formula, so the two readings share one definition. Ops that
//! change shapes (reductions, softmax, norms, matrix products, slicing, `cat`) are
//! formulas written here after their instance definitions in `ops`; the caller checks
//! that the formula, instantiated at the check's launch, is `decide`-equal to the
//! instance reading element by element before it is trusted. Anything else — an
//! argument this reading cannot honour for every size, a size used as a real — is an
//! error, never a guess.

use super::eval::{at, err};
use super::ops::{self, canonical};
use super::parse::{Arg, Expr, ExprKind, Stmt, Sub};
use super::tensor::Tensor;
use super::value::{parse_decimal, Cx, Value};
use super::{FloatType, SpecError, SpecProgram};
use crate::formula::{BinaryOp, Formula, Output, ReduceOp, ScanOp, Size, UnaryOp};
use crate::launch::BinOp;
use crate::term::{CmpOp, Node, TermId, Terms};
use num_rational::BigRational;
use std::collections::{BTreeMap, BTreeSet, HashMap};

type R<T> = Result<T, SpecError>;

/// Keyword arguments in call order.
type Keywords = Vec<(String, V)>;

/// What the names of a spec stand for at every size.
pub struct SymEnv<'a> {
    /// Input tensors and their shapes as size expressions.
    pub tensors: &'a BTreeMap<String, Vec<Size>>,
    /// Symbolic real scalars.
    pub scalars: &'a BTreeSet<String>,
    /// Real scalars fixed to numbers.
    pub values: &'a BTreeMap<String, f64>,
    /// The launch's size names.
    pub sizes: &'a BTreeSet<String>,
    pub float: FloatType,
}

/// A value of the all-sizes reading.
#[derive(Clone, Debug)]
enum V {
    /// A real (or bool) tensor; shape as size expressions.
    T(Formula, Vec<Size>),
    /// A Python int, possibly a size expression (`N`, `2 * H`).
    Int(Size),
    Bool(bool),
    None,
    Str(String),
    Tuple(Vec<V>),
    Module(&'static str),
    Func(&'static str),
    /// Python's `float`, or a function of `math` on one number as its op's canonical
    /// name (`math.log` is `log`).
    Builtin(&'static str),
    Method(Box<V>, String),
}

/// Ops that act on each element alone (broadcasting their tensor arguments): read
/// through the op library on placeholders.
const ELEMENTWISE: &[&str] = &[
    "abs",
    "neg",
    "exp",
    "exp2",
    "expm1",
    "log",
    "log2",
    "log1p",
    "sqrt",
    "rsqrt",
    "reciprocal",
    "square",
    "pow",
    "sin",
    "cos",
    "tanh",
    "erf",
    "sigmoid",
    "relu",
    "relu6",
    "leaky_relu",
    "gelu",
    "silu",
    "softplus",
    "elu",
    "hardtanh",
    "selu",
    "hardsigmoid",
    "hardswish",
    "mish",
    "softsign",
    "logsigmoid",
    "clamp",
    "where",
    "maximum",
    "minimum",
    "fmax",
    "fmin",
    "add",
    "sub",
    "mul",
    "div",
    "gt",
    "lt",
    "ge",
    "le",
    "eq",
    "ne",
];

impl SpecProgram {
    /// The outputs as formulas valid at every size (see the module documentation; the
    /// caller must still compare them with [`SpecProgram::instantiate`] at one instance).
    pub fn formulas(&self, terms: &mut Terms, env: &SymEnv) -> Result<Vec<Output>, SpecError> {
        let mut r = Reader {
            cx: Cx {
                terms,
                float: env.float,
            },
            env,
            vars: HashMap::new(),
        };
        for s in &self.stmts {
            r.stmt(s)?;
        }
        let mut out = Vec::new();
        for name in &self.outputs {
            match r.vars.get(name) {
                Some(V::T(f, _)) => out.push(Output::new(name, f.clone())),
                Some(V::Int(Size::Int(i))) => out.push(Output::new(name, Formula::int(*i))),
                // A size or a tuple of sizes (`t = q.shape[1]`): a temporary, never an
                // output's reading (the caller requires one for each kernel output).
                Some(V::Int(_) | V::Tuple(_)) => {}
                _ => return err(1, format!("output `{name}` is not a tensor at every size")),
            }
        }
        Ok(out)
    }
}

struct Reader<'a, 't> {
    cx: Cx<'t>,
    env: &'a SymEnv<'a>,
    vars: HashMap<String, V>,
}

fn int(v: i64) -> Size {
    Size::Int(v)
}

/// `a op b`, kept in a canonical linear form (`k·N + c`, names sorted) where both are
/// linear in the sizes, so equal extents (`H` and `2 * H - H`) compare equal.
fn bin(op: BinOp, a: &Size, b: &Size) -> Size {
    let lin = match (op, linear(a), linear(b)) {
        (BinOp::Add, Some(x), Some(y)) => Some(combine(&x, &y, 1)),
        (BinOp::Sub, Some(x), Some(y)) => Some(combine(&x, &y, -1)),
        (BinOp::Mul, Some(x), Some(y)) if x.0.is_empty() => Some(scale(&y, x.1)),
        (BinOp::Mul, Some(x), Some(y)) if y.0.is_empty() => Some(scale(&x, y.1)),
        _ => None,
    };
    match lin.and_then(|l| from_linear(&l)) {
        Some(e) => e,
        None => Size::Bin(op, Box::new(a.clone()), Box::new(b.clone())),
    }
}

/// The `-1` extent of a reshape of `from` to `to` (where the `-1` stands as 1): the
/// product of `from` over that of `to`, with the extents both have cancelled first so
/// that `[B, 4·NT] → [B, -1, 4]` reads `4·NT // 4` (which the prover reduces to `NT`),
/// not a quotient of products.
fn inferred_extent(from: &[Size], to: &[Size]) -> Size {
    let same = |a: &Size, b: &Size| a == b || linear(a).is_some_and(|x| linear(b) == Some(x));
    let mut rest: Vec<&Size> = from.iter().collect();
    let mut divisor = int(1);
    for t in to {
        match rest.iter().position(|r| same(r, t)) {
            Some(i) => {
                rest.remove(i);
            }
            None => divisor = bin(BinOp::Mul, &divisor, t),
        }
    }
    let total = rest.iter().fold(int(1), |acc, r| bin(BinOp::Mul, &acc, r));
    match divisor {
        Size::Int(1) => total,
        d => Size::Bin(BinOp::FloorDiv, Box::new(total), Box::new(d)),
    }
}

/// A size expression as `Σ k·name + c`, when it is one (no overflow).
type Linear = (BTreeMap<String, i64>, i64);

fn linear(e: &Size) -> Option<Linear> {
    match e {
        Size::Int(c) => Some((BTreeMap::new(), *c)),
        Size::Size(n) => Some((BTreeMap::from([(n.clone(), 1)]), 0)),
        Size::Neg(a) => Some(scale(&linear(a)?, -1)),
        Size::Bin(op, a, b) => {
            let (x, y) = (linear(a)?, linear(b)?);
            match op {
                BinOp::Add => Some(combine(&x, &y, 1)),
                BinOp::Sub => Some(combine(&x, &y, -1)),
                BinOp::Mul if x.0.is_empty() => Some(scale(&y, x.1)),
                BinOp::Mul if y.0.is_empty() => Some(scale(&x, y.1)),
                _ => None,
            }
        }
    }
}

fn combine(x: &Linear, y: &Linear, sign: i64) -> Linear {
    let mut out = x.clone();
    for (n, k) in &y.0 {
        *out.0.entry(n.clone()).or_insert(0) += sign * k;
    }
    out.0.retain(|_, k| *k != 0);
    out.1 += sign * y.1;
    out
}

fn scale(x: &Linear, k: i64) -> Linear {
    let mut out: Linear = (
        x.0.iter().map(|(n, c)| (n.clone(), c * k)).collect(),
        x.1 * k,
    );
    out.0.retain(|_, c| *c != 0);
    out
}

fn from_linear(l: &Linear) -> Option<Size> {
    let mut e: Option<Size> = None;
    for (n, &k) in &l.0 {
        let term = if k == 1 {
            Size::Size(n.clone())
        } else {
            Size::Bin(
                BinOp::Mul,
                Box::new(Size::Int(k)),
                Box::new(Size::Size(n.clone())),
            )
        };
        e = Some(match e {
            None => term,
            Some(acc) => Size::Bin(BinOp::Add, Box::new(acc), Box::new(term)),
        });
    }
    Some(match e {
        None => Size::Int(l.1),
        Some(acc) if l.1 == 0 => acc,
        Some(acc) if l.1 < 0 => Size::Bin(BinOp::Sub, Box::new(acc), Box::new(Size::Int(-l.1))),
        Some(acc) => Size::Bin(BinOp::Add, Box::new(acc), Box::new(Size::Int(l.1))),
    })
}

/// The exact value of a float of the spec's type.
fn exact(v: f64) -> Result<BigRational, String> {
    BigRational::from_float(v).ok_or_else(|| format!("{v} is not a finite number"))
}

impl Reader<'_, '_> {
    fn stmt(&mut self, s: &Stmt) -> R<()> {
        let v = self.expr(&s.value)?;
        if s.destructure {
            let V::Tuple(items) = v else {
                return err(s.value.col, "only a tuple can be destructured".into());
            };
            if items.len() != s.targets.len() {
                return err(s.value.col, "tuple length differs from the names".into());
            }
            for ((name, _), v) in s.targets.iter().zip(items) {
                self.vars.insert(name.clone(), v);
            }
        } else {
            self.vars.insert(s.targets[0].0.clone(), v);
        }
        Ok(())
    }

    fn expr(&mut self, e: &Expr) -> R<V> {
        let col = e.col;
        match &e.kind {
            ExprKind::Name(n) => self.name(n, col),
            ExprKind::Int(v) => Ok(V::Int(int(*v))),
            ExprKind::Float(s) => {
                let r = parse_decimal(s).ok_or_else(|| SpecError {
                    col,
                    message: format!("malformed number `{s}`"),
                })?;
                let v = at(col, exact(self.env.float.round(&r)))?;
                Ok(V::T(Formula::Const(v), vec![]))
            }
            ExprKind::Str(s) => Ok(V::Str(s.clone())),
            ExprKind::Tuple(items) | ExprKind::List(items) => Ok(V::Tuple(
                items.iter().map(|i| self.expr(i)).collect::<R<_>>()?,
            )),
            ExprKind::Unary(op, x) => {
                let v = self.expr(x)?;
                match (*op, v) {
                    ("+", v) => Ok(v),
                    ("-", V::Int(i)) => Ok(V::Int(bin(BinOp::Sub, &int(0), &i))),
                    ("-", v @ V::T(..)) => self.elementwise(col, vec![v], |cx, a| {
                        let t = cx.tensor(&a[0])?;
                        Ok(Value::Tensor(t.map(cx.terms, |t, e| t.neg(e))))
                    }),
                    (op, _) => err(col, format!("unary `{op}` is not read for all sizes")),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                self.binary(col, op, x, y)
            }
            ExprKind::Attr(x, name) => {
                let v = self.expr(x)?;
                self.attr(v, name, col)
            }
            ExprKind::Call(f, args) => {
                let callee = self.expr(f)?;
                let (mut pos, kw) = self.args(args)?;
                match callee {
                    V::Func(op) => self.call(col, op, pos, kw),
                    V::Builtin(f) => self.builtin(col, f, pos, kw),
                    V::Method(recv, name) => {
                        let Some(op) = canonical(&name) else {
                            return err(col, format!("method `.{name}` is not known"));
                        };
                        pos.insert(0, *recv);
                        self.call(col, op, pos, kw)
                    }
                    _ => err(col, "not callable".into()),
                }
            }
            ExprKind::Index(x, subs) => {
                let v = self.expr(x)?;
                self.index(v, subs, col)
            }
            ExprKind::Ellipsis => err(col, "`...` is not read for all sizes".into()),
        }
    }

    fn args(&mut self, args: &[Arg]) -> R<(Vec<V>, Keywords)> {
        let mut pos = Vec::new();
        let mut kw = Vec::new();
        for a in args {
            let v = self.expr(&a.value)?;
            match &a.name {
                Some(n) => kw.push((n.clone(), v)),
                None => pos.push(v),
            }
        }
        Ok((pos, kw))
    }

    fn name(&mut self, n: &str, col: usize) -> R<V> {
        if let Some(v) = self.vars.get(n) {
            return Ok(v.clone());
        }
        if let Some(shape) = self.env.tensors.get(n) {
            return Ok(V::T(Formula::input(n), shape.clone()));
        }
        if self.env.scalars.contains(n) {
            return Ok(V::T(Formula::scalar(n), vec![]));
        }
        if let Some(v) = self.env.values.get(n) {
            return Ok(V::T(Formula::Const(at(col, exact(*v))?), vec![]));
        }
        if self.env.sizes.contains(n) {
            return Ok(V::Int(Size::Size(n.to_string())));
        }
        match n {
            "torch" => Ok(V::Module("torch")),
            "F" | "functional" => Ok(V::Module("torch.nn.functional")),
            "nn" => Ok(V::Module("torch.nn")),
            "math" => Ok(V::Module("math")),
            "float" => Ok(V::Builtin("float")),
            "None" => Ok(V::None),
            "True" => Ok(V::Bool(true)),
            "False" => Ok(V::Bool(false)),
            _ => err(col, format!("unknown name `{n}`")),
        }
    }

    fn attr(&mut self, v: V, name: &str, col: usize) -> R<V> {
        match v {
            V::Module(m) => {
                let sub = match (m, name) {
                    ("torch", "nn") => Some("torch.nn"),
                    ("torch.nn", "functional") => Some("torch.nn.functional"),
                    ("torch", "special") => Some("torch.special"),
                    _ => None,
                };
                if let Some(s) = sub {
                    return Ok(V::Module(s));
                }
                if m == "math" {
                    return self.math_attr(name, col);
                }
                match canonical(name) {
                    Some(op) => Ok(V::Func(op)),
                    None => err(col, format!("`{m}.{name}` is not read for all sizes")),
                }
            }
            V::T(f, shape) => match name {
                "T" if shape.len() == 2 => Ok(V::T(
                    Formula::Transpose(Box::new(f)),
                    vec![shape[1].clone(), shape[0].clone()],
                )),
                // Sizes as size expressions (`t = q.shape[1]` is the size `T`).
                "shape" => Ok(V::Tuple(shape.into_iter().map(V::Int).collect())),
                "ndim" => Ok(V::Int(Size::Int(shape.len() as i64))),
                "T" | "mT" => err(col, format!("`.{name}` is not read for all sizes here")),
                _ => Ok(V::Method(Box::new(V::T(f, shape)), name.to_string())),
            },
            _ => err(col, format!("attribute `{name}` is not read for all sizes")),
        }
    }

    fn binary(&mut self, col: usize, op: &'static str, x: V, y: V) -> R<V> {
        if let (V::Int(a), V::Int(b)) = (&x, &y) {
            let o = match op {
                "+" => BinOp::Add,
                "-" => BinOp::Sub,
                "*" => BinOp::Mul,
                "//" => BinOp::FloorDiv,
                _ => return err(col, format!("int `{op}` is not read for all sizes")),
            };
            return Ok(V::Int(bin(o, a, b)));
        }
        if op == "@" {
            return self.matmul(col, x, y);
        }
        self.elementwise(col, vec![x, y], move |cx, a| {
            ops::arith(cx, op, &a[0], &a[1])
        })
    }

    fn matmul(&mut self, col: usize, x: V, y: V) -> R<V> {
        match (x, y) {
            (V::T(a, sa), V::T(b, sb)) if sa.len() == 2 && sb.len() == 2 => Ok(V::T(
                Formula::MatMul(Box::new(a), Box::new(b)),
                vec![sa[0].clone(), sb[1].clone()],
            )),
            _ => err(
                col,
                "only 2-D matrix products are read for all sizes".into(),
            ),
        }
    }

    /// Runs an elementwise op of the library on one placeholder scalar per tensor
    /// argument and reads the term it builds back as a formula over the arguments.
    fn elementwise(
        &mut self,
        col: usize,
        args: Vec<V>,
        op: impl FnOnce(&mut Cx, Vec<Value>) -> Result<Value, String>,
    ) -> R<V> {
        let mut bound: HashMap<TermId, Formula> = HashMap::new();
        let mut shapes: Vec<(usize, Vec<Size>)> = Vec::new();
        let mut vals = Vec::new();
        for (k, a) in args.into_iter().enumerate() {
            vals.push(match a {
                V::T(f, shape) => {
                    let t = &mut *self.cx.terms;
                    let p = t.placeholder(&format!("arg{k}"));
                    // A bool argument stays bool (where's condition, `&`).
                    let ph = if is_bool(&f) {
                        let z = t.zero();
                        t.cmp(CmpOp::Ne, p, z)
                    } else {
                        p
                    };
                    bound.insert(ph, f);
                    shapes.push((k, shape));
                    Value::Tensor(Tensor::scalar(ph))
                }
                V::Int(Size::Int(i)) => Value::Int(i),
                V::Int(s) => {
                    return err(
                        col,
                        format!("the size `{s}` used as a number is not read for all sizes"),
                    )
                }
                V::Bool(b) => Value::Bool(b),
                V::None => Value::None,
                V::Str(s) => Value::Str(s),
                _ => return err(col, "an argument not read for all sizes".into()),
            });
        }
        let out = at(col, op(&mut self.cx, vals))?;
        let term = match out {
            Value::Tensor(t) if t.elems.len() == 1 => t.elems[0],
            _ => return err(col, "an elementwise op gave no scalar".into()),
        };
        let f = at(col, read_back(self.cx.terms, term, &bound))?;
        // The result's shape is every tensor argument's, broadcast.
        let mut shape: Vec<Size> = Vec::new();
        for (_, s) in &shapes {
            shape = at(col, broadcast(&shape, s))?;
        }
        let mut used: Vec<Size> = Vec::new();
        for (k, s) in &shapes {
            let name = format!("{}arg{k}", crate::term::PLACEHOLDER);
            if mentions(self.cx.terms, term, &name) {
                used = at(col, broadcast(&used, s))?;
            }
        }
        let f = if used == shape {
            f
        } else {
            Formula::Broadcast {
                arg: Box::new(f),
                shape: shape.clone(),
            }
        };
        Ok(V::T(f, shape))
    }

    fn call(&mut self, col: usize, op: &'static str, pos: Vec<V>, kw: Vec<(String, V)>) -> R<V> {
        if op == "masked_fill" {
            // Elementwise, but the result keeps the input's shape: the mask may not
            // widen it.
            let input = pos
                .first()
                .or_else(|| kw.iter().find(|(k, _)| k == "input").map(|(_, v)| v));
            let input_shape = match input {
                Some(V::T(_, s)) => s.clone(),
                _ => return err(col, "masked_fill needs a tensor input".into()),
            };
            let v = self.elementwise_call(col, op, pos, kw)?;
            if let V::T(_, s) = &v {
                if *s != input_shape {
                    return err(col, "masked_fill: the mask widens the input's shape".into());
                }
            }
            return Ok(v);
        }
        if ELEMENTWISE.contains(&op) {
            return self.elementwise_call(col, op, pos, kw);
        }
        let mut a = at(col, bind(op, pos, kw))?;
        match op {
            "contiguous" if a.rest_empty() => a.tensor(col, "input"),
            "sum" | "mean" | "amax" | "amin" => {
                let (f, shape) = a.tensor_parts(col, "input")?;
                if !matches!(a.get("dtype"), None | Some(V::None)) {
                    return err(col, format!("{op}(dtype=…) is not read for all sizes"));
                }
                let keepdim = a.flag(col, "keepdim")?;
                let dims = a.dims(col, "dim", shape.len())?;
                let rop = match op {
                    "sum" => ReduceOp::Sum,
                    "mean" => ReduceOp::Mean,
                    "amax" => ReduceOp::Max,
                    _ => ReduceOp::Min,
                };
                Ok(reduce(rop, f, shape, &dims, keepdim))
            }
            "prod" | "argmax" | "argmin" => {
                let (f, shape) = a.tensor_parts(col, "input")?;
                if !matches!(a.get("dtype"), None | Some(V::None)) {
                    return err(col, format!("{op}(dtype=…) is not read for all sizes"));
                }
                if shape.is_empty() {
                    return err(
                        col,
                        format!("{op} of a 0-d tensor is not read for all sizes"),
                    );
                }
                let keepdim = a.flag(col, "keepdim")?;
                let dims = a.dims(col, "dim", shape.len())?;
                let rop = match op {
                    "prod" => ReduceOp::Prod,
                    "argmax" => ReduceOp::ArgMax,
                    _ => ReduceOp::ArgMin,
                };
                // argmax over several axes indexes the flattened tensor: not a nest of
                // one-axis argmaxes.
                if rop != ReduceOp::Prod && dims.len() != 1 {
                    return err(
                        col,
                        format!("{op} without one `dim` (the flattened index) is not read for all sizes"),
                    );
                }
                Ok(reduce(rop, f, shape, &dims, keepdim))
            }
            "cumsum" | "cumprod" => {
                let (f, shape) = a.tensor_parts(col, "input")?;
                if !matches!(a.get("dtype"), None | Some(V::None)) {
                    return err(col, format!("{op}(dtype=…) is not read for all sizes"));
                }
                if shape.is_empty() {
                    return err(
                        col,
                        format!("{op} of a 0-d tensor is not read for all sizes"),
                    );
                }
                let [axis] = a.dims(col, "dim", shape.len())?[..] else {
                    return err(col, format!("{op} needs one dim"));
                };
                if a.get("dim").is_none() {
                    return err(col, format!("{op} needs `dim`"));
                }
                let sop = if op == "cumsum" {
                    ScanOp::Sum
                } else {
                    ScanOp::Prod
                };
                Ok(V::T(Formula::scan(sop, f, axis), shape))
            }
            "tril" | "triu" => {
                let (f, shape) = a.tensor_parts(col, "input")?;
                if shape.len() < 2 {
                    return err(col, format!("{op} needs a tensor of at least 2 dims"));
                }
                let diagonal = match a.get("diagonal") {
                    None => 0,
                    Some(V::Int(Size::Int(k))) => *k,
                    Some(_) => return err(col, format!("{op}: `diagonal` must be a constant int")),
                };
                Ok(V::T(f.tri(op == "triu", diagonal), shape))
            }
            "softmax" | "log_softmax" => {
                let (x, shape) = a.tensor_parts(col, "input")?;
                if !matches!(a.get("dtype"), None | Some(V::None)) {
                    return err(col, format!("{op}(dtype=…) is not read for all sizes"));
                }
                let d = a.dims(col, "dim", shape.len())?;
                let [d] = d[..] else {
                    return err(col, format!("{op} needs one dim"));
                };
                Ok(V::T(softmax(op == "log_softmax", x, d), shape))
            }
            "var" | "std" => {
                let (x, shape) = a.tensor_parts(col, "input")?;
                let population = matches!(a.get("unbiased"), Some(V::Bool(false)))
                    || matches!(a.get("correction"), Some(V::Int(Size::Int(0))));
                if !population {
                    return err(
                        col,
                        format!(
                            "{op} with Bessel's correction divides by N - 1, which is not \
                             read for all sizes (write unbiased=False)"
                        ),
                    );
                }
                let keepdim = a.flag(col, "keepdim")?;
                let dims = a.dims(col, "dim", shape.len())?;
                let m = reduce_f(ReduceOp::Mean, x.clone(), &dims, true);
                let d = Formula::binary(BinaryOp::Sub, x, m);
                let sq = Formula::Powi(Box::new(d), 2);
                let V::T(v, shape) = reduce(ReduceOp::Mean, sq, shape, &dims, keepdim) else {
                    unreachable!("reduce gives a tensor")
                };
                Ok(V::T(if op == "std" { v.sqrt() } else { v }, shape))
            }
            "logsumexp" => {
                // `m + log(sum(exp(x - m)))`, m the max kept as a unit axis
                // (`ops::reductions::logsumexp`).
                let (x, shape) = a.tensor_parts(col, "input")?;
                let keepdim = a.flag(col, "keepdim")?;
                let dims = a.dims(col, "dim", shape.len())?;
                let m = reduce_f(ReduceOp::Max, x.clone(), &dims, true);
                let e = Formula::binary(BinaryOp::Sub, x, m.clone()).exp();
                let s = reduce_f(ReduceOp::Sum, e, &dims, true);
                let r = Formula::binary(BinaryOp::Add, m, s.log());
                let mut kept = shape;
                for &d in &dims {
                    kept[d] = int(1);
                }
                // Without keepdim, the reduced axes (now of length 1) are dropped: a sum
                // over a unit axis is its one element.
                Ok(if keepdim {
                    V::T(r, kept)
                } else {
                    reduce(ReduceOp::Sum, r, kept, &dims, false)
                })
            }
            "linear" => {
                let x = a.take(col, "input")?;
                let (w, ws) = a.tensor_parts(col, "weight")?;
                if ws.len() != 2 {
                    return err(
                        col,
                        "linear with a 1-D weight is not read for all sizes".into(),
                    );
                }
                let wt = V::T(
                    Formula::Transpose(Box::new(w)),
                    vec![ws[1].clone(), ws[0].clone()],
                );
                let y = self.matmul(col, x, wt)?;
                match a.get("bias").cloned() {
                    None | Some(V::None) => Ok(y),
                    Some(b) => self.binary(col, "+", y, b),
                }
            }
            "layer_norm" => self.layer_norm(col, &mut a),
            "matmul" | "mm" => {
                let x = a.take(col, "input")?;
                let y = a.take(col, "other")?;
                self.matmul(col, x, y)
            }
            "t" => {
                let (f, shape) = a.tensor_parts(col, "input")?;
                if shape.len() != 2 {
                    return err(col, "t() of a tensor that is not 2-D".into());
                }
                Ok(V::T(
                    Formula::Transpose(Box::new(f)),
                    vec![shape[1].clone(), shape[0].clone()],
                ))
            }
            "unsqueeze" => {
                let (f, mut shape) = a.tensor_parts(col, "input")?;
                if a.get("dim").is_none() {
                    return err(col, "unsqueeze needs a dim".into());
                }
                let d = a.dims(col, "dim", shape.len() + 1)?;
                let [d] = d[..] else {
                    return err(col, "unsqueeze needs one dim".into());
                };
                shape.insert(d, int(1));
                Ok(V::T(f.unsqueeze(d), shape))
            }
            "cat" => {
                let V::Tuple(parts) = a.take(col, "tensors")? else {
                    return err(col, "cat needs a list of tensors".into());
                };
                let mut args = Vec::new();
                let mut shapes = Vec::new();
                for p in parts {
                    let V::T(f, s) = p else {
                        return err(col, "cat of something not a tensor".into());
                    };
                    args.push(f);
                    shapes.push(s);
                }
                let Some(first) = shapes.first().cloned() else {
                    return err(col, "cat of no tensors".into());
                };
                let d = a.dims(col, "dim", first.len())?;
                let axis = *d.first().unwrap_or(&0);
                if a.get("dim").is_none() && first.is_empty() {
                    return err(col, "cat of 0-d tensors".into());
                }
                let mut shape = first.clone();
                for s in &shapes[1..] {
                    if s.len() != first.len() || (0..s.len()).any(|k| k != axis && s[k] != first[k])
                    {
                        return err(col, "cat of shapes not equal off its axis".into());
                    }
                    shape[axis] = bin(BinOp::Add, &shape[axis], &s[axis]);
                }
                Ok(V::T(Formula::Cat { axis, args }, shape))
            }
            "reshape" => {
                let (f, from) = a.tensor_parts(col, "input")?;
                let want: Vec<V> = match a.take(col, "shape")? {
                    V::Tuple(items) => items,
                    v => vec![v],
                };
                let mut to = Vec::new();
                let mut inferred = None;
                for (k, v) in want.into_iter().enumerate() {
                    match v {
                        V::Int(Size::Int(-1)) if inferred.is_none() => {
                            inferred = Some(k);
                            to.push(int(1));
                        }
                        V::Int(s) => to.push(s),
                        _ => return err(col, "reshape: a size that is not an int".into()),
                    }
                }
                if let Some(k) = inferred {
                    to[k] = inferred_extent(&from, &to);
                }
                Ok(V::T(f.reshape(to.clone()), to))
            }
            "zeros" | "ones" => {
                let shape = match a.get("size") {
                    Some(V::Tuple(items)) => items
                        .iter()
                        .map(|v| match v {
                            V::Int(s) => Ok(s.clone()),
                            _ => err(col, format!("{op}: a size that is not an int")),
                        })
                        .collect::<R<Vec<_>>>()?,
                    _ => return err(col, format!("{op} needs sizes")),
                };
                let c = Formula::int(i64::from(op == "ones"));
                Ok(V::T(
                    Formula::Broadcast {
                        arg: Box::new(c),
                        shape: shape.clone(),
                    },
                    shape,
                ))
            }
            _ => err(col, format!("`{op}` is not read for all sizes yet")),
        }
    }

    /// `math.pi`, `math.e`, `math.tau` (rounded to the float type, as the bounded
    /// reader rounds them) and `math.f` of one number.
    fn math_attr(&mut self, name: &str, col: usize) -> R<V> {
        let c = match name {
            "pi" => Some(std::f64::consts::PI),
            "e" => Some(std::f64::consts::E),
            "tau" => Some(std::f64::consts::TAU),
            _ => None,
        };
        if let Some(c) = c {
            let r = at(col, exact(c))?;
            let v = at(col, exact(self.env.float.round(&r)))?;
            return Ok(V::T(Formula::Const(v), vec![]));
        }
        match ops::math_function(name) {
            Some(op) => Ok(V::Builtin(op)),
            None => err(col, format!("`math.{name}` is not read for all sizes")),
        }
    }

    /// `float(x)` of an int or a finite decimal string, and `math.f(x)` of one number:
    /// a 0-d formula. Infinities are not read for all sizes (formulas are real).
    fn builtin(&mut self, col: usize, f: &'static str, pos: Vec<V>, kw: Vec<(String, V)>) -> R<V> {
        let [x] = &pos[..] else {
            return err(col, format!("`{f}` takes exactly one argument"));
        };
        if !kw.is_empty() {
            return err(col, format!("`{f}` takes no keyword arguments"));
        }
        let x = match x {
            V::Int(Size::Int(i)) => V::T(Formula::int(*i), vec![]),
            V::Bool(b) => V::T(Formula::int(i64::from(*b)), vec![]),
            V::T(g, s) if s.is_empty() => V::T(g.clone(), vec![]),
            V::Str(text) if f == "float" => {
                let r = parse_decimal(text.trim()).ok_or_else(|| SpecError {
                    col,
                    message: format!(
                        "float('{text}') is not read for all sizes (not a finite number)"
                    ),
                })?;
                let v = at(col, exact(self.env.float.round(&r)))?;
                V::T(Formula::Const(v), vec![])
            }
            _ => {
                return err(
                    col,
                    format!("`{f}` of this argument is not read for all sizes"),
                )
            }
        };
        if f == "float" {
            return Ok(x);
        }
        // `f` is an op of the library (`math_attr` made it with `math_function`).
        self.elementwise_call(col, f, vec![x], Vec::new())
    }

    fn elementwise_call(
        &mut self,
        col: usize,
        op: &'static str,
        pos: Vec<V>,
        kw: Vec<(String, V)>,
    ) -> R<V> {
        let n = pos.len();
        let names: Vec<String> = kw.iter().map(|(k, _)| k.clone()).collect();
        let all: Vec<V> = pos
            .into_iter()
            .chain(kw.into_iter().map(|(_, v)| v))
            .collect();
        self.elementwise(col, all, move |cx, mut vals| {
            let kw: Vec<(String, Value)> = names.into_iter().zip(vals.split_off(n)).collect();
            ops::call(cx, op, vals, kw)
        })
    }

    /// `(x - mean) * rsqrt(var + eps) * weight + bias` over the trailing axes
    /// `normalized_shape` names (`ops::layer_norm`).
    fn layer_norm(&mut self, col: usize, a: &mut Args) -> R<V> {
        let (x, shape) = a.tensor_parts(col, "input")?;
        let ns = match a.get("normalized_shape") {
            Some(V::Tuple(items)) => items.clone(),
            Some(v @ V::Int(_)) => vec![v.clone()],
            _ => return err(col, "layer_norm needs normalized_shape".into()),
        };
        if ns.is_empty() || ns.len() > shape.len() {
            return err(col, "layer_norm: normalized_shape does not fit".into());
        }
        let first = shape.len() - ns.len();
        for (k, v) in ns.iter().enumerate() {
            match v {
                V::Int(s) if *s == shape[first + k] => {}
                _ => {
                    return err(
                        col,
                        format!(
                            "layer_norm: normalized_shape must be the input's trailing \
                             sizes ({}) at every size",
                            shape[first..]
                                .iter()
                                .map(|s| s.to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                }
            }
        }
        let dims: Vec<usize> = (first..shape.len()).collect();
        let eps = match a.get("eps") {
            None => {
                let r = parse_decimal("1e-5").expect("a decimal");
                Formula::Const(at(col, exact(self.env.float.round(&r)))?)
            }
            Some(V::T(f, s)) if s.is_empty() => f.clone(),
            _ => return err(col, "layer_norm: eps must be a real".into()),
        };
        let m = reduce_f(ReduceOp::Mean, x.clone(), &dims, true);
        let d = Formula::binary(BinaryOp::Sub, x, m);
        let sq = Formula::Powi(Box::new(d.clone()), 2);
        let v = reduce_f(ReduceOp::Mean, sq, &dims, true);
        let r = Formula::unary(UnaryOp::Rsqrt, Formula::binary(BinaryOp::Add, v, eps));
        let mut y = Formula::binary(BinaryOp::Mul, d, r);
        for (name, op) in [("weight", BinaryOp::Mul), ("bias", BinaryOp::Add)] {
            match a.get(name) {
                None | Some(V::None) => {}
                Some(V::T(f, s)) if s[..] == shape[first..] => {
                    y = Formula::binary(op, y, f.clone());
                }
                Some(_) => {
                    return err(
                        col,
                        format!("layer_norm: {name} must have normalized_shape"),
                    )
                }
            }
        }
        Ok(V::T(y, shape))
    }

    fn index(&mut self, v: V, subs: &[Sub], col: usize) -> R<V> {
        if let V::Tuple(items) = &v {
            // `x.shape[1]`: a constant int index into a tuple.
            let [Sub::Expr(e)] = subs else {
                return err(col, "a tuple is indexed by one int".into());
            };
            let V::Int(Size::Int(i)) = self.expr(e)? else {
                return err(col, "a tuple is indexed by a constant int".into());
            };
            let n = items.len() as i64;
            let j = if i < 0 { i + n } else { i };
            return match usize::try_from(j).ok().and_then(|j| items.get(j)) {
                Some(v) => Ok(v.clone()),
                None => err(col, format!("tuple index {i} out of range ({n} elements)")),
            };
        }
        let V::T(mut f, mut shape) = v else {
            return err(col, "only tensors are indexed for all sizes".into());
        };
        // Each index as a slice or a new axis (`None`), `...` expanded into full slices.
        enum Ix<'s> {
            Slice(&'s Option<Expr>, &'s Option<Expr>, &'s Option<Expr>),
            NewAxis,
            Ellipsis,
        }
        let mut ixs = Vec::with_capacity(subs.len());
        for s in subs {
            ixs.push(match s {
                Sub::Slice(a, b, c) => Ix::Slice(a, b, c),
                Sub::Expr(e) if matches!(e.kind, ExprKind::Ellipsis) => Ix::Ellipsis,
                Sub::Expr(e) => {
                    match self.expr(e)? {
                        V::None => Ix::NewAxis,
                        _ => return err(
                            col,
                            "indexing other than slices, `...` and None is not read for all sizes"
                                .into(),
                        ),
                    }
                }
            });
        }
        let used = ixs.iter().filter(|i| matches!(i, Ix::Slice(..))).count();
        if used > shape.len() {
            return err(col, "too many indices".into());
        }
        if ixs.iter().filter(|i| matches!(i, Ix::Ellipsis)).count() > 1 {
            return err(
                col,
                "an index can only have a single ellipsis (`...`)".into(),
            );
        }
        const FULL: (Option<Expr>, Option<Expr>, Option<Expr>) = (None, None, None);
        let mut full: Vec<Ix> = Vec::new();
        for ix in ixs {
            match ix {
                Ix::Ellipsis => {
                    full.extend((used..shape.len()).map(|_| Ix::Slice(&FULL.0, &FULL.1, &FULL.2)))
                }
                ix => full.push(ix),
            }
        }
        let mut axis = 0;
        for s in full {
            let (a, b, step) = match s {
                Ix::NewAxis => {
                    f = f.unsqueeze(axis);
                    shape.insert(axis, int(1));
                    axis += 1;
                    continue;
                }
                Ix::Slice(a, b, step) => (a, b, step),
                Ix::Ellipsis => unreachable!("expanded above"),
            };
            let this = axis;
            axis += 1;
            let axis = this;
            if step.is_some() {
                return err(col, "a slice step is not read for all sizes".into());
            }
            let n = shape[axis].clone();
            let bound = |it: &mut Self, e: &Option<Expr>| -> R<Option<Size>> {
                match e {
                    None => Ok(None),
                    Some(e) => match it.expr(e)? {
                        V::Int(Size::Int(i)) if i < 0 => err(
                            col,
                            "a negative slice bound is not read for all sizes".into(),
                        ),
                        // Python counts a negative bound from the end of the axis: a
                        // bound that is negative at some sizes means two things.
                        V::Int(s) if !at_least(&s, &int(0)) => err(
                            col,
                            format!(
                                "the slice bound `{s}` is negative at some sizes, where Python counts it from the end of the axis; such a slice is not read for all sizes"
                            ),
                        ),
                        V::Int(s) => Ok(Some(s)),
                        V::None => Ok(None),
                        _ => err(col, "a slice bound that is not an int".into()),
                    },
                }
            };
            let start = bound(self, a)?.unwrap_or(int(0));
            let end = bound(self, b)?;
            // PyTorch clamps bounds to the axis; read them as they are only where they
            // never pass it (`H` in an axis of `2 * H`), else as `min(bound, n)`.
            let clamp = |s: Size| -> Size {
                if within(&s, &n) {
                    s
                } else {
                    bin(BinOp::Min, &s, &n)
                }
            };
            let start = clamp(start);
            let end = end.map(clamp);
            // Python's slice is empty where its end is before its start.
            if let Some(e) = &end {
                if !at_least(e, &start) {
                    return err(
                        col,
                        format!(
                            "the slice `{start}:{e}` is empty at some sizes (its end before its start); not read for all sizes"
                        ),
                    );
                }
            }
            if start == int(0) && end.as_ref().is_none_or(|e| *e == n) {
                continue;
            }
            let len_end = end.clone().unwrap_or_else(|| n.clone());
            shape[axis] = bin(BinOp::Sub, &len_end, &start);
            f = Formula::Slice {
                arg: Box::new(f),
                axis,
                start,
                end,
            };
        }
        Ok(V::T(f, shape))
    }
}

/// Whether `a >= b` at every size (sizes are at least 1), as far as a linear form or a
/// `min`/`max` split shows it (`false` when unsure).
fn at_least(a: &Size, b: &Size) -> bool {
    if *b == int(0) && nonneg(a) {
        return true;
    }
    match (a, b) {
        (Size::Bin(BinOp::Min, x, y), _) => at_least(x, b) && at_least(y, b),
        (Size::Bin(BinOp::Max, x, y), _) => at_least(x, b) || at_least(y, b),
        (_, Size::Bin(BinOp::Max, x, y)) => at_least(a, x) && at_least(a, y),
        (_, Size::Bin(BinOp::Min, x, y)) => at_least(a, x) || at_least(a, y),
        _ => match (linear(a), linear(b)) {
            // `Σ k·S + c` with every `k >= 0` is least at every size 1.
            (Some(x), Some(y)) => {
                let (ks, c) = combine(&x, &y, -1);
                ks.values().all(|k| *k >= 0) && ks.values().sum::<i64>() + c >= 0
            }
            _ => a == b,
        },
    }
}

/// Whether `e >= 0` at every size by its form: sizes and non-negative constants combined
/// by `+`, `*`, `//`, `%`, `cdiv`, `min` and `max`.
fn nonneg(e: &Size) -> bool {
    match e {
        Size::Int(i) => *i >= 0,
        Size::Size(_) => true,
        Size::Neg(_) => false,
        Size::Bin(BinOp::Sub, ..) => false,
        Size::Bin(BinOp::Max, x, y) => nonneg(x) || nonneg(y),
        Size::Bin(_, x, y) => nonneg(x) && nonneg(y),
    }
}

/// Whether `s <= n` at every size (sizes are at least 1): `n` itself, a constant not past
/// a constant, or `n` a positive multiple of `s`.
fn within(s: &Size, n: &Size) -> bool {
    match (s, n) {
        _ if s == n => true,
        (Size::Int(a), Size::Int(b)) => a <= b,
        (Size::Int(a), _) => *a <= 1,
        (_, Size::Bin(BinOp::Mul, x, y)) => {
            (**x == *s && matches!(**y, Size::Int(k) if k >= 1))
                || (**y == *s && matches!(**x, Size::Int(k) if k >= 1))
        }
        _ => false,
    }
}

/// Whether a formula is bool-valued (a comparison, or a select of bools).
fn is_bool(f: &Formula) -> bool {
    match f {
        Formula::Cmp(..) => true,
        Formula::Broadcast { arg, .. } => is_bool(arg),
        _ => false,
    }
}

/// NumPy broadcasting of two symbolic shapes: equal axes, or a constant 1.
fn broadcast(a: &[Size], b: &[Size]) -> Result<Vec<Size>, String> {
    let n = a.len().max(b.len());
    let one = int(1);
    (0..n)
        .map(|i| {
            let x = (i + a.len()).checked_sub(n).map(|k| &a[k]).unwrap_or(&one);
            let y = (i + b.len()).checked_sub(n).map(|k| &b[k]).unwrap_or(&one);
            if x == y || *y == one {
                Ok(x.clone())
            } else if *x == one {
                Ok(y.clone())
            } else {
                Err(format!(
                    "shapes `{x}` and `{y}` do not broadcast at every size"
                ))
            }
        })
        .collect()
}

/// `op` over `dims` (each an axis of `f`), one axis at a time from the last, so axis
/// numbers stay valid; a mean over several axes is the mean of means (exact in reals).
fn reduce_f(op: ReduceOp, mut f: Formula, dims: &[usize], keepdim: bool) -> Formula {
    let mut dims = dims.to_vec();
    dims.sort_unstable();
    for &axis in dims.iter().rev() {
        f = Formula::Reduce {
            op,
            axis,
            keepdim,
            arg: Box::new(f),
        };
    }
    f
}

fn reduce(op: ReduceOp, f: Formula, mut shape: Vec<Size>, dims: &[usize], keepdim: bool) -> V {
    let f = reduce_f(op, f, dims, keepdim);
    let mut dims = dims.to_vec();
    dims.sort_unstable();
    for &axis in dims.iter().rev() {
        if keepdim {
            shape[axis] = int(1);
        } else {
            shape.remove(axis);
        }
    }
    V::T(f, shape)
}

/// `exp(x - max) / sum(exp(x - max))`, or `(x - max) - log(sum(exp(x - max)))`, along
/// `dim` (`ops::softmax`, `ops::log_softmax`).
fn softmax(log: bool, x: Formula, dim: usize) -> Formula {
    let m = reduce_f(ReduceOp::Max, x.clone(), &[dim], true);
    let d = Formula::binary(BinaryOp::Sub, x, m);
    let e = d.clone().exp();
    let s = reduce_f(ReduceOp::Sum, e.clone(), &[dim], true);
    if log {
        Formula::binary(BinaryOp::Sub, d, s.log())
    } else {
        Formula::binary(BinaryOp::Div, e, s)
    }
}

/// Whether the param `name` occurs in `t`.
fn mentions(terms: &Terms, t: TermId, name: &str) -> bool {
    let mut stack = vec![t];
    let mut seen = BTreeSet::new();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        if let Node::Param(p) = terms.node(t) {
            if &**p == name {
                return true;
            }
        }
        stack.extend(terms.children(t));
    }
    false
}

/// The term an elementwise op built over the placeholders, as a formula over the
/// arguments the placeholders stand for.
fn read_back(
    terms: &Terms,
    t: TermId,
    bound: &HashMap<TermId, Formula>,
) -> Result<Formula, String> {
    if let Some(f) = bound.get(&t) {
        return Ok(f.clone());
    }
    let rd = |x: TermId| read_back(terms, x, bound);
    let fold = |op: BinaryOp, xs: &[TermId]| -> Result<Formula, String> {
        let mut it = xs.iter();
        let first = rd(*it.next().ok_or("an empty operation")?)?;
        it.try_fold(first, |acc, &x| Ok(Formula::binary(op, acc, rd(x)?)))
    };
    Ok(match terms.node(t) {
        Node::Const(c) => Formula::Const(c.clone()),
        Node::Add(xs) => fold(BinaryOp::Add, xs)?,
        Node::Mul(xs) => fold(BinaryOp::Mul, xs)?,
        Node::Max(xs) => fold(BinaryOp::Max, xs)?,
        Node::Min(xs) => fold(BinaryOp::Min, xs)?,
        Node::MaxNum(xs) => fold(BinaryOp::FMax, xs)?,
        Node::MinNum(xs) => fold(BinaryOp::FMin, xs)?,
        Node::Pow(x, k) => Formula::Powi(Box::new(rd(*x)?), *k),
        Node::Call(f, x) => match UnaryOp::from_func(*f) {
            Some(op) => Formula::unary(op, rd(*x)?),
            None => return Err(format!("`{f:?}` has no formula")),
        },
        Node::Cmp(op, a, b) => Formula::Cmp(*op, Box::new(rd(*a)?), Box::new(rd(*b)?)),
        Node::Select(c, a, b) => {
            Formula::Select(Box::new(rd(*c)?), Box::new(rd(*a)?), Box::new(rd(*b)?))
        }
        Node::Param(_) => return Err("an argument used in a way formulas cannot say".into()),
        Node::Inf { .. } | Node::NaN => return Err("an infinite or NaN constant".into()),
        other => return Err(format!("`{}` has no formula", other.op_name())),
    })
}

/// Arguments bound to PyTorch's parameter names (`ops::params`).
struct Args {
    names: &'static [&'static str],
    vals: Vec<Option<V>>,
}

fn bind(op: &'static str, pos: Vec<V>, kw: Vec<(String, V)>) -> Result<Args, String> {
    let names = ops::params(op);
    let mut vals: Vec<Option<V>> = vec![None; names.len()];
    let star = names.iter().position(|n| n.starts_with('*'));
    let fixed = star.unwrap_or(names.len());
    let mut pos = pos.into_iter();
    for slot in vals.iter_mut().take(fixed) {
        match pos.next() {
            Some(v) => *slot = Some(v),
            None => break,
        }
    }
    let rest: Vec<V> = pos.collect();
    match star {
        Some(s) if !rest.is_empty() => {
            vals[s] = Some(match <[V; 1]>::try_from(rest) {
                Ok([v @ V::Tuple(_)]) => v,
                Ok([v]) => V::Tuple(vec![v]),
                Err(rest) => V::Tuple(rest),
            })
        }
        None if !rest.is_empty() => return Err(format!("{op}: too many arguments")),
        _ => {}
    }
    for (k, v) in kw {
        let key = match k.as_str() {
            "axis" => "dim",
            "keepdims" => "keepdim",
            k => k,
        };
        match names.iter().position(|n| n.trim_start_matches('*') == key) {
            Some(i) if vals[i].is_none() => vals[i] = Some(v),
            _ => return Err(format!("{op}: argument `{k}`")),
        }
    }
    Ok(Args { names, vals })
}

impl Args {
    fn slot(&self, name: &str) -> Option<usize> {
        self.names
            .iter()
            .position(|n| n.trim_start_matches('*') == name)
    }
    fn get(&self, name: &str) -> Option<&V> {
        self.slot(name).and_then(|i| self.vals[i].as_ref())
    }
    fn take(&mut self, col: usize, name: &str) -> R<V> {
        match self.slot(name).and_then(|i| self.vals[i].take()) {
            Some(v) => Ok(v),
            None => err(col, format!("missing argument `{name}`")),
        }
    }
    fn rest_empty(&self) -> bool {
        self.get("args").is_none()
    }
    fn tensor(&mut self, col: usize, name: &str) -> R<V> {
        let (f, s) = self.tensor_parts(col, name)?;
        Ok(V::T(f, s))
    }
    fn tensor_parts(&mut self, col: usize, name: &str) -> R<(Formula, Vec<Size>)> {
        match self.take(col, name)? {
            V::T(f, s) => Ok((f, s)),
            _ => err(col, format!("`{name}` must be a tensor")),
        }
    }
    fn flag(&self, col: usize, name: &str) -> R<bool> {
        match self.get(name) {
            None => Ok(false),
            Some(V::Bool(b)) => Ok(*b),
            Some(_) => err(col, format!("`{name}` must be True or False")),
        }
    }
    /// The axes `name` gives (an int or a tuple of ints, negative from the end), all axes
    /// when absent or None.
    fn dims(&self, col: usize, name: &str, ndim: usize) -> R<Vec<usize>> {
        let one = |v: &V| -> R<usize> {
            match v {
                V::Int(Size::Int(d)) => {
                    let n = ndim as i64;
                    let k = if *d < 0 { d + n } else { *d };
                    if (0..n.max(1)).contains(&k) {
                        Ok(k as usize)
                    } else {
                        err(col, format!("dim {d} out of range"))
                    }
                }
                _ => err(col, "a dim that is not a constant int".into()),
            }
        };
        match self.get(name) {
            None | Some(V::None) => Ok((0..ndim).collect()),
            Some(V::Tuple(items)) => items.iter().map(one).collect(),
            Some(v) => Ok(vec![one(v)?]),
        }
    }
}
