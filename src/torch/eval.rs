//! The interpreter of the spec language, written once for both readings of a spec:
//! statements, names, attributes, calls (bound to an op's parameters by `ops::bind_call`)
//! and indexing. What a tensor or an int *is*, and what an op computes on it, is asked of
//! a [`Reading`]: `instance::Reading` (terms at one launch's shapes) or
//! `sizes::Reading` (formulas over symbolic sizes). The interpreter never inspects a
//! tensor itself, so Python's rules (lookup order, `math`/`torch` constants, method
//! calls, `...` expansion, tuple destructuring) cannot differ between the readings.

use super::error::SpecError;
use super::float::FloatType;
use super::ops::{self, canonical, unsupported_reason};
use super::parse::{Expr, ExprKind, Stmt, Sub};
use super::value::{Domain, Val};
use std::collections::HashMap;

type R<T> = Result<T, SpecError>;
type Tensor<S> = <<S as Reading>::D as Domain>::Tensor;
type Int<S> = <<S as Reading>::D as Domain>::Int;
type V<S> = Val<<S as Reading>::D>;

pub(super) fn at<T>(col: usize, r: Result<T, String>) -> R<T> {
    r.map_err(|message| SpecError { col, message })
}

pub(super) fn err<T>(col: usize, message: String) -> R<T> {
    Err(SpecError { col, message })
}

/// One index of basic indexing, `...` expanded: an int, a slice `a:b:c` (bounds as
/// given), or a new axis (`None`).
pub(crate) enum Ix<I> {
    Int(I),
    Slice(Option<I>, Option<I>, Option<I>),
    NewAxis,
}

/// What a domain gives the interpreter: its names, its numbers, and what an op computes.
/// Every method that can fail says why in a message; the interpreter adds the column.
pub(crate) trait Reading {
    type D: Domain;
    /// What a spec output becomes (`SpecOutput`, `formula::Output`).
    type Out;
    /// An input tensor, symbolic scalar, fixed scalar or size of the environment.
    fn env_name(&mut self, name: &str) -> Result<Option<V<Self>>, String>;
    /// The environment's names for the unknown-name message: (kind, names).
    fn env_names(&self) -> Vec<(&'static str, Vec<String>)>;
    /// A decimal literal (`1e-5`), rounded to the float type.
    fn decimal(&mut self, text: &str) -> Result<Tensor<Self>, String>;
    /// A constant of `math`/`torch` (`pi`, `inf`, `nan`), rounded to the float type.
    fn constant(&mut self, c: f64) -> Result<Tensor<Self>, String>;
    /// `float(text)` of a string, as Python reads it.
    fn float_of_str(&mut self, text: &str) -> Result<Tensor<Self>, String>;
    /// An int (or bool) as a 0-d real tensor.
    fn real_of_int(&mut self, i: &Int<Self>) -> Result<Tensor<Self>, String>;
    /// `-i` of an int.
    fn neg_int(&mut self, i: Int<Self>) -> Result<Int<Self>, String>;
    /// Unary `-` or `~` of a tensor.
    fn unary(&mut self, op: &'static str, t: Tensor<Self>) -> Result<V<Self>, String>;
    /// A binary operator (`+ - * / // % ** @`, comparisons, `& |`) on two values.
    fn binary(&mut self, op: &'static str, x: V<Self>, y: V<Self>) -> Result<V<Self>, String>;
    /// Op `op` (canonical) called with these arguments.
    fn call(
        &mut self,
        op: &'static str,
        pos: Vec<V<Self>>,
        kw: Vec<(String, V<Self>)>,
    ) -> Result<V<Self>, String>;
    /// A tensor's attribute (`.T`, `.mT`, `.shape`, `.ndim`); `None` for a method name.
    fn tensor_attr(&mut self, t: &Tensor<Self>, name: &str) -> Result<Option<V<Self>>, String>;
    /// Basic indexing with every index given (`...` expanded, trailing full slices added).
    fn index(&mut self, t: Tensor<Self>, ixs: Vec<Ix<Int<Self>>>) -> Result<Tensor<Self>, String>;
    /// Indexing by integer tensors (and ints).
    fn advanced_index(
        &mut self,
        t: Tensor<Self>,
        idx: Vec<V<Self>>,
    ) -> Result<Tensor<Self>, String>;
    /// Output `name`'s value as an output (`None`: not an output here, e.g. a size).
    fn output(&mut self, name: &str, v: V<Self>) -> Result<Option<Self::Out>, String>;
}

struct Interp<'s, S: Reading> {
    s: &'s mut S,
    vars: HashMap<String, V<S>>,
}

/// Evaluates the statements in order and returns the outputs' values.
pub(crate) fn run<S: Reading>(
    reading: &mut S,
    stmts: &[Stmt],
    outputs: &[String],
) -> R<Vec<S::Out>> {
    let mut it = Interp {
        s: reading,
        vars: HashMap::new(),
    };
    let mut cols: HashMap<&str, usize> = HashMap::new();
    for s in stmts {
        let v = it.expr(&s.value)?;
        if s.destructure {
            let items = match v {
                Val::Tuple(items) => items,
                Val::MaxResult(t) => {
                    return err(
                        s.value.col,
                        format!(
                            "cannot destructure max/min over a dim: only `.values` is supported \
                             (indices are integers), got values of shape {}",
                            S::D::shape_str(&t)
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
        let v = it.vars[name].clone();
        if let Val::MaxResult(t) = &v {
            return err(
                col,
                format!(
                    "output `{name}` is the (values, indices) pair of max/min over a dim; \
                     write `.values` (shape {})",
                    S::D::shape_str(t)
                ),
            );
        }
        if let Some(o) = at(col, it.s.output(name, v))? {
            out.push(o);
        }
    }
    Ok(out)
}

impl<S: Reading> Interp<'_, S> {
    fn expr(&mut self, e: &Expr) -> R<V<S>> {
        let col = e.col;
        match &e.kind {
            ExprKind::Name(n) => self.name(n, col),
            ExprKind::Int(v) => Ok(Val::Int(S::D::int(*v))),
            ExprKind::Float(s) => Ok(Val::Tensor(at(col, self.s.decimal(s))?)),
            ExprKind::Str(s) => Ok(Val::Str(s.clone())),
            ExprKind::Ellipsis => Ok(Val::Ellipsis),
            ExprKind::Tuple(items) | ExprKind::List(items) => {
                let vs = items.iter().map(|i| self.expr(i)).collect::<R<Vec<_>>>()?;
                Ok(Val::Tuple(vs))
            }
            ExprKind::Unary(op, x) => {
                let v = self.expr(x)?;
                match (*op, v) {
                    ("+", v @ (Val::Int(_) | Val::Tensor(_))) => Ok(v),
                    ("-", Val::Int(i)) => at(col, self.s.neg_int(i)).map(Val::Int),
                    ("~", Val::Bool(b)) => Ok(Val::Bool(!b)),
                    (op @ ("-" | "~"), Val::Tensor(t)) => at(col, self.s.unary(op, t)),
                    (op, v) => err(
                        col,
                        format!("unary `{op}` does not apply to {}", v.describe()),
                    ),
                }
            }
            ExprKind::Binary(op, a, b) => {
                let x = self.expr(a)?;
                let y = self.expr(b)?;
                if let ("&" | "|", Val::Bool(p), Val::Bool(q)) = (*op, &x, &y) {
                    return Ok(Val::Bool(if *op == "&" { *p && *q } else { *p || *q }));
                }
                at(col, self.s.binary(op, x, y))
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
                    Val::Func(op) => at(col, self.s.call(op, pos, kw)),
                    Val::Builtin(f) => self.builtin(f, pos, kw, col),
                    Val::MathFunc(op) => {
                        let scalar = |v: &V<S>| match v {
                            Val::Int(_) | Val::Bool(_) => true,
                            Val::Tensor(t) => S::D::ndim(t) == 0,
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
                        at(col, self.s.call(op, pos, kw))
                    }
                    Val::Method(recv, name) => {
                        let Some(op) = canonical(&name) else {
                            return err(col, unknown_op(&format!("method `.{name}`"), &name));
                        };
                        pos.insert(0, *recv);
                        at(col, self.s.call(op, pos, kw))
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
        pos: Vec<V<S>>,
        kw: Vec<(String, V<S>)>,
        col: usize,
    ) -> R<V<S>> {
        let [x] = &pos[..] else {
            return err(col, format!("`{f}` takes exactly one argument"));
        };
        if !kw.is_empty() {
            return err(col, format!("`{f}` takes no keyword arguments"));
        }
        let t = match x {
            Val::Int(i) => self.s.real_of_int(i),
            Val::Bool(b) => self.s.real_of_int(&S::D::int(i64::from(*b))),
            Val::Tensor(t) if S::D::ndim(t) == 0 => return Ok(Val::Tensor(t.clone())),
            Val::Str(s) => self.s.float_of_str(s),
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
        Ok(Val::Tensor(at(col, t)?))
    }

    fn name(&mut self, n: &str, col: usize) -> R<V<S>> {
        if let Some(v) = self.vars.get(n) {
            return Ok(v.clone());
        }
        if let Some(v) = at(col, self.s.env_name(n))? {
            return Ok(v);
        }
        match n {
            "torch" => Ok(Val::Module("torch")),
            "F" | "functional" => Ok(Val::Module("torch.nn.functional")),
            "nn" => Ok(Val::Module("torch.nn")),
            "math" => Ok(Val::Module("math")),
            // Triton's language, for its random stream (`tl.rand`) only
            "tl" => Ok(Val::Module("triton.language")),
            "float" => Ok(Val::Builtin("float")),
            "None" => Ok(Val::None),
            "True" => Ok(Val::Bool(true)),
            "False" => Ok(Val::Bool(false)),
            _ => {
                let mut known: Vec<String> = Vec::new();
                for (kind, names) in self.s.env_names() {
                    if !names.is_empty() {
                        known.push(format!("{kind} {}", names.join(", ")));
                    }
                }
                let mut vars: Vec<&String> = self.vars.keys().collect();
                vars.sort();
                if !vars.is_empty() {
                    let v: Vec<&str> = vars.iter().map(|s| s.as_str()).collect();
                    known.push(format!("assigned {}", v.join(", ")));
                }
                let known = if known.is_empty() {
                    "nothing".to_string()
                } else {
                    known.join("; ")
                };
                err(col, format!("unknown name `{n}` (known: {known})"))
            }
        }
    }

    fn attr(&mut self, v: V<S>, name: &str, col: usize) -> R<V<S>> {
        match v {
            Val::Module(m) => {
                let sub = match (m, name) {
                    ("torch", "nn") => Some("torch.nn"),
                    ("torch.nn", "functional") => Some("torch.nn.functional"),
                    ("torch", "special") => Some("torch.special"),
                    ("torch", "linalg") => Some("torch.linalg"),
                    _ => None,
                };
                if let Some(s) = sub {
                    return Ok(Val::Module(s));
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
                    return Ok(Val::Tensor(at(col, self.s.constant(c))?));
                }
                if m == "triton.language" {
                    return match name {
                        "rand" => Ok(Val::Func("tl.rand")),
                        _ => err(
                            col,
                            format!(
                                "`tl.{name}` is not supported (of Triton's language the spec \
                                 reads `tl.rand(seed, offsets)`, its random stream)"
                            ),
                        ),
                    };
                }
                if m == "math" {
                    // math's functions of one number, as the op of the same meaning.
                    return match ops::math_function(name) {
                        Some(op) => Ok(Val::MathFunc(op)),
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
                        return Ok(Val::Dtype(d));
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
                        return Ok(Val::IntDtype(d));
                    }
                }
                match canonical(name) {
                    Some(op) => Ok(Val::Func(op)),
                    None => err(col, unknown_op(&format!("function `{m}.{name}`"), name)),
                }
            }
            Val::Tensor(t) => match at(col, self.s.tensor_attr(&t, name))? {
                Some(v) => Ok(v),
                None => Ok(Val::Method(Box::new(Val::Tensor(t)), name.to_string())),
            },
            Val::MaxResult(t) => match name {
                "values" => Ok(Val::Tensor(t)),
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

    fn index(&mut self, v: V<S>, subs: &[Sub], col: usize) -> R<V<S>> {
        match v {
            Val::Tuple(items) => {
                let [Sub::Expr(e)] = subs else {
                    return err(col, "a tuple can only be indexed by one int".into());
                };
                let i = match self.expr(e)? {
                    Val::Int(i) => match S::D::const_int(&i) {
                        Some(i) => i,
                        None => {
                            return err(col, format!("tuple index `{i}` is not a constant int"))
                        }
                    },
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
            Val::MaxResult(t) => {
                let [Sub::Expr(e)] = subs else {
                    return err(
                        col,
                        "the result of max/min over a dim can only be indexed by 0".into(),
                    );
                };
                match self.expr(e)? {
                    Val::Int(i) if S::D::const_int(&i) == Some(0) => Ok(Val::Tensor(t)),
                    _ => err(
                        col,
                        "only `[0]` (the values) of max/min over a dim is supported".into(),
                    ),
                }
            }
            Val::Tensor(t) => self.index_tensor(t, subs, col),
            other => err(col, format!("{} cannot be indexed", other.describe())),
        }
    }

    /// Basic indexing (ints, slices, `...`, `None`), or advanced indexing where an index
    /// is a tensor. The checks Python makes before looking at the tensor's values are
    /// made here; what an index selects is the reading's.
    fn index_tensor(&mut self, t: Tensor<S>, subs: &[Sub], col: usize) -> R<V<S>> {
        let opt_int = |it: &mut Self, e: &Option<Expr>| -> R<Option<Int<S>>> {
            match e {
                None => Ok(None),
                Some(e) => match it.expr(e)? {
                    Val::Int(i) => Ok(Some(i)),
                    Val::None => Ok(None),
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
        if vals.iter().any(|v| matches!(v, Some(Val::Tensor(_)))) {
            let mut idx = Vec::with_capacity(vals.len());
            for v in vals {
                match v {
                    Some(v @ (Val::Tensor(_) | Val::Int(_))) => idx.push(v),
                    _ => {
                        return err(
                            col,
                            "indexing by tensors: every index must be an integer tensor or an \
                             int (slices, `...` and None beside them are not supported)"
                                .into(),
                        )
                    }
                }
            }
            return at(col, self.s.advanced_index(t, idx)).map(Val::Tensor);
        }
        // Each index, `None` standing for `...`.
        let mut ixs: Vec<Option<Ix<Int<S>>>> = Vec::new();
        for (s, v) in subs.iter().zip(vals) {
            ixs.push(match s {
                Sub::Slice(a, b, c) => {
                    let a = opt_int(self, a)?;
                    let b = opt_int(self, b)?;
                    let c = opt_int(self, c)?;
                    Some(Ix::Slice(a, b, c))
                }
                Sub::Expr(e) => match v.unwrap_or(Val::None) {
                    Val::Int(i) => Some(Ix::Int(i)),
                    Val::Ellipsis => None,
                    Val::None => Some(Ix::NewAxis),
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
            .filter(|i| matches!(i, Some(Ix::Int(_) | Ix::Slice(..))))
            .count();
        if ixs.iter().filter(|i| i.is_none()).count() > 1 {
            return err(
                col,
                "an index can only have a single ellipsis (`...`)".into(),
            );
        }
        let ndim = S::D::ndim(&t);
        if used > ndim {
            return err(
                col,
                format!(
                    "too many indices for a tensor of shape {}: {used}",
                    S::D::shape_str(&t)
                ),
            );
        }
        // Expand `...` (or the implicit trailing one) into full slices.
        let full_slices = || (0..ndim - used).map(|_| Ix::Slice(None, None, None));
        let mut full = Vec::new();
        let mut seen_ellipsis = false;
        for ix in ixs {
            match ix {
                None => {
                    seen_ellipsis = true;
                    full.extend(full_slices());
                }
                Some(ix) => full.push(ix),
            }
        }
        if !seen_ellipsis {
            full.extend(full_slices());
        }
        at(col, self.s.index(t, full)).map(Val::Tensor)
    }
}

/// "unknown function `torch.foo`; supported: abs, ...".
fn unknown_op(what: &str, name: &str) -> String {
    if let Some(reason) = unsupported_reason(name) {
        return format!("{what} is not supported: `{name}` {reason}");
    }
    format!(
        "unknown {what}; supported ops: {}",
        ops::SUPPORTED.join(", ")
    )
}
