//! `lift race`: does a kernel, on one launch instance, access memory safely?
//!
//! Architecture invariant: this module only interprets the result of symbolic
//! execution; the checks themselves (races under barrier and warp-sync ordering,
//! deadlocks, bounds, reads of unwritten memory) happen in the executors.

use crate::error::Error;
use crate::exec::addresses::AddressOnly;
use crate::exec::ErrorKind;
use crate::kernel::Kernel;
use crate::launch::Instance;
use crate::ptx::BenignRace;
use crate::race_every::{count_size, every, prove_beyond, Every};
use crate::term::Terms;
use crate::verdict::Verdict;
use std::time::Instant;

/// The answer of `lift race`.
#[derive(Clone, Debug, PartialEq)]
pub enum Safety {
    /// Every access of every thread was in bounds and ordered.
    Safe,
    /// A finding, with the executor's message (threads, instructions, lines).
    Unsafe { kind: ErrorKind, message: String },
}

#[derive(Clone, Debug)]
pub struct RaceReport {
    pub safety: Safety,
    pub kernel: String,
    pub instance: Instance,
    pub seconds: f64,
    /// Races the PTX memory model calls races but that cannot change an output (a
    /// read whose value is never used, warps storing one value in one instruction),
    /// one per pair of instructions; with `--strict-races` the first is the finding
    /// instead.
    pub benign: Vec<BenignRace>,
    /// An mbarrier pipeline's answer for every value of its loop count (see
    /// `race_every`); `safety` is then the finding at another count if there is one.
    pub every: Option<Every>,
}

impl Safety {
    /// The greppable verdict word.
    pub fn verdict(&self) -> &'static str {
        match self {
            Safety::Safe => "SAFE",
            Safety::Unsafe { kind, .. } => verdict_word(*kind),
        }
    }
}

/// The verdict word of an execution finding.
pub fn verdict_word(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Race => "RACE",
        ErrorKind::Deadlock => "DEADLOCK",
        ErrorKind::OutOfBounds => "OUT OF BOUNDS",
        ErrorKind::NeverWritten => "UNINITIALISED READ",
        ErrorKind::MaskedOff => "MASKED-OFF VALUE USED",
        ErrorKind::WriteToInput => "WRITE TO INPUT",
        ErrorKind::Trap => "TRAP",
        ErrorKind::Undefined => "UNDEFINED BEHAVIOUR",
        _ => "UNKNOWN",
    }
}

/// Execute the kernel on `inst` and report the first unsafe access; benign races
/// (dead reads, warps storing one value in one instruction) are listed and keep SAFE.
pub fn race(kernel: &Kernel, inst: &Instance) -> Result<RaceReport, Error> {
    race_with(kernel, inst, false)
}

/// [`race`]; with `strict_races` (`--strict-races`) a benign race is a finding too,
/// as the PTX memory model has it. Errors that are not findings about the kernel
/// (unsupported ops, bad launches) are returned as errors.
pub fn race_with(
    kernel: &Kernel,
    inst: &Instance,
    strict_races: bool,
) -> Result<RaceReport, Error> {
    let start = Instant::now();
    let (mut safety, benign) = instance_safety(kernel, inst, strict_races)?;
    let mut every_count = None;
    if let (Safety::Safe, Some(size)) = (&safety, count_size(kernel)) {
        let check = |one: &Instance| {
            Ok(match instance_safety(kernel, one, strict_races)?.0 {
                Safety::Safe => None,
                Safety::Unsafe { kind, message } => Some((kind, message)),
            })
        };
        let prove = |from: i64| prove_beyond(kernel, inst, &size, from);
        let e = every(kernel, inst, &size, check, prove)?;
        if let Every::Unsafe { kind, message, .. } = &e {
            safety = Safety::Unsafe {
                kind: *kind,
                message: message.clone(),
            };
        }
        every_count = Some(e);
    }
    Ok(RaceReport {
        safety,
        kernel: kernel.path.display().to_string(),
        instance: inst.clone(),
        seconds: start.elapsed().as_secs_f64(),
        benign,
        every: every_count,
    })
}

/// `lift race` at one instance: the finding, else SAFE with the benign races.
fn instance_safety(
    kernel: &Kernel,
    inst: &Instance,
    strict_races: bool,
) -> Result<(Safety, Vec<BenignRace>), Error> {
    // First without values: a PTX run that no data steered is SAFE for every input
    // exactly when the symbolic run would be (see `exec::addresses`). Anything else
    // (a finding, an error, a steered run) is decided by the symbolic run, whose
    // messages name the values.
    let shadow = match kernel.is_ptx() {
        true => safe_without_values(kernel, inst),
        false => None,
    };
    let (mut safety, benign) = match shadow {
        Some(benign) => (Safety::Safe, benign),
        None => symbolic_safety(kernel, inst)?,
    };
    if let (true, Safety::Safe, Some(b)) = (strict_races, &safety, benign.first()) {
        safety = Safety::Unsafe {
            kind: ErrorKind::Race,
            message: format!(
                "{}:{}: {} (a benign race: no output depends on it; reported under \
                 --strict-races)",
                kernel.path.display(),
                b.line,
                b.message
            ),
        };
    }
    Ok((safety, benign))
}

/// The benign races of a run without values (`exec::addresses`) that ends cleanly with
/// no data steering it; `None` when the symbolic run must decide.
fn safe_without_values(kernel: &Kernel, inst: &Instance) -> Option<Vec<BenignRace>> {
    let mut shadow = AddressOnly::default();
    match kernel.execute_for_races(inst, &mut shadow) {
        Ok((_, benign)) if !shadow.steered() => Some(benign),
        _ => None,
    }
}

/// The symbolic run's finding, if any, and its benign races; errors that are no
/// finding stay errors.
fn symbolic_safety(kernel: &Kernel, inst: &Instance) -> Result<(Safety, Vec<BenignRace>), Error> {
    let mut terms = Terms::new();
    let mut domain = kernel.symbolic(inst, &mut terms);
    Ok(match kernel.execute_for_races(inst, &mut domain) {
        Ok((_, benign)) => (Safety::Safe, benign),
        Err(Error::Exec { err, file }) => match err.kind {
            ErrorKind::Race
            | ErrorKind::Deadlock
            | ErrorKind::OutOfBounds
            | ErrorKind::NeverWritten
            | ErrorKind::MaskedOff
            | ErrorKind::WriteToInput
            | ErrorKind::Trap
            | ErrorKind::Undefined => (
                Safety::Unsafe {
                    kind: err.kind,
                    message: format!("{file}:{}: {err}", err.line),
                },
                Vec::new(),
            ),
            _ => return Err(Error::Exec { err, file }),
        },
        Err(e) => return Err(e),
    })
}

impl RaceReport {
    pub fn to_text(&self) -> String {
        let sizes: Vec<String> = self
            .instance
            .sizes
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        let [gx, gy, gz] = self.instance.grid;
        let mut s = format!(
            "{} on {} (grid ({gx}, {gy}, {gz}))\n",
            self.kernel,
            sizes.join(", ")
        );
        match &self.safety {
            Safety::Safe => s.push_str(
                "  no data race, deadlock, out-of-bounds access or read of unwritten memory\n",
            ),
            Safety::Unsafe { message, .. } if self.every.is_none() => {
                s.push_str(&format!("  {message}\n"))
            }
            Safety::Unsafe { .. } => {}
        }
        for line in self.every.iter().flat_map(|e| e.lines()) {
            s.push_str(&line);
            s.push('\n');
        }
        if !self.benign.is_empty() && self.safety == Safety::Safe {
            s.push_str(
                "  benign races (no output depends on them; --strict-races reports them):\n",
            );
            for b in &self.benign {
                s.push_str(&format!(
                    "    {}:{}: {}{}\n",
                    self.kernel,
                    b.line,
                    b.message,
                    more(b.count)
                ));
            }
        }
        s.push_str(&format!(
            "{}{} in {:.3} s\n",
            self.safety.verdict(),
            self.every.as_ref().map_or(String::new(), |e| e.scope()),
            self.seconds
        ));
        s
    }

    /// The report as JSON, shaped like `check`'s (`lift.check/1`): `schema`,
    /// `verdict` (lowercase: `safe`, `race`, `deadlock`, `out_of_bounds`, …),
    /// `title`, `sizes`, `grid`, `finding` (kind and message, `null` when safe),
    /// `benign_races` (`line`, `message`, `count`: races no output depends on),
    /// `scope` (always `instance`: one launch), `seconds`.
    pub fn to_json(&self) -> serde_json::Value {
        let finding = match &self.safety {
            Safety::Safe => serde_json::Value::Null,
            Safety::Unsafe { kind, message } => serde_json::json!({
                "kind": json_word(*kind),
                "message": message,
            }),
        };
        let word = match &self.safety {
            Safety::Safe => "safe",
            Safety::Unsafe { kind, .. } => json_word(*kind),
        };
        let mut j = report_json(
            &self.kernel,
            &self.instance,
            word,
            finding,
            None,
            self.seconds,
        );
        j["benign_races"] = self
            .benign
            .iter()
            .map(|b| {
                serde_json::json!({
                    "line": b.line,
                    "message": b.message,
                    "count": b.count,
                })
            })
            .collect();
        if let Some(e) = &self.every {
            j["every_size"] = e.to_json();
            if e.scope().starts_with(" for every") {
                j["scope"] = "all_sizes".into();
            }
        }
        j
    }

    /// Verified when safe, Refuted on a finding.
    pub fn verdict(&self) -> Verdict {
        match self.safety {
            Safety::Safe => Verdict::Verified,
            Safety::Unsafe { .. } => Verdict::Refuted,
        }
    }

    /// Exit code: 0 safe, 1 a finding.
    pub fn exit_code(&self) -> i32 {
        self.verdict().exit_code()
    }
}

/// " (and N more between the same two instructions)" for a count above one.
fn more(count: usize) -> String {
    match count {
        0 | 1 => String::new(),
        n => format!(" (and {} more between the same two instructions)", n - 1),
    }
}

/// The lowercase verdict word of JSON reports (`RACE` → `race`, `OUT OF BOUNDS` →
/// `out_of_bounds`).
fn json_word(kind: ErrorKind) -> &'static str {
    match kind {
        ErrorKind::Race => "race",
        ErrorKind::Deadlock => "deadlock",
        ErrorKind::OutOfBounds => "out_of_bounds",
        ErrorKind::NeverWritten => "uninitialised_read",
        ErrorKind::MaskedOff => "masked_off_value_used",
        ErrorKind::WriteToInput => "write_to_input",
        ErrorKind::Trap => "trap",
        ErrorKind::Undefined => "undefined_behaviour",
        _ => "unknown",
    }
}

fn report_json(
    kernel: &str,
    inst: &Instance,
    verdict: &str,
    finding: serde_json::Value,
    reason: Option<&str>,
    seconds: f64,
) -> serde_json::Value {
    serde_json::json!({
        "schema": "lift.race/1",
        "verdict": verdict,
        "title": format!("{kernel} on one launch instance"),
        "kernel": kernel,
        "sizes": inst.sizes,
        "grid": inst.grid,
        "finding": finding,
        "benign_races": [],
        "reason": reason,
        "scope": "instance",
        "seconds": seconds,
    })
}

/// The JSON report of a race check lift could not finish (exit 3): verdict
/// `unknown` with the reason.
pub fn unknown_json(kernel: &Kernel, inst: &Instance, reason: &str) -> serde_json::Value {
    report_json(
        &kernel.path.display().to_string(),
        inst,
        "unknown",
        serde_json::Value::Null,
        Some(reason),
        0.0,
    )
}
