//! Robustness of the PTX parser: truncated and mutated real files (the suite under
//! `ptx/` and Triton's `triton_ir/*/kernel.ptx`) give `Ok` or `Err`, never a panic.

use crate::seed;

use lift::ptx::parse;
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn corpus() -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = Vec::new();
    for fam in ["reduce", "matmul", "softmax", "triton", "trap", "gelu64"] {
        if let Ok(rd) = std::fs::read_dir(root.join("ptx").join(fam)) {
            files.extend(
                rd.flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "ptx")),
            );
        }
    }
    for op in ["sum", "softmax", "matmul", "sin", "layer_norm"] {
        files.push(root.join("triton_ir").join(op).join("kernel.ptx"));
    }
    files.sort();
    files
        .iter()
        .filter_map(|p| std::fs::read_to_string(p).ok())
        .collect()
}

#[test]
fn corpus_parses() {
    let c = corpus();
    assert!(c.len() >= 20);
    for text in &c {
        parse(text).unwrap();
    }
}

proptest! {
    #![proptest_config(seed::seeded(ProptestConfig::with_cases(300), "ptx_fuzz"))]

    #[test]
    fn truncated_files_never_panic(file in 0usize..1000, cut in 0.0f64..1.0) {
        let c = corpus();
        let text = &c[file % c.len()];
        let mut at = (text.len() as f64 * cut) as usize;
        while !text.is_char_boundary(at) { at -= 1; }
        let _ = parse(&text[..at]);
    }

    #[test]
    fn mutated_files_never_panic(
        file in 0usize..1000,
        edits in proptest::collection::vec((0.0f64..1.0, 0usize..4, any::<u8>()), 1..6),
    ) {
        let c = corpus();
        let mut bytes = c[file % c.len()].clone().into_bytes();
        for (pos, kind, b) in edits {
            if bytes.is_empty() { break; }
            let i = ((bytes.len() - 1) as f64 * pos) as usize;
            let ch = b" ;,{}[]<>+-@!|:%.0f9x\n"[b as usize % 22];
            match kind {
                0 => { bytes.remove(i); }
                1 => bytes.insert(i, ch),
                2 => bytes[i] = ch,
                _ => {
                    let j = (i + 40).min(bytes.len());
                    let chunk: Vec<u8> = bytes[i..j].to_vec();
                    bytes.splice(i..i, chunk);
                }
            }
        }
        let text = String::from_utf8_lossy(&bytes);
        let _ = parse(&text);
    }
}
