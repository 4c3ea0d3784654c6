//! Typed memory: the element types of launch tensors (`dtype`), and the bytes under
//! them. A tensor of `n` elements of `b` bytes spans `n·b` bytes. An access that is
//! exactly one element (its size, aligned) reads or writes the element's value: a real
//! of the domain for a float tensor, an integer for an integer one (a number, or
//! symbolically an integer-valued term whose range the domain knows: an element of an
//! integer input, a select of integers). Any other access (a byte of a float, a word
//! over four bytes of a bool tensor, a misaligned access) goes through the elements'
//! bytes: exact whenever the elements it touches are numbers (every concrete run). A
//! data-dependent element read in parts gives opaque pieces (`bytes0+1.float32(x)`)
//! that remember where they came from, so a byte-wise copy puts the element back
//! whole (the copied element is `x` again); any other use of a piece stays opaque, and
//! an element assembled from pieces of different values, or of another type, is
//! `Unsupported` naming the store.
//!
//! Invariant: a value is never reinterpreted silently. Bits stored into a float tensor
//! are decoded as the tensor's float type; a float stored into an integer tensor is
//! its bit pattern; a data-dependent integer is stored only when its range fits the
//! element type (so its bits are its value), otherwise the store is `Unsupported`.

use super::*;
use crate::launch::Dtype;

/// One byte of memory for a byte-wise access: a number's, or byte `pos` of a
/// data-dependent element `src` of type `dtype` (a piece of a symbolic value in flight,
/// e.g. during a `memcpy` byte by byte).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Byte<V> {
    Num(u8),
    Of(V, Dtype, u8),
}

/// A partly written element (bytes stored one at a time into an element no thread had
/// written whole): the bytes known so far.
pub(super) type Partial<V> = HashMap<(usize, usize), [Option<Byte<V>>; 8]>;

/// A register value holding bytes `pos..pos + len` of the data-dependent element `src`
/// of type `dtype` (an opaque term, `bytes<pos>+<len>.<dtype>(src)`), remembered so a
/// store of it can put those bytes back.
#[derive(Clone, Copy, Debug)]
pub(super) struct Piece<V> {
    pub(super) term: V,
    pub(super) src: V,
    pub(super) dtype: Dtype,
    pub(super) pos: u8,
    pub(super) len: u8,
}

/// How many recent pieces a store looks through.
const PIECE_WINDOW: usize = 4096;

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
        format!(
            "`{}`{:?}",
            td.name,
            td.unravel(flat.min(td.numel().saturating_sub(1)))
        )
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
        if self.inputs.len() <= i {
            self.inputs.resize_with(i + 1, Vec::new);
        }
        if self.inputs[i].is_empty() {
            self.inputs[i] = vec![None; td.numel()];
        }
        if let Some(v) = self.inputs[i].get(flat).copied().flatten() {
            return Some(v);
        }
        let index = td.unravel(flat);
        let v = self.domain.input(i, &index, flat);
        if let Some(e) = self.inputs[i].get_mut(flat) {
            *e = Some(v);
        }
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
                // A choice between two constant bit patterns is a choice between the
                // floats they encode (`float` reads it so); other bits are refused.
                Val::Sym(s) if self.bit_selects.iter().any(|e| e.0 == s) => {
                    self.float(v, ptx_float(dtype))
                }
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
                let n = if signed {
                    sext(b, w) as i128
                } else {
                    mask_w(b, w) as i128
                };
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
            Val::Sum(_) => escaped(),
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

    /// For `lift race` only: an element value for bits lift cannot read in tensor
    /// `i`'s type, opaque (named by the type), so the run goes on to check addresses.
    pub(super) fn untyped_elem(&mut self, i: usize, v: Val<D::V>, ty: &str) -> Result<D::V, Fail> {
        let bits = self.sym_arg(v, ty)?;
        let op = format!("{}.from_bits", self.inst.tensors[i].dtype);
        self.opaque(&op, &[bits])
    }

    /// The bytes of an element for a byte-wise access. Unwritten output elements give
    /// the bytes stored into them so far.
    fn elem_bytes_of(&mut self, i: usize, flat: usize) -> [Option<Byte<D::V>>; 8] {
        let dtype = self.inst.tensors[i].dtype;
        let mut out = [None; 8];
        match self.tensor_elem(i, flat) {
            Some(v) => {
                let n = dtype.bytes() as usize;
                match self.domain.as_number(v) {
                    Some(x) => {
                        let b = encode(dtype, x);
                        for (k, o) in out.iter_mut().enumerate().take(n) {
                            *o = Some(Byte::Num((b >> (8 * k)) as u8));
                        }
                    }
                    None => {
                        for (k, o) in out.iter_mut().enumerate().take(n) {
                            *o = Some(Byte::Of(v, dtype, k as u8));
                        }
                    }
                }
                out
            }
            None => self.partial.get(&(i, flat)).copied().unwrap_or(out),
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
        if size > 8 {
            return unsupported(format!(
                "a {size}-byte load at byte {off} of {} that is no whole element",
                self.elem_name(i, off)
            ));
        }
        let mut bytes = Vec::with_capacity(size as usize);
        for b in off..off + size {
            let flat = (b / e) as usize;
            match self.elem_bytes_of(i, flat)[(b % e) as usize] {
                Some(x) => bytes.push(x),
                None => {
                    let m = format!(
                        "read of byte {} of {}, an output element no thread wrote before",
                        b % e,
                        self.elem_name(i, b)
                    );
                    return Ok(self.uninit(t, pc, (off, size), m));
                }
            }
        }
        let mut bits = 0u64;
        let mut numbers = true;
        for (k, b) in bytes.iter().enumerate() {
            match b {
                Byte::Num(x) => bits |= (*x as u64) << (8 * k),
                Byte::Of(..) => numbers = false,
            }
        }
        if numbers {
            if is_float_ty(ty) {
                let x = decode_float(bits, 8 * size as u32).unwrap_or(f64::NAN);
                return Ok(Val::Float(self.domain.constant(x)));
            }
            return Ok(Val::Bits(bits));
        }
        // Two whole 16-bit float elements read as a word: packed halves (`mma`).
        if !is_float_ty(ty) {
            let dtype = self.inst.tensors[i].dtype;
            if let Some(v) = self.packed_elements(dtype, &bytes)? {
                return Ok(v);
            }
        }
        // Consecutive bytes of one data-dependent element: a piece of it.
        if let Some(Byte::Of(src, dtype, pos)) = bytes.first().copied() {
            let whole = bytes.iter().enumerate().all(|(k, b)| {
                matches!(b, Byte::Of(s, d, p) if *s == src && *d == dtype && *p as usize == pos as usize + k)
            });
            if whole && !is_float_ty(ty) {
                let op = format!("bytes{pos}+{}.{}", bytes.len(), dtype);
                let term = self.opaque(&op, &[src])?;
                self.pieces.push(Piece {
                    term,
                    src,
                    dtype,
                    pos,
                    len: bytes.len() as u8,
                });
                return Ok(Val::Sym(term));
            }
        }
        unsupported(format!(
            "a {size}-byte load at byte {off} of {} ({} elements of {e} bytes) reads part of a \
             data-dependent element as .{ty}, or parts of several; lift reads such elements \
             whole, or copies their bytes",
            self.elem_name(i, off),
            self.inst.tensors[i].dtype
        ))
    }

    /// The bytes a register value stores at an access of `size` bytes and type `ty`
    /// (`None` when it depends on the data and is no piece of an element).
    fn val_bytes(&self, v: Val<D::V>, size: u64, ty: &str) -> Option<Vec<Byte<D::V>>> {
        let bits = match v {
            Val::Bits(b) => b,
            Val::Pred(b) => b as u64,
            Val::Float(x) => {
                let n = self.domain.as_number(x)?;
                match (ty, size) {
                    ("f64", _) | (_, 8) => n.to_bits(),
                    ("f16", _) | (_, 2) => f16_bits(n),
                    ("bf16", _) => bf16_bits(n),
                    _ => (n as f32).to_bits() as u64,
                }
            }
            Val::Sum(_) => return None,
            Val::Sym(s) => {
                let p = self
                    .pieces
                    .iter()
                    .rev()
                    .take(PIECE_WINDOW)
                    .find(|p| p.term == s)?;
                if p.len as u64 != size {
                    return None;
                }
                return Some(
                    (0..p.len)
                        .map(|k| Byte::Of(p.src, p.dtype, p.pos + k))
                        .collect(),
                );
            }
            Val::Cond(_) => return None,
        };
        Some(
            (0..size)
                .map(|k| Byte::Num((bits >> (8 * k)) as u8))
                .collect(),
        )
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
        let what = format!(
            "a {size}-byte store at byte {off} of {} ({dtype} elements of {e} bytes)",
            self.elem_name(i, off)
        );
        if size > 8 {
            return unsupported(format!(
                "{what}: more than 8 bytes that are no whole element"
            ));
        }
        if self.path.is_some() {
            return unsupported(format!(
                "{what} under a data-dependent condition (byte-wise stores are merged only whole)"
            ));
        }
        let new = self.val_bytes(v, size, ty);
        let Some(new) = new.or_else(|| self.packed_bytes(v, size, dtype)) else {
            return unsupported(format!(
                "{what}: the value depends on the data and is no copy of an element's bytes \
                 (lift stores such values only as whole elements)"
            ));
        };
        let first = (off / e) as usize;
        let last = ((off + size - 1) / e) as usize;
        for flat in first..=last {
            let mut bytes = self.elem_bytes_of(i, flat);
            for k in 0..e {
                let b = flat as u64 * e + k;
                if b >= off && b < off + size {
                    bytes[k as usize] = Some(new[(b - off) as usize]);
                }
            }
            self.note(Cell::Global(i, flat));
            let n = e as usize;
            if !bytes[..n].iter().all(Option::is_some) {
                self.partial.insert((i, flat), bytes);
                continue;
            }
            let full: Vec<Byte<D::V>> = bytes[..n].iter().flatten().copied().collect();
            let val = if full.iter().all(|b| matches!(b, Byte::Num(_))) {
                let mut x = 0u64;
                for (k, b) in full.iter().enumerate() {
                    if let Byte::Num(y) = b {
                        x |= (*y as u64) << (8 * k);
                    }
                }
                self.decode_value(dtype, x)
            } else {
                match full[0] {
                    Byte::Of(src, d, 0)
                        if d == dtype
                            && full.iter().enumerate().all(|(k, b)| {
                                matches!(b, Byte::Of(s, dd, p) if *s == src && *dd == d && *p as usize == k)
                            }) =>
                    {
                        src
                    }
                    _ => {
                        return unsupported(format!(
                            "{what} completes {} from bytes of different values or of \
                             another type (a bit-level mix lift does not read as a value)",
                            self.elem_name(i, flat as u64 * e)
                        ))
                    }
                }
            };
            self.partial.remove(&(i, flat));
            self.global[i][flat] = Some((val, site));
        }
        Ok(())
    }
}
