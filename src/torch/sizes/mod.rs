//! The all-sizes reading: a spec read once for every size, each tensor a [`Formula`]
//! over the launch's tensors with a shape of size expressions, each int a size
//! expression, so `verify` can prove a kernel equal to the spec at every size (`lift
//! check`, unbounded step).
//!
//! It is a [`Reading`] of the one interpreter (`eval`), and an op is looked up in the one
//! op table (`ops::all_sizes`) and bound by the one `ops::bind_call`, so names, defaults,
//! aliases and dim normalisation cannot differ from the instance reading. What is left
//! per op is only what an op computes: an elementwise op runs its instance definition on
//! placeholders and reads the term back (`pointwise`); a shape-changing op is a formula
//! written in `ops` after its instance definition; any other op is refused with the
//! table's reason. Invariant: an op's meaning is PyTorch's, as the instance reading
//! defines it; the caller still checks that the formulas, instantiated at the check's
//! launch, are `decide`-equal to the instance reading element by element before trusting
//! them. Anything this reading cannot honour for every size (a size used as a real, a
//! bound that is negative at some sizes) is an error, never a guess.

mod domain;
mod extent;
mod pointwise;
mod reading;
mod shape_ops;

pub use reading::SymEnv;

#[cfg(test)]
mod tests;
