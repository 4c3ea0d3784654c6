//! The bounded replays at sizes near the launch's instance, tried once no proof and no
//! witness settled the kernel: each size in turn at 1, 2, 3 and around each block
//! width, where tail and stride bugs live; only a wrong value there refutes.
//!
//! Each replay is priced twice, both in counts that are the same on every machine:
//! the product of its sizes against [`Limits::nearby_work`], and the terms it makes
//! (the bounded run's spec and proof) against [`Limits::nearby_terms`]. The terms a
//! replay will make are estimated from the replays already run along the same size,
//! at the growth they showed (attention's grow about as the square of its sequence
//! length, which a product of sizes undercounts), the first along a size from the
//! replay before it; a replay estimated past what is left is skipped (a causal
//! attention's batch of 15 at its sequence length of 48 makes 1.4M terms; its tail
//! sizes along the sequence, 60k in all).
//!
//! A replay takes as `Equal`, undecided, the element pairs the launch's instance or an
//! earlier replay decided `Equal` with no precondition on the same terms
//! (`decide::Decided`): the first batch element of a replay at a batch of 2 is the
//! instance's proof again, a causal row of a shorter sequence is often the same row of
//! a longer one. Only a pair decided `NotEqual` refutes, and none of those is reused.
//!
//! Invariant: the sizes tried, their order and which are skipped depend only on the
//! kernel, its instance and the limits; a skipped replay only ever leaves the verdict
//! UNKNOWN.
//!
//! [`Limits::nearby_work`]: super::Limits
//! [`Limits::nearby_terms`]: super::Limits

use super::scope::{Bound, Scope};
use super::work::Work;
use super::{replay_kept, Replayed};
use crate::decide::{Decided, EqualPairs};
use crate::formula::Output as FormulaOutput;
use crate::kernel::Kernel;
use crate::launch::Instance;

/// The terms of the replays run so far along one size: (value, terms made), in the
/// order run (values ascending).
#[derive(Default)]
struct Growth {
    seen: Vec<(i64, usize)>,
}

impl Growth {
    /// The terms a replay at `v` is expected to make: none known before the first
    /// replay along this size; after one, proportional to `v`; after two or more, at
    /// the power of `v` the last two showed (at least 1, at most 3).
    fn estimate(&self, v: i64) -> Option<f64> {
        let (v1, t1) = *self.seen.last()?;
        let (v1, t1, v) = (v1.max(1) as f64, t1.max(1) as f64, v.max(1) as f64);
        let k = match self.seen.len() {
            n if n >= 2 => {
                let (v0, t0) = self.seen[n - 2];
                let (v0, t0) = (v0.max(1) as f64, t0.max(1) as f64);
                if v1 > v0 {
                    ((t1 / t0).ln() / (v1 / v0).ln()).clamp(1.0, 3.0)
                } else {
                    1.0
                }
            }
            _ => 1.0,
        };
        Some(t1 * (v / v1).powf(k))
    }
}

/// Replays `kernel` at sizes near `inst` (one size changed at a time), skipping the
/// sizes a constraint in `unsettled` excludes; `Some(Refuted)` at the first size where
/// a formula of `outputs` gets a wrong value.
pub(super) fn search(
    kernel: &Kernel,
    inst: &Instance,
    sizes: &[String],
    widths: &[i64],
    unsettled: &[Bound],
    outputs: &[FormulaOutput],
    work: &Work,
) -> Option<Scope> {
    let debug = std::env::var_os("LIFT_DEBUG_VERIFY").is_some();
    let mut tried = 0;
    let mut nearby_left = work.limits.nearby_work;
    let mut terms_left = work.limits.nearby_terms as f64;
    // The product of sizes and the terms of the last replay run.
    let mut last: Option<(u64, usize)> = None;
    // Each replay run: its store and the pairs it decided `Equal`.
    let mut kept: Vec<(crate::term::Terms, EqualPairs)> = Vec::new();
    for s in sizes {
        let mut values: Vec<i64> = vec![1, 2, 3];
        for w in widths {
            values.extend([w - 1, w + 1, 2 * w + 1]);
        }
        values.sort_unstable();
        values.dedup();
        let mut growth = Growth::default();
        for v in values {
            let outside = unsettled.iter().any(|b| b.excludes(s, v));
            if !(1..=64).contains(&v) || outside || inst.sizes.get(s) == Some(&v) {
                continue;
            }
            let mut at: Vec<(String, i64)> =
                inst.sizes.iter().map(|(k, x)| (k.clone(), *x)).collect();
            for (k, x) in at.iter_mut() {
                if k == s {
                    *x = v;
                }
            }
            let cost: u64 = at.iter().map(|(_, x)| (*x).max(1) as u64).product();
            if cost > nearby_left {
                continue;
            }
            nearby_left -= cost;
            tried += 1;
            if tried > work.limits.nearby_replays || work.clock() {
                break;
            }
            // Charged above whether run or not, so the terms only ever skip a replay
            // the product of sizes admits, never admit one it skips.
            // The first replay along a size is estimated from the one before it (along
            // another size) in proportion to the product of sizes.
            let estimate = growth.estimate(v).or_else(|| {
                last.map(|(product, made): (u64, usize)| made as f64 * cost as f64 / product as f64)
            });
            if terms_left <= 0.0 || estimate.is_some_and(|e| e > terms_left) {
                if debug {
                    eprintln!("nearby replay at {at:?} skipped: about {estimate:?} terms, {terms_left} left");
                }
                continue;
            }
            if debug {
                eprintln!("nearby replay at {at:?}");
            }
            // Only a wrong value counts here: a fault or an unwritten element at a size
            // the kernel was never written for (a head dimension equal to its block)
            // is no refutation without a proof obligation that failed there.
            let decided = kept
                .iter()
                .fold(work.decided.clone(), |d: Decided, (t, e)| d.with(t, e));
            let (found, terms, equal) = replay_kept(kernel, &at, outputs, &decided);
            let made = terms.len();
            kept.push((terms, equal));
            if debug {
                eprintln!("  {made} terms");
            }
            terms_left -= made as f64;
            growth.seen.push((v, made));
            last = Some((cost, made));
            if let Some(Replayed { reason, refuted }) = found {
                if refuted {
                    return Some(Scope::Refuted { sizes: at, reason });
                }
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::Growth;

    #[test]
    fn the_first_replay_along_a_size_has_no_estimate() {
        assert_eq!(Growth::default().estimate(5), None);
    }

    #[test]
    fn one_replay_extrapolates_linearly() {
        let g = Growth {
            seen: vec![(2, 100)],
        };
        assert_eq!(g.estimate(6), Some(300.0));
    }

    #[test]
    fn two_replays_give_the_growth_they_show() {
        // 100 terms at 2, 400 at 4: quadratic, so 8 is expected at 1600.
        let g = Growth {
            seen: vec![(2, 100), (4, 400)],
        };
        let e = g.estimate(8).unwrap();
        assert!((e - 1600.0).abs() < 1e-6, "{e}");
        // A shrinking or flat count is read as linear, never as free.
        let g = Growth {
            seen: vec![(2, 100), (4, 100)],
        };
        assert_eq!(g.estimate(8), Some(200.0));
    }
}
