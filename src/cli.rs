//! The `lift` command line's words: its arguments and help text (clap derive), and
//! how they become the options the library's `commands` take. No logic here.

use clap::{Parser, Subcommand, ValueEnum};
use lift::commands::{CudaOptions, DecideOptions, Format, LaunchOptions, LiftFormat, Shard};
use lift::exec::domain::Precision;
use lift::kernel::Reading;
use lift::verify::Limits;
use std::path::PathBuf;

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
pub struct Cli {
    /// Log what each phase does (-v info, -vv debug).
    #[arg(short, long, action = clap::ArgAction::Count, global = true)]
    pub verbose: u8,
    /// Last-resort wall-clock timeout of the all-sizes step, per kernel (default 300).
    /// Verdicts do not depend on the machine: every step of the proof is bounded by
    /// counts of work (Z3 resource units, prover steps), the same everywhere. Only when
    /// this timeout fires does the machine matter, and then the all-sizes verdict is
    /// UNKNOWN and says "timed out after N s: this verdict depends on the machine"
    /// (never a proof, never a refutation). The instance verdict never depends on it.
    #[arg(long, global = true, value_name = "SECONDS")]
    pub budget: Option<f64>,
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The default command (`lift KERNEL`): as `lift lift KERNEL`.
    #[command(flatten)]
    pub lift: LiftArgs,
}

#[derive(clap::Args)]
pub struct LiftArgs {
    /// The kernel (.ttir or .ptx) to lift to a tensor formula.
    pub kernel: Option<PathBuf>,
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Output format: the formula as text (default) or LaTeX, a JSON report, or a
    /// runnable PyTorch / NumPy reference function.
    #[arg(long, value_enum, default_value_t = LiftFormat::Text)]
    pub format: LiftFormat,
    #[command(flatten)]
    pub precision: PrecisionArg,
    /// What a proof covers: `all` (default) also proves the formula for every size
    /// (Z3 over symbolic sizes and program ids; the verdict line then starts
    /// `VERIFIED for all` and prints any constraint it needs, or says why not);
    /// `instance` stops at the launch's own sizes.
    #[arg(long, value_enum, default_value_t = ScopeArg::All)]
    pub scope: ScopeArg,
    /// Print formulas as synthesised (element-wise: `exp(x - max(x, axis=1)) / ...`)
    /// instead of their named form (`softmax(x, axis=1)`, proved equal).
    #[arg(long)]
    pub expand: bool,
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ScopeArg {
    All,
    Instance,
}

#[derive(Subcommand)]
pub enum Command {
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
    Spec(SpecArgs),
    /// Execute a kernel on NumPy inputs and write its outputs as .npy files.
    ///
    /// Sizes are read off the input arrays' shapes (then --size, then the launch's
    /// defaults). Outputs are written as float64 to DIR/<tensor>.npy.
    ///
    /// Example: lift run triton_ir/softmax/kernel.ttir --input x=x.npy --out out/
    Run(RunArgs),
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
    Check(CheckArgs),
    /// Check that a kernel's memory accesses are safe on one launch instance: no data
    /// race (two accesses to one address, one a write, not ordered by bar.sync or
    /// bar.warp.sync), no deadlock, no out-of-bounds access, no read of unwritten memory.
    ///
    /// Example: lift race ptx/reduce/warp_unrolled_racy.ptx
    /// Verdicts: SAFE (exit 0), RACE / DEADLOCK / OUT OF BOUNDS / … (exit 1).
    Race(RaceArgs),
    /// Prove two kernels compute the same outputs on one launch instance.
    ///
    /// Each kernel uses its own launch file (parameter names may differ); tensors and
    /// sizes are matched by name, and --size applies to both.
    Equiv(EquivArgs),
    /// Run many jobs (lift, check, equiv, race) from a manifest, in parallel, and print
    /// one JSON record per job (schema lift.batch/1, docs/batch.md) in manifest order.
    ///
    /// The manifest is TOML (`[[job]]` tables) or JSON (a list of job objects), e.g.
    ///   [[job]]
    ///   kind = "check"
    ///   kernel = "triton_ir/softmax/kernel.ttir"
    ///   spec = "y = torch.softmax(x, dim=-1)"
    /// Paths are relative to the manifest's folder. `--shard i/n` runs the jobs whose
    /// index is i modulo n (a Slurm array, a Kubernetes indexed Job, a CI matrix);
    /// `lift batch --merge A.jsonl B.jsonl ...` joins the shards' outputs in manifest
    /// order and fails on a duplicate or missing job. A progress bar is drawn on stderr
    /// when it is a terminal (never when stdout is a pipe).
    ///
    /// Exit code: 0 when every job was proved, 1 when any was not (each record has its
    /// own verdict and exit code), 2 for a bad manifest, option or shard file.
    Batch(BatchArgs),
}

#[derive(clap::Args)]
pub struct BatchArgs {
    /// The manifest (.toml or .json); with --merge, the shards' output files.
    #[arg(required = true, value_name = "FILE")]
    pub files: Vec<PathBuf>,
    /// Run only the jobs whose index is i modulo n.
    #[arg(long, value_name = "i/n")]
    pub shard: Option<Shard>,
    /// Merge shards' outputs (the FILEs) into one run's, in manifest order.
    #[arg(long, conflicts_with = "shard")]
    pub merge: bool,
    /// Jobs run at once (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Never draw the progress bar.
    #[arg(long)]
    pub no_progress: bool,
}

#[derive(clap::Args)]
pub struct SpecArgs {
    /// The kernel (.ttir or .ptx).
    pub kernel: PathBuf,
    #[command(flatten)]
    pub launch: LaunchArgs,
    #[command(flatten)]
    pub precision: PrecisionArg,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(clap::Args)]
pub struct RunArgs {
    /// The kernel (.ttir or .ptx).
    pub kernel: PathBuf,
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// An input tensor: NAME=FILE.npy (repeatable).
    #[arg(long = "input", value_name = "NAME=FILE", value_parser = parse_pair::<PathBuf>)]
    pub inputs: Vec<(String, PathBuf)>,
    /// A real scalar argument (`{ scalar = "eps" }` in the launch): NAME=VALUE.
    #[arg(long = "scalar", value_name = "NAME=VALUE", value_parser = parse_pair::<f64>)]
    pub scalars: Vec<(String, f64)>,
    /// Directory to write the outputs into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
    #[command(flatten)]
    pub precision: PrecisionArg,
}

#[derive(clap::Args)]
pub struct CheckArgs {
    /// The kernel (.ttir or .ptx).
    pub kernel: PathBuf,
    /// The PyTorch reference, e.g. 'y = torch.softmax(x, dim=-1)'.
    #[arg(long)]
    pub spec: String,
    #[command(flatten)]
    pub launch: LaunchArgs,
    #[command(flatten)]
    pub decide: DecideArgs,
    #[command(flatten)]
    pub precision: PrecisionArg,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// What a proof covers: `all` (default) also proves the spec for every size;
    /// `instance` stops at the launch's own sizes.
    #[arg(long, value_enum, default_value_t = ScopeArg::All)]
    pub scope: ScopeArg,
}

#[derive(clap::Args)]
pub struct RaceArgs {
    /// The kernel (.ptx or .ttir).
    pub kernel: PathBuf,
    #[command(flatten)]
    pub launch: LaunchArgs,
    /// Output format: text, or a JSON report shaped like `check`'s (`schema`,
    /// `verdict`, `sizes`, `finding`, `scope`, `seconds`).
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// Report benign races (a read racing with a write whose value is never used,
    /// warps storing one value in one instruction) as RACE, as the PTX memory
    /// model has them, instead of listing them.
    #[arg(long)]
    pub strict_races: bool,
}

#[derive(clap::Args)]
pub struct EquivArgs {
    /// The reference kernel (.ttir or .ptx).
    pub left: PathBuf,
    /// The kernel to compare with it (.ttir or .ptx).
    pub right: PathBuf,
    /// Launch of the reference kernel (default: beside it; inferred where none is).
    #[arg(long, value_name = "FILE")]
    pub launch: Option<PathBuf>,
    /// Launch of the second kernel (default: beside it, else the --launch FILE of
    /// the first, else inferred).
    #[arg(long, value_name = "FILE")]
    pub launch2: Option<PathBuf>,
    /// Override one size: NAME=VALUE (repeatable).
    #[arg(long = "size", value_name = "NAME=VALUE", value_parser = parse_pair::<i64>)]
    pub sizes: Vec<(String, i64)>,
    #[command(flatten)]
    pub exec: ExecArgs,
    /// CUDA source (.cu): the first kernel's __global__ function (see `lift check --help`).
    #[arg(long = "kernel", id = "cuda_kernel", value_name = "NAME")]
    pub kernel: Option<String>,
    /// CUDA source: the second kernel's __global__ function.
    #[arg(long = "kernel2", value_name = "NAME")]
    pub kernel2: Option<String>,
    /// CUDA source: one more NVRTC option for both kernels (repeatable).
    #[arg(long = "nvrtc-option", value_name = "OPT", allow_hyphen_values = true)]
    pub nvrtc_options: Vec<String>,
    #[command(flatten)]
    pub decide: DecideArgs,
    #[command(flatten)]
    pub precision: PrecisionArg,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// What a proof covers: `all` (default) also proves two Triton kernels equal for
    /// every size (each proved equal to the formula the first lifts to);
    /// `instance` stops at the launch's own sizes.
    #[arg(long, value_enum, default_value_t = ScopeArg::All)]
    pub scope: ScopeArg,
}

#[derive(clap::Args)]
pub struct DecideArgs {
    /// Input arrays to try first when looking for a counterexample: NAME=FILE.npy.
    #[arg(long = "input", value_name = "NAME=FILE", value_parser = parse_pair::<PathBuf>)]
    pub inputs: Vec<(String, PathBuf)>,
    /// Values of symbolic scalars for that first attempt: NAME=VALUE.
    #[arg(long = "scalar", value_name = "NAME=VALUE", value_parser = parse_pair::<f64>)]
    pub scalars: Vec<(String, f64)>,
    /// Write the counterexample's whole input tensors as DIR/<tensor>.npy (and its
    /// scalar values to DIR/scalars.txt), ready for `lift run`.
    #[arg(long, value_name = "DIR")]
    pub counterexample: Option<PathBuf>,
    /// Most data-dependent select conditions the prover splits one element on (2^N
    /// cases at most); an element needing more is UNKNOWN, naming this flag.
    #[arg(long, value_name = "N", default_value_t = lift::decide::Options::default().max_case_splits)]
    pub max_case_splits: usize,
}

#[derive(clap::Args)]
pub struct LaunchArgs {
    /// Launch description (default: <kernel>.launch.toml beside the kernel; where there
    /// is none, a Triton kernel's launch is inferred and printed on stderr).
    #[arg(long, value_name = "FILE")]
    pub launch: Option<PathBuf>,
    /// Write the inferred launch to <kernel>.launch.toml (never overwrites a file).
    #[arg(long)]
    pub write_launch: bool,
    /// Override one size of the launch: NAME=VALUE (repeatable).
    #[arg(long = "size", value_name = "NAME=VALUE", value_parser = parse_pair::<i64>)]
    pub sizes: Vec<(String, i64)>,
    #[command(flatten)]
    pub exec: ExecArgs,
    #[command(flatten)]
    pub cuda: CudaArgs,
}

#[derive(clap::Args)]
pub struct CudaArgs {
    /// CUDA source (.cu): the __global__ kernel to read (its C++ name), needed when the
    /// file defines more than one. The file is compiled to PTX by NVRTC (pip's
    /// nvidia-cuda-nvrtc-cu12, found through LIFT_NVRTC or python3) with
    /// --gpu-architecture=compute_80 -lineinfo --std=c++17. A PyTorch extension's source
    /// (a load_inline string: torch headers, host wrappers, PYBIND11_MODULE) is read as
    /// its device code, lines kept.
    #[arg(long = "kernel", id = "cuda_kernel", value_name = "NAME")]
    pub kernel: Option<String>,
    /// CUDA source: one more NVRTC option (repeatable), e.g. --nvrtc-option=-G.
    #[arg(long = "nvrtc-option", value_name = "OPT", allow_hyphen_values = true)]
    pub nvrtc_options: Vec<String>,
}

impl CudaArgs {
    pub fn options(self) -> CudaOptions {
        CudaOptions {
            kernel: self.kernel,
            nvrtc_options: self.nvrtc_options,
        }
    }
}

#[derive(clap::Args)]
pub struct ExecArgs {
    /// What the masked-off lanes of a Triton `tl.load` without `other=` hold:
    /// `undefined` (Triton's semantics: storing one is an error) or `zero` (the NVIDIA
    /// backend's zero fill; verdicts state the assumption).
    #[arg(long = "masked-load", value_enum, default_value_t = MaskedLoadArg::Undefined)]
    pub masked_load: MaskedLoadArg,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum MaskedLoadArg {
    Undefined,
    Zero,
}

#[derive(clap::Args)]
pub struct PrecisionArg {
    /// How f16/bf16 casts and tf32 `tl.dot` inputs are read: `real` reads them as
    /// exact (the reals of docs/semantics.md; the verdict lists each one as an assumption), `ieee`
    /// rounds them to nearest even as the GPU does, so an exact spec is refuted
    /// wherever the rounding shows.
    #[arg(long, value_enum, default_value_t = PrecisionKind::Real)]
    pub precision: PrecisionKind,
}

#[derive(Clone, Copy, ValueEnum)]
pub enum PrecisionKind {
    Real,
    Ieee,
}

impl LaunchArgs {
    pub fn options(self, precision: Precision) -> LaunchOptions {
        LaunchOptions {
            launch: self.launch,
            write_launch: self.write_launch,
            sizes: self.sizes.into_iter().collect(),
            reading: self.exec.reading(precision),
            cuda: self.cuda.options(),
        }
    }
}

impl ExecArgs {
    pub fn reading(&self, precision: Precision) -> Reading {
        let masked_load = match self.masked_load {
            MaskedLoadArg::Undefined => lift::exec::MaskedLoad::Undefined,
            MaskedLoadArg::Zero => lift::exec::MaskedLoad::Zero,
        };
        Reading {
            precision,
            options: lift::exec::Options { masked_load },
        }
    }
}

impl DecideArgs {
    pub fn options(self, scope: ScopeArg, limits: Limits) -> DecideOptions {
        DecideOptions {
            inputs: self.inputs,
            scalars: self.scalars.into_iter().collect(),
            counterexample: self.counterexample,
            max_case_splits: self.max_case_splits,
            all_sizes: scope == ScopeArg::All,
            limits,
        }
    }
}

impl PrecisionArg {
    pub fn get(&self) -> Precision {
        match self.precision {
            PrecisionKind::Real => Precision::Real,
            PrecisionKind::Ieee => Precision::Ieee,
        }
    }
}

/// The last-resort timeout of the all-sizes step, in seconds (see `--budget`).
const DEFAULT_TIMEOUT_S: f64 = 300.0;

impl Cli {
    /// The work limits of the all-sizes step, with `--budget` as its last-resort
    /// timeout.
    pub fn limits(&self) -> Result<Limits, String> {
        let budget = self.budget.unwrap_or(DEFAULT_TIMEOUT_S);
        if !(budget.is_finite() && budget > 0.0) {
            return Err(format!(
                "--budget must be a positive number of seconds, not {budget}"
            ));
        }
        Ok(Limits {
            timeout: Some(std::time::Duration::from_secs_f64(budget)),
            ..Default::default()
        })
    }
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
