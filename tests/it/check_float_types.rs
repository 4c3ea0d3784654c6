//! `lift check` rounds the spec's decimal constants to the float type of the kernel's
//! tensors: `x * 0.1` means `x * f16(0.1)` for an f16 kernel, `x * 0.1` (f64) for an f64
//! one. The kernels (tests/float_types/, Triton 3.9.0 IR, see generate.py there) scale
//! by 0.1 in their tensors' type, or in f32 whatever their type (the wrong twins).

use lift::check::{self, CheckOptions, Outcome};
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::PathBuf;

fn check(name: &str, spec: &str) -> Outcome {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/float_types")
        .join(format!("{name}.ttir"));
    let k = Kernel::load(&path, None).unwrap_or_else(|e| panic!("{name}: {e}"));
    let mut outcomes = Vec::new();
    for n in [8, 13] {
        let inst = k.instance(&BTreeMap::from([("N".to_string(), n)])).unwrap();
        let r = check::check(&k, &inst, spec, &CheckOptions::default())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        outcomes.push(r.outcome);
    }
    assert_eq!(outcomes[0], outcomes[1], "{name}: the instances disagree");
    outcomes[0]
}

#[test]
fn constants_of_the_spec_take_the_kernels_float_type() {
    for name in ["scale_f16", "scale_bf16", "scale_f64"] {
        assert_eq!(check(name, "y = x * 0.1"), Outcome::Verified, "{name}");
    }
}

/// The kernels that scale by the f32 nearest to 0.1 while their tensors are f16 or bf16
/// do not compute `x * 0.1` of their type: refuted (an f32 spec would verify them).
#[test]
fn a_constant_in_another_float_type_is_refuted() {
    for name in ["scale_f16_in_f32", "scale_bf16_in_f32"] {
        assert_eq!(check(name, "y = x * 0.1"), Outcome::Refuted, "{name}");
    }
    // The f16 kernel against a spec constant that is no f16 value.
    assert_eq!(check("scale_f16", "y = x * 0.1001"), Outcome::Refuted);
}
