//! Specs: for every output tensor of a kernel, its shape and one term per element.
//!
//! Architecture invariant: a Spec is the symbolic execution's result made
//! self-describing (names, shapes, source lines); it is what every later stage
//! (decide, synth, render) consumes. Printing is deterministic.

use crate::exec::{Execution, StoreSite};
use crate::term::{TermId, Terms};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The terms of every output tensor on one launch instance.
#[derive(Clone, Debug)]
pub struct Spec {
    pub sizes: BTreeMap<String, i64>,
    pub grid: [i64; 3],
    pub outputs: Vec<SpecTensor>,
    pub warnings: Vec<String>,
    /// Notes on elements left with bit-level code: (tensor, flat index, the libm
    /// function it most likely is; see `ptx::libm::recognise`).
    pub notes: Vec<(String, usize, String)>,
    /// What reading the terms took beyond the reals of docs/semantics.md (a finite running-max seed read
    /// as -inf, see `exec::extrema`): a verdict states each.
    pub assumptions: Vec<String>,
}

#[derive(Clone, Debug)]
pub struct SpecTensor {
    pub name: String,
    pub shape: Vec<usize>,
    /// Row-major; `None` for an element no program wrote.
    pub elems: Vec<Option<TermId>>,
    /// The store that wrote each element (its .ttir line and Python source).
    pub sources: Vec<Option<StoreSite>>,
}

impl SpecTensor {
    /// Row-major multi-index of a flat position.
    pub fn index(&self, flat: usize) -> Vec<usize> {
        crate::exec::value::unravel(flat, &self.shape)
    }

    /// Number of elements never written.
    pub fn unwritten(&self) -> usize {
        self.elems.iter().filter(|e| e.is_none()).count()
    }
}

impl Spec {
    /// Package a symbolic execution.
    pub fn from_execution(
        exec: Execution<TermId>,
        sizes: BTreeMap<String, i64>,
        grid: [i64; 3],
    ) -> Spec {
        let sites = exec.store_sites;
        let outputs = exec
            .outputs
            .into_iter()
            .map(|o| SpecTensor {
                sources: o
                    .writers
                    .iter()
                    .map(|w| w.map(|i| sites[i].clone()))
                    .collect(),
                name: o.name,
                shape: o.shape,
                elems: o.elems,
            })
            .collect();
        Spec {
            sizes,
            grid,
            outputs,
            warnings: exec.warnings,
            notes: Vec::new(),
            assumptions: Vec::new(),
        }
    }

    /// Human-readable listing: a header per tensor, one line per element.
    pub fn to_text(&self, terms: &Terms) -> String {
        let mut s = String::new();
        let sizes: Vec<String> = self.sizes.iter().map(|(k, v)| format!("{k}={v}")).collect();
        let [gx, gy, gz] = self.grid;
        let _ = writeln!(s, "# sizes {}; grid ({gx}, {gy}, {gz})", sizes.join(", "));
        for w in &self.warnings {
            let _ = writeln!(s, "# warning: {w}");
        }
        for t in &self.outputs {
            let dims: Vec<String> = t.shape.iter().map(|d| d.to_string()).collect();
            let mut lines: Vec<String> = t
                .sources
                .iter()
                .flatten()
                .map(|site| site.loc.to_string())
                .collect();
            lines.sort();
            lines.dedup();
            let _ = writeln!(
                s,
                "{}[{}]  (stored at {})",
                t.name,
                dims.join(", "),
                lines.join(", ")
            );
            for (flat, e) in t.elems.iter().enumerate() {
                let idx: Vec<String> = t.index(flat).iter().map(|i| i.to_string()).collect();
                match e {
                    Some(id) => {
                        let _ = writeln!(
                            s,
                            "  {}[{}] = {}",
                            t.name,
                            idx.join(","),
                            terms.display(*id)
                        );
                    }
                    None => {
                        let _ = writeln!(s, "  {}[{}] = <never written>", t.name, idx.join(","));
                    }
                }
            }
        }
        s
    }

    /// The stable JSON schema (version 1):
    /// `{"schema": "lift.spec/1", "sizes": {..}, "grid": [x,y,z], "warnings": [..],
    ///   "outputs": [{"tensor", "shape", "elements": [{"index", "term"|null, "source"|null}]}]}`
    pub fn to_json(&self, terms: &Terms) -> serde_json::Value {
        use serde_json::json;
        let outputs: Vec<_> = self
            .outputs
            .iter()
            .map(|t| {
                let elements: Vec<_> = t
                    .elems
                    .iter()
                    .enumerate()
                    .map(|(flat, e)| {
                        json!({
                            "index": t.index(flat),
                            "term": e.map(|id| terms.display(id).to_string()),
                            "source": t.sources[flat].as_ref().map(|s| json!({
                                "ttir_line": s.line,
                                "python": s.loc.file.as_ref().map(|f| format!("{f}:{}", s.loc.line)),
                            })),
                        })
                    })
                    .collect();
                json!({ "tensor": t.name, "shape": t.shape, "elements": elements })
            })
            .collect();
        json!({
            "schema": "lift.spec/1",
            "sizes": self.sizes,
            "grid": self.grid,
            "warnings": self.warnings,
            "outputs": outputs,
        })
    }
}
