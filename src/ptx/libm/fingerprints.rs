//! The probes' fingerprints (how each probe's code uses its argument, its constants and
//! scales: the prefilter `recognise` reads), precomputed: measuring them runs every
//! probe's code five times, which cost every PTX command tens of milliseconds. They are
//! kept in `fingerprints.txt` beside this file, embedded in the binary.
//!
//! Invariant: a stored fingerprint is used only for the probe source it was measured
//! on (each entry carries a hash of the probe's PTX and launch text); any other probe is
//! measured at start-up, as before. The test `ptx_libm::stored_fingerprints_are_current`
//! re-measures every probe and fails when the file differs (`LIFT_BLESS=1` rewrites
//! it), so a change to the executor or the constructors cannot leave it stale. The
//! fingerprints only choose which arguments to try; recognition is still decided by
//! the identity of terms.

use num_rational::BigRational;
use rustc_hash::{FxHashMap, FxHashSet};

/// The file, as embedded.
pub const STORED: &str = include_str!("fingerprints.txt");

/// FNV-1a over the probe's sources: stable across machines and builds.
pub(super) fn source_hash(ptx: &str, launch: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in ptx.bytes().chain([0]).chain(launch.bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

fn sorted<'a>(set: impl IntoIterator<Item = &'a String>) -> Vec<&'a String> {
    let mut v: Vec<&String> = set.into_iter().collect();
    v.sort();
    v
}

/// One probe's lines: `name<TAB>field<TAB>value`. An optional set that is present
/// has a line with an empty value (it may be empty itself).
pub(super) fn write(name: &str, p: &Stored, out: &mut String) {
    let mut line = |field: &str, value: &str| {
        out.push_str(&format!("{name}\t{field}\t{value}\n"));
    };
    line("source", &p.source);
    for u in sorted(&p.uses) {
        line("uses", u);
    }
    for u in sorted(&p.neg_uses) {
        line("neg_uses", u);
    }
    let optional = p
        .scaled_uses
        .iter()
        .enumerate()
        .map(|(j, s)| (format!("scaled_uses{j}"), s))
        .chain(
            p.form_uses
                .iter()
                .enumerate()
                .map(|(j, s)| (format!("form_uses{j}"), s)),
        );
    for (field, set) in optional {
        if let Some(set) = set {
            line(&field, "");
            for u in sorted(set) {
                line(&field, u);
            }
        }
    }
    let mut constants: Vec<&BigRational> = p.constants.iter().collect();
    constants.sort();
    for c in constants {
        line("constant", &c.to_string());
    }
    for c in &p.scales {
        line("scale", &c.to_string());
    }
}

/// What the file holds for one probe (its source hash first): the fingerprint fields
/// of `probes::Probe`.
#[derive(Default)]
pub(super) struct Stored {
    pub source: String,
    pub uses: FxHashSet<String>,
    pub neg_uses: FxHashSet<String>,
    pub scaled_uses: [Option<FxHashSet<String>>; 2],
    pub form_uses: [Option<FxHashSet<String>>; 3],
    pub constants: FxHashSet<BigRational>,
    pub scales: Vec<BigRational>,
}

/// The file read back, by probe name. A line it cannot read drops that probe's entry
/// (the probe is then measured): the file is a cache, never a source of truth.
pub(super) fn read(text: &str) -> FxHashMap<String, Stored> {
    let mut all: FxHashMap<String, Stored> = FxHashMap::default();
    let mut bad: FxHashSet<String> = FxHashSet::default();
    for line in text.lines() {
        let mut parts = line.splitn(3, '\t');
        let (Some(name), Some(field), Some(value)) = (parts.next(), parts.next(), parts.next())
        else {
            continue;
        };
        let s = all.entry(name.to_string()).or_default();
        let value_set = |o: &mut Option<FxHashSet<String>>| {
            let set = o.get_or_insert_with(FxHashSet::default);
            if !value.is_empty() {
                set.insert(value.to_string());
            }
        };
        match field {
            "source" => s.source = value.to_string(),
            "uses" => {
                s.uses.insert(value.to_string());
            }
            "neg_uses" => {
                s.neg_uses.insert(value.to_string());
            }
            "scaled_uses0" => value_set(&mut s.scaled_uses[0]),
            "scaled_uses1" => value_set(&mut s.scaled_uses[1]),
            "form_uses0" => value_set(&mut s.form_uses[0]),
            "form_uses1" => value_set(&mut s.form_uses[1]),
            "form_uses2" => value_set(&mut s.form_uses[2]),
            "constant" | "scale" => match value.parse::<BigRational>() {
                Ok(c) if field == "constant" => {
                    s.constants.insert(c);
                }
                Ok(c) => s.scales.push(c),
                Err(_) => {
                    bad.insert(name.to_string());
                }
            },
            _ => {
                bad.insert(name.to_string());
            }
        }
    }
    all.retain(|name, _| !bad.contains(name));
    all
}
