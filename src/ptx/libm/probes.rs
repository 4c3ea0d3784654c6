//! The libm probes: real compiler output for `y[i] = f(x[i])` (`ptx/libm/`, made by
//! `ptx/libm/generate.py`), embedded in the binary, each with the exact function it is
//! read as ([`Meaning`]). A probe runs symbolically with its input bound to any term
//! ([`Probe::apply`]); tests/it/ptx_libm.rs validates each numerically (concrete run
//! against [`Meaning::eval`]).

use super::{canonical, fingerprints, parent_shape, reachable};
use crate::exec::domain::{Binary, Domain, Symbolic, Truth};
use crate::launch::{Instance, Launch};
use crate::ptx::ast::Module;
use crate::term::{eval_func, CmpOp, Func, Node, TermId, Terms};
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive};
use rustc_hash::FxHashSet;
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// The exact real function a probe's code is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Meaning {
    Func(Func),
    /// `exp(x) - 1`
    Expm1,
    /// `log(1 + x)`
    Log1p,
    /// `1 - erf(x)`
    Erfc,
    /// `x^k` (`powf(x, k)` with a constant integer `k`)
    Powi(i32),
    /// `x^(p/q) = exp((p/q) · log x)` (`powf(x, p/q)`, a real exponent; x > 0)
    PowRat(i32, i32),
    /// The real cube root `sign(x) · |x|^(1/3)` (`cbrtf`, `cbrt`), spelled as a torch
    /// reference spells it (PyTorch has no cbrt).
    Cbrt,
}

impl Meaning {
    /// The function applied to `a`, as lift's terms (and torch's ops) spell it.
    pub fn build(self, terms: &mut Terms, a: TermId) -> TermId {
        match self {
            Meaning::Func(f) => terms.call(f, a),
            Meaning::Expm1 => {
                let e = terms.call(Func::Exp, a);
                let m1 = terms.int(-1);
                terms.add(e, m1)
            }
            Meaning::Log1p => {
                let one = terms.one();
                let s = terms.add(one, a);
                terms.call(Func::Log, s)
            }
            Meaning::Erfc => {
                let e = terms.call(Func::Erf, a);
                let one = terms.one();
                terms.sub(one, e)
            }
            Meaning::Powi(k) => terms.powi(a, k),
            Meaning::PowRat(p, q) => terms.pow_real(a, BigRational::new(p.into(), q.into())),
            Meaning::Cbrt => {
                let s = terms.sign(a);
                let m = terms.call(Func::Abs, a);
                let r = terms.pow_real(m, BigRational::new(1.into(), 3.into()));
                terms.mul(s, r)
            }
        }
    }
    /// The function's value at `x` (f64 libm).
    pub fn eval(self, x: f64) -> f64 {
        match self {
            Meaning::Func(f) => eval_func(f, x),
            Meaning::Expm1 => x.exp_m1(),
            Meaning::Log1p => x.ln_1p(),
            Meaning::Erfc => libm::erfc(x),
            Meaning::Powi(k) => x.powi(k),
            Meaning::PowRat(p, q) => x.powf(p as f64 / q as f64),
            Meaning::Cbrt => x.cbrt(),
        }
    }
    /// The name a reader knows it by.
    pub fn name(self) -> String {
        match self {
            Meaning::Func(f) => format!("{f:?}").to_lowercase(),
            Meaning::Expm1 => "expm1".into(),
            Meaning::Log1p => "log1p".into(),
            Meaning::Erfc => "erfc".into(),
            Meaning::Powi(k) => format!("pow(_, {k})"),
            Meaning::PowRat(p, q) => format!("pow(_, {p}/{q})"),
            Meaning::Cbrt => "cbrt".into(),
        }
    }
}

/// One probe: `y[i] = f(x[i])` compiled as the suite's kernels are.
pub struct Probe {
    pub name: &'static str,
    pub meaning: Meaning,
    /// The probe's PTX and launch, parsed on its first run: most kernels try only a
    /// few probes (the fingerprints below choose them), and parsing all 280 KB of
    /// them cost every PTX command about a quarter of its time.
    ptx: &'static str,
    launch: &'static str,
    code: OnceLock<Code>,
    /// How the expansion's code uses its argument: the shapes of the argument's
    /// direct parents (see [`parent_shape`]) other than the result itself. Where the
    /// code is the probe's, each is a parent of the argument in the kernel's term too:
    /// a cheap prefilter for candidates.
    pub(super) uses: FxHashSet<String>,
    /// The same for the argument `-x`, its parents brought to [`canonical`] form: where
    /// the code reads only `|x|` and comparisons of `x`, as `erfcf` does, an argument
    /// `-u` leaves no node `-u` in the kernel's term, only `u` with these parents.
    pub(super) neg_uses: FxHashSet<String>,
    /// The uses of `x` in the code at the arguments `2x` and `-2x`, constants erased
    /// and `c · x` left out (it flattens into the kernel's `(k·c) · u`): what a scaled
    /// argument `k · u` (k > 0, k < 0) needs among the parents of `u`. `None` where
    /// the code keeps `k · x` as a node (a plain candidate then).
    pub(super) scaled_uses: [Option<FxHashSet<String>>; 2],
    /// The uses, constants erased, of the argument node itself at the arguments
    /// `x + 1/4`, `2x`, `-2x` (where it is a node of the code): what a candidate sum,
    /// or product with a positive or negative constant, needs among its parents.
    pub(super) form_uses: [Option<FxHashSet<String>>; 3],
    /// The magnitudes of the code's constants other than small integers: its
    /// fingerprint, to name the function an unrecognised expansion most likely is.
    pub(super) constants: FxHashSet<BigRational>,
    /// The constants `c` of the expansion's `c · x` nodes. An argument `k · u` reaches
    /// the kernel's term as `(k·c) · u` (products flatten, constants fold), so the node
    /// `k · u` itself may not exist: these let `recognise` solve for `k`.
    pub(super) scales: Vec<BigRational>,
}

/// A probe's code, parsed.
struct Code {
    module: Module,
    inst: Instance,
    arg_order: Vec<String>,
}

/// (name, meaning, PTX, launch). Triton's libdevice calls (`log` .. `erf`, from
/// probe.py) and CUDA's own functions as NVRTC emits them (`expf` ..., from `*.cu`).
const SOURCES: [(&str, Meaning, &str, &str); 37] = [
    (
        "log",
        Meaning::Func(Func::Log),
        include_str!("../../../ptx/libm/log.ptx"),
        include_str!("../../../ptx/libm/log.launch.toml"),
    ),
    (
        "sin",
        Meaning::Func(Func::Sin),
        include_str!("../../../ptx/libm/sin.ptx"),
        include_str!("../../../ptx/libm/sin.launch.toml"),
    ),
    (
        "cos",
        Meaning::Func(Func::Cos),
        include_str!("../../../ptx/libm/cos.ptx"),
        include_str!("../../../ptx/libm/cos.launch.toml"),
    ),
    (
        "tanh",
        Meaning::Func(Func::Tanh),
        include_str!("../../../ptx/libm/tanh.ptx"),
        include_str!("../../../ptx/libm/tanh.launch.toml"),
    ),
    (
        "erf",
        Meaning::Func(Func::Erf),
        include_str!("../../../ptx/libm/erf.ptx"),
        include_str!("../../../ptx/libm/erf.launch.toml"),
    ),
    (
        "expf",
        Meaning::Func(Func::Exp),
        include_str!("../../../ptx/libm/expf.ptx"),
        include_str!("../../../ptx/libm/expf.launch.toml"),
    ),
    (
        "sinf",
        Meaning::Func(Func::Sin),
        include_str!("../../../ptx/libm/sinf.ptx"),
        include_str!("../../../ptx/libm/sinf.launch.toml"),
    ),
    (
        "cosf",
        Meaning::Func(Func::Cos),
        include_str!("../../../ptx/libm/cosf.ptx"),
        include_str!("../../../ptx/libm/cosf.launch.toml"),
    ),
    (
        "tanhf",
        Meaning::Func(Func::Tanh),
        include_str!("../../../ptx/libm/tanhf.ptx"),
        include_str!("../../../ptx/libm/tanhf.launch.toml"),
    ),
    (
        "erff",
        Meaning::Func(Func::Erf),
        include_str!("../../../ptx/libm/erff.ptx"),
        include_str!("../../../ptx/libm/erff.launch.toml"),
    ),
    (
        "log2f",
        Meaning::Func(Func::Log2),
        include_str!("../../../ptx/libm/log2f.ptx"),
        include_str!("../../../ptx/libm/log2f.launch.toml"),
    ),
    (
        "log1pf",
        Meaning::Log1p,
        include_str!("../../../ptx/libm/log1pf.ptx"),
        include_str!("../../../ptx/libm/log1pf.launch.toml"),
    ),
    (
        "expm1f",
        Meaning::Expm1,
        include_str!("../../../ptx/libm/expm1f.ptx"),
        include_str!("../../../ptx/libm/expm1f.launch.toml"),
    ),
    (
        "erfcf",
        Meaning::Erfc,
        include_str!("../../../ptx/libm/erfcf.ptx"),
        include_str!("../../../ptx/libm/erfcf.launch.toml"),
    ),
    (
        "powf_3",
        Meaning::Powi(3),
        include_str!("../../../ptx/libm/powf_3.ptx"),
        include_str!("../../../ptx/libm/powf_3.launch.toml"),
    ),
    (
        "powf_half",
        Meaning::Func(Func::Sqrt),
        include_str!("../../../ptx/libm/powf_half.ptx"),
        include_str!("../../../ptx/libm/powf_half.launch.toml"),
    ),
    (
        "powf_2_5",
        Meaning::PowRat(5, 2),
        include_str!("../../../ptx/libm/powf_2_5.ptx"),
        include_str!("../../../ptx/libm/powf_2_5.launch.toml"),
    ),
    (
        "powf_m2",
        Meaning::Powi(-2),
        include_str!("../../../ptx/libm/powf_m2.ptx"),
        include_str!("../../../ptx/libm/powf_m2.launch.toml"),
    ),
    (
        "erf64",
        Meaning::Func(Func::Erf),
        include_str!("../../../ptx/libm/erf64.ptx"),
        include_str!("../../../ptx/libm/erf64.launch.toml"),
    ),
    (
        "tanh64",
        Meaning::Func(Func::Tanh),
        include_str!("../../../ptx/libm/tanh64.ptx"),
        include_str!("../../../ptx/libm/tanh64.launch.toml"),
    ),
    (
        "exp64",
        Meaning::Func(Func::Exp),
        include_str!("../../../ptx/libm/exp64.ptx"),
        include_str!("../../../ptx/libm/exp64.launch.toml"),
    ),
    (
        "log64",
        Meaning::Func(Func::Log),
        include_str!("../../../ptx/libm/log64.ptx"),
        include_str!("../../../ptx/libm/log64.launch.toml"),
    ),
    (
        "exp264",
        Meaning::Func(Func::Exp2),
        include_str!("../../../ptx/libm/exp264.ptx"),
        include_str!("../../../ptx/libm/exp264.launch.toml"),
    ),
    (
        "expm164",
        Meaning::Expm1,
        include_str!("../../../ptx/libm/expm164.ptx"),
        include_str!("../../../ptx/libm/expm164.launch.toml"),
    ),
    (
        "log264",
        Meaning::Func(Func::Log2),
        include_str!("../../../ptx/libm/log264.ptx"),
        include_str!("../../../ptx/libm/log264.launch.toml"),
    ),
    (
        "log1p64",
        Meaning::Log1p,
        include_str!("../../../ptx/libm/log1p64.ptx"),
        include_str!("../../../ptx/libm/log1p64.launch.toml"),
    ),
    (
        "erfc64",
        Meaning::Erfc,
        include_str!("../../../ptx/libm/erfc64.ptx"),
        include_str!("../../../ptx/libm/erfc64.launch.toml"),
    ),
    (
        "sin64",
        Meaning::Func(Func::Sin),
        include_str!("../../../ptx/libm/sin64.ptx"),
        include_str!("../../../ptx/libm/sin64.launch.toml"),
    ),
    (
        "cos64",
        Meaning::Func(Func::Cos),
        include_str!("../../../ptx/libm/cos64.ptx"),
        include_str!("../../../ptx/libm/cos64.launch.toml"),
    ),
    (
        "pow64_3",
        Meaning::Powi(3),
        include_str!("../../../ptx/libm/pow64_3.ptx"),
        include_str!("../../../ptx/libm/pow64_3.launch.toml"),
    ),
    (
        "pow64_half",
        Meaning::Func(Func::Sqrt),
        include_str!("../../../ptx/libm/pow64_half.ptx"),
        include_str!("../../../ptx/libm/pow64_half.launch.toml"),
    ),
    (
        "pow64_m2",
        Meaning::Powi(-2),
        include_str!("../../../ptx/libm/pow64_m2.ptx"),
        include_str!("../../../ptx/libm/pow64_m2.launch.toml"),
    ),
    (
        "pow64_2_5",
        Meaning::PowRat(5, 2),
        include_str!("../../../ptx/libm/pow64_2_5.ptx"),
        include_str!("../../../ptx/libm/pow64_2_5.launch.toml"),
    ),
    (
        "cbrtf",
        Meaning::Cbrt,
        include_str!("../../../ptx/libm/cbrtf.ptx"),
        include_str!("../../../ptx/libm/cbrtf.launch.toml"),
    ),
    (
        "cbrt64",
        Meaning::Cbrt,
        include_str!("../../../ptx/libm/cbrt64.ptx"),
        include_str!("../../../ptx/libm/cbrt64.launch.toml"),
    ),
    // -G builds: the same functions as unoptimised subroutines.
    (
        "erf64_g",
        Meaning::Func(Func::Erf),
        include_str!("../../../ptx/libm/erf64_g.ptx"),
        include_str!("../../../ptx/libm/erf64_g.launch.toml"),
    ),
    (
        "tanh64_g",
        Meaning::Func(Func::Tanh),
        include_str!("../../../ptx/libm/tanh64_g.ptx"),
        include_str!("../../../ptx/libm/tanh64_g.launch.toml"),
    ),
];

/// The magnitudes of the constants under `root`, small integers left out.
pub(super) fn fingerprint(terms: &Terms, root: TermId) -> FxHashSet<BigRational> {
    reachable(terms, &[root])
        .into_iter()
        .filter_map(|t| terms.as_const(t))
        .filter(|c| !(c.is_integer() && c.abs().to_i64().is_some_and(|v| v <= 256)))
        .map(|c| c.abs())
        .collect()
}

/// The probes, parsed once per process; their fingerprints read from
/// `fingerprints.txt` where it holds them for this source, measured otherwise.
pub fn probes() -> &'static [Probe] {
    static PROBES: OnceLock<Vec<Probe>> = OnceLock::new();
    PROBES.get_or_init(|| {
        let mut stored = fingerprints::read(fingerprints::STORED);
        SOURCES
            .iter()
            .map(|&(name, meaning, ptx, launch)| {
                let mut p = parse(name, meaning, ptx, launch);
                match stored.remove(name) {
                    Some(s) if s.source == fingerprints::source_hash(ptx, launch) => {
                        p.uses = s.uses;
                        p.neg_uses = s.neg_uses;
                        p.scaled_uses = s.scaled_uses;
                        p.form_uses = s.form_uses;
                        p.constants = s.constants;
                        p.scales = s.scales;
                    }
                    _ => measure(&mut p),
                }
                p
            })
            .collect()
    })
}

/// A probe with no fingerprint yet (its code parsed when first run).
fn parse(name: &'static str, meaning: Meaning, ptx: &'static str, launch: &'static str) -> Probe {
    Probe {
        name,
        meaning,
        ptx,
        launch,
        code: OnceLock::new(),
        uses: FxHashSet::default(),
        neg_uses: FxHashSet::default(),
        scaled_uses: Default::default(),
        form_uses: Default::default(),
        constants: FxHashSet::default(),
        scales: Vec::new(),
    }
}

/// Measures `p`'s fingerprint by running its code at `x`, `-x`, `x + 1/4`, `2x`, `-2x`.
fn measure(p: &mut Probe) {
    let mut terms = Terms::new();
    let x = terms.input("x", &[0]);
    if let Some(y) = p.apply(&mut terms, x) {
        p.constants = fingerprint(&terms, y);
        for t in reachable(&terms, &[y]) {
            if t != y && terms.children(t).contains(&x) {
                p.uses.insert(parent_shape(&terms, t, x, false));
            }
            if let Node::Mul(ops) = terms.node(t) {
                if let (2, Some(c)) = (ops.len(), terms.as_const(ops[0])) {
                    if ops[1] == x && !p.scales.contains(c) {
                        p.scales.push(c.clone());
                    }
                }
            }
        }
    }
    let minus_x = terms.neg(x);
    if let Some(y) = p.apply(&mut terms, minus_x) {
        for t in reachable(&terms, &[y]) {
            if t != y && terms.children(t).contains(&x) {
                p.neg_uses.insert(parent_shape(&terms, t, x, false));
            }
        }
    }
    // The argument forms `x + 1/4`, `2x`, `-2x`: how the code uses a sum or
    // a scaled argument, whose own uses the constructors may merge into it.
    let quarter = terms.constant(BigRational::new(1.into(), 4.into()));
    let (two, m_two) = (terms.int(2), terms.int(-2));
    let forms = [
        terms.add(x, quarter),
        terms.mul(two, x),
        terms.mul(m_two, x),
    ];
    for (j, f) in forms.into_iter().enumerate() {
        let Some(y) = p.apply(&mut terms, f) else {
            continue;
        };
        let dag = reachable(&terms, &[y]);
        let of = |a: TermId| -> FxHashSet<String> {
            dag.iter()
                .filter(|&&t| t != y && terms.children(t).contains(&a))
                .map(|&t| parent_shape(&terms, t, a, true))
                .collect()
        };
        if dag.contains(&f) {
            p.form_uses[j] = Some(of(f));
        } else if j > 0 {
            // `k · x` is no node: `k` went into the code's `c · x` nodes.
            let mut uses = of(x);
            uses.remove("mul(#,c)");
            p.scaled_uses[j - 1] = Some(uses);
        }
    }
}

/// Every probe measured afresh, as `fingerprints.txt` holds them (the test
/// `ptx_libm::stored_fingerprints_are_current` compares the two).
pub fn measured_fingerprints() -> String {
    let mut out = String::new();
    for &(name, meaning, ptx, launch) in SOURCES.iter() {
        let mut p = parse(name, meaning, ptx, launch);
        measure(&mut p);
        let stored = fingerprints::Stored {
            source: fingerprints::source_hash(ptx, launch),
            uses: p.uses,
            neg_uses: p.neg_uses,
            scaled_uses: p.scaled_uses,
            form_uses: p.form_uses,
            constants: p.constants,
            scales: p.scales,
        };
        fingerprints::write(name, &stored, &mut out);
    }
    out
}

/// The symbolic domain with the probe's input element bound to a given term.
struct Bound<'t> {
    sym: Symbolic<'t>,
    arg: TermId,
}

impl Domain for Bound<'_> {
    type V = TermId;
    // Built as the kernel's terms are (pending sums settled at once), so that the
    // probe's code and the kernel's yield the same nodes.
    const EXACT_SUMS: bool = true;
    fn constant(&mut self, x: f64) -> TermId {
        self.sym.constant(x)
    }
    fn input(&mut self, _tensor: usize, _index: &[i64], _flat: usize) -> TermId {
        self.arg
    }
    fn param(&mut self, name: &str) -> Option<TermId> {
        self.sym.param(name)
    }
    fn neg(&mut self, a: TermId) -> TermId {
        self.sym.neg(a)
    }
    fn func(&mut self, f: Func, a: TermId) -> TermId {
        let r = self.sym.func(f, a);
        canonical(self.sym.terms, r)
    }
    fn powi(&mut self, a: TermId, n: i32) -> TermId {
        self.sym.powi(a, n)
    }
    fn binary(&mut self, op: Binary, a: TermId, b: TermId) -> TermId {
        self.sym.binary(op, a, b)
    }
    fn sum(&mut self, xs: &[TermId]) -> TermId {
        self.sym.sum(xs)
    }
    fn cmp(&mut self, op: CmpOp, a: TermId, b: TermId) -> Truth<TermId> {
        match self.sym.cmp(op, a, b) {
            Truth::Unknown(c) => Truth::Unknown(canonical(self.sym.terms, c)),
            known => known,
        }
    }
    fn select(&mut self, c: TermId, a: TermId, b: TermId) -> TermId {
        self.sym.select(c, a, b)
    }
    fn not(&mut self, a: TermId) -> Truth<TermId> {
        self.sym.not(a)
    }
    fn and(&mut self, a: TermId, b: TermId) -> Truth<TermId> {
        self.sym.and(a, b)
    }
    fn or(&mut self, a: TermId, b: TermId) -> Truth<TermId> {
        self.sym.or(a, b)
    }
    fn as_number(&self, a: TermId) -> Option<f64> {
        self.sym.as_number(a)
    }
    fn opaque(&mut self, op: &str, args: &[TermId]) -> Option<TermId> {
        self.sym.opaque(op, args)
    }
    fn bits(&mut self, b: u64) -> TermId {
        self.sym.bits(b)
    }
    fn int_range(&self, a: TermId) -> Option<(i128, i128)> {
        self.sym.int_range(a)
    }
}

impl Probe {
    fn code(&self) -> &Code {
        self.code.get_or_init(|| {
            let module = crate::ptx::parse(self.ptx).expect("embedded libm probe parses");
            let mut inst = Launch::parse(self.launch, self.name)
                .and_then(|l| l.instantiate(&BTreeMap::new()))
                .expect("embedded libm probe launch");
            // One element, one thread: the element's code is all that matters.
            inst.block = [1, 1, 1];
            Code {
                module,
                inst,
                arg_order: crate::ptx::launch_arg_order(self.launch),
            }
        })
    }

    /// The probe's parsed PTX module.
    pub fn module(&self) -> &Module {
        &self.code().module
    }

    /// The probe's launch instance (one thread).
    pub fn instance(&self) -> &Instance {
        &self.code().inst
    }

    /// The probe's kernel parameters in launch order.
    pub fn arg_order(&self) -> &[String] {
        &self.code().arg_order
    }

    /// The term the probe stores for input `arg`, built in `terms`.
    pub fn apply(&self, terms: &mut Terms, arg: TermId) -> Option<TermId> {
        let code = self.code();
        let mut d = Bound {
            sym: Symbolic {
                terms,
                tensor_names: Vec::new(),
                precision: Default::default(),
            },
            arg,
        };
        let run = crate::ptx::execute(&code.module, &code.inst, &code.arg_order, &mut d).ok()?;
        let y = run.outputs.iter().find(|o| o.name == "y")?;
        y.elems.first().copied().flatten()
    }
}
