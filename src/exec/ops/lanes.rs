//! Lane-wise plumbing over values: elementwise maps (the shape moves are `exec::shape`).
//!
//! Invariant: these move lanes and never compute a value.

use super::interp::{malformed, R};
use crate::exec::value::{Elem, Value};

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

pub(super) fn map1<V: Copy>(a: &Value<V>, mut f: impl FnMut(Elem<V>) -> R<Elem<V>>) -> R<Value<V>> {
    let elems = a.elems.iter().map(|&x| f(x)).collect::<R<Vec<_>>>()?;
    Ok(Value {
        shape: a.shape.clone(),
        elems,
    })
}

pub(super) fn map2<V: Copy>(
    a: &Value<V>,
    b: &Value<V>,
    mut f: impl FnMut(Elem<V>, Elem<V>) -> R<Elem<V>>,
) -> R<Value<V>> {
    same_shape(a, b)?;
    let elems = a
        .elems
        .iter()
        .zip(&b.elems)
        .map(|(&x, &y)| f(x, y))
        .collect::<R<Vec<_>>>()?;
    Ok(Value {
        shape: a.shape.clone(),
        elems,
    })
}

pub(super) fn map3<V: Copy>(
    a: &Value<V>,
    b: &Value<V>,
    c: &Value<V>,
    mut f: impl FnMut(Elem<V>, Elem<V>, Elem<V>) -> R<Elem<V>>,
) -> R<Value<V>> {
    same_shape(a, b)?;
    same_shape(a, c)?;
    let elems = (0..a.elems.len())
        .map(|i| f(a.elems[i], b.elems[i], c.elems[i]))
        .collect::<R<Vec<_>>>()?;
    Ok(Value {
        shape: a.shape.clone(),
        elems,
    })
}
