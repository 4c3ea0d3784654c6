//! `lift race` first runs PTX without values (`exec::addresses::AddressOnly`) and
//! trusts that run only when no data steered it. These tests pin both halves of that
//! rule on real kernels: a kernel whose control and addresses never depend on data
//! runs unsteered (and is SAFE on it), one that branches on data is steered (its
//! verdict comes from the symbolic run), and every verdict `race` gives is the one the
//! symbolic run gives on its own.

use lift::exec::addresses::AddressOnly;
use lift::race::{race, Safety};
use lift::Kernel;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn load(family: &str, variant: &str) -> Kernel {
    let dir = root().join("ptx").join(family);
    Kernel::load(
        &dir.join(format!("{variant}.ptx")),
        Some(&dir.join(format!("{variant}.launch.toml"))),
    )
    .unwrap()
}

/// Whether the value-free run was steered by data, and whether it ran to the end.
fn shadow_run(k: &Kernel, sizes: &[(&str, i64)]) -> (bool, bool) {
    let s: BTreeMap<String, i64> = sizes.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let inst = k.instance(&s).unwrap();
    let mut d = AddressOnly::default();
    let ok = k.execute(&inst, &mut d).is_ok();
    (d.steered(), ok)
}

/// The verdict of the symbolic run alone (what `race` answered before the shortcut).
fn symbolic_verdict(k: &Kernel, sizes: &[(&str, i64)]) -> &'static str {
    let s: BTreeMap<String, i64> = sizes.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let inst = k.instance(&s).unwrap();
    let mut terms = lift::term::Terms::new();
    match k.spec(&inst, &mut terms) {
        Ok(_) => "SAFE",
        Err(lift::Error::Exec { err, .. }) => lift::race::verdict_word(err.kind),
        Err(e) => panic!("{e}"),
    }
}

fn race_verdict(k: &Kernel, sizes: &[(&str, i64)]) -> &'static str {
    let s: BTreeMap<String, i64> = sizes.iter().map(|(n, v)| (n.to_string(), *v)).collect();
    let inst = k.instance(&s).unwrap();
    race(k, &inst).unwrap().safety.verdict()
}

#[test]
fn data_independent_kernels_run_unsteered() {
    for (family, variant, sizes) in [
        ("sgemm", "naive", &[("K", 16)][..]),
        ("sgemm", "blocktile_2d", &[("K", 16)][..]),
        ("matmul", "smem_tiled", &[][..]),
        ("reduce", "interleaved_strided", &[][..]),
    ] {
        let k = load(family, variant);
        assert_eq!(shadow_run(&k, sizes), (false, true), "{family}/{variant}");
        assert_eq!(race_verdict(&k, sizes), "SAFE", "{family}/{variant}");
    }
}

#[test]
fn kernels_that_branch_on_data_are_steered() {
    // `if (x > m) m = x` style code: the branch depends on the data.
    for (family, variant) in [
        ("cond_max", "tree"),
        ("argmax", "first"),
        ("relu", "clamp_ifelse"),
    ] {
        let k = load(family, variant);
        let (steered, _) = shadow_run(&k, &[]);
        assert!(steered, "{family}/{variant} was not steered by its data");
    }
}

#[test]
fn race_agrees_with_the_symbolic_run() {
    for (family, variant, sizes) in [
        ("sgemm", "blocktile_2d_no_sync", &[("K", 16)][..]),
        ("sgemm", "blocktile_2d", &[("K", 16)][..]),
        ("reduce", "missing_syncthreads", &[][..]),
        ("reduce", "warp_unrolled_racy", &[][..]),
        ("reduce", "warp_unrolled_syncwarp", &[][..]),
        ("cond_max", "missing_syncthreads", &[][..]),
        ("cond_max", "tree", &[][..]),
        ("softmax", "missing_barrier", &[][..]),
        ("softmax", "online", &[][..]),
        ("matmul", "smem_async_no_wait", &[][..]),
        ("matmul", "smem_async_pipelined", &[][..]),
    ] {
        let k = load(family, variant);
        assert_eq!(
            race_verdict(&k, sizes),
            symbolic_verdict(&k, sizes),
            "{family}/{variant}"
        );
    }
    // And the racy ones are found at all.
    let k = load("sgemm", "blocktile_2d_no_sync");
    assert_eq!(race_verdict(&k, &[("K", 16)]), "RACE");
    let k = load("reduce", "missing_syncthreads");
    assert!(matches!(
        race(&k, &k.instance(&BTreeMap::new()).unwrap())
            .unwrap()
            .safety,
        Safety::Unsafe { .. }
    ));
}
