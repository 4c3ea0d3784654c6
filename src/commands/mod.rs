//! The commands of the `lift` CLI: each takes its options as values, runs the library's
//! stages in order, prints its report, and returns the [`Verdict`] it ends with.
//!
//! Architecture invariant: this layer owns orchestration and output, nothing else: it
//! loads kernels (printing an inferred launch), calls one stage after another, and
//! writes reports (text, JSON, counterexample files) through [`output`]. Every answer
//! comes from the stages; a command never decides a verdict from a message's text.
//! `main.rs` parses arguments into these options and exits with [`exit_code`].

pub mod batch;
mod check;
pub mod cuda;
mod lift;
mod load;
mod output;
mod race;
mod run;
mod spec;

pub use batch::{batch, BatchOptions, Shard};
pub use check::{check, equiv, DecideOptions, EquivOptions};
pub use cuda::CudaOptions;
pub use lift::{lift, lift_report, lift_with, LiftFormat, LiftReport};
pub use load::LaunchOptions;
pub use race::race;
pub use run::run;
pub use spec::spec;

use crate::error::Error;
use crate::verdict::Verdict;

/// The text formats of `spec`, `check`, `equiv` and `race`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

/// The exit code a command ends with: its verdict's, or for an error the error's code
/// (printed on stderr; a finding about the kernel also prints its greppable verdict
/// line on stdout).
pub fn exit_code(result: Result<Verdict, Error>) -> i32 {
    match result {
        Ok(verdict) => verdict.exit_code(),
        Err(e) => {
            eprintln!("error: {e}");
            if let (Error::Exec { err, .. }, Some(Verdict::Refuted)) = (&e, e.verdict()) {
                println!("{}", crate::race::verdict_word(err.kind));
            }
            e.exit_code()
        }
    }
}

/// The exit code of a command that ends with its own code (`lift batch`), or its error's.
pub fn exit_code_of(result: Result<i32, Error>) -> i32 {
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e}");
            e.exit_code()
        }
    }
}
