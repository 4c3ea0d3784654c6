//! PTX front end and CTA simulator: text as NVRTC 12.x / Triton 3.x emit it →
//! [`ast::Module`] → bounded execution of every CTA of a launch over a value
//! [`Domain`](crate::exec::domain::Domain).
//!
//! Architecture invariant: `parse` never panics and returns `line:col: expected ...`
//! errors; `execute` depends only on the parsed module, a concrete launch
//! [`Instance`](crate::launch::Instance) and a domain, does no I/O, and produces the same
//! [`Execution`](crate::exec::Execution) the Triton IR interpreter produces, so specs,
//! deciders and the CLI treat both front ends alike. Shared and global accesses are
//! checked for data races (no warp-synchronous execution assumed), barriers for
//! deadlock, and addresses for bounds.

pub mod ast;
mod calls;
mod error;
mod exec;
pub mod libm;
mod parser;
mod scope;

pub use ast::type_bytes;
pub use error::ParseError;
pub use exec::{
    count_refused, execute, execute_for_races, launch_arg_order, prove_count, BenignRace,
    CountProof, CountSetup,
};

/// Parse a whole `.ptx` file.
pub fn parse(src: &str) -> Result<ast::Module, ParseError> {
    parser::parse(src)
}

/// Where a PTX kernel rounds below f32 (`cvt` to f16/bf16/tf32, tf32 `mma`, f16/bf16
/// arithmetic): the
/// roundings the real semantics (docs/semantics.md) reads as exact, as (what, .ptx line), in order.
/// Each with its line and whether `--precision ieee` rounds it (`cvt.rn` to f16/bf16
/// from f32/f64).
pub fn narrowings(module: &ast::Module) -> Vec<(String, u32, bool)> {
    let mut out = Vec::new();
    for e in &module.entries {
        for i in &e.body {
            let narrow = ["f16", "f16x2", "bf16", "bf16x2", "tf32"];
            let what = match i.op.as_str() {
                // cvt.<rounding>.<dst>.<src>: the destination is the first type.
                "cvt" => i
                    .mods
                    .iter()
                    .find(|m| type_bytes(m).is_some())
                    .filter(|dst| narrow.contains(&dst.as_str()))
                    .map(|dst| {
                        let n = i.mods.len();
                        let modelled = i.mods.iter().any(|m| m == "rn")
                            && n >= 2
                            && matches!(i.mods[n - 2].as_str(), "f16" | "bf16" | "f16x2" | "bf16x2")
                            && matches!(i.mods[n - 1].as_str(), "f32" | "f64");
                        (format!("{dst} rounding (`cvt`) read as exact"), modelled)
                    }),
                "mma" | "wmma" | "wgmma" if i.mods.iter().any(|m| m == "tf32") => {
                    Some(("tf32 products (`mma`) read as exact f32".to_string(), false))
                }
                // The products of halves are exact in f32; the tensor core's sum is not
                // IEEE's (its order and rounding are the hardware's), in any precision.
                "mma" | "wmma" | "wgmma" if i.mods.iter().any(|m| m == "f16" || m == "bf16") => Some((
                    format!(
                        "f32 accumulation of `{}` read as exact (each product of two halves is \
                         exact in f32; the tensor core's summation order and rounding are not modelled)",
                        i.mnemonic()
                    ),
                    false,
                )),
                // Blackwell's tensor cores: f16 or bf16 in (the instruction descriptor
                // says which; lift runs f32 accumulators only).
                "tcgen05" if i.has("mma") && i.has("kind::f16") => Some((
                    format!(
                        "f32 accumulation of `{}` read as exact (each product of two halves is \
                         exact in f32; the tensor core's summation order and rounding are not modelled)",
                        i.mnemonic()
                    ),
                    false,
                )),
                // Arithmetic in a 16-bit float type (`add.f16`, `fma.rn.f16x2`).
                "add" | "sub" | "mul" | "fma" | "div" => i
                    .mods
                    .iter()
                    .find(|m| matches!(m.as_str(), "f16" | "f16x2" | "bf16" | "bf16x2"))
                    .map(|ty| {
                        let name = std::iter::once(i.op.as_str())
                            .chain(i.mods.iter().map(String::as_str))
                            .collect::<Vec<_>>()
                            .join(".");
                        // `--precision ieee` rounds the scalar forms (not `.f16x2`).
                        let modelled = matches!(ty.as_str(), "f16" | "bf16");
                        (
                            format!("{ty} arithmetic (`{name}`) read as exact"),
                            modelled,
                        )
                    }),
                _ => None,
            };
            if let Some((w, modelled)) = what {
                out.push((w, i.line, modelled));
            }
        }
    }
    out.extend(atomic_notes(module).into_iter().map(|(w, l)| (w, l, false)));
    out
}

/// What a verdict on a kernel with atomics takes as given, as (what, .ptx line): float
/// atomic adds summed in the one order the executor runs (their sum is order-free
/// over the reals), and spin-lock critical sections run in thread order. Atomics whose
/// results depend on the order in any other way stop the run (UNKNOWN).
pub fn atomic_notes(module: &ast::Module) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for e in &module.entries {
        for (pc, i) in e.body.iter().enumerate() {
            if !matches!(i.op.as_str(), "atom" | "red") {
                continue;
            }
            let ty = i.mods.last().map_or("", |s| s.as_str());
            let float = matches!(ty, "f32" | "f64" | "f16" | "bf16");
            if float && i.mods.iter().any(|m| m == "add") {
                out.push((
                    format!(
                        "`{}`: the order threads reach the atomic adds read as irrelevant \
                         (their sum is exact over the reals)",
                        i.mnemonic()
                    ),
                    i.line,
                ));
            } else if i.mods.iter().any(|m| m == "cas") {
                // The executor's own test for a spin lock's retry loop.
                if exec::in_retry_loop(e, pc) {
                    out.push((
                        format!(
                            "spin lock (`{}`): critical sections run in thread order; \
                             a result that depends on their order holds for that order",
                            i.mnemonic()
                        ),
                        i.line,
                    ));
                }
            }
        }
    }
    out
}
