//! A domain for runs that only watch addresses and synchronisation (`lift race`).
//!
//! A race, deadlock or out-of-bounds verdict depends on which addresses each thread
//! touches, in which order and between which barriers; the values stored matter only
//! where they steer those (a branch, an address, a select, bit-level code). Most
//! kernels never let data steer anything, and for them building every value's term
//! (as the symbolic run does) is wasted work: a 128 x 128 SGEMM at K = 512 builds
//! millions of products to learn nothing about its races.
//!
//! [`AddressOnly`] keeps a float as the number it is where it is one, and as `Data`
//! otherwise. Every operation whose outcome could depend on the data — a comparison,
//! boolean logic on conditions, bit-level code, reading a computed float as a number —
//! marks the run *steered*. An unsteered run took the same path and touched the same
//! addresses as a symbolic run would, for every input; a steered run proves nothing
//! and its caller runs symbolically instead.
//!
//! Invariant: `steered()` is false only if no value of the domain reached anything but
//! arithmetic and memory; numbers come out of `as_number` only where they are exactly
//! the constants the symbolic domain would fold to.

use super::domain::{Binary, Concrete, Domain, Truth};
use crate::term::{CmpOp, Func};
use std::cell::Cell;
use std::collections::BTreeMap;

/// A value of [`AddressOnly`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shadow {
    /// A constant as written (an immediate, a bit pattern, an integer element):
    /// exactly the symbolic domain's value.
    Exact(f64),
    /// Computed from constants in f64 (the symbolic domain computes it exactly, so it
    /// may differ in the last bits: reading it as a number steers the run).
    Computed(f64),
    /// Depends on the kernel's inputs.
    Data,
}

/// See the module documentation.
pub struct AddressOnly {
    steered: Cell<bool>,
    /// f64 arithmetic on numbers (no tensors: inputs are `Data`).
    numbers: Concrete,
}

impl Default for AddressOnly {
    fn default() -> Self {
        AddressOnly {
            steered: Cell::new(false),
            numbers: Concrete {
                data: Vec::new(),
                scalars: BTreeMap::new(),
                precision: Default::default(),
                values_only: false,
            },
        }
    }
}

impl AddressOnly {
    /// Whether data may have steered the run (its findings and its safety say nothing).
    pub fn steered(&self) -> bool {
        self.steered.get()
    }

    fn steer(&self) {
        self.steered.set(true);
    }

    fn num(a: Shadow) -> Option<f64> {
        match a {
            Shadow::Exact(x) | Shadow::Computed(x) => Some(x),
            Shadow::Data => None,
        }
    }

    /// `f` of numbers, as a computed number; data if any operand is data.
    fn lift(&mut self, xs: &[Shadow], f: impl FnOnce(&mut Concrete, &[f64]) -> f64) -> Shadow {
        let nums: Option<Vec<f64>> = xs.iter().map(|&x| Self::num(x)).collect();
        match nums {
            Some(ns) => Shadow::Computed(f(&mut self.numbers, &ns)),
            None => Shadow::Data,
        }
    }
}

impl Domain for AddressOnly {
    type V = Shadow;

    fn constant(&mut self, x: f64) -> Shadow {
        Shadow::Exact(x)
    }
    fn input(&mut self, _tensor: usize, _index: &[i64], _flat: usize) -> Shadow {
        Shadow::Data
    }
    fn param(&mut self, _name: &str) -> Option<Shadow> {
        Some(Shadow::Data)
    }
    fn neg(&mut self, a: Shadow) -> Shadow {
        match a {
            Shadow::Exact(x) => Shadow::Exact(-x),
            Shadow::Computed(x) => Shadow::Computed(-x),
            Shadow::Data => Shadow::Data,
        }
    }
    fn func(&mut self, f: Func, a: Shadow) -> Shadow {
        self.lift(&[a], |c, x| c.func(f, x[0]))
    }
    fn powi(&mut self, a: Shadow, n: i32) -> Shadow {
        self.lift(&[a], |c, x| c.powi(x[0], n))
    }
    fn binary(&mut self, op: Binary, a: Shadow, b: Shadow) -> Shadow {
        // `lift` for two operands, without gathering them (every product and sum of a
        // matmul passes here).
        match (Self::num(a), Self::num(b)) {
            (Some(x), Some(y)) => Shadow::Computed(self.numbers.binary(op, x, y)),
            _ => Shadow::Data,
        }
    }
    fn cmp(&mut self, op: CmpOp, a: Shadow, b: Shadow) -> Truth<Shadow> {
        // A float comparison decides a branch, a select or a predicate: steered.
        self.steer();
        match (Self::num(a), Self::num(b)) {
            (Some(x), Some(y)) => Truth::Known(op.holds(x, y)),
            _ => Truth::Unknown(Shadow::Data),
        }
    }
    fn select(&mut self, _c: Shadow, a: Shadow, b: Shadow) -> Shadow {
        self.steer();
        if a == b {
            a
        } else {
            Shadow::Data
        }
    }
    fn not(&mut self, _a: Shadow) -> Truth<Shadow> {
        self.steer();
        Truth::Unknown(Shadow::Data)
    }
    fn and(&mut self, _a: Shadow, _b: Shadow) -> Truth<Shadow> {
        self.steer();
        Truth::Unknown(Shadow::Data)
    }
    fn or(&mut self, _a: Shadow, _b: Shadow) -> Truth<Shadow> {
        self.steer();
        Truth::Unknown(Shadow::Data)
    }
    fn as_number(&self, a: Shadow) -> Option<f64> {
        match a {
            Shadow::Exact(x) => Some(x),
            // The symbolic domain's exact value may differ in its last bits.
            Shadow::Computed(x) => {
                self.steer();
                Some(x)
            }
            Shadow::Data => None,
        }
    }
    fn opaque(&mut self, _op: &str, _args: &[Shadow]) -> Option<Shadow> {
        // Bit-level code on data: its bits may become an address or a condition.
        self.steer();
        Some(Shadow::Data)
    }
    fn bits(&mut self, b: u64) -> Shadow {
        Shadow::Exact(b as f64)
    }
    fn integer(&mut self, n: i128) -> Shadow {
        Shadow::Exact(n as f64)
    }
    fn witness(&mut self, _c: Shadow) -> Option<String> {
        self.steer();
        None
    }
    fn int_range(&self, a: Shadow) -> Option<(i128, i128)> {
        // Only asked of values that become integers (stored into integer tensors,
        // used as indices): data there may steer.
        match a {
            Shadow::Exact(x) if x.fract() == 0.0 && x.abs() < 2f64.powi(100) => {
                Some((x as i128, x as i128))
            }
            _ => {
                self.steer();
                None
            }
        }
    }
}
