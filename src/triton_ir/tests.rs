//! Unit tests over real Triton 3.9 output (`testdata/*.ttir`, made by
//! `testdata/gen.py`) and small snippets copied from it.

use super::ast::*;
use super::parse;

fn all_ops<'m>(r: &'m Region, out: &mut Vec<&'m Op>) {
    for b in &r.blocks {
        for op in &b.ops {
            out.push(op);
            for sub in &op.regions {
                all_ops(sub, out);
            }
        }
    }
}

fn ops_of(m: &Module) -> Vec<&Op> {
    let mut v = Vec::new();
    for f in &m.funcs {
        all_ops(&f.body, &mut v);
    }
    v
}

#[test]
fn parses_generated_samples() {
    for (name, src) in [
        ("elem", include_str!("testdata/elem.ttir")),
        ("rowred", include_str!("testdata/rowred.ttir")),
        ("red2d", include_str!("testdata/red2d.ttir")),
        ("mm", include_str!("testdata/mm.ttir")),
        ("ctrl", include_str!("testdata/ctrl.ttir")),
        ("casts", include_str!("testdata/casts.ttir")),
    ] {
        let m = parse(src).unwrap_or_else(|e| panic!("{name}: {e}"));
        let ops = ops_of(&m);
        assert!(!ops.is_empty(), "{name}");
        for op in ops {
            assert!(
                op.loc.file.is_some() || op.name.starts_with("arith.constant"),
                "{name}: {op:?}"
            );
        }
    }
}
