//! Launch parameters: the order of a launch file's `[args]` keys and the binding of
//! each `.param` of the entry to a tensor base address, an integer or a real of the
//! domain.
//!
//! Invariant: a launch that does not fit the entry (an unknown key, an unbound
//! parameter before a bound one, an integer outside the parameter's type) is a
//! `Launch` error naming the parameter; nothing is wrapped or guessed.

use super::*;
use crate::launch::field_of;
use std::collections::BTreeMap;

/// The keys of the `[args]` table of a launch file, in file order (Triton's launches
/// name PTX parameters by position: the i-th key is `<kernel>_param_<i>`).
pub fn launch_arg_order(launch_text: &str) -> Vec<String> {
    let mut in_args = false;
    let mut out = Vec::new();
    for line in launch_text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_args = line.trim_start_matches('[').trim_end_matches(']').trim() == "args";
            continue;
        }
        if !in_args || line.starts_with('#') {
            continue;
        }
        if let Some((key, _)) = line.split_once('=') {
            let key = key.trim().trim_matches('"').trim_matches('\'');
            if !key.is_empty() {
                out.push(key.to_string());
            }
        }
    }
    out
}

/// The fields a launch binds in a struct parameter passed by value: byte offset →
/// (launch key, value). Converted to a value when a `ld.param` reads the field, in the
/// type that load names.
pub(super) type Fields = BTreeMap<u64, (String, ArgValue)>;

/// Binds the entry's parameters: a value per scalar parameter, and for a struct
/// parameter (`.param .b8 p[24]`) the fields the launch binds in it (`p+<offset>` keys,
/// from `p = { fields = { ... } }`). Launch keys naming a module variable (`vars`: a
/// `__constant__`/`__device__` array whose contents the host writes) are not
/// parameters: they are bound by [`Sim::sym_addr`] and skipped here, also in the
/// positional order.
pub(super) fn bind_params<D: Domain>(
    entry: &Entry,
    inst: &Instance,
    order: &[String],
    vars: &[&str],
    domain: &mut D,
) -> Result<(Vec<Val<D::V>>, Vec<Fields>), Fail> {
    let order: Vec<String> = order
        .iter()
        .filter(|k| !vars.contains(&k.as_str()))
        .cloned()
        .collect();
    let order = &order[..];
    // `k` binds parameter `base` itself, or a field of it.
    let field_of_base = |k: &str, base: &str| field_of(k).is_some_and(|(p, _)| p == base);
    let binds = |k: &str, base: &str| k == base || field_of_base(k, base);
    let names = |i: usize, p: &Param| [p.name.clone(), format!("param_{i}")];
    let named = inst.args.keys().any(|k| {
        entry
            .params
            .iter()
            .enumerate()
            .any(|(i, p)| names(i, p).iter().any(|n| binds(k, n)))
    });
    // The launch key each parameter is bound under (before any `+offset`).
    let mut base: Vec<Option<String>> = Vec::new();
    for (i, p) in entry.params.iter().enumerate() {
        let hit = if named || order.is_empty() {
            names(i, p)
                .into_iter()
                .find(|n| inst.args.keys().any(|k| binds(k, n)))
        } else {
            order
                .get(i)
                .filter(|k| inst.args.keys().any(|a| binds(a, k)))
                .cloned()
        };
        base.push(hit);
    }
    for k in inst.args.keys() {
        if vars.contains(&k.as_str()) {
            match inst.args.get(k) {
                Some(ArgValue::Tensor(_)) => continue,
                _ => {
                    return fail(
                        ErrorKind::Launch,
                        format!(
                        "the launch binds module variable `{k}` to something other than a tensor \
                             (give its contents as `{k} = {{ tensor = \"...\", shape = [...] }}`)"
                    ),
                    )
                }
            }
        }
        if !base.iter().flatten().any(|b| binds(k, b)) {
            let names: Vec<&str> = entry.params.iter().map(|p| p.name.as_str()).collect();
            return fail(
                ErrorKind::Launch,
                format!(
                    "the launch binds `{k}`, which matches no parameter of .entry {} (parameters: {}; name them `<entry>_param_<i>`, `param_<i>`, or list all in order)",
                    entry.name,
                    names.join(", ")
                ),
            );
        }
    }
    let last_bound = base.iter().rposition(|b| b.is_some());
    let mut out = Vec::new();
    let mut fields = Vec::new();
    for (i, p) in entry.params.iter().enumerate() {
        let mut mine = Fields::new();
        let v = match &base[i] {
            // An unlisted trailing pointer (Triton's global and profile scratch): a
            // scratch buffer of its own (see `tensormap`).
            None if p.is_ptr && last_bound.is_none_or(|l| i > l) => {
                let k = (i - last_bound.map_or(0, |l| l + 1)) as u64;
                Val::Bits(super::tensormap::SCRATCH_BASE + (k << 32))
            }
            None if last_bound.is_none_or(|l| i > l) => Val::Bits(0),
            None => {
                return fail(
                    ErrorKind::Launch,
                    format!(
                        "kernel parameter `{}` (.{}) is not bound by the launch; add it (or `param_{i}`) under [args]",
                        p.name, p.ty
                    ),
                )
            }
            Some(b) => match (inst.args.get_key_value(b), p.array) {
                (Some((k, a)), None) => {
                    if let Some(f) = inst.args.keys().find(|f| field_of_base(f, b)) {
                        return fail(
                            ErrorKind::Launch,
                            format!(
                                "the launch binds field `{f}`, but kernel parameter `{}` (.{}) is not a struct passed by value",
                                p.name, p.ty
                            ),
                        );
                    }
                    arg_value(k, a, &p.name, &p.ty, domain)?
                }
                (None, Some(_)) => {
                    for (k, a) in &inst.args {
                        if let Some((_, off)) = field_of(k).filter(|(f, _)| f == b) {
                            mine.insert(off, (k.clone(), a.clone()));
                        }
                    }
                    Val::Bits(0)
                }
                // A tensor map the host passes by value: its bytes are opaque, the
                // tensor copies that read it find it by its address (`tensormap`).
                (Some((k, ArgValue::Tensor(_))), Some(_)) if inst.tensormaps.contains_key(k) => {
                    Val::Bits(0)
                }
                (Some((k, _)), Some(n)) => {
                    return fail(
                        ErrorKind::Launch,
                        format!(
                            "kernel parameter `{}` is a struct passed by value ({n} × .{}): bind its fields by byte offset, `{k} = {{ fields = {{ 0 = ..., 8 = ... }} }}`",
                            p.name, p.ty
                        ),
                    )
                }
                (None, None) => {
                    return fail(
                        ErrorKind::Launch,
                        format!(
                            "kernel parameter `{}` (.{}) is not a struct, but the launch binds fields of it (`{b} = {{ fields = ... }}`)",
                            p.name, p.ty
                        ),
                    )
                }
            },
        };
        out.push(v);
        fields.push(mine);
    }
    Ok((out, fields))
}

/// The value launch argument `k` gives a parameter (or struct field) `pname` read as
/// `.ty`: a tensor's base address, an integer in the type's range, a real rounded to
/// the type as the host passes it, or a symbolic scalar.
pub(super) fn arg_value<D: Domain>(
    k: &str,
    a: &ArgValue,
    pname: &str,
    ty: &str,
    domain: &mut D,
) -> Result<Val<D::V>, Fail> {
    let w = width(ty);
    Ok(match a {
        ArgValue::Tensor(t) => Val::Bits(((*t as u64) + 1) << TENSOR_SHIFT),
        ArgValue::Int(x) => {
            // The host passes the value in the parameter's type: one that does not
            // fit is a wrong launch, not a value to wrap silently.
            let (lo, hi) = match (ty.as_bytes().first(), w) {
                (_, 64..) => (i128::from(i64::MIN), i128::from(u64::MAX)),
                (Some(b's'), _) => (-(1i128 << (w - 1)), (1i128 << (w - 1)) - 1),
                // NVRTC declares a C `int` parameter `.u32`: the host's negative
                // int is its two's complement there.
                (Some(b'u'), _) => (-(1i128 << (w - 1)), (1i128 << w) - 1),
                _ => (-(1i128 << (w - 1)), (1i128 << w) - 1),
            };
            if !(lo..=hi).contains(&i128::from(*x)) {
                return fail(
                    ErrorKind::Launch,
                    format!(
                        "argument `{k}` is {x}, outside the range of parameter `{pname}` (.{ty}: {lo}..={hi})"
                    ),
                );
            }
            Val::Bits(mask_w(*x as u64, w))
        }
        ArgValue::Value(x) => {
            // Rounded to the parameter's type, as the host passes it.
            let kind = match ty {
                "f32" => Some(crate::triton_ir::ast::FloatKind::F32),
                "f16" => Some(crate::triton_ir::ast::FloatKind::F16),
                _ => None,
            };
            let x = kind.map_or(*x, |k| crate::exec::typed_value(k, *x));
            Val::Float(domain.constant(x))
        }
        ArgValue::Scalar(s) => match domain.param(s) {
            Some(v) => Val::Float(v),
            None => {
                return fail(
                    ErrorKind::Launch,
                    format!(
                    "no value for scalar `{s}` (argument `{k}`); give it with --scalar {s}=VALUE"
                ),
                )
            }
        },
    })
}
