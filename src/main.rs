//! The `lift` command line: parses arguments (`cli`) and calls one command of
//! `lift::commands`, then exits with its verdict's code. No logic here.

mod cli;

use clap::Parser;
use cli::{Cli, Command, ScopeArg};
use lift::commands::{self, BatchOptions, CudaOptions, EquivOptions};
use lift::exec::domain::Precision;
use lift::verdict::Verdict;
use lift::verify::Limits;
use std::process::ExitCode;

fn main() -> ExitCode {
    // Rust ignores SIGPIPE, so a print to a closed pipe (`lift … | head`) would panic.
    // SAFETY: restoring a signal's default disposition before any thread starts.
    #[cfg(unix)]
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
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
    if let Command::Batch(a) = command {
        return ExitCode::from(commands::exit_code_of(batch(a, limits)) as u8);
    }
    ExitCode::from(commands::exit_code(dispatch(command, limits)) as u8)
}

/// `lift batch`: run a manifest's jobs, or merge shards' outputs.
fn batch(a: cli::BatchArgs, limits: Limits) -> Result<i32, lift::Error> {
    if a.merge {
        return commands::batch::merge(&a.files);
    }
    let [manifest] = a.files.as_slice() else {
        return Err(lift::Error::Usage(
            "lift batch takes one manifest (or --merge with shard files)".into(),
        ));
    };
    let opts = BatchOptions {
        shard: a.shard.unwrap_or_default(),
        threads: a.threads,
        no_progress: a.no_progress,
        limits,
    };
    commands::batch(manifest, &opts)
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
        // `main` runs `lift batch` itself: it ends with its own exit code, not a verdict.
        Command::Batch(_) => Err(lift::Error::Usage(
            "lift batch: see lift batch --help".into(),
        )),
        Command::Equiv(a) => {
            let cuda = |kernel| CudaOptions {
                kernel,
                nvrtc_options: a.nvrtc_options.clone(),
            };
            let launches = EquivOptions {
                reading: a.exec.reading(a.precision.get()),
                launch: a.launch,
                launch2: a.launch2,
                sizes: a.sizes.into_iter().collect(),
                cuda: cuda(a.kernel),
                cuda2: cuda(a.kernel2),
            };
            let decide = a.decide.options(a.scope, limits);
            commands::equiv(&a.left, &a.right, &launches, &decide, a.format)
        }
    }
}
