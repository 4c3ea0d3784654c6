//! Binding a call's positional and keyword arguments to an op's PyTorch parameter names,
//! and reading them back as tensors, numbers, ints, shapes. The binding is generic over
//! the domain ([`Domain`]): both readings of a spec bind a call here, so defaults,
//! aliases (`axis`, `keepdims`) and the arguments every op accepts are defined once.

use super::super::tensor::{norm_dim, Tensor};
use super::super::value::{Cx, Domain, Instance, Val, Value};
use super::table::params;
use crate::term::TermId;

type R<T> = Result<T, String>;

/// Arguments bound to an op's parameter names.
pub(crate) struct Args<D: Domain = Instance> {
    pub(crate) op: &'static str,
    pub(crate) names: &'static [&'static str],
    pub(crate) vals: Vec<Option<Val<D>>>,
}

/// Binds positional and keyword arguments to `op`'s parameters (`params`): positional
/// ones in order, the rest to a `*` parameter as a tuple, keywords by name.
pub(crate) fn bind<D: Domain>(
    op: &'static str,
    pos: Vec<Val<D>>,
    kw: Vec<(String, Val<D>)>,
) -> R<Args<D>> {
    let names = params(op);
    let mut vals: Vec<Option<Val<D>>> = vec![None; names.len()];
    let star = names.iter().position(|n| n.starts_with('*'));
    let fixed = star.unwrap_or(names.len());
    let mut pos = pos.into_iter();
    for slot in vals.iter_mut().take(fixed) {
        match pos.next() {
            Some(v) => *slot = Some(v),
            None => break,
        }
    }
    let rest: Vec<Val<D>> = pos.collect();
    match star {
        Some(s) if !rest.is_empty() => {
            vals[s] = Some(match <[Val<D>; 1]>::try_from(rest) {
                Ok([v @ Val::Tuple(_)]) => v,
                Ok([v]) => Val::Tuple(vec![v]),
                Err(rest) => Val::Tuple(rest),
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

impl<D: Domain> Args<D> {
    pub(crate) fn idx(&self, name: &str) -> usize {
        self.names
            .iter()
            .position(|n| n.trim_start_matches('*') == name)
            .unwrap_or_else(|| unreachable!("op {} has no parameter {name}", self.op))
    }
    /// Whether the op has parameter `name`.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.names.iter().any(|n| n.trim_start_matches('*') == name)
    }
    /// The argument, `None` if absent or `None`.
    pub(crate) fn get(&self, name: &str) -> Option<&Val<D>> {
        match &self.vals[self.idx(name)] {
            None | Some(Val::None) => None,
            Some(v) => Some(v),
        }
    }
    pub(crate) fn missing(&self, name: &str) -> String {
        format!("{}: missing required argument `{name}`", self.op)
    }
    pub(crate) fn bad(&self, name: &str, want: &str, got: &Val<D>) -> String {
        format!(
            "{}: argument `{name}` must be {want}, got {}",
            self.op,
            got.describe()
        )
    }
    pub(crate) fn req(&self, name: &str) -> R<&Val<D>> {
        self.get(name).ok_or_else(|| self.missing(name))
    }
    pub(crate) fn bool(&self, name: &str, default: bool) -> R<bool> {
        match self.get(name) {
            None => Ok(default),
            Some(Val::Bool(b)) => Ok(*b),
            Some(v @ Val::Int(i)) => D::const_int(i)
                .map(|i| i != 0)
                .ok_or_else(|| self.bad(name, "a bool", v)),
            Some(v) => Err(self.bad(name, "a bool", v)),
        }
    }
    pub(crate) fn str(&self, name: &str, default: &str) -> R<String> {
        match self.get(name) {
            None => Ok(default.to_string()),
            Some(Val::Str(s)) => Ok(s.clone()),
            Some(v) => Err(self.bad(name, "a string", v)),
        }
    }
    pub(crate) fn int(&self, name: &str) -> R<Option<i64>> {
        match self.get(name) {
            None => Ok(None),
            Some(v @ Val::Int(i)) => D::const_int(i)
                .map(Some)
                .ok_or_else(|| self.bad(name, "an int", v)),
            Some(v) => Err(self.bad(name, "an int", v)),
        }
    }
    pub(crate) fn req_int(&self, name: &str) -> R<i64> {
        self.int(name)?.ok_or_else(|| self.missing(name))
    }
    /// An int or a tuple/list of ints.
    pub(crate) fn ints(&self, name: &str) -> R<Option<Vec<i64>>> {
        match self.get(name) {
            None => Ok(None),
            Some(v @ Val::Int(i)) => D::const_int(i)
                .map(|i| Some(vec![i]))
                .ok_or_else(|| self.bad(name, "an int or a tuple of ints", v)),
            Some(v @ Val::Tuple(items)) => items
                .iter()
                .map(|x| match x {
                    Val::Int(i) => D::const_int(i)
                        .ok_or_else(|| self.bad(name, "an int or a tuple of ints", v)),
                    _ => Err(self.bad(name, "an int or a tuple of ints", v)),
                })
                .collect::<R<Vec<i64>>>()
                .map(Some),
            Some(v) => Err(self.bad(name, "an int or a tuple of ints", v)),
        }
    }
    /// A shape: an int or a tuple of non-negative ints.
    pub(crate) fn shape(&self, name: &str) -> R<Vec<usize>> {
        let v = self.ints(name)?.ok_or_else(|| self.missing(name))?;
        v.iter()
            .map(|&d| {
                usize::try_from(d)
                    .map_err(|_| format!("{}: negative dimension {d} in `{name}`", self.op))
            })
            .collect()
    }
    /// The same call with every argument carried into domain `E` by `f`.
    pub(crate) fn try_map<E: Domain>(self, mut f: impl FnMut(Val<D>) -> R<Val<E>>) -> R<Args<E>> {
        let vals = self
            .vals
            .into_iter()
            .map(|v| v.map(&mut f).transpose())
            .collect::<R<_>>()?;
        Ok(Args {
            op: self.op,
            names: self.names,
            vals,
        })
    }
}

impl Args<Instance> {
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

/// The dims to reduce: all for `None`, else the normalised, distinct dims.
/// The dims to reduce of a tensor of `ndim` axes: all for `None`, else the normalised,
/// distinct dims (none for a 0-d tensor). `shape` names the tensor in messages. Both
/// readings normalise dims here.
pub(crate) fn reduce_dims_of(
    op: &str,
    ndim: usize,
    shape: impl Fn() -> String,
    dims: Option<Vec<i64>>,
) -> R<Vec<usize>> {
    let Some(dims) = dims else {
        return Ok((0..ndim).collect());
    };
    let mut out = Vec::new();
    for d in dims {
        let n = one_dim_of(op, ndim, &shape, d)?;
        if ndim == 0 {
            continue;
        }
        if out.contains(&n) {
            return Err(format!("{op}: dim {d} appears more than once"));
        }
        out.push(n);
    }
    Ok(out)
}

/// Dim `d` (negative from the end) of a tensor of `ndim` axes.
pub(crate) fn one_dim_of(op: &str, ndim: usize, shape: impl Fn() -> String, d: i64) -> R<usize> {
    norm_dim(d, ndim).map_err(|m| format!("{op}: {m} for input of shape {}", shape()))
}

pub(crate) fn reduce_dims(op: &str, x: &Tensor, dims: Option<Vec<i64>>) -> R<Vec<usize>> {
    reduce_dims_of(op, x.ndim(), || x.shape_str(), dims)
}

pub(crate) fn one_dim(op: &str, x: &Tensor, d: i64) -> R<usize> {
    one_dim_of(op, x.ndim(), || x.shape_str(), d)
}
