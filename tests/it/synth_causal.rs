//! Causal attention as fla-core writes it (`corpus/fla_attn_causal`: two key loops, base 2,
//! a finite pivot, the log-sum-exp beside the output) lifts to a masked formula, and that
//! formula is refuted on the corpus' wrong twins (synth/causal.rs: completion from the
//! last row, then the scores masked with `where(tril(ones(T, T)) != 0, s, -inf)`).
//!
//! The formulas are not compared with lift's own output: each is proved against the
//! kernel's terms at an instance the lift did not see, and against the twins' terms,
//! whose bugs the reference (fla's `naive_parallel_attn`) tells apart.

use lift::formula::{Formula, ShapeEnv};
use lift::term::{TermId, Terms};
use lift::{synth, Kernel};
use std::collections::BTreeMap;
use std::path::Path;

fn kernel(entry: &str) -> Kernel {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(entry)
        .join("kernel.ttir");
    Kernel::load(&path, None).unwrap_or_else(|e| panic!("{entry}: {e}"))
}

fn sizes(pairs: &[(&str, i64)]) -> BTreeMap<String, i64> {
    pairs.iter().map(|&(n, v)| (n.to_string(), v)).collect()
}

/// The formulas `lift` proves for the correct kernel at its launch's instance (B = 1,
/// T = 48: three query blocks), by output name.
fn lifted() -> BTreeMap<String, Formula> {
    let k = kernel("fla_attn_causal");
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let mut terms = Terms::new();
    let l = synth::lift(&k, &inst, &mut terms).unwrap();
    l.outputs
        .iter()
        .map(|o| {
            let f = o
                .formula
                .clone()
                .unwrap_or_else(|| panic!("{}: {:?}", o.name, o.stalled));
            (o.name.clone(), f)
        })
        .collect()
}

/// Whether `f` is proved equal to output `name` of `entry` at `sizes`.
fn proves(entry: &str, at: &[(&str, i64)], name: &str, f: &Formula) -> Result<(), String> {
    let k = kernel(entry);
    let inst = k.instance(&sizes(at)).unwrap();
    let mut terms = Terms::new();
    let spec = k.spec(&inst, &mut terms).unwrap();
    let env = ShapeEnv::from_launch(&k.launch, &inst.sizes).unwrap();
    let t = spec.outputs.iter().find(|t| t.name == name).unwrap();
    let elems: Vec<TermId> = t.elems.iter().map(|e| e.unwrap()).collect();
    synth::prove(&mut terms, &env, f, &t.shape, &elems)
}

#[test]
fn causal_attention_lifts_to_a_masked_formula_that_holds_at_another_instance() {
    let fs = lifted();
    for name in ["o", "lse"] {
        let text = lift::render::text::expr(&fs[name]);
        assert!(
            text.contains("where(tril(ones(T, T)) != 0,") && text.contains("-inf"),
            "{name} = {text}"
        );
        // Two batches and a ragged last query block: not the instance lifted on.
        proves("fla_attn_causal", &[("B", 2), ("T", 20)], name, &fs[name])
            .unwrap_or_else(|e| panic!("{name} at B=2, T=20: {e}"));
    }
}

#[test]
fn the_causal_formula_is_refuted_on_the_wrong_twins() {
    let fs = lifted();
    let t48 = [("B", 1), ("T", 48)];
    // `>` for `>=`: a query does not see its own key (row 0 sees nothing).
    assert!(proves("fla_attn_causal_diag_bug", &t48, "o", &fs["o"]).is_err());
    // The natural log of the sum added to the base-2 max; the output is right.
    assert!(proves("fla_attn_causal_lse_bug", &t48, "lse", &fs["lse"]).is_err());
    proves("fla_attn_causal_lse_bug", &t48, "o", &fs["o"]).unwrap();
    // No rescale of the output in the loop over earlier key blocks: wrong only where
    // that loop runs twice, past the second query block.
    assert!(proves("fla_attn_causal_rescale_bug", &t48, "o", &fs["o"]).is_err());
    proves(
        "fla_attn_causal_rescale_bug",
        &[("B", 1), ("T", 20)],
        "o",
        &fs["o"],
    )
    .unwrap();
}

#[test]
fn a_masked_score_renders_in_numpy_torch_and_latex() {
    let fs = lifted();
    let k = kernel("fla_attn_causal");
    let inst = k.instance(&BTreeMap::new()).unwrap();
    let env = ShapeEnv::from_launch(&k.launch, &inst.sizes).unwrap();
    let outputs = vec![lift::formula::Output::new("o", fs["o"].clone())];
    let np = lift::render::numpy::function(&outputs, &env, "attn").unwrap();
    assert!(np.contains("np.tril(") && np.contains("-np.inf"), "{np}");
    let latex = lift::render::latex::expr(&fs["o"]);
    assert!(
        latex.contains("\\operatorname{tril}\\left(\\mathbf{1}_{T \\times T}\\right)")
            && latex.contains("-\\infty"),
        "{latex}"
    );
    let torch = lift::render::torch::function(&outputs, &env, "attn").unwrap();
    assert!(
        torch.contains("torch.tril(") && torch.contains("float('-inf')"),
        "{torch}"
    );
}
