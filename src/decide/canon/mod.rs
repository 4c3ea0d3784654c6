//! Canonical rational functions of terms: `N / D` with `N` a Laurent polynomial and `D`
//! a monic polynomial with at least two monomials (or 1), over hash-consed atoms.
//!
//! Invariant: every rewrite here is an identity over the reals under the recorded
//! preconditions (denominators non-zero, `log`/`rsqrt` arguments positive, `sqrt`
//! arguments non-negative). Two terms whose forms satisfy `N1·D2 = N2·D1` are equal
//! wherever the preconditions hold; the converse (completeness) holds only in the
//! exp-polynomial fragment.
//!
//! [`state`] holds the forms ([`Rf`], atoms, conditions) and the canonicaliser's state;
//! [`dag`] the sub-DAGs a conversion walks; [`arith`] the arithmetic of forms, with
//! [`cancel`] dividing a denominator out of a monomial multiple of it before expanding;
//! [`cases`] the case split over conditions and its feasibility; [`convert`] terms to
//! forms, with the functions in [`funcs`], known constants in [`known`] and chained
//! extrema in [`chain`]; [`kept`] a `Canon` carried from one decide call to the next.

mod arith;
mod cancel;
mod cases;
mod chain;
mod convert;
mod dag;
mod funcs;
mod kept;
mod known;
mod state;

pub(crate) use dag::{neighbours_share, Dag, Reached};
pub(crate) use kept::Detached;
pub(crate) use known::known_value;
pub(crate) use state::{Atom, Canon, Halt, Rf};
