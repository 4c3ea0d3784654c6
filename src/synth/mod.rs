//! Synth: lifts a [`Spec`] to a tensor [`Formula`], proved equal by `decide`.
//!
//! Architecture invariant: a formula is returned only after every output element of
//! the candidate, instantiated at the same instance into the same `Terms`, is proved
//! `Equal` to the kernel's term by [`crate::decide`]. Where the search stalls, the
//! stalled sub-term is reported instead.
//!
//! The search is top-down over the list of element terms of one output tensor, using
//! the terms' root operators (see [`Synth::build`]): constants, scalars, inputs (with
//! transposes and NumPy broadcasting, matched exactly by instantiation), a term list
//! constant along an axis (a broadcast of a keepdim value), the same root operator for
//! every element (split child-wise), and n-ary `+`/`max`/`min` whose operands range over
//! one axis (a reduction; `sum` of products of two inputs: `matmul`).

use crate::decide::{self, Options, Verdict};
use crate::formula::{BinaryOp, Formula, ReduceOp, ShapeEnv, UnaryOp};
use crate::kernel::Kernel;
use crate::launch::Instance;
use crate::spec::Spec;
use crate::term::{Node, TermId, Terms};
use crate::triton_ir::ast::Loc;
use crate::Error;
use num_traits::{One, Zero};
use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

mod enumerate;
mod report;

/// The result for one output tensor.
#[derive(Clone, Debug)]
pub struct Lifted {
    pub name: String,
    pub shape: Vec<usize>,
    /// The proved formula.
    pub formula: Option<Formula>,
    /// Why no formula was proved (the stalled sub-term, or the failed proof).
    pub stalled: Option<String>,
    /// The source lines (Python, via the IR's `loc`s) the output's values come from.
    pub sources: Vec<Loc>,
}

/// Wall-clock time of each phase of a lift.
#[derive(Clone, Copy, Debug, Default)]
pub struct Timings {
    /// Symbolic execution of the kernel (the point-wise spec).
    pub execute: Duration,
    /// The search for candidate formulas.
    pub synthesize: Duration,
    /// Proving the candidates equal to the spec, element by element.
    pub prove: Duration,
}

/// Everything a lift produced: the spec, the shape environment, one result per output.
pub struct Lift {
    pub spec: Spec,
    pub env: ShapeEnv,
    pub outputs: Vec<Lifted>,
    pub timings: Timings,
    /// The kernel's entry name and file, for headings and reading source lines.
    pub kernel_name: String,
    pub kernel_path: std::path::PathBuf,
}

/// Lift every output of `kernel` on instance `inst`.
pub fn lift(kernel: &Kernel, inst: &Instance, terms: &mut Terms) -> Result<Lift, Error> {
    let mut timings = Timings::default();
    let start = Instant::now();
    let spec = kernel.spec(inst, terms)?;
    timings.execute = start.elapsed();
    let env = ShapeEnv::from_launch(&kernel.launch, &inst.sizes)?;
    let mut outputs = Vec::new();
    for t in &spec.outputs {
        let mut lifted = Lifted {
            name: t.name.clone(),
            shape: t.shape.clone(),
            formula: None,
            stalled: None,
            sources: sources(kernel, t),
        };
        let elems: Option<Vec<TermId>> = t.elems.iter().copied().collect();
        let Some(elems) = elems else {
            lifted.stalled = Some(format!("{} element(s) never written", t.unwritten()));
            outputs.push(lifted);
            continue;
        };
        let mut s = Synth {
            terms,
            env: &env,
            memo: HashMap::new(),
            budget: 20_000,
            fallback: enumerate::Fallback::new(Duration::from_secs(3)),
        };
        let start = Instant::now();
        let mut built = s.build(&t.shape, &elems);
        if built.is_err() && !s.fallback.enabled() {
            // Again with the semantic fallback where top-down stalls.
            s.fallback.enable();
            s.memo.clear();
            s.budget = 20_000;
            built = s.build(&t.shape, &elems);
        }
        timings.synthesize += start.elapsed();
        match built {
            Ok(f) => {
                let f = tidy(f);
                let start = Instant::now();
                let proved = prove(terms, &env, &f, &t.shape, &elems);
                timings.prove += start.elapsed();
                match proved {
                    Ok(()) => lifted.formula = Some(f),
                    Err(why) => {
                        lifted.stalled = Some(format!(
                            "candidate not proved: {} = {}: {why}",
                            t.name,
                            crate::render::text::expr(&f)
                        ))
                    }
                }
            }
            Err(stall) => {
                lifted.stalled = Some(format!(
                    "no formula for the sub-term {}",
                    terms.display(stall)
                ))
            }
        }
        outputs.push(lifted);
    }
    Ok(Lift {
        spec,
        env,
        outputs,
        timings,
        kernel_name: kernel.name(),
        kernel_path: kernel.path.clone(),
    })
}

/// Where the values of output `t` come from: for Triton IR, the data slice of each
/// store that wrote it; for PTX, the stores' own `.loc` lines.
fn sources(kernel: &Kernel, t: &crate::spec::SpecTensor) -> Vec<Loc> {
    let stores: BTreeSet<u32> = t.sources.iter().flatten().map(|s| s.line).collect();
    let mut out: Vec<Loc> = Vec::new();
    for line in stores {
        let locs = if kernel.ptx.is_some() {
            t.sources
                .iter()
                .flatten()
                .filter(|s| s.line == line && s.loc.file.is_some())
                .map(|s| s.loc.clone())
                .take(1)
                .collect()
        } else {
            crate::triton_ir::slice::store_sources(&kernel.module, line)
        };
        for l in locs {
            if !out.iter().any(|o| o.file == l.file && o.line == l.line) {
                out.push(l);
            }
        }
    }
    out.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
    out
}

/// Proves `f`, at the sizes of `env`, equal to `elems` (of shape `shape`) element by
/// element.
pub fn prove(
    terms: &mut Terms,
    env: &ShapeEnv,
    f: &Formula,
    shape: &[usize],
    elems: &[TermId],
) -> Result<(), String> {
    let fshape = f.shape(env).map_err(|e| e.message)?;
    if fshape != shape {
        return Err(format!("shape {fshape:?}, the output has {shape:?}"));
    }
    let cand = f.instantiate(terms, env).map_err(|e| e.message)?;
    if cand.len() != elems.len() {
        return Err("element count differs".into());
    }
    let pairs: Vec<(TermId, TermId)> = cand.iter().copied().zip(elems.iter().copied()).collect();
    let verdicts = decide::decide_all(terms, &pairs, &Options::default());
    for (k, v) in verdicts.iter().enumerate() {
        match v {
            Verdict::Equal { .. } => {}
            Verdict::NotEqual(_) => return Err(format!("refuted at element #{k}")),
            Verdict::Unknown { reason } => return Err(format!("element #{k}: {reason}")),
        }
    }
    Ok(())
}

fn unravel(mut flat: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for a in (0..shape.len()).rev() {
        let d = shape[a].max(1);
        idx[a] = flat % d;
        flat /= d;
    }
    idx
}

fn ravel(idx: &[usize], shape: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (i, d)| acc * d + i)
}

struct Synth<'a> {
    terms: &'a mut Terms,
    env: &'a ShapeEnv,
    memo: HashMap<(Vec<usize>, Vec<TermId>), Result<Formula, TermId>>,
    budget: usize,
    fallback: enumerate::Fallback,
}

impl Synth<'_> {
    /// Whether `f`, broadcast to `shape`, has exactly the terms `list`.
    fn matches(&mut self, f: &Formula, shape: &[usize], list: &[TermId]) -> bool {
        let Ok(fs) = f.shape(self.env) else {
            return false;
        };
        if fs.len() > shape.len() {
            return false;
        }
        let off = shape.len() - fs.len();
        for (k, &d) in fs.iter().enumerate() {
            if d != 1 && d != shape[off + k] {
                return false;
            }
        }
        let Ok(elems) = f.instantiate(self.terms, self.env) else {
            return false;
        };
        for (p, &want) in list.iter().enumerate() {
            let idx = unravel(p, shape);
            let fidx: Vec<usize> = fs
                .iter()
                .enumerate()
                .map(|(k, &d)| if d == 1 { 0 } else { idx[off + k] })
                .collect();
            if elems[ravel(&fidx, &fs)] != want {
                return false;
            }
        }
        true
    }

    /// A formula of a shape broadcastable to `shape` whose elements are `list`
    /// (row-major over `shape`); `Err(t)`: the term `t` could not be decomposed.
    fn build(&mut self, shape: &[usize], list: &[TermId]) -> Result<Formula, TermId> {
        let key = (shape.to_vec(), list.to_vec());
        if let Some(r) = self.memo.get(&key) {
            return r.clone();
        }
        let r = if self.budget == 0 {
            Err(list[0])
        } else {
            self.budget -= 1;
            self.build_uncached(shape, list)
        };
        // Where top-down gives up: normalise, or enumerate (see `enumerate`).
        let r = r.or_else(|t| enumerate::stalled(self, shape, list).ok_or(t));
        self.memo.insert(key, r.clone());
        r
    }

    fn build_uncached(&mut self, shape: &[usize], list: &[TermId]) -> Result<Formula, TermId> {
        let t0 = list[0];
        // Independent of the index: a 0-d value, broadcast.
        if list.len() > 1 && list.iter().all(|&t| t == t0) {
            return self.build(&[], &[t0]);
        }
        // Constant along an axis: a keepdim value broadcast along it.
        for a in 0..shape.len() {
            if shape[a] > 1 && constant_along(shape, list, a) {
                let mut s2 = shape.to_vec();
                s2[a] = 1;
                let l2: Vec<TermId> = (0..list.len())
                    .filter(|&p| unravel(p, shape)[a] == 0)
                    .map(|p| list[p])
                    .collect();
                return self.build(&s2, &l2);
            }
        }
        let node = self.terms.node(t0).clone();
        match node {
            Node::Const(c) if list.len() == 1 => Ok(Formula::Const(c)),
            Node::Param(p) if list.len() == 1 => Ok(Formula::Scalar(p.to_string())),
            Node::Input { tensor, .. } => {
                let all_same = list.iter().all(|&t| {
                    matches!(self.terms.node(t), Node::Input { tensor: t2, .. } if *t2 == tensor)
                });
                if !all_same {
                    return Err(t0);
                }
                let x = Formula::input(&tensor);
                let mut cands = vec![x.clone()];
                if self.env.tensors.get(&*tensor).is_some_and(|s| s.len() >= 2) {
                    cands.push(x.t());
                }
                for c in cands {
                    if self.matches(&c, shape, list) {
                        return Ok(c);
                    }
                }
                Err(t0)
            }
            Node::Call(func, _) => {
                let op = UnaryOp::from_func(func).ok_or(t0)?;
                let kids = self.children(list, |n| match n {
                    Node::Call(f, a) if *f == func => Some(vec![*a]),
                    _ => None,
                })?;
                Ok(Formula::unary(op, self.build(shape, &kids[0])?))
            }
            Node::Pow(_, k) => {
                let kids = self.children(list, |n| match n {
                    Node::Pow(a, k2) if *k2 == k => Some(vec![*a]),
                    _ => None,
                })?;
                Ok(self.build(shape, &kids[0])?.powi(k))
            }
            Node::Cmp(op, _, _) => {
                let kids = self.children(list, |n| match n {
                    Node::Cmp(o, a, b) if *o == op => Some(vec![*a, *b]),
                    _ => None,
                })?;
                let a = self.build(shape, &kids[0])?;
                let b = self.build(shape, &kids[1])?;
                Ok(Formula::cmp(op, a, b))
            }
            Node::Select(..) => {
                let kids = self.children(list, |n| match n {
                    Node::Select(c, a, b) => Some(vec![*c, *a, *b]),
                    _ => None,
                })?;
                let c = self.build(shape, &kids[0])?;
                let a = self.build(shape, &kids[1])?;
                let b = self.build(shape, &kids[2])?;
                Ok(Formula::select(c, a, b))
            }
            Node::Add(ref ops) | Node::Mul(ref ops) | Node::Max(ref ops) | Node::Min(ref ops) => {
                let kind = std::mem::discriminant(&node);
                let n = ops.len();
                let bop = match node {
                    Node::Add(_) => BinaryOp::Add,
                    Node::Mul(_) => BinaryOp::Mul,
                    Node::Max(_) => BinaryOp::Max,
                    _ => BinaryOp::Min,
                };
                let mut first_err = t0;
                // Position-wise.
                let kids = self.children(list, |nd| {
                    if std::mem::discriminant(nd) != kind {
                        return None;
                    }
                    let o = nary(nd)?;
                    (o.len() == n).then(|| o.to_vec())
                });
                if let Ok(kids) = kids {
                    let mut fs = Vec::new();
                    let mut ok = true;
                    for k in &kids {
                        match self.build(shape, k) {
                            Ok(f) => fs.push(f),
                            Err(e) => {
                                first_err = e;
                                ok = false;
                                break;
                            }
                        }
                    }
                    if ok {
                        let mut it = fs.into_iter();
                        let mut acc = it.next().unwrap();
                        for f in it {
                            acc = Formula::binary(bop, acc, f);
                        }
                        return Ok(acc);
                    }
                }
                // Reductions.
                let rop = match node {
                    Node::Add(_) => Some(ReduceOp::Sum),
                    Node::Max(_) => Some(ReduceOp::Max),
                    Node::Min(_) => Some(ReduceOp::Min),
                    _ => None,
                };
                if let Some(rop) = rop {
                    if let Some(f) = self.reduction(rop, shape, list, n) {
                        return Ok(f);
                    }
                }
                Err(first_err)
            }
            _ => Err(t0),
        }
    }

    /// The children of every term of `list` (all with the same root, per `split`),
    /// grouped by position.
    fn children(
        &self,
        list: &[TermId],
        split: impl Fn(&Node) -> Option<Vec<TermId>>,
    ) -> Result<Vec<Vec<TermId>>, TermId> {
        let mut out: Vec<Vec<TermId>> = Vec::new();
        for &t in list {
            let kids = split(self.terms.node(t)).ok_or(t)?;
            if out.is_empty() {
                out = vec![Vec::with_capacity(list.len()); kids.len()];
            }
            if kids.len() != out.len() {
                return Err(t);
            }
            for (k, c) in kids.into_iter().enumerate() {
                out[k].push(c);
            }
        }
        Ok(out)
    }

    /// Every element an n-ary `op` of `n` operands ranging over one new axis: the
    /// operands ordered by the input elements that tell them apart.
    fn reduction(
        &mut self,
        rop: ReduceOp,
        shape: &[usize],
        list: &[TermId],
        n: usize,
    ) -> Option<Formula> {
        let mut per_elem: Vec<Vec<TermId>> = Vec::new();
        for &t in list {
            let ops = nary(self.terms.node(t))?.to_vec();
            if ops.len() != n {
                return None;
            }
            per_elem.push(self.order_operands(&ops));
        }
        // Matmul: a sum of products of two inputs.
        if rop == ReduceOp::Sum {
            if let Some(f) = self.matmul(shape, list) {
                return Some(f);
            }
        }
        // The reduced axis: a keepdim axis of size 1, or a new last axis.
        let mut placements: Vec<(usize, bool)> = (0..shape.len())
            .filter(|&a| shape[a] == 1)
            .map(|a| (a, true))
            .collect();
        placements.push((shape.len(), false));
        for (axis, keepdim) in placements {
            let mut cshape = shape.to_vec();
            if keepdim {
                cshape[axis] = n;
            } else {
                cshape.push(n);
            }
            let total: usize = cshape.iter().product();
            let mut clist = Vec::with_capacity(total);
            for p in 0..total {
                let mut idx = unravel(p, &cshape);
                let k = idx[axis];
                if keepdim {
                    idx[axis] = 0;
                } else {
                    idx.pop();
                }
                clist.push(per_elem[ravel(&idx, shape)][k]);
            }
            if let Ok(child) = self.build(&cshape, &clist) {
                return Some(Formula::reduce(rop, child, axis, keepdim));
            }
        }
        None
    }

    fn matmul(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let mut names = BTreeSet::new();
        for &op in nary(self.terms.node(list[0]))?.iter() {
            let Node::Mul(fs) = self.terms.node(op) else {
                return None;
            };
            for &f in fs.iter() {
                if let Node::Input { tensor, .. } = self.terms.node(f) {
                    names.insert(tensor.to_string());
                }
            }
        }
        let mut cands = Vec::new();
        for a in &names {
            for b in &names {
                let fa = Formula::input(a);
                let fb = Formula::input(b);
                cands.push(fa.clone().matmul(fb.clone()));
                cands.push(fa.clone().matmul(fb.clone().t()));
                cands.push(fa.clone().t().matmul(fb.clone()));
            }
        }
        cands.into_iter().find(|c| self.matches(c, shape, list))
    }

    /// Operands sorted by the input elements not shared by all of them (then by id).
    fn order_operands(&self, ops: &[TermId]) -> Vec<TermId> {
        let leaves: Vec<BTreeSet<(String, Vec<i64>)>> =
            ops.iter().map(|&o| input_leaves(self.terms, o)).collect();
        let common: BTreeSet<(String, Vec<i64>)> =
            leaves.iter().skip(1).fold(leaves[0].clone(), |acc, s| {
                acc.intersection(s).cloned().collect()
            });
        let mut keyed: Vec<(Vec<(String, Vec<i64>)>, TermId)> = ops
            .iter()
            .zip(&leaves)
            .map(|(&o, l)| (l.difference(&common).cloned().collect(), o))
            .collect();
        keyed.sort();
        keyed.into_iter().map(|(_, o)| o).collect()
    }
}

fn nary(n: &Node) -> Option<&[TermId]> {
    match n {
        Node::Add(o) | Node::Mul(o) | Node::Max(o) | Node::Min(o) => Some(o),
        _ => None,
    }
}

fn input_leaves(terms: &Terms, t: TermId) -> BTreeSet<(String, Vec<i64>)> {
    let mut out = BTreeSet::new();
    let mut stack = vec![t];
    let mut seen = BTreeSet::new();
    while let Some(t) = stack.pop() {
        if !seen.insert(t) {
            continue;
        }
        match terms.node(t) {
            Node::Input { tensor, index } => {
                out.insert((tensor.to_string(), index.to_vec()));
            }
            Node::Add(o)
            | Node::Mul(o)
            | Node::Max(o)
            | Node::Min(o)
            | Node::And(o)
            | Node::Or(o) => stack.extend(o.iter()),
            Node::Pow(a, _) | Node::Call(_, a) | Node::Not(a) => stack.push(*a),
            Node::Cmp(_, a, b) => stack.extend([*a, *b]),
            Node::Select(c, a, b) => stack.extend([*c, *a, *b]),
            _ => {}
        }
    }
    out
}

fn constant_along(shape: &[usize], list: &[TermId], a: usize) -> bool {
    let stride: usize = shape[a + 1..].iter().product();
    (0..list.len()).all(|p| {
        let i = (p / stride) % shape[a];
        i == 0 || list[p] == list[p - i * stride]
    })
}

fn is_const(f: &Formula, v: i64) -> bool {
    matches!(f, Formula::Const(c) if *c == num_rational::BigRational::from_integer(v.into()))
}

/// Readability rewrites that keep the instantiated terms: `-1 * a → -a`,
/// `a + -b → a - b`, `a * b^-1 → a / b`, `b^-1 → 1 / b`.
pub fn tidy(f: Formula) -> Formula {
    use Formula as F;
    match f {
        F::Binary(op, a, b) => {
            let a = tidy(*a);
            let b = tidy(*b);
            match (op, a, b) {
                (BinaryOp::Mul, a, b) if is_const(&a, -1) => F::unary(UnaryOp::Neg, b),
                (BinaryOp::Mul, a, b) if is_const(&b, -1) => F::unary(UnaryOp::Neg, a),
                (BinaryOp::Add, a, F::Unary(UnaryOp::Neg, b)) => F::binary(BinaryOp::Sub, a, *b),
                (BinaryOp::Add, F::Unary(UnaryOp::Neg, a), b) => F::binary(BinaryOp::Sub, b, *a),
                (BinaryOp::Mul, a, F::Binary(BinaryOp::Div, one, b)) if is_one(&one) => {
                    F::binary(BinaryOp::Div, a, *b)
                }
                (BinaryOp::Mul, F::Binary(BinaryOp::Div, one, a), b) if is_one(&one) => {
                    F::binary(BinaryOp::Div, b, *a)
                }
                (op, a, b) => F::binary(op, a, b),
            }
        }
        F::Powi(a, -1) => F::binary(BinaryOp::Div, F::int(1), tidy(*a)),
        F::Powi(a, k) => F::Powi(Box::new(tidy(*a)), k),
        F::Unary(op, a) => F::unary(op, tidy(*a)),
        F::Cmp(op, a, b) => F::cmp(op, tidy(*a), tidy(*b)),
        F::Select(c, a, b) => F::select(tidy(*c), tidy(*a), tidy(*b)),
        F::Reduce {
            op,
            axis,
            keepdim,
            arg,
        } => F::reduce(op, tidy(*arg), axis, keepdim),
        F::MatMul(a, b) => F::MatMul(Box::new(tidy(*a)), Box::new(tidy(*b))),
        F::Transpose(a) => F::Transpose(Box::new(tidy(*a))),
        f => f,
    }
}

fn is_one(f: &Formula) -> bool {
    matches!(f, Formula::Const(c) if c.is_one())
}

#[allow(dead_code)]
fn is_zero(f: &Formula) -> bool {
    matches!(f, Formula::Const(c) if c.is_zero())
}
