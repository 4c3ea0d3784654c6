//! How much work the all-sizes step may do: deterministic limits, so that the same
//! kernel gets the same verdict on every machine whatever its load.
//!
//! Two counters bound the step: Z3's own resource count (`rlimit`, summed over every
//! query of the step, each query also bounded on its own) and the prover's steps (one
//! per mask/branch case, loop-body case and term matched against a reduction). Both
//! count the same on every machine (as do the narrower limits inside them: the units
//! one forking attempt may spend, the terms the nearby replays may make). The one
//! wall-clock limit is the last-resort
//! [`Limits::timeout`]: when it fires, the step's verdict is UNKNOWN and says it
//! depends on the machine (never a proof, never a refutation).

use crate::decide::Decided;
use std::cell::Cell;
use std::time::{Duration, Instant};

/// The limits of one all-sizes step.
#[derive(Clone, Debug, PartialEq)]
pub struct Limits {
    /// Z3 resource units one query may spend; a query that needs more is "maybe"
    /// (never a proof).
    pub query_rlimit: u32,
    /// Z3 resource units the whole step may spend.
    pub z3_work: u64,
    /// Prover steps the whole step may take.
    pub steps: u64,
    /// Z3 resource units one attempt that forks on every undecided mask lane may
    /// spend; past them the step stops as if its whole budget were spent (forking
    /// multiplies the cases, and an attempt that needs this many will not settle in
    /// the budget: attention forking on its key columns).
    pub fork_z3_work: u64,
    /// Replays of sizes near the instance once no proof was found.
    pub nearby_replays: usize,
    /// Their cost: the product of a replay's sizes (about the work of running and
    /// deciding the kernel there), summed over the replays; a replay that would pass it
    /// is skipped.
    pub nearby_work: u64,
    /// The terms those replays may make in all (their bounded runs' specs and proofs);
    /// a replay expected to pass what is left is skipped (see `super::nearby`).
    pub nearby_terms: u64,
    /// Last resort: wall-clock time after which the step stops with an UNKNOWN that
    /// names the machine dependence. `None`: no wall-clock limit.
    pub timeout: Option<Duration>,
    /// Whether a forking attempt whose lazy twin failed with no mask lane open is
    /// skipped, its failure repeated (see `super::run`); off only to check that the
    /// skip changes no outcome.
    pub skip_repeated_forks: bool,
    /// Whether a forking run stops at a loop whose summary its probe shows stalling as
    /// its lazy twin's did (see `super::stall`); off only to check that the stop changes
    /// no outcome.
    pub skip_stalled_loops: bool,
    /// Whether a forking attempt stops once it is projected to pass
    /// [`Self::fork_z3_work`] (see [`Work::fork_projected`]): a budget policy, not a
    /// proof; off only to check that the early stop changes no outcome.
    pub project_fork_work: bool,
}

/// The nearby replays' terms: the suite's kernels make at most 50k in all (attention
/// at 16 by 32), FlashAttention's causal kernel 190k at a batch of 2 (then about 6 µs a
/// term on a 2020s core).
const NEARBY_TERMS: u64 = 300_000;

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            // About 2 s of Z3 on a quiet 2020s core, as the timeout it replaces.
            query_rlimit: 3_000_000,
            // The suite's heaviest proofs take 0.8M units (attention in one block) and
            // 150k steps (matmul_tiles, 0.6 s); a step that will not settle stops after
            // about 6 s of Z3.
            z3_work: 10_000_000,
            steps: 1_000_000,
            // The suite's forking attempts that settle spend at most 0.7M units.
            fork_z3_work: 2_000_000,
            nearby_replays: 24,
            nearby_work: 65_536,
            nearby_terms: NEARBY_TERMS,
            timeout: None,
            skip_repeated_forks: true,
            skip_stalled_loops: true,
            project_fork_work: true,
        }
    }
}

impl Limits {
    /// Every work limit multiplied by `factor` (the timeout is kept).
    pub fn scaled(&self, factor: f64) -> Limits {
        let f = factor.max(0.0);
        Limits {
            query_rlimit: (self.query_rlimit as f64 * f).clamp(1.0, u32::MAX as f64) as u32,
            z3_work: (self.z3_work as f64 * f).max(1.0) as u64,
            steps: (self.steps as f64 * f).max(1.0) as u64,
            fork_z3_work: (self.fork_z3_work as f64 * f).max(1.0) as u64,
            nearby_replays: self.nearby_replays,
            nearby_work: (self.nearby_work as f64 * f).max(1.0) as u64,
            nearby_terms: (self.nearby_terms as f64 * f).max(1.0) as u64,
            timeout: self.timeout,
            skip_repeated_forks: self.skip_repeated_forks,
            skip_stalled_loops: self.skip_stalled_loops,
            project_fork_work: self.project_fork_work,
        }
    }
}

/// Why the step stopped early.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Stop {
    /// A deterministic limit: the same on every machine.
    Work,
    /// The last-resort wall-clock timeout.
    Timeout,
}

/// The work spent so far in one step, against its [`Limits`].
pub struct Work<'d> {
    pub limits: Limits,
    /// Element pairs other stores decided `Equal` (the launch's instance): a replay
    /// takes them as `Equal` undecided.
    pub decided: &'d Decided<'d>,
    steps: Cell<u64>,
    z3: Cell<u64>,
    stopped: Cell<Option<Stop>>,
    started: Instant,
}

/// No store to reuse verdicts from.
static NONE: Decided<'static> = Decided::none();

impl Work<'static> {
    pub fn new(limits: &Limits) -> Self {
        Work::reusing(limits, &NONE)
    }
}

impl<'d> Work<'d> {
    pub fn reusing(limits: &Limits, decided: &'d Decided<'d>) -> Self {
        Work {
            limits: limits.clone(),
            decided,
            steps: Cell::new(0),
            z3: Cell::new(0),
            stopped: Cell::new(None),
            started: Instant::now(),
        }
    }

    /// Takes `n` steps; `Err` once a limit is spent (and from then on).
    pub fn step(&self, n: u64) -> Result<(), Stop> {
        self.steps.set(self.steps.get() + n);
        if self.steps.get() > self.limits.steps {
            self.stop(Stop::Work);
        }
        self.check()
    }

    /// Records Z3's resource count, read from any solver of the step's context (Z3
    /// keeps one count per context); `Err` once a limit is spent.
    pub fn z3(&self, solver: &z3::Solver) -> Result<(), Stop> {
        let count = solver
            .get_statistics()
            .value("rlimit count")
            .map_or(0, |v| match v {
                z3::StatisticsValue::UInt(n) => n as u64,
                z3::StatisticsValue::Double(x) => x as u64,
            });
        self.z3.set(self.z3.get().max(count));
        if self.z3.get() > self.limits.z3_work {
            self.stop(Stop::Work);
        }
        self.check()
    }

    /// `Err` once a limit is spent; reads the clock for the last-resort timeout.
    pub fn check(&self) -> Result<(), Stop> {
        if self.stopped.get().is_none() {
            self.clock();
        }
        match self.stopped.get() {
            Some(s) => Err(s),
            None => Ok(()),
        }
    }

    /// Whether the last-resort timeout has fired (reading the clock): the one check
    /// for work that follows a spent work limit (the replays).
    pub fn clock(&self) -> bool {
        if let Some(t) = self.limits.timeout {
            if self.started.elapsed() > t {
                self.stop(Stop::Timeout);
            }
        }
        self.timed_out()
    }

    /// Whether a forking attempt begun when `spent().1` was `start` has spent past
    /// [`Limits::fork_z3_work`]; if so the step stops as if every limit were spent.
    pub fn fork_spent(&self, start: u64) -> bool {
        let over = self.z3.get().saturating_sub(start) > self.limits.fork_z3_work;
        if over {
            self.stop(Stop::Work);
        }
        over
    }

    /// Whether a forking attempt begun when `spent().1` was `start` is projected to
    /// pass [`Limits::fork_z3_work`]: what it spent, plus `pending` paths at the cost
    /// of its `cheapest` path so far. `pending` is a lower bound of the paths left
    /// (depth first, each fork whose second side is not yet run leads to one at
    /// least), but `cheapest` is not a bound on their cost: a budget policy, not a
    /// proof (the attempt stops as [`Self::fork_spent`] would stop it later, giving up
    /// the paths in between, and any failure one of them would have met). If
    /// projected past, the step stops as if every limit were spent.
    pub fn fork_projected(&self, start: u64, cheapest: u64, pending: u64) -> bool {
        if !self.limits.project_fork_work {
            return false;
        }
        let spent = self.z3.get().saturating_sub(start);
        let over =
            spent.saturating_add(cheapest.saturating_mul(pending)) > self.limits.fork_z3_work;
        if over {
            self.stop(Stop::Work);
        }
        over
    }

    fn stop(&self, s: Stop) {
        // A timeout overrides: whatever stopped first, the machine was involved.
        if self.stopped.get() != Some(Stop::Timeout) {
            self.stopped.set(Some(s));
        }
    }

    pub fn stopped(&self) -> Option<Stop> {
        self.stopped.get()
    }

    pub fn timed_out(&self) -> bool {
        self.stopped.get() == Some(Stop::Timeout)
    }

    /// What was spent, for the debug log and calibration.
    pub fn spent(&self) -> (u64, u64) {
        (self.steps.get(), self.z3.get())
    }

    /// The verdict's reason when the step stopped early, `what` saying where.
    pub fn reason(&self, what: &str) -> String {
        match self.stopped.get() {
            Some(Stop::Timeout) => self.timeout_reason(),
            _ => format!(
                "the work limit ({} prover steps, {} Z3 resource units) ran out {what}",
                self.limits.steps, self.limits.z3_work
            ),
        }
    }

    /// The UNKNOWN reason of a step the last-resort timeout stopped.
    pub fn timeout_reason(&self) -> String {
        format!(
            "timed out after {:.0} s: this verdict depends on the machine",
            self.limits.timeout.unwrap_or_default().as_secs_f64()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_past_the_limit_stop_for_good() {
        let w = Work::new(&Limits {
            steps: 3,
            ..Limits::default()
        });
        assert_eq!(w.step(3), Ok(()));
        assert_eq!(w.step(1), Err(Stop::Work));
        assert_eq!(w.check(), Err(Stop::Work));
        assert!(!w.timed_out());
    }

    #[test]
    fn a_forking_attempt_past_its_units_stops_the_step() {
        let w = Work::new(&Limits {
            fork_z3_work: 10,
            ..Limits::default()
        });
        w.z3.set(15);
        assert!(!w.fork_spent(5), "10 units spent, 10 allowed");
        assert_eq!(w.check(), Ok(()));
        w.z3.set(16);
        assert!(w.fork_spent(5));
        assert_eq!(w.check(), Err(Stop::Work));
        assert!(!w.timed_out());
    }

    #[test]
    fn a_forking_attempt_projected_past_its_units_stops_the_step() {
        let limits = Limits {
            fork_z3_work: 100,
            ..Limits::default()
        };
        let w = Work::new(&limits);
        w.z3.set(30);
        // 30 spent and 7 paths left at 10 each: 100, within the units.
        assert!(!w.fork_projected(0, 10, 7));
        assert_eq!(w.check(), Ok(()));
        // The switch off: never projected.
        let off = Work::new(&Limits {
            project_fork_work: false,
            ..limits.clone()
        });
        off.z3.set(30);
        assert!(!off.fork_projected(0, 10, 8));
        assert_eq!(off.check(), Ok(()));
        // One path more: 110.
        assert!(w.fork_projected(0, 10, 8));
        assert_eq!(w.check(), Err(Stop::Work));
        assert!(!w.timed_out());
    }

    #[test]
    fn a_spent_timeout_is_a_timeout_not_a_work_limit() {
        let w = Work::new(&Limits {
            timeout: Some(Duration::ZERO),
            ..Limits::default()
        });
        std::thread::sleep(Duration::from_millis(2));
        assert_eq!(w.check(), Err(Stop::Timeout));
        assert!(w.timed_out());
        assert!(w.reason("here").contains("depends on the machine"));
    }

    #[test]
    fn z3_counts_its_resources_and_a_query_stops_at_its_rlimit() {
        let mut cfg = z3::Config::new();
        cfg.set_param_value("rlimit", "1");
        let ctx = z3::Context::new(&cfg);
        use z3::ast::Ast;
        let s = z3::Solver::new(&ctx);
        // A nonlinear integer query Z3 cannot settle in one resource unit.
        let x = z3::ast::Int::new_const(&ctx, "x");
        let y = z3::ast::Int::new_const(&ctx, "y");
        let e = &x * &x * &x + &y * &y * &y;
        s.assert(&e._eq(&z3::ast::Int::from_i64(&ctx, 33)));
        assert_eq!(s.check(), z3::SatResult::Unknown);
        let w = Work::new(&Limits {
            z3_work: 0,
            ..Limits::default()
        });
        assert_eq!(w.z3(&s), Err(Stop::Work));
        assert!(w.spent().1 > 0);
    }
}
