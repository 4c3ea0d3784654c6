//! The CTA simulator: every thread of a CTA over one instruction list, with per-thread
//! registers, shared memory, barriers, warp shuffles and race detection.
//!
//! Scheduling: threads run round-robin, each until it blocks (at `bar.sync`, a warp
//! barrier or a warp collective such as `shfl.sync`) or returns; blocked groups are
//! released when complete. A barrier that can never complete is a `Deadlock`.
//!
//! Races: every shared and global access is logged with its thread, instruction and
//! the thread's synchronisation state. Two accesses to the same bytes by different
//! threads, one a write, conflict unless a `bar.sync` of the CTA lies between them or
//! (same warp) a chain of `bar.warp.sync`s orders them (vector clocks over the lanes of
//! a warp). Warp-synchronous execution is never assumed. Because a race-free run has
//! one result whatever the schedule, one schedule suffices.
//!
//! Asynchronous copies: `cp.async` reads global memory at issue and queues its shared
//! write in the thread's open group; the write lands (and is logged) at the
//! `cp.async.wait_group`/`wait_all` covering its group, and is also logged at issue,
//! since it may land any time in between, so another thread's access in between
//! races with it; the issuing thread's own access in between is reported as a race
//! too (it may see either value). Copies never waited for land at the thread's exit,
//! unordered with every later access of other threads. `ldmatrix` is a warp collective reading 32-bit words.

use super::ast::*;
use super::parser::type_bytes;
use crate::exec::domain::{Binary, Domain, Precision, Truth};
use crate::exec::{ErrorKind, ExecError, Execution, StoreSite, MAX_OPS};
use crate::launch::{ArgValue, Instance, Role};
use crate::term::{CmpOp, Func};
use crate::triton_ir::ast::Loc;
use std::collections::HashMap;

/// Shared variables live at `SHARED_BASE..`, below 2^32 (Triton uses 32-bit shared
/// addresses); each thread's `.local` variables at `LOCAL_BASE..`; module `.global`
/// variables at `GVAR_BASE..`; tensor `i` at `(i + 1) << 40`.
const SHARED_BASE: u64 = 0x1000;
const LOCAL_BASE: u64 = 0x4000_0000;
const GVAR_BASE: u64 = 1 << 36;
const TENSOR_SHIFT: u32 = 40;
/// Bytes per tensor element (the launch's tensors are float32).
const ELEM_BYTES: u64 = 4;

/// The keys of the `[args]` table of a launch file, in file order (Triton's launches
/// name PTX parameters by position: the i-th key is `<kernel>_param_<i>`).
pub fn launch_arg_order(launch_text: &str) -> Vec<String> {
    let mut in_args = false;
    let mut out = Vec::new();
    for line in launch_text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_args = line.trim_start_matches('[').trim_end_matches(']').trim() == "args";
            continue;
        }
        if !in_args || line.starts_with('#') {
            continue;
        }
        if let Some((key, _)) = line.split_once('=') {
            let key = key.trim().trim_matches('"').trim_matches('\'');
            if !key.is_empty() {
                out.push(key.to_string());
            }
        }
    }
    out
}

/// A register value: raw bits (integers, addresses, float bit patterns), a real of the
/// domain, a decided predicate, an undecided predicate of the domain, or integer bits
/// that depend on the data (an opaque term of the domain: bit tricks on a float, a
/// float→int conversion, a load at a data-dependent local address).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Val<V> {
    Bits(u64),
    Float(V),
    Pred(bool),
    Cond(V),
    Sym(V),
}

/// A thread's private state, as saved around the two paths of a data-dependent branch.
#[derive(Clone)]
struct Private<V> {
    regs: Vec<Option<Val<V>>>,
    local: HashMap<u64, Val<V>>,
    carry: Option<Val<V>>,
}

/// An address operand.
enum Addr<V> {
    At(u64),
    /// `[param_name]`: the parameter's index.
    Param(usize),
    /// A data-dependent address (an opaque integer) plus a constant offset.
    Sym(V, i64),
}

/// Deepest nesting of data-dependent branches (a data-dependent loop would recurse).
const MAX_BRANCH_DEPTH: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Ready,
    /// Waiting at `bar.sync` (instruction index, barrier id).
    Barrier(usize, i64),
    /// Waiting at `bar.warp.sync` with this lane mask.
    WarpSync(usize, u32),
    /// Waiting at a warp collective (`shfl.sync`, `vote.sync`) with this lane mask.
    Collective(usize, u32),
    Done,
}

struct Thread<V> {
    tid: [i64; 3],
    lane: usize,
    warp: usize,
    pc: usize,
    regs: Vec<Option<Val<V>>>,
    state: State,
    local: HashMap<u64, Val<V>>,
    /// The carry flag (`add.cc`, `mad.lo.cc` → `addc`, `madc`).
    carry: Option<Val<V>>,
    /// Vector clock over the lanes of this thread's warp.
    vc: [u32; 32],
    /// `cp.async` shared writes in flight: the open group, then the committed groups
    /// (oldest first), each a list of (shared address, 32-bit word).
    async_open: Vec<(u64, Val<V>)>,
    async_groups: Vec<Vec<(u64, Val<V>)>>,
}

/// One logged memory access.
#[derive(Clone, Debug)]
struct Rec {
    cta: [i64; 3],
    thread: usize,
    epoch: u32,
    clock: u32,
    write: bool,
    instr: usize,
    addr: u64,
    size: u64,
}

#[derive(Default)]
struct Log {
    reads: Vec<Rec>,
    writes: Vec<Rec>,
}

/// Where an address points.
enum Place {
    Tensor(usize, u64),
    Shared(usize, u64),
    Local(u64),
    /// An initialised module variable (`__cudart_i2opi_f`): variable, byte offset.
    Init(usize, u64),
}

struct Var {
    name: String,
    space: Space,
    addr: u64,
    bytes: u64,
    init: Option<Vec<u8>>,
}

/// Why a step stopped.
enum Flow {
    Next,
    Jump(usize),
    Block(State),
    Exit,
}

type Fail = (ErrorKind, String);

/// A tensor's written elements: value and store site.
type Written<V> = Vec<Option<(V, usize)>>;

/// Marks a race that an earlier read of never-written memory explains better.
const PENDING: &str = "<pending never-written read>";

fn fail<T>(kind: ErrorKind, msg: impl Into<String>) -> Result<T, Fail> {
    Err((kind, msg.into()))
}

fn unsupported<T>(msg: impl Into<String>) -> Result<T, Fail> {
    fail(ErrorKind::Unsupported, msg)
}

fn is_float_ty(ty: &str) -> bool {
    matches!(ty, "f32" | "f64" | "f16" | "bf16" | "tf32")
}

fn width(ty: &str) -> u32 {
    type_bytes(ty).map_or(64, |b| (b * 8) as u32)
}

fn mask_w(x: u64, w: u32) -> u64 {
    if w >= 64 {
        x
    } else {
        x & ((1u64 << w) - 1)
    }
}

fn sext(x: u64, w: u32) -> i64 {
    if w >= 64 {
        x as i64
    } else {
        let s = 64 - w;
        ((x << s) as i64) >> s
    }
}

/// The value of a float bit pattern of the given width.
fn decode_float(bits: u64, w: u32) -> Option<f64> {
    match w {
        32 => Some(f32::from_bits(bits as u32) as f64),
        64 => Some(f64::from_bits(bits)),
        16 => {
            let b = bits as u16;
            let sign = if b >> 15 == 1 { -1.0 } else { 1.0 };
            let e = ((b >> 10) & 0x1f) as i32;
            let m = (b & 0x3ff) as f64;
            Some(match e {
                0 => sign * m * 2f64.powi(-24),
                31 if m == 0.0 => sign * f64::INFINITY,
                31 => f64::NAN,
                _ => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
            })
        }
        _ => None,
    }
}

/// Round an f64 to f32 in a directed mode ("rm", "rp", "rz"; anything else: nearest).
fn round_f32(x: f64, mode: &str) -> f64 {
    let r = x as f32;
    let rd = r as f64;
    if rd == x || !x.is_finite() {
        return rd;
    }
    let down = |r: f32| {
        if r == 0.0 {
            -f32::from_bits(1)
        } else if r > 0.0 {
            f32::from_bits(r.to_bits() - 1)
        } else {
            f32::from_bits(r.to_bits() + 1)
        }
    };
    let up = |r: f32| -down(-r);
    let out = match mode {
        "rm" if rd > x => down(r),
        "rp" if rd < x => up(r),
        "rz" if rd.abs() > x.abs() => {
            if x > 0.0 {
                down(r)
            } else {
                up(r)
            }
        }
        _ => r,
    };
    out as f64
}

/// The immediate post-dominator of every instruction of `entry` (`body.len()` stands
/// for the exit): iterative data flow over bit sets, fine for a few thousand
/// instructions.
fn post_dominators(entry: &Entry) -> Vec<usize> {
    let n = entry.body.len();
    let exit = n;
    let succ = |i: usize| -> Vec<usize> {
        let ins = &entry.body[i];
        let next = i + 1;
        let guarded = ins.guard.is_some();
        match ins.op.as_str() {
            "ret" | "exit" if guarded => vec![exit, next],
            "ret" | "exit" => vec![exit],
            "bra" | "brx" => {
                let to = match ins.operands.first() {
                    Some(Operand::Sym(l)) => entry.labels.get(l).copied().unwrap_or(exit),
                    _ => exit,
                };
                if guarded {
                    vec![to, next]
                } else {
                    vec![to]
                }
            }
            _ => vec![next],
        }
    };
    let words = (n + 1).div_ceil(64);
    let full = vec![u64::MAX; words];
    let mut pdom: Vec<Vec<u64>> = vec![full; n + 1];
    pdom[exit] = vec![0; words];
    pdom[exit][exit / 64] |= 1 << (exit % 64);
    let succs: Vec<Vec<usize>> = (0..n)
        .map(|i| succ(i).into_iter().map(|s| s.min(exit)).collect())
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for i in (0..n).rev() {
            let mut new = vec![u64::MAX; words];
            for &s in &succs[i] {
                for (w, x) in new.iter_mut().zip(&pdom[s]) {
                    *w &= x;
                }
            }
            new[i / 64] |= 1 << (i % 64);
            if new != pdom[i] {
                pdom[i] = new;
                changed = true;
            }
        }
    }
    let count = |v: &Vec<u64>| v.iter().map(|w| w.count_ones()).sum::<u32>();
    (0..n)
        .map(|i| {
            // Post-dominators form a chain: the nearest strict one has the most.
            let mut best = exit;
            let mut best_count = 0;
            for p in 0..=n {
                if p != i && pdom[i][p / 64] >> (p % 64) & 1 == 1 {
                    let c = count(&pdom[p]);
                    if c > best_count {
                        best = p;
                        best_count = c;
                    }
                }
            }
            best
        })
        .collect()
}

/// Run the entry over every CTA of the launch (or only the launch's `cta`).
///
/// `arg_order` is the launch file's `[args]` keys in order (see
/// [`launch_arg_order`]); it binds parameters by position when the launch names them
/// neither `<entry>_param_<i>` nor `param_<i>`.
pub fn execute<D: Domain>(
    module: &Module,
    inst: &Instance,
    arg_order: &[String],
    domain: &mut D,
) -> Result<Execution<D::V>, ExecError> {
    let top = |kind: ErrorKind, message: String| ExecError {
        kind,
        message,
        line: 0,
        loc: Loc::default(),
        program: [0; 3],
    };
    let entry = module
        .entry(None)
        .ok_or_else(|| top(ErrorKind::Malformed, "the module has no .entry".into()))?;
    let block = if inst.block[0] > 0 {
        inst.block
    } else if let Some(b) = entry.reqntid.or(entry.maxntid) {
        b
    } else {
        return Err(top(
            ErrorKind::Launch,
            format!(
                "the launch gives no `block` and .entry {} has no .reqntid/.maxntid; add `block = [N]` to the launch",
                entry.name
            ),
        ));
    };
    let nthreads = block.iter().product::<i64>();
    if !(1..=4096).contains(&nthreads) {
        return Err(top(
            ErrorKind::Launch,
            format!("block {block:?} has {nthreads} threads; expected 1 to 4096"),
        ));
    }
    let params = bind_params(entry, inst, arg_order, domain).map_err(|(kind, m)| ExecError {
        line: entry.line,
        ..top(kind, m)
    })?;

    // Lay out variables.
    let mut vars = Vec::new();
    let (mut shared_end, mut local_end, mut gvar_end) = (SHARED_BASE, LOCAL_BASE, GVAR_BASE);
    for v in module.globals.iter().chain(&entry.vars) {
        let end = match v.space {
            Space::Shared => &mut shared_end,
            Space::Local => &mut local_end,
            _ => &mut gvar_end,
        };
        let align = v.align.max(1);
        let addr = end.div_ceil(align) * align;
        let bytes = if v.dynamic && v.space == Space::Shared {
            inst.dynamic_shared
                .unwrap_or(crate::launch::DEFAULT_DYNAMIC_SHARED)
        } else {
            v.bytes
        };
        *end = addr + bytes;
        vars.push(Var {
            name: v.name.clone(),
            space: v.space,
            addr,
            bytes,
            init: v.init.clone(),
        });
    }

    let ctas: Vec<[i64; 3]> = match inst.cta {
        Some(c) => vec![c],
        None => {
            let mut v = Vec::new();
            for z in 0..inst.grid[2] {
                for y in 0..inst.grid[1] {
                    for x in 0..inst.grid[0] {
                        v.push([x, y, z]);
                    }
                }
            }
            v
        }
    };
    let mut sim = Sim {
        entry,
        inst,
        domain,
        block,
        params,
        vars,
        cta: [0; 3],
        threads: Vec::new(),
        epoch: 0,
        shared: HashMap::new(),
        shared_log: HashMap::new(),
        global: inst.tensors.iter().map(|t| vec![None; t.numel()]).collect(),
        global_log: HashMap::new(),
        inputs: HashMap::new(),
        sites: HashMap::new(),
        store_sites: Vec::new(),
        ops: 0,
        pending: None,
        pending_rec: None,
        branch_depth: 0,
        ipdom: None,
    };
    for cta in ctas {
        sim.run_cta(cta)?;
    }
    Ok(sim.finish())
}

fn bind_params<D: Domain>(
    entry: &Entry,
    inst: &Instance,
    order: &[String],
    domain: &mut D,
) -> Result<Vec<Val<D::V>>, Fail> {
    let named = inst.args.keys().any(|k| {
        entry
            .params
            .iter()
            .enumerate()
            .any(|(i, p)| k == &p.name || k == &format!("param_{i}"))
    });
    let mut used = vec![false; 0];
    let mut found: Vec<Option<(&String, &ArgValue)>> = Vec::new();
    for (i, p) in entry.params.iter().enumerate() {
        let hit = if named || order.is_empty() {
            inst.args
                .get_key_value(&p.name)
                .or_else(|| inst.args.get_key_value(&format!("param_{i}")))
        } else {
            order.get(i).and_then(|k| inst.args.get_key_value(k))
        };
        found.push(hit);
        used.push(hit.is_some());
    }
    for k in inst.args.keys() {
        if !found.iter().flatten().any(|(name, _)| *name == k) {
            let names: Vec<&str> = entry.params.iter().map(|p| p.name.as_str()).collect();
            return fail(
                ErrorKind::Launch,
                format!(
                    "the launch binds `{k}`, which matches no parameter of .entry {} (parameters: {}; name them `<entry>_param_<i>`, `param_<i>`, or list all in order)",
                    entry.name,
                    names.join(", ")
                ),
            );
        }
    }
    let last_bound = used.iter().rposition(|&u| u);
    let mut out = Vec::new();
    for (i, p) in entry.params.iter().enumerate() {
        let w = width(&p.ty);
        let v = match found[i] {
            None if last_bound.is_none_or(|l| i > l) => Val::Bits(0),
            None => {
                return fail(
                    ErrorKind::Launch,
                    format!(
                        "kernel parameter `{}` (.{}) is not bound by the launch; add it (or `param_{i}`) under [args]",
                        p.name, p.ty
                    ),
                )
            }
            Some((_, ArgValue::Tensor(t))) => Val::Bits(((*t as u64) + 1) << TENSOR_SHIFT),
            Some((k, ArgValue::Int(x))) => {
                // The host passes the value in the parameter's type: one that does not
                // fit is a wrong launch, not a value to wrap silently.
                let ty = p.ty.to_string();
                let (lo, hi) = match (ty.as_bytes().first(), w) {
                    (_, 64..) => (i128::from(i64::MIN), i128::from(u64::MAX)),
                    (Some(b's'), _) => (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1),
                    (Some(b'u'), _) => (0, (1i128 << w) - 1),
                    _ => (-(1i128 << (w - 1)), (1i128 << w) - 1),
                };
                if !(lo..=hi).contains(&i128::from(*x)) {
                    return fail(
                        ErrorKind::Launch,
                        format!(
                            "argument `{k}` is {x}, outside the range of parameter `{}` (.{}: {lo}..={hi})",
                            p.name, p.ty
                        ),
                    );
                }
                Val::Bits(mask_w(*x as u64, w))
            }
            Some((_, ArgValue::Value(x))) => {
                // Rounded to the parameter's type, as the host passes it.
                let kind = match p.ty.to_string().as_str() {
                    "f32" => Some(crate::triton_ir::ast::FloatKind::F32),
                    "f16" => Some(crate::triton_ir::ast::FloatKind::F16),
                    _ => None,
                };
                let x = kind.map_or(*x, |k| crate::exec::typed_value(k, *x));
                Val::Float(domain.constant(x))
            }
            Some((k, ArgValue::Scalar(s))) => match domain.param(s) {
                Some(v) => Val::Float(v),
                None => {
                    return fail(
                        ErrorKind::Launch,
                        format!("no value for scalar `{s}` (argument `{k}`); give it with --scalar {s}=VALUE"),
                    )
                }
            },
        };
        out.push(v);
    }
    Ok(out)
}

struct Sim<'a, D: Domain> {
    entry: &'a Entry,
    inst: &'a Instance,
    domain: &'a mut D,
    block: [i64; 3],
    params: Vec<Val<D::V>>,
    vars: Vec<Var>,
    cta: [i64; 3],
    threads: Vec<Thread<D::V>>,
    /// Barrier epoch of the current CTA (bar.sync releases so far).
    epoch: u32,
    shared: HashMap<u64, (Val<D::V>, u64)>,
    shared_log: HashMap<u64, Log>,
    /// Written elements of each tensor: value and store site.
    global: Vec<Written<D::V>>,
    global_log: HashMap<(usize, u64), Log>,
    inputs: HashMap<(usize, u64), D::V>,
    sites: HashMap<usize, usize>,
    store_sites: Vec<StoreSite>,
    ops: u64,
    /// The first read of memory nobody had written: an error unless a later write by
    /// another thread of the same epoch turns it into a race.
    pending: Option<ExecError>,
    /// That read, as logged.
    pending_rec: Option<Rec>,
    /// Data-dependent branches being if-converted around the current instruction.
    branch_depth: u32,
    /// Immediate post-dominator of each instruction (computed at the first
    /// data-dependent branch); `body.len()` is the exit.
    ipdom: Option<Vec<usize>>,
}

impl<'a, D: Domain> Sim<'a, D> {
    fn finish(mut self) -> Execution<D::V> {
        let global = &mut self.global;
        let outputs = crate::exec::collect_outputs(self.inst, &mut *self.domain, |i| {
            std::mem::take(&mut global[i])
        });
        Execution {
            outputs,
            store_sites: self.store_sites,
            warnings: Vec::new(),
            ops_executed: self.ops,
        }
    }

    fn tid_of(&self, linear: usize) -> [i64; 3] {
        let l = linear as i64;
        let [bx, by, _] = self.block;
        [l % bx, (l / bx) % by, l / (bx * by)]
    }

    fn run_cta(&mut self, cta: [i64; 3]) -> Result<(), ExecError> {
        self.cta = cta;
        self.epoch = 0;
        self.pending_rec = None;
        self.shared.clear();
        self.shared_log.clear();
        let n = self.block.iter().product::<i64>() as usize;
        self.threads = (0..n)
            .map(|i| {
                let mut vc = [0u32; 32];
                vc[i % 32] = 1;
                Thread {
                    tid: self.tid_of(i),
                    lane: i % 32,
                    warp: i / 32,
                    pc: 0,
                    regs: vec![None; self.entry.regs.len()],
                    state: State::Ready,
                    local: HashMap::new(),
                    carry: None,
                    vc,
                    async_open: Vec::new(),
                    async_groups: Vec::new(),
                }
            })
            .collect();
        loop {
            for t in 0..n {
                while self.threads[t].state == State::Ready {
                    self.step(t)?;
                }
            }
            if self.release_warps()? {
                continue;
            }
            if self.threads.iter().all(|t| t.state == State::Done) {
                return match self.pending.take() {
                    Some(e) => Err(e),
                    None => Ok(()),
                };
            }
            self.release_barrier()?;
        }
    }

    fn err_at(&self, t: usize, instr: usize, kind: ErrorKind, message: String) -> ExecError {
        let ins = self.entry.body.get(instr);
        let [x, y, z] = self.threads.get(t).map_or([0; 3], |th| th.tid);
        ExecError {
            kind,
            message: format!(
                "{}: {message} (thread ({x}, {y}, {z}))",
                ins.map_or("?".into(), |i| i.mnemonic())
            ),
            line: ins.map_or(0, |i| i.line),
            loc: ins.map_or_else(Loc::default, |i| i.loc.clone()),
            program: self.cta,
        }
    }

    fn step(&mut self, t: usize) -> Result<(), ExecError> {
        let pc = self.threads[t].pc;
        let Some(ins) = self.entry.body.get(pc) else {
            // Ran off the end: copies in flight land at the last instruction.
            let last = pc.min(self.entry.body.len().saturating_sub(1));
            self.land_all(t, last)
                .map_err(|(k, m)| self.err_at(t, last, k, m))?;
            self.threads[t].state = State::Done;
            return Ok(());
        };
        self.ops += 1;
        if self.ops > MAX_OPS {
            return Err(self.err_at(
                t,
                pc,
                ErrorKind::Limit,
                format!("more than {MAX_OPS} instructions executed"),
            ));
        }
        let flow = match self.exec(t, pc, ins) {
            Ok(f) => f,
            Err((ErrorKind::NeverWritten, m)) if m == PENDING => {
                return Err(self
                    .pending
                    .take()
                    .unwrap_or_else(|| self.err_at(t, pc, ErrorKind::NeverWritten, m)))
            }
            Err((ErrorKind::Race, m)) => return Err(self.err_at(t, pc, ErrorKind::Race, m)),
            // An earlier read of unwritten memory explains later failures.
            Err((kind, m)) => {
                return Err(self
                    .pending
                    .take()
                    .unwrap_or_else(|| self.err_at(t, pc, kind, m)))
            }
        };
        if let Flow::Exit = flow {
            self.land_all(t, pc)
                .map_err(|(k, m)| self.err_at(t, pc, k, m))?;
        }
        let th = &mut self.threads[t];
        match flow {
            Flow::Next => th.pc += 1,
            Flow::Jump(to) => th.pc = to,
            Flow::Block(s) => th.state = s,
            Flow::Exit => th.state = State::Done,
        }
        Ok(())
    }

    // ----- values -----

    fn reg(&self, t: usize, slot: u32) -> Result<Val<D::V>, Fail> {
        match self.threads[t].regs.get(slot as usize) {
            Some(Some(v)) => Ok(*v),
            _ => fail(
                ErrorKind::Malformed,
                format!(
                    "register {} is read before it is written",
                    self.entry
                        .regs
                        .get(slot as usize)
                        .map_or("?", |r| r.0.as_str())
                ),
            ),
        }
    }

    fn special(&self, t: usize, s: Special) -> u64 {
        let th = &self.threads[t];
        (match s {
            Special::Tid(a) => th.tid[a as usize],
            Special::Ntid(a) => self.block[a as usize],
            Special::Ctaid(a) => self.cta[a as usize],
            Special::Nctaid(a) => self.inst.grid[a as usize],
            Special::LaneId => th.lane as i64,
            Special::WarpId => th.warp as i64,
            Special::NWarpId => (self.threads.len() as i64 + 31) / 32,
        }) as u64
    }

    fn sym_addr(&self, name: &str) -> Result<u64, Fail> {
        match self.vars.iter().find(|v| v.name == name) {
            Some(v) => Ok(v.addr),
            None => fail(
                ErrorKind::Malformed,
                format!("`{name}` is not a declared variable"),
            ),
        }
    }

    /// Read an operand; `ty` is the instruction's operand type.
    fn read(&mut self, t: usize, op: &Operand, ty: &str) -> Result<Val<D::V>, Fail> {
        Ok(match op {
            Operand::Reg(s) => self.reg(t, *s)?,
            Operand::Special(s) => Val::Bits(self.special(t, *s)),
            Operand::Imm(v) => {
                if is_float_ty(ty) {
                    Val::Float(self.domain.constant(*v as f64))
                } else if ty == "pred" {
                    Val::Pred(*v != 0)
                } else {
                    Val::Bits(mask_w(*v as u64, width(ty)))
                }
            }
            Operand::FBits { bits, is_f64 } => {
                let x = decode_float(*bits, if *is_f64 { 64 } else { 32 }).unwrap_or(f64::NAN);
                Val::Float(self.domain.constant(x))
            }
            Operand::Float(x) => Val::Float(self.domain.constant(*x)),
            Operand::Sym(name) => Val::Bits(self.sym_addr(name)?),
            Operand::Not(inner) => {
                let v = self.read(t, inner, "pred")?;
                self.not(v)?
            }
            _ => return fail(ErrorKind::Malformed, "expected a register or an immediate"),
        })
    }

    fn write(&mut self, t: usize, op: &Operand, v: Val<D::V>) -> Result<(), Fail> {
        match op {
            Operand::Reg(s) => {
                if let Some(slot) = self.threads[t].regs.get_mut(*s as usize) {
                    *slot = Some(v);
                }
                Ok(())
            }
            Operand::Sink => Ok(()),
            Operand::Vector(xs) if xs.len() == 1 => self.write(t, &xs[0], v),
            _ => fail(ErrorKind::Malformed, "expected a destination register"),
        }
    }

    fn int(&self, v: Val<D::V>, ty: &str) -> Result<u64, Fail> {
        let w = width(ty);
        match v {
            Val::Bits(b) => Ok(mask_w(b, w)),
            Val::Pred(b) => Ok(b as u64),
            Val::Float(x) => match self.domain.as_number(x) {
                Some(n) if w == 64 => Ok(n.to_bits()),
                Some(n) if w == 16 => unsupported(format!("16-bit bits of the float {n}")),
                Some(n) => Ok((n as f32).to_bits() as u64),
                None => unsupported(
                    "bit manipulation of a symbolic float value (only abs/neg masks are understood)",
                ),
            },
            Val::Cond(_) => unsupported("integer use of a data-dependent predicate"),
            Val::Sym(_) => unsupported(
                "a data-dependent integer (bits of a symbolic float) used as an address, count or lane",
            ),
        }
    }

    /// Whether a value depends on the data (is no number).
    fn is_symbolic(&self, v: Val<D::V>) -> bool {
        match v {
            Val::Sym(_) | Val::Cond(_) => true,
            Val::Float(x) => self.domain.as_number(x).is_none(),
            Val::Bits(_) | Val::Pred(_) => false,
        }
    }

    fn opaque(&mut self, op: &str, args: &[D::V]) -> Result<D::V, Fail> {
        match self.domain.opaque(op, args) {
            Some(v) => Ok(v),
            None => unsupported(format!("{op} of a data-dependent value")),
        }
    }

    /// A value as an operand of an opaque operation: the integer its `ty` bits hold
    /// (a symbolic float becomes `f32.bits(x)` / `f64.bits(x)`).
    fn sym_arg(&mut self, v: Val<D::V>, ty: &str) -> Result<D::V, Fail> {
        Ok(match v {
            Val::Sym(s) | Val::Cond(s) => s,
            Val::Float(x) if self.domain.as_number(x).is_none() => {
                let op = if width(ty) == 64 {
                    "f64.bits"
                } else {
                    "f32.bits"
                };
                self.opaque(op, &[x])?
            }
            v => {
                let b = self.int(v, ty)?;
                self.domain.bits(b)
            }
        })
    }

    /// `op(args)` as an opaque integer, e.g. `and.b32` of a symbolic float's bits.
    fn sym_op(&mut self, op: &str, args: &[Val<D::V>], ty: &str) -> Result<Val<D::V>, Fail> {
        let mut xs = Vec::with_capacity(args.len());
        for a in args {
            xs.push(self.sym_arg(*a, ty)?);
        }
        Ok(Val::Sym(self.opaque(op, &xs)?))
    }

    fn float(&mut self, v: Val<D::V>, ty: &str) -> Result<D::V, Fail> {
        match v {
            Val::Float(x) => Ok(x),
            Val::Bits(b) => {
                let w = if is_float_ty(ty) { width(ty) } else { 32 };
                match decode_float(mask_w(b, w), w) {
                    Some(x) => Ok(self.domain.constant(x)),
                    None => unsupported(format!("float type .{ty}")),
                }
            }
            Val::Sym(s) => {
                let w = if is_float_ty(ty) { width(ty) } else { 32 };
                let op = if w == 64 { "f64.from" } else { "f32.from" };
                self.opaque(op, &[s])
            }
            _ => fail(ErrorKind::Malformed, "a predicate used as a float"),
        }
    }

    fn truth(&self, v: Val<D::V>) -> Result<Truth<D::V>, Fail> {
        match v {
            Val::Pred(b) => Ok(Truth::Known(b)),
            Val::Cond(c) => Ok(Truth::Unknown(c)),
            Val::Bits(b) => Ok(Truth::Known(b != 0)),
            Val::Float(_) => fail(ErrorKind::Malformed, "a float used as a predicate"),
            Val::Sym(_) => unsupported("a data-dependent integer used as a predicate"),
        }
    }

    fn from_truth(t: Truth<D::V>) -> Val<D::V> {
        match t {
            Truth::Known(b) => Val::Pred(b),
            Truth::Unknown(c) => Val::Cond(c),
        }
    }

    fn not(&mut self, v: Val<D::V>) -> Result<Val<D::V>, Fail> {
        Ok(match self.truth(v)? {
            Truth::Known(b) => Val::Pred(!b),
            Truth::Unknown(c) => Self::from_truth(self.domain.not(c)),
        })
    }

    fn cond_value(&mut self, c: D::V) -> Result<bool, Fail> {
        match self.domain.as_number(c) {
            Some(x) => Ok(x != 0.0),
            None => unsupported("a branch or guard on a data-dependent predicate"),
        }
    }

    // ----- instructions -----

    fn exec(&mut self, t: usize, pc: usize, ins: &'a Instr) -> Result<Flow, Fail> {
        if let Some((neg, slot)) = ins.guard {
            let g = self.reg(t, slot)?;
            let on = match self.truth(g)? {
                Truth::Known(b) => b,
                Truth::Unknown(c) => {
                    let c = if neg {
                        match self.domain.not(c) {
                            Truth::Unknown(c) => c,
                            Truth::Known(b) => {
                                return if b {
                                    self.exec_body(t, pc, ins)
                                } else {
                                    Ok(Flow::Next)
                                }
                            }
                        }
                    } else {
                        c
                    };
                    return self.guarded(t, pc, ins, c);
                }
            };
            if on == neg {
                return Ok(Flow::Next);
            }
        }
        self.exec_body(t, pc, ins)
    }

    /// An instruction without its guard.
    fn exec_body(&mut self, t: usize, pc: usize, ins: &'a Instr) -> Result<Flow, Fail> {
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        let ops = &ins.operands;
        let opn = |i: usize| -> Result<&Operand, Fail> {
            ops.get(i).ok_or_else(|| {
                (
                    ErrorKind::Malformed,
                    format!("expected at least {} operands", i + 1),
                )
            })
        };
        match ins.op.as_str() {
            "ret" | "exit" => return Ok(Flow::Exit),
            "bra" | "brx" => {
                let Some(Operand::Sym(l)) = ops.first() else {
                    return fail(ErrorKind::Malformed, "expected a label");
                };
                return match self.entry.labels.get(l) {
                    Some(&to) => Ok(Flow::Jump(to)),
                    None => fail(ErrorKind::Malformed, format!("unknown label {l}")),
                };
            }
            "bar" | "barrier" => return self.barrier(t, pc, ins),
            "membar" | "fence" | "prefetch" | "prefetchu" | "nanosleep" | "pmevent" => {}
            "shfl" | "vote" | "match" | "redux" => {
                if !ins.has("sync") {
                    return unsupported("warp collectives without .sync");
                }
                let mask = self.lane_mask(t, ops.last())?;
                return Ok(Flow::Block(State::Collective(pc, mask)));
            }
            "activemask" => {
                let warp = self.threads[t].warp;
                let mut m = 0u64;
                for th in &self.threads {
                    if th.warp == warp && th.state != State::Done {
                        m |= 1 << th.lane;
                    }
                }
                self.write(t, opn(0)?, Val::Bits(m))?;
            }
            "mov" => {
                let v = self.read(t, opn(1)?, ty)?;
                let v = match v {
                    Val::Bits(b) => Val::Bits(mask_w(b, width(ty))),
                    v => v,
                };
                self.write(t, opn(0)?, v)?;
            }
            "cvta" => {
                let v = self.read(t, opn(1)?, ty)?;
                self.write(t, opn(0)?, v)?;
            }
            "ld" | "ldu" => return self.load(t, pc, ins).map(|_| Flow::Next),
            "cp" => return self.cp_async(t, pc, ins).map(|_| Flow::Next),
            "ldmatrix" => {
                if !ins.has("sync") || !ins.has("aligned") {
                    return unsupported("ldmatrix without .sync.aligned");
                }
                // Warp-collective over the whole warp: no mask operand.
                let mask = self.lane_mask(t, None)?;
                return Ok(Flow::Block(State::Collective(pc, mask)));
            }
            "st" => return self.store(t, pc, ins).map(|_| Flow::Next),
            "setp" => self.setp(t, ins)?,
            "selp" => {
                let a = self.read(t, opn(1)?, ty)?;
                let b = self.read(t, opn(2)?, ty)?;
                let c = self.read(t, opn(3)?, "pred")?;
                let v = match self.truth(c)? {
                    Truth::Known(true) => a,
                    Truth::Known(false) => b,
                    Truth::Unknown(c)
                        if is_float_ty(ty)
                            || matches!(a, Val::Float(_))
                            || matches!(b, Val::Float(_)) =>
                    {
                        let (fa, fb) = (self.float(a, ty)?, self.float(b, ty)?);
                        Val::Float(self.domain.select(c, fa, fb))
                    }
                    Truth::Unknown(c) => {
                        let (sa, sb) = (self.sym_arg(a, ty)?, self.sym_arg(b, ty)?);
                        Val::Sym(self.domain.select(c, sa, sb))
                    }
                };
                self.write(t, opn(0)?, v)?;
            }
            "cvt" => self.cvt(t, ins)?,
            _ => {
                let v = self.arith(t, ins, ty)?;
                self.write(t, opn(0)?, v)?;
            }
        }
        Ok(Flow::Next)
    }

    // ----- data-dependent control flow (if-conversion within one thread) -----

    /// An instruction under a data-dependent guard `c`: a branch is if-converted; any
    /// other instruction runs on a copy of the thread's private state, merged back
    /// with `select(c, new, old)`.
    fn guarded(&mut self, t: usize, pc: usize, ins: &'a Instr, c: D::V) -> Result<Flow, Fail> {
        if matches!(ins.op.as_str(), "bra" | "brx") {
            return self.if_convert(t, pc, ins, c);
        }
        self.check_speculable(ins, "under a data-dependent guard")?;
        let old = self.private(t);
        let flow = self.exec_body(t, pc, ins)?;
        if !matches!(flow, Flow::Next) {
            return unsupported("a data-dependent guard on control flow");
        }
        let new = self.private(t);
        self.merge(t, c, new, old)?;
        Ok(Flow::Next)
    }

    /// Instructions that cannot run under a data-dependent condition (side effects
    /// other threads see, or collectives); stores to global/shared are checked in
    /// `store`.
    fn check_speculable(&self, ins: &Instr, what: &str) -> Result<(), Fail> {
        match ins.op.as_str() {
            "ret" | "exit" | "bar" | "barrier" | "shfl" | "vote" | "match" | "redux" | "atom"
            | "red" | "cp" | "ldmatrix" => unsupported(format!(
                "`{}` {what} (line {}): only thread-private code is if-converted",
                ins.mnemonic(),
                ins.line
            )),
            "st" if Self::space_of(ins) != Some(Space::Local) => unsupported(format!(
                "a store to shared or global memory {what} (line {})",
                ins.line
            )),
            _ => Ok(()),
        }
    }

    fn private(&self, t: usize) -> Private<D::V> {
        let th = &self.threads[t];
        Private {
            regs: th.regs.clone(),
            local: th.local.clone(),
            carry: th.carry,
        }
    }

    /// Runs the two paths of `@c bra L` on copies of the thread's private state up to
    /// the branch's immediate post-dominator, then merges them with `select(c, ..)`.
    fn if_convert(&mut self, t: usize, pc: usize, ins: &'a Instr, c: D::V) -> Result<Flow, Fail> {
        let Some(Operand::Sym(l)) = ins.operands.first() else {
            return fail(ErrorKind::Malformed, "expected a label");
        };
        let Some(&target) = self.entry.labels.get(l) else {
            return fail(ErrorKind::Malformed, format!("unknown label {l}"));
        };
        let join = self.post_dominator(pc)?;
        if self.branch_depth >= MAX_BRANCH_DEPTH {
            return unsupported(format!(
                "data-dependent branches nested more than {MAX_BRANCH_DEPTH} deep (a loop with a data-dependent exit?)"
            ));
        }
        let saved = self.private(t);
        self.branch_depth += 1;
        let taken = self.run_path(t, target, join).map(|_| self.private(t));
        let res = taken.and_then(|taken| {
            let th = &mut self.threads[t];
            th.regs = saved.regs.clone();
            th.local = saved.local.clone();
            th.carry = saved.carry;
            self.run_path(t, pc + 1, join).map(|_| taken)
        });
        self.branch_depth -= 1;
        let taken = res?;
        let fall = self.private(t);
        self.merge(t, c, taken, fall)?;
        Ok(Flow::Jump(join))
    }

    /// Runs thread `t` from `start` until it reaches `join`.
    fn run_path(&mut self, t: usize, start: usize, join: usize) -> Result<(), Fail> {
        let mut pc = start;
        while pc != join {
            let Some(ins) = self.entry.body.get(pc) else {
                return unsupported("a data-dependent branch whose paths meet only at the exit");
            };
            self.ops += 1;
            if self.ops > MAX_OPS {
                return fail(
                    ErrorKind::Limit,
                    format!("more than {MAX_OPS} instructions executed"),
                );
            }
            self.check_speculable(ins, "inside a data-dependent branch")?;
            let flow = self.exec(t, pc, ins).map_err(|(k, m)| {
                if k == ErrorKind::Unsupported && !m.contains("(line ") {
                    (
                        k,
                        format!("{m} (line {}, inside a data-dependent branch)", ins.line),
                    )
                } else {
                    (k, m)
                }
            })?;
            pc = match flow {
                Flow::Next => pc + 1,
                Flow::Jump(to) => to,
                Flow::Block(_) | Flow::Exit => {
                    return unsupported(format!(
                        "`{}` inside a data-dependent branch (line {})",
                        ins.mnemonic(),
                        ins.line
                    ))
                }
            };
        }
        Ok(())
    }

    /// The immediate post-dominator of instruction `pc`.
    fn post_dominator(&mut self, pc: usize) -> Result<usize, Fail> {
        if self.ipdom.is_none() {
            self.ipdom = Some(post_dominators(self.entry));
        }
        let n = self.entry.body.len();
        match self.ipdom.as_ref().and_then(|v| v.get(pc)) {
            Some(&j) if j < n => Ok(j),
            _ => unsupported("a data-dependent branch whose paths meet only at the exit"),
        }
    }

    /// `select(c, a, b)` of two private states, into thread `t`.
    fn merge(&mut self, t: usize, c: D::V, a: Private<D::V>, b: Private<D::V>) -> Result<(), Fail> {
        let mut regs = Vec::with_capacity(a.regs.len());
        for (slot, (x, y)) in a.regs.into_iter().zip(b.regs).enumerate() {
            let ty = self.entry.regs.get(slot).map_or("b32", |r| r.1.as_str());
            regs.push(self.merge_val(c, ty, x, y)?);
        }
        let mut keys: Vec<u64> = a.local.keys().chain(b.local.keys()).copied().collect();
        keys.sort_unstable();
        keys.dedup();
        let mut local = HashMap::new();
        for k in keys {
            if let Some(v) =
                self.merge_val(c, "b32", a.local.get(&k).copied(), b.local.get(&k).copied())?
            {
                local.insert(k, v);
            }
        }
        let carry = self.merge_val(c, "b32", a.carry, b.carry)?;
        let th = &mut self.threads[t];
        th.regs = regs;
        th.local = local;
        th.carry = carry;
        Ok(())
    }

    fn merge_val(
        &mut self,
        c: D::V,
        ty: &str,
        a: Option<Val<D::V>>,
        b: Option<Val<D::V>>,
    ) -> Result<Option<Val<D::V>>, Fail> {
        let (a, b) = match (a, b) {
            (None, x) | (x, None) => return Ok(x),
            (Some(a), Some(b)) if a == b => return Ok(Some(a)),
            (Some(a), Some(b)) => (a, b),
        };
        let is_bool = |v: Val<D::V>| matches!(v, Val::Pred(_) | Val::Cond(_));
        Ok(Some(if is_bool(a) || is_bool(b) || ty == "pred" {
            let ta = self.bool_value(a)?;
            let tb = self.bool_value(b)?;
            let v = self.domain.select(c, ta, tb);
            match self.domain.as_number(v) {
                Some(x) => Val::Pred(x != 0.0),
                None => Val::Cond(v),
            }
        } else if matches!(a, Val::Float(_)) || matches!(b, Val::Float(_)) {
            let fty = if width(ty) == 64 { "f64" } else { "f32" };
            let (fa, fb) = (self.float(a, fty)?, self.float(b, fty)?);
            Val::Float(self.domain.select(c, fa, fb))
        } else {
            let (sa, sb) = (self.sym_arg(a, ty)?, self.sym_arg(b, ty)?);
            Val::Sym(self.domain.select(c, sa, sb))
        }))
    }

    /// A predicate as a value of the domain (1 or 0 when decided).
    fn bool_value(&mut self, v: Val<D::V>) -> Result<D::V, Fail> {
        Ok(match self.truth(v)? {
            Truth::Known(b) => self.domain.constant(b as u8 as f64),
            Truth::Unknown(c) => c,
        })
    }

    fn lane_mask(&mut self, t: usize, op: Option<&Operand>) -> Result<u32, Fail> {
        let m = match op {
            Some(o) => match self.read(t, o, "b32")? {
                Val::Bits(b) => b as u32,
                _ => return fail(ErrorKind::Malformed, "a lane mask must be an integer"),
            },
            None => u32::MAX,
        };
        // Lanes beyond the CTA's last thread do not exist.
        let warp = self.threads[t].warp;
        let lanes = (self.threads.len() - warp * 32).min(32);
        let exist = if lanes >= 32 {
            u32::MAX
        } else {
            (1u32 << lanes) - 1
        };
        if m & (1 << self.threads[t].lane) == 0 {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "lane {} is not in its own lane mask {m:#x}",
                    self.threads[t].lane
                ),
            );
        }
        Ok(m & exist)
    }

    fn barrier(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<Flow, Fail> {
        let ops = &ins.operands;
        if ins.has("warp") {
            let mask = self.lane_mask(t, ops.first())?;
            return Ok(Flow::Block(State::WarpSync(pc, mask)));
        }
        if !(ins.has("sync") || ins.mods.is_empty() || ins.has("aligned")) || ins.has("arrive") {
            return unsupported("only bar.sync / barrier.sync / bar.warp.sync barriers");
        }
        let id = match ops.first() {
            Some(o) => {
                let v = self.read(t, o, "u32")?;
                self.int(v, "u32")? as i64
            }
            None => 0,
        };
        if let Some(o) = ops.get(1) {
            let v = self.read(t, o, "u32")?;
            let n = self.int(v, "u32")? as usize;
            if n != self.threads.len() {
                return unsupported(format!(
                    "a barrier for {n} of the CTA's {} threads",
                    self.threads.len()
                ));
            }
        }
        Ok(Flow::Block(State::Barrier(pc, id)))
    }

    /// Release complete warp barriers and warp collectives; true if any was released.
    fn release_warps(&mut self) -> Result<bool, ExecError> {
        let nwarps = self.threads.len().div_ceil(32);
        let mut any = false;
        for w in 0..nwarps {
            let lanes: Vec<usize> = (w * 32..((w + 1) * 32).min(self.threads.len())).collect();
            for &t in &lanes {
                let (mask, collective, pc) = match self.threads[t].state {
                    State::WarpSync(pc, m) => (m, false, pc),
                    State::Collective(pc, m) => (m, true, pc),
                    _ => continue,
                };
                let group: Vec<usize> = lanes
                    .iter()
                    .copied()
                    .filter(|&u| mask & (1 << self.threads[u].lane) != 0)
                    .collect();
                let complete = group.iter().all(|&u| match self.threads[u].state {
                    State::WarpSync(_, m) if !collective => m == mask,
                    State::Collective(_, m) if collective => m == mask,
                    _ => false,
                });
                if !complete {
                    continue;
                }
                if collective {
                    self.collective(&group)
                        .map_err(|(k, m)| self.err_at(t, pc, k, m))?;
                } else {
                    // Vector clocks: join over the group, then each lane ticks.
                    let mut joined = [0u32; 32];
                    for &u in &group {
                        for (j, c) in joined.iter_mut().zip(self.threads[u].vc.iter()) {
                            *j = (*j).max(*c);
                        }
                    }
                    for &u in &group {
                        let th = &mut self.threads[u];
                        th.vc = joined;
                        th.vc[th.lane] += 1;
                    }
                }
                for &u in &group {
                    let th = &mut self.threads[u];
                    th.state = State::Ready;
                    th.pc += 1;
                }
                any = true;
            }
        }
        Ok(any)
    }

    fn release_barrier(&mut self) -> Result<(), ExecError> {
        let mut at: Option<(usize, usize, i64)> = None;
        for (t, th) in self.threads.iter().enumerate() {
            if let State::Barrier(pc, id) = th.state {
                match at {
                    None => at = Some((t, pc, id)),
                    Some((t0, pc0, id0)) if pc0 != pc || id0 != id => {
                        return Err(self.deadlock(format!(
                            "threads wait at different barriers: thread {:?} at line {} and thread {:?} at line {}",
                            self.threads[t0].tid,
                            self.line(pc0),
                            th.tid,
                            self.line(pc)
                        ), t, pc));
                    }
                    _ => {}
                }
            }
        }
        let Some((t0, pc0, _)) = at else {
            // Nobody at a CTA barrier: some warp barrier or collective cannot complete.
            let (t, pc) = self
                .threads
                .iter()
                .enumerate()
                .find_map(|(t, th)| match th.state {
                    State::WarpSync(pc, _) | State::Collective(pc, _) => Some((t, pc)),
                    _ => None,
                })
                .unwrap_or((0, 0));
            let missing = self.missing_lanes(t);
            return Err(self.deadlock(
                format!(
                    "a warp barrier or collective of thread {:?} can never complete ({missing})",
                    self.threads[t].tid
                ),
                t,
                pc,
            ));
        };
        if let Some((t, th)) = self
            .threads
            .iter()
            .enumerate()
            .find(|(_, th)| !matches!(th.state, State::Barrier(..)))
        {
            let what = match th.state {
                State::Done => "has returned".to_string(),
                State::WarpSync(pc, _) | State::Collective(pc, _) => {
                    format!(
                        "waits at a warp barrier or collective at line {}",
                        self.line(pc)
                    )
                }
                _ => "never arrives".to_string(),
            };
            let _ = t;
            return Err(self.deadlock(
                format!(
                    "barrier at line {} is never reached by every thread: thread {:?} {what}",
                    self.line(pc0),
                    th.tid
                ),
                t0,
                pc0,
            ));
        }
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        self.epoch += 1;
        for th in &mut self.threads {
            th.state = State::Ready;
            th.pc += 1;
        }
        // Accesses before the barrier are ordered before everything after it.
        self.shared_log.clear();
        Ok(())
    }

    fn missing_lanes(&self, t: usize) -> String {
        let (mask, pc) = match self.threads[t].state {
            State::WarpSync(pc, m) | State::Collective(pc, m) => (m, pc),
            _ => return String::new(),
        };
        let warp = self.threads[t].warp;
        for th in &self.threads {
            if th.warp == warp && mask & (1 << th.lane) != 0 {
                match th.state {
                    State::WarpSync(p, _) | State::Collective(p, _) if p == pc => {}
                    State::Done => return format!("lane {} has returned", th.lane),
                    State::Barrier(p, _) => {
                        return format!(
                            "lane {} waits at bar.sync at line {}",
                            th.lane,
                            self.line(p)
                        )
                    }
                    State::WarpSync(p, _) | State::Collective(p, _) => {
                        return format!("lane {} waits at line {}", th.lane, self.line(p))
                    }
                    State::Ready => {}
                }
            }
        }
        "a lane in the mask never arrives".into()
    }

    fn line(&self, pc: usize) -> u32 {
        self.entry.body.get(pc).map_or(0, |i| i.line)
    }

    fn deadlock(&self, msg: String, t: usize, pc: usize) -> ExecError {
        self.err_at(t, pc, ErrorKind::Deadlock, format!("deadlock: {msg}"))
    }

    /// Perform a complete warp collective for the lanes of `group`.
    fn collective(&mut self, group: &[usize]) -> Result<(), Fail> {
        let first = group[0];
        let ins = &self.entry.body[match self.threads[first].state {
            State::Collective(pc, _) => pc,
            _ => return Ok(()),
        }];
        match ins.op.as_str() {
            "shfl" => {
                // Source values of every lane, read before anyone writes.
                let mut src: HashMap<usize, Val<D::V>> = HashMap::new();
                let mut plan = Vec::new();
                for &u in group {
                    let State::Collective(pc, _) = self.threads[u].state else {
                        continue;
                    };
                    let ins = &self.entry.body[pc];
                    let mode = ins
                        .mods
                        .iter()
                        .find(|m| matches!(m.as_str(), "bfly" | "up" | "down" | "idx"))
                        .cloned()
                        .unwrap_or_default();
                    let ops = &ins.operands;
                    if ops.len() < 4 {
                        return fail(ErrorKind::Malformed, "shfl.sync needs d, a, b, c, mask");
                    }
                    let a = self.read(u, &ops[1], "b32")?;
                    let b = self.read(u, &ops[2], "b32")?;
                    let c = self.read(u, &ops[3], "b32")?;
                    let (b, c) = (self.int(b, "b32")? as u32, self.int(c, "b32")? as u32);
                    src.insert(self.threads[u].lane, a);
                    let lane = self.threads[u].lane as u32;
                    let bval = b & 0x1f;
                    let cval = c & 0x1f;
                    let segmask = (c >> 8) & 0x1f;
                    let min_lane = lane & segmask;
                    let max_lane = min_lane | (cval & !segmask);
                    let (j, ok) = match mode.as_str() {
                        "up" => {
                            let j = lane as i64 - bval as i64;
                            (j, j >= max_lane as i64)
                        }
                        "down" => {
                            let j = (lane + bval) as i64;
                            (j, j <= max_lane as i64)
                        }
                        "bfly" => {
                            let j = (lane ^ bval) as i64;
                            (j, j <= max_lane as i64)
                        }
                        "idx" => {
                            let j = (min_lane | (bval & !segmask)) as i64;
                            (j, j <= max_lane as i64)
                        }
                        _ => return unsupported(format!("shfl mode {mode}")),
                    };
                    let j = if ok { j as usize } else { lane as usize };
                    plan.push((u, pc, j, ok));
                }
                for (u, pc, j, ok) in plan {
                    let Some(&v) = src.get(&j) else {
                        return fail(
                            ErrorKind::Malformed,
                            format!(
                                "shfl reads lane {j}, which is not in the lane mask (undefined value)"
                            ),
                        );
                    };
                    let ops = &self.entry.body[pc].operands;
                    match &ops[0] {
                        Operand::Pair(d, p) => {
                            self.write(u, d, v)?;
                            self.write(u, p, Val::Pred(ok))?;
                        }
                        d => self.write(u, d, v)?,
                    }
                }
            }
            "vote" => {
                let mut preds = Vec::new();
                for &u in group {
                    let State::Collective(pc, _) = self.threads[u].state else {
                        continue;
                    };
                    let ins = &self.entry.body[pc];
                    let v = self.read(u, ins.operands.get(1).unwrap_or(&Operand::Sink), "pred")?;
                    let b = match self.truth(v)? {
                        Truth::Known(b) => b,
                        Truth::Unknown(c) => self.cond_value(c)?,
                    };
                    preds.push((u, self.threads[u].lane, b));
                }
                let ballot: u64 = preds.iter().filter(|p| p.2).map(|p| 1u64 << p.1).sum();
                let all = preds.iter().all(|p| p.2);
                let any = preds.iter().any(|p| p.2);
                for &(u, _, _) in &preds {
                    let State::Collective(pc, _) = self.threads[u].state else {
                        continue;
                    };
                    let ins = &self.entry.body[pc];
                    let v = if ins.has("ballot") {
                        Val::Bits(ballot)
                    } else if ins.has("all") {
                        Val::Pred(all)
                    } else if ins.has("any") {
                        Val::Pred(any)
                    } else if ins.has("uni") {
                        Val::Pred(all || !any)
                    } else {
                        return unsupported("vote mode");
                    };
                    self.write(u, &ins.operands[0], v)?;
                }
            }
            "ldmatrix" => self.ldmatrix(group)?,
            other => return unsupported(format!("warp collective {other}")),
        }
        Ok(())
    }

    /// `ldmatrix.sync.aligned.m8n8.xN.shared.b16` for the lanes of `group`: lanes
    /// 8i..8i+7 give the row addresses of matrix i (8 rows of 16 bytes); register i
    /// of lane l gets the 32-bit word at byte 4*(l%4) of row l/4 of matrix i. A word
    /// holds two b16 halves, so reading whole words moves f32 values intact.
    fn ldmatrix(&mut self, group: &[usize]) -> Result<(), Fail> {
        let State::Collective(pc0, _) = self.threads[group[0]].state else {
            return Ok(());
        };
        let first = &self.entry.body[pc0];
        if first.has("trans") {
            return unsupported("ldmatrix .trans (it splits 32-bit words into b16 halves)");
        }
        if !first.has("m8n8") || !first.has("b16") {
            return unsupported(format!("{} (only .m8n8 .b16)", first.mnemonic()));
        }
        let n = match () {
            _ if first.has("x1") => 1,
            _ if first.has("x2") => 2,
            _ if first.has("x4") => 4,
            _ => return fail(ErrorKind::Malformed, "ldmatrix needs .x1, .x2 or .x4"),
        };
        // Every lane's row address, read before any destination is written.
        let mut rows: HashMap<usize, u64> = HashMap::new();
        let mut plan = Vec::new();
        for &u in group {
            let State::Collective(pc, _) = self.threads[u].state else {
                continue;
            };
            let ins = &self.entry.body[pc];
            if ins.op != first.op || ins.mods != first.mods {
                return fail(
                    ErrorKind::Malformed,
                    format!(
                        "lanes of a warp meet at different collectives (lines {} and {})",
                        first.line, ins.line
                    ),
                );
            }
            let (Some(dst), Some(src)) = (ins.operands.first(), ins.operands.get(1)) else {
                return fail(
                    ErrorKind::Malformed,
                    "ldmatrix needs registers and an address",
                );
            };
            let dsts: Vec<&Operand> = match dst {
                Operand::Vector(xs) => xs.iter().collect(),
                d => vec![d],
            };
            if dsts.len() != n {
                return fail(
                    ErrorKind::Malformed,
                    "ldmatrix: .xN and destinations differ",
                );
            }
            match self.address(u, src)? {
                Addr::At(a) => rows.insert(self.threads[u].lane, a),
                _ => return unsupported("ldmatrix at a data-dependent address"),
            };
            plan.push((u, pc, dsts));
        }
        for (u, pc, dsts) in plan {
            let lane = self.threads[u].lane;
            for (i, d) in dsts.into_iter().enumerate() {
                let row_lane = 8 * i + lane / 4;
                let Some(&row) = rows.get(&row_lane) else {
                    return fail(
                        ErrorKind::Malformed,
                        format!("ldmatrix needs the row address of lane {row_lane}, which is not in the warp"),
                    );
                };
                if row % 16 != 0 {
                    return fail(
                        ErrorKind::Malformed,
                        format!("ldmatrix row address {row:#x} (lane {row_lane}) is not 16-byte aligned"),
                    );
                }
                let v = self.load_one(
                    u,
                    pc,
                    row + 4 * (lane as u64 % 4),
                    4,
                    Some(Space::Shared),
                    "b32",
                )?;
                self.write(u, d, v)?;
            }
        }
        Ok(())
    }

    // ----- asynchronous copies -----

    /// `cp.async` global → shared and its group operations. The global read happens
    /// at issue (inputs are read-only); the shared write waits in the thread's open
    /// group and lands at the `cp.async.wait_group`/`wait_all` that covers it, so a
    /// read before the wait does not see it.
    fn cp_async(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        if !ins.has("async") || ins.mods.iter().any(|m| m.starts_with("bulk")) {
            return unsupported(format!("instruction {}", ins.mnemonic()));
        }
        if ins.has("commit_group") {
            let g = std::mem::take(&mut self.threads[t].async_open);
            self.threads[t].async_groups.push(g);
            return Ok(());
        }
        if ins.has("wait_group") || ins.has("wait_all") {
            // wait_all is commit_group + wait_group 0.
            let keep = if ins.has("wait_all") {
                let g = std::mem::take(&mut self.threads[t].async_open);
                self.threads[t].async_groups.push(g);
                0
            } else {
                let Some(o) = ins.operands.first() else {
                    return fail(ErrorKind::Malformed, "cp.async.wait_group needs N");
                };
                let v = self.read(t, o, "u32")?;
                self.int(v, "u32")? as usize
            };
            let groups = &mut self.threads[t].async_groups;
            let done: Vec<_> = groups.drain(..groups.len().saturating_sub(keep)).collect();
            for (addr, v) in done.into_iter().flatten() {
                self.land(t, pc, addr, v)?;
            }
            return Ok(());
        }
        let shared = ins.has("shared") || ins.has("shared::cta");
        if !(ins.has("ca") || ins.has("cg")) || !shared || !ins.has("global") {
            return unsupported(format!("instruction {}", ins.mnemonic()));
        }
        if ins.has("L2::cache_hint") || ins.operands.len() > 4 {
            return unsupported("cp.async with a cache policy");
        }
        let ops = &ins.operands;
        if ops.len() < 3 {
            return fail(ErrorKind::Malformed, "cp.async needs [dst], [src], cp-size");
        }
        let v = self.read(t, &ops[2], "u32")?;
        let cp_size = self.int(v, "u32")?;
        if !matches!(cp_size, 4 | 8 | 16) {
            return fail(ErrorKind::Malformed, format!("cp.async cp-size {cp_size}"));
        }
        // The fourth operand is src-size (an integer) or ignore-src (a predicate).
        let src_size = match ops.get(3) {
            None => cp_size,
            Some(o) => match self.read(t, o, "u32")? {
                Val::Pred(ignore) => {
                    if ignore {
                        0
                    } else {
                        cp_size
                    }
                }
                Val::Cond(_) => return unsupported("cp.async with a data-dependent ignore-src"),
                v => self.int(v, "u32")?,
            },
        };
        if src_size > cp_size {
            return fail(
                ErrorKind::Malformed,
                format!("cp.async src-size {src_size} > cp-size {cp_size} (undefined behaviour)"),
            );
        }
        if src_size % 4 != 0 {
            return unsupported(format!(
                "cp.async src-size {src_size} (not whole 32-bit words)"
            ));
        }
        let (Addr::At(dst), Addr::At(src)) = (self.address(t, &ops[0])?, self.address(t, &ops[1])?)
        else {
            return unsupported("cp.async at a data-dependent or parameter address");
        };
        for k in 0..cp_size / 4 {
            let to = dst + 4 * k;
            if !matches!(
                self.place(t, to, 4, Some(Space::Shared))?,
                Place::Shared(..)
            ) {
                return fail(
                    ErrorKind::OutOfBounds,
                    "cp.async destination outside shared memory",
                );
            }
            // Bytes beyond src-size are zero.
            let v = if 4 * k < src_size {
                self.load_one(t, pc, src + 4 * k, 4, Some(Space::Global), "b32")?
            } else {
                Val::Bits(0)
            };
            // The write may land any time until the wait: it conflicts from the issue on.
            self.log_shared(t, pc, to, 4, true)?;
            self.threads[t].async_open.push((to, v));
        }
        Ok(())
    }

    /// A `cp.async` write landing at instruction `pc` (its wait, or the thread's exit).
    fn land(&mut self, t: usize, pc: usize, addr: u64, v: Val<D::V>) -> Result<(), Fail> {
        self.log_shared(t, pc, addr, 4, true)?;
        self.shared.insert(addr, (v, 4));
        Ok(())
    }

    /// A thread that exits with copies in flight: nothing can wait for them any more,
    /// so they land at a time no other thread is ordered after (any later access to
    /// their bytes by another thread is a race).
    fn land_all(&mut self, t: usize, pc: usize) -> Result<(), Fail> {
        let th = &mut self.threads[t];
        let mut all: Vec<_> = std::mem::take(&mut th.async_groups)
            .into_iter()
            .flatten()
            .collect();
        all.append(&mut th.async_open);
        for (addr, v) in all {
            self.land(t, pc, addr, v)?;
            if let Some(w) = self
                .shared_log
                .get_mut(&(addr & !3))
                .and_then(|l| l.writes.last_mut())
            {
                w.epoch = u32::MAX;
                w.clock = u32::MAX;
            }
        }
        Ok(())
    }

    // ----- memory -----

    fn place(&self, t: usize, addr: u64, size: u64, space: Option<Space>) -> Result<Place, Fail> {
        let tensor = (addr >> TENSOR_SHIFT) as usize;
        if tensor >= 1 && matches!(space, None | Some(Space::Global)) {
            let i = tensor - 1;
            let off = addr & ((1 << TENSOR_SHIFT) - 1);
            let Some(td) = self.inst.tensors.get(i) else {
                return fail(
                    ErrorKind::OutOfBounds,
                    format!("address {addr:#x} is in no tensor"),
                );
            };
            let bytes = td.numel() as u64 * ELEM_BYTES;
            if off + size > bytes {
                return fail(
                    ErrorKind::OutOfBounds,
                    format!(
                        "global access at byte {off} of `{}` (element {}), outside its {} elements",
                        td.name,
                        off as i64 / ELEM_BYTES as i64,
                        td.numel()
                    ),
                );
            }
            return Ok(Place::Tensor(i, off));
        }
        for (vi, v) in self.vars.iter().enumerate() {
            if addr >= v.addr && addr < v.addr + v.bytes.max(1) {
                if addr + size > v.addr + v.bytes {
                    return fail(
                        ErrorKind::OutOfBounds,
                        format!(
                            "access at byte {} of `{}` overruns its {} bytes",
                            addr - v.addr,
                            v.name,
                            v.bytes
                        ),
                    );
                }
                let ok = match (v.space, space) {
                    (_, None) => true,
                    (Space::Param, _) => false,
                    (a, Some(b)) => a == b,
                };
                if !ok {
                    return fail(
                        ErrorKind::OutOfBounds,
                        format!("`{}` accessed in the wrong state space", v.name),
                    );
                }
                return match v.space {
                    Space::Shared => Ok(Place::Shared(vi, addr - v.addr)),
                    Space::Local => Ok(Place::Local(addr)),
                    _ if v.init.is_some() => Ok(Place::Init(vi, addr - v.addr)),
                    _ => unsupported(format!("access to module variable `{}`", v.name)),
                };
            }
        }
        let _ = t;
        fail(
            ErrorKind::OutOfBounds,
            format!(
                "address {addr:#x} is outside every tensor and {} variable",
                match space {
                    Some(Space::Shared) => "shared",
                    Some(Space::Local) => "local",
                    _ => "declared",
                }
            ),
        )
    }

    fn space_of(ins: &Instr) -> Option<Space> {
        for m in &ins.mods {
            return Some(match m.as_str() {
                "global" => Space::Global,
                "shared" => Space::Shared,
                "local" => Space::Local,
                "param" => Space::Param,
                "const" => Space::Const,
                _ => continue,
            });
        }
        None
    }

    fn address(&mut self, t: usize, op: &Operand) -> Result<Addr<D::V>, Fail> {
        let Operand::Mem { base, offset } = op else {
            return fail(ErrorKind::Malformed, "expected a memory operand [addr]");
        };
        match &**base {
            Operand::Sym(name) => {
                if let Some(i) = self.entry.params.iter().position(|p| &p.name == name) {
                    if *offset != 0 {
                        return unsupported("offsets into a parameter");
                    }
                    return Ok(Addr::Param(i));
                }
                Ok(Addr::At(self.sym_addr(name)?.wrapping_add(*offset as u64)))
            }
            Operand::Imm(a) => Ok(Addr::At((*a as u64).wrapping_add(*offset as u64))),
            b => {
                let v = self.read(t, b, "u64")?;
                match v {
                    Val::Bits(a) => Ok(Addr::At(a.wrapping_add(*offset as u64))),
                    Val::Sym(s) => Ok(Addr::Sym(s, *offset)),
                    _ => fail(ErrorKind::Malformed, "an address register holds no address"),
                }
            }
        }
    }

    fn vec_len(ins: &Instr) -> usize {
        ins.mods
            .iter()
            .find_map(|m| match m.as_str() {
                "v2" => Some(2),
                "v4" => Some(4),
                "v8" => Some(8),
                _ => None,
            })
            .unwrap_or(1)
    }

    fn load(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        let size = type_bytes(ty).unwrap_or(4);
        let space = Self::space_of(ins);
        let (Some(dst), Some(src)) = (ins.operands.first(), ins.operands.get(1)) else {
            return fail(
                ErrorKind::Malformed,
                "ld needs a destination and an address",
            );
        };
        let dsts: Vec<&Operand> = match dst {
            Operand::Vector(xs) => xs.iter().collect(),
            d => vec![d],
        };
        if dsts.len() != Self::vec_len(ins) && !(dsts.len() == 1 && Self::vec_len(ins) == 1) {
            return fail(ErrorKind::Malformed, "vector width and destinations differ");
        }
        let base = match self.address(t, src)? {
            Addr::Param(pi) => {
                let v = self.params[pi];
                return self.write(t, dsts[0], v);
            }
            Addr::At(a) => a,
            Addr::Sym(s, off) => {
                if space != Some(Space::Local) {
                    return unsupported(
                        "a load at a data-dependent address (only .local memory is supported)",
                    );
                }
                // An opaque function of the address and the thread's whole local memory.
                let mut words: Vec<(u64, Val<D::V>)> = self.threads[t]
                    .local
                    .iter()
                    .map(|(a, v)| (*a, *v))
                    .collect();
                words.sort_by_key(|w| w.0);
                let mut args = vec![s, self.domain.bits(0)];
                for (a, v) in words {
                    args.push(self.domain.bits(a));
                    args.push(self.sym_arg(v, "b32")?);
                }
                let mn = ins.mnemonic();
                for (k, d) in dsts.into_iter().enumerate() {
                    args[1] = self.domain.bits((off + k as i64 * size as i64) as u64);
                    let v = Val::Sym(self.opaque(&mn, &args)?);
                    self.write(t, d, v)?;
                }
                return Ok(());
            }
        };
        for (k, d) in dsts.into_iter().enumerate() {
            let addr = base.wrapping_add(k as u64 * size);
            let v = self.load_one(t, pc, addr, size, space, ty)?;
            self.write(t, d, v)?;
        }
        Ok(())
    }

    fn load_one(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        size: u64,
        space: Option<Space>,
        _ty: &str,
    ) -> Result<Val<D::V>, Fail> {
        match self.place(t, addr, size, space)? {
            Place::Tensor(i, off) => {
                if size != ELEM_BYTES || off % ELEM_BYTES != 0 {
                    return unsupported(format!(
                        "a {size}-byte global access at byte {off} (tensors hold 4-byte floats)"
                    ));
                }
                self.log_global(t, pc, i, off, size, false)?;
                let flat = off / ELEM_BYTES;
                let td = &self.inst.tensors[i];
                if let Some((v, _)) = self.global[i][flat as usize] {
                    return Ok(Val::Float(v));
                }
                if td.role == Role::Out {
                    let m = format!(
                        "read of `{}`{:?}, an output element no thread wrote before",
                        td.name,
                        td.unravel(flat as usize)
                    );
                    return Ok(self.uninit(t, pc, (off, size), m));
                }
                if let Some(v) = self.inputs.get(&(i, flat)) {
                    return Ok(Val::Float(*v));
                }
                let index = td.unravel(flat as usize);
                let v = self.domain.input(i, &index, flat as usize);
                self.inputs.insert((i, flat), v);
                Ok(Val::Float(v))
            }
            Place::Shared(vi, off) => {
                self.own_copy_in_flight(t, addr, size, "reads")?;
                self.log_shared(t, pc, addr, size, false)?;
                match self.shared.get(&addr) {
                    Some((v, s)) if *s == size => Ok(*v),
                    Some(_) => unsupported("shared access with a size different from its store"),
                    None => {
                        let m = format!(
                            "read of shared `{}[{}]` (byte {off}), which no thread wrote",
                            self.vars[vi].name,
                            off / size
                        );
                        Ok(self.uninit(t, pc, (addr, size), m))
                    }
                }
            }
            Place::Local(a) => match self.threads[t].local.get(&a) {
                Some(v) => Ok(*v),
                None => fail(ErrorKind::NeverWritten, "read of unwritten local memory"),
            },
            Place::Init(vi, off) => {
                let init = self.vars[vi].init.as_deref().unwrap_or(&[]);
                let mut b = 0u64;
                for k in (0..size.min(8)).rev() {
                    b = b << 8 | init.get((off + k) as usize).copied().unwrap_or(0) as u64;
                }
                Ok(Val::Bits(b))
            }
        }
    }

    /// Thread `t` accessing shared bytes that one of its own `cp.async` copies, not yet
    /// waited for, will write: the copy may land before or after the access, so the
    /// access may see either value (a read of a prefetch target before its wait, or a
    /// prefetch issued into a buffer still being read). Other threads' accesses race
    /// with the copy's landing, which `log_shared` checks; program order hides this one.
    fn own_copy_in_flight(&self, t: usize, addr: u64, size: u64, what: &str) -> Result<(), Fail> {
        let th = &self.threads[t];
        let hit = th
            .async_open
            .iter()
            .chain(th.async_groups.iter().flatten())
            .any(|(a, _)| *a < addr + size && addr < *a + 4);
        if hit {
            return fail(
                ErrorKind::Race,
                format!(
                    "data race with the thread's own cp.async: it {what} shared byte \
                     {addr:#x} while its copy there is in flight (no cp.async.wait_group/\
                     wait_all orders them), so it may see either value"
                ),
            );
        }
        Ok(())
    }

    /// A read of memory nobody wrote yet: remember the error and go on with NaN, so
    /// that a write by another thread later in the epoch is reported as the race it is.
    fn uninit(&mut self, t: usize, pc: usize, at: (u64, u64), message: String) -> Val<D::V> {
        if self.pending.is_none() {
            self.pending = Some(self.err_at(t, pc, ErrorKind::NeverWritten, message));
            self.pending_rec = Some(self.rec(t, pc, at.0, at.1, false));
        }
        Val::Float(self.domain.constant(f64::NAN))
    }

    fn store(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        let size = type_bytes(ty).unwrap_or(4);
        let space = Self::space_of(ins);
        let (Some(dst), Some(src)) = (ins.operands.first(), ins.operands.get(1)) else {
            return fail(ErrorKind::Malformed, "st needs an address and a value");
        };
        let srcs: Vec<&Operand> = match src {
            Operand::Vector(xs) => xs.iter().collect(),
            s => vec![s],
        };
        let base = match self.address(t, dst)? {
            Addr::Param(_) => return unsupported("stores to parameters"),
            Addr::Sym(..) => return unsupported("a store at a data-dependent address"),
            Addr::At(a) => a,
        };
        for (k, s) in srcs.into_iter().enumerate() {
            let v = self.read(t, s, ty)?;
            let addr = base.wrapping_add(k as u64 * size);
            match self.place(t, addr, size, space)? {
                Place::Tensor(i, off) => {
                    if size != ELEM_BYTES || off % ELEM_BYTES != 0 {
                        return unsupported(format!(
                            "a {size}-byte global store at byte {off} (tensors hold 4-byte floats)"
                        ));
                    }
                    let td = &self.inst.tensors[i];
                    if td.role == Role::In {
                        return fail(
                            ErrorKind::WriteToInput,
                            format!(
                                "store into `{}`{:?}, which the launch declares as an input",
                                td.name,
                                td.unravel((off / ELEM_BYTES) as usize)
                            ),
                        );
                    }
                    self.log_global(t, pc, i, off, size, true)?;
                    let fv = self.float(v, "f32")?;
                    let site = match self.sites.get(&pc) {
                        Some(&s) => s,
                        None => {
                            self.store_sites.push(StoreSite {
                                line: ins.line,
                                loc: ins.loc.clone(),
                            });
                            let s = self.store_sites.len() - 1;
                            self.sites.insert(pc, s);
                            s
                        }
                    };
                    self.global[i][(off / ELEM_BYTES) as usize] = Some((fv, site));
                }
                Place::Shared(_, _) => {
                    self.own_copy_in_flight(t, addr, size, "writes")?;
                    self.log_shared(t, pc, addr, size, true)?;
                    self.shared.insert(addr, (v, size));
                }
                Place::Local(a) => {
                    self.threads[t].local.insert(a, v);
                }
                Place::Init(vi, _) => {
                    return unsupported(format!(
                        "a store into the initialised module variable `{}`",
                        self.vars[vi].name
                    ))
                }
            }
        }
        Ok(())
    }

    fn rec(&self, t: usize, pc: usize, addr: u64, size: u64, write: bool) -> Rec {
        let th = &self.threads[t];
        Rec {
            cta: self.cta,
            thread: t,
            epoch: self.epoch,
            clock: th.vc[th.lane],
            write,
            instr: pc,
            addr,
            size,
        }
    }

    /// Whether `a` (logged earlier) is ordered before the current access of thread `t`.
    fn ordered(&self, a: &Rec, t: usize) -> bool {
        if a.cta != self.cta {
            return false;
        }
        if a.thread == t || a.epoch < self.epoch {
            return true;
        }
        let th = &self.threads[t];
        let other = &self.threads[a.thread];
        other.warp == th.warp && th.vc[other.lane] >= a.clock
    }

    fn check(&self, log: &Log, r: &Rec, t: usize, what: &str) -> Result<(), Fail> {
        let others = if r.write {
            log.writes.iter().chain(log.reads.iter())
        } else {
            log.writes.iter().chain([].iter())
        };
        for a in others {
            let overlap = a.addr < r.addr + r.size && r.addr < a.addr + a.size;
            if !overlap || (a.cta == r.cta && a.thread == t) || self.ordered(a, t) {
                continue;
            }
            // A read of unwritten memory that is not itself part of this race is the
            // kernel's first fault (the race only repeats it).
            if let Some(p) = &self.pending_rec {
                let same = |x: &Rec| {
                    x.cta == p.cta && x.thread == p.thread && x.instr == p.instr && x.addr == p.addr
                };
                if !same(a) && !same(r) {
                    return Err((ErrorKind::NeverWritten, PENDING.into()));
                }
            }
            return Err((ErrorKind::Race, self.race_message(a, r, what)));
        }
        Ok(())
    }

    fn describe(&self, r: &Rec) -> String {
        let ins = &self.entry.body[r.instr];
        let tid = if r.cta == self.cta {
            let [x, y, z] = self.tid_of(r.thread);
            format!("thread ({x}, {y}, {z})")
        } else {
            let [x, y, z] = self.tid_of(r.thread);
            let [a, b, c] = r.cta;
            format!("thread ({x}, {y}, {z}) of CTA ({a}, {b}, {c})")
        };
        let mut src = String::new();
        if ins.loc.file.is_some() {
            src = format!(", source {}", ins.loc);
            if let Some(inner) = &ins.inner {
                src.push_str(&format!(" (inlined line {})", inner.line));
            }
        }
        format!(
            "{tid} {} at line {} (`{}`{src})",
            if r.write { "writes" } else { "reads" },
            ins.line,
            ins.mnemonic()
        )
    }

    fn race_message(&self, a: &Rec, b: &Rec, what: &str) -> String {
        let sync = if a.cta != b.cta {
            "in different CTAs"
        } else if self.threads[a.thread].warp == self.threads[b.thread].warp {
            "with no bar.sync or bar.warp.sync between them"
        } else {
            "with no bar.sync between them"
        };
        format!(
            "data race on {what}: {} and {} {sync}",
            self.describe(a),
            self.describe(b)
        )
    }

    fn log_shared(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        size: u64,
        write: bool,
    ) -> Result<(), Fail> {
        let r = self.rec(t, pc, addr, size, write);
        let key = addr & !3;
        let what = self
            .vars
            .iter()
            .find(|v| addr >= v.addr && addr < v.addr + v.bytes)
            .map_or_else(
                || format!("shared address {addr:#x}"),
                |v| {
                    format!(
                        "shared `{}[{}]` (byte {})",
                        v.name,
                        (addr - v.addr) / size.max(1),
                        addr - v.addr
                    )
                },
            );
        let mut keys = vec![key];
        if size > 4 {
            keys.extend((1..size.div_ceil(4)).map(|k| key + 4 * k));
        }
        for k in keys {
            let log = self.shared_log.remove(&k).unwrap_or_default();
            let res = self.check(&log, &r, t, &what);
            let mut log = log;
            if res.is_ok() {
                if write {
                    log.writes.push(r.clone());
                } else {
                    log.reads.push(r.clone());
                }
            }
            self.shared_log.insert(k, log);
            res?;
        }
        Ok(())
    }

    fn log_global(
        &mut self,
        t: usize,
        pc: usize,
        i: usize,
        off: u64,
        size: u64,
        write: bool,
    ) -> Result<(), Fail> {
        let r = self.rec(t, pc, off, size, write);
        let td = &self.inst.tensors[i];
        let what = format!("`{}`{:?}", td.name, td.unravel((off / ELEM_BYTES) as usize));
        let key = (i, off);
        let mut log = self.global_log.remove(&key).unwrap_or_default();
        // Accesses of this CTA from earlier epochs can never conflict again.
        let (cta, epoch) = (self.cta, self.epoch);
        log.reads.retain(|a| a.cta != cta || a.epoch == epoch);
        log.writes.retain(|a| a.cta != cta || a.epoch == epoch);
        let res = self.check(&log, &r, t, &what);
        if res.is_ok() {
            if write {
                log.writes.push(r);
            } else if !log.writes.is_empty() || td.role != Role::In {
                log.reads.push(r);
            }
        }
        self.global_log.insert(key, log);
        res
    }

    // ----- arithmetic -----

    fn setp(&mut self, t: usize, ins: &Instr) -> Result<(), Fail> {
        let ops = &ins.operands;
        if ops.len() < 3 {
            return fail(ErrorKind::Malformed, "setp needs d, a, b");
        }
        let ty = ins.mods.last().map_or("", |s| s.as_str());
        let cmp = ins.mods.first().map_or("", |s| s.as_str());
        let a = self.read(t, &ops[1], ty)?;
        let b = self.read(t, &ops[2], ty)?;
        let r: Truth<D::V> = if is_float_ty(ty) {
            let (fa, fb) = (self.float(a, ty)?, self.float(b, ty)?);
            let op = match cmp.trim_end_matches('u') {
                "eq" => CmpOp::Eq,
                "ne" => CmpOp::Ne,
                "lt" => CmpOp::Lt,
                "le" => CmpOp::Le,
                "gt" => CmpOp::Gt,
                "ge" => CmpOp::Ge,
                "num" => {
                    return unsupported("setp.num (NaN tests)");
                }
                _ => return unsupported(format!("float comparison .{cmp}")),
            };
            self.domain.cmp(op, fa, fb)
        } else if self.is_symbolic(a) || self.is_symbolic(b) {
            let (sa, sb) = (self.sym_arg(a, ty)?, self.sym_arg(b, ty)?);
            Truth::Unknown(self.opaque(&format!("setp.{cmp}.{ty}"), &[sa, sb])?)
        } else {
            let w = width(ty);
            let (x, y) = (self.int(a, ty)?, self.int(b, ty)?);
            let signed = ty.starts_with('s');
            let (sx, sy) = (sext(x, w), sext(y, w));
            Truth::Known(match cmp {
                "eq" => x == y,
                "ne" => x != y,
                "lt" if signed => sx < sy,
                "le" if signed => sx <= sy,
                "gt" if signed => sx > sy,
                "ge" if signed => sx >= sy,
                "lt" | "lo" => x < y,
                "le" | "ls" => x <= y,
                "gt" | "hi" => x > y,
                "ge" | "hs" => x >= y,
                _ => return unsupported(format!("integer comparison .{cmp}")),
            })
        };
        let mut v = Self::from_truth(r);
        // setp.cmp.bop.type d, a, b, {!}c
        if let Some(bop) = ins
            .mods
            .get(1)
            .filter(|m| matches!(m.as_str(), "and" | "or" | "xor"))
        {
            let c = self.read(t, ops.get(3).unwrap_or(&Operand::Sink), "pred")?;
            v = self.logic(bop, v, c)?;
        }
        match &ops[0] {
            Operand::Pair(d, q) => {
                let nv = self.not(v)?;
                self.write(t, d, v)?;
                self.write(t, q, nv)
            }
            d => self.write(t, d, v),
        }
    }

    fn logic(&mut self, op: &str, a: Val<D::V>, b: Val<D::V>) -> Result<Val<D::V>, Fail> {
        let (ta, tb) = (self.truth(a)?, self.truth(b)?);
        Ok(match (op, ta, tb) {
            ("and", Truth::Known(x), Truth::Known(y)) => Val::Pred(x && y),
            ("or", Truth::Known(x), Truth::Known(y)) => Val::Pred(x || y),
            ("xor", Truth::Known(x), Truth::Known(y)) => Val::Pred(x != y),
            ("and", Truth::Known(false), _) | ("and", _, Truth::Known(false)) => Val::Pred(false),
            ("or", Truth::Known(true), _) | ("or", _, Truth::Known(true)) => Val::Pred(true),
            ("and" | "or", Truth::Known(_), u) | ("and" | "or", u, Truth::Known(_)) => {
                Self::from_truth(u)
            }
            ("and", Truth::Unknown(x), Truth::Unknown(y)) => {
                Self::from_truth(self.domain.and(x, y))
            }
            ("or", Truth::Unknown(x), Truth::Unknown(y)) => Self::from_truth(self.domain.or(x, y)),
            _ => return unsupported(format!("{op} of data-dependent predicates")),
        })
    }

    fn cvt(&mut self, t: usize, ins: &Instr) -> Result<(), Fail> {
        let n = ins.mods.len();
        if n < 2 || ins.operands.len() < 2 {
            return fail(ErrorKind::Malformed, "cvt needs .dtype.atype and d, a");
        }
        let (dty, aty) = (ins.mods[n - 2].as_str(), ins.mods[n - 1].as_str());
        let a = self.read(t, &ins.operands[1], aty)?;
        let rnd = ins.mods[..n - 2]
            .iter()
            .find(|m| {
                matches!(
                    m.as_str(),
                    "rn" | "rz" | "rm" | "rp" | "rni" | "rzi" | "rmi" | "rpi"
                )
            })
            .map_or("", |s| s.as_str());
        let sat = ins.has("sat");
        if self.is_symbolic(a) {
            let mn = ins.mnemonic();
            let v = match (is_float_ty(dty), is_float_ty(aty)) {
                (false, false) => self.sym_op(&mn, &[a], aty)?,
                (true, false) => {
                    let x = self.sym_arg(a, aty)?;
                    Val::Float(self.opaque(&mn, &[x])?)
                }
                (false, true) => {
                    let x = self.float(a, aty)?;
                    Val::Sym(self.opaque(&mn, &[x])?)
                }
                (true, true) if matches!(rnd, "rni" | "rzi") => {
                    let x = self.float(a, aty)?;
                    let mut x = self.opaque(&mn, &[x])?;
                    if sat {
                        x = self.saturate(x);
                    }
                    Val::Float(x)
                }
                (true, true) => a,
            };
            if !matches!((is_float_ty(dty), is_float_ty(aty)), (true, true))
                || matches!(rnd, "rni" | "rzi")
            {
                return self.write(t, &ins.operands[0], v);
            }
        }
        let v = match (is_float_ty(dty), is_float_ty(aty)) {
            (false, false) => {
                let (wa, wd) = (width(aty), width(dty));
                let x = self.int(a, aty)?;
                let x = if aty.starts_with('s') {
                    sext(x, wa) as u64
                } else {
                    x
                };
                if sat {
                    return unsupported("cvt.sat between integer types");
                }
                Val::Bits(mask_w(x, wd))
            }
            (true, false) => {
                let x = self.int(a, aty)?;
                let n = if aty.starts_with('s') {
                    sext(x, width(aty)) as f64
                } else {
                    x as f64
                };
                Val::Float(self.domain.constant(n))
            }
            (true, true) => {
                let mut x = self.float(a, aty)?;
                let f = match rnd {
                    "rmi" => Some(Func::Floor),
                    "rpi" => Some(Func::Ceil),
                    // `--precision ieee`: a narrowing to f16/bf16 rounds to nearest even.
                    "rn" if self.domain.precision() == Precision::Ieee
                        && matches!(aty, "f32" | "f64") =>
                    {
                        match dty {
                            "f16" => Some(Func::RoundF16),
                            "bf16" => Some(Func::RoundBf16),
                            _ => None,
                        }
                    }
                    "rni" | "rzi" => {
                        let Some(n) = self.domain.as_number(x) else {
                            return unsupported(format!("cvt.{rnd} of a symbolic value"));
                        };
                        let r = if rnd == "rzi" {
                            n.trunc()
                        } else {
                            n.round_ties_even()
                        };
                        x = self.domain.constant(r);
                        None
                    }
                    _ => None,
                };
                if let Some(f) = f {
                    x = self.domain.func(f, x);
                }
                if sat {
                    x = self.saturate(x);
                }
                Val::Float(x)
            }
            (false, true) => {
                let x = self.float(a, aty)?;
                let Some(n) = self.domain.as_number(x) else {
                    return unsupported("conversion of a symbolic float to an integer");
                };
                let r = match rnd {
                    "rzi" | "" => n.trunc(),
                    "rmi" => n.floor(),
                    "rpi" => n.ceil(),
                    _ => n.round_ties_even(),
                };
                let wd = width(dty);
                let bits = if dty.starts_with('s') {
                    let lim = (1i128 << (wd - 1)) as f64;
                    (r.clamp(-lim, lim - 1.0) as i64) as u64
                } else {
                    let lim = if wd >= 64 {
                        u64::MAX as f64
                    } else {
                        ((1u64 << wd) - 1) as f64
                    };
                    r.clamp(0.0, lim) as u64
                };
                Val::Bits(mask_w(bits, wd))
            }
        };
        self.write(t, &ins.operands[0], v)
    }

    fn saturate(&mut self, x: D::V) -> D::V {
        let (zero, one) = (self.domain.constant(0.0), self.domain.constant(1.0));
        let lo = self.domain.binary(Binary::Max, x, zero);
        self.domain.binary(Binary::Min, lo, one)
    }

    fn arith(&mut self, t: usize, ins: &Instr, ty: &str) -> Result<Val<D::V>, Fail> {
        const KNOWN: &[&str] = &[
            "add", "sub", "mul", "mad", "fma", "div", "rem", "min", "max", "neg", "abs", "and",
            "or", "xor", "not", "cnot", "shl", "shr", "bfe", "popc", "clz", "brev", "ex2", "lg2",
            "sqrt", "rsqrt", "tanh", "sin", "cos", "rcp", "addc", "madc", "shf",
        ];
        if !KNOWN.contains(&ins.op.as_str()) {
            return unsupported(format!("instruction {} is not supported", ins.mnemonic()));
        }
        let ops = &ins.operands;
        let mut args = Vec::with_capacity(ops.len().saturating_sub(1));
        // mad.wide's addend has the doubled width.
        let wide_ty = match ty {
            "s32" => "s64",
            "u32" => "u64",
            "s16" => "s32",
            "u16" => "u32",
            t => t,
        };
        let wide_mad = ins.op == "mad" && ins.has("wide");
        for (k, o) in ops.iter().skip(1).enumerate() {
            let oty = if wide_mad && k == 2 { wide_ty } else { ty };
            args.push(self.read(t, o, oty)?);
        }
        let arg = |i: usize| -> Result<Val<D::V>, Fail> {
            args.get(i).copied().ok_or_else(|| {
                (
                    ErrorKind::Malformed,
                    format!("expected {} source operands", i + 1),
                )
            })
        };
        let op = ins.op.as_str();
        if ty == "pred" {
            return match op {
                "and" | "or" | "xor" => self.logic(op, arg(0)?, arg(1)?),
                "not" => self.not(arg(0)?),
                _ => unsupported(format!("{} on predicates", ins.mnemonic())),
            };
        }
        if is_float_ty(ty) {
            return self.float_op(ins, ty, &args);
        }
        // Float-carrying bit registers: abs and neg by masks on symbolic floats.
        if let (Some(Val::Float(x)), Some(Val::Bits(m))) = (args.first(), args.get(1)) {
            let w = width(ty);
            if self.domain.as_number(*x).is_none() && w == 32 {
                match (op, *m as u32) {
                    ("and", 0x7FFF_FFFF) => return Ok(Val::Float(self.domain.func(Func::Abs, *x))),
                    ("xor", 0x8000_0000) => return Ok(Val::Float(self.domain.neg(*x))),
                    ("or", 0x8000_0000) => {
                        let a = self.domain.func(Func::Abs, *x);
                        return Ok(Val::Float(self.domain.neg(a)));
                    }
                    _ => {}
                }
            }
        }
        let uses_carry = matches!(op, "addc" | "madc");
        let carry_in = if uses_carry {
            match self.threads[t].carry {
                Some(c) => Some(c),
                None => {
                    return fail(
                        ErrorKind::Malformed,
                        "the carry flag is read before it is set",
                    )
                }
            }
        } else {
            None
        };
        if args.iter().any(|a| self.is_symbolic(*a))
            || carry_in.is_some_and(|c| self.is_symbolic(c))
        {
            let mut all = args.clone();
            all.extend(carry_in);
            let mn = ins.mnemonic();
            if ins.has("cc") {
                let c = self.sym_op(&format!("{mn}:carry"), &all, ty)?;
                self.threads[t].carry = Some(c);
            }
            return self.sym_op(&mn, &all, ty);
        }
        let w = width(ty);
        let signed = ty.starts_with('s');
        let mut xs = Vec::with_capacity(args.len());
        for a in &args {
            xs.push(self.int(*a, ty)?);
        }
        let x = |i: usize| -> Result<u64, Fail> {
            xs.get(i).copied().ok_or_else(|| {
                (
                    ErrorKind::Malformed,
                    format!("expected {} source operands", i + 1),
                )
            })
        };
        let s = |v: u64| sext(v, w);
        let wide = ins.has("wide");
        let hi = ins.has("hi");
        let mul = |a: u64, b: u64| -> u64 {
            if wide {
                if signed {
                    (s(a) as i128 * s(b) as i128) as u64
                } else {
                    (a as u128 * b as u128) as u64
                }
            } else if hi {
                if signed {
                    ((s(a) as i128 * s(b) as i128) >> w) as u64
                } else {
                    ((a as u128 * b as u128) >> w) as u64
                }
            } else {
                a.wrapping_mul(b)
            }
        };
        let out_w = if wide { (2 * w).min(64) } else { w };
        if uses_carry || (ins.has("cc") && matches!(op, "add" | "mad")) {
            let cin = match carry_in {
                Some(c) => self.int(c, "u32")? & 1,
                None => 0,
            };
            let sum: u128 = match op {
                "add" | "addc" => x(0)? as u128 + x(1)? as u128 + cin as u128,
                _ => mask_w(mul(x(0)?, x(1)?), w) as u128 + x(2)? as u128 + cin as u128,
            };
            if ins.has("cc") {
                self.threads[t].carry = Some(Val::Bits(((sum >> w) & 1) as u64));
            }
            return Ok(Val::Bits(mask_w(sum as u64, w)));
        }
        let r: u64 = match op {
            "add" => x(0)?.wrapping_add(x(1)?),
            "sub" => x(0)?.wrapping_sub(x(1)?),
            "mul" => mul(x(0)?, x(1)?),
            "mad" => {
                let c = if wide_mad {
                    let c = *args
                        .get(2)
                        .ok_or((ErrorKind::Malformed, "mad needs 3 sources".to_string()))?;
                    self.int(c, wide_ty)?
                } else {
                    x(2)?
                };
                mul(x(0)?, x(1)?).wrapping_add(c)
            }
            "div" | "rem" => {
                let (a, b) = (x(0)?, x(1)?);
                if b == 0 {
                    return fail(ErrorKind::Unsupported, "integer division by zero");
                }
                match (op, signed) {
                    ("div", true) => s(a).wrapping_div(s(b)) as u64,
                    ("rem", true) => s(a).wrapping_rem(s(b)) as u64,
                    ("div", false) => a / b,
                    _ => a % b,
                }
            }
            "min" | "max" => {
                let (a, b) = (x(0)?, x(1)?);
                let less = if signed { s(a) < s(b) } else { a < b };
                if (op == "min") == less {
                    a
                } else {
                    b
                }
            }
            "neg" => x(0)?.wrapping_neg(),
            "abs" => s(x(0)?).unsigned_abs(),
            "and" => x(0)? & x(1)?,
            "or" => x(0)? | x(1)?,
            "xor" => x(0)? ^ x(1)?,
            "not" => !x(0)?,
            "cnot" => (x(0)? == 0) as u64,
            "shl" => {
                let n = x(1)?;
                if n >= w as u64 {
                    0
                } else {
                    x(0)? << n
                }
            }
            "shr" => {
                let n = x(1)?.min(w as u64 - 1 + (!signed) as u64);
                if signed {
                    (s(x(0)?) >> n.min(63)) as u64
                } else if n >= w as u64 {
                    0
                } else {
                    x(0)? >> n
                }
            }
            "bfe" => {
                let (a, pos, len) = (x(0)?, x(1)? & 0xff, x(2)? & 0xff);
                let pos = pos.min(w as u64);
                let len = len.min(w as u64 - pos);
                let field = if len == 0 {
                    0
                } else {
                    mask_w(a >> pos, len as u32)
                };
                if signed && len > 0 {
                    sext(field, len as u32) as u64
                } else {
                    field
                }
            }
            "shf" => {
                // Funnel shift of the 64-bit b:a by c.
                let n = if ins.has("wrap") {
                    x(2)? & 31
                } else {
                    x(2)?.min(32)
                };
                let both = (x(1)? & 0xffff_ffff) << 32 | (x(0)? & 0xffff_ffff);
                if ins.has("l") {
                    (((both as u128) << n) >> 32) as u64
                } else {
                    both >> n
                }
            }
            "popc" => x(0)?.count_ones() as u64,
            "clz" => (mask_w(x(0)?, w).leading_zeros() - (64 - w)) as u64,
            "brev" => mask_w(x(0)?, w).reverse_bits() >> (64 - w),
            _ => return unsupported(format!("instruction {}", ins.mnemonic())),
        };
        let dw = match op {
            "popc" | "clz" => 32,
            _ => out_w,
        };
        Ok(Val::Bits(mask_w(r, dw)))
    }

    fn float_op(&mut self, ins: &Instr, ty: &str, args: &[Val<D::V>]) -> Result<Val<D::V>, Fail> {
        let mut fs = Vec::with_capacity(args.len());
        for a in args {
            fs.push(self.float(*a, ty)?);
        }
        let f = |i: usize| -> Result<D::V, Fail> {
            fs.get(i).copied().ok_or_else(|| {
                (
                    ErrorKind::Malformed,
                    format!("expected {} source operands", i + 1),
                )
            })
        };
        let d = &mut *self.domain;
        let op = ins.op.as_str();
        let mut r = match op {
            "add" => d.binary(Binary::Add, f(0)?, f(1)?),
            "sub" => d.binary(Binary::Sub, f(0)?, f(1)?),
            "mul" => d.binary(Binary::Mul, f(0)?, f(1)?),
            "div" => d.binary(Binary::Div, f(0)?, f(1)?),
            "fma" | "mad" => {
                let p = d.binary(Binary::Mul, f(0)?, f(1)?);
                d.binary(Binary::Add, p, f(2)?)
            }
            "min" => d.binary(Binary::Min, f(0)?, f(1)?),
            "max" => d.binary(Binary::Max, f(0)?, f(1)?),
            "neg" => d.neg(f(0)?),
            "abs" => d.func(Func::Abs, f(0)?),
            "ex2" => d.func(Func::Exp2, f(0)?),
            "lg2" => d.func(Func::Log2, f(0)?),
            "sqrt" => d.func(Func::Sqrt, f(0)?),
            "rsqrt" => d.func(Func::Rsqrt, f(0)?),
            "tanh" => d.func(Func::Tanh, f(0)?),
            "sin" => d.func(Func::Sin, f(0)?),
            "cos" => d.func(Func::Cos, f(0)?),
            "rcp" => {
                let one = d.constant(1.0);
                d.binary(Binary::Div, one, f(0)?)
            }
            "mov" => f(0)?,
            "copysign" => return unsupported("copysign"),
            _ => return unsupported(format!("instruction {}", ins.mnemonic())),
        };
        // Directed rounding (the 1.5 * 2^23 shifter idiom of expf) matters to the bit
        // tricks that follow; it is applied where the value is a number.
        if ty == "f32" {
            if let Some(mode) = ins
                .mods
                .iter()
                .find(|m| matches!(m.as_str(), "rm" | "rp" | "rz"))
            {
                if let Some(x) = self.domain.as_number(r) {
                    r = self.domain.constant(round_f32(x, mode));
                }
            }
        }
        if ins.has("sat") {
            r = self.saturate(r);
        }
        Ok(Val::Float(r))
    }
}
