//! Which source lines a stored value comes from: the backward data slice of a
//! `tt.store`'s value operand, read off the ops' `loc`s.
//!
//! The slice is static (over the IR, not a run): it follows operands to the ops that
//! define them and, for an op with regions (a loop body, a reduction's combine
//! function), the operands of the regions' terminators, which give the op's results.
//! Lines inside Triton's own library (`triton/language/…`) are left out: a user
//! reads `tl.max(x, axis=1)` at their call site, not Triton's combine function.

use super::ast::{Loc, Module, Op, Region};
use std::collections::{BTreeSet, HashMap};

/// The source locations (file, line; sorted, without duplicates) of the ops the value
/// stored by the `tt.store` at .ttir line `store_line` depends on, the store included.
/// Empty when no store is at that line.
pub fn store_sources(module: &Module, store_line: u32) -> Vec<Loc> {
    for func in &module.funcs {
        let mut defs = HashMap::new();
        let mut store = None;
        index(&func.body, None, &mut defs, &mut store, store_line);
        if let Some(store) = store {
            return slice(store, &defs);
        }
    }
    Vec::new()
}

/// `defs`: SSA name → the op defining it (for a region's block argument, the op
/// owning the region; function arguments have none).
fn index<'a>(
    region: &'a Region,
    owner: Option<&'a Op>,
    defs: &mut HashMap<&'a str, &'a Op>,
    store: &mut Option<&'a Op>,
    store_line: u32,
) {
    for block in &region.blocks {
        if let Some(owner) = owner {
            for a in &block.args {
                defs.insert(&a.name, owner);
            }
        }
        for op in &block.ops {
            for r in &op.results {
                defs.insert(r, op);
            }
            if op.name == "tt.store" && op.line == store_line {
                *store = Some(op);
            }
            for r in &op.regions {
                index(r, Some(op), defs, store, store_line);
            }
        }
    }
}

fn slice<'a>(store: &'a Op, defs: &HashMap<&'a str, &'a Op>) -> Vec<Loc> {
    // One op per line in Triton's printing, so the .ttir line identifies an op.
    let mut seen: BTreeSet<u32> = BTreeSet::new();
    let mut locs: BTreeSet<(String, u32)> = BTreeSet::new();
    let mut work: Vec<&Op> = vec![store];
    while let Some(op) = work.pop() {
        if !seen.insert(op.line) {
            continue;
        }
        if let Some(file) = &op.loc.file {
            if !file.contains("triton/language/") && op.loc.line > 0 {
                locs.insert((file.to_string(), op.loc.line));
            }
        }
        let operands: Vec<&String> = match op.name.as_str() {
            // The stored value only, not the address or the mask.
            "tt.store" => op.operands.get(1).into_iter().collect(),
            // A load's operands say where it reads, not what: its line is enough.
            "tt.load" => Vec::new(),
            // A loop's values come from its initial values and its body, not from its
            // bounds and step (operands 0-2).
            "scf.for" => op.operands.iter().skip(3).collect(),
            _ => op
                .operands
                .iter()
                .chain(op.successors.iter().flat_map(|s| &s.args))
                .collect(),
        };
        for name in operands {
            if let Some(def) = defs.get(name.as_str()) {
                work.push(def);
            }
        }
        for r in &op.regions {
            nested_ops(r, &mut work);
        }
    }
    locs.into_iter()
        .map(|(file, line)| Loc {
            file: Some(file.into()),
            line,
            col: 0,
            name: None,
        })
        .collect()
}

/// The terminators of a region's blocks (`scf.yield`, `tt.reduce.return`, ...): what
/// the region gives its owner; the slice goes on from their operands.
fn nested_ops<'a>(region: &'a Region, work: &mut Vec<&'a Op>) {
    for block in &region.blocks {
        work.extend(block.ops.last());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn suite(op: &str) -> Module {
        let path = format!("{}/triton_ir/{op}/kernel.ttir", env!("CARGO_MANIFEST_DIR"));
        super::super::parse(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    fn store_lines(m: &Module) -> Vec<u32> {
        let mut out = Vec::new();
        fn walk(r: &Region, out: &mut Vec<u32>) {
            for b in &r.blocks {
                for op in &b.ops {
                    if op.name == "tt.store" {
                        out.push(op.line);
                    }
                    for r in &op.regions {
                        walk(r, out);
                    }
                }
            }
        }
        for f in &m.funcs {
            walk(&f.body, &mut out);
        }
        out
    }

    fn lines(locs: &[Loc]) -> Vec<u32> {
        locs.iter().map(|l| l.line).collect()
    }

    #[test]
    fn log_value_comes_from_load_log_and_store() {
        let m = suite("log");
        let st = store_lines(&m);
        assert_eq!(st.len(), 1);
        // kernel.py: 12 load, 13 log, 14 store; not the offsets or the mask.
        assert_eq!(lines(&store_sources(&m, st[0])), vec![12, 13, 14]);
    }

    #[test]
    fn layer_norm_outputs_have_different_slices() {
        let m = suite("layer_norm");
        let st = store_lines(&m);
        assert_eq!(st.len(), 3);
        let slices: Vec<Vec<u32>> = st.iter().map(|&l| lines(&store_sources(&m, l))).collect();
        // The mean's slice is strictly smaller than y's (y needs mean, rstd, w, b).
        let (small, big) = slices.iter().fold((usize::MAX, 0), |(s, b), v| {
            (s.min(v.len()), b.max(v.len()))
        });
        assert!(small < big, "{slices:?}");
        assert!(slices.iter().all(|s| !s.is_empty()));
    }

    #[test]
    fn no_store_at_line_is_empty() {
        assert!(store_sources(&suite("log"), 1).is_empty());
    }
}
