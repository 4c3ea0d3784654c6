//! How a [`Lift`] is printed: text (formula lines and a verdict line) and JSON.

use super::{Lift, Lifted};
use crate::formula::{Formula, FormulaError, Output};
use crate::term::Terms;
use crate::verdict::Verdict;
use std::path::Path;

impl Lift {
    /// Proves the lifted formulas for every size (when every output lifted), keeping
    /// the outcome for the verdict line and the JSON report.
    pub fn verify_all_sizes(
        &mut self,
        kernel: &crate::kernel::Kernel,
        inst: &crate::launch::Instance,
    ) {
        self.verify_all_sizes_with(kernel, inst, &crate::verify::Limits::default())
    }

    /// [`Lift::verify_all_sizes`] within `limits`.
    pub fn verify_all_sizes_with(
        &mut self,
        kernel: &crate::kernel::Kernel,
        inst: &crate::launch::Instance,
        limits: &crate::verify::Limits,
    ) {
        let none = crate::decide::Decided::none();
        self.verify_all_sizes_reusing(kernel, inst, limits, &Formula::clone, &none)
    }

    /// [`Lift::verify_all_sizes_with`] of `shown(f)` for each lifted formula `f` (its
    /// named form written out, equal to `f` on the instance) in place of `f`, the
    /// replays taking the element pairs `decided` knows (the same terms proved `Equal`
    /// on the instance) as `Equal` undecided.
    pub fn verify_all_sizes_reusing(
        &mut self,
        kernel: &crate::kernel::Kernel,
        inst: &crate::launch::Instance,
        limits: &crate::verify::Limits,
        shown: &dyn Fn(&Formula) -> Formula,
        decided: &crate::decide::Decided,
    ) {
        if self.verdict() != Verdict::Verified {
            return;
        }
        let outputs: Vec<Output> = self
            .outputs
            .iter()
            .filter_map(|o| o.formula.as_ref().map(|f| Output::new(&o.name, shown(f))))
            .collect();
        self.all_sizes = Some(crate::verify::verify_reusing(
            kernel, inst, &outputs, limits, decided,
        ));
    }

    /// 0 when every output lifted (and no size refutes it), 1 when an output is NaN or
    /// infinite for every input or the formula fails at another size, 3 otherwise.
    pub fn exit_code(&self) -> i32 {
        self.verdict().exit_code()
    }

    /// Refuted when an output is NaN or infinite for every input or the formula fails
    /// at another size, Verified when every output lifted, Unknown otherwise.
    pub fn verdict(&self) -> Verdict {
        let refuted = matches!(
            self.all_sizes.as_ref().map(|o| &o.scope),
            Some(crate::verify::Scope::Refuted { .. })
        );
        if self.outputs.iter().any(|o| o.undefined.is_some()) || refuted {
            Verdict::Refuted
        } else if self.outputs.iter().all(|o| o.formula.is_some()) {
            Verdict::Verified
        } else {
            Verdict::Unknown
        }
    }

    fn sizes_text(&self) -> String {
        let s: Vec<String> = self
            .spec
            .sizes
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        s.join(", ")
    }

    fn heading(&self, o: &Lifted) -> String {
        match &o.formula {
            Some(f) => match f.dims(&self.env) {
                Ok(d) => crate::render::heading(&o.name, &d),
                Err(_) => o.name.clone(),
            },
            None => {
                let d: Vec<String> = o.shape.iter().map(|d| d.to_string()).collect();
                format!("{}[{}]", o.name, d.join(","))
            }
        }
    }

    /// `y[M,N] = ...` per output with the source lines it comes from, then the
    /// verdict line with the phase timings (or, for an output that stalled, why, and the
    /// first elements of its point-wise spec).
    pub fn to_text(&self, terms: &Terms) -> String {
        self.to_text_with(terms, &|f| crate::render::text::expr_in(f, &self.env))
    }

    /// [`Lift::to_text`] with each formula printed by `formula` (`lift` prints its
    /// named form so).
    pub fn to_text_with(&self, terms: &Terms, formula: &dyn Fn(&Formula) -> String) -> String {
        let mut s = String::new();
        for (o, t) in self.outputs.iter().zip(&self.spec.outputs) {
            match &o.formula {
                Some(f) => {
                    s += &format!("{} = {}\n", self.heading(o), formula(f));
                }
                None => {
                    let label = if o.undefined.is_some() {
                        "UNDEFINED"
                    } else {
                        "STALLED"
                    };
                    s += &format!(
                        "{}: {label}: {}\n",
                        self.heading(o),
                        o.stalled.as_deref().unwrap_or("")
                    );
                    s += "  point-wise spec:\n";
                    for (flat, e) in t.elems.iter().enumerate().take(SPEC_LINES) {
                        let idx: Vec<String> =
                            t.index(flat).iter().map(|i| i.to_string()).collect();
                        let v = match e {
                            Some(id) => shorten(super::show(terms, *id)),
                            None => "<never written>".into(),
                        };
                        s += &format!("  {}[{}] = {}\n", t.name, idx.join(","), v);
                    }
                    if t.elems.len() > SPEC_LINES {
                        s += &format!(
                            "  ... {} more elements (all of them: lift spec)\n",
                            t.elems.len() - SPEC_LINES
                        );
                    }
                }
            }
            s += &self.sources_text(o);
        }
        use crate::verify::Scope;
        let verdict = match (self.verdict(), self.all_sizes.as_ref()) {
            (Verdict::Verified, Some(o)) if matches!(o.scope, Scope::AllSizes { .. }) => format!(
                "VERIFIED {} (proved on {} and, in {:.1} ms over {} paths, for every size)",
                o.describe(),
                self.sizes_text(),
                o.time.as_secs_f64() * 1e3,
                o.paths
            ),
            (Verdict::Verified, Some(o)) => format!(
                "VERIFIED on {} (every element proved) ({})",
                self.sizes_text(),
                o.describe()
            ),
            (Verdict::Verified, None) => {
                format!("VERIFIED on {} (every element proved)", self.sizes_text())
            }
            (Verdict::Refuted, Some(o)) if matches!(o.scope, Scope::Refuted { .. }) => format!(
                "{} (VERIFIED on {} only; replay it with --size)",
                o.describe(),
                self.sizes_text()
            ),
            (Verdict::Refuted, _) => format!(
                "REFUTED on {}: an output is undefined (NaN or infinite) for every input",
                self.sizes_text()
            ),
            (Verdict::Unknown, _) => {
                format!("UNKNOWN on {}: not every output lifted", self.sizes_text())
            }
        };
        if let Some(p) = &self.precision {
            s += &format!("precision: {p}\n");
        }
        for a in &self.assumptions {
            s += &format!("assumes {a}\n");
        }
        s += &format!("{verdict} in {}\n", self.timings_text());
        s
    }

    /// `  from FILE:` then `    LINE | code` per source line; when the file is not on
    /// this machine, `  from FILE: lines 50-51, 66, 70-75` (compact ranges).
    fn sources_text(&self, o: &Lifted) -> String {
        let mut s = String::new();
        let mut groups: Vec<(&str, Vec<u32>)> = Vec::new();
        for loc in &o.sources {
            let Some(f) = loc.file.as_deref() else {
                continue;
            };
            match groups.last_mut() {
                Some((g, lines)) if *g == f => lines.push(loc.line),
                _ => groups.push((f, vec![loc.line])),
            }
        }
        for (f, lines) in groups {
            let code: Vec<Option<String>> = lines
                .iter()
                .map(|&l| source_line(f, l, &self.kernel_path))
                .collect();
            if code.iter().all(Option::is_none) {
                s += &format!("  from {f}: lines {}\n", compact_ranges(&lines));
                continue;
            }
            s += &format!("  from {f}:\n");
            for (line, code) in lines.iter().zip(code) {
                match code {
                    Some(c) => s += &format!("  {line:>5} | {}\n", c.trim_end()),
                    None => s += &format!("  {line:>5}\n"),
                }
            }
        }
        s
    }

    fn timings_text(&self) -> String {
        let t = &self.timings;
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        format!(
            "{:.1} ms (execute {:.1} ms, synthesize {:.1} ms, prove {:.1} ms)",
            ms(t.execute + t.synthesize + t.prove),
            ms(t.execute),
            ms(t.synthesize),
            ms(t.prove)
        )
    }

    /// The lifted formulas, `None` when some output stalled.
    fn formulas(&self) -> Option<Vec<Output>> {
        self.outputs
            .iter()
            .map(|o| Some(Output::new(&o.name, o.formula.clone()?)))
            .collect()
    }

    /// A LaTeX `align*` block of every output; `None` when some output stalled.
    pub fn to_latex(&self) -> Option<Result<String, FormulaError>> {
        Some(crate::render::latex::outputs(&self.formulas()?, &self.env))
    }

    /// [`Self::to_latex`] with each formula printed by `formula`.
    pub fn to_latex_with(
        &self,
        formula: &dyn Fn(&Formula) -> String,
    ) -> Option<Result<String, FormulaError>> {
        Some(crate::render::latex::outputs_with(
            &self.formulas()?,
            &self.env,
            formula,
        ))
    }

    /// The lifted formulas in the order of the kernel's output parameters (tensors the
    /// kernel does not name last), and the docstring saying what the function returns.
    fn formulas_in_param_order(&self) -> Option<(Vec<Output>, String)> {
        let mut outs = self.formulas()?;
        let rank = |n: &str| {
            self.output_order
                .iter()
                .position(|o| o == n)
                .unwrap_or(usize::MAX)
        };
        outs.sort_by_key(|o| rank(&o.name));
        let names: Vec<&str> = outs.iter().map(|o| o.name.as_str()).collect();
        let doc = match names[..] {
            [one] => format!("Returns `{one}`, the kernel's output."),
            _ => format!(
                "Returns ({}): the kernel's outputs, in the order of its parameters.",
                names.join(", ")
            ),
        };
        Some((outs, doc))
    }

    /// A runnable Python module defining `<kernel>_torch(...)` (PyTorch); `None` when
    /// some output stalled.
    pub fn to_torch(&self) -> Option<Result<String, FormulaError>> {
        self.reference("torch", &crate::render::torch::kernel_function)
    }

    /// A runnable Python module defining `<kernel>_numpy(...)` (NumPy); `None` when some
    /// output stalled.
    pub fn to_numpy(&self) -> Option<Result<String, FormulaError>> {
        self.reference("numpy", &crate::render::numpy::kernel_function)
    }

    /// The kernel's reference function `<kernel>_<suffix>` as `render` prints it.
    pub fn reference(
        &self,
        suffix: &str,
        render: &Reference<'_>,
    ) -> Option<Result<String, FormulaError>> {
        let (outs, doc) = self.formulas_in_param_order()?;
        let sig = crate::render::torch::Signature {
            inputs: &self.input_order,
            doc: &doc,
        };
        let name = format!("{}_{suffix}", self.kernel_name);
        Some(render(&outs, &self.env, &name, &sig))
    }

    /// Schema `lift.lift/1`: `{"schema", "kernel", "sizes", "outputs": [{"tensor",
    /// "shape", "formula"|null (schema `lift.formula/1`), "text"|null, "stalled"|null, "undefined"|null,
    /// "sources": [{"file", "line"}]}], "verified", "timings_ms": {"execute",
    /// "synthesize", "prove"}}`
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let outputs: Vec<_> = self
            .outputs
            .iter()
            .map(|o| {
                let sources: Vec<_> = o
                    .sources
                    .iter()
                    .map(|l| json!({"file": l.file.as_deref(), "line": l.line}))
                    .collect();
                json!({
                    "tensor": o.name,
                    "shape": o.shape,
                    "formula": o.formula.as_ref().and_then(|f| crate::render::json::expr(f, &self.env).ok()),
                    "text": o.formula.as_ref().map(|f| crate::render::text::expr_in(f, &self.env)),
                    "stalled": o.stalled,
                    "undefined": o.undefined,
                    "sources": sources,
                })
            })
            .collect();
        let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
        let (scope, constraints) = crate::verify::Outcome::scope_json(self.all_sizes.as_ref());
        json!({
            "schema": "lift.lift/1",
            "kernel": self.kernel_name,
            "sizes": self.spec.sizes,
            "outputs": outputs,
            "verified": self.exit_code() == 0,
            "scope": scope,
            "constraints": constraints,
            "all_sizes": self.all_sizes.as_ref().map(|o| o.to_json()),
            "assumptions": self.assumptions,
            "precision": self.precision.as_deref().unwrap_or("real"),
            "timings_ms": {
                "execute": ms(self.timings.execute),
                "synthesize": ms(self.timings.synthesize),
                "prove": ms(self.timings.prove),
            },
        })
    }
}

/// A renderer of a kernel's reference function (outputs, shapes, name, signature).
pub type Reference<'a> = dyn Fn(
        &[Output],
        &crate::formula::ShapeEnv,
        &str,
        &crate::render::torch::Signature,
    ) -> Result<String, FormulaError>
    + 'a;

/// How many elements of a stalled output's point-wise spec the text report shows,
/// and how many characters of each (`lift spec` prints them whole).
const SPEC_LINES: usize = 8;
const SPEC_CHARS: usize = 240;

fn shorten(s: String) -> String {
    if s.chars().count() <= SPEC_CHARS {
        return s;
    }
    let head: String = s.chars().take(SPEC_CHARS).collect();
    format!("{head} … ({} characters)", s.chars().count())
}

/// `50-51, 66, 70-75`: line numbers (sorted here, repeats dropped) as ranges.
fn compact_ranges(lines: &[u32]) -> String {
    let mut sorted = lines.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut k = 0;
    while k < sorted.len() {
        let first = sorted[k];
        while k + 1 < sorted.len() && sorted[k + 1] == sorted[k] + 1 {
            k += 1;
        }
        let last = sorted[k];
        parts.push(if first == last {
            first.to_string()
        } else {
            format!("{first}-{last}")
        });
        k += 1;
    }
    parts.join(", ")
}

/// Line `line` of source file `file`, read as named (relative to the working
/// directory, as Triton recorded it) or, failing that, beside the kernel file.
fn source_line(file: &str, line: u32, kernel: &Path) -> Option<String> {
    let named = Path::new(file);
    let beside = kernel.parent()?.join(named.file_name()?);
    let text = std::fs::read_to_string(named)
        .or_else(|_| std::fs::read_to_string(beside))
        .ok()?;
    text.lines()
        .nth(line.checked_sub(1)? as usize)
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::compact_ranges;

    #[test]
    fn line_numbers_print_as_compact_ranges() {
        assert_eq!(
            compact_ranges(&[50, 51, 54, 55, 66, 70, 71, 73, 74, 75, 83]),
            "50-51, 54-55, 66, 70-71, 73-75, 83"
        );
        assert_eq!(compact_ranges(&[9, 3, 4, 3, 5]), "3-5, 9");
        assert_eq!(compact_ranges(&[7]), "7");
        assert_eq!(compact_ranges(&[]), "");
    }
}
