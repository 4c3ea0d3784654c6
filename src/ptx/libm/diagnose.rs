//! Naming an unrecognised expansion: bit-level code that is no probe's code is never
//! read as a function (a changed constant, a different algorithm), but the reader is
//! told which function it most likely is. The fingerprint is the set of the code's
//! constants (polynomial coefficients, split constants such as ln 2's two halves): an
//! expansion shares most of them with its function's probe whatever its argument. A
//! note never changes a verdict.

use super::probes::{fingerprint, probes};
use super::reachable;
use crate::exec::Output;
use crate::term::{Node, TermId, Terms};
use rustc_hash::FxHashSet;

/// Notes for at most this many elements (a report shows the first few).
const MAX_NOTES: usize = 8;

/// For the first elements that still read bit-level code: the probe whose constants
/// they share most (at least half of the probe's), and the argument a prefiltered try
/// of that probe used (`missed`), if any.
pub(super) fn likely(
    terms: &Terms,
    outputs: &[Output<TermId>],
    missed: &[(TermId, usize)],
) -> Vec<(usize, usize, String)> {
    let mut notes = Vec::new();
    for (oi, o) in outputs.iter().enumerate() {
        for (flat, e) in o.elems.iter().enumerate() {
            let Some(e) = *e else { continue };
            if notes.len() >= MAX_NOTES {
                return notes;
            }
            let dag = reachable(terms, &[e]);
            if !dag
                .iter()
                .any(|t| matches!(terms.node(*t), Node::Opaque(..)))
            {
                continue;
            }
            let mine = fingerprint(terms, e);
            let best = probes()
                .iter()
                .enumerate()
                .filter(|(_, p)| !p.constants.is_empty())
                .map(|(i, p)| {
                    (
                        i,
                        p.constants.intersection(&mine).count(),
                        p.constants.len(),
                    )
                })
                .filter(|&(_, shared, all)| 2 * shared >= all)
                .max_by(|a, b| (a.1 * b.2).cmp(&(b.1 * a.2)).then(b.2.cmp(&a.2)));
            let Some((i, shared, all)) = best else {
                continue;
            };
            let p = &probes()[i];
            // The argument of the prefiltered tries of that probe, if just one.
            let args: FxHashSet<TermId> = missed
                .iter()
                .filter(|(a, j)| {
                    // The argument, or `-u` / `k·u` for a `u` of the element.
                    let u = match terms.node(*a) {
                        Node::Mul(ops) if terms.as_const(ops[0]).is_some() => ops[1..].to_vec(),
                        _ => vec![*a],
                    };
                    *j == i && u.iter().all(|u| dag.binary_search(u).is_ok())
                })
                .map(|(a, _)| *a)
                .collect();
            let arg = match args.iter().next() {
                Some(a) if args.len() == 1 => format!(" at {}", terms.display(*a)),
                _ => String::new(),
            };
            notes.push((
                oi,
                flat,
                format!(
                    "it looks like the libm expansion `{}`{arg} ({shared} of its {all} \
                     constants occur) but its code differs from the probe's (a constant or \
                     an operation), so it is not read as {}",
                    p.name,
                    p.meaning.name()
                ),
            ));
        }
    }
    notes
}
