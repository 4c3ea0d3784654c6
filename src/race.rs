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
use crate::term::Terms;
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
        _ => "UNKNOWN",
    }
}

/// Execute the kernel symbolically on `inst` and report the first unsafe access.
/// Errors that are not findings about the kernel (unsupported ops, bad launches)
/// are returned as errors.
pub fn race(kernel: &Kernel, inst: &Instance) -> Result<RaceReport, Error> {
    let start = Instant::now();
    // First without values: a PTX run that no data steered is SAFE for every input
    // exactly when the symbolic run would be (see `exec::addresses`). Anything else
    // (a finding, an error, a steered run) is decided by the symbolic run, whose
    // messages name the values.
    let safety = if kernel.ptx.is_some() && safe_without_values(kernel, inst) {
        Safety::Safe
    } else {
        symbolic_safety(kernel, inst)?
    };
    Ok(RaceReport {
        safety,
        kernel: kernel.path.display().to_string(),
        instance: inst.clone(),
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Whether a run without values (`exec::addresses`) ends cleanly with no data steering it.
fn safe_without_values(kernel: &Kernel, inst: &Instance) -> bool {
    let mut shadow = AddressOnly::default();
    kernel.execute(inst, &mut shadow).is_ok() && !shadow.steered()
}

/// The symbolic run's finding, if any; errors that are no finding stay errors.
fn symbolic_safety(kernel: &Kernel, inst: &Instance) -> Result<Safety, Error> {
    let mut terms = Terms::new();
    Ok(match kernel.spec(inst, &mut terms) {
        Ok(_) => Safety::Safe,
        Err(Error::Exec { err, file }) => match err.kind {
            ErrorKind::Race
            | ErrorKind::Deadlock
            | ErrorKind::OutOfBounds
            | ErrorKind::NeverWritten
            | ErrorKind::MaskedOff
            | ErrorKind::WriteToInput
            | ErrorKind::Trap => Safety::Unsafe {
                kind: err.kind,
                message: format!("{file}:{}: {err}", err.line),
            },
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
            Safety::Unsafe { message, .. } => s.push_str(&format!("  {message}\n")),
        }
        s.push_str(&format!(
            "{} in {:.3} s\n",
            self.safety.verdict(),
            self.seconds
        ));
        s
    }

    /// The report as JSON, shaped like `check`'s (`lift.check/1`): `schema`,
    /// `verdict` (lowercase: `safe`, `race`, `deadlock`, `out_of_bounds`, …),
    /// `title`, `sizes`, `grid`, `finding` (kind and message, `null` when safe),
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
        report_json(
            &self.kernel,
            &self.instance,
            word,
            finding,
            None,
            self.seconds,
        )
    }

    /// Exit code: 0 safe, 1 a finding.
    pub fn exit_code(&self) -> i32 {
        match self.safety {
            Safety::Safe => 0,
            Safety::Unsafe { .. } => 1,
        }
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
