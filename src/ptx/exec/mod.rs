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
//! unordered with every later access of other threads. `ldmatrix` and `mma.sync` are warp
//! collectives (`mma`: packed halves, `ldmatrix .trans`, the tensor-core product);
//! `wgmma.mma_async` runs per warp of its warpgroup and stays in flight until its
//! `wgmma.wait_group` (`wgmma`).
//!
//! Layout (one concern per file): `mod.rs` the thread and CTA state and the scheduler
//! loop (`step`, `exec`, `exec_body` dispatch); `params` launch binding; `values`
//! register values and operands; `branch` data-dependent control flow (if-conversion);
//! `sync` barriers and warp collectives; `memory` addresses, loads, stores, `cp.async`;
//! `race` the access log and the race rule; `arith` arithmetic instruction semantics.

use super::ast::type_bytes;
use super::ast::*;
use crate::exec::domain::{Binary, Domain, Precision, Truth};
use crate::exec::{Clash, ErrorKind, ExecError, Execution, StoreSite, MAX_OPS};
use crate::launch::{ArgValue, Instance, Role};
use crate::term::{CmpOp, Func};
use crate::triton_ir::ast::Loc;
use rustc_hash::FxHashMap;
use std::collections::{BTreeMap, HashMap};

mod arith;
mod atomic;
mod branch;
mod clock;
mod cluster;
mod every;
mod gather;
mod mbarrier;
mod memory;
mod mma;
mod multicast;
mod params;
mod place;
mod race;
mod repeat;
mod slope;
mod spin;
mod sums;
mod sync;
mod tagset;
mod tcgen05;
mod tensormap;
mod typed;
mod uses;
mod values;
mod wgmma;

pub(crate) use atomic::in_retry_loop;
use atomic::{Hold, Locks};
use branch::{Cell, Journal};
use clock::VClock;
pub use every::{refused as count_refused, Proof as CountProof, Setup as CountSetup};
pub use params::launch_arg_order;
use params::*;
use place::LocKey;
pub use race::BenignRace;
use race::*;
use sums::escaped;
use values::*;

/// Shared variables live at `SHARED_BASE..`, below 2^32 (Triton uses 32-bit shared
/// addresses); each thread's `.local` variables at `LOCAL_BASE..`; module `.global`
/// variables at `GVAR_BASE..`; tensor `i` at `(i + 1) << 40`.
///
/// Consecutive shared variables are `SHARED_GAP` bytes apart, more than a CTA's
/// whole shared memory: an index past the end (or before the start) of one array
/// lands in no variable and is `OutOfBounds`, never silently in its neighbour
/// (addresses carry no provenance). Every unsized `.extern .shared` array is the
/// CTA's one dynamic shared memory, so they all start at the same address, as in CUDA.
const SHARED_BASE: u64 = 0x1000;
const SHARED_GAP: u64 = 1 << 20;
const LOCAL_BASE: u64 = 0x4000_0000;
const GVAR_BASE: u64 = 1 << 36;
const TENSOR_SHIFT: u32 = 40;
/// Kernel parameter `i`'s address (taken with `mov`): `PARAM_BASE + (i << PARAM_SHIFT)`.
const PARAM_BASE: u64 = 1 << 34;
const PARAM_SHIFT: u32 = 16;

/// A register value: raw bits (integers, addresses, float bit patterns), a real of the
/// domain, a decided predicate, an undecided predicate of the domain, or integer bits
/// that depend on the data (an opaque term of the domain: bit tricks on a float, a
/// float→int conversion, a load at a data-dependent local address).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Val<V> {
    Bits(u64),
    /// A float accumulator still being summed (see `sums`): only registers hold one.
    Sum(u32),
    Float(V),
    Pred(bool),
    Cond(V),
    Sym(V),
}

/// A value split by `mov {lo, hi}, x`: `x` and its parts.
type Unpacked<V> = (Val<V>, Vec<Val<V>>);

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
    /// A parameter and a byte offset into it (a field of a struct parameter).
    Param(usize, i64),
    /// A data-dependent address (an opaque integer) plus a constant offset.
    Sym(V, i64),
}

/// Deepest nesting of data-dependent branches (a data-dependent loop would recurse).
const MAX_BRANCH_DEPTH: u32 = 64;

#[derive(Clone, Copy, Debug, PartialEq)]
enum State {
    Ready,
    /// Waiting at `bar.sync` (instruction index, barrier id, threads it waits for).
    Barrier(usize, i64, usize),
    /// Blocked at an mbarrier wait (instruction, barrier address) that spins until
    /// the barrier changes (see `mbarrier`).
    MbarWait(usize, u64),
    /// Spinning at this loop head with nothing changed since the last iteration:
    /// blocked until the CTA's effect count moves from this value (see `spin`).
    Stuck(usize, u64),
    /// Waiting at `barrier.cluster.wait` (see `cluster`).
    ClusterWait(usize),
    /// Waiting at `bar.warp.sync` with this lane mask.
    WarpSync(usize, u32),
    /// Waiting at a warp collective (`shfl.sync`, `vote.sync`) with this lane mask.
    Collective(usize, u32),
    /// A spin lock's `cas` at this instruction failed: waiting until the lock word
    /// changes from this version.
    Spin(usize, LocKey, u64),
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
    /// Vector clock over the threads of the CTA (see `clock`).
    vc: VClock,
    /// `cp.async` shared writes in flight: the open group, then the committed groups
    /// (oldest first), each a list of (shared address, 32-bit word).
    async_open: Vec<(u64, Val<V>)>,
    async_groups: Vec<Vec<(u64, Val<V>)>>,
    /// Spin locks held.
    holds: Vec<Hold>,
    /// The last retry-loop atomic that left its word unchanged: (instruction, operand
    /// bits, word version); the same again blocks the thread (`atomic`).
    retry: Option<(usize, Option<u64>, Option<u64>, u64)>,
    /// A hash of the instructions run so far, in order (see `race::trace`).
    trace: u64,
    /// The clock of this thread's bulk-copy agent (see `mbarrier`).
    bulk_vc: VClock,
    /// Memory effects so far (stores, atomics, arrivals): a spinning wait blocks only
    /// if none happened since its last failure.
    effects: u64,
    /// Changes of its registers and local memory so far (a write of the value already
    /// there is none): a failed wait with the same count has the same registers.
    changes: u64,
    /// The last failed mbarrier wait (see `mbarrier`).
    probe: Option<mbarrier::Probe<V>>,
    /// Jumps since the thread last blocked, and its state at its last backward
    /// jump once they are many (see `spin`).
    run_len: u64,
    snapshot: Option<spin::Snapshot<V>>,
    /// `wgmma.mma_async` operations in flight (see `wgmma`).
    wgmma: wgmma::InFlight<V>,
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

fn fail<T>(kind: ErrorKind, msg: impl Into<String>) -> Result<T, Fail> {
    Err((kind, msg.into()))
}

fn unsupported<T>(msg: impl Into<String>) -> Result<T, Fail> {
    fail(ErrorKind::Unsupported, msg)
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
    run(module, inst, arg_order, domain, false, None).map(|(run, _, _)| run)
}

/// The run `lift race` makes: [`execute`], except that a store whose value lift cannot
/// read in its tensor's type (integer bits into a float tensor, a float's bits into
/// an integer tensor) keeps an opaque value instead of stopping, since races, bounds
/// and deadlocks depend on addresses only; and with the benign races of a run that
/// ended cleanly: conflicting accesses the PTX memory model calls races but that
/// cannot change an output (a read whose value reaches no store, address, branch or
/// other thread; warps storing one value in one instruction), one per pair of
/// instructions, in instruction order.
pub fn execute_for_races<D: Domain>(
    module: &Module,
    inst: &Instance,
    arg_order: &[String],
    domain: &mut D,
) -> Result<(Execution<D::V>, Vec<BenignRace>), ExecError> {
    run(module, inst, arg_order, domain, true, None).map(|(run, benign, _)| (run, benign))
}

/// The every-count proof (see `every`): [`execute_for_races`] at `setup.n` (a run that
/// fails fails the proof with its error), watched for a repeating state; the proof's
/// claim, or why there is none (an `Unsupported` error).
pub fn prove_count<D: Domain>(
    module: &Module,
    inst: &Instance,
    arg_order: &[String],
    domain: &mut D,
    setup: CountSetup,
) -> Result<CountProof, ExecError> {
    run(module, inst, arg_order, domain, true, Some(setup))
        .map(|(_, _, p)| p.expect("a run with a setup gives a proof"))
}

fn run<D: Domain>(
    module: &Module,
    inst: &Instance,
    arg_order: &[String],
    domain: &mut D,
    for_races: bool,
    every: Option<CountSetup>,
) -> Result<(Execution<D::V>, Vec<BenignRace>, Option<CountProof>), ExecError> {
    let top = |kind: ErrorKind, message: String| ExecError {
        kind,
        message,
        line: 0,
        loc: Loc::default(),
        program: [0; 3],
        clash: None,
        unwritten: None,
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
    let module_vars: Vec<&str> = module
        .globals
        .iter()
        .filter(|v| matches!(v.space, Space::Global | Space::Const))
        .map(|v| v.name.as_str())
        .collect();
    let (params, fields) =
        bind_params(entry, inst, arg_order, &module_vars, domain).map_err(|(kind, m)| {
            ExecError {
                line: entry.line,
                ..top(kind, m)
            }
        })?;

    // Lay out variables.
    let mut vars = Vec::new();
    let (mut shared_end, mut local_end, mut gvar_end) = (SHARED_BASE, LOCAL_BASE, GVAR_BASE);
    // Where the dynamic shared memory starts, once an unsized `.extern .shared` is seen.
    let mut dynamic_at: Option<u64> = None;
    for v in module.globals.iter().chain(&entry.vars) {
        let shared = v.space == Space::Shared;
        let end = match v.space {
            Space::Shared => &mut shared_end,
            Space::Local => &mut local_end,
            _ => &mut gvar_end,
        };
        let align = v.align.max(if shared && v.dynamic { 16 } else { 1 });
        let start = if shared && *end > SHARED_BASE {
            *end + SHARED_GAP
        } else {
            *end
        };
        let mut addr = start.div_ceil(align) * align;
        let bytes = if v.dynamic && shared {
            inst.dynamic_shared
                .unwrap_or(crate::launch::DEFAULT_DYNAMIC_SHARED)
        } else {
            v.bytes
        };
        match (shared && v.dynamic, dynamic_at) {
            (true, Some(at)) => addr = at,
            (true, None) => {
                dynamic_at = Some(addr);
                *end = addr + bytes;
            }
            _ => *end = addr + bytes,
        }
        if shared && *end > LOCAL_BASE {
            return Err(top(
                ErrorKind::Launch,
                format!(
                    "shared variables take more than {} bytes of address space (`{}`)",
                    LOCAL_BASE - SHARED_BASE,
                    v.name
                ),
            ));
        }
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
    // Elements of integer input tensors are integers in their dtype's range.
    for (i, t) in inst.tensors.iter().enumerate() {
        if let (Some((lo, hi)), true) = (t.dtype.int_range(), t.role != Role::Out) {
            domain.declare_int_input(i, lo, hi);
            if let Some(v) = &t.values {
                domain.declare_int_values(i, v);
            }
        }
    }
    let races = !domain.values_only();
    let mut sim = Sim {
        entry,
        inst,
        domain,
        block,
        params,
        fields,
        vars,
        cta: [0; 3],
        threads: Vec::new(),
        epoch: 0,
        shared: FxHashMap::default(),
        shared_log: FxHashMap::default(),
        global: inst.tensors.iter().map(|t| vec![None; t.numel()]).collect(),
        global_log: FxHashMap::default(),
        partial: HashMap::new(),
        pieces: Vec::new(),
        inputs: Vec::new(),
        sites: HashMap::new(),
        store_sites: Vec::new(),
        ops: 0,
        pending: None,
        pending_rec: None,
        branch_depth: 0,
        ipdom: None,
        path: None,
        journal: Vec::new(),
        at: None,
        atomic_now: false,
        locks: Locks::default(),
        clash: None,
        unpacked: Vec::new(),
        abs_args: Vec::new(),
        sums: Default::default(),
        bit_selects: Vec::new(),
        uses: uses::Uses::default(),
        races,
        store_val: None,
        benign: BTreeMap::new(),
        untyped_stores: for_races,
        mbars: BTreeMap::new(),
        bulk_phase: HashMap::new(),
        world: 0,
        named: HashMap::new(),
        synced: false,
        tmem: Default::default(),
        every: None,
        tmaps: Default::default(),
        cluster: None,
        visiting: None,
    };
    if let Some(setup) = every {
        let param = every::count_param(entry, arg_order, &setup.arg)
            .filter(|&i| sim.params.get(i) == Some(&Val::Bits(setup.n as u64)))
            .ok_or_else(|| {
                top(
                    ErrorKind::Unsupported,
                    format!("no parameter holds the count `{}`", setup.arg),
                )
            })?;
        sim.every = Some(Box::new(every::State::new(setup, param)));
    }
    let dims = cluster::dims(entry, inst).map_err(|m| top(ErrorKind::Launch, m))?;
    match dims {
        Some(_) if sim.every.is_some() => {
            return Err(top(
                ErrorKind::Unsupported,
                "for every count: clusters of CTAs are not covered".into(),
            ))
        }
        Some(d) => {
            sim.cluster = Some(Box::new(cluster::Cluster::new(d)));
            for ctas in cluster::clusters(inst, d) {
                sim.run_cluster(ctas)?;
            }
            sim.cluster = None;
        }
        None => {
            for cta in ctas {
                sim.run_cta(cta)?;
                sim.every_cta_done()
                    .map_err(|m| top(ErrorKind::Unsupported, m))?;
            }
        }
    }
    let proof = sim.every.as_ref().map(|e| e.proof());
    let (run, benign) = sim.finish();
    Ok((run, benign, proof))
}

struct Sim<'a, D: Domain> {
    entry: &'a Entry,
    inst: &'a Instance,
    domain: &'a mut D,
    block: [i64; 3],
    params: Vec<Val<D::V>>,
    /// The launch's fields of each struct parameter passed by value (empty for others).
    fields: Vec<Fields>,
    vars: Vec<Var>,
    cta: [i64; 3],
    threads: Vec<Thread<D::V>>,
    /// Barrier epoch of the current CTA (bar.sync releases so far).
    epoch: u32,
    shared: FxHashMap<u64, (Val<D::V>, u64)>,
    shared_log: FxHashMap<u64, Log<D::V>>,
    /// Written elements of each tensor: value and store site.
    global: Vec<Written<D::V>>,
    global_log: FxHashMap<(usize, u64), Log<D::V>>,
    /// Output elements written byte by byte, not yet whole (see `typed`).
    partial: typed::Partial<D::V>,
    /// Pieces of data-dependent elements read byte-wise (see `typed`).
    pieces: Vec<typed::Piece<D::V>>,
    /// Input elements read so far, by tensor and flat index (a cache of
    /// `Domain::input`, sized at a tensor's first read).
    inputs: Vec<Vec<Option<D::V>>>,
    sites: HashMap<usize, usize>,
    store_sites: Vec<StoreSite>,
    ops: u64,
    /// The first read of memory nobody had written: an error unless a later write by
    /// another thread of the same epoch turns it into a race.
    pending: Option<ExecError>,
    /// That read, as logged.
    pending_rec: Option<Rec<D::V>>,
    /// Data-dependent branches being if-converted around the current instruction.
    branch_depth: u32,
    /// Immediate post-dominator of each instruction (computed at the first
    /// data-dependent branch); `body.len()` is the exit.
    ipdom: Option<Vec<usize>>,
    /// The path condition of the code being run: the conjunction of the data-dependent
    /// branch conditions around it (`None` outside any).
    path: Option<D::V>,
    /// One journal per enclosing path of a data-dependent branch: the shared and
    /// global cells the path wrote, with their values before it (see `branch`).
    journal: Vec<Journal<D::V>>,
    /// The instruction being run inside a data-dependent branch (`None` outside one):
    /// an error there is reported at it, not at the branch.
    at: Option<usize>,
    /// The access being logged is an atomic.
    atomic_now: bool,
    /// Atomics and spin locks (see `atomic`).
    locks: Locks<D::V>,
    /// What collided in the race being reported (set with its `ErrorKind::Race`).
    clash: Option<Clash>,
    /// Registers split by `mov.b64 {lo, hi}, x`: (whole, parts), so that packing the
    /// same parts again gives `x` back (see `values::pack`).
    unpacked: Vec<Unpacked<D::V>>,
    /// `abs(x)` values made by masking a float's sign bit, with their `x`.
    abs_args: Vec<(D::V, D::V)>,
    /// Pending float sums of this CTA's registers.
    sums: sums::Sums<D::V>,
    /// `selp` between two constant bit patterns under a data-dependent condition:
    /// (the opaque choice, the condition, the two patterns).
    bit_selects: Vec<(D::V, D::V, u64, u64)>,
    /// Which loaded values each thread used (see `uses`).
    uses: uses::Uses,
    /// Whether races and load uses are logged (not in a values-only run).
    races: bool,
    /// The value of the store being logged (see `race::Rec::value`).
    store_val: Option<Val<D::V>>,
    /// Races no output depends on, by pair of instructions (see `race::Benign`).
    benign: BTreeMap<(usize, usize), race::Benign>,
    /// A store lift cannot read in its tensor's type keeps an opaque value (`lift
    /// race`: only addresses matter) instead of stopping the run.
    untyped_stores: bool,
    /// The CTA's mbarriers by shared address (see `mbarrier`).
    mbars: BTreeMap<u64, mbarrier::MBar>,
    /// The mbarrier and phase each bulk copy (copy agent, instruction) last completed
    /// bytes on, named when its write races.
    bulk_phase: HashMap<(usize, usize), (u64, u32)>,
    /// Arrivals at named barriers by `bar.arrive` (barrier id → count, their clocks).
    named: HashMap<i64, (usize, VClock)>,
    /// Memory effects of every thread of the CTA so far (see `spin`).
    world: u64,
    /// The CTA orders threads by clocks beyond warps (mbarriers, bulk copies, barriers
    /// for part of the CTA): a `bar.sync` of the whole CTA then joins every clock and
    /// keeps the copy agents' writes in the log.
    synced: bool,
    /// Tensor memory and the tcgen05 operations of the CTA (see `tcgen05`).
    tmem: tcgen05::Tmem<D::V>,
    /// The every-count proof watching this run (see `every`).
    every: Option<Box<every::State>>,
    /// Tensor maps the kernel built (see `tensormap`).
    tmaps: tensormap::Maps<D::V>,
    /// The cluster being run, when CTAs run as clusters (see `cluster`).
    cluster: Option<Box<cluster::Cluster<D::V>>>,
    /// The CTA whose shared memory a peer is accessing now (named in reports).
    visiting: Option<[i64; 3]>,
}

impl<'a, D: Domain> Sim<'a, D> {
    fn finish(mut self) -> (Execution<D::V>, Vec<BenignRace>) {
        let global = &mut self.global;
        let outputs = crate::exec::collect_outputs(self.inst, &mut *self.domain, |i| {
            std::mem::take(&mut global[i])
        });
        let benign = std::mem::take(&mut self.benign)
            .into_values()
            .map(|b| b.into_report(self.entry))
            .collect();
        let run = Execution {
            outputs,
            store_sites: self.store_sites,
            warnings: Vec::new(),
            written_twice: None,
            order_sensitive: false,
            ops_executed: self.ops,
        };
        (run, benign)
    }

    fn tid_of(&self, linear: usize) -> [i64; 3] {
        let l = linear as i64;
        let [bx, by, _] = self.block;
        [l % bx, (l / bx) % by, l / (bx * by)]
    }

    fn run_cta(&mut self, cta: [i64; 3]) -> Result<(), ExecError> {
        self.start_cta(cta);
        self.every_new_cta();
        self.run_threads()?;
        self.tmem_at_exit()
    }

    /// A CTA's fresh state: its threads at the first instruction, its memory empty.
    fn start_cta(&mut self, cta: [i64; 3]) {
        self.cta = cta;
        self.epoch = 0;
        self.pending_rec = None;
        self.shared.clear();
        self.shared_log.clear();
        self.sums.clear();
        self.locks.new_cta();
        self.mbars.clear();
        self.bulk_phase.clear();
        self.named.clear();
        self.synced = false;
        self.tmem = Default::default();
        self.tmaps.new_cta();
        let n = self.block.iter().product::<i64>() as usize;
        self.uses.new_cta(n, self.entry.regs.len());
        self.threads = (0..n)
            .map(|i| {
                let vc = VClock::start(i);
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
                    holds: Vec::new(),
                    retry: None,
                    trace: 0,
                    bulk_vc: VClock::default(),
                    effects: 0,
                    changes: 0,
                    probe: None,
                    run_len: 0,
                    snapshot: None,
                    wgmma: Default::default(),
                }
            })
            .collect();
    }

    /// Run the CTA's threads until all have exited (in a cluster: or until they can
    /// move only after another CTA of the cluster does).
    fn run_threads(&mut self) -> Result<(), ExecError> {
        let n = self.threads.len();
        loop {
            for t in 0..n {
                while matches!(self.threads[t].state, State::Ready) {
                    self.step(t)?;
                }
            }
            self.every_checkpoint().map_err(|m| {
                self.err_at(
                    0,
                    self.threads[0].pc,
                    ErrorKind::Unsupported,
                    format!("for every count: {m}"),
                )
            })?;
            // A completed mbarrier phase wakes its waiters, maybe behind the loop above.
            if self.release_warps()?
                || self.threads.iter().any(|t| t.state == State::Ready)
                || self.wake_stuck()
            {
                continue;
            }
            if self.wake_spinners() {
                continue;
            }
            if self.threads.iter().all(|t| t.state == State::Done) {
                if self.cluster.is_some() {
                    return Ok(());
                }
                return match self.pending.take() {
                    Some(e) => Err(e),
                    None => {
                        self.note_benign();
                        Ok(())
                    }
                };
            }
            if self.cluster.is_some() {
                match self.cta_release()? {
                    true => continue,
                    false => return Ok(()),
                }
            }
            if let Some(e) = self.spin_deadlock() {
                return Err(self.pending.take().unwrap_or(e));
            }
            if self.release_named()? {
                continue;
            }
            if self.blocked_for_good() {
                return Err(self.pending.take().unwrap_or_else(|| self.mbar_deadlock()));
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
            // A race's accesses, as the step that found it recorded them.
            clash: (kind == ErrorKind::Race).then_some(self.clash.unwrap_or(Clash::Other)),
            unwritten: None,
        }
    }

    fn step(&mut self, t: usize) -> Result<(), ExecError> {
        let pc = self.threads[t].pc;
        self.clash = None;
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
        self.at = None;
        let writes = match self.every.is_some() {
            true => Some(self.every_before(t, pc, ins).map_err(|m| {
                self.err_at(
                    t,
                    pc,
                    ErrorKind::Unsupported,
                    format!("for every count: {m}"),
                )
            })?),
            false => None,
        };
        let flow = match self.exec(t, pc, ins) {
            Ok(f) => f,
            Err((kind, m)) => {
                let at = self.at.take().unwrap_or(pc);
                return Err(match kind {
                    ErrorKind::NeverWritten if m == PENDING => self
                        .pending
                        .take()
                        .unwrap_or_else(|| self.err_at(t, at, ErrorKind::NeverWritten, m)),
                    ErrorKind::Race => self.err_at(t, at, ErrorKind::Race, m),
                    // An earlier read of unwritten memory explains later failures.
                    kind => self
                        .pending
                        .take()
                        .unwrap_or_else(|| self.err_at(t, at, kind, m)),
                });
            }
        };
        if let Some(w) = writes {
            self.every_after(t, w);
        }
        if let Flow::Exit = flow {
            self.land_all(t, pc)
                .map_err(|(k, m)| self.err_at(t, pc, k, m))?;
        }
        let stuck = match flow {
            Flow::Jump(to) => self.spin_check(t, pc, to),
            _ => None,
        };
        let th = &mut self.threads[t];
        match flow {
            Flow::Next => th.pc += 1,
            Flow::Jump(to) => {
                th.pc = to;
                if let Some(s) = stuck {
                    th.state = s;
                }
            }
            Flow::Block(s) => {
                th.state = s;
                th.run_len = 0;
            }
            Flow::Exit => th.state = State::Done,
        }
        Ok(())
    }

    /// Thread `t` makes a memory effect (a store, an atomic, an arrival, a copy).
    fn effect(&mut self, t: usize) {
        self.threads[t].effects += 1;
        self.world += 1;
    }
    // ----- instructions -----

    /// An instruction with its guard (called by `uses::exec`, which tracks the loaded
    /// values it uses).
    fn exec_guarded(&mut self, t: usize, pc: usize, ins: &'a Instr) -> Result<Flow, Fail> {
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
                                    self.body_runs(ins)?;
                                    self.exec_body(t, pc, ins)
                                } else {
                                    Ok(Flow::Next)
                                }
                            }
                        }
                    } else {
                        c
                    };
                    self.body_runs(ins)?;
                    return self.guarded(t, pc, ins, c);
                }
            };
            if on == neg {
                return Ok(Flow::Next);
            }
        }
        self.body_runs(ins)?;
        self.exec_body(t, pc, ins)
    }

    /// An instruction without its guard.
    fn exec_body(&mut self, t: usize, pc: usize, ins: &'a Instr) -> Result<Flow, Fail> {
        // Also on the paths of data-dependent branches, which run through here.
        self.wgmma_touch(t, ins)?;
        self.tcgen05_touch(t, ins)?;
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
            // `brx.idx i, ts`: the i-th label of the `.branchtargets` list `ts`.
            "brx" => {
                let (Some(i), Some(Operand::Sym(ts))) = (ops.first(), ops.get(1)) else {
                    return fail(ErrorKind::Malformed, "expected an index and a .branchtargets list");
                };
                let Some(list) = self.entry.branch_targets.get(ts) else {
                    return fail(ErrorKind::Malformed, format!("unknown .branchtargets list {ts}"));
                };
                let v = self.read(t, i, "u32")?;
                let Val::Bits(i) = v else {
                    return unsupported("brx.idx with a data-dependent index");
                };
                let Some(l) = list.get(i as usize) else {
                    return fail(
                        ErrorKind::Malformed,
                        format!("brx.idx index {i} is past the {} targets of {ts} (undefined behaviour)", list.len()),
                    );
                };
                return match self.entry.labels.get(l) {
                    Some(&to) => Ok(Flow::Jump(to)),
                    None => fail(ErrorKind::Malformed, format!("unknown label {l}")),
                };
            }
            "bra" => {
                let Some(Operand::Sym(l)) = ops.first() else {
                    return fail(ErrorKind::Malformed, "expected a label");
                };
                return match self.entry.labels.get(l) {
                    Some(&to) => Ok(Flow::Jump(to)),
                    None => fail(ErrorKind::Malformed, format!("unknown label {l}")),
                };
            }
            "barrier" if ins.has("cluster") => return self.cluster_barrier(t, pc, ins),
            "bar" | "barrier" => return self.barrier(t, pc, ins),
            "mapa" => self.mapa(t, ins)?,
            "call" if ins.has("pure") => return self.pure_call(t, ins),
            // Calls are inlined by `ptx::calls`; what is left has no body to run.
            "call" => {
                return unsupported(match (ops.get(1), ops.get(3)) {
                    (Some(Operand::Sym(f)), _) => {
                        format!("call of `{f}`, a .func without a body in this module")
                    }
                    (_, Some(Operand::Sym(p))) => format!(
                        "call through a function pointer that is no function of this module matching `{p}`"
                    ),
                    _ => "call through a function pointer".to_string(),
                })
            }
            "fence" if ins.mods.iter().any(|m| m.starts_with("tensormap")) => {
                self.tensormap_fence(t, pc, ins)?
            }
            "membar" | "fence" => {
                self.cluster_fence(t, ins);
                self.fence(t, ins)
            }
            "tensormap" => self.tensormap(t, pc, ins)?,
            "cp" if ins.has("bulk") && ins.has("tensor") => {
                return self.tensor_copy(t, pc, ins).map(|_| Flow::Next)
            }
            "cp" if ins.has("bulk") && (ins.has("commit_group") || ins.has("wait_group")) => {
                self.bulk_group(ins)?
            }
            "mbarrier" => return self.mbarrier(t, pc, ins),
            "cp" if ins.has("bulk") && !ins.has("commit_group") && !ins.mods.iter().any(|m| m.starts_with("wait_group")) => {
                return self.bulk_copy(t, pc, ins).map(|_| Flow::Next)
            }
            "elect" | "setmaxnreg" => {
                if !ins.has("sync") {
                    return unsupported(format!("{} without .sync", ins.mnemonic()));
                }
                let mask = match ins.op.as_str() {
                    "elect" => self.lane_mask(t, ops.last())?,
                    _ => self.lane_mask(t, None)?,
                };
                return Ok(Flow::Block(State::Collective(pc, mask)));
            }
            "atom" | "red" => {
                self.effect(t);
                return self.atom(t, pc, ins);
            }
            "prefetch" | "prefetchu" | "nanosleep" | "pmevent" => {}
            // A cache policy only steers the L2 cache: an opaque 64-bit handle that the
            // `L2::cache_hint` operand of a load or store passes along.
            "createpolicy" => self.write(t, opn(0)?, Val::Bits(0))?,
            "trap" => return self.trap(ins),
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
            "mov" if matches!(opn(0)?, Operand::Vector(xs) if xs.len() > 1) => {
                self.unpack(t, opn(0)?, opn(1)?, ty)?
            }
            "mov" if matches!(opn(1)?, Operand::Vector(xs) if xs.len() > 1) => {
                self.pack(t, opn(0)?, opn(1)?, ty)?
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
            "wgmma" => return self.wgmma(t, pc, ins),
            "tcgen05" => return self.tcgen05(t, pc, ins),
            "ldmatrix" | "mma" => {
                if !ins.has("sync") || !ins.has("aligned") {
                    return unsupported(format!("{} without .sync.aligned", ins.op));
                }
                // Warp-collective over the whole warp: no mask operand.
                let mask = self.lane_mask(t, None)?;
                return Ok(Flow::Block(State::Collective(pc, mask)));
            }
            "st" => {
                self.effect(t);
                return self.store(t, pc, ins).map(|_| Flow::Next);
            }
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
                        let v = self.domain.select(c, sa, sb);
                        // Two constant bit patterns: remembered, so that reading the
                        // choice as a float picks between the two floats (`values::float`).
                        if let (Val::Bits(x), Val::Bits(y)) = (a, b) {
                            self.bit_selects.push((v, c, x, y));
                        }
                        Val::Sym(v)
                    }
                };
                self.write(t, opn(0)?, v)?;
            }
            "cvt" if ins.mods.iter().any(|m| m == "f16x2" || m == "bf16x2") => {
                let dty = if ins.has("f16x2") { "f16x2" } else { "bf16x2" };
                self.cvt_x2(t, ins, dty)?
            }
            "cvt" => self.cvt(t, ins)?,
            _ => {
                let v = self.arith(t, ins, ty)?;
                self.write(t, opn(0)?, v)?;
            }
        }
        Ok(Flow::Next)
    }
}
