//! Python's operators on values (`+ - * / // % ** @`, comparisons, `&`, `|`): ints stay
//! exact ints, anything else is the elementwise op (or `matmul`) of the library; and
//! unary `-` and `~` of a tensor.

use super::super::tensor::Tensor;
use super::super::value::{Cx, Value};
use super::elementwise::{elementwise2, is_bool, power};
use super::linalg::matmul;

type R<T> = Result<T, String>;

/// Python arithmetic on values: ints stay exact ints; anything else is elementwise on
/// tensors with broadcasting. `op` is one of `+ - * / // % ** @ < > <= >= == != & |`.
pub(crate) fn arith(cx: &mut Cx, op: &'static str, a: &Value, b: &Value) -> R<Value> {
    if let (Value::Int(x), Value::Int(y)) = (a, b) {
        let (x, y) = (*x, *y);
        let ov = || format!("integer overflow in {x} {op} {y}");
        let int = |v: Option<i64>| v.map(Value::Int).ok_or_else(ov);
        match op {
            "+" => return int(x.checked_add(y)),
            "-" => return int(x.checked_sub(y)),
            "*" => return int(x.checked_mul(y)),
            "//" | "%" if y == 0 => {
                return Err(format!("integer division by zero in {x} {op} {y}"))
            }
            "//" => {
                let q = x.checked_div(y).ok_or_else(ov)?;
                let r = x.checked_rem(y).ok_or_else(ov)?;
                return Ok(Value::Int(if r != 0 && ((r < 0) != (y < 0)) {
                    q - 1
                } else {
                    q
                }));
            }
            "%" => {
                let r = x.checked_rem(y).ok_or_else(ov)?;
                return Ok(Value::Int(if r != 0 && ((r < 0) != (y < 0)) {
                    r + y
                } else {
                    r
                }));
            }
            "**" => return power(cx, "**", a, b),
            "<" => return Ok(Value::Bool(x < y)),
            ">" => return Ok(Value::Bool(x > y)),
            "<=" => return Ok(Value::Bool(x <= y)),
            ">=" => return Ok(Value::Bool(x >= y)),
            "==" => return Ok(Value::Bool(x == y)),
            "!=" => return Ok(Value::Bool(x != y)),
            _ => {}
        }
    }
    if op == "**" {
        return power(cx, "**", a, b);
    }
    let name = match op {
        "+" => "add",
        "-" => "sub",
        "*" => "mul",
        "/" => "div",
        "@" => "matmul",
        "<" => "lt",
        ">" => "gt",
        "<=" => "le",
        ">=" => "ge",
        "==" => "eq",
        "!=" => "ne",
        _ => op,
    };
    let x = cx.tensor(a).map_err(|_| {
        format!(
            "`{op}`: left operand must be a tensor or a number, got {}",
            a.describe()
        )
    })?;
    let y = cx.tensor(b).map_err(|_| {
        format!(
            "`{op}`: right operand must be a tensor or a number, got {}",
            b.describe()
        )
    })?;
    let r = match op {
        "@" => matmul(cx, "matmul (@)", &x, &y)?,
        _ => elementwise2(cx, name, &x, &y)?,
    };
    Ok(Value::Tensor(r))
}

/// Unary `-` (refused on bool tensors, as PyTorch does) or `~` of a tensor.
pub(crate) fn unary(cx: &mut Cx, op: &str, t: &Tensor) -> R<Value> {
    Ok(Value::Tensor(match op {
        "-" if is_bool(cx.terms, t) => {
            return Err("negating a bool tensor is not supported by PyTorch (use `~`)".into())
        }
        "-" => t.map(cx.terms, |t, e| t.neg(e)),
        _ => t.map(cx.terms, |t, e| t.not(e)),
    }))
}
