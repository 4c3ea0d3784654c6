//! How a check or equiv [`Report`] is written: the text report ending in its verdict
//! line, the `lift.check/1` JSON document, and a counterexample's whole inputs.
//!
//! Architecture invariant: printing only; every fact printed is the report's.

use super::compare::leaf_name;
use super::findings::{Finding, Outcome, Report};
use crate::decide::{self, Leaf};
use crate::launch::{ArgValue, Instance, Role};
use crate::npy::Array;
use crate::verify;
use std::collections::BTreeMap;
use std::fmt::Write as _;

impl Report {
    /// Whole inputs for a refutation: every input tensor, and the value of every
    /// symbolic scalar. The counterexample's values where it names elements, the same
    /// point's values elsewhere (the given arrays' values when the point was theirs).
    /// Write them with `npy::write` and replay with `lift run`.
    pub fn counterexample_inputs(
        &self,
        inst: &Instance,
        given: &BTreeMap<String, Array>,
    ) -> (Vec<(String, Array)>, BTreeMap<String, f64>) {
        if let Some(found) = &self.rounding {
            // The search's own point, at its sizes.
            let arrays = found.inputs.arrays.clone().into_iter().collect();
            return (arrays, found.inputs.scalars.clone());
        }
        let Some((cx, point)) = self
            .counterexample
            .as_ref()
            .and_then(|c| Some((c, c.point?)))
        else {
            return (Vec::new(), BTreeMap::new());
        };
        let named: BTreeMap<&str, f64> = cx.inputs.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let from_caller = point == decide::CALLER_POINT;
        let value = |leaf: Leaf, fallback: Option<f64>| -> f64 {
            named
                .get(leaf_name(&leaf).as_str())
                .copied()
                .or(if from_caller { fallback } else { None })
                .unwrap_or_else(|| decide::point_value(point, &leaf))
        };
        let arrays = inst
            .tensors
            .iter()
            .filter(|t| t.role != Role::Out)
            .map(|t| {
                let data = (0..t.numel())
                    .map(|flat| {
                        let index: Box<[i64]> = t.unravel(flat).into();
                        let leaf = Leaf::Input {
                            tensor: t.name.as_str().into(),
                            index,
                        };
                        let v = value(
                            leaf,
                            given.get(&t.name).and_then(|a| a.data.get(flat).copied()),
                        );
                        // Integer tensors hold integers of their dtype, as the
                        // refuter's points do (`Terms::fit_input_value`).
                        if v.is_finite() {
                            t.fit(v)
                        } else {
                            v
                        }
                    })
                    .collect();
                (
                    t.name.clone(),
                    Array {
                        shape: t.shape.clone(),
                        data,
                    },
                )
            })
            .collect();
        let scalars = inst
            .args
            .values()
            .filter_map(|a| match a {
                ArgValue::Scalar(name) => Some(name.clone()),
                _ => None,
            })
            .map(|name| {
                let v = value(Leaf::Param(name.as_str().into()), None);
                (name, v)
            })
            .collect();
        (arrays, scalars)
    }

    pub fn to_text(&self) -> String {
        let mut s = String::new();
        let sizes: Vec<String> = self.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let _ = writeln!(s, "{} on {}", self.title, sizes.join(", "));
        for (name, shape, proved) in &self.tensors {
            let total: usize = shape.iter().product();
            let _ = writeln!(
                s,
                "  {name}{shape:?}: {proved} of {total} elements proved equal"
            );
        }
        if !self.unchecked.is_empty() {
            let _ = writeln!(
                s,
                "  not checked (not in the spec): {}",
                self.unchecked.join(", ")
            );
        }
        if !self.temporaries.is_empty() {
            let _ = writeln!(
                s,
                "  temporaries of the spec (not kernel outputs): {}",
                self.temporaries.join(", ")
            );
        }
        if !self.preconditions.is_empty() {
            // Preconditions can be long (a variance under an rsqrt): show a few, cut.
            let _ = writeln!(
                s,
                "  under {} preconditions, e.g.:",
                self.preconditions.len()
            );
            for p in self.preconditions.iter().take(3) {
                let _ = writeln!(s, "    {}", shorten(p, 160));
            }
            if self.preconditions.len() > 3 {
                let _ = writeln!(s, "    … (all of them with --format json)");
            }
        }
        if let Some(cx) = &self.counterexample {
            let _ = writeln!(
                s,
                "  counterexample at {}{}:",
                cx.tensor,
                show_index(&cx.index)
            );
            match (cx.left, cx.right) {
                (Some(l), Some(r)) => {
                    let _ = writeln!(s, "    kernel gives {l}, expected {r}");
                    if !cx.plain {
                        let _ = writeln!(s, "    {}", cx.reason);
                    } else if !l.is_finite() && r.is_finite() {
                        let _ = writeln!(
                            s,
                            "    (IEEE {l} in the kernel: 0/0, 0·inf or inf - inf, e.g. in masked-off lanes)"
                        );
                    }
                }
                _ => {
                    let _ = writeln!(s, "    {}", cx.reason);
                }
            }
            if !cx.inputs.is_empty() {
                let shown: Vec<String> = cx
                    .inputs
                    .iter()
                    .take(12)
                    .map(|(k, v)| format!("{k} = {v}"))
                    .collect();
                let more = if cx.inputs.len() > 12 {
                    format!(", … ({} values)", cx.inputs.len())
                } else {
                    String::new()
                };
                let _ = writeln!(s, "    at {}{more}", shown.join(", "));
            }
            if let Some(src) = &cx.source {
                let _ = writeln!(
                    s,
                    "    stored at {} (.{} line {})",
                    src.loc, self.ir, src.line
                );
            }
        }
        for u in &self.unknown {
            let _ = writeln!(
                s,
                "  undecided {}{}: {}",
                u.tensor,
                show_index(&u.index),
                u.reason
            );
        }
        if let Some(p) = &self.precision {
            let _ = writeln!(s, "  precision: {p}");
        }
        for a in &self.assumptions {
            let _ = writeln!(s, "  assumes {a}");
        }
        let verdict = match (self.outcome, self.all_sizes.as_ref().map(|o| (o, &o.scope))) {
            (Outcome::Verified, Some((o, verify::Scope::AllSizes { .. }))) => format!(
                "VERIFIED {} (proved on this launch instance and, in {:.1} ms over {} paths, \
                 for every size)",
                o.describe(),
                o.time.as_secs_f64() * 1e3,
                o.paths
            ),
            (Outcome::Verified, Some((o, _))) => {
                format!("VERIFIED on this launch instance ({})", o.describe())
            }
            (Outcome::Verified, None) => "VERIFIED (proved on this launch instance)".into(),
            (Outcome::Refuted, Some((o, verify::Scope::Refuted { .. }))) => format!(
                "{} (VERIFIED on this launch instance only; replay it with --size)",
                o.describe()
            ),
            (Outcome::Refuted, _) => match &self.rounding {
                Some(f) => {
                    let sizes: Vec<String> =
                        f.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
                    format!(
                        "REFUTED at {} in the kernel's own precision (beyond {}'s tolerance)",
                        sizes.join(", "),
                        f.dtype
                    )
                }
                None => "REFUTED".into(),
            },
            (Outcome::Unknown, _) => "UNKNOWN".into(),
        };
        let _ = writeln!(s, "{verdict} in {:.3} s", self.seconds);
        s
    }

    /// Stable JSON schema `lift.check/1`.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let finding = |f: &Finding| {
            json!({
                "tensor": f.tensor, "index": f.index, "kernel": f.left, "expected": f.right,
                "inputs": f.inputs.iter().map(|(k, v)| json!({"leaf": k, "value": v})).collect::<Vec<_>>(),
                "reason": f.reason,
                "source": f.source.as_ref().map(|s| json!({"ir": self.ir, "ir_line": s.line, "ttir_line": s.line, "python": s.loc.to_string()})),
            })
        };
        let (scope, constraints) = verify::Outcome::scope_json(self.all_sizes.as_ref());
        json!({
            "schema": "lift.check/1",
            "verdict": self.outcome,
            "title": self.title,
            "sizes": self.sizes,
            "tensors": self.tensors.iter().map(|(n, s, p)| json!({"tensor": n, "shape": s, "proved": p})).collect::<Vec<_>>(),
            "unchecked": self.unchecked,
            "temporaries": self.temporaries,
            "preconditions": self.preconditions,
            "assumptions": self.assumptions,
            "precision": self.precision.as_deref().unwrap_or("real"),
            "counterexample": self.counterexample.as_ref().map(finding),
            "rounding": self.rounding.as_ref().map(|f| json!({
                "sizes": f.sizes, "tensor": f.tensor, "index": f.index,
                "kernel_rounded": f.rounded, "kernel_real": f.real, "expected": f.expected,
                "dtype": f.dtype, "rtol": f.rtol, "atol": f.atol, "inputs": f.pattern,
            })),
            "unknown": self.unknown.iter().map(finding).collect::<Vec<_>>(),
            "scope": scope,
            "constraints": constraints,
            "all_sizes": self.all_sizes.as_ref().map(|o| o.to_json()),
            "seconds": self.seconds,
        })
    }
}

fn shorten(text: &str, max_chars: usize) -> String {
    if text.chars().count() <= max_chars {
        return text.to_string();
    }
    let head: String = text.chars().take(max_chars / 2).collect();
    let tail: String = {
        let v: Vec<char> = text.chars().collect();
        v[v.len() - max_chars / 2..].iter().collect()
    };
    format!("{head} … {tail}")
}

fn show_index(index: &[usize]) -> String {
    let parts: Vec<String> = index.iter().map(|i| i.to_string()).collect();
    format!("[{}]", parts.join(","))
}
