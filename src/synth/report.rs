//! How a [`Lift`] is printed: text (formula lines and a verdict line) and JSON.

use super::{Lift, Lifted};
use crate::term::Terms;

impl Lift {
    /// 0 when every output lifted, 3 otherwise.
    pub fn exit_code(&self) -> i32 {
        if self.outputs.iter().all(|o| o.formula.is_some()) {
            0
        } else {
            3
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

    /// `y[M,N] = ...` per output, then the verdict line (or the stall report with the
    /// point-wise spec of that output).
    pub fn to_text(&self, terms: &Terms) -> String {
        let mut s = String::new();
        for (o, t) in self.outputs.iter().zip(&self.spec.outputs) {
            match &o.formula {
                Some(f) => {
                    s += &format!("{} = {}\n", self.heading(o), crate::render::text::expr(f));
                }
                None => {
                    s += &format!(
                        "{}: STALLED: {}\n",
                        self.heading(o),
                        o.stalled.as_deref().unwrap_or("")
                    );
                    s += "  point-wise spec:\n";
                    for (flat, e) in t.elems.iter().enumerate() {
                        let idx: Vec<String> =
                            t.index(flat).iter().map(|i| i.to_string()).collect();
                        let v = match e {
                            Some(id) => super::show(terms, *id),
                            None => "<never written>".into(),
                        };
                        s += &format!("  {}[{}] = {}\n", t.name, idx.join(","), v);
                    }
                }
            }
        }
        if self.exit_code() == 0 {
            s += &format!(
                "VERIFIED on {} (decide: every element)\n",
                self.sizes_text()
            );
        } else {
            s += &format!(
                "UNKNOWN on {}: not every output lifted\n",
                self.sizes_text()
            );
        }
        s
    }

    /// `{"schema": "lift.lift/1", "sizes", "outputs": [{"tensor", "shape", "formula"|null,
    /// "text"|null, "stalled"|null}], "verified"}`
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::json;
        let outputs: Vec<_> = self
            .outputs
            .iter()
            .map(|o| {
                json!({
                    "tensor": o.name,
                    "shape": o.shape,
                    "formula": o.formula.as_ref().and_then(|f| crate::render::json::expr(f, &self.env).ok()),
                    "text": o.formula.as_ref().map(crate::render::text::expr),
                    "stalled": o.stalled,
                })
            })
            .collect();
        json!({
            "schema": "lift.lift/1",
            "sizes": self.spec.sizes,
            "outputs": outputs,
            "verified": self.exit_code() == 0,
        })
    }
}
