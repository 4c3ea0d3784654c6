//! The one error of the spec language: where (a column) and what.

use std::fmt;

/// A spec that failed to parse or to instantiate: where (1-based character column in the
/// spec text; multi-line specs count from the start of the text) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError {
    pub col: usize,
    pub message: String,
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "col {}: {}", self.col, self.message)
    }
}

impl std::error::Error for SpecError {}
