//! lift: tells GPU-kernel authors, with proofs, what their kernels compute.
//!
//! The modules follow the pipeline of DESIGN.md, data flowing one way:
//! front ends (`triton_ir`) → `exec` (bounded symbolic/concrete execution on a
//! `launch`) → `spec` (one term per output element, over `term`s).

pub mod exec;
pub mod launch;
pub mod npy;
pub mod spec;
pub mod term;
pub mod triton_ir;
