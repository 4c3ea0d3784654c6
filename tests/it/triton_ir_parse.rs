//! Every Triton kernel of the suite (`triton_ir/<op>/kernel.ttir`) parses, has ops, and
//! every op in kernel code maps back to a Python source line.
//!
//! `LIFT_TRITON_IR_DIR` points the test at another suite directory.

use std::path::{Path, PathBuf};

use lift::triton_ir::{ast, parse};

fn suite_dir() -> PathBuf {
    match std::env::var_os("LIFT_TRITON_IR_DIR") {
        Some(d) => PathBuf::from(d),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("triton_ir"),
    }
}

fn suite_files() -> Vec<PathBuf> {
    let mut out = Vec::new();
    let Ok(rd) = std::fs::read_dir(suite_dir()) else {
        return out;
    };
    for e in rd.flatten() {
        let p = e.path().join("kernel.ttir");
        if p.is_file() {
            out.push(p);
        }
    }
    out.sort();
    out
}

fn walk<'m>(r: &'m ast::Region, out: &mut Vec<&'m ast::Op>) {
    for b in &r.blocks {
        for op in &b.ops {
            out.push(op);
            for sub in &op.regions {
                walk(sub, out);
            }
        }
    }
}

#[test]
fn every_suite_kernel_parses_with_locations() {
    let files = suite_files();
    if files.is_empty() {
        eprintln!(
            "no triton_ir/*/kernel.ttir under {}; nothing to check",
            suite_dir().display()
        );
        return;
    }
    let mut failures = Vec::new();
    for p in &files {
        let src = std::fs::read_to_string(p).unwrap();
        let m = match parse(&src) {
            Ok(m) => m,
            Err(e) => {
                failures.push(format!("{}:{e}", p.display()));
                continue;
            }
        };
        let f = m.entry().expect("a function");
        let mut ops = Vec::new();
        walk(&f.body, &mut ops);
        assert!(!ops.is_empty(), "{}: no ops", p.display());
        for op in ops {
            // Constants hoisted by the canonicalizer may carry `loc(unknown)`;
            // everything else must point at a line of the kernel source.
            if op.name == "arith.constant" {
                continue;
            }
            if op.loc.line == 0 || op.loc.file.is_none() {
                failures.push(format!(
                    "{}:{}: {} has no source location",
                    p.display(),
                    op.line,
                    op.name
                ));
            }
            if op.result_types.len() != op.results.len() {
                failures.push(format!(
                    "{}:{}: {} has {} results but {} result types",
                    p.display(),
                    op.line,
                    op.name,
                    op.results.len(),
                    op.result_types.len()
                ));
            }
        }
        for a in &f.args {
            assert!(!a.name.is_empty(), "{}: unnamed argument", p.display());
            assert!(
                a.loc.name.is_some(),
                "{}: argument without its name loc",
                p.display()
            );
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("parsed {} suite kernels", files.len());
}
