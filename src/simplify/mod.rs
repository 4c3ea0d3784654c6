//! Simplify: a lifted formula in the words of the field. The formula goes into an
//! e-graph (egglog) as the datatype of `rules/formula.egg`, the rules of `rules/*.egg`
//! run for a fixed number of rounds, and the cheapest equal term comes out under a cost
//! model that prefers fewer nodes, named ops and recognised constants ([`Named`]).
//! The result is then re-proved equal to the formula on the instance (`decide`, every
//! element, or the identity moving a row-sum divisor out of a matrix product where that
//! alone makes it the formula); a form that does not prove is dropped for the formula.
//!
//! Invariants: deterministic (fixed rounds, one thread, no clock); a [`Named`] form
//! handed out means exactly the formula it came from (checked by [`prove`]); the rules
//! are read from `$LIFT_RULES/<file>` where that is set and the file exists, else from
//! the copy built into the binary.

mod lang;
pub mod named;
pub mod rules;
pub mod sample;

pub use named::{Named, NamedOp};
pub use rules::{RuleFile, Rules};

use crate::formula::{Formula, ShapeEnv};
use egglog::{CommandOutput, EGraph};

/// Rounds of rewriting (each after the guard relations saturate). Fixed, so the
/// outcome never depends on the machine's speed.
pub const ROUNDS: usize = 6;

/// A formula's named form and how it was found.
#[derive(Clone, Debug)]
pub struct Simplified {
    pub named: Named,
    /// Nodes of the formula and of its named form ([`Named::size`]).
    pub nodes_before: usize,
    pub nodes_after: usize,
    /// The named form was proved equal to the formula on the instance (else `named`
    /// is the formula itself).
    pub proved: bool,
}

/// What went wrong running the rules (a rule file that does not parse or type-check,
/// or an extracted term outside the datatype).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimplifyError(pub String);

impl std::fmt::Display for SimplifyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// An e-graph with `rules` loaded (each file under its own name in errors).
pub fn egraph(rules: &Rules) -> Result<EGraph, SimplifyError> {
    let mut eg = EGraph::default();
    for file in &rules.files {
        eg.parse_and_run_program(Some(file.name.clone()), &file.text)
            .map_err(|e| SimplifyError(format!("{}: {e}", file.name)))?;
    }
    Ok(eg)
}

/// The schedule every simplification runs.
fn schedule() -> String {
    format!("(run-schedule (repeat {ROUNDS} (saturate (run guards)) (run rewrites)))\n")
}

/// The cheapest term equal to `f` under `rules`, unproved.
pub fn rewrite(f: &Formula, env: &ShapeEnv, rules: &Rules) -> Result<Named, SimplifyError> {
    let mut eg = egraph(rules)?;
    let enc = lang::encode(f, env);
    let program = format!("{}{}(extract {})\n", enc.program, schedule(), enc.root);
    let outputs = eg
        .parse_and_run_program(Some("formula".into()), &program)
        .map_err(|e| SimplifyError(format!("running the rules: {e}")))?;
    let Some(CommandOutput::ExtractBest(dag, _, id)) = outputs
        .into_iter()
        .rev()
        .find(|o| matches!(o, CommandOutput::ExtractBest(..)))
    else {
        return Err(SimplifyError("egglog extracted nothing".into()));
    };
    let named = lang::decode(&dag, id, &enc.leaves).map_err(|e| SimplifyError(e.0))?;
    Ok(named)
}

/// Whether `a` and `b` are equal at every element on `env`'s instance (the decision
/// procedure's `Equal`, its random points refuting first).
pub fn prove(a: &Formula, b: &Formula, env: &ShapeEnv) -> bool {
    if divisors_out_is(a, b, env) || divisors_out_is(b, a, env) {
        return true;
    }
    let mut terms = crate::term::Terms::new();
    env.declare_int_values(&mut terms);
    // One store at one instance: `b`'s products (the scores `q @ k.T`) are `a`'s.
    let products = &mut crate::formula::Products::default();
    let (Ok(xa), Ok(xb)) = (
        a.instantiate_reusing(&mut terms, env, products),
        b.instantiate_reusing(&mut terms, env, products),
    ) else {
        return false;
    };
    if xa.len() != xb.len() {
        return false;
    }
    let pairs: Vec<_> = xa.into_iter().zip(xb).filter(|(x, y)| x != y).collect();
    tracing::debug!("simplify: {} elements, {} terms", pairs.len(), terms.len());
    let opts = crate::decide::Options::default();
    crate::decide::decide_all(&terms, &pairs, &opts)
        .iter()
        .all(|v| v.is_equal())
}

/// Whether `b` is `a` with each divisor moved out of the matrix product it divides
/// (`(s / r) @ v` as `(s @ v) / r`, `Formula::divisors_out_of_matmuls`), both of one
/// shape on `env`: then they are equal by that identity, `Σ_n (s[i,n] / r[i])·v[n,j] =
/// (Σ_n s[i,n]·v[n,j]) / r[i]` over the reals wherever `r[i] ≠ 0` (where `decide` too
/// claims equality), and deciding their elements (a softmax's named form against the
/// formula flash attention accumulates: every row's keys expanded) proves it again.
fn divisors_out_is(a: &Formula, b: &Formula, env: &ShapeEnv) -> bool {
    a != b
        && a.clone().divisors_out_of_matmuls(env) == *b
        && matches!((a.shape(env), b.shape(env)), (Ok(x), Ok(y)) if x == y)
}

/// `f`'s named form under `rules`, proved on `env`'s instance; the formula itself
/// where nothing simpler proves.
pub fn simplify(f: &Formula, env: &ShapeEnv, rules: &Rules) -> Result<Simplified, SimplifyError> {
    let named = rewrite(f, env, rules)?;
    let nodes_before = f.size();
    let proved = named.has_names() || named.size() < nodes_before;
    let proved = proved && prove(f, &named.expand(), env);
    let named = if proved {
        named
    } else {
        Named::Formula(f.clone())
    };
    Ok(Simplified {
        nodes_after: named.size(),
        named,
        nodes_before,
        proved,
    })
}
