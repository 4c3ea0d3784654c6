//! `tt.dot`: `c + a @ b`, batched over leading axes.
//!
//! Invariant: the accumulation is one exact sum per output lane (the domain sums);
//! only `--precision ieee` with tf32 inputs rounds, and only the operands.

use super::interp::{malformed, Interp, R};
use super::masked;
use crate::exec::domain::{Binary, Domain};
use crate::exec::value::{Elem, Value};
use crate::term::Func;

impl<'a, D: Domain> Interp<'a, D> {
    /// `c + a @ b`; with `tf32`, every operand rounded to tf32 before its products (the
    /// accumulation stays exact).
    pub(super) fn dot(
        &mut self,
        a: &Value<D::V>,
        b: &Value<D::V>,
        c: &Value<D::V>,
        tf32: bool,
    ) -> R<Value<D::V>> {
        let (ra, rb) = (a.shape.len(), b.shape.len());
        if ra < 2 || ra != rb || c.shape.len() != ra {
            return malformed(format!("dot of shapes {:?} and {:?}", a.shape, b.shape));
        }
        let batch: usize = a.shape[..ra - 2].iter().product();
        let (m, k) = (a.shape[ra - 2], a.shape[ra - 1]);
        let (k2, n) = (b.shape[rb - 2], b.shape[rb - 1]);
        if k != k2 || c.shape[ra - 2] != m || c.shape[ra - 1] != n {
            return malformed(format!(
                "dot of shapes {:?} × {:?} + {:?}",
                a.shape, b.shape, c.shape
            ));
        }
        let mut out = Vec::with_capacity(c.elems.len());
        let mut terms = Vec::with_capacity(k + 1);
        for bt in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    terms.clear();
                    let acc = c.elems[bt * m * n + i * n + j];
                    for kk in 0..k {
                        let x = a.elems[bt * m * k + i * k + kk];
                        let y = b.elems[bt * k * n + kk * n + j];
                        // Undefined operands stay undefined (rounding leaves them).
                        let (x, y) = if tf32 {
                            (
                                self.round_elem(x, Func::RoundTf32),
                                self.round_elem(y, Func::RoundTf32),
                            )
                        } else {
                            (x, y)
                        };
                        let p = self.float_binary(Binary::Mul, x, y)?;
                        terms.push(p);
                    }
                    terms.push(acc);
                    // An undefined operand makes the whole dot product undefined.
                    if let Some(u) = masked::first_undef(&terms) {
                        out.push(Elem::Undef(u));
                        continue;
                    }
                    let mut vals = Vec::with_capacity(terms.len());
                    for t in &terms {
                        match t {
                            Elem::Float(v) => vals.push(*v),
                            other => return malformed(format!("dot operand is {}", other.kind())),
                        }
                    }
                    out.push(Elem::Float(self.domain.sum(&vals)));
                }
            }
        }
        Ok(Value {
            shape: c.shape.clone(),
            elems: out,
        })
    }

    pub(super) fn round_elem(&mut self, e: Elem<D::V>, f: Func) -> Elem<D::V> {
        match e {
            Elem::Float(v) => Elem::Float(self.domain.func(f, v)),
            other => other,
        }
    }
}
