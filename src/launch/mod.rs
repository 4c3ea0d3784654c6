//! Launch descriptions: which pointer is which tensor, the grid, the sizes.
//!
//! Architecture invariant: this module only reads and evaluates the TOML contract of
//! docs/launch.md; it knows nothing of kernels. [`Launch::instantiate`]
//! turns a launch plus size overrides into a fully concrete [`Instance`].
//!
//! [`model`] holds the launch and its concrete [`Instance`]; [`schema`] reads the TOML
//! into a [`Launch`]; [`dtype`] the element types; [`expr`] the size expressions.

mod dtype;
mod expr;
mod model;
mod schema;

pub use dtype::Dtype;
pub use expr::{BinOp, Expr};
pub use model::{
    field_key, field_of, fit_declared, ArgBinding, ArgValue, Instance, Launch, LaunchError, Role,
    TensorDecl, TensorMapBox, ValueItem, DEFAULT_DYNAMIC_SHARED, MAX_DECLARED_VALUES,
};

#[cfg(test)]
mod tests;
