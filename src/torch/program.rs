//! A parsed spec (`parse`) and its instance reading (`SpecProgram::instantiate`); the
//! all-sizes reading, `SpecProgram::formulas`, is in `sizes`.

use super::error::SpecError;
use super::eval;
use super::instance::{Env, InstanceReading, SpecOutput};
use super::parse::{Parser, Stmt};
use super::value::Cx;
use super::{lex, ops};
use crate::term::Terms;

/// A parsed spec.
#[derive(Clone, Debug)]
pub struct SpecProgram {
    /// The output names: every assigned name not starting with `_`, in order of first
    /// assignment.
    pub outputs: Vec<String>,
    pub(crate) stmts: Vec<Stmt>,
}

/// Parses a spec (`y = torch.softmax(x, dim=-1)`; several statements separated by `;`).
pub fn parse(src: &str) -> Result<SpecProgram, SpecError> {
    let tokens = lex::lex(src)?;
    let stmts = Parser::new(tokens).program()?;
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
        let cx = Cx {
            terms,
            float: env.float,
        };
        eval::run(
            &mut InstanceReading::new(cx, env),
            &self.stmts,
            &self.outputs,
        )
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
