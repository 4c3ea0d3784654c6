//! The `lift` command line: parses arguments (`cli`) and calls one command of
//! `lift::commands`, then exits with its verdict's code. No logic here.

mod cli;

use clap::Parser;
use cli::{Cli, Command, ScopeArg};
use lift::commands::{self, EquivOptions};
use lift::exec::domain::Precision;
use lift::verdict::Verdict;
use lift::verify::Limits;
use std::process::ExitCode;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let level = match cli.verbose {
        0 => "warn",
        1 => "info",
        _ => "debug",
    };
    tracing_subscriber::fmt()
        .with_env_filter(tracing_subscriber::EnvFilter::new(level))
        .with_writer(std::io::stderr)
        .init();
    let limits = match cli.limits() {
        Ok(limits) => limits,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let command = match cli.command {
        Some(c) => c,
        None if cli.lift.kernel.is_some() => Command::Lift { args: cli.lift },
        None => {
            eprintln!("error: no kernel given (lift KERNEL, or lift --help)");
            return ExitCode::from(2);
        }
    };
    ExitCode::from(commands::exit_code(dispatch(command, limits)) as u8)
}

/// Call the command's function with its arguments as values.
fn dispatch(command: Command, limits: Limits) -> Result<Verdict, lift::Error> {
    match command {
        Command::Lift { args: a } => {
            let kernel = a
                .kernel
                .ok_or_else(|| lift::Error::Usage("no kernel given".into()))?;
            let launch = a.launch.options(a.precision.get());
            commands::lift_with(
                &kernel,
                &launch,
                a.format,
                a.scope == ScopeArg::All,
                &limits,
                a.expand,
            )
        }
        Command::Spec(a) => {
            commands::spec(&a.kernel, &a.launch.options(a.precision.get()), a.format)
        }
        Command::Run(a) => {
            let scalars = a.scalars.into_iter().collect();
            let launch = a.launch.options(a.precision.get());
            commands::run(&a.kernel, &launch, &a.inputs, &scalars, &a.out)
        }
        Command::Check(a) => {
            let launch = a.launch.options(a.precision.get());
            let decide = a.decide.options(a.scope, limits);
            commands::check(&a.kernel, &a.spec, &launch, &decide, a.format)
        }
        // Races are looked for in the reals: `--precision` is no flag of `race`.
        Command::Race(a) => {
            let launch = a.launch.options(Precision::Real);
            commands::race(&a.kernel, &launch, a.format, a.strict_races)
        }
        Command::Equiv(a) => {
            let launches = EquivOptions {
                reading: a.exec.reading(a.precision.get()),
                launch: a.launch,
                launch2: a.launch2,
                sizes: a.sizes.into_iter().collect(),
            };
            let decide = a.decide.options(a.scope, limits);
            commands::equiv(&a.left, &a.right, &launches, &decide, a.format)
        }
    }
}
