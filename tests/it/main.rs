//! lift's integration tests, one binary (the crate links once, not once per file).
//! `cargo test --release --test it MODULE::` runs one file's tests; `cargo test --release NAME` one test.

#![allow(clippy::result_large_err)]

mod common;
mod seed;

mod architecture;
mod check;
mod check_all_sizes;
mod check_float_types;
mod cli;
mod corpus;
mod decide_cases;
mod decide_identities;
mod decide_mutants;
mod decide_normalize;
mod decide_online;
mod decide_premises;
mod decide_props;
mod fixtures;
mod formula_lang;
mod formula_suite;
mod gather;
mod infer_launch;
mod int_widths;
mod llm_set;
mod matvec;
mod nan_rules;
mod no_panic;
mod precision;
mod ptx_atomics;
mod ptx_branch_stores;
mod ptx_calls;
mod ptx_equiv;
mod ptx_fuzz;
mod ptx_libm;
mod ptx_libm_matrix;
mod ptx_mbarrier;
mod ptx_misc;
mod ptx_race_corpus;
mod ptx_race_model;
mod ptx_scale_kernels;
mod ptx_scoping;
mod ptx_spec_checks;
mod ptx_suite;
mod ptx_sync;
mod ptx_tutorial_corpus;
mod ptx_typed_memory;
mod race_without_values;
mod reshape;
mod size_twins;
mod suite;
mod synth_causal;
mod synth_suite;
mod term_ieee;
mod term_props;
mod term_round;
mod term_rules;
mod thread_count;
mod torch_diff;
mod torch_fixtures;
mod torch_formula;
mod torch_spec;
mod triton_ir_fuzz;
mod triton_ir_parse;
mod verify_suite;
