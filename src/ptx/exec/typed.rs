//! Typed memory: the element types of launch tensors (`dtype`), and the bytes under
//! them. A tensor of `n` elements of `b` bytes spans `n·b` bytes. An access that is
//! exactly one element (its size, aligned) reads or writes the element's value: a real
//! of the domain for a float tensor, an integer for an integer one (a number, or
//! symbolically an integer-valued term whose range the domain knows: an element of an
//! integer input, a select of integers). Any other access (a byte of a float, a word
//! over four bytes of a bool tensor, a misaligned access) goes through the elements'
//! bytes: exact whenever the elements it touches are numbers (every concrete run), an
//! `Unsupported` naming the access when one of them depends on the data.
//!
//! Invariant: a value is never reinterpreted silently. Bits stored into a float tensor
//! are decoded as the tensor's float type; a float stored into an integer tensor is
//! its bit pattern; a data-dependent integer is stored only when its range fits the
//! element type (so its bits are its value), otherwise the store is `Unsupported`.

use super::*;
use crate::launch::Dtype;

/// A partly written element (bytes stored one at a time into an element no thread had
/// written whole): the bytes known so far.
pub(super) type Partial = HashMap<(usize, usize), [Option<u8>; 8]>;

/// The bit pattern of a number as an element of `dtype` (little-endian in the low
/// `8·bytes` bits): floats rounded to their type, integers two's complement.
pub(super) fn encode(dtype: Dtype, x: f64) -> u64 {
    match dtype {
        Dtype::F32 => (x as f32).to_bits() as u64,
        Dtype::F64 => x.to_bits(),
        Dtype::F16 => f16_bits(x),
        Dtype::Bf16 => bf16_bits(x),
        _ => mask_w(x as i128 as u64, 8 * dtype.bytes() as u32),
    }
}

/// The number an element's bit pattern holds.
pub(super) fn decode(dtype: Dtype, bits: u64) -> f64 {
    let w = 8 * dtype.bytes() as u32;
    let bits = mask_w(bits, w);
    match dtype {
        Dtype::F32 | Dtype::F64 | Dtype::F16 => decode_float(bits, w).unwrap_or(f64::NAN),
        Dtype::Bf16 => f32::from_bits((bits as u32) << 16) as f64,
        Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64 => sext(bits, w) as f64,
        _ => bits as f64,
    }
}

/// IEEE half bits of `x` (rounded to nearest even).
fn f16_bits(x: f64) -> u64 {
    use crate::term::{round_float, F16};
    let sign = if x.is_sign_negative() { 0x8000u64 } else { 0 };
    if x.is_nan() {
        return 0x7e00;
    }
    let r = round_float(x, F16);
    let a = r.abs();
    if a == 0.0 {
        return sign;
    }
    if a.is_infinite() || a > 65504.0 {
        return sign | 0x7c00;
    }
    let e = a.log2().floor() as i32;
    if e < -14 {
        return sign | (a / 2f64.powi(-24)).round() as u64;
    }
    let m = ((a / 2f64.powi(e) - 1.0) * 1024.0).round() as u64;
    sign | (((e + 15) as u64) << 10) | m
}

/// bfloat16 bits of `x` (rounded to nearest even).
fn bf16_bits(x: f64) -> u64 {
    use crate::term::{round_float, BF16};
    let r = round_float(x, BF16) as f32;
    (r.to_bits() >> 16) as u64
}

/// The PTX type name of a float dtype (`f32`), for converting register values.
fn ptx_float(dtype: Dtype) -> &'static str {
    match dtype {
        Dtype::F64 => "f64",
        Dtype::F16 => "f16",
        Dtype::Bf16 => "bf16",
        _ => "f32",
    }
}

/// Whether every integer of `r` reads back as itself from `w` bits taken as signed
/// (`signed`) or unsigned two's complement.
pub(super) fn fits(r: (i128, i128), w: u32, signed: bool) -> bool {
    let w = w.min(127);
    if signed {
        r.0 >= -(1i128 << (w - 1)) && r.1 < (1i128 << (w - 1))
    } else {
        r.0 >= 0 && r.1 < (1i128 << w)
    }
}

impl<'a, D: Domain> Sim<'a, D> {
    /// The value of an element's bit pattern, exact for integers of every width.
    pub(super) fn decode_value(&mut self, dtype: Dtype, bits: u64) -> D::V {
        let w = 8 * dtype.bytes() as u32;
        match dtype {
            Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64 => {
                self.domain.integer(sext(bits, w) as i128)
            }
            Dtype::U8 | Dtype::U16 | Dtype::U32 | Dtype::U64 | Dtype::Bool => {
                self.domain.integer(mask_w(bits, w) as i128)
            }
            _ => self.domain.constant(decode(dtype, bits)),
        }
    }

    /// Bytes per element of tensor `i`.
    pub(super) fn elem_bytes(&self, i: usize) -> u64 {
        self.inst.tensors[i].dtype.bytes()
    }

    /// `name[index]` of tensor `i` at byte `off`, for messages.
    pub(super) fn elem_name(&self, i: usize, off: u64) -> String {
        let td = &self.inst.tensors[i];
        let flat = (off / td.dtype.bytes()) as usize;
        format!("`{}`{:?}", td.name, td.unravel(flat.min(td.numel().saturating_sub(1))))
    }

    /// The value element `flat` of tensor `i` holds now: what a thread stored, else its
    /// input value (`None` for an output element nobody wrote).
    pub(super) fn tensor_elem(&mut self, i: usize, flat: usize) -> Option<D::V> {
        if let Some((v, _)) = self.global[i][flat] {
            return Some(v);
        }
        let td = &self.inst.tensors[i];
        if td.role == Role::Out {
            return None;
        }
        if let Some(v) = self.inputs.get(&(i, flat as u64)) {
            return Some(*v);
        }
        let index = td.unravel(flat);
        let v = self.domain.input(i, &index, flat);
        self.inputs.insert((i, flat as u64), v);
        Some(v)
    }

    /// An element's value as a register value read by a whole-element access: a real
    /// for float tensors; for integer tensors the bits of a number, or the integer term.
    pub(super) fn elem_to_val(&self, i: usize, v: D::V) -> Val<D::V> {
        let dtype = self.inst.tensors[i].dtype;
        if dtype.is_float() {
            return Val::Float(v);
        }
        match self.domain.as_number(v) {
            Some(x) if x.is_finite() => Val::Bits(encode(dtype, x)),
            _ => Val::Sym(v),
        }
    }

    /// A register value stored whole into an element of tensor `i` by an access of type
    /// `ty`: the element's new value.
    pub(super) fn val_to_elem(&mut self, i: usize, v: Val<D::V>, ty: &str) -> Result<D::V, Fail> {
        let td = &self.inst.tensors[i];
        let (dtype, name) = (td.dtype, td.name.clone());
        let w = 8 * dtype.bytes() as u32;
        if dtype.is_float() {
            return match v {
                Val::Bits(b) => Ok(self.domain.constant(decode(dtype, b))),
                Val::Sym(_) => unsupported(format!(
                    "storing data-dependent integer bits into the {dtype} tensor `{name}` \
                     (a bit cast lift does not read as a real)"
                )),
                v => self.float(v, ptx_float(dtype)),
            };
        }
        let signed = matches!(dtype, Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64);
        match v {
            Val::Bits(b) => {
                let n = if signed { sext(b, w) as i128 } else { mask_w(b, w) as i128 };
                Ok(self.domain.integer(n))
            }
            Val::Pred(b) => Ok(self.domain.integer(b as i128)),
            Val::Float(x) => match self.domain.as_number(x) {
                Some(n) => {
                    let bits = if w == 64 || ty == "f64" {
                        n.to_bits()
                    } else if w == 16 {
                        f16_bits(n)
                    } else {
                        (n as f32).to_bits() as u64
                    };
                    Ok(self.decode_value(dtype, bits))
                }
                None => unsupported(format!(
                    "storing the bits of a data-dependent float into the {dtype} tensor `{name}` \
                     (a bit cast lift does not read as an integer)"
                )),
            },
            Val::Sym(s) | Val::Cond(s) => {
                let r = self.domain.int_range(s);
                match r {
                    Some(r) if fits(r, w, signed) => Ok(s),
                    Some((lo, hi)) => unsupported(format!(
                        "a data-dependent integer in {lo}..={hi} stored into the {dtype} tensor \
                         `{name}`, whose elements cannot hold all of it"
                    )),
                    None => unsupported(format!(
                        "a data-dependent integer of unknown range (bits of a float, or an \
                         opaque integer operation) stored into the {dtype} tensor `{name}`"
                    )),
                }
            }
        }
    }

    /// The bits of an element for a byte-wise access: `None` when it depends on the
    /// data. Unwritten output elements give the bytes stored into them so far.
    fn elem_bits(&mut self, i: usize, flat: usize) -> Result<[Option<u8>; 8], D::V> {
        let dtype = self.inst.tensors[i].dtype;
        match self.tensor_elem(i, flat) {
            Some(v) => match self.domain.as_number(v) {
                Some(x) => {
                    let b = encode(dtype, x);
                    let mut out = [None; 8];
                    for (k, o) in out.iter_mut().enumerate().take(dtype.bytes() as usize) {
                        *o = Some((b >> (8 * k)) as u8);
                    }
                    Ok(out)
                }
                None => Err(v),
            },
            None => Ok(self.partial.get(&(i, flat)).copied().unwrap_or([None; 8])),
        }
    }

    /// A load of `size` bytes at byte `off` of tensor `i` that is not one whole element.
    pub(super) fn load_bytes(
        &mut self,
        t: usize,
        pc: usize,
        i: usize,
        off: u64,
        size: u64,
        ty: &str,
    ) -> Result<Val<D::V>, Fail> {
        let e = self.elem_bytes(i);
        let mut bits = 0u64;
        for k in (0..size.min(8)).rev() {
            let b = off + k;
            let flat = (b / e) as usize;
            let byte = match self.elem_bits(i, flat) {
                Ok(bytes) => bytes[(b % e) as usize],
                Err(_) => {
                    return unsupported(format!(
                        "a {size}-byte load at byte {off} of {} ({} elements of {e} bytes) \
                         reads part of a data-dependent element, or several; lift reads \
                         such elements only whole",
                        self.elem_name(i, off),
                        self.inst.tensors[i].dtype
                    ))
                }
            };
            let Some(byte) = byte else {
                let m = format!(
                    "read of byte {} of {}, an output element no thread wrote before",
                    b % e,
                    self.elem_name(i, b)
                );
                return Ok(self.uninit(t, pc, (off, size), m));
            };
            bits = bits << 8 | byte as u64;
        }
        if is_float_ty(ty) {
            let x = decode_float(bits, 8 * size as u32).unwrap_or(f64::NAN);
            return Ok(Val::Float(self.domain.constant(x)));
        }
        Ok(Val::Bits(bits))
    }

    /// A store of `size` bytes at byte `off` of tensor `i` that is not one whole element.
    pub(super) fn store_bytes(
        &mut self,
        i: usize,
        off: u64,
        size: u64,
        v: Val<D::V>,
        ty: &str,
        site: usize,
    ) -> Result<(), Fail> {
        let e = self.elem_bytes(i);
        let dtype = self.inst.tensors[i].dtype;
        let what_text = format!(
            "a {size}-byte store at byte {off} of {} ({dtype} elements of {e} bytes)",
            self.elem_name(i, off)
        );
        let what = || what_text.clone();
        if self.path.is_some() {
            return unsupported(format!(
                "{} under a data-dependent condition (byte-wise stores are merged only whole)",
                what()
            ));
        }
        let bits = match v {
            Val::Bits(b) => b,
            Val::Pred(b) => b as u64,
            Val::Float(x) => match self.domain.as_number(x) {
                Some(n) => match (ty, size) {
                    ("f64", _) | (_, 8) => n.to_bits(),
                    ("f16", _) | (_, 2) => f16_bits(n),
                    ("bf16", _) => bf16_bits(n),
                    _ => (n as f32).to_bits() as u64,
                },
                None => {
                    return unsupported(format!(
                        "{}: the value depends on the data (lift stores such values only as \
                         whole elements)",
                        what()
                    ))
                }
            },
            Val::Sym(_) | Val::Cond(_) => {
                return unsupported(format!(
                    "{}: the value depends on the data (lift stores such values only as whole \
                     elements)",
                    what()
                ))
            }
        };
        let first = (off / e) as usize;
        let last = ((off + size - 1) / e) as usize;
        for flat in first..=last {
            let mut bytes = match self.elem_bits(i, flat) {
                Ok(b) => b,
                Err(_) => {
                    return unsupported(format!(
                        "{} changes part of a data-dependent element; lift writes such \
                         elements only whole",
                        what()
                    ))
                }
            };
            for k in 0..e {
                let b = flat as u64 * e + k;
                if b >= off && b < off + size {
                    bytes[k as usize] = Some((bits >> (8 * (b - off))) as u8);
                }
            }
            self.note(Cell::Global(i, flat));
            if bytes[..e as usize].iter().all(Option::is_some) {
                let mut x = 0u64;
                for k in (0..e as usize).rev() {
                    x = x << 8 | bytes[k].unwrap_or(0) as u64;
                }
                let val = self.decode_value(dtype, x);
                self.partial.remove(&(i, flat));
                self.global[i][flat] = Some((val, site));
            } else {
                self.partial.insert((i, flat), bytes);
            }
        }
        Ok(())
    }
}
