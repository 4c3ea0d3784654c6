//! lift: tells GPU-kernel authors, with proofs, what their kernels compute.
//!
//! The modules follow the pipeline of docs/design.md, data flowing one way:
//! front ends (`triton_ir`, `ptx`) → `exec` (bounded symbolic/concrete execution on
//! a `launch` instance) → `spec` (one `term` per output element) → `decide` (against a
//! `torch` spec or a second kernel, in `check`; memory safety in `race`). `formula` and
//! `render` are the language lifted formulas are written in. `kernel` ties the stages
//! together for the CLI; `error` holds what a command can end with.

/// mimalloc for every user of the library (the CLI, tests, benchmarks alike, so the
/// benchmarks time what the CLI runs): canonical forms and terms are many small
/// allocations, and with glibc's allocator malloc/free took about a quarter of flash
/// attention's lift time.
#[global_allocator]
static ALLOC: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod check;
pub mod commands;
pub mod crosscheck;
pub mod decide;
pub mod error;
pub mod exec;
pub mod extension_source;
pub mod formula;
pub mod infer_launch;
pub mod kernel;
pub mod launch;
pub mod npy;
pub mod nvrtc;
pub mod prove;
pub mod ptx;
pub mod race;
pub mod race_every;
pub mod render;
pub mod simplify;
pub mod spec;
pub mod synth;
pub mod term;
pub mod torch;
pub mod triton_ir;
pub mod verdict;
pub mod verify;

pub use error::Error;
pub use kernel::Kernel;
