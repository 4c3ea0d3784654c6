//! The bridge between [`Formula`] and the egglog datatype `Expr` of `rules/formula.egg`:
//! a formula becomes `let` bindings (one per distinct sub-formula, with its `rank`
//! fact), and an extracted term becomes a [`Named`] tree.
//!
//! Invariant: the round trip keeps the meaning: a node outside the datatype (a slice,
//! a `where`, a pooling, ...) travels as `(Leaf k)` and comes back as the very
//! sub-formula `k`; constants travel as exact rationals. A `where` and its comparison
//! enter the datatype only around a gather (`take` along an axis), the idioms
//! `rules/named.egg` folds (cross-entropy, NLL); elsewhere they stay leaves, as before.

use super::named::{Named, NamedOp};
use crate::formula::{cmp_name, BinaryOp, Formula, ReduceOp, ShapeEnv, TakeKind, UnaryOp};
use crate::term::CmpOp;
use egglog::ast::Literal;
use egglog::{Term, TermDag, TermId};
use num_bigint::BigInt;
use num_rational::BigRational;
use std::collections::HashMap;

/// A formula written as egglog bindings: `program` defines `$t0..$tN` (the root last).
pub struct Encoded {
    pub program: String,
    pub root: String,
    /// The sub-formulas behind `(Leaf k)`, by `k`.
    pub leaves: Vec<Formula>,
}

/// The egglog constructor of a unary op.
fn unary_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "Neg",
        UnaryOp::Exp => "Exp",
        UnaryOp::Exp2 => "Exp2",
        UnaryOp::Log => "Log",
        UnaryOp::Log2 => "Log2",
        UnaryOp::Sqrt => "Sqrt",
        UnaryOp::Rsqrt => "Rsqrt",
        UnaryOp::Tanh => "Tanh",
        UnaryOp::Sin => "Sin",
        UnaryOp::Cos => "Cos",
        UnaryOp::Erf => "Erf",
        UnaryOp::Abs => "Abs",
        UnaryOp::Rint => "Rint",
    }
}

fn binary_name(op: BinaryOp) -> Option<&'static str> {
    Some(match op {
        BinaryOp::Add => "Add",
        BinaryOp::Sub => "Sub",
        BinaryOp::Mul => "Mul",
        BinaryOp::Div => "Div",
        BinaryOp::Max => "Maximum",
        BinaryOp::Min => "Minimum",
        BinaryOp::FMax | BinaryOp::FMin => return None,
    })
}

fn reduce_name(op: ReduceOp) -> Option<&'static str> {
    Some(match op {
        ReduceOp::Sum => "Sum",
        ReduceOp::Max => "Max",
        ReduceOp::Min => "Min",
        ReduceOp::Mean => "Mean",
        _ => return None,
    })
}

/// `(bigrat (from-string "p") (from-string "q"))`: `q` exactly.
pub fn rational(q: &BigRational) -> String {
    format!(
        "(bigrat (from-string \"{}\") (from-string \"{}\"))",
        q.numer(),
        q.denom()
    )
}

/// A name that can stand in an egglog string literal.
fn plain(name: &str) -> bool {
    !name.contains(['"', '\\'])
}

struct Encoder<'a> {
    env: &'a ShapeEnv,
    /// Encoding the operands of a `where` around a gather (its comparison enters too).
    around_take: bool,
    program: String,
    ids: HashMap<Formula, String>,
    leaves: Vec<Formula>,
}

impl Encoder<'_> {
    /// The global naming `f`, defining it (and its operands) on first use.
    fn name(&mut self, f: &Formula) -> String {
        if let Some(n) = self.ids.get(f) {
            return n.clone();
        }
        let outer = self.around_take;
        if matches!(f, Formula::Select(..)) {
            self.around_take = reads_take(f);
        }
        let body = self.body(f);
        self.around_take = outer;
        let name = format!("$t{}", self.ids.len());
        self.program += &format!("(let {name} {body})\n");
        if let Ok(shape) = f.shape(self.env) {
            self.program += &format!("(rank {name} {})\n", shape.len());
        }
        self.ids.insert(f.clone(), name.clone());
        name
    }

    /// The constructor application writing `f` (its operands named first).
    fn body(&mut self, f: &Formula) -> String {
        let around_take = self.around_take;
        let mut arg = |e: &Formula| self.name(e);
        match f {
            Formula::Input(n) if plain(n) => format!("(In \"{n}\")"),
            Formula::Scalar(n) if plain(n) => format!("(Sc \"{n}\")"),
            Formula::Const(q) => format!("(Num {})", rational(q)),
            Formula::Unary(op, a) => format!("({} {})", unary_name(*op), arg(a)),
            Formula::Binary(op, a, b) if binary_name(*op).is_some() => {
                let (a, b) = (arg(a), arg(b));
                format!("({} {a} {b})", binary_name(*op).unwrap_or_default())
            }
            Formula::Powi(a, k) => format!("(Pow {} {k})", arg(a)),
            Formula::Reduce {
                op,
                axis,
                keepdim,
                arg: a,
            } if reduce_name(*op).is_some() => format!(
                "({} {} {axis} {keepdim})",
                reduce_name(*op).unwrap_or_default(),
                arg(a)
            ),
            Formula::MatMul(a, b) => {
                let (a, b) = (arg(a), arg(b));
                format!("(MatMul {a} {b})")
            }
            Formula::Transpose(a) => format!("(T {})", arg(a)),
            Formula::Take {
                kind: TakeKind::Along,
                axis,
                data,
                index,
            } => {
                let (x, t) = (arg(data), arg(index));
                format!("(Take {x} {t} {axis})")
            }
            Formula::Select(c, a, b) if reads_take(f) => {
                let (c, a, b) = (arg(c), arg(a), arg(b));
                format!("(Where {c} {a} {b})")
            }
            Formula::Cmp(op, a, b) if around_take => {
                let (a, b) = (arg(a), arg(b));
                format!("(Cmp \"{}\" {a} {b})", cmp_name(*op))
            }
            _ => {
                self.leaves.push(f.clone());
                format!("(Leaf {})", self.leaves.len() - 1)
            }
        }
    }
}

/// Whether a `take` along an axis occurs in `f`.
fn reads_take(f: &Formula) -> bool {
    matches!(
        f,
        Formula::Take {
            kind: TakeKind::Along,
            ..
        }
    ) || f.children().into_iter().any(reads_take)
}

/// `f` as egglog bindings over `env`'s shapes.
pub fn encode(f: &Formula, env: &ShapeEnv) -> Encoded {
    let mut e = Encoder {
        env,
        around_take: false,
        program: String::new(),
        ids: HashMap::new(),
        leaves: Vec::new(),
    };
    let root = e.name(f);
    Encoded {
        program: e.program,
        root,
        leaves: e.leaves,
    }
}

/// Why an extracted term could not be read back (a rule built a term outside the
/// datatype's meaning: a bug in a rule file).
#[derive(Debug)]
pub struct DecodeError(pub String);

/// The term `id` of `dag` as a [`Named`] tree.
pub fn decode(dag: &TermDag, id: TermId, leaves: &[Formula]) -> Result<Named, DecodeError> {
    let bad = || DecodeError(format!("unexpected term {}", dag.to_string(id)));
    let Term::App(head, kids) = dag.get(id) else {
        return Err(bad());
    };
    let kid = |k: usize| -> Result<Named, DecodeError> {
        decode(dag, *kids.get(k).ok_or_else(bad)?, leaves)
    };
    let int = |k: usize| -> Result<i64, DecodeError> {
        match kids.get(k).map(|t| dag.get(*t)) {
            Some(Term::Lit(Literal::Int(v))) => Ok(*v),
            _ => Err(bad()),
        }
    };
    let axis = |k: usize| int(k).and_then(|v| usize::try_from(v).map_err(|_| bad()));
    let flag = |k: usize| -> Result<bool, DecodeError> {
        match kids.get(k).map(|t| dag.get(*t)) {
            Some(Term::Lit(Literal::Bool(v))) => Ok(*v),
            _ => Err(bad()),
        }
    };
    let string = |k: usize| -> Result<String, DecodeError> {
        match kids.get(k).map(|t| dag.get(*t)) {
            Some(Term::Lit(Literal::String(s))) => Ok(s.to_string()),
            _ => Err(bad()),
        }
    };
    let rat = |k: usize| -> Result<BigRational, DecodeError> {
        kids.get(k)
            .and_then(|t| read_rational(dag, *t))
            .ok_or_else(bad)
    };
    let b = |n: Named| Box::new(n);
    let call = |op: NamedOp, n: usize| -> Result<Named, DecodeError> {
        Ok(Named::Call(op, (0..n).map(kid).collect::<Result<_, _>>()?))
    };
    if let Some(op) = UnaryOp::ALL
        .into_iter()
        .find(|op| unary_name(*op) == head.as_str())
    {
        return Ok(Named::Unary(op, b(kid(0)?)));
    }
    let binary = [
        BinaryOp::Add,
        BinaryOp::Sub,
        BinaryOp::Mul,
        BinaryOp::Div,
        BinaryOp::Max,
        BinaryOp::Min,
    ]
    .into_iter()
    .find(|op| binary_name(*op) == Some(head.as_str()));
    if let Some(op) = binary {
        return Ok(Named::Binary(op, b(kid(0)?), b(kid(1)?)));
    }
    let reduce = [ReduceOp::Sum, ReduceOp::Max, ReduceOp::Min, ReduceOp::Mean]
        .into_iter()
        .find(|op| reduce_name(*op) == Some(head.as_str()));
    if let Some(op) = reduce {
        return Ok(Named::Reduce {
            op,
            axis: axis(1)?,
            keepdim: flag(2)?,
            arg: b(kid(0)?),
        });
    }
    Ok(match head.as_str() {
        "In" => Named::Formula(Formula::input(&string(0)?)),
        "Sc" => Named::Formula(Formula::scalar(&string(0)?)),
        "Num" => Named::Formula(Formula::Const(rat(0)?)),
        "Leaf" => {
            let k = usize::try_from(int(0)?).map_err(|_| bad())?;
            Named::Formula(leaves.get(k).ok_or_else(bad)?.clone())
        }
        "K" => Named::Constant {
            name: string(0)?,
            value: rat(1)?,
        },
        "Pow" => Named::Powi(b(kid(0)?), i32::try_from(int(1)?).map_err(|_| bad())?),
        "MatMul" => Named::MatMul(b(kid(0)?), b(kid(1)?)),
        "T" => Named::Transpose(b(kid(0)?)),
        "Sigmoid" => call(NamedOp::Sigmoid, 1)?,
        "Silu" => call(NamedOp::Silu, 1)?,
        "Relu" => call(NamedOp::Relu, 1)?,
        "Gelu" => call(NamedOp::Gelu { inv_sqrt2: rat(1)? }, 1)?,
        "GeluTanh" => call(
            NamedOp::GeluTanh {
                c1: rat(1)?,
                c2: rat(2)?,
            },
            1,
        )?,
        "Softmax" => call(NamedOp::Softmax { axis: axis(1)? }, 1)?,
        "LogSoftmax" => call(NamedOp::LogSoftmax { axis: axis(1)? }, 1)?,
        "LogSumExp" => call(
            NamedOp::LogSumExp {
                axis: axis(1)?,
                keepdim: flag(2)?,
            },
            1,
        )?,
        "Var" => call(
            NamedOp::Var {
                axis: axis(1)?,
                keepdim: flag(2)?,
            },
            1,
        )?,
        "Take" => {
            let shell = Formula::take(TakeKind::Along, Formula::int(0), Formula::int(0), axis(2)?);
            Named::Node(Box::new(shell), vec![kid(0)?, kid(1)?])
        }
        "Where" => {
            let z = Formula::int(0);
            let shell = Formula::select(z.clone(), z.clone(), z);
            Named::Node(Box::new(shell), vec![kid(0)?, kid(1)?, kid(2)?])
        }
        "Cmp" => {
            let name = string(0)?;
            let op = [
                CmpOp::Lt,
                CmpOp::Le,
                CmpOp::Gt,
                CmpOp::Ge,
                CmpOp::Eq,
                CmpOp::Ne,
            ]
            .into_iter()
            .find(|op| cmp_name(*op) == name)
            .ok_or_else(bad)?;
            let shell = Formula::cmp(op, Formula::int(0), Formula::int(0));
            Named::Node(Box::new(shell), vec![kid(1)?, kid(2)?])
        }
        "CrossEntropy" => call(
            NamedOp::CrossEntropy {
                ignore_index: rat(2)?,
            },
            2,
        )?,
        "NllLoss" => call(
            NamedOp::NllLoss {
                ignore_index: rat(2)?,
            },
            2,
        )?,
        "LayerNorm" => call(NamedOp::LayerNorm { axis: axis(4)? }, 4)?,
        "RmsNorm" => call(NamedOp::RmsNorm { axis: axis(3)? }, 3)?,
        _ => return Err(bad()),
    })
}

/// A `BigRat` term (`(bigrat (from-string "p") (from-string "q"))`, or `(bigint n)`
/// operands) as a rational.
fn read_rational(dag: &TermDag, id: TermId) -> Option<BigRational> {
    let Term::App(head, kids) = dag.get(id) else {
        return None;
    };
    if head != "bigrat" || kids.len() != 2 {
        return None;
    }
    let int = |t: TermId| -> Option<BigInt> {
        match dag.get(t) {
            Term::App(h, k) if k.len() == 1 => match (h.as_str(), dag.get(k[0])) {
                ("from-string", Term::Lit(Literal::String(s))) => s.parse().ok(),
                ("bigint", Term::Lit(Literal::Int(v))) => Some(BigInt::from(*v)),
                _ => None,
            },
            _ => None,
        }
    };
    let (p, q) = (int(kids[0])?, int(kids[1])?);
    (q != BigInt::from(0)).then(|| BigRational::new(p, q))
}
