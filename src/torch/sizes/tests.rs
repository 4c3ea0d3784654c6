//! The one op table serves both readings: every name the instance reading accepts has an
//! instance definition and an all-sizes reading (or a named refusal), and each
//! shape-changing op the table marks `Formula` has its arm here.

use super::super::ops::{self, all_sizes, bind, canonical, AllSizes, SUPPORTED};
use super::super::value::Cx;
use super::reading::SymEnv;
use super::shape_ops;
use crate::formula::Size;
use crate::term::Terms;
use std::collections::{BTreeMap, BTreeSet};

#[test]
fn every_op_of_the_table_is_defined_at_an_instance_and_read_or_refused_for_all_sizes() {
    let (tensors, scalars, values, sizes) = (
        BTreeMap::new(),
        BTreeSet::new(),
        BTreeMap::new(),
        BTreeSet::new(),
    );
    let env = SymEnv {
        ints: &Default::default(),
        tensors: &tensors,
        scalars: &scalars,
        values: &values,
        sizes: &sizes,
        float: Default::default(),
    };
    let mut terms = Terms::new();
    let mut cx = Cx {
        terms: &mut terms,
        float: env.float,
    };
    for name in SUPPORTED {
        let op = canonical(name).unwrap_or_else(|| panic!("`{name}` has no canonical op"));
        assert!(
            ops::definition(op).is_some(),
            "`{op}` has no instance definition"
        );
        match all_sizes(op) {
            AllSizes::Elementwise => {}
            AllSizes::Formula => {
                // Called with no arguments, the arm asks for one: it exists.
                let a = bind(op, Vec::new(), Vec::new()).expect("binds");
                let e = shape_ops::call(&mut cx, a).expect_err("no arguments");
                assert!(
                    !e.contains("has no formula over sizes"),
                    "`{op}` is marked Formula but has no arm: {e}"
                );
            }
            AllSizes::Refused(why) => assert!(
                !why.is_empty() && why != "not in the op table",
                "`{op}` is refused without a reason"
            ),
        }
    }
}

/// A refused op is named in the refusal, in the words the fixtures record.
#[test]
fn a_refused_op_is_refused_by_name() {
    let prog = super::super::program::parse("y = torch.flip(x, 0)").unwrap();
    let tensors = BTreeMap::from([("x".to_string(), vec![Size::Size("N".into())])]);
    let sizes = BTreeSet::from(["N".to_string()]);
    let (scalars, values) = (BTreeSet::new(), BTreeMap::new());
    let env = SymEnv {
        ints: &Default::default(),
        tensors: &tensors,
        scalars: &scalars,
        values: &values,
        sizes: &sizes,
        float: Default::default(),
    };
    let e = prog.formulas(&mut Terms::new(), &env).unwrap_err();
    assert!(matches!(all_sizes("flip"), AllSizes::Refused(_)));
    assert_eq!(
        e.to_string(),
        "col 15: `flip` is not read for all sizes yet"
    );
}

/// The all-sizes reading once normalised dims itself and reduced a 0-d tensor over
/// "axis 0" (`x.sum().sum(0)` panicked removing an axis it did not have); it now
/// normalises them as the instance reading does (`ops::reduce_dims_of`): a 0-d tensor
/// has no axis to reduce, so the second sum is the identity, as in PyTorch.
#[test]
fn a_reduction_of_a_0d_tensor_over_dim_0_is_the_identity_in_both_readings() {
    let tensors = BTreeMap::from([("x".to_string(), vec![Size::Size("N".into())])]);
    let sizes = BTreeSet::from(["N".to_string()]);
    let (scalars, values) = (BTreeSet::new(), BTreeMap::new());
    let env = SymEnv {
        ints: &Default::default(),
        tensors: &tensors,
        scalars: &scalars,
        values: &values,
        sizes: &sizes,
        float: Default::default(),
    };
    let mut terms = Terms::new();
    let read = |src: &str, terms: &mut Terms| {
        let prog = super::super::program::parse(src).unwrap();
        prog.formulas(terms, &env).unwrap().remove(0).formula
    };
    let twice = read("y = x.sum().sum(0)", &mut terms);
    let once = read("y = x.sum()", &mut terms);
    assert_eq!(twice, once);
    // And at an instance.
    let shapes = BTreeMap::from([("x".to_string(), vec![3])]);
    let n = BTreeMap::from([("N".to_string(), 3)]);
    let inst = super::super::instance::Env {
        tensors: &shapes,
        scalars: &scalars,
        values: &values,
        sizes: &n,
        float: Default::default(),
    };
    let mut at = |src: &str| {
        let prog = super::super::program::parse(src).unwrap();
        prog.instantiate(&mut terms, &inst).unwrap().remove(0).elems
    };
    assert_eq!(at("y = x.sum().sum(0)"), at("y = x.sum()"));
}
