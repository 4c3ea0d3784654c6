//! Launch parameters: the order of a launch file's `[args]` keys and the binding of
//! each `.param` of the entry to a tensor base address, an integer or a real of the
//! domain.
//!
//! Invariant: a launch that does not fit the entry (an unknown key, an unbound
//! parameter before a bound one, an integer outside the parameter's type) is a
//! `Launch` error naming the parameter; nothing is wrapped or guessed.

use super::*;

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

/// Binds the entry's parameters. Launch keys naming a module variable (`vars`: a
/// `__constant__`/`__device__` array whose contents the host writes) are not
/// parameters: they are bound by [`Sim::sym_addr`] and skipped here, also in the
/// positional order.
pub(super) fn bind_params<D: Domain>(
    entry: &Entry,
    inst: &Instance,
    order: &[String],
    vars: &[&str],
    domain: &mut D,
) -> Result<Vec<Val<D::V>>, Fail> {
    let order: Vec<String> = order
        .iter()
        .filter(|k| !vars.contains(&k.as_str()))
        .cloned()
        .collect();
    let order = &order[..];
    let named = inst.args.keys().any(|k| {
        entry
            .params
            .iter()
            .enumerate()
            .any(|(i, p)| k == &p.name || k == &format!("param_{i}"))
    });
    let mut used = vec![false; 0];
    let mut found: Vec<Option<(&String, &ArgValue)>> = Vec::new();
    for (i, p) in entry.params.iter().enumerate() {
        let hit = if named || order.is_empty() {
            inst.args
                .get_key_value(&p.name)
                .or_else(|| inst.args.get_key_value(&format!("param_{i}")))
        } else {
            order.get(i).and_then(|k| inst.args.get_key_value(k))
        };
        found.push(hit);
        used.push(hit.is_some());
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
        if !found.iter().flatten().any(|(name, _)| *name == k) {
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
    let last_bound = used.iter().rposition(|&u| u);
    let mut out = Vec::new();
    for (i, p) in entry.params.iter().enumerate() {
        let w = width(&p.ty);
        let v = match found[i] {
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
            Some((_, ArgValue::Tensor(t))) => Val::Bits(((*t as u64) + 1) << TENSOR_SHIFT),
            Some((k, ArgValue::Int(x))) => {
                // The host passes the value in the parameter's type: one that does not
                // fit is a wrong launch, not a value to wrap silently.
                let ty = p.ty.to_string();
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
                            "argument `{k}` is {x}, outside the range of parameter `{}` (.{}: {lo}..={hi})",
                            p.name, p.ty
                        ),
                    );
                }
                Val::Bits(mask_w(*x as u64, w))
            }
            Some((_, ArgValue::Value(x))) => {
                // Rounded to the parameter's type, as the host passes it.
                let kind = match p.ty.to_string().as_str() {
                    "f32" => Some(crate::triton_ir::ast::FloatKind::F32),
                    "f16" => Some(crate::triton_ir::ast::FloatKind::F16),
                    _ => None,
                };
                let x = kind.map_or(*x, |k| crate::exec::typed_value(k, *x));
                Val::Float(domain.constant(x))
            }
            Some((k, ArgValue::Scalar(s))) => match domain.param(s) {
                Some(v) => Val::Float(v),
                None => {
                    return fail(
                        ErrorKind::Launch,
                        format!("no value for scalar `{s}` (argument `{k}`); give it with --scalar {s}=VALUE"),
                    )
                }
            },
        };
        out.push(v);
    }
    Ok(out)
}
