//! Lane-wise plumbing over values: a scalar broadcast and the shape check of elementwise
//! maps (the maps are `Control::map1` ... in `control.rs`, the shape moves `exec::shape`).
//!
//! Invariant: these move lanes and never compute a value.

use super::interp::{malformed, R};
use crate::exec::value::Value;

/// A scalar operand used with a tensor (masks and values of `tt.load`/`tt.store`).
pub(super) fn broadcast_scalar<V: Copy>(v: &Value<V>, shape: &[usize]) -> Value<V> {
    if v.shape.is_empty() && !shape.is_empty() {
        Value::splat(v.elems[0], shape)
    } else {
        v.clone()
    }
}

pub(super) fn same_shape<V>(a: &Value<V>, b: &Value<V>) -> R<()> {
    if a.shape != b.shape {
        return malformed(format!(
            "operand shapes {:?} and {:?} differ",
            a.shape, b.shape
        ));
    }
    Ok(())
}
