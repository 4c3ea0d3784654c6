//! PyTorch specs: the expression language of `lift check --spec '...'` and its op library.
//!
//! Architecture invariant: this module depends only on `term`. It turns a spec text such
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
//! Semantics: tensors are real (elements are terms); integers are exact; a decimal literal
//! is rounded to [`Env::float`] (exactly, from its decimal value) before it becomes a
//! constant, and so are the irrational constants of the op library (`sqrt(2/pi)` in
//! `gelu`). Broadcasting and negative dims follow NumPy/PyTorch. Reductions build one
//! n-ary term per output element; `softmax` is `exp(x - max) / sum(exp(x - max))`.

mod eval;
mod formula;
mod lex;
mod ops;
mod parse;
mod tensor;
mod value;

pub use formula::SymEnv;

use crate::term::{TermId, Terms};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A spec that failed to parse or to instantiate: where (1-based character column in the
/// spec text; multi-line specs count from the start of the text) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub col: usize,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "col {}: {}", self.col, self.message)
    }
}

impl std::error::Error for SpecError {}

/// The float type of the kernel under check: decimal constants of the spec are rounded to
/// it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum FloatType {
    #[default]
    F32,
    F64,
    F16,
    BF16,
}

impl FloatType {
    /// (precision in bits including the implicit one, minimum normal exponent, maximum
    /// exponent).
    fn format(self) -> (u32, i64, i64) {
        match self {
            FloatType::F64 => (53, -1022, 1023),
            FloatType::F32 => (24, -126, 127),
            FloatType::F16 => (11, -14, 15),
            FloatType::BF16 => (8, -126, 127),
        }
    }

    /// The value of this type nearest to `r` (ties to even; ±inf beyond the largest
    /// finite value), as an f64 (exact: every value of these types is an f64).
    pub fn round(self, r: &BigRational) -> f64 {
        if r.is_zero() {
            return 0.0;
        }
        let (prec, emin, emax) = self.format();
        let a = r.abs();
        let mut e = a.numer().bits() as i64 - a.denom().bits() as i64;
        // Now 2^(e-1) < a < 2^(e+1); make it 2^e <= a < 2^(e+1).
        if a < pow2(e) {
            e -= 1;
        }
        let e = e.max(emin);
        let k = e - (prec as i64 - 1);
        let scaled = &a / pow2(k);
        let floor = scaled.floor();
        let frac = &scaled - &floor;
        let half = BigRational::new(BigInt::from(1), BigInt::from(2));
        let mut m = floor.to_integer();
        let odd = (&m % BigInt::from(2)) == BigInt::one();
        if frac > half || (frac == half && odd) {
            m += 1;
        }
        // Largest finite: (2^prec - 1) * 2^(emax - prec + 1).
        let top = emax - prec as i64 + 1;
        let max = BigRational::from_integer((BigInt::one() << prec) - 1) * pow2(top);
        let too_big = BigRational::from_integer(m.clone()) * pow2(k) > max;
        let v = if too_big {
            f64::INFINITY
        } else {
            ldexp(m.to_f64().unwrap_or(f64::INFINITY), k)
        };
        if r.is_negative() {
            -v
        } else {
            v
        }
    }

    /// Whether every value of `other` is a value of `self` (a conversion from `other` to
    /// `self` is exact).
    pub fn holds_all_of(self, other: FloatType) -> bool {
        let (p, lo, hi) = self.format();
        let (q, lo2, hi2) = other.format();
        p >= q && lo <= lo2 && hi >= hi2
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            FloatType::F64 => "float64",
            FloatType::F32 => "float32",
            FloatType::F16 => "float16",
            FloatType::BF16 => "bfloat16",
        }
    }

    /// `torch.finfo(dtype).eps`.
    pub fn epsilon(self) -> f64 {
        let (prec, _, _) = self.format();
        ldexp(1.0, -(prec as i64 - 1))
    }
}

fn pow2(k: i64) -> BigRational {
    if k >= 0 {
        BigRational::from_integer(BigInt::one() << k as usize)
    } else {
        BigRational::new(BigInt::one(), BigInt::one() << (-k) as usize)
    }
}

/// `x * 2^k`, exact whenever the result is representable.
fn ldexp(mut x: f64, mut k: i64) -> f64 {
    let p2 = |j: i64| f64::from_bits(((j + 1023) as u64) << 52);
    while k > 900 {
        x *= p2(900);
        k -= 900;
    }
    while k < -900 {
        x *= p2(-900);
        k += 900;
    }
    x * p2(k)
}

/// What the names of a spec stand for when it is instantiated.
pub struct Env<'a> {
    /// Input tensor names and their (row-major) shapes.
    pub tensors: &'a BTreeMap<String, Vec<usize>>,
    /// Symbolic real scalars: each becomes `terms.param(name)`.
    pub scalars: &'a BTreeSet<String>,
    /// Real scalars fixed to numbers (used exactly, as `terms.float(v)`).
    pub values: &'a BTreeMap<String, f64>,
    /// Size names usable as integers (`(N,)` in `layer_norm`, `x[:, :H]`).
    pub sizes: &'a BTreeMap<String, i64>,
    /// Decimal constants in the spec are rounded to this type.
    pub float: FloatType,
}

/// One output of an instantiated spec.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecOutput {
    pub name: String,
    pub shape: Vec<usize>,
    /// One term per element, row-major.
    pub elems: Vec<TermId>,
}

/// A parsed spec.
#[derive(Clone, Debug)]
pub struct SpecProgram {
    /// The output names: every assigned name not starting with `_`, in order of first
    /// assignment.
    pub outputs: Vec<String>,
    stmts: Vec<parse::Stmt>,
}

/// Parses a spec (`y = torch.softmax(x, dim=-1)`; several statements separated by `;`).
pub fn parse(src: &str) -> Result<SpecProgram, SpecError> {
    let tokens = lex::lex(src)?;
    let stmts = parse::Parser::new(tokens).program()?;
    let mut outputs: Vec<String> = Vec::new();
    for s in &stmts {
        for (name, _) in &s.targets {
            if !name.starts_with('_') && !outputs.contains(name) {
                outputs.push(name.clone());
            }
        }
    }
    if outputs.is_empty() {
        return Err(SpecError {
            col: 1,
            message: "the spec assigns no output (write e.g. `y = torch.exp(x)`; \
                      names starting with `_` are temporaries)"
                .into(),
        });
    }
    Ok(SpecProgram { outputs, stmts })
}

impl SpecProgram {
    /// One term per output element, for the tensors, scalars and sizes of `env`.
    pub fn instantiate(&self, terms: &mut Terms, env: &Env) -> Result<Vec<SpecOutput>, SpecError> {
        eval::run(&self.stmts, &self.outputs, terms, env)
    }

    /// Every function and method name the op library accepts (aliases included).
    pub fn supported_ops() -> &'static [&'static str] {
        ops::SUPPORTED
    }

    /// PyTorch's parameter names of op `name` (an alias gives its op's); a leading `*`
    /// marks the parameter that collects the remaining positional arguments.
    pub fn op_params(name: &str) -> Option<&'static [&'static str]> {
        ops::canonical(name).map(ops::params)
    }
}
