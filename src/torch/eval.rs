//! Instantiation: evaluates the statements of a spec over an [`Env`], name by name.

use super::ops::{self, arith, canonical, unsupported_reason};
use super::parse::{Expr, ExprKind, Stmt, Sub};
use super::tensor::Tensor;
use super::value::{Cx, Value};
use super::{Env, FloatType, SpecError, SpecOutput};
use crate::term::Terms;
use std::collections::HashMap;

type R<T> = Result<T, SpecError>;

pub(super) fn at<T>(col: usize, r: Result<T, String>) -> R<T> {
    r.map_err(|message| SpecError { col, message })
}

pub(super) fn err<T>(col: usize, message: String) -> R<T> {
    Err(SpecError { col, message })
}

struct Interp<'a, 't> {
    cx: Cx<'t>,
    env: &'a Env<'a>,
    vars: HashMap<String, Value>,
}

pub(crate) fn run(
    stmts: &[Stmt],
    outputs: &[String],
    terms: &mut Terms,
    env: &Env,
) -> R<Vec<SpecOutput>> {
    let mut it = Interp {
        cx: Cx {
            terms,
            float: env.float,
        },
        env,
        vars: HashMap::new(),
    };
    let mut cols: HashMap<&str, usize> = HashMap::new();
    for s in stmts {
        let v = it.expr(&s.value)?;
        if s.destructure {
            let items = match v {
                Value::Tuple(items) => items,
                Value::MaxResult(t) => {
                    return err(
                        s.value.col,
                        format!(
                            "cannot destructure max/min over a dim: only `.values` is supported \
                             (indices are integers), got values of shape {}",
                            t.shape_str()
                        ),
                    )
                }
                other => {
                    return err(
                        s.value.col,
                        format!(
                            "cannot destructure {} into {} names",
                            other.describe(),
                            s.targets.len()
                        ),
                    )
                }
            };
            if items.len() != s.targets.len() {
                return err(
                    s.value.col,
                    format!(
                        "cannot destructure a tuple of {} elements into {} names",
                        items.len(),
                        s.targets.len()
                    ),
                );
            }
            for ((name, col), v) in s.targets.iter().zip(items) {
                cols.insert(name, *col);
                it.vars.insert(name.clone(), v);
            }
        } else {
            let (name, col) = &s.targets[0];
            cols.insert(name, *col);
            it.vars.insert(name.clone(), v);
        }
    }
    let mut out = Vec::new();
    for name in outputs {
        let col = cols.get(name.as_str()).copied().unwrap_or(1);
        let t = match &it.vars[name] {
            Value::Tensor(t) => t.clone(),
            Value::MaxResult(t) => {
                return err(
                    col,
                    format!(
                        "output `{name}` is the (values, indices) pair of max/min over a dim; \
                         write `.values` (shape {})",
                        t.shape_str()
                    ),
                )
            }
            v @ (Value::Int(_) | Value::Bool(_)) => at(col, it.cx.tensor(v))?,
            v => {
                return err(
                    col,
                    format!(
                        "output `{name}` must be a tensor, got {} (start the name with `_` \
                         to make it a temporary)",
                        v.describe()
                    ),
                )
            }
        };
        out.push(SpecOutput {
            name: name.clone(),
            shape: t.shape,
            elems: t.elems,
        });
    }
    Ok(out)
}

impl Interp<'_, '_> {
    fn expr(&mut self, e: &Expr) -> R<Value> {
        let col = e.col;
        match &e.kind {
            ExprKind::Name(n) => self.name(n, col),
            ExprKind::Int(v) => Ok(Value::Int(*v)),
            ExprKind::Float(s) => Ok(Value::Tensor(Tensor::scalar(at(col, self.cx.decimal(s))?))),
            ExprKind::Str(s) => Ok(Value::Str(s.clone())),
            ExprKind::Ellipsis => Ok(Value::Ellipsis),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let vs = items.iter().map(|i| self.expr(i)).collect::<R<Vec<_>>>()?;
                Ok(Value::Tuple(vs))
            }
            ExprKind::Unary(op, x) => {
                let v = self.expr(x)?;
                match (*op, v) {
                    ("+", v @ (Value::Int(_) | Value::Tensor(_))) => Ok(v),
                    ("-", Value::Int(i)) => match i.checked_neg() {
                        Some(n) => Ok(Value::Int(n)),
                        None => err(col, format!("integer overflow in -{i}")),
                    },
                    ("-", Value::Tensor(t)) if ops::is_bool(self.cx.terms, &t) => err(
                        col,
                        "negating a bool tensor is not supported by PyTorch (use `~`)".into(),
                    ),
                    ("-", Value::Tensor(t)) => {
                        Ok(Value::Tensor(t.map(self.cx.terms, |t, e| t.neg(e))))
                    }
                    ("~", Value::Bool(b)) => Ok(Value::Bool(!b)),
                    ("~", Value::Tensor(t)) => {
                        Ok(Value::Tensor(t.map(self.cx.terms, |t, e| t.not(e))))
                    }
                    (op, v) => err(
                        col,
                        format!("unary `{op}` does not apply to {}", v.describe()),
                    ),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                if let ("&" | "|", Value::Bool(p), Value::Bool(q)) = (*op, &x, &y) {
                    return Ok(Value::Bool(if *op == "&" { *p && *q } else { *p || *q }));
                }
                at(col, arith(&mut self.cx, op, &x, &y))
            }
            ExprKind::Attr(x, name) => {
                let v = self.expr(x)?;
                self.attr(v, name, col)
            }
            ExprKind::Call(f, args) => {
                let callee = self.expr(f)?;
                let mut pos = Vec::new();
                let mut kw = Vec::new();
                for a in args {
                    let v = self.expr(&a.value)?;
                    match &a.name {
                        Some(n) => kw.push((n.clone(), v)),
                        None => pos.push(v),
                    }
                }
                match callee {
                    Value::Func(op) => at(col, ops::call(&mut self.cx, op, pos, kw)),
                    Value::Builtin(f) => self.builtin(f, pos, kw, col),
                    Value::MathFunc(op) => {
                        let scalar = |v: &Value| match v {
                            Value::Int(_) | Value::Bool(_) => true,
                            Value::Tensor(t) => t.ndim() == 0,
                            _ => false,
                        };
                        if pos.len() != 1 || !kw.is_empty() || !scalar(&pos[0]) {
                            return err(
                                col,
                                format!(
                                    "`math.{op}` takes exactly one number (for tensors use \
                                     `torch.{op}`)"
                                ),
                            );
                        }
                        at(col, ops::call(&mut self.cx, op, pos, kw))
                    }
                    Value::Method(recv, name) => {
                        let Some(op) = canonical(&name) else {
                            return err(col, unknown_op(&format!("method `.{name}`"), &name));
                        };
                        pos.insert(0, *recv);
                        at(col, ops::call(&mut self.cx, op, pos, kw))
                    }
                    other => err(col, format!("{} is not callable", other.describe())),
                }
            }
            ExprKind::Index(x, subs) => {
                let v = self.expr(x)?;
                self.index(v, subs, col)
            }
        }
    }

    /// Python's `float(x)` of a number or of the strings `'inf'`, `'-inf'`, `'nan'` (and
    /// decimal text), as Python reads them.
    fn builtin(
        &mut self,
        f: &'static str,
        pos: Vec<Value>,
        kw: Vec<(String, Value)>,
        col: usize,
    ) -> R<Value> {
        let [x] = &pos[..] else {
            return err(col, format!("`{f}` takes exactly one argument"));
        };
        if !kw.is_empty() {
            return err(col, format!("`{f}` takes no keyword arguments"));
        }
        let t = match x {
            Value::Int(i) => self.cx.terms.int(*i),
            Value::Bool(b) => self.cx.terms.int(i64::from(*b)),
            Value::Tensor(t) if t.ndim() == 0 => return Ok(Value::Tensor(t.clone())),
            Value::Str(s) => {
                let text = s.trim().to_ascii_lowercase();
                let (neg, body) = match text.strip_prefix('-') {
                    Some(b) => (true, b),
                    None => (false, text.strip_prefix('+').unwrap_or(&text)),
                };
                match body {
                    "inf" | "infinity" => self.cx.terms.inf(neg),
                    "nan" => self.cx.terms.nan(),
                    _ => match self.cx.decimal(&text) {
                        Ok(t) => t,
                        Err(_) => {
                            return err(col, format!("could not convert string to float: '{s}'"))
                        }
                    },
                }
            }
            other => {
                return err(
                    col,
                    format!(
                        "`{f}` of {} is not supported (a number or a string)",
                        other.describe()
                    ),
                )
            }
        };
        Ok(Value::Tensor(Tensor::scalar(t)))
    }

    fn name(&mut self, n: &str, col: usize) -> R<Value> {
        if let Some(v) = self.vars.get(n) {
            return Ok(v.clone());
        }
        if let Some(shape) = self.env.tensors.get(n) {
            let len = shape.iter().product::<usize>();
            let mut elems = Vec::with_capacity(len);
            let mut idx = vec![0i64; shape.len()];
            for _ in 0..len {
                elems.push(self.cx.terms.input(n, &idx));
                for d in (0..shape.len()).rev() {
                    idx[d] += 1;
                    if (idx[d] as usize) < shape[d] {
                        break;
                    }
                    idx[d] = 0;
                }
            }
            let t = Tensor::new(shape.clone(), elems);
            self.vars.insert(n.to_string(), Value::Tensor(t.clone()));
            return Ok(Value::Tensor(t));
        }
        if self.env.scalars.contains(n) {
            return Ok(Value::Tensor(Tensor::scalar(self.cx.terms.param(n))));
        }
        if let Some(v) = self.env.values.get(n) {
            return Ok(Value::Tensor(Tensor::scalar(self.cx.terms.float(*v))));
        }
        if let Some(v) = self.env.sizes.get(n) {
            return Ok(Value::Int(*v));
        }
        match n {
            "torch" => Ok(Value::Module("torch")),
            "F" | "functional" => Ok(Value::Module("torch.nn.functional")),
            "nn" => Ok(Value::Module("torch.nn")),
            "math" => Ok(Value::Module("math")),
            "float" => Ok(Value::Builtin("float")),
            "None" => Ok(Value::None),
            "True" => Ok(Value::Bool(true)),
            "False" => Ok(Value::Bool(false)),
            _ => {
                let mut known: Vec<String> = Vec::new();
                let list = |kind: &str, names: Vec<&String>| {
                    if names.is_empty() {
                        None
                    } else {
                        let v: Vec<&str> = names.iter().map(|s| s.as_str()).collect();
                        Some(format!("{kind} {}", v.join(", ")))
                    }
                };
                known.extend(list("tensors", self.env.tensors.keys().collect()));
                known.extend(list(
                    "scalars",
                    self.env
                        .scalars
                        .iter()
                        .chain(self.env.values.keys())
                        .collect(),
                ));
                known.extend(list("sizes", self.env.sizes.keys().collect()));
                let mut vars: Vec<&String> = self
                    .vars
                    .keys()
                    .filter(|k| !self.env.tensors.contains_key(*k))
                    .collect();
                vars.sort();
                known.extend(list("assigned", vars));
                let known = if known.is_empty() {
                    "nothing".to_string()
                } else {
                    known.join("; ")
                };
                err(col, format!("unknown name `{n}` (known: {known})"))
            }
        }
    }

    fn attr(&mut self, v: Value, name: &str, col: usize) -> R<Value> {
        match v {
            Value::Module(m) => {
                let sub = match (m, name) {
                    ("torch", "nn") => Some("torch.nn"),
                    ("torch.nn", "functional") => Some("torch.nn.functional"),
                    ("torch", "special") => Some("torch.special"),
                    ("torch", "linalg") => Some("torch.linalg"),
                    _ => None,
                };
                if let Some(s) = sub {
                    return Ok(Value::Module(s));
                }
                // Constants of `math` and `torch` (rounded to the float type, like the
                // irrational constants of the op library).
                let constant = match (m, name) {
                    ("math" | "torch", "pi") => Some(std::f64::consts::PI),
                    ("math" | "torch", "e") => Some(std::f64::consts::E),
                    ("math", "tau") => Some(std::f64::consts::TAU),
                    ("math" | "torch", "inf") => Some(f64::INFINITY),
                    ("math" | "torch", "nan") => Some(f64::NAN),
                    _ => None,
                };
                if let Some(c) = constant {
                    let t = match c {
                        c if c.is_nan() => self.cx.terms.nan(),
                        c if c.is_infinite() => self.cx.terms.inf(false),
                        c => self.cx.real(c),
                    };
                    return Ok(Value::Tensor(Tensor::scalar(t)));
                }
                if m == "math" {
                    // math's functions of one number, as the op of the same meaning.
                    return match ops::math_function(name) {
                        Some(op) => Ok(Value::MathFunc(op)),
                        None => err(
                            col,
                            format!(
                                "`math.{name}` is not supported (math has pi, e, tau, inf, nan \
                                 and sqrt, exp, log, log2, log1p, expm1, sin, cos, tanh, erf, \
                                 floor, ceil, fabs of one number)"
                            ),
                        ),
                    };
                }
                if m == "torch" {
                    let dtype = match name {
                        "float32" | "float" => Some(FloatType::F32),
                        "float64" | "double" => Some(FloatType::F64),
                        "float16" | "half" => Some(FloatType::F16),
                        "bfloat16" => Some(FloatType::BF16),
                        _ => None,
                    };
                    if let Some(d) = dtype {
                        return Ok(Value::Dtype(d));
                    }
                    let int_dtype = match name {
                        "bool" => Some("bool"),
                        "int64" | "long" => Some("int64"),
                        "int32" | "int" => Some("int32"),
                        "int16" | "short" => Some("int16"),
                        "int8" => Some("int8"),
                        "uint8" => Some("uint8"),
                        _ => None,
                    };
                    if let Some(d) = int_dtype {
                        return Ok(Value::IntDtype(d));
                    }
                }
                match canonical(name) {
                    Some(op) => Ok(Value::Func(op)),
                    None => err(col, unknown_op(&format!("function `{m}.{name}`"), name)),
                }
            }
            Value::Tensor(t) => match name {
                "T" => {
                    let perm: Vec<usize> = (0..t.ndim()).rev().collect();
                    Ok(Value::Tensor(t.permute(&perm)))
                }
                "mT" => {
                    if t.ndim() < 2 {
                        return err(
                            col,
                            format!("`.mT` needs at least 2 dims, got shape {}", t.shape_str()),
                        );
                    }
                    Ok(Value::Tensor(t.transpose(t.ndim() - 2, t.ndim() - 1)))
                }
                "shape" => Ok(Value::Tuple(
                    t.shape.iter().map(|&s| Value::Int(s as i64)).collect(),
                )),
                "ndim" => Ok(Value::Int(t.ndim() as i64)),
                _ => Ok(Value::Method(Box::new(Value::Tensor(t)), name.to_string())),
            },
            Value::MaxResult(t) => match name {
                "values" => Ok(Value::Tensor(t)),
                "indices" => err(
                    col,
                    "`.indices` of max/min is not supported: indices are integers".into(),
                ),
                _ => err(
                    col,
                    format!(
                        "the result of max/min over a dim has no attribute `{name}`; use `.values`"
                    ),
                ),
            },
            other => err(
                col,
                format!("{} has no attribute `{name}`", other.describe()),
            ),
        }
    }

    fn index(&mut self, v: Value, subs: &[Sub], col: usize) -> R<Value> {
        match v {
            Value::Tuple(items) => {
                let [Sub::Expr(e)] = subs else {
                    return err(col, "a tuple can only be indexed by one int".into());
                };
                let i = match self.expr(e)? {
                    Value::Int(i) => i,
                    other => {
                        return err(
                            col,
                            format!("tuple index must be an int, got {}", other.describe()),
                        )
                    }
                };
                let n = items.len() as i64;
                let j = if i < 0 { i + n } else { i };
                if j < 0 || j >= n {
                    return err(
                        col,
                        format!("tuple index {i} out of range for a tuple of {n} elements"),
                    );
                }
                Ok(items[j as usize].clone())
            }
            Value::MaxResult(t) => {
                let [Sub::Expr(e)] = subs else {
                    return err(
                        col,
                        "the result of max/min over a dim can only be indexed by 0".into(),
                    );
                };
                match self.expr(e)? {
                    Value::Int(0) => Ok(Value::Tensor(t)),
                    _ => err(
                        col,
                        "only `[0]` (the values) of max/min over a dim is supported".into(),
                    ),
                }
            }
            Value::Tensor(t) => self.index_tensor(t, subs, col),
            other => err(col, format!("{} cannot be indexed", other.describe())),
        }
    }

    /// Basic indexing: ints, slices with positive steps, `...`, `None`.
    fn index_tensor(&mut self, mut t: Tensor, subs: &[Sub], col: usize) -> R<Value> {
        enum Ix {
            Int(i64),
            Slice(Option<i64>, Option<i64>, i64),
            Ellipsis,
            NewAxis,
        }
        let mut ixs = Vec::new();
        let opt_int = |it: &mut Self, e: &Option<Expr>| -> R<Option<i64>> {
            match e {
                None => Ok(None),
                Some(e) => match it.expr(e)? {
                    Value::Int(i) => Ok(Some(i)),
                    Value::None => Ok(None),
                    other => err(
                        e.col,
                        format!("slice bounds must be ints, got {}", other.describe()),
                    ),
                },
            }
        };
        // Evaluate each index once; integer tensors among them make it advanced
        // indexing (`x[torch.arange(M), t]`, `w[ids]`).
        let mut vals = Vec::with_capacity(subs.len());
        for s in subs {
            vals.push(match s {
                Sub::Expr(e) => Some(self.expr(e)?),
                Sub::Slice(..) => None,
            });
        }
        if vals.iter().any(|v| matches!(v, Some(Value::Tensor(_)))) {
            let mut idx = Vec::with_capacity(vals.len());
            for v in vals {
                match v {
                    Some(Value::Tensor(i)) => idx.push(i),
                    Some(Value::Int(i)) => idx.push(Tensor::scalar(self.cx.terms.int(i))),
                    _ => {
                        return err(
                            col,
                            "indexing by tensors: every index must be an integer tensor or an                              int (slices, `...` and None beside them are not supported)"
                                .into(),
                        )
                    }
                }
            }
            return super::ops::advanced_index(&mut self.cx, &t, &idx)
                .map(Value::Tensor)
                .map_err(|m| SpecError { col, message: m });
        }
        for (s, v) in subs.iter().zip(vals) {
            ixs.push(match s {
                Sub::Slice(a, b, c) => {
                    let a = opt_int(self, a)?;
                    let b = opt_int(self, b)?;
                    let c = opt_int(self, c)?.unwrap_or(1);
                    if c <= 0 {
                        return err(col, format!("slice step must be positive, got {c}"));
                    }
                    Ix::Slice(a, b, c)
                }
                Sub::Expr(e) => match v.unwrap_or(Value::None) {
                    Value::Int(i) => Ix::Int(i),
                    Value::Ellipsis => Ix::Ellipsis,
                    Value::None => Ix::NewAxis,
                    other => {
                        return err(
                            e.col,
                            format!(
                                "only ints, slices, `...` and None can index a tensor, got {}",
                                other.describe()
                            ),
                        )
                    }
                },
            });
        }
        let used = ixs
            .iter()
            .filter(|i| matches!(i, Ix::Int(_) | Ix::Slice(..)))
            .count();
        if ixs.iter().filter(|i| matches!(i, Ix::Ellipsis)).count() > 1 {
            return err(
                col,
                "an index can only have a single ellipsis (`...`)".into(),
            );
        }
        if used > t.ndim() {
            return err(
                col,
                format!(
                    "too many indices for a tensor of shape {}: {used}",
                    t.shape_str()
                ),
            );
        }
        // Expand `...` (or the implicit trailing one) into full slices.
        let mut full = Vec::new();
        let mut seen_ellipsis = false;
        for ix in ixs {
            if let Ix::Ellipsis = ix {
                seen_ellipsis = true;
                for _ in 0..t.ndim() - used {
                    full.push(Ix::Slice(None, None, 1));
                }
            } else {
                full.push(ix);
            }
        }
        if !seen_ellipsis {
            for _ in 0..t.ndim() - used {
                full.push(Ix::Slice(None, None, 1));
            }
        }
        let mut dim = 0;
        for ix in full {
            match ix {
                Ix::Int(i) => {
                    let n = t.shape[dim] as i64;
                    let j = if i < 0 { i + n } else { i };
                    if j < 0 || j >= n {
                        return err(
                            col,
                            format!("index {i} is out of bounds for dimension {dim} with size {n}"),
                        );
                    }
                    t = t.select(dim, j as usize);
                }
                Ix::Slice(a, b, step) => {
                    let n = t.shape[dim] as i64;
                    let clampi = |v: i64| (if v < 0 { v + n } else { v }).clamp(0, n);
                    let start = a.map_or(0, clampi);
                    let stop = b.map_or(n, clampi);
                    let len = if stop > start {
                        (stop - start + step - 1) / step
                    } else {
                        0
                    };
                    t = t.slice(dim, start as usize, len as usize, step as usize);
                    dim += 1;
                }
                Ix::NewAxis => {
                    let mut shape = t.shape.clone();
                    shape.insert(dim, 1);
                    t = t.reshape(shape);
                    dim += 1;
                }
                Ix::Ellipsis => {}
            }
        }
        Ok(Value::Tensor(t))
    }
}

/// "unknown function `torch.foo`; supported: abs, ...".
fn unknown_op(what: &str, name: &str) -> String {
    if let Some(reason) = unsupported_reason(name) {
        return format!("{what} is not supported: `{name}` {reason}");
    }
    format!(
        "unknown {what}; supported ops: {}",
        super::SpecProgram::supported_ops().join(", ")
    )
}
