//! Thread-block clusters: the CTAs of one cluster run together, each with its own
//! threads and shared memory, and reach each other's shared memory (distributed shared
//! memory) through `mapa` addresses; `barrier.cluster.arrive`/`wait` is the barrier of
//! every thread of the cluster.
//!
//! Scheduling: one CTA's state is in the `Sim` at a time, the others are parked here
//! (`Parked`); each runs until none of its threads can move without another CTA, then
//! the next; between rounds complete cluster barriers are released. A round in which no
//! CTA ran an instruction and no barrier was released is a deadlock, reported with a
//! trail (each CTA's threads, the barrier phase they wait for, the line).
//!
//! Addresses: a CTA's own shared memory keeps its addresses (`SHARED_BASE..`); `mapa`
//! gives the address of the same byte in CTA `r` as `CLUSTER_BASE + r·CLUSTER_STRIDE +
//! offset`, which fits 32 bits, and a load or store there reaches CTA `r`'s memory.
//!
//! Order across CTAs: `barrier.cluster.arrive` (release, unless `.relaxed` with no
//! cluster-scope fence since the thread's last arrival; `fence.mbarrier_init` releases
//! the thread's mbarrier inits only) records the thread's clock; an access is ordered
//! before another CTA's thread once that thread has completed a `barrier.cluster.wait`
//! of a phase the accessing thread arrived at after the access. mbarriers order across
//! CTAs through vector clocks (`VClock::far`): a `.cluster`-scoped remote arrival
//! carries the arriving thread's clock into the peer's barrier, a multicast copy its
//! writes' (see `multicast`), and a completed wait there acquires them; a `.cta`-scoped
//! or relaxed remote arrival orders nothing. Fences and atomics alone order nothing
//! across CTAs here, so a pair ordered only that way is reported as a race.
//!
//! Invariant: a CTA's shared memory is read and written only while it runs (by its
//! threads or a peer's remote access), and every remote access must happen before the
//! CTA's exit (its threads' last completed cluster barrier orders it), else it is a
//! finding naming both CTAs, the address and the line.

use super::*;

/// Where `mapa` addresses start, and the span of each rank's window.
pub(super) const CLUSTER_BASE: u64 = 0x8000_0000;
pub(super) const CLUSTER_STRIDE: u64 = 0x0400_0000;

/// A CTA of the cluster whose state is not in the `Sim` now.
pub(super) struct Parked<V> {
    cta: [i64; 3],
    threads: Vec<Thread<V>>,
    epoch: u32,
    shared: FxHashMap<u64, (Val<V>, u64)>,
    shared_log: FxHashMap<u64, Log<V>>,
    mbars: BTreeMap<u64, mbarrier::MBar>,
    bulk_phase: HashMap<(usize, usize), (u64, u32)>,
    named: HashMap<i64, (usize, VClock)>,
    synced: bool,
    tmem: tcgen05::Tmem<V>,
    world: u64,
    tags: uses::Tags,
}

impl<V> Parked<V> {
    fn empty(cta: [i64; 3]) -> Self {
        Parked {
            cta,
            threads: Vec::new(),
            epoch: 0,
            shared: FxHashMap::default(),
            shared_log: FxHashMap::default(),
            mbars: BTreeMap::new(),
            bulk_phase: HashMap::new(),
            named: HashMap::new(),
            synced: false,
            tmem: Default::default(),
            world: 0,
            tags: Default::default(),
        }
    }
}

/// The latest access of one thread to a peer CTA's shared memory.
#[derive(Clone, Copy)]
struct Remote {
    clock: u32,
    instr: usize,
    addr: u64,
    write: bool,
}

/// The cluster being run.
pub(super) struct Cluster<V> {
    /// CTAs per cluster per axis.
    dims: [i64; 3],
    /// The cluster's CTAs, by rank (empty outside a run of clusters).
    ctas: Vec<[i64; 3]>,
    /// The rank whose state is in the `Sim`, if any.
    current: Option<usize>,
    parked: Vec<Parked<V>>,
    /// Per rank, per thread: the release clock of each cluster-barrier arrival (a
    /// running maximum; 0 for a relaxed one with nothing before it released).
    arrives: Vec<Vec<Vec<u32>>>,
    /// Per rank, per thread: completed `barrier.cluster.wait`s.
    waits: Vec<Vec<u32>>,
    /// Per rank, per thread: the clock its last cluster-scope fence since its last
    /// arrival released (0: none).
    fenced: Vec<Vec<u32>>,
    /// The same for `fence.mbarrier_init.release.cluster`, which releases only the
    /// thread's mbarrier inits, and per arrival what it released of them.
    init_fenced: Vec<Vec<u32>>,
    init_arrives: Vec<Vec<Vec<u32>>>,
    /// Per target rank: the latest remote access of each (rank, thread).
    remote: Vec<BTreeMap<(usize, usize), Remote>>,
    /// Ranks whose threads have all exited (checked).
    ended: Vec<bool>,
}

/// Where a load or store lands with respect to the cluster.
pub(super) enum Dsmem<V> {
    /// At this address of the running CTA (a `mapa` address of its own rank translated).
    Own(u64),
    /// In a peer's memory, read there: the value.
    Loaded(Val<V>),
    /// In a peer's memory, written there.
    Stored,
}

/// The CTAs per cluster a launch runs with: the launch's `cluster`, else the kernel's
/// `.reqnctapercluster`; `None` when the kernel runs without clusters of several CTAs
/// and uses no cluster instruction (the plain CTA-by-CTA run). A launch that contradicts
/// the kernel is an error.
pub(super) fn dims(entry: &Entry, inst: &Instance) -> Result<Option<[i64; 3]>, String> {
    let dims = match (inst.cluster, entry.cluster) {
        (Some(l), Some(k)) if l != k => {
            return Err(format!(
                "the launch's cluster = {l:?} contradicts the kernel's .reqnctapercluster {k:?}"
            ))
        }
        (Some(d), _) | (None, Some(d)) => d,
        (None, None) => [1, 1, 1],
    };
    for axis in 0..3 {
        if dims[axis] <= 0 || inst.grid[axis] % dims[axis] != 0 {
            return Err(format!(
                "clusters of {dims:?} CTAs do not divide the grid {:?}",
                inst.grid
            ));
        }
    }
    let uses = entry.body.iter().any(|i| {
        i.op == "mapa"
            || (i.op == "barrier" && i.has("cluster"))
            || (i.op == "mbarrier" && i.has("shared::cluster"))
    });
    Ok((dims.iter().product::<i64>() > 1 || uses).then_some(dims))
}

/// The clusters to run, each its CTAs by rank: every cluster of the grid, or the one
/// holding the launch's `cta`.
pub(super) fn clusters(inst: &Instance, dims: [i64; 3]) -> Vec<Vec<[i64; 3]>> {
    let mut out = Vec::new();
    let n = |a: usize| inst.grid[a] / dims[a];
    for cz in 0..n(2) {
        for cy in 0..n(1) {
            for cx in 0..n(0) {
                let first = [cx * dims[0], cy * dims[1], cz * dims[2]];
                if let Some(c) = inst.cta {
                    if (0..3).any(|a| c[a] / dims[a] * dims[a] != first[a]) {
                        continue;
                    }
                }
                let mut ctas = Vec::new();
                for z in 0..dims[2] {
                    for y in 0..dims[1] {
                        for x in 0..dims[0] {
                            ctas.push([first[0] + x, first[1] + y, first[2] + z]);
                        }
                    }
                }
                out.push(ctas);
            }
        }
    }
    out
}

impl<V> Cluster<V> {
    pub(super) fn new(dims: [i64; 3]) -> Self {
        Cluster {
            dims,
            ctas: Vec::new(),
            current: None,
            parked: Vec::new(),
            arrives: Vec::new(),
            waits: Vec::new(),
            fenced: Vec::new(),
            init_fenced: Vec::new(),
            init_arrives: Vec::new(),
            remote: Vec::new(),
            ended: Vec::new(),
        }
    }

    fn rank_of(&self, cta: [i64; 3]) -> Option<usize> {
        self.ctas.iter().position(|&c| c == cta)
    }

    /// The release clock of thread `t` of rank `r` as of its `k`-th arrival (from 1), or
    /// of its last one if it made fewer.
    fn released(&self, r: usize, t: usize, k: usize) -> u32 {
        Self::as_of(&self.arrives[r][t], k)
    }

    /// What of its mbarrier inits thread `t` of rank `r` released as of its `k`-th
    /// arrival.
    fn released_inits(&self, r: usize, t: usize, k: usize) -> u32 {
        Self::as_of(&self.init_arrives[r][t], k)
    }

    fn as_of(a: &[u32], k: usize) -> u32 {
        match k.min(a.len()) {
            0 => 0,
            k => a[k - 1],
        }
    }
}

/// "(x, y, z)" of a thread or CTA.
pub(super) fn xyz(v: [i64; 3]) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
}

impl<'a, D: Domain> Sim<'a, D> {
    /// Run one cluster: every CTA started, then rounds until all have exited.
    pub(super) fn run_cluster(&mut self, ctas: Vec<[i64; 3]>) -> Result<(), ExecError> {
        let n = self.block.iter().product::<i64>() as usize;
        let r = ctas.len();
        if let Some(c) = self.cluster.as_mut() {
            c.parked = ctas.iter().map(|&cta| Parked::empty(cta)).collect();
            c.arrives = vec![vec![Vec::new(); n]; r];
            c.waits = vec![vec![0; n]; r];
            c.fenced = vec![vec![0; n]; r];
            c.init_fenced = vec![vec![0; n]; r];
            c.init_arrives = vec![vec![Vec::new(); n]; r];
            c.remote = vec![BTreeMap::new(); r];
            c.ended = vec![false; r];
            c.ctas = ctas.clone();
            c.current = None;
        }
        self.sums.clear();
        self.locks.new_cta();
        self.pending_rec = None;
        let end = self
            .vars
            .iter()
            .filter(|v| v.space == Space::Shared)
            .map(|v| v.addr + v.bytes);
        if r > 1 && end.max().unwrap_or(0) > CLUSTER_STRIDE {
            return Err(self.err_at(
                0,
                0,
                ErrorKind::Unsupported,
                "shared variables span more than the 64 MiB lift gives each CTA of a cluster"
                    .into(),
            ));
        }
        for (rank, &cta) in ctas.iter().enumerate() {
            self.start_cta(cta);
            self.swap_cta(rank);
        }
        loop {
            let mut moved = false;
            for rank in 0..r {
                if self.cluster.as_ref().is_some_and(|c| c.ended[rank]) {
                    continue;
                }
                self.enter(rank);
                let ops = self.ops;
                let ran = self.run_threads();
                moved |= self.ops != ops;
                let done = self.threads.iter().all(|t| t.state == State::Done);
                let ended = match ran {
                    Ok(()) if done => self.cta_ended(rank),
                    r => r,
                };
                self.leave();
                ended?;
            }
            let c = self.cluster.as_ref().expect("a cluster run");
            if c.ended.iter().all(|&e| e) {
                break;
            }
            if self.release_cluster_waits() {
                continue;
            }
            if !moved {
                return Err(self.pending.take().unwrap_or_else(|| self.stuck_cluster()));
            }
        }
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        self.note_benign();
        Ok(())
    }

    /// Exchange the running CTA's state with rank `r`'s parked slot.
    fn swap_cta(&mut self, r: usize) {
        let mut c = self.cluster.take().expect("a cluster run");
        let p = &mut c.parked[r];
        std::mem::swap(&mut self.cta, &mut p.cta);
        std::mem::swap(&mut self.threads, &mut p.threads);
        std::mem::swap(&mut self.epoch, &mut p.epoch);
        std::mem::swap(&mut self.shared, &mut p.shared);
        std::mem::swap(&mut self.shared_log, &mut p.shared_log);
        std::mem::swap(&mut self.mbars, &mut p.mbars);
        std::mem::swap(&mut self.bulk_phase, &mut p.bulk_phase);
        std::mem::swap(&mut self.named, &mut p.named);
        std::mem::swap(&mut self.synced, &mut p.synced);
        std::mem::swap(&mut self.tmem, &mut p.tmem);
        std::mem::swap(&mut self.world, &mut p.world);
        std::mem::swap(self.uses.tags(), &mut p.tags);
        self.cluster = Some(c);
    }

    fn enter(&mut self, r: usize) {
        self.swap_cta(r);
        if let Some(c) = self.cluster.as_mut() {
            c.current = Some(r);
        }
    }

    fn leave(&mut self) {
        if let Some(r) = self.cluster.as_ref().and_then(|c| c.current) {
            self.swap_cta(r);
            if let Some(c) = self.cluster.as_mut() {
                c.current = None;
            }
        }
    }

    /// Run `f` with rank `r`'s shared memory, race log and mbarriers in place of the
    /// running CTA's (a remote access by a thread of the running CTA).
    pub(super) fn with_peer<T>(&mut self, r: usize, f: impl FnOnce(&mut Self) -> T) -> T {
        let swap = |s: &mut Self| {
            let mut c = s.cluster.take().expect("a cluster run");
            let p = &mut c.parked[r];
            std::mem::swap(&mut s.shared, &mut p.shared);
            std::mem::swap(&mut s.shared_log, &mut p.shared_log);
            std::mem::swap(&mut s.mbars, &mut p.mbars);
            s.cluster = Some(c);
        };
        swap(self);
        let peer = self.cluster.as_ref().map(|c| c.parked[r].cta);
        let visiting = std::mem::replace(&mut self.visiting, peer);
        let out = f(self);
        self.visiting = visiting;
        swap(self);
        if let Some(c) = self.cluster.as_mut() {
            c.parked[r].world += 1;
        }
        out
    }

    /// The running thread's CTA rank and the cluster's size.
    pub(super) fn rank_now(&self) -> (usize, usize) {
        let c = self.cluster.as_ref();
        (
            c.and_then(|c| c.current).unwrap_or(0),
            c.map_or(1, |c| c.ctas.len()),
        )
    }

    /// `(rank, offset)` of a `mapa` address.
    pub(super) fn window(addr: u64) -> Option<(usize, u64)> {
        let rel = addr.checked_sub(CLUSTER_BASE)?;
        let r = (rel / CLUSTER_STRIDE) as usize;
        (r < 16).then_some((r, rel % CLUSTER_STRIDE))
    }

    /// The special registers of clusters.
    pub(super) fn cluster_special(&self, s: Special) -> i64 {
        let d = self.cluster.as_ref().map_or([1, 1, 1], |c| c.dims);
        let c = self.cta;
        let id = |a: usize| c[a] % d[a];
        match s {
            Special::ClusterCtaRank => id(0) + id(1) * d[0] + id(2) * d[0] * d[1],
            Special::ClusterNCtaRank => d.iter().product(),
            Special::ClusterCtaId(a) => id(a as usize),
            Special::ClusterNCtaId(a) => d[a as usize],
            Special::ClusterId(a) => c[a as usize] / d[a as usize],
            Special::NClusterId(a) => self.inst.grid[a as usize] / d[a as usize],
            _ => 0,
        }
    }

    /// `mapa{.shared::cluster}.{u32,u64} d, a, r`: the address of `a`'s byte of shared
    /// memory in the CTA of rank `r`.
    pub(super) fn mapa(&mut self, t: usize, ins: &Instr) -> Result<(), Fail> {
        let (Some(d), Some(a), Some(r)) = (
            ins.operands.first(),
            ins.operands.get(1),
            ins.operands.get(2),
        ) else {
            return fail(ErrorKind::Malformed, "mapa needs d, a and a CTA rank");
        };
        let a = match a {
            Operand::Sym(name) => Val::Bits(self.sym_addr(name)?),
            o => self.read(t, o, "u64")?,
        };
        let Val::Bits(a) = a else {
            return unsupported("mapa of a data-dependent address");
        };
        let local = Self::window(a).map_or(a, |(_, off)| off);
        if !matches!(
            self.place(t, local, 1, Some(Space::Shared)),
            Ok(place::Place::Shared(..))
        ) {
            return fail(
                ErrorKind::OutOfBounds,
                format!(
                    "mapa of address {a:#x}, which is in no shared variable (undefined behaviour)"
                ),
            );
        }
        let v = self.read(t, r, "u32")?;
        let r = self.int(v, "u32")? as usize;
        let (_, n) = self.rank_now();
        if r >= n {
            return fail(
                ErrorKind::OutOfBounds,
                format!("mapa to CTA rank {r}, but the cluster has {n} CTAs"),
            );
        }
        self.write(
            t,
            d,
            Val::Bits(CLUSTER_BASE + r as u64 * CLUSTER_STRIDE + local),
        )
    }

    /// The peer rank a `mapa` address reaches (`None`: the running CTA's own memory,
    /// with the address it has there), refusing what this model does not cover.
    pub(super) fn peer_of(&mut self, t: usize, addr: u64) -> Result<(Option<usize>, u64), Fail> {
        let Some((r, local)) = Self::window(addr) else {
            return Ok((None, addr));
        };
        let (me, n) = self.rank_now();
        if r >= n {
            return fail(
                ErrorKind::OutOfBounds,
                format!("address {addr:#x} is in CTA rank {r} of a cluster of {n} CTAs"),
            );
        }
        if r == me {
            return Ok((None, local));
        }
        if self.path.is_some() {
            return unsupported(
                "an access to a peer CTA's shared memory under a data-dependent condition",
            );
        }
        let c = self.cluster.as_ref().expect("a cluster run");
        if c.parked[r].threads.iter().all(|th| th.state == State::Done) {
            let cta = c.parked[r].cta;
            return fail(
                ErrorKind::Race,
                format!(
                    "data race with the exit of CTA {}: thread {} of CTA {} accesses its {} \
                     after every thread of that CTA has exited, and neither a \
                     barrier.cluster.arrive/wait nor an mbarrier phase that CTA waited for \
                     orders that access before the CTA's threads exit, so its shared memory \
                     is gone",
                    xyz(cta),
                    xyz(self.threads[t].tid),
                    xyz(self.cta),
                    self.shared_name(local)
                ),
            );
        }
        Ok((Some(r), local))
    }

    fn note_remote(&mut self, t: usize, r: usize, pc: usize, addr: u64, write: bool) {
        let clock = self.threads[t].vc.get(t);
        self.note_remote_as(t, clock, r, pc, addr, write);
    }

    /// A remote access to rank `r`'s memory by clock component `i` (a thread, or a
    /// thread's copy agent) of the running CTA at `clock`.
    pub(super) fn note_remote_as(
        &mut self,
        i: usize,
        clock: u32,
        r: usize,
        pc: usize,
        addr: u64,
        write: bool,
    ) {
        let (me, _) = self.rank_now();
        if let Some(c) = self.cluster.as_mut() {
            c.remote[r].insert(
                (me, i),
                Remote {
                    clock,
                    instr: pc,
                    addr,
                    write,
                },
            );
        }
    }

    /// A load at `addr`: a peer's memory is read here.
    pub(super) fn dsmem_load(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        size: u64,
        ty: &str,
    ) -> Result<Dsmem<D::V>, Fail> {
        if self.cluster.is_none() {
            return Ok(Dsmem::Own(addr));
        }
        match self.peer_of(t, addr)? {
            (None, a) => Ok(Dsmem::Own(a)),
            (Some(r), a) => {
                self.note_remote(t, r, pc, a, false);
                let v =
                    self.with_peer(r, |s| s.load_one(t, pc, a, size, Some(Space::Shared), ty))?;
                Ok(Dsmem::Loaded(v))
            }
        }
    }

    /// A store of `v` at `addr`: a peer's memory is written here.
    pub(super) fn dsmem_store(
        &mut self,
        t: usize,
        pc: usize,
        addr: u64,
        size: u64,
        v: Val<D::V>,
    ) -> Result<Dsmem<D::V>, Fail> {
        if self.cluster.is_none() {
            return Ok(Dsmem::Own(addr));
        }
        match self.peer_of(t, addr)? {
            (None, a) => Ok(Dsmem::Own(a)),
            (Some(r), a) => {
                self.note_remote(t, r, pc, a, true);
                self.with_peer(r, |s| -> Result<(), Fail> {
                    if !matches!(
                        s.place(t, a, size, Some(Space::Shared))?,
                        place::Place::Shared(..)
                    ) {
                        return fail(ErrorKind::OutOfBounds, "a store outside shared memory");
                    }
                    s.store_val = Some(v);
                    let logged = s.log_shared(t, pc, a, size, true);
                    s.store_val = None;
                    logged?;
                    s.shared.insert(a, (v, size));
                    Ok(())
                })?;
                Ok(Dsmem::Stored)
            }
        }
    }

    /// A `mapa` address where this model reads only CTA-local shared memory (an atomic,
    /// an mbarrier, a copy's destination): the running CTA's address, or `Unsupported`.
    pub(super) fn own_shared(&mut self, t: usize, addr: u64, what: &str) -> Result<u64, Fail> {
        if self.cluster.is_none() {
            return Ok(addr);
        }
        match self.peer_of(t, addr)? {
            (None, a) => Ok(a),
            (Some(_), _) => unsupported(format!("{what} on a peer CTA's shared memory")),
        }
    }

    /// Wake the threads of parked rank `r` that wait on its mbarrier at `addr`.
    pub(super) fn wake_parked(&mut self, r: usize, addr: u64) {
        if let Some(c) = self.cluster.as_mut() {
            for th in &mut c.parked[r].threads {
                if matches!(th.state, State::MbarWait(_, a) if a == addr) {
                    th.state = State::Ready;
                }
            }
        }
    }

    /// `mbarrier.arrive{.expect_tx}{.release.cluster}.shared::cluster.b64 _, [addr]{, n}`:
    /// one arrival on an mbarrier of a CTA of the cluster. A peer's barrier counts the
    /// arrival (and bytes); it releases the arriving thread's accesses so far to that
    /// CTA only at `.cluster` scope (with `.release`, the default): a `.cta`-scoped
    /// arrival is not morally strong with a peer's wait, so it orders nothing there.
    pub(super) fn remote_mbarrier(
        &mut self,
        t: usize,
        pc: usize,
        ins: &Instr,
    ) -> Result<Option<Flow>, Fail> {
        let kind = ins.mods.first().map_or("", |s| s.as_str());
        let ops = &ins.operands;
        if Self::window(self.address_bits(t, ops.get(1))).is_none() {
            return Ok(None);
        }
        if kind != "arrive" || !matches!(ops.first(), Some(Operand::Sink)) {
            return unsupported(format!(
                "unsupported: {} (of the cluster's mbarrier operations lift models \
                 `mbarrier.arrive` without a token)",
                ins.mnemonic()
            ));
        }
        let Some(Addr::At(addr)) = ops.get(1).map(|o| self.address(t, o)).transpose()? else {
            return unsupported("an mbarrier at a data-dependent or parameter address");
        };
        // The running CTA's own barrier: the ordinary arrival (`mbar_addr` translates).
        let (Some(r), local) = self.peer_of(t, addr)? else {
            return Ok(None);
        };
        // The third operand: the bytes of `.expect_tx`, else an arrival count.
        let third = match ops.get(2) {
            Some(o) => {
                let v = self.read(t, o, "u32")?;
                Some(self.int(v, "u32")? as i64)
            }
            None => None,
        };
        let (bytes, count) = match (ins.has("expect_tx"), third) {
            (true, Some(n)) => (n, 1),
            (true, None) => return fail(ErrorKind::Malformed, "expected a transaction byte count"),
            (false, n) => (0, n.unwrap_or(1)),
        };
        self.effect(t);
        self.note_remote(t, r, pc, local, true);
        let (me, _) = self.rank_now();
        let releases = ins.has("cluster") && !ins.has("relaxed");
        let moved = releases.then(|| self.threads[t].vc.moved(me, r));
        if releases {
            self.threads[t].vc.tick(t);
        }
        let completed = self.with_peer(r, |s| -> Result<bool, Fail> {
            s.check_shared_atomic(t, pc, local, 8)?;
            let name = s.shared_name(local);
            let Some(b) = s.mbars.get_mut(&local) else {
                return fail(
                    ErrorKind::Race,
                    format!(
                        "thread {} of CTA {} arrives on mbarrier {name} before that CTA \
                         initialises it (no barrier.cluster orders its mbarrier.init first), \
                         or after it invalidated it",
                        xyz(s.threads[t].tid),
                        xyz(s.cta),
                    ),
                );
            };
            if count < 1 || count as u32 > b.pending {
                return fail(
                    ErrorKind::Malformed,
                    format!(
                        "{count} arrivals on mbarrier {name} in phase {}, which waits for {} (undefined behaviour)",
                        b.phase,
                        b.pending
                    ),
                );
            }
            b.pending -= count as u32;
            b.tx += bytes;
            b.version += 1;
            if let Some(m) = &moved {
                b.arrived.join(m);
            }
            Ok(b.complete())
        })?;
        if completed {
            self.wake_parked(r, local);
        }
        Ok(Some(Flow::Next))
    }

    /// The address an operand holds, if it is a known number (else 0).
    fn address_bits(&mut self, t: usize, op: Option<&Operand>) -> u64 {
        match op.map(|o| self.address(t, o)) {
            Some(Ok(Addr::At(a))) => a,
            _ => 0,
        }
    }

    /// A fence of thread `t`: one of cluster scope or wider (not a proxy fence) makes
    /// its next relaxed cluster arrival release the thread's accesses before the fence;
    /// `fence.mbarrier_init.release.cluster` only its mbarrier inits before the fence.
    pub(super) fn cluster_fence(&mut self, t: usize, ins: &Instr) {
        let wide = ["cluster", "gpu", "sys"].iter().any(|s| ins.has(s))
            || (ins.op == "membar" && (ins.has("gl") || ins.has("sys")));
        let inits = ins.has("mbarrier_init");
        let orders = !ins.mods.iter().any(|m| m.starts_with("proxy"));
        let (me, _) = self.rank_now();
        let own = self.threads[t].vc.get(t);
        if let (true, Some(c)) = (wide && orders, self.cluster.as_mut()) {
            let fenced = if inits {
                &mut c.init_fenced
            } else {
                &mut c.fenced
            };
            if let Some(f) = fenced.get_mut(me).and_then(|f| f.get_mut(t)) {
                *f = own;
                self.threads[t].vc.tick(t);
            }
        }
    }

    /// `barrier.cluster.arrive{.release|.relaxed}{.aligned}` and
    /// `barrier.cluster.wait{.acquire}{.aligned}`.
    pub(super) fn cluster_barrier(
        &mut self,
        t: usize,
        pc: usize,
        ins: &Instr,
    ) -> Result<Flow, Fail> {
        let (me, _) = self.rank_now();
        if ins.has("wait") {
            return Ok(Flow::Block(State::ClusterWait(pc)));
        }
        if !ins.has("arrive") {
            return unsupported(format!("unsupported: {}", ins.mnemonic()));
        }
        let own = self.threads[t].vc.get(t);
        let c = self.cluster.as_mut().expect("a cluster run");
        let (arrived, waited) = (c.arrives[me][t].len(), c.waits[me][t] as usize);
        if arrived > waited {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "barrier.cluster.arrive twice without a barrier.cluster.wait between \
                     (thread {} arrives at phase {arrived} again; undefined behaviour)",
                    xyz(self.threads[t].tid)
                ),
            );
        }
        // A relaxed arrival releases only what a fence since the last arrival did.
        let fenced = std::mem::take(&mut c.fenced[me][t]);
        let inits = std::mem::take(&mut c.init_fenced[me][t]);
        let relaxed = ins.has("relaxed");
        let released = if relaxed { fenced } else { own };
        let before = c.arrives[me][t].last().copied().unwrap_or(0);
        c.arrives[me][t].push(released.max(before));
        let released = if relaxed { inits } else { own };
        let before = c.init_arrives[me][t].last().copied().unwrap_or(0);
        c.init_arrives[me][t].push(released.max(before));
        self.threads[t].vc.tick(t);
        self.effect(t);
        Ok(Flow::Next)
    }

    /// Release every `barrier.cluster.wait` whose phase every thread of the cluster that
    /// has not exited has arrived at; true if any was.
    fn release_cluster_waits(&mut self) -> bool {
        let Some(c) = self.cluster.as_mut() else {
            return false;
        };
        let least = c
            .parked
            .iter()
            .zip(&c.arrives)
            .flat_map(|(p, a)| {
                p.threads
                    .iter()
                    .zip(a)
                    .filter(|(th, _)| th.state != State::Done)
                    .map(|(_, a)| a.len())
            })
            .min()
            .unwrap_or(0);
        let mut any = false;
        for (p, w) in c.parked.iter_mut().zip(c.waits.iter_mut()) {
            for (th, w) in p.threads.iter_mut().zip(w.iter_mut()) {
                if matches!(th.state, State::ClusterWait(_)) && (*w as usize) < least {
                    *w += 1;
                    th.state = State::Ready;
                    th.pc += 1;
                    any = true;
                }
            }
        }
        any
    }

    /// Whether access `a` (by a thread of another CTA of the cluster, or by a copy
    /// agent of one) is ordered before the current access of thread or agent `t`: `t`'s
    /// clock knows it (through mbarrier phases), or `t` completed a cluster barrier
    /// phase that `a`'s thread arrived at, releasing, after the access (an mbarrier init
    /// also when a `fence.mbarrier_init` released it before a relaxed arrival).
    pub(super) fn cluster_ordered<W>(&self, a: &Rec<W>, t: usize) -> bool {
        let Some(c) = self.cluster.as_ref() else {
            return false;
        };
        let (Some(ra), Some(me)) = (c.rank_of(a.cta), c.current) else {
            return false;
        };
        let n = self.threads.len();
        let vc = match t.checked_sub(n) {
            Some(agent) if agent < n => &self.threads[agent].bulk_vc,
            Some(_) => return false,
            None => &self.threads[t].vc,
        };
        if ra != me && vc.far(ra, a.thread) >= a.clock {
            return true;
        }
        if a.thread >= n || t >= n {
            return false;
        }
        let w = c.waits[me][t] as usize;
        let init = || {
            let i = &self.entry.body[a.instr];
            i.op == "mbarrier" && i.mods.first().is_some_and(|m| m == "init")
        };
        w > 0
            && (c.released(ra, a.thread, w) >= a.clock
                || (init() && c.released_inits(ra, a.thread, w) >= a.clock))
    }

    /// How a race between CTAs is described.
    pub(super) fn between_ctas(&self) -> &'static str {
        if self.cluster.is_some() {
            "in different CTAs of one cluster with neither a barrier.cluster.arrive/wait nor \
             a cross-CTA mbarrier phase (a .cluster-scoped arrive, a copy's complete_tx) \
             between them"
        } else {
            "in different CTAs"
        }
    }

    /// " of CTA (x, y, z)" while a peer's shared memory is being accessed.
    pub(super) fn shared_owner(&self) -> String {
        self.visiting
            .map_or(String::new(), |c| format!(" of CTA {}", xyz(c)))
    }

    /// The running CTA (rank `r`) has exited: every access a peer made to its shared
    /// memory must have happened before, ordered by a cluster barrier phase one of its
    /// threads completed.
    fn cta_ended(&mut self, r: usize) -> Result<(), ExecError> {
        self.tmem_at_exit()?;
        let c = self.cluster.as_mut().expect("a cluster run");
        c.ended[r] = true;
        let done = c.waits[r].iter().copied().max().unwrap_or(0) as usize;
        let c = self.cluster.as_ref().expect("a cluster run");
        let n = self.threads.len();
        for (&(ra, ta), rem) in &c.remote[r] {
            let by_barrier = ta < n && done > 0 && c.released(ra, ta, done) >= rem.clock;
            let by_mbarrier = self.threads.iter().any(|th| th.vc.far(ra, ta) >= rem.clock);
            if by_barrier || by_mbarrier {
                continue;
            }
            let ins = &self.entry.body[rem.instr];
            let what = self.shared_name(rem.addr);
            let who = match ta.checked_sub(n) {
                Some(i) => format!("the bulk copy issued by thread {}", xyz(self.tid_of(i))),
                None => format!("thread {}", xyz(self.tid_of(ta))),
            };
            return Err(ExecError {
                kind: ErrorKind::Race,
                message: format!(
                    "{}: data race with the exit of CTA {}: {who} of CTA {} {} its shared \
                     {} at line {} (`{}`{}), and neither a barrier.cluster.arrive/wait nor an \
                     mbarrier phase that CTA waited for orders that access before the CTA's \
                     threads exit, so its shared memory may be gone",
                    ins.mnemonic(),
                    xyz(self.cta),
                    xyz(c.ctas[ra]),
                    if rem.write { "writes" } else { "reads" },
                    what.trim_start_matches("shared "),
                    ins.line,
                    ins.mnemonic(),
                    if ins.loc.file.is_some() {
                        format!(", source {}", ins.loc)
                    } else {
                        String::new()
                    },
                ),
                line: ins.line,
                loc: ins.loc.clone(),
                program: c.ctas[ra],
                clash: Some(Clash::Other),
                unwritten: None,
            });
        }
        Ok(())
    }

    /// In the running CTA: release a barrier of part of the CTA or of the whole CTA
    /// that is complete (then true: run on); false when its threads can move only after
    /// another CTA does.
    pub(super) fn cta_release(&mut self) -> Result<bool, ExecError> {
        if self.release_named()? {
            return Ok(true);
        }
        let n = self.threads.len();
        let first = self.threads.first().map(|th| th.state);
        let complete = self.threads.iter().all(|th| {
            matches!((th.state, first), (State::Barrier(pc, id, c), Some(State::Barrier(p0, i0, _)))
                if pc == p0 && id == i0 && c == n)
        });
        if complete {
            self.release_barrier()?;
        }
        Ok(complete)
    }

    /// No CTA can move and no thread waits at a cluster barrier: the first stuck CTA's
    /// own deadlock; where CTAs wait at mbarriers, each such CTA's trail (its waits,
    /// barriers, phases, what is missing), first the first one's.
    fn stuck_ctas(&mut self) -> ExecError {
        let ranks: Vec<usize> = {
            let c = self.cluster.as_ref().expect("a cluster run");
            (0..c.ended.len()).filter(|&r| !c.ended[r]).collect()
        };
        let mut first: Option<ExecError> = None;
        let mut trails = Vec::new();
        for r in ranks {
            self.enter(r);
            let e = match self.spin_deadlock() {
                Some(e) => Some(e),
                None if self.blocked_for_good() => {
                    let e = self.mbar_deadlock();
                    let trail = e.message.split_once("deadlock: ").map_or("", |(_, m)| m);
                    trails.push(format!("in CTA {}: {trail}", xyz(self.cta)));
                    Some(e)
                }
                None if first.is_none() => Some(match self.release_barrier() {
                    Err(e) => e,
                    Ok(()) => self.deadlock("no thread of the cluster can move".into(), 0, 0),
                }),
                None => None,
            };
            self.leave();
            if first.is_none() {
                first = e;
            }
        }
        let mut e = first
            .unwrap_or_else(|| self.deadlock("no thread of the cluster can move".into(), 0, 0));
        if trails.len() > 1 {
            let head = e.message.split_once("deadlock: ").map_or("", |(h, _)| h);
            e.message = format!("{head}deadlock: {}", trails.join(" "));
        }
        e
    }

    /// No CTA can move: a cluster barrier phase some thread waits for, with who has not
    /// arrived; else the first stuck CTA's own deadlock.
    fn stuck_cluster(&mut self) -> ExecError {
        let c = self.cluster.as_ref().expect("a cluster run");
        // A thread blocked for good at an mbarrier is the cause: the cluster barrier's
        // waiters wait for it.
        let at_mbarrier = c
            .parked
            .iter()
            .flat_map(|p| &p.threads)
            .any(|th| matches!(th.state, State::MbarWait(..) | State::Stuck(..)));
        if at_mbarrier {
            return self.stuck_ctas();
        }
        let waiting = c.parked.iter().enumerate().find_map(|(r, p)| {
            p.threads
                .iter()
                .enumerate()
                .find_map(|(t, th)| match th.state {
                    State::ClusterWait(pc) => Some((r, t, pc)),
                    _ => None,
                })
        });
        let Some((r0, t0, pc0)) = waiting else {
            return self.stuck_ctas();
        };
        let phase = c.waits[r0][t0];
        let mut lines = Vec::new();
        for (r, p) in c.parked.iter().enumerate() {
            let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
            for (t, th) in p.threads.iter().enumerate() {
                let arrived = c.arrives[r][t].len();
                let what = match th.state {
                    State::Done => "have returned".to_string(),
                    State::ClusterWait(pc) if arrived > c.waits[r][t] as usize => format!(
                        "arrived and wait at line {} for phase {}",
                        self.line(pc),
                        c.waits[r][t]
                    ),
                    State::ClusterWait(pc) => format!(
                        "wait at line {} for phase {} without having arrived for it (missing)",
                        self.line(pc),
                        c.waits[r][t]
                    ),
                    State::Barrier(pc, ..) => {
                        format!("wait at bar.sync at line {} (missing)", self.line(pc))
                    }
                    State::MbarWait(pc, _) => {
                        format!("wait at an mbarrier at line {} (missing)", self.line(pc))
                    }
                    s => format!("are blocked ({s:?}) (missing)"),
                };
                groups.entry(what).or_default().push(t);
            }
            for (what, ts) in groups {
                let (a, b) = (ts[0], ts[ts.len() - 1]);
                let who = if ts.len() == 1 {
                    format!("thread {}", xyz(self.tid_of(a)))
                } else {
                    format!(
                        "{} threads from {} to {}",
                        ts.len(),
                        xyz(self.tid_of(a)),
                        xyz(self.tid_of(b))
                    )
                };
                lines.push(format!("{who} of CTA {} {what}", xyz(p.cta)));
            }
        }
        let ins = &self.entry.body[pc0];
        let src = if ins.loc.file.is_some() {
            format!(", source {}", ins.loc)
        } else {
            String::new()
        };
        ExecError {
            kind: ErrorKind::Deadlock,
            message: format!(
                "{}: deadlock: cluster barrier phase {phase} never completes: thread {} of CTA {} \
                 waits for it at line {} (`{}`{src}), and it needs every thread of the cluster \
                 that has not exited to arrive. {}",
                ins.mnemonic(),
                xyz(self.tid_of(t0)),
                xyz(c.parked[r0].cta),
                ins.line,
                ins.mnemonic(),
                lines.join(". ")
            ),
            line: ins.line,
            loc: ins.loc.clone(),
            program: c.parked[r0].cta,
            clash: None,
            unwritten: None,
        }
    }
}
