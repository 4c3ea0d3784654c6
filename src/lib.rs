//! lift: tells GPU-kernel authors, with proofs, what their kernels compute.
//!
//! The modules follow the pipeline of DESIGN.md, data flowing one way:
//! front ends (`triton_ir`) → `exec` (bounded symbolic/concrete execution on a
//! `launch` instance) → `spec` (one `term` per output element). `kernel` ties them
//! together for the CLI; `error` holds what a command can end with.

pub mod check;
pub mod decide;
pub mod error;
pub mod exec;
pub mod formula;
pub mod kernel;
pub mod launch;
pub mod npy;
pub mod render;
pub mod spec;
pub mod term;
pub mod torch;
pub mod triton_ir;

pub use error::Error;
pub use kernel::Kernel;
