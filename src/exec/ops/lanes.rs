//! Lane-wise plumbing over values: elementwise maps, broadcasts, transposes.
//!
//! Invariant: these move lanes and never compute a value.

use super::interp::{malformed, R};
use crate::exec::value::{strides, unravel, Elem, Value};

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

pub(super) fn broadcast<V: Copy>(a: &Value<V>, shape: &[usize]) -> R<Value<V>> {
    if a.shape.len() != shape.len() || a.shape.iter().zip(shape).any(|(&s, &d)| s != d && s != 1) {
        return malformed(format!("cannot broadcast {:?} to {:?}", a.shape, shape));
    }
    let src_strides = strides(&a.shape);
    let n: usize = shape.iter().product();
    let elems = (0..n)
        .map(|flat| {
            let idx = unravel(flat, shape);
            let src: usize = idx
                .iter()
                .zip(&a.shape)
                .zip(&src_strides)
                .map(|((&i, &s), &st)| if s == 1 { 0 } else { i * st })
                .sum();
            a.elems[src]
        })
        .collect();
    Ok(Value {
        shape: shape.to_vec(),
        elems,
    })
}

pub(super) fn transpose<V: Copy>(a: &Value<V>, order: &[usize]) -> R<Value<V>> {
    let rank = a.shape.len();
    let mut seen = vec![false; rank];
    if order.len() != rank
        || order
            .iter()
            .any(|&o| o >= rank || std::mem::replace(&mut seen[o], true))
    {
        return malformed(format!("bad permutation {order:?} for rank {rank}"));
    }
    let shape: Vec<usize> = order.iter().map(|&o| a.shape[o]).collect();
    let src_strides = strides(&a.shape);
    let elems = (0..a.elems.len())
        .map(|flat| {
            let idx = unravel(flat, &shape);
            let src: usize = idx
                .iter()
                .zip(order)
                .map(|(&i, &o)| i * src_strides[o])
                .sum();
            a.elems[src]
        })
        .collect();
    Ok(Value { shape, elems })
}
