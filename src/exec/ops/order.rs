//! What orders the accesses of different programs of a Triton grid: the bounded run
//! executes the programs one after another, but on the GPU they run at the same time,
//! so two programs' accesses to one element of global memory, one a write, are a data
//! race unless something orders them. Here that something is a lock: a
//! `tl.atomic_cas(lock, free, taken)` that finds `free` takes the element as a lock,
//! an atomic by the holder that writes `free` back (`tl.atomic_xchg(lock, free)`) gives
//! it back, and with acquire/release semantics (`sem="acq_rel"`, Triton's default;
//! `acquire` on the take, `release` on the give-back) everything the holder did before
//! giving it back happens before everything the next holder does after taking it.
//!
//! Ordering is kept with vector clocks (as the PTX race checker's locks order threads):
//! every access is logged with its program and that program's clock; an earlier access
//! of another program is ordered before the current one only when the current program
//! has seen that clock through a chain of lock give-backs and takes.
//!
//! Invariants:
//! - Atomics never race with each other; an atomic races with a plain load or store of
//!   another program to the same element, a plain store with any access of another
//!   program, a plain load with a plain store of another, unless a lock orders them.
//! - Two programs storing the *same* value (the same term) to one element is not
//!   reported here (the later write wins, the value is one): `Execution::written_twice`
//!   keeps it, as the launch inference and coverage reading want.
//! - Locks are tracked whatever the domain; the race log only where the domain wants
//!   more than values (`Domain::values_only` is false).

use crate::exec::error::ErrorKind;
use crate::exec::error::{Fail, R};
use crate::triton_ir::ast::Loc;
use std::collections::HashMap;

/// One logged access: which program, at which of its clocks, at which op.
#[derive(Clone, Copy, Debug)]
struct Access {
    prog: u32,
    clock: u32,
    site: u32,
}

/// The accesses of one element that a later access may conflict with.
#[derive(Debug)]
struct Cell<V> {
    /// The last plain store and its value.
    write: Option<(Access, V)>,
    /// Plain loads since that store, the latest per program.
    reads: Vec<Access>,
    /// Atomics since that store, the latest per program.
    atomics: Vec<Access>,
}

impl<V> Default for Cell<V> {
    fn default() -> Self {
        Cell {
            write: None,
            reads: Vec::new(),
            atomics: Vec::new(),
        }
    }
}

/// An element some program took as a lock.
#[derive(Debug)]
struct Lock {
    /// The program holding it and the site of its take.
    holder: Option<(u32, u32)>,
    /// The value that gives it back (the take's compare value).
    free: i64,
    /// What the last release published: program -> clock.
    published: HashMap<u32, u32>,
}

/// The kind of an access, for the log and its messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Load,
    Store,
    Atomic,
}

impl Kind {
    fn verb(self) -> &'static str {
        match self {
            Kind::Load => "loads it",
            Kind::Store => "stores it",
            Kind::Atomic => "updates it atomically",
        }
    }
}

/// The ordering state of one bounded run (see the module doc).
pub(super) struct Order<V> {
    /// Whether accesses are logged for races.
    log: bool,
    grid: [i64; 3],
    prog: u32,
    clock: u32,
    /// The clocks of other programs the running one has synchronised with.
    seen: HashMap<u32, u32>,
    cells: HashMap<(usize, usize), Cell<V>>,
    locks: HashMap<(usize, usize), Lock>,
    sites: Vec<(u32, Loc)>,
    site_of: HashMap<u32, u32>,
    /// Whether any atomic other than a float add ran (the run's result may then depend
    /// on the programs' order: `exec::execute_with` runs them in a second order).
    pub(super) order_sensitive: bool,
    /// A lock a failed take found held (for a spin loop that never ends).
    pub(super) blocked: Option<String>,
}

impl<V: Copy + PartialEq> Order<V> {
    pub(super) fn new(log: bool, grid: [i64; 3]) -> Self {
        Order {
            log,
            grid,
            prog: 0,
            clock: 1,
            seen: HashMap::new(),
            cells: HashMap::new(),
            locks: HashMap::new(),
            sites: Vec::new(),
            site_of: HashMap::new(),
            order_sensitive: false,
            blocked: None,
        }
    }

    /// Program `program` starts: it has seen nothing of the others yet.
    pub(super) fn start(&mut self, program: [i64; 3]) {
        let [x, y, z] = program;
        self.prog = (x + self.grid[0] * (y + self.grid[1] * z)) as u32;
        self.clock = 1;
        self.seen.clear();
        self.blocked = None;
    }

    fn site(&mut self, line: u32, loc: &Loc) -> u32 {
        if let Some(&s) = self.site_of.get(&line) {
            return s;
        }
        self.sites.push((line, loc.clone()));
        let s = (self.sites.len() - 1) as u32;
        self.site_of.insert(line, s);
        s
    }

    /// Whether `a` happens before the running program's current access.
    fn ordered(&self, a: &Access) -> bool {
        a.prog == self.prog || self.seen.get(&a.prog).is_some_and(|&c| c >= a.clock)
    }

    fn program_of(&self, prog: u32) -> [i64; 3] {
        let p = prog as i64;
        let (gx, gy) = (self.grid[0].max(1), self.grid[1].max(1));
        [p % gx, (p / gx) % gy, p / (gx * gy)]
    }

    fn describe(&self, a: &Access, kind: Kind) -> String {
        let (line, loc) = &self.sites[a.site as usize];
        let [x, y, z] = self.program_of(a.prog);
        let src = match loc.file {
            Some(_) => format!(", {loc}"),
            None => String::new(),
        };
        format!(
            "program ({x}, {y}, {z}) {} at .ttir line {line}{src}",
            kind.verb()
        )
    }

    /// Log an access of the running program to element `flat` of tensor `tensor`
    /// (printed `element`), by the op at `line`/`loc`; a store carries its value. A
    /// conflicting earlier access of another program that nothing orders is a race.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn access(
        &mut self,
        tensor: usize,
        flat: usize,
        element: impl Fn() -> String,
        kind: Kind,
        value: Option<V>,
        line: u32,
        loc: &Loc,
    ) -> R<()> {
        if !self.log {
            return Ok(());
        }
        let site = self.site(line, loc);
        let me = Access {
            prog: self.prog,
            clock: self.clock,
            site,
        };
        let cell = self.cells.remove(&(tensor, flat)).unwrap_or_default();
        let conflict = {
            let unordered = |a: &&Access| !self.ordered(a);
            let write = cell.write.as_ref().filter(|(w, v)| {
                // the same value stored twice is the later write winning, not a race
                !self.ordered(w) && !(kind == Kind::Store && value == Some(*v))
            });
            match kind {
                Kind::Load => write.map(|(w, _)| (*w, Kind::Store)).or_else(|| {
                    cell.atomics
                        .iter()
                        .find(unordered)
                        .map(|a| (*a, Kind::Atomic))
                }),
                Kind::Store => write
                    .map(|(w, _)| (*w, Kind::Store))
                    .or_else(|| cell.reads.iter().find(unordered).map(|a| (*a, Kind::Load)))
                    .or_else(|| {
                        cell.atomics
                            .iter()
                            .find(unordered)
                            .map(|a| (*a, Kind::Atomic))
                    }),
                Kind::Atomic => write
                    .map(|(w, _)| (*w, Kind::Store))
                    .or_else(|| cell.reads.iter().find(unordered).map(|a| (*a, Kind::Load))),
            }
        };
        if let Some((earlier, earlier_kind)) = conflict {
            let message = format!(
                "data race on {}: {} and {}, and no lock taken and given back with acquire/release semantics orders the two programs (programs of a grid run concurrently)",
                element(),
                self.describe(&earlier, earlier_kind),
                self.describe(&me, kind),
            );
            self.cells.insert((tensor, flat), cell);
            return Err(Fail {
                kind: ErrorKind::Race,
                message,
            });
        }
        let mut cell = cell;
        let keep = |list: &mut Vec<Access>| match list.iter_mut().find(|a| a.prog == me.prog) {
            Some(a) => *a = me,
            None => list.push(me),
        };
        match kind {
            Kind::Load => keep(&mut cell.reads),
            Kind::Atomic => keep(&mut cell.atomics),
            Kind::Store => {
                cell.write = value.map(|v| (me, v));
                cell.reads.clear();
                cell.atomics.clear();
            }
        }
        self.cells.insert((tensor, flat), cell);
        Ok(())
    }

    /// A compare-and-swap that found its compare value `free` and wrote `taken`: the
    /// running program takes the element as a lock; with acquire semantics it sees
    /// what the last holder published.
    pub(super) fn take(
        &mut self,
        key: (usize, usize),
        free: i64,
        acquire: bool,
        line: u32,
        loc: &Loc,
    ) {
        let site = self.site(line, loc);
        let prog = self.prog;
        let lock = self.locks.entry(key).or_insert_with(|| Lock {
            holder: None,
            free,
            published: HashMap::new(),
        });
        lock.holder = Some((prog, site));
        lock.free = free;
        if acquire {
            for (&p, &c) in &lock.published {
                let e = self.seen.entry(p).or_insert(0);
                *e = (*e).max(c);
            }
        }
    }

    /// An atomic of the running program wrote `value` to element `key`: if that gives
    /// back a lock it holds, with release semantics it publishes everything it did so
    /// far. Any other write leaves a lock as it is. Whether it gave one back.
    pub(super) fn wrote(&mut self, key: (usize, usize), value: Option<i64>, release: bool) -> bool {
        let prog = self.prog;
        let Some(lock) = self.locks.get_mut(&key) else {
            return false;
        };
        if lock.holder.map(|h| h.0) != Some(prog) || value != Some(lock.free) {
            return false;
        }
        lock.holder = None;
        if release {
            let mut published = self.seen.clone();
            published.insert(prog, self.clock);
            lock.published = published;
            self.clock += 1;
        }
        true
    }

    /// Whether the running program holds a lock (its accesses are in a critical
    /// section, ordered by the lock where the race log is kept).
    pub(super) fn in_critical_section(&self) -> bool {
        self.locks
            .values()
            .any(|l| l.holder.map(|h| h.0) == Some(self.prog))
    }

    /// A compare-and-swap found element `key` not free: note who holds it, for a spin
    /// loop that never ends.
    pub(super) fn failed_take(&mut self, key: (usize, usize), element: &str) {
        let Some((holder, site)) = self.locks.get(&key).and_then(|l| l.holder) else {
            return;
        };
        let (line, loc) = &self.sites[site as usize];
        let [x, y, z] = self.program_of(holder);
        let who = if holder == self.prog {
            "this program".to_string()
        } else {
            format!("program ({x}, {y}, {z})")
        };
        let src = match loc.file {
            Some(_) => format!(" ({loc})"),
            None => String::new(),
        };
        self.blocked = Some(format!(
            "the lock {element} was taken by {who} at .ttir line {line}{src} and never given back"
        ));
    }
}
