//! The `lift` command line: parses arguments and calls the library. No logic here.

use clap::{Parser, Subcommand, ValueEnum};
use lift::exec::domain::Precision;
use lift::{check, npy, term::Terms, Error, Kernel};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// lift tells you, with proofs, what a GPU kernel computes.
///
/// Kernels are Triton IR files (`.ttir`) or PTX (`.ptx`) exactly as Triton or NVRTC
/// emit them. A launch
/// description (`kernel.launch.toml` beside the kernel, or `--launch FILE`) says which
/// pointer is which tensor, the grid, and the default sizes.
///
/// Exit codes: 0 success or proved, 1 the kernel is wrong (refuted, or e.g. an
/// out-of-bounds access), 2 usage or input error, 3 unknown (not decided, or
/// something lift does not support).
#[derive(Parser)]
#[command(
    name = "lift",
    version,
    about,
    long_about,
    args_conflicts_with_subcommands = true
)]
struct Cli {
    /// Log what each phase does (-v info, -vv debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    verbose: u8,
    /// Last-resort wall-clock timeout of the all-sizes step, per kernel (default 300).
    /// Verdicts do not depend on the machine: every step of the proof is bounded by
    /// counts of work (Z3 resource units, prover steps), the same everywhere. Only when
    /// this timeout fires does the machine matter, and then the all-sizes verdict is
    /// UNKNOWN and says "timed out after N s: this verdict depends on the machine"
    /// (never a proof, never a refutation). The instance verdict never depends on it.
    #[arg(long, global = true, value_name = "SECONDS")]
    budget: Option<f64>,
    #[command(subcommand)]
    command: Option<Command>,
    /// The default command (`lift KERNEL`): as `lift lift KERNEL`.
    #[command(flatten)]
    lift: LiftArgs,
}

#[derive(clap::Args)]
struct LiftArgs {
    /// The kernel (.ttir or .ptx) to lift to a tensor formula.
    kernel: Option<PathBuf>,
    #[command(flatten)]
    launch: LaunchArgs,
    /// Output format: the formula as text (default) or LaTeX, a JSON report, or a
    /// runnable PyTorch / NumPy reference function.
    #[arg(long, value_enum, default_value_t = LiftFormat::Text)]
    format: LiftFormat,
    #[command(flatten)]
    precision: PrecisionArg,
    /// What a proof covers: `all` (default) also proves the formula for every size
    /// (Z3 over symbolic sizes and program ids; the verdict line then starts
    /// `VERIFIED for all` and prints any constraint it needs, or says why not);
    /// `instance` stops at the launch's own sizes.
    #[arg(long, value_enum, default_value_t = ScopeArg::All)]
    scope: ScopeArg,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum ScopeArg {
    All,
    Instance,
}

#[derive(Clone, Copy, ValueEnum)]
enum LiftFormat {
    Text,
    Json,
    Latex,
    Torch,
    Numpy,
}

#[derive(Subcommand)]
enum Command {
    /// Lift a kernel to a tensor formula proved equal to it on one launch instance
    /// (the default command: `lift KERNEL` is the same).
    ///
    /// Prints one `y[M,N] = formula` line per output tensor, the Python source lines
    /// it was computed by, and a verdict line with the time of each phase (symbolic
    /// execution, synthesis, proof). Every printed formula has been proved equal to
    /// the kernel, element by element, at the launch's sizes.
    ///
    /// Examples:
    ///   lift triton_ir/softmax/kernel.ttir
    ///   lift triton_ir/softmax/kernel.ttir --size M=3 --size N=10
    ///   lift triton_ir/layer_norm/kernel.ttir --format numpy > ref.py
    /// Then (unless --scope instance) the formula is proved for every size: one program
    /// runs with symbolic sizes and program ids, Z3 proves every access in bounds and
    /// every output element written once, and each stored lane is proved equal to the
    /// formula at its index. A kernel that needs a size bound (one block per row: N at
    /// most the block) is proved under it, printed (`with N <= 8`); where the proof fails,
    /// the sizes Z3 found are replayed on the bounded checker.
    ///
    /// Verdicts: `VERIFIED for all M, N [with ...]` or `VERIFIED on M=4, N=8 (for all
    /// sizes: UNKNOWN — why)` (exit 0); REFUTED at sizes the launch does not use, with
    /// what differs there (exit 1); UNKNOWN with, per stalled output, the sub-term the
    /// search stalled on and its point-wise spec (exit 3).
    Lift {
        #[command(flatten)]
        args: LiftArgs,
    },
    /// Print the term every output element is computed by, on one launch instance.
    ///
    /// Example: lift spec triton_ir/softmax/kernel.ttir --size N=5
    Spec {
        /// The kernel (.ttir or .ptx).
        kernel: PathBuf,
        #[command(flatten)]
        launch: LaunchArgs,
        #[command(flatten)]
        precision: PrecisionArg,
        /// Output format.
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
    },
    /// Execute a kernel on NumPy inputs and write its outputs as .npy files.
    ///
    /// Sizes are read off the input arrays' shapes (then --size, then the launch's
    /// defaults). Outputs are written as float64 to DIR/<tensor>.npy.
    ///
    /// Example: lift run triton_ir/softmax/kernel.ttir --input x=x.npy --out out/
    Run {
        /// The kernel (.ttir or .ptx).
        kernel: PathBuf,
        #[command(flatten)]
        launch: LaunchArgs,
        /// An input tensor: NAME=FILE.npy (repeatable).
        #[arg(long = "input", value_name = "NAME=FILE", value_parser = parse_pair::<PathBuf>)]
        inputs: Vec<(String, PathBuf)>,
        /// A real scalar argument (`{ scalar = "eps" }` in the launch): NAME=VALUE.
        #[arg(long = "scalar", value_name = "NAME=VALUE", value_parser = parse_pair::<f64>)]
        scalars: Vec<(String, f64)>,
        /// Directory to write the outputs into (created if missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        #[command(flatten)]
        precision: PrecisionArg,
    },
    /// Prove a kernel computes a PyTorch op on one launch instance, or refute it
    /// with a concrete input.
    ///
    /// The spec is PyTorch Python over the launch's tensor and scalar names; statements
    /// are separated by `;`. A name the kernel writes is checked; any other assigned
    /// name is a temporary (listed in the report). Examples:
    ///   lift check softmax.ttir --spec 'y = torch.softmax(x, dim=-1)'
    ///   lift check rms.ttir --spec 'y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w'
    ///   lift check softmax.ttir --spec 'e = torch.exp(x - x.amax(-1, keepdim=True)); y = e / e.sum(-1, keepdim=True)'
    /// Then (unless --scope instance) a Triton kernel is proved equal to the spec for
    /// every size, as `lift KERNEL` proves its formula: the spec is read over symbolic
    /// sizes, that reading is checked against the instance's, and Z3 proves the
    /// kernel's accesses, coverage and stored lanes against it.
    ///
    /// Verdicts: `VERIFIED for all M, N [with ...]` or `VERIFIED on this launch instance
    /// (for all sizes: UNKNOWN — why)` (exit 0), REFUTED with a counterexample, or at
    /// sizes the launch does not use (exit 1), UNKNOWN with the reason (exit 3).
    Check {
        /// The kernel (.ttir or .ptx).
        kernel: PathBuf,
        /// The PyTorch reference, e.g. 'y = torch.softmax(x, dim=-1)'.
        #[arg(long)]
        spec: String,
        #[command(flatten)]
        launch: LaunchArgs,
        #[command(flatten)]
        decide: DecideArgs,
        #[command(flatten)]
        precision: PrecisionArg,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// What a proof covers: `all` (default) also proves the spec for every size;
        /// `instance` stops at the launch's own sizes.
        #[arg(long, value_enum, default_value_t = ScopeArg::All)]
        scope: ScopeArg,
    },
    /// Check that a kernel's memory accesses are safe on one launch instance: no data
    /// race (two accesses to one address, one a write, not ordered by bar.sync or
    /// bar.warp.sync), no deadlock, no out-of-bounds access, no read of unwritten memory.
    ///
    /// Example: lift race ptx/reduce/warp_unrolled_racy.ptx
    /// Verdicts: SAFE (exit 0), RACE / DEADLOCK / OUT OF BOUNDS / … (exit 1).
    Race {
        /// The kernel (.ptx or .ttir).
        kernel: PathBuf,
        #[command(flatten)]
        launch: LaunchArgs,
        /// Output format: text, or a JSON report shaped like `check`'s (`schema`,
        /// `verdict`, `sizes`, `finding`, `scope`, `seconds`).
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// Report benign races (a read racing with a write whose value is never used,
        /// warps storing one value in one instruction) as RACE, as the PTX memory
        /// model has them, instead of listing them.
        #[arg(long)]
        strict_races: bool,
    },
    /// Prove two kernels compute the same outputs on one launch instance.
    ///
    /// Each kernel uses its own launch file (parameter names may differ); tensors and
    /// sizes are matched by name, and --size applies to both.
    Equiv {
        /// The reference kernel (.ttir or .ptx).
        left: PathBuf,
        /// The kernel to compare with it (.ttir or .ptx).
        right: PathBuf,
        /// Launch of the reference kernel (default: beside it; inferred where none is).
        #[arg(long, value_name = "FILE")]
        launch: Option<PathBuf>,
        /// Launch of the second kernel (default: beside it, else the --launch FILE of
        /// the first, else inferred).
        #[arg(long, value_name = "FILE")]
        launch2: Option<PathBuf>,
        /// Override one size: NAME=VALUE (repeatable).
        #[arg(long = "size", value_name = "NAME=VALUE", value_parser = parse_pair::<i64>)]
        sizes: Vec<(String, i64)>,
        #[command(flatten)]
        exec: ExecArgs,
        #[command(flatten)]
        decide: DecideArgs,
        #[command(flatten)]
        precision: PrecisionArg,
        #[arg(long, value_enum, default_value_t = Format::Text)]
        format: Format,
        /// What a proof covers: `all` (default) also proves two Triton kernels equal for
        /// every size (each proved equal to the formula the first lifts to);
        /// `instance` stops at the launch's own sizes.
        #[arg(long, value_enum, default_value_t = ScopeArg::All)]
        scope: ScopeArg,
    },
}

#[derive(clap::Args)]
struct DecideArgs {
    /// Input arrays to try first when looking for a counterexample: NAME=FILE.npy.
    #[arg(long = "input", value_name = "NAME=FILE", value_parser = parse_pair::<PathBuf>)]
    inputs: Vec<(String, PathBuf)>,
    /// Values of symbolic scalars for that first attempt: NAME=VALUE.
    #[arg(long = "scalar", value_name = "NAME=VALUE", value_parser = parse_pair::<f64>)]
    scalars: Vec<(String, f64)>,
    /// Write the counterexample's whole input tensors as DIR/<tensor>.npy (and its
    /// scalar values to DIR/scalars.txt), ready for `lift run`.
    #[arg(long, value_name = "DIR")]
    counterexample: Option<PathBuf>,
    /// Most data-dependent select conditions the prover splits one element on (2^N
    /// cases at most); an element needing more is UNKNOWN, naming this flag.
    #[arg(long, value_name = "N", default_value_t = lift::decide::Options::default().max_case_splits)]
    max_case_splits: usize,
}

#[derive(clap::Args)]
struct LaunchArgs {
    /// Launch description (default: <kernel>.launch.toml beside the kernel; where there
    /// is none, a Triton kernel's launch is inferred and printed on stderr).
    #[arg(long, value_name = "FILE")]
    launch: Option<PathBuf>,
    /// Write the inferred launch to <kernel>.launch.toml (never overwrites a file).
    #[arg(long)]
    write_launch: bool,
    /// Override one size of the launch: NAME=VALUE (repeatable).
    #[arg(long = "size", value_name = "NAME=VALUE", value_parser = parse_pair::<i64>)]
    sizes: Vec<(String, i64)>,
    #[command(flatten)]
    exec: ExecArgs,
}

#[derive(clap::Args)]
struct ExecArgs {
    /// What the masked-off lanes of a Triton `tl.load` without `other=` hold:
    /// `undefined` (Triton's semantics: storing one is an error) or `zero` (the NVIDIA
    /// backend's zero fill; verdicts state the assumption).
    #[arg(long = "masked-load", value_enum, default_value_t = MaskedLoadArg::Undefined)]
    masked_load: MaskedLoadArg,
}

#[derive(Clone, Copy, ValueEnum)]
enum MaskedLoadArg {
    Undefined,
    Zero,
}

impl LaunchArgs {
    /// [`load`] with this command line's launch options.
    fn load(&self, kernel: &Path) -> Result<Kernel, Error> {
        load(
            kernel,
            self.launch.as_deref(),
            &self.exec,
            self.write_launch,
        )
    }
}

impl ExecArgs {
    fn options(&self) -> lift::exec::Options {
        lift::exec::Options {
            masked_load: match self.masked_load {
                MaskedLoadArg::Undefined => lift::exec::MaskedLoad::Undefined,
                MaskedLoadArg::Zero => lift::exec::MaskedLoad::Zero,
            },
        }
    }
}

/// Read a kernel and its launch (inferred, and printed on stderr, where none is given
/// or found beside it), with the executor options of the command line.
fn load(
    kernel: &Path,
    launch: Option<&Path>,
    exec: &ExecArgs,
    write_launch: bool,
) -> Result<Kernel, Error> {
    if write_launch && launch.is_some() {
        return Err(Error::Usage(
            "--write-launch writes an inferred launch; with --launch FILE there is nothing to infer".into(),
        ));
    }
    let (mut k, inferred) = Kernel::load_or_infer(kernel, launch)?;
    match inferred {
        Some(inf) => {
            eprintln!(
                "note: {} has no launch file; lift inferred this launch ({}; every access in bounds and every output element written on two instances). The verdict assumes it; pass --launch FILE to use another:",
                kernel.display(),
                inf.family
            );
            for line in inf.text.lines() {
                eprintln!("  {line}");
            }
            if write_launch {
                let path = lift::infer_launch::write_beside(kernel, &inf)?;
                eprintln!("note: wrote the inferred launch to {}", path.display());
            }
        }
        None if write_launch => {
            return Err(Error::Usage(format!(
                "--write-launch: {} already has a launch file ({}); not overwriting it",
                kernel.display(),
                Kernel::launch_beside(kernel)
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            )))
        }
        None => {}
    }
    k.options = exec.options();
    Ok(k)
}

#[derive(clap::Args)]
struct PrecisionArg {
    /// How f16/bf16 casts and tf32 `tl.dot` inputs are read: `real` reads them as
    /// exact (the reals of docs/semantics.md; the verdict lists each one as an assumption), `ieee`
    /// rounds them to nearest even as the GPU does, so an exact spec is refuted
    /// wherever the rounding shows.
    #[arg(long, value_enum, default_value_t = PrecisionKind::Real)]
    precision: PrecisionKind,
}

#[derive(Clone, Copy, ValueEnum)]
enum PrecisionKind {
    Real,
    Ieee,
}

impl PrecisionArg {
    fn get(&self) -> Precision {
        match self.precision {
            PrecisionKind::Real => Precision::Real,
            PrecisionKind::Ieee => Precision::Ieee,
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Text,
    Json,
}

fn parse_pair<T: std::str::FromStr>(s: &str) -> Result<(String, T), String>
where
    T::Err: std::fmt::Display,
{
    let (k, v) = s
        .split_once('=')
        .ok_or_else(|| format!("expected NAME=VALUE, got '{s}'"))?;
    let v = v
        .parse()
        .map_err(|e| format!("bad value '{v}' for {k}: {e}"))?;
    Ok((k.trim().to_string(), v))
}

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
    let budget = cli.budget.unwrap_or(DEFAULT_TIMEOUT_S);
    if !(budget.is_finite() && budget > 0.0) {
        eprintln!("error: --budget must be a positive number of seconds, not {budget}");
        return ExitCode::from(2);
    }
    let limits = lift::verify::Limits {
        timeout: Some(std::time::Duration::from_secs_f64(budget)),
        ..Default::default()
    };
    let command = match cli.command {
        Some(c) => c,
        None if cli.lift.kernel.is_some() => Command::Lift { args: cli.lift },
        None => {
            eprintln!("error: no kernel given (lift KERNEL, or lift --help)");
            return ExitCode::from(2);
        }
    };
    match run(command, &limits) {
        Ok(code) => ExitCode::from(code as u8),
        Err(e) => {
            eprintln!("error: {e}");
            // A finding about the kernel also gets its greppable verdict line.
            if let Error::Exec { err, .. } = &e {
                if e.exit_code() == 1 {
                    println!("{}", lift::race::verdict_word(err.kind));
                }
            }
            ExitCode::from(e.exit_code() as u8)
        }
    }
}

/// The last-resort timeout of the all-sizes step, in seconds (see `--budget`).
const DEFAULT_TIMEOUT_S: f64 = 300.0;

fn run(command: Command, limits: &lift::verify::Limits) -> Result<i32, Error> {
    match command {
        Command::Lift { args } => {
            let path = args
                .kernel
                .ok_or_else(|| Error::Usage("no kernel given".into()))?;
            let mut k = args.launch.load(&path)?;
            k.precision = args.precision.get();
            let inst = k.instance(&args.launch.sizes.into_iter().collect())?;
            let mut terms = Terms::new();
            let mut lifted = lift::synth::lift(&k, &inst, &mut terms)?;
            if args.scope == ScopeArg::All {
                lifted.verify_all_sizes_with(&k, &inst, limits);
            }
            let rendered = match args.format {
                LiftFormat::Text => Some(Ok(lifted.to_text(&terms))),
                LiftFormat::Json => Some(Ok(format!(
                    "{}\n",
                    serde_json::to_string_pretty(&lifted.to_json()).unwrap_or_default()
                ))),
                LiftFormat::Latex => lifted.to_latex(),
                LiftFormat::Torch => lifted.to_torch(),
                LiftFormat::Numpy => lifted.to_numpy(),
            };
            match rendered {
                Some(Ok(text)) => print!("{text}"),
                Some(Err(e)) => return Err(Error::Usage(format!("cannot render: {}", e.message))),
                // Not every output lifted: the text report says which and why.
                None => eprint!("{}", lifted.to_text(&terms)),
            }
            Ok(lifted.exit_code())
        }
        Command::Spec {
            kernel,
            launch,
            precision,
            format,
        } => {
            let mut k = launch.load(&kernel)?;
            k.precision = precision.get();
            let inst = k.instance(&launch.sizes.into_iter().collect())?;
            let mut terms = Terms::new();
            let spec = k.spec(&inst, &mut terms)?;
            match format {
                Format::Text => print!("{}", spec.to_text(&terms)),
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&spec.to_json(&terms)).unwrap_or_default()
                ),
            }
            Ok(0)
        }
        Command::Run {
            kernel,
            launch,
            inputs,
            scalars,
            out,
            precision,
        } => {
            let mut k = launch.load(&kernel)?;
            k.precision = precision.get();
            let mut arrays = BTreeMap::new();
            for (name, path) in inputs {
                arrays.insert(name, npy::read(&path)?);
            }
            let sizes = k.sizes_from_inputs(&arrays, &launch.sizes.into_iter().collect())?;
            let inst = k.instance(&sizes)?;
            let result = k.run(&inst, &arrays, &scalars.into_iter().collect())?;
            for w in &result.warnings {
                eprintln!("warning: {w}");
            }
            std::fs::create_dir_all(&out).map_err(|e| Error::Io {
                path: out.display().to_string(),
                message: format!("cannot create output directory: {e}"),
            })?;
            for (name, array) in &result.outputs {
                let path = out.join(format!("{name}.npy"));
                npy::write_as(&path, array, inst.npy_dtype(name))?;
                println!("wrote {} {:?}", show(&path), array.shape);
            }
            Ok(0)
        }
        Command::Check {
            kernel,
            spec,
            launch,
            decide,
            precision,
            format,
            scope,
        } => {
            let mut k = launch.load(&kernel)?;
            k.precision = precision.get();
            let inst = k.instance(&launch.sizes.into_iter().collect())?;
            let mut opts = decide_options(&decide, limits)?;
            opts.all_sizes = scope == ScopeArg::All;
            let report = check::check(&k, &inst, &spec, &opts)?;
            finish(&report, &inst, &opts, &decide, format)
        }
        Command::Race {
            kernel,
            launch,
            format,
            strict_races,
        } => {
            let k = launch.load(&kernel)?;
            let inst = k.instance(&launch.sizes.into_iter().collect())?;
            let report = match (lift::race::race_with(&k, &inst, strict_races), format) {
                (Ok(r), _) => r,
                // An answer lift cannot give (unsupported code, limits) is still a
                // JSON report: verdict "unknown" with the reason.
                (Err(e), Format::Json) if e.exit_code() == 3 => {
                    let j = lift::race::unknown_json(&k, &inst, &e.to_string());
                    println!("{}", serde_json::to_string_pretty(&j).unwrap_or_default());
                    return Ok(3);
                }
                (Err(e), _) => return Err(e),
            };
            match format {
                Format::Text => print!("{}", report.to_text()),
                Format::Json => println!(
                    "{}",
                    serde_json::to_string_pretty(&report.to_json()).unwrap_or_default()
                ),
            }
            Ok(report.exit_code())
        }
        Command::Equiv {
            left,
            right,
            launch,
            launch2,
            sizes,
            exec,
            decide,
            precision,
            format,
            scope,
        } => {
            let mut a = load(&left, launch.as_deref(), &exec, false)?;
            // The second kernel's own launch, else the first one's --launch.
            let borrowed = launch2.is_none() && Kernel::launch_beside(&right).is_none();
            let launch_b = if borrowed { launch.clone() } else { launch2 };
            if let (true, Some(l)) = (borrowed, &launch_b) {
                eprintln!(
                    "note: {} has no launch file; using {} for it too",
                    right.display(),
                    l.display()
                );
            }
            let mut b = load(&right, launch_b.as_deref(), &exec, false)?;
            (a.precision, b.precision) = (precision.get(), precision.get());
            let mut opts = decide_options(&decide, limits)?;
            opts.all_sizes = scope == ScopeArg::All;
            let sizes = sizes.into_iter().collect();
            let report = check::equiv(&a, &b, &sizes, &opts)?;
            let inst = a.instance(&report.sizes)?;
            finish(&report, &inst, &opts, &decide, format)
        }
    }
}

fn decide_options(
    args: &DecideArgs,
    limits: &lift::verify::Limits,
) -> Result<check::CheckOptions, Error> {
    let mut opts = check::CheckOptions {
        limits: limits.clone(),
        ..Default::default()
    };
    for (name, path) in &args.inputs {
        opts.inputs.insert(name.clone(), npy::read(path)?);
    }
    opts.scalars = args.scalars.iter().cloned().collect();
    if args.max_case_splits > 20 {
        return Err(Error::Usage(format!(
            "--max-case-splits {} is more than 20 (2^20 cases per element)",
            args.max_case_splits
        )));
    }
    opts.decide.max_case_splits = args.max_case_splits;
    Ok(opts)
}

fn finish(
    report: &check::Report,
    inst: &lift::launch::Instance,
    opts: &check::CheckOptions,
    args: &DecideArgs,
    format: Format,
) -> Result<i32, Error> {
    match format {
        Format::Text => print!("{}", report.to_text()),
        Format::Json => println!(
            "{}",
            serde_json::to_string_pretty(&report.to_json()).unwrap_or_default()
        ),
    }
    if let Some(dir) = &args.counterexample {
        let (arrays, scalars) = report.counterexample_inputs(inst, &opts.inputs);
        if !arrays.is_empty() {
            std::fs::create_dir_all(dir).map_err(|e| Error::Io {
                path: dir.display().to_string(),
                message: format!("cannot create directory: {e}"),
            })?;
            for (name, array) in &arrays {
                npy::write_as(
                    &dir.join(format!("{name}.npy")),
                    array,
                    inst.npy_dtype(name),
                )?;
            }
            if !scalars.is_empty() {
                let text: String = scalars
                    .iter()
                    .map(|(k, v)| format!("--scalar {k}={v}\n"))
                    .collect();
                let path = dir.join("scalars.txt");
                std::fs::write(&path, text).map_err(|e| Error::Io {
                    path: path.display().to_string(),
                    message: e.to_string(),
                })?;
            }
            eprintln!("counterexample inputs written to {}", dir.display());
        }
    }
    Ok(report.outcome.exit_code())
}

fn show(p: &Path) -> String {
    p.display().to_string()
}
