//! Launch inference for PTX kernels (NVRTC's CUDA C++).
//!
//! PTX keeps no parameter names, so roles come from types and uses: a 64-bit parameter
//! whose value reaches a global address (through `cvta`, `add`, a `mad`'s addend) is a
//! tensor, whose dtype the accesses' types give; `.f32`/`.f64` parameters are symbolic
//! scalars; other integers are sizes. `blockDim` is a runtime value, so the block is a
//! guess too: `.reqntid`/`.maxntid` when given, else the element count of a shared
//! array (a kernel sized `s[128]` for 128 threads), then 32, 64, 128, 256 (only 32
//! when the threads never cooperate). A kernel reading `%tid.y` and the like (2-D) or
//! taking a struct by value is refused rather than run degenerate. Families, per
//! block B: elementwise (`grid = cdiv(N, B)`, or `cdiv(N, 2B)`, `cdiv(N, 4B)` for
//! vector loads; also a block reduction's `cdiv(N, B)` outputs), one thread per row
//! (`cdiv(M, B)`), one CTA per row (`M`; rows longer than, at most, or exactly 1, 2 or
//! 4 blocks). Integers are matched to the sizes in every order; the ragged instance
//! and an idle last CTA (a grid larger than the work) reject a wrong match.
//!
//! Besides the shared checks, a validation run logs races: an element written by two
//! threads rejects the skeleton; any other race is the kernel's own fault, left for
//! `lift race`/`check` to report (a racy wrong twin must still get a launch).

use super::*;
use crate::exec::{Clash, ErrorKind, Execution};
use crate::launch::Dtype;
use crate::ptx::ast::{Entry, Instr, Module, Operand, Space, Special};
use crate::ptx::{launch_arg_order, type_bytes};

/// Block sizes tried when the entry fixes none and no shared array suggests one.
const BLOCKS: [i64; 4] = [32, 64, 128, 256];

/// Integer parameters matched to sizes in every order up to this many.
const MAX_INTS: usize = 4;

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Ptr(Dtype),
    Int,
    Float,
    /// Never loaded: bound to 0.
    Unused,
}

#[derive(Clone, Debug)]
struct Param {
    key: String,
    kind: Kind,
}

/// One guess: a block, a grid, and a value for every used integer parameter.
#[derive(Clone, Debug)]
struct Skeleton {
    family: &'static str,
    block: i64,
    grid: String,
    sizes: Vec<&'static str>,
    ints: BTreeMap<String, String>,
    /// Shapes a tensor may take; the smallest holding every access is chosen.
    shapes: Vec<Vec<String>>,
    instances: [BTreeMap<String, i64>; 2],
}

/// Infer a launch for the PTX kernel `module` (its first `.entry`, read from `file`).
pub fn infer(module: &Module, file: &str) -> Result<Inferred, Error> {
    let entry = module
        .entry(None)
        .ok_or_else(|| Error::Usage(format!("{file}: the PTX file has no .entry")))?;
    let refuse = |why: String| {
        Error::Usage(format!(
            "{file}: no launch description, and none could be inferred: {why}\n  write a launch file (kernel.launch.toml beside the kernel, or --launch FILE; format in docs/launch.md; PTX parameters may be named param_0, param_1, ...)"
        ))
    };
    if let Some(p) = entry.params.iter().find(|p| p.array.is_some()) {
        return Err(refuse(format!(
            "parameter `{}` is a struct passed by value, whose fields inference cannot read",
            p.name
        )));
    }
    if let Some(axis) = second_axis(entry) {
        return Err(refuse(format!(
            "the kernel reads `{axis}` (and no `.z` register), so it expects a 2-D launch; inference guesses 1-D launches only"
        )));
    }
    let params = params(entry);
    let blocks = blocks(module, entry).map_err(refuse)?;
    let ints: Vec<String> = params
        .iter()
        .filter(|p| p.kind == Kind::Int)
        .map(|p| p.key.clone())
        .collect();
    if ints.len() > MAX_INTS {
        return Err(refuse(format!(
            "{} integer parameters; inference matches at most {MAX_INTS} to sizes",
            ints.len()
        )));
    }
    if !params.iter().any(|p| matches!(p.kind, Kind::Ptr(_))) {
        return Err(refuse("no parameter is used as a global pointer".into()));
    }
    let mut failures: Vec<(String, String)> = Vec::new();
    for &b in &blocks {
        for sk in skeletons(b, &ints) {
            match try_skeleton(module, file, &params, &sk) {
                Ok((text, family)) => return Ok(Inferred { text, family }),
                Err(why) => failures.push((describe(&sk), why)),
            }
        }
    }
    let tried: Vec<String> = blocks.iter().map(|b| b.to_string()).collect();
    let families = format!(
        "elementwise, thread-per-row or CTA-per-row (blocks {})",
        tried.join(", ")
    );
    let unbound: Vec<String> = ints.iter().map(|k| format!("`{k}`")).collect();
    Err(Error::Usage(no_launch_message(
        file,
        &families,
        &unbound,
        &failures,
        "`block = [128]`, `grid = [\"M\"]`, `[args] param_0 = { tensor = \"x\", shape = [\"M\", \"N\"] }`, `param_2 = \"N\"`",
    )))
}

fn describe(sk: &Skeleton) -> String {
    let ints: Vec<String> = sk.ints.values().cloned().collect();
    format!(
        "{} (block {}, grid [{}], integers [{}])",
        sk.family,
        sk.block,
        sk.grid,
        ints.join(", ")
    )
}

// ---------------------------------------------------------------------------------------
// Reading the kernel

fn reg(o: &Operand) -> Option<u32> {
    match o {
        Operand::Reg(r) => Some(*r),
        _ => None,
    }
}

/// The register an address operand `[%rd+off]` is based on.
fn base(o: &Operand) -> Option<u32> {
    match o {
        Operand::Mem { base, .. } => reg(base),
        _ => None,
    }
}

/// A global or generic memory access: its address operand and its type.
fn global_access(i: &Instr) -> Option<(&Operand, &str)> {
    let mem = matches!(
        i.op.as_str(),
        "ld" | "st" | "atom" | "red" | "prefetch" | "cp"
    );
    if !mem
        || ["shared", "local", "param", "const"]
            .iter()
            .any(|s| i.has(s))
    {
        return None;
    }
    let addr = i.operands.iter().find(|o| base(o).is_some())?;
    let ty = i
        .mods
        .iter()
        .rev()
        .find(|m| type_bytes(m).is_some())
        .map_or("", |s| s.as_str());
    Some((addr, ty))
}

/// The registers `ld.param` fills from parameter `name`.
fn loaded_from<'e>(entry: &'e Entry, name: &'e str) -> impl Iterator<Item = u32> + 'e {
    entry.body.iter().filter_map(move |i| {
        let from_param = i.op == "ld" && i.has("param");
        let hit = i.operands.get(1).is_some_and(
            |o| matches!(o, Operand::Mem { base, .. } if **base == Operand::Sym(name.to_string())),
        );
        (from_param && hit)
            .then(|| i.operands.first().and_then(reg))
            .flatten()
    })
}

/// The registers holding an address derived from `seeds`: moved, converted
/// (`cvta`), offset (`add`/`sub`) or a `mad`'s addend. Not through `mul`: a size
/// scales an offset, never an address.
fn addresses(entry: &Entry, seeds: &[u32]) -> BTreeSet<u32> {
    let mut set: BTreeSet<u32> = seeds.iter().copied().collect();
    loop {
        let before = set.len();
        for i in &entry.body {
            let Some(dst) = i.operands.first().and_then(reg) else {
                continue;
            };
            let srcs: &[Operand] = match i.op.as_str() {
                "mov" | "cvta" | "add" | "sub" => &i.operands[1..],
                "mad" if i.operands.len() == 4 => &i.operands[3..],
                _ => continue,
            };
            if srcs.iter().filter_map(reg).any(|r| set.contains(&r)) {
                set.insert(dst);
            }
        }
        if set.len() == before {
            return set;
        }
    }
}

/// A `.y` special register the kernel reads (`%tid.y`, ...) when it reads no `.z` one:
/// a 2-D kernel, which a 1-D launch would run degenerate (one row of a matmul) and
/// still validate. Cooperative groups' linear ranks read all three axes and are 1-D.
fn second_axis(entry: &Entry) -> Option<String> {
    let axis = |o: &Operand| match o {
        Operand::Special(Special::Tid(d)) => Some(("tid", *d)),
        Operand::Special(Special::Ntid(d)) => Some(("ntid", *d)),
        Operand::Special(Special::Ctaid(d)) => Some(("ctaid", *d)),
        Operand::Special(Special::Nctaid(d)) => Some(("nctaid", *d)),
        _ => None,
    };
    let read: Vec<(&str, u8)> = entry
        .body
        .iter()
        .flat_map(|i| &i.operands)
        .filter_map(axis)
        .collect();
    if read.iter().any(|(_, d)| *d == 2) {
        return None;
    }
    read.iter()
        .find(|(_, d)| *d == 1)
        .map(|(name, _)| format!("%{name}.y"))
}

fn params(entry: &Entry) -> Vec<Param> {
    entry
        .params
        .iter()
        .map(|p| {
            let seeds: Vec<u32> = loaded_from(entry, &p.name).collect();
            let wide = p.is_ptr || matches!(p.ty.as_str(), "u64" | "s64" | "b64");
            let kind = if seeds.is_empty() {
                Kind::Unused
            } else if matches!(p.ty.as_str(), "f32" | "f64") {
                Kind::Float
            } else if wide {
                let addrs = addresses(entry, &seeds);
                let types: Vec<&str> = entry
                    .body
                    .iter()
                    .filter_map(global_access)
                    .filter(|(a, _)| base(a).is_some_and(|r| addrs.contains(&r)))
                    .map(|(_, t)| t)
                    .collect();
                if types.is_empty() {
                    Kind::Int
                } else {
                    Kind::Ptr(dtype_of(&types, entry))
                }
            } else {
                Kind::Int
            };
            Param {
                key: p.name.clone(),
                kind,
            }
        })
        .collect()
}

/// A tensor's dtype from the types of its accesses: a float type wins (a float
/// tensor may be zeroed by `st.u32 0`), then the widest integer.
fn dtype_of(types: &[&str], entry: &Entry) -> Dtype {
    let has = |t: &str| types.contains(&t);
    if has("f64") {
        return Dtype::F64;
    }
    if has("f32") || has("f16x2") || has("bf16x2") {
        return Dtype::F32;
    }
    if has("f16") {
        return Dtype::F16;
    }
    if has("bf16") {
        return Dtype::Bf16;
    }
    let width = types
        .iter()
        .filter_map(|t| type_bytes(t))
        .max()
        .unwrap_or(4);
    let signed = types.iter().any(|t| t.starts_with('s'));
    // Half floats travel as `b16`/`u16` and are converted by `cvt.f32.f16`.
    let halves = entry
        .body
        .iter()
        .any(|i| i.op == "cvt" && i.has("f16") && i.has("f32"));
    match width {
        8 => Dtype::I64,
        2 if halves => Dtype::F16,
        2 => Dtype::I16,
        1 if signed => Dtype::I8,
        1 => Dtype::U8,
        _ if types.iter().all(|t| t.starts_with('b')) => Dtype::F32,
        _ => Dtype::I32,
    }
}

/// Whether the kernel's threads work together (barriers, shared memory, warp
/// collectives). Threads that never do compute the same whatever the block size, so
/// only the smallest block is tried for them: a larger one only makes runs slower.
fn cooperates(module: &Module, entry: &Entry) -> bool {
    let shared = |v: &crate::ptx::ast::VarDecl| v.space == Space::Shared;
    module.globals.iter().chain(&entry.vars).any(shared)
        || entry.body.iter().any(|i| {
            matches!(
                i.op.as_str(),
                "bar" | "barrier" | "shfl" | "vote" | "redux" | "match" | "activemask"
            ) || i.has("shared")
        })
}

/// The block sizes to try: the entry's `.reqntid`/`.maxntid`, else shared arrays'
/// element counts (powers of two from 32), then [`BLOCKS`] (only the first for threads
/// that never cooperate).
fn blocks(module: &Module, entry: &Entry) -> Result<Vec<i64>, String> {
    if let Some(b) = entry.reqntid.or(entry.maxntid) {
        if b[1] > 1 || b[2] > 1 {
            return Err(format!(
                "the entry asks for a {}x{}x{} block; inference reads 1-D blocks only",
                b[0], b[1], b[2]
            ));
        }
        return Ok(vec![b[0]]);
    }
    let mut out: Vec<i64> = Vec::new();
    for v in module.globals.iter().chain(&entry.vars) {
        if v.space != Space::Shared || v.dynamic {
            continue;
        }
        // NVRTC declares `float s[128]` as `.align 4 .b8 s[512]`: the alignment is
        // the element size.
        let elem = type_bytes(&v.ty).unwrap_or(1).max(v.align).max(1);
        let n = (v.bytes / elem) as i64;
        if (32..=1024).contains(&n) && n.count_ones() == 1 && !out.contains(&n) {
            out.push(n);
        }
    }
    let tried = if cooperates(module, entry) {
        &BLOCKS[..]
    } else {
        &BLOCKS[..1]
    };
    for &b in tried {
        if !out.contains(&b) {
            out.push(b);
        }
    }
    Ok(out)
}

// ---------------------------------------------------------------------------------------
// Candidates

/// Every map of `ints` to `names` using each of `need`, in order (`names` order first).
fn assignments(ints: &[String], names: &[&str], need: &[&str]) -> Vec<BTreeMap<String, String>> {
    let mut out = Vec::new();
    let total = names.len().pow(ints.len() as u32);
    for code in 0..total {
        let mut c = code;
        let mut picks = vec![0usize; ints.len()];
        // Most significant first, so the first parameter varies slowest.
        for slot in picks.iter_mut().rev() {
            *slot = c % names.len();
            c /= names.len();
        }
        let m: BTreeMap<String, String> = ints
            .iter()
            .zip(&picks)
            .map(|(k, &p)| (k.clone(), names[p].to_string()))
            .collect();
        if need.iter().all(|n| m.values().any(|v| v == n)) {
            out.push(m);
        }
    }
    out
}

fn skeletons(b: i64, ints: &[String]) -> Vec<Skeleton> {
    let sizes = |pairs: &[(&str, i64)]| -> BTreeMap<String, i64> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    };
    let dims = |ds: &[&str]| -> Vec<String> { ds.iter().map(|d| d.to_string()).collect() };
    let mut out = Vec::new();
    // Elementwise with 1, 2 or 4 elements per thread (vector loads), and a block
    // reduction's one output per CTA.
    if !ints.is_empty() {
        for k in [1, 2, 4] {
            let per_cta = format!("cdiv(N, {})", k * b);
            out.push(Skeleton {
                family: match k {
                    1 => "elementwise",
                    2 => "elementwise, 2 elements per thread",
                    _ => "elementwise, 4 elements per thread",
                },
                block: b,
                grid: per_cta.clone(),
                sizes: vec!["N"],
                ints: ints.iter().map(|k| (k.clone(), "N".to_string())).collect(),
                shapes: vec![dims(&["1"]), vec![per_cta], dims(&["N"])],
                instances: [
                    sizes(&[("N", 2 * k * b)]),
                    sizes(&[("N", k * b + k * b / 2 + 1)]),
                ],
            });
        }
    }
    let row_shapes = |n: &str| vec![dims(&["1"]), dims(&["M"]), dims(&[n]), dims(&["M", n])];
    // One thread per row: at least two CTAs on both instances.
    for ints in assignments(ints, &["M", "N"], &["M", "N"]) {
        out.push(Skeleton {
            family: "one thread per row",
            block: b,
            grid: format!("cdiv(M, {b})"),
            sizes: vec!["M", "N"],
            ints,
            shapes: row_shapes("N"),
            instances: [
                sizes(&[("M", 2 * b), ("N", 3)]),
                sizes(&[("M", b + 3), ("N", 5)]),
            ],
        });
    }
    // One CTA per row: rows longer than the block (threads stride over columns), then
    // rows of at most one block; then rows of a constant length of 1, 2 or 4 blocks (a
    // kernel that reads `row[threadIdx.x]`, `row[threadIdx.x + 32]` unguarded), where
    // the row length is a literal.
    let n_ragged = if b - 1 == 3 { 2 } else { b - 1 };
    for inst in [[(4, 2 * b), (3, 2 * b + 3)], [(4, b), (3, n_ragged)]] {
        for ints in assignments(ints, &["M", "N"], &["N"]) {
            out.push(Skeleton {
                family: "one CTA per row",
                block: b,
                grid: "M".into(),
                sizes: vec!["M", "N"],
                ints,
                shapes: row_shapes("N"),
                instances: [
                    sizes(&[("M", inst[0].0), ("N", inst[0].1)]),
                    sizes(&[("M", inst[1].0), ("N", inst[1].1)]),
                ],
            });
        }
    }
    for k in [1, 2, 4] {
        let n = (k * b).to_string();
        let mut maps = assignments(ints, &["M", &n], &[&n]);
        if ints.is_empty() {
            maps.push(BTreeMap::new());
        }
        for ints in maps {
            out.push(Skeleton {
                family: "one CTA per row, constant row length",
                block: b,
                grid: "M".into(),
                sizes: vec!["M"],
                ints,
                shapes: row_shapes(&n),
                instances: [sizes(&[("M", 4)]), sizes(&[("M", 3)])],
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
) -> Result<(String, &'static str), String> {
    let ragged = &sk.instances[1];
    let keys: Vec<String> = params
        .iter()
        .filter(|p| matches!(p.kind, Kind::Ptr(_)))
        .map(|p| p.key.clone())
        .collect();
    // Probe tensors are named after their parameter's position: `t<i>`.
    let probe_name = |k: &str| {
        let i = params.iter().position(|p| p.key == k).unwrap_or(0);
        format!("t{i}")
    };
    let seen = settle_roles(&keys, probe_name, |roles| {
        let flat: BTreeMap<String, (String, TensorGuess)> = roles
            .iter()
            .map(|(k, r)| {
                let g = TensorGuess {
                    shape: vec![PROBE_ELEMS.to_string()],
                    role: *r,
                };
                (k.clone(), (probe_name(k), g))
            })
            .collect();
        let text = render(params, sk, &flat);
        run(module, file, &text, ragged, Mode::Values).map(|(seen, _)| seen)
    })?;
    // Names: one input `x` → `y`; otherwise inputs x, y, z, ... and outputs out, out2, ...
    let inputs: Vec<&String> = keys.iter().filter(|k| seen[*k].role != Role::Out).collect();
    let in_names = ["x", "y", "z", "w", "v", "u"];
    let mut guesses = BTreeMap::new();
    let mut outs = 0;
    for (i, k) in keys.iter().enumerate() {
        let s = &seen[k];
        let extent = s.read.iter().chain(&s.written).max().map_or(0, |m| m + 1);
        let shape =
            smallest_holding(sk.shapes.iter().cloned(), ragged, extent).ok_or_else(|| {
                format!(
                    "`{k}` is accessed up to element {} (flat), beyond every shape tried",
                    extent.saturating_sub(1)
                )
            })?;
        let name = if s.role == Role::Out {
            outs += 1;
            match (inputs.len(), outs) {
                (1, 1) => "y".to_string(),
                (1, n) => format!("y{n}"),
                (_, 1) => "out".to_string(),
                (_, n) => format!("out{n}"),
            }
        } else {
            let at = inputs.iter().position(|x| *x == k).unwrap_or(i);
            in_names
                .get(at)
                .map_or_else(|| format!("x{at}"), |s| s.to_string())
        };
        let role = s.role;
        guesses.insert(k.clone(), (name, TensorGuess { shape, role }));
    }
    for size in &sk.sizes {
        if !guesses
            .values()
            .any(|(_, g)| g.shape.iter().any(|d| d == size))
        {
            return Err(format!("no tensor's shape uses the size {size}"));
        }
    }
    let text = render(params, sk, &guesses);
    for sizes in &sk.instances {
        validate(module, file, &text, sizes)?;
    }
    // An elementwise grid whose size is also an output's: one output per CTA.
    let per_cta = sk.sizes == ["N"] && guesses.values().any(|(_, g)| g.shape.contains(&sk.grid));
    let family = if per_cta {
        "block reduction, one output per CTA"
    } else {
        sk.family
    };
    Ok((text, family))
}

fn render(
    params: &[Param],
    sk: &Skeleton,
    tensors: &BTreeMap<String, (String, TensorGuess)>,
) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "block = [{}]", sk.block);
    let _ = writeln!(t, "grid = [{}]", toml_dim(&sk.grid));
    let sizes: Vec<String> = sk.instances[0]
        .iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect();
    let _ = writeln!(t, "sizes = {{ {} }}", sizes.join(", "));
    let _ = writeln!(t, "\n[args]");
    let mut scalars = 0;
    for p in params {
        let key = toml_key(&p.key);
        match &p.kind {
            Kind::Ptr(dtype) => {
                let (name, g) = &tensors[&p.key];
                let _ = writeln!(t, "{}", tensor_line(&key, name, g, *dtype));
            }
            Kind::Float => {
                let _ = writeln!(t, "{key} = {{ scalar = \"s{scalars}\" }}");
                scalars += 1;
            }
            Kind::Int => {
                let _ = writeln!(t, "{key} = {}", toml_dim(&sk.ints[&p.key]));
            }
            Kind::Unused => {
                let _ = writeln!(t, "{key} = 0  # unused by the kernel");
            }
        }
    }
    t
}

/// How a run goes: values only, logging races, or only the grid's last CTA.
#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Values,
    Races,
    LastCta,
}

/// Run `text` at `sizes`, recording reads and writes per parameter.
fn run(
    module: &Module,
    file: &str,
    text: &str,
    sizes: &BTreeMap<String, i64>,
    mode: Mode,
) -> Result<(BTreeMap<String, Seen>, Execution<f64>), Fault> {
    let races = mode == Mode::Races;
    let launch = Launch::parse(text, "<probe launch>").map_err(|e| Fault::Other(e.message))?;
    let mut inst = launch
        .instantiate(sizes)
        .map_err(|e| Fault::Other(e.message))?;
    if mode == Mode::LastCta {
        inst.cta = Some([inst.grid[0] - 1, 0, 0]);
    }
    let mut domain = Recording::new(&inst);
    domain.races = races;
    let order = launch_arg_order(text);
    let run = match crate::ptx::execute(module, &inst, &order, &mut domain) {
        Ok(run) => run,
        Err(e) => {
            let tensor =
                quoted_tensor(&e.message).filter(|t| inst.tensors.iter().any(|x| &x.name == t));
            return Err(match e.kind {
                ErrorKind::NeverWritten if tensor.is_some() => Fault::NeverWritten(tensor),
                ErrorKind::Race => Fault::Race(
                    format!("{file}:{}: {e}", e.line),
                    e.clash.unwrap_or(Clash::Other),
                ),
                // A values-only run reads unsynchronised memory as unwritten: a run
                // that logs races says whether a race is the cause.
                _ if !races => match run(module, file, text, sizes, Mode::Races) {
                    Err(Fault::Race(m, c)) => Fault::Race(m, c),
                    _ => Fault::Other(format!("{file}:{}: {e}", e.line)),
                },
                _ => Fault::Other(format!("{file}:{}: {e}", e.line)),
            });
        }
    };
    let seen = seen_by_arg(&launch, &inst, &domain.reads, &run.outputs);
    Ok((seen, run))
}

/// Run the proposed launch at `sizes`: every access in bounds and every `out`/`inout`
/// element written (a values-only run), no element written by two threads (a run
/// that logs races; a race of another kind is the kernel's, not the launch's), and
/// the last CTA writing something.
fn validate(
    module: &Module,
    file: &str,
    text: &str,
    sizes: &BTreeMap<String, i64>,
) -> Result<(), String> {
    let at = sizes
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ");
    let fault = |f: Fault| match f {
        Fault::NeverWritten(_) => format!("at {at}: an output is read before it is written"),
        Fault::Race(m, _) => format!("at {at}: the kernel races: {m}"),
        Fault::Other(m) => format!("at {at}: {m}"),
    };
    let (_, run_) = run(module, file, text, sizes, Mode::Values).map_err(fault)?;
    every_element_written(&run_.outputs, &at)?;
    // Two plain writes to one global element: an output written twice.
    if let Err(Fault::Race(m, Clash::GlobalWrites)) = run(module, file, text, sizes, Mode::Races) {
        return Err(format!(
            "at {at}: an output element is written by two threads: {m}"
        ));
    }
    // A grid larger than the work the kernel sees (sizes bound to the wrong integers:
    // `m` rows launched as N) leaves its last CTA idle. A last CTA that cannot run
    // alone (it reads what others write) is not judged.
    if let Ok((_, last)) = run(module, file, text, sizes, Mode::LastCta) {
        let writes = last
            .outputs
            .iter()
            .flat_map(|o| &o.writers)
            .any(Option::is_some);
        if !writes {
            return Err(format!(
                "at {at}: the grid's last CTA writes nothing, so the grid is larger than the work the kernel is given"
            ));
        }
    }
    Ok(())
}
