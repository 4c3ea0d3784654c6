//! `tt.scan` (`tt.reduce` is `exec::walk::reduce`): a combine region folded along an
//! axis, every prefix kept.
//!
//! Invariant: a reduction or prefix over lanes of which one is undefined is
//! undefined; a combine that is one float op is summed at once (`table::combine_all`).

use super::interp::{Env, Fail, Flow, Interp};
use super::masked;
use crate::exec::domain::Domain;
use crate::exec::error::{ErrorKind, ExecError};
use crate::exec::value::{strides, unravel, Elem, Value};
use crate::triton_ir::ast::{Attr, Op, Scalar};
use std::rc::Rc;

impl<'a, D: Domain> Interp<'a, D> {
    /// `tt.scan`: inclusive prefix combine along `axis` (reversed if `reverse`).
    pub(super) fn scan(
        &mut self,
        op: &Op,
        env: &mut Env<D::V>,
    ) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        let inputs = self.operands(op, env)?;
        let axis = op.attr("axis").and_then(Attr::as_int).unwrap_or(0).max(0) as usize;
        let reverse = matches!(
            op.attr("reverse"),
            Some(Attr::Scalar(Scalar::Bool(true))) | Some(Attr::Unit)
        );
        let (shape, groups) = self.lanes_along(op, &inputs, axis)?;
        let mut outs: Vec<Vec<Elem<D::V>>> = inputs.iter().map(|v| v.elems.clone()).collect();
        let Some(region) = op.regions.first() else {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: "missing combine region".into(),
                },
            ));
        };
        for mut lanes in groups {
            if reverse {
                lanes.reverse();
            }
            // From the first undefined lane on, every prefix is undefined.
            let first = lanes
                .iter()
                .position(|&l| masked::first_undef(inputs.iter().map(|v| &v.elems[l])).is_some());
            if let Some(p) = first {
                let u = masked::first_undef(inputs.iter().map(|v| &v.elems[lanes[p]]));
                for o in outs.iter_mut() {
                    for &l in &lanes[p..] {
                        o[l] = Elem::Undef(u.unwrap_or(0));
                    }
                }
                lanes.truncate(p);
                if lanes.is_empty() {
                    continue;
                }
            }
            let mut acc: Vec<Rc<Value<D::V>>> = inputs
                .iter()
                .map(|v| Rc::new(Value::scalar(v.elems[lanes[0]])))
                .collect();
            for &l in &lanes[1..] {
                let mut block_args = acc.clone();
                block_args.extend(inputs.iter().map(|v| Rc::new(Value::scalar(v.elems[l]))));
                acc = match crate::exec::walk::region(
                    self, region, block_args, env, op.line, &op.loc,
                )? {
                    Flow::Yield(v) | Flow::Return(v) => v,
                };
                for (o, a) in outs.iter_mut().zip(&acc) {
                    o[l] = a.single().unwrap_or(Elem::Int(0));
                }
            }
        }
        Ok(outs
            .into_iter()
            .map(|elems| {
                Rc::new(Value {
                    shape: shape.clone(),
                    elems,
                })
            })
            .collect())
    }

    /// The flat positions of each line of `inputs[0]` along `axis`.
    #[allow(clippy::type_complexity)]
    pub(super) fn lanes_along(
        &self,
        op: &Op,
        inputs: &[Rc<Value<D::V>>],
        axis: usize,
    ) -> Result<(Vec<usize>, Vec<Vec<usize>>), ExecError> {
        let Some(first) = inputs.first() else {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: "no operands".into(),
                },
            ));
        };
        let shape = first.shape.clone();
        if axis >= shape.len() || shape[axis] == 0 || inputs.iter().any(|v| v.shape != shape) {
            return Err(self.at(
                op,
                Fail {
                    kind: ErrorKind::Malformed,
                    message: format!("axis {axis} of shape {shape:?}"),
                },
            ));
        }
        let st = strides(&shape);
        let mut groups = Vec::new();
        for flat in 0..first.elems.len() {
            if unravel(flat, &shape)[axis] != 0 {
                continue;
            }
            groups.push((0..shape[axis]).map(|k| flat + k * st[axis]).collect());
        }
        Ok((shape, groups))
    }
}
