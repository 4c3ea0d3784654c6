//! Launch inference: a launch for a Triton kernel that comes without one (docs/launch.md,
//! "Launch descriptions": pointer args are tensors, stride and size ints are bound to
//! the shapes that make every access in bounds).
//!
//! The kernel's parameters give the unknowns: each pointer is a tensor, each `f*`
//! argument a symbolic scalar, each integer a size or a stride (`*stride*` names). A
//! small ordered list of *skeletons* fixes the grid and the integer bindings of the
//! common kernel families (elementwise `pid*BLOCK + arange < n`; one program per row,
//! `ptr + row*stride + cols < n_cols`, also with a constant row length, several rows
//! per program, or a second grid axis over the columns). For each skeleton a probe run
//! over large flat buffers records which elements of each tensor the kernel reads and
//! writes; that gives each tensor's role (written: out, read before written: inout,
//! else in) and the smallest shape holding every access; a per-tensor stride that
//! steps a whole row where the tensor has one element per row becomes 1.
//!
//! Architecture invariant: nothing is guessed silently. A skeleton is accepted only
//! after the executor ran the launch it proposes on an even and a ragged instance with
//! every access in bounds, every element of every `out` tensor written, and no element
//! written by two programs. The result is TOML text in the launch-file format; callers
//! parse it like any launch file (so a verdict depends only on the printed text) and
//! print it. This module never writes a file unless asked (`write_beside`), and never
//! overwrites one.

use super::*;
use crate::exec;
use crate::launch::Dtype;
use crate::triton_ir::ast::{Attr, FloatKind, Module, Region, Scalar, Type};

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Ptr(Dtype),
    Int { bits: u32 },
    Float,
}

#[derive(Clone, Debug)]
struct Param {
    name: String,
    kind: Kind,
    /// Whether the kernel body reads the parameter at all.
    used: bool,
    /// An integer only compared with constants (`if apply_relu:`): a flag, bound to 1.
    flag: bool,
}

/// How one skeleton binds the grid and the integers.
#[derive(Clone, Debug)]
struct Skeleton {
    family: &'static str,
    /// Size names of this family, `["N"]` or `["M", "N"]` (or `["M"]` with a constant row).
    sizes: Vec<&'static str>,
    grid: Vec<String>,
    /// The row length: `"N"`, or a literal for a row the kernel folded to a constant.
    row: String,
    /// The two instances runs validate on.
    instances: [BTreeMap<String, i64>; 2],
}

/// Infer a launch for the Triton kernel `module` (read from `file`).
pub fn infer(module: &Module, file: &str) -> Result<Inferred, Error> {
    let func = module
        .entry()
        .ok_or_else(|| Error::Usage(format!("{file}: the module has no tt.func")))?;
    let params = params(module);
    let blocks = range_extents(&func.body);
    let widths = int_constants(&func.body);
    let mut failures: Vec<(String, String)> = Vec::new();
    for sk in skeletons(&params, &blocks, &widths) {
        match try_skeleton(module, file, &params, &sk) {
            Ok(text) => {
                return Ok(Inferred {
                    text,
                    family: sk.family,
                })
            }
            Err(why) => failures.push((describe(&sk), why)),
        }
    }
    Err(Error::Usage(no_launch_message(
        file,
        "elementwise or row-kernel",
        &unexplained(&params),
        &failures,
        "`grid = [\"M\"]`, `[args] x_ptr = { tensor = \"x\", shape = [\"M\", \"N\"] }`",
    )))
}

fn describe(sk: &Skeleton) -> String {
    format!("{} (grid [{}])", sk.family, sk.grid.join(", "))
}

fn unexplained(params: &[Param]) -> Vec<String> {
    params
        .iter()
        .filter(|p| matches!(p.kind, Kind::Int { .. }) && p.used)
        .map(|p| format!("`{}`", p.name))
        .collect()
}

// ---------------------------------------------------------------------------------------
// Reading the kernel

fn params(module: &Module) -> Vec<Param> {
    let Some(func) = module.entry() else {
        return Vec::new();
    };
    let mut used = BTreeSet::new();
    let mut consts = BTreeSet::new();
    visit(&func.body, &mut |op| {
        if op.name == "arith.constant" {
            consts.extend(op.results.iter().cloned());
        }
    });
    // Parameters with a use other than a comparison with a constant.
    let mut valued = BTreeSet::new();
    visit(&func.body, &mut |op| {
        let compare = op.name == "arith.cmpi"
            && op.operands.len() == 2
            && op.operands.iter().any(|o| consts.contains(o));
        for o in &op.operands {
            used.insert(o.clone());
            if !compare {
                valued.insert(o.clone());
            }
        }
    });
    func.args
        .iter()
        .map(|a| Param {
            name: a.name.clone(),
            kind: match &a.ty {
                Type::Ptr(elem) => Kind::Ptr(dtype_of(elem)),
                Type::Float(_) => Kind::Float,
                Type::Int(bits) => Kind::Int { bits: *bits },
                _ => Kind::Int { bits: 64 },
            },
            used: used.contains(&a.name),
            flag: matches!(a.ty, Type::Int(_))
                && used.contains(&a.name)
                && !valued.contains(&a.name),
        })
        .collect()
}

fn dtype_of(t: &Type) -> Dtype {
    element_dtype(t).unwrap_or(Dtype::F32)
}

/// The launch dtype of a pointer's element type as the IR states it (`i64` → int64,
/// `i1` → bool); `None` for types no dtype names (f8, a pointer to pointers).
pub fn element_dtype(t: &Type) -> Option<Dtype> {
    Some(match t {
        Type::Float(FloatKind::F32) => Dtype::F32,
        Type::Float(FloatKind::F16) => Dtype::F16,
        Type::Float(FloatKind::BF16) => Dtype::Bf16,
        Type::Float(FloatKind::F64) => Dtype::F64,
        Type::Int(1) => Dtype::Bool,
        Type::Int(8) => Dtype::I8,
        Type::Int(16) => Dtype::I16,
        Type::Int(32) => Dtype::I32,
        Type::Int(64) => Dtype::I64,
        _ => return None,
    })
}

/// The element type of each pointer parameter of `func` that the IR states, by
/// parameter name: what decides a Triton tensor's dtype ([`Launch::type_tensors`]).
pub fn element_dtypes(func: &crate::triton_ir::ast::Func) -> BTreeMap<String, Dtype> {
    func.args
        .iter()
        .filter_map(|a| match &a.ty {
            Type::Ptr(elem) => Some((a.name.clone(), element_dtype(elem)?)),
            _ => None,
        })
        .collect()
}

fn visit<'m>(r: &'m Region, f: &mut dyn FnMut(&'m crate::triton_ir::ast::Op)) {
    for b in &r.blocks {
        for op in &b.ops {
            f(op);
            for sub in &op.regions {
                visit(sub, f);
            }
        }
    }
}

/// Extents of `tt.make_range` (the block sizes), largest first.
fn range_extents(body: &Region) -> Vec<i64> {
    let mut out = BTreeSet::new();
    visit(body, &mut |op| {
        if op.name == "tt.make_range" {
            let start = op.attr("start").and_then(Attr::as_int).unwrap_or(0);
            let end = op.attr("end").and_then(Attr::as_int).unwrap_or(0);
            if end - start > 1 {
                out.insert(end - start);
            }
        }
    });
    out.into_iter().rev().collect()
}

/// Small integer constants of the kernel (row lengths a kernel may have folded).
fn int_constants(body: &Region) -> Vec<i64> {
    let mut out = BTreeSet::new();
    visit(body, &mut |op| {
        if op.name != "arith.constant" {
            return;
        }
        let v = match op.attr("value") {
            Some(Attr::Scalar(Scalar::Int(i))) => Some(*i),
            Some(Attr::Dense { values, .. }) if values.len() == 1 => match values[0] {
                Scalar::Int(i) => Some(i),
                _ => None,
            },
            _ => None,
        };
        if let Some(v) = v {
            if (2..=4096).contains(&v) {
                out.insert(v as i64);
            }
        }
    });
    out.into_iter().collect()
}

fn is_stride(name: &str) -> bool {
    name.to_ascii_lowercase().contains("stride")
}

/// A size integer that counts rows (`M`, `n_rows`, `num_rows`).
fn is_row_count(name: &str) -> bool {
    let l = name.to_ascii_lowercase();
    l == "m" || l.contains("rows") || l == "n_row" || l == "batch"
}

/// The tensor a pointer parameter names: `x_ptr` → `x`, `X` → `x`, `Mean` → `mean`.
fn tensor_name(param: &str) -> String {
    let l = param.to_ascii_lowercase();
    let l = l
        .strip_suffix("_ptr")
        .or_else(|| l.strip_suffix("ptr"))
        .filter(|s| !s.is_empty())
        .unwrap_or(&l);
    l.trim_end_matches('_').to_string()
}

/// The pointer a stride parameter belongs to: `X_row_stride`, `stride_x`, `x_stride`
/// → `x_ptr`/`X`; `None` when no pointer's tensor name is one of its words.
fn stride_owner<'p>(stride: &str, params: &'p [Param]) -> Option<&'p Param> {
    let words: Vec<String> = stride
        .to_ascii_lowercase()
        .split('_')
        .filter(|w| !w.is_empty() && !matches!(*w, "stride" | "row" | "col" | "ptr"))
        .map(str::to_string)
        .collect();
    let mut owners = params
        .iter()
        .filter(|p| matches!(p.kind, Kind::Ptr(_)) && words.contains(&tensor_name(&p.name)));
    let first = owners.next()?;
    owners.next().is_none().then_some(first)
}

// ---------------------------------------------------------------------------------------
// Candidates

fn skeletons(params: &[Param], blocks: &[i64], widths: &[i64]) -> Vec<Skeleton> {
    let bmax = blocks.first().copied().unwrap_or(8).max(2);
    let sizes = |pairs: &[(&str, i64)]| -> BTreeMap<String, i64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };
    let mut out = Vec::new();
    let has_ints = params
        .iter()
        .any(|p| matches!(p.kind, Kind::Int { .. }) && p.used);
    // Elementwise: one flat extent N, programs of BLOCK elements.
    if has_ints {
        for &b in blocks {
            out.push(Skeleton {
                family: "elementwise",
                sizes: vec!["N"],
                grid: vec![format!("cdiv(N, {b})")],
                row: "N".into(),
                instances: [
                    sizes(&[("N", 2 * bmax)]),
                    sizes(&[("N", bmax + bmax / 2 + 1)]),
                ],
            });
        }
    }
    // Rows: M rows of N (or of a constant the kernel folded). Rows longer than every
    // block first (a kernel that loops over its row, or tiles it over a grid axis,
    // works there), then rows of at most one block (one block per row needs that).
    let wide = [
        sizes(&[("M", 4), ("N", 2 * bmax)]),
        sizes(&[("M", 3), ("N", 2 * bmax + 3)]),
    ];
    let n_ragged = (bmax - 1).max(1);
    let narrow = [
        sizes(&[("M", 4), ("N", bmax)]),
        sizes(&[("M", if n_ragged == 3 { 5 } else { 3 }), ("N", n_ragged)]),
    ];
    let constant = [sizes(&[("M", 4)]), sizes(&[("M", 3)])];
    let mut rows: Vec<(String, [BTreeMap<String, i64>; 2])> = Vec::new();
    if has_ints {
        rows.push(("N".into(), wide));
        rows.push(("N".into(), narrow));
    }
    rows.extend(widths.iter().map(|w| (w.to_string(), constant.clone())));
    for (row, instances) in rows {
        let symbolic = row == "N";
        // Fewest programs first: several rows per program, one row, then a second axis
        // over the row's blocks.
        let mut grids: Vec<(Vec<String>, i64)> = blocks
            .iter()
            .map(|&b| (vec![format!("cdiv(M, {b})")], b))
            .collect();
        grids.push((vec!["M".to_string()], 1));
        for &b in blocks {
            grids.push((vec!["M".to_string(), format!("cdiv({row}, {b})")], 1));
            grids.push((vec![format!("cdiv({row}, {b})"), "M".to_string()], 1));
        }
        for (grid, rows_per_program) in grids {
            // Several rows per program: at least two programs on both instances (2b
            // rows, and a ragged 2b - 1), or a program taking more rows than the
            // kernel's block would look right with every row in the first program.
            let mut instances = instances.clone();
            if rows_per_program > 1 {
                let [even, ragged] = &mut instances;
                even.insert("M".into(), (2 * rows_per_program).max(4));
                ragged.insert("M".into(), (2 * rows_per_program - 1).max(3));
            }
            out.push(Skeleton {
                family: if symbolic {
                    "row kernel"
                } else {
                    "row kernel, constant row length"
                },
                sizes: if symbolic { vec!["M", "N"] } else { vec!["M"] },
                grid,
                row: row.clone(),
                instances,
            });
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// Trying a skeleton

fn try_skeleton(
    module: &Module,
    file: &str,
    params: &[Param],
    sk: &Skeleton,
) -> Result<String, String> {
    // Integer bindings: sizes by name, strides the row length (refined below), unused 0.
    let mut ints: BTreeMap<String, String> = BTreeMap::new();
    for p in params {
        if let Kind::Int { bits } = p.kind {
            let v = if !p.used {
                "0".to_string()
            } else if bits == 1 || p.flag {
                "1".to_string()
            } else if is_stride(&p.name) {
                sk.row.clone()
            } else if sk.sizes.contains(&"M") && is_row_count(&p.name) {
                "M".to_string()
            } else {
                sk.row.clone()
            };
            ints.insert(p.name.clone(), v);
        }
    }
    let ragged = &sk.instances[1];
    let mut seen = probe(module, file, params, sk, &ints, ragged)?;
    // A stride that steps whole rows through a tensor with one element per row is 1.
    let row_len = eval_in(&sk.row, ragged);
    let mut changed = false;
    for p in params {
        if !(matches!(p.kind, Kind::Int { .. }) && p.used && is_stride(&p.name)) {
            continue;
        }
        let Some(owner) = stride_owner(&p.name, params) else {
            continue;
        };
        let s = &seen[&owner.name];
        let all: BTreeSet<usize> = s.read.union(&s.written).copied().collect();
        if all.len() > 1 && row_len > 1 && all.iter().all(|o| o % row_len as usize == 0) {
            ints.insert(p.name.clone(), "1".into());
            changed = true;
        }
    }
    if changed {
        seen = probe(module, file, params, sk, &ints, ragged)?;
    }
    // Shapes: the smallest candidate holding every access; roles from the probe.
    let mut guesses = BTreeMap::new();
    for p in params {
        let Kind::Ptr(_) = p.kind else { continue };
        let s = &seen[&p.name];
        let extent = s.read.iter().chain(&s.written).max().map_or(0, |m| m + 1);
        let shape = smallest_shape(sk, extent).ok_or_else(|| {
            format!(
                "`{}` is accessed up to element {} (flat), beyond every shape tried",
                p.name,
                extent.saturating_sub(1)
            )
        })?;
        guesses.insert(
            p.name.clone(),
            TensorGuess {
                shape,
                role: s.role,
            },
        );
    }
    for size in &sk.sizes {
        if !guesses.values().any(|g| g.shape.iter().any(|d| d == size)) {
            return Err(format!("no tensor's shape uses the size {size}"));
        }
    }
    let text = render(params, sk, &ints, &guesses);
    let launch = Launch::parse(&text, "<inferred launch>").map_err(|e| e.message)?;
    for inst_sizes in &sk.instances {
        validate(module, &launch, inst_sizes)?;
    }
    Ok(text)
}

fn smallest_shape(sk: &Skeleton, extent: usize) -> Option<Vec<String>> {
    let ragged = &sk.instances[1];
    let mut cands: Vec<Vec<String>> = vec![vec!["1".into()]];
    if sk.sizes.contains(&"M") {
        cands.push(vec!["M".into()]);
        cands.push(vec![sk.row.clone()]);
        cands.push(vec!["M".into(), sk.row.clone()]);
    } else {
        cands.push(vec![sk.row.clone()]);
    }
    smallest_holding(cands, ragged, extent)
}

fn render(
    params: &[Param],
    sk: &Skeleton,
    ints: &BTreeMap<String, String>,
    guesses: &BTreeMap<String, TensorGuess>,
) -> String {
    let mut t = String::new();
    let grid: Vec<String> = sk.grid.iter().map(|g| toml_dim(g)).collect();
    let _ = writeln!(t, "grid = [{}]", grid.join(", "));
    let sizes: Vec<String> = sk.instances[0]
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    let _ = writeln!(t, "sizes = {{ {} }}", sizes.join(", "));
    let _ = writeln!(t, "\n[args]");
    for p in params {
        let key = toml_key(&p.name);
        match &p.kind {
            Kind::Ptr(dtype) => {
                let g = &guesses[&p.name];
                let _ = writeln!(t, "{}", tensor_line(&key, &tensor_name(&p.name), g, *dtype));
            }
            Kind::Float => {
                let _ = writeln!(t, "{key} = {{ scalar = \"{}\" }}", p.name);
            }
            Kind::Int { .. } => {
                let v = &ints[&p.name];
                let note = if p.used {
                    ""
                } else {
                    "  # unused by the kernel"
                };
                let _ = writeln!(t, "{key} = {}{note}", toml_dim(v));
            }
        }
    }
    t
}

/// Run the skeleton with every tensor a large flat buffer: which elements each reads
/// and writes.
fn probe(
    module: &Module,
    file: &str,
    params: &[Param],
    sk: &Skeleton,
    ints: &BTreeMap<String, String>,
    sizes: &BTreeMap<String, i64>,
) -> Result<BTreeMap<String, Seen>, String> {
    let keys: Vec<String> = params
        .iter()
        .filter(|p| matches!(p.kind, Kind::Ptr(_)))
        .map(|p| p.name.clone())
        .collect();
    settle_roles(&keys, tensor_name, |roles| {
        let flat = roles
            .iter()
            .map(|(k, r)| {
                let g = TensorGuess {
                    shape: vec![PROBE_ELEMS.to_string()],
                    role: *r,
                };
                (k.clone(), g)
            })
            .collect();
        run_recorded(module, file, &render(params, sk, ints, &flat), sizes)
    })
}

fn run_recorded(
    module: &Module,
    file: &str,
    text: &str,
    sizes: &BTreeMap<String, i64>,
) -> Result<BTreeMap<String, Seen>, Fault> {
    let launch = Launch::parse(text, "<probe launch>").map_err(|e| Fault::Other(e.message))?;
    let inst = launch
        .instantiate(sizes)
        .map_err(|e| Fault::Other(e.message))?;
    let mut domain = Recording::new(&inst);
    let run = exec::execute(module, &inst, &mut domain).map_err(|e| match e.kind {
        exec::ErrorKind::NeverWritten => Fault::NeverWritten(
            e.message
                .split("output `")
                .nth(1)
                .and_then(|s| s.split('`').next())
                .map(str::to_string),
        ),
        _ => Fault::Other(format!("{file}:{}: {e}", e.line)),
    })?;
    Ok(seen_by_arg(&launch, &inst, &domain.reads, &run.outputs))
}

/// Run the proposed launch at `sizes`: every access in bounds, every `out`/`inout` element
/// written, none by two programs.
fn validate(module: &Module, launch: &Launch, sizes: &BTreeMap<String, i64>) -> Result<(), String> {
    let at = sizes
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let inst = launch.instantiate(sizes).map_err(|e| e.message)?;
    let mut domain = Recording::new(&inst);
    let run = exec::execute(module, &inst, &mut domain).map_err(|e| format!("at {at}: {e}"))?;
    if let Some(w) = &run.written_twice {
        return Err(format!("at {at}: {w}"));
    }
    every_element_written(&run.outputs, &at)
}
