//! The bounded replays that end the all-sizes step once no attempt proved the kernel
//! ([`Ending::replays`]), and the cut they allow: a forking attempt that has spent
//! [`Limits::fork_probe_z3_work`] units asks them early, as if the step stopped there
//! ([`Ending::refutes_now`]); when they refute the kernel, the step ends with that
//! refutation and the attempt is cut short.
//!
//! Why the cut can change no verdict that could be right: the replays refute only at a
//! size every unsettled candidate admits (a witness or a nearby size outside one is
//! skipped), the running attempt's and every later one's among them, and there the
//! bounded checker found a wrong value, a fault or an unwritten element; a proof under
//! any of those candidates would claim that size right. The refutation is the very one
//! the step gives when the attempt runs out of its units instead (attention forking on
//! its key columns: `attention_naive_nomask` spent its 2M units to reach it):
//! the replays then see the same witnesses (the spent attempt adds none) and the same
//! unsettled constraints (the step adds those of every candidate not settled). An attempt
//! that would have ended otherwise, failing with sizes or handing the budget on, might
//! have led to another refuting size, or to UNKNOWN where the replays' own limits skip
//! this one; never to a proof. The suite's forking attempts that end on their own spend
//! at most about 0.12M units, so none of them is asked.
//!
//! Invariant: the replays' answer depends only on the witnesses (in order), the
//! unsettled constraints (as a set), the kernel and the limits; an answer kept from an
//! earlier ask is reused only for the same ones.
//!
//! [`Limits::fork_probe_z3_work`]: super::Limits

use super::attempt::Failed;
use super::nearby;
use super::scope::{Bound, Scope};
use super::work::Work;
use super::{replay, Replayed};
use crate::formula::Output as FormulaOutput;
use crate::kernel::Kernel;
use crate::launch::Instance;
use std::cell::RefCell;

/// What the step's end replays, and the answers kept.
pub(super) struct Ending<'a> {
    kernel: &'a Kernel,
    inst: &'a Instance,
    sizes: &'a [String],
    /// The kernel's block widths, around which the nearby sizes lie.
    widths: &'a [i64],
    outputs: &'a [FormulaOutput],
    work: &'a Work<'a>,
    /// The last answer of [`Ending::replays`] and what it was asked of.
    kept: RefCell<Option<Asked>>,
    /// The refutation an early ask found: the step's verdict.
    cut: RefCell<Option<Scope>>,
}

type Answer = Result<Option<Scope>, String>;

struct Asked {
    key: Key,
    answer: Answer,
}

/// What the replays are asked of: the witnesses of the failures in order, and the
/// unsettled constraints as a sorted set.
#[derive(PartialEq)]
struct Key {
    witnesses: Vec<Vec<(String, i64)>>,
    unsettled: Vec<(String, i64, bool)>,
}

impl Key {
    fn of(failures: &[Failed], unsettled: &[Bound]) -> Key {
        let mut set: Vec<(String, i64, bool)> = unsettled
            .iter()
            .map(|b| (b.size.clone(), b.value, b.exact))
            .collect();
        set.sort();
        set.dedup();
        Key {
            witnesses: failures.iter().filter_map(|f| f.witness.clone()).collect(),
            unsettled: set,
        }
    }
}

impl<'a> Ending<'a> {
    pub(super) fn new(
        kernel: &'a Kernel,
        inst: &'a Instance,
        sizes: &'a [String],
        widths: &'a [i64],
        outputs: &'a [FormulaOutput],
        work: &'a Work<'a>,
    ) -> Self {
        Ending {
            kernel,
            inst,
            sizes,
            widths,
            outputs,
            work,
            kept: RefCell::new(None),
            cut: RefCell::new(None),
        }
    }

    /// The refutation the replays give, if any: the witnesses of `failures`, most
    /// constrained attempt first, then sizes near the instance (`nearby`), each skipped
    /// where a constraint in `unsettled` excludes it. A wrong value anywhere is the
    /// counterexample to give before a fault (an out-of-bounds read at `D = 1` of a
    /// kernel that hard-codes `D == 16` is true, but says less than its wrong row sums
    /// at `D = 16`). `Err` when the last-resort timeout fires.
    pub(super) fn replays(&self, failures: &[Failed], unsettled: &[Bound]) -> Answer {
        let key = Key::of(failures, unsettled);
        if let Some(a) = &*self.kept.borrow() {
            if a.key == key {
                return a.answer.clone();
            }
        }
        let answer = self.replay_all(failures, unsettled);
        *self.kept.borrow_mut() = Some(Asked {
            key,
            answer: answer.clone(),
        });
        answer
    }

    fn replay_all(&self, failures: &[Failed], unsettled: &[Bound]) -> Answer {
        let work = self.work;
        let mut fault = None;
        for f in failures.iter().rev() {
            let Some(w) = &f.witness else { continue };
            if work.clock() {
                return Err(work.timeout_reason());
            }
            let outside = w
                .iter()
                .any(|(s, v)| unsettled.iter().any(|b| b.excludes(s, *v)));
            if outside {
                continue;
            }
            if let Some(Replayed { reason, refuted }) =
                replay(self.kernel, w, self.outputs, work.decided)
            {
                if refuted {
                    return Ok(Some(Scope::Refuted {
                        sizes: w.clone(),
                        reason,
                    }));
                }
                fault.get_or_insert(Scope::Refuted {
                    sizes: w.clone(),
                    reason,
                });
            }
        }
        if fault.is_some() {
            return Ok(fault);
        }
        // No witness replays: the bounded checker tries sizes near the instance.
        Ok(nearby::search(
            self.kernel,
            self.inst,
            self.sizes,
            self.widths,
            unsettled,
            self.outputs,
            work,
        ))
    }

    /// Whether the replays refute the kernel now, as the step's end would ask them were
    /// it to stop here: with `unsettled` and the constraints of every candidate not
    /// `settled`. The refutation is kept for [`Ending::cut`].
    pub(super) fn refutes_now(
        &self,
        failures: &[Failed],
        unsettled: &[Bound],
        candidates: &[Vec<Bound>],
        settled: &[bool],
    ) -> bool {
        let mut open = unsettled.to_vec();
        for (c, s) in candidates.iter().zip(settled) {
            if !s {
                open.extend(c.iter().cloned());
            }
        }
        let answer = self.replays(failures, &open);
        if std::env::var_os("LIFT_DEBUG_VERIFY").is_some() {
            eprintln!("  the forking attempt asks the replays: {answer:?}");
        }
        match answer {
            Ok(Some(refuted)) => {
                *self.cut.borrow_mut() = Some(refuted);
                true
            }
            _ => false,
        }
    }

    /// The refutation that cut a forking attempt short, once.
    pub(super) fn cut(&self) -> Option<Scope> {
        self.cut.borrow_mut().take()
    }
}
