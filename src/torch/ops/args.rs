//! Binding a call's positional and keyword arguments to an op's PyTorch parameter names,
//! and reading them back as tensors, numbers, ints, shapes.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::{params, R};
use crate::term::TermId;

/// Arguments bound to an op's parameter names.
pub(super) struct Args {
    pub(super) op: &'static str,
    pub(super) names: &'static [&'static str],
    pub(super) vals: Vec<Option<Value>>,
}

pub(super) fn bind(op: &'static str, pos: Vec<Value>, kw: Vec<(String, Value)>) -> R<Args> {
    let names = params(op);
    let mut vals: Vec<Option<Value>> = vec![None; names.len()];
    let star = names.iter().position(|n| n.starts_with('*'));
    let fixed = star.unwrap_or(names.len());
    let mut pos = pos.into_iter();
    for slot in vals.iter_mut().take(fixed) {
        match pos.next() {
            Some(v) => *slot = Some(v),
            None => break,
        }
    }
    let rest: Vec<Value> = pos.collect();
    match star {
        Some(s) if !rest.is_empty() => {
            vals[s] = Some(match <[Value; 1]>::try_from(rest) {
                Ok([v @ Value::Tuple(_)]) => v,
                Ok([v]) => Value::Tuple(vec![v]),
                Err(rest) => Value::Tuple(rest),
            });
        }
        Some(_) => {}
        None if !rest.is_empty() => {
            return Err(format!(
                "{op}: takes at most {} positional arguments ({} given)",
                names.len(),
                names.len() + rest.len()
            ));
        }
        None => {}
    }
    for (k, v) in kw {
        let key = match k.as_str() {
            "axis" => "dim",
            "keepdims" => "keepdim",
            // The method's name for it (`x.split(split_size=2)`).
            "split_size" if op == "split" => "split_size_or_sections",
            k => k,
        };
        match names.iter().position(|n| n.trim_start_matches('*') == key) {
            Some(i) => {
                if vals[i].is_some() {
                    return Err(format!("{op}: got multiple values for argument `{key}`"));
                }
                vals[i] = Some(v);
            }
            // Accepted everywhere and meaningless for real tensors.
            None if matches!(key, "dtype" | "inplace" | "device") => {}
            None => {
                let list: Vec<&str> = names.iter().map(|n| n.trim_start_matches('*')).collect();
                return Err(format!(
                    "{op}: unexpected keyword argument `{k}` (its arguments are {})",
                    list.join(", ")
                ));
            }
        }
    }
    Ok(Args { op, names, vals })
}

impl Args {
    pub(super) fn idx(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n.trim_start_matches('*') == name)
            .unwrap_or_else(|| unreachable!("op {} has no parameter {name}", self.op))
    }
    /// The argument, `None` if absent or `None`.
    pub(super) fn get(&self, name: &str) -> Option<&Value> {
        match &self.vals[self.idx(name)] {
            None | Some(Value::None) => None,
            Some(v) => Some(v),
        }
    }
    pub(super) fn missing(&self, name: &str) -> String {
        format!("{}: missing required argument `{name}`", self.op)
    }
    pub(super) fn bad(&self, name: &str, want: &str, got: &Value) -> String {
        format!(
            "{}: argument `{name}` must be {want}, got {}",
            self.op,
            got.describe()
        )
    }
    pub(super) fn req(&self, name: &str) -> R<&Value> {
        self.get(name).ok_or_else(|| self.missing(name))
    }
    pub(super) fn tensor(&self, cx: &mut Cx, name: &str) -> R<Tensor> {
        let v = self.req(name)?;
        cx.tensor(v).map_err(|_| self.bad(name, "a tensor", v))
    }
    pub(super) fn opt_tensor(&self, cx: &mut Cx, name: &str) -> R<Option<Tensor>> {
        match self.get(name) {
            None => Ok(None),
            Some(v) => cx
                .tensor(v)
                .map(Some)
                .map_err(|_| self.bad(name, "a tensor", v)),
        }
    }
    /// A real number given as an int, a float or a 0-d tensor (a symbolic scalar).
    pub(super) fn number(&self, cx: &mut Cx, name: &str, default: Option<&str>) -> R<TermId> {
        match self.get(name) {
            None => match default {
                Some(d) => cx.decimal(d),
                None => Err(self.missing(name)),
            },
            Some(v) => match cx.tensor(v) {
                Ok(t) if t.ndim() == 0 => Ok(t.elems[0]),
                _ => Err(self.bad(name, "a number", v)),
            },
        }
    }
    pub(super) fn int(&self, name: &str) -> R<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(*i)),
            Some(v) => Err(self.bad(name, "an int", v)),
        }
    }
    pub(super) fn req_int(&self, name: &str) -> R<i64> {
        self.int(name)?.ok_or_else(|| self.missing(name))
    }
    pub(super) fn bool(&self, name: &str, default: bool) -> R<bool> {
        match self.get(name) {
            None => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(Value::Int(i)) => Ok(*i != 0),
            Some(v) => Err(self.bad(name, "a bool", v)),
        }
    }
    pub(super) fn str(&self, name: &str, default: &str) -> R<String> {
        match self.get(name) {
            None => Ok(default.to_string()),
            Some(Value::Str(s)) => Ok(s.clone()),
            Some(v) => Err(self.bad(name, "a string", v)),
        }
    }
    /// An int or a tuple/list of ints.
    pub(super) fn ints(&self, name: &str) -> R<Option<Vec<i64>>> {
        match self.get(name) {
            None => Ok(None),
            Some(Value::Int(i)) => Ok(Some(vec![*i])),
            Some(v @ Value::Tuple(items)) => items
                .iter()
                .map(|x| match x {
                    Value::Int(i) => Ok(*i),
                    _ => Err(self.bad(name, "an int or a tuple of ints", v)),
                })
                .collect::<R<Vec<i64>>>()
                .map(Some),
            Some(v) => Err(self.bad(name, "an int or a tuple of ints", v)),
        }
    }
    /// A shape: an int or a tuple of non-negative ints.
    pub(super) fn shape(&self, name: &str) -> R<Vec<usize>> {
        let v = self.ints(name)?.ok_or_else(|| self.missing(name))?;
        v.iter()
            .map(|&d| {
                usize::try_from(d)
                    .map_err(|_| format!("{}: negative dimension {d} in `{name}`", self.op))
            })
            .collect()
    }
    pub(super) fn tensors(&self, cx: &mut Cx, name: &str) -> R<Vec<Tensor>> {
        match self.req(name)? {
            Value::Tuple(items) => items
                .iter()
                .map(|v| {
                    cx.tensor(v)
                        .map_err(|_| self.bad(name, "a list of tensors", v))
                })
                .collect(),
            v => Err(self.bad(name, "a list of tensors", v)),
        }
    }
}
