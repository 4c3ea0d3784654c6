//! NumPy `.npy` files: the array format every kernel author already has at hand.
//!
//! Architecture invariant: arrays cross this boundary as row-major `f64` data with a
//! shape; files of float16/32/64, int8..int64, uint8..uint64 and bool are read, and
//! written as float64 ([`write`]) or as a given dtype ([`write_as`]); integers are
//! exact up to 2^53.

use std::path::Path;

/// A dense row-major array.
#[derive(Clone, Debug, PartialEq)]
pub struct Array {
    pub shape: Vec<usize>,
    pub data: Vec<f64>,
}

#[derive(Debug, thiserror::Error)]
#[error("{file}: {message}")]
pub struct NpyError {
    pub file: String,
    pub message: String,
}

/// Read an `.npy` file (C order; the dtypes of [`Kind`]).
pub fn read(path: &Path) -> Result<Array, NpyError> {
    let err = |message: String| NpyError {
        file: path.display().to_string(),
        message,
    };
    let bytes = std::fs::read(path).map_err(|e| err(format!("cannot read: {e}")))?;
    let npy = npyz::NpyFile::new(&bytes[..]).map_err(|e| err(format!("not an .npy file: {e}")))?;
    if npy.order() != npyz::Order::C {
        return Err(err(
            "Fortran-order arrays are not supported; save with np.ascontiguousarray".into(),
        ));
    }
    let shape: Vec<usize> = npy.shape().iter().map(|&d| d as usize).collect();
    let descr = match npy.dtype() {
        npyz::DType::Plain(ts) => ts.to_string(),
        other => return Err(err(format!("unsupported dtype {}", other.descr()))),
    };
    let n: usize = shape.iter().product();
    let Some(kind) = Kind::from_descr(&descr) else {
        return Err(err(format!(
            "unsupported dtype '{descr}' (float16/32/64, int8/16/32/64, uint8/16/32/64 and bool are read)"
        )));
    };
    // A C-order array's data is the file's last n·itemsize bytes.
    let size = kind.size();
    let Some(raw) = n
        .checked_mul(size)
        .and_then(|len| bytes.len().checked_sub(len).map(|start| &bytes[start..]))
    else {
        return Err(err(format!(
            "corrupt data: {n} elements of {size} bytes do not fit in {} bytes",
            bytes.len()
        )));
    };
    let data = raw.chunks_exact(size).map(|c| kind.decode(c)).collect();
    Ok(Array { shape, data })
}

/// An element type of `.npy` data (little-endian, as NumPy writes on every common
/// machine).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    F16,
    F32,
    F64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    Bool,
}

impl Kind {
    /// From a NumPy dtype name (`float32`, `int64`, `bool`).
    pub fn from_name(name: &str) -> Option<Kind> {
        Some(match name {
            "float16" => Kind::F16,
            "float32" => Kind::F32,
            "float64" => Kind::F64,
            "int8" => Kind::I8,
            "int16" => Kind::I16,
            "int32" => Kind::I32,
            "int64" => Kind::I64,
            "uint8" => Kind::U8,
            "uint16" => Kind::U16,
            "uint32" => Kind::U32,
            "uint64" => Kind::U64,
            "bool" => Kind::Bool,
            _ => return None,
        })
    }

    /// From an array-protocol type string (`<f4`, `|b1`).
    fn from_descr(d: &str) -> Option<Kind> {
        let (order, rest) = d.split_at(1.min(d.len()));
        let k = match rest {
            "f2" => Kind::F16,
            "f4" => Kind::F32,
            "f8" => Kind::F64,
            "i1" => Kind::I8,
            "i2" => Kind::I16,
            "i4" => Kind::I32,
            "i8" => Kind::I64,
            "u1" => Kind::U8,
            "u2" => Kind::U16,
            "u4" => Kind::U32,
            "u8" => Kind::U64,
            "b1" => Kind::Bool,
            _ => return None,
        };
        // Big-endian data of more than one byte is not read.
        (order == "<"
            || order == "|"
            || (order == "=" && cfg!(target_endian = "little"))
            || k.size() == 1)
            .then_some(k)
    }

    fn descr(self) -> &'static str {
        match self {
            Kind::F16 => "<f2",
            Kind::F32 => "<f4",
            Kind::F64 => "<f8",
            Kind::I8 => "|i1",
            Kind::I16 => "<i2",
            Kind::I32 => "<i4",
            Kind::I64 => "<i8",
            Kind::U8 => "|u1",
            Kind::U16 => "<u2",
            Kind::U32 => "<u4",
            Kind::U64 => "<u8",
            Kind::Bool => "|b1",
        }
    }

    /// Bytes per element.
    pub fn size(self) -> usize {
        match self {
            Kind::I8 | Kind::U8 | Kind::Bool => 1,
            Kind::F16 | Kind::I16 | Kind::U16 => 2,
            Kind::F32 | Kind::I32 | Kind::U32 => 4,
            Kind::F64 | Kind::I64 | Kind::U64 => 8,
        }
    }

    /// Whether the elements are integers (or bools).
    pub fn is_int(self) -> bool {
        !matches!(self, Kind::F16 | Kind::F32 | Kind::F64)
    }

    fn decode(self, c: &[u8]) -> f64 {
        let mut b = [0u8; 8];
        b[..c.len()].copy_from_slice(c);
        let u = u64::from_le_bytes(b);
        match self {
            Kind::F16 => f16_value(u as u16),
            Kind::F32 => f32::from_bits(u as u32) as f64,
            Kind::F64 => f64::from_bits(u),
            Kind::I8 => u as u8 as i8 as f64,
            Kind::I16 => u as u16 as i16 as f64,
            Kind::I32 => u as u32 as i32 as f64,
            Kind::I64 => u as i64 as f64,
            Kind::Bool => (u != 0) as u8 as f64,
            Kind::U8 | Kind::U16 | Kind::U32 | Kind::U64 => u as f64,
        }
    }

    /// The bytes of `x` as this type; `None` when it cannot hold `x` (a fraction, NaN
    /// or a value out of range in an integer type).
    fn encode(self, x: f64) -> Option<Vec<u8>> {
        let int = |lo: f64, hi: f64| (x.fract() == 0.0 && x >= lo && x <= hi).then_some(x);
        Some(match self {
            Kind::F16 => f16_bits(x).to_le_bytes().to_vec(),
            Kind::F32 => (x as f32).to_le_bytes().to_vec(),
            Kind::F64 => x.to_le_bytes().to_vec(),
            Kind::I8 => (int(-128.0, 127.0)? as i8).to_le_bytes().to_vec(),
            Kind::I16 => (int(-32768.0, 32767.0)? as i16).to_le_bytes().to_vec(),
            Kind::I32 => (int(-2147483648.0, 2147483647.0)? as i32)
                .to_le_bytes()
                .to_vec(),
            Kind::I64 => (int(-9.223372036854776e18, 9.223372036854775e18)? as i64)
                .to_le_bytes()
                .to_vec(),
            Kind::U8 => vec![int(0.0, 255.0)? as u8],
            Kind::U16 => (int(0.0, 65535.0)? as u16).to_le_bytes().to_vec(),
            Kind::U32 => (int(0.0, 4294967295.0)? as u32).to_le_bytes().to_vec(),
            Kind::U64 => (int(0.0, 1.8446744073709552e19)? as u64)
                .to_le_bytes()
                .to_vec(),
            Kind::Bool => vec![int(0.0, 1.0)? as u8],
        })
    }
}

/// The value of IEEE half bits.
fn f16_value(b: u16) -> f64 {
    let sign = if b >> 15 == 1 { -1.0 } else { 1.0 };
    let e = ((b >> 10) & 0x1f) as i32;
    let m = (b & 0x3ff) as f64;
    match e {
        0 => sign * m * 2f64.powi(-24),
        31 if m == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + m / 1024.0) * 2f64.powi(e - 15),
    }
}

/// IEEE half bits of `x`, rounded to nearest even (by a search over the 2^16
/// patterns' order: exact and simple).
fn f16_bits(x: f64) -> u16 {
    if x.is_nan() {
        return 0x7e00;
    }
    let sign = if x.is_sign_negative() { 0x8000u16 } else { 0 };
    let a = x.abs();
    // Non-negative half patterns are ordered like their values: binary search.
    let (mut lo, mut hi) = (0u16, 0x7c00u16);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if f16_value(mid) <= a {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let (dl, dh) = (a - f16_value(lo), f16_value(hi) - a);
    let pick = if dl < dh || (dl == dh && lo % 2 == 0) {
        lo
    } else {
        hi
    };
    sign | pick
}

/// Write `array` as an `.npy` file of the NumPy dtype `dtype` (`float64`, `int64`,
/// `bool`, …). An element the type cannot hold (a NaN or fraction in an integer
/// array) is an error naming it.
pub fn write_as(path: &Path, array: &Array, dtype: &str) -> Result<(), NpyError> {
    let err = |message: String| NpyError {
        file: path.display().to_string(),
        message,
    };
    let kind = Kind::from_name(dtype).ok_or_else(|| err(format!("cannot write dtype {dtype}")))?;
    let shape = match array.shape.as_slice() {
        [] => "()".to_string(),
        [d] => format!("({d},)"),
        ds => format!(
            "({})",
            ds.iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let mut header = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        kind.descr()
    );
    while (10 + header.len() + 1) % 64 != 0 {
        header.push(' ');
    }
    header.push('\n');
    let mut out = Vec::with_capacity(10 + header.len() + array.data.len() * kind.size());
    out.extend_from_slice(b"\x93NUMPY\x01\x00");
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    for (k, &x) in array.data.iter().enumerate() {
        match kind.encode(x) {
            Some(b) => out.extend_from_slice(&b),
            None => {
                return Err(err(format!(
                    "element {k} is {x}, which a {dtype} array cannot hold"
                )))
            }
        }
    }
    std::fs::write(path, out).map_err(|e| err(format!("cannot write: {e}")))
}

/// Write a float64 `.npy` file.
pub fn write(path: &Path, array: &Array) -> Result<(), NpyError> {
    let err = |message: String| NpyError {
        file: path.display().to_string(),
        message,
    };
    let mut out = Vec::new();
    {
        let shape: Vec<u64> = array.shape.iter().map(|&d| d as u64).collect();
        use npyz::WriterBuilder;
        let mut writer = npyz::WriteOptions::<f64>::new()
            .default_dtype()
            .shape(&shape)
            .writer(&mut out)
            .begin_nd()
            .map_err(|e| err(e.to_string()))?;
        writer
            .extend(array.data.iter().copied())
            .map_err(|e| err(e.to_string()))?;
        writer.finish().map_err(|e| err(e.to_string()))?;
    }
    std::fs::write(path, out).map_err(|e| err(format!("cannot write: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_keeps_shape_and_values() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.npy");
        let a = Array {
            shape: vec![2, 3],
            data: vec![1.0, -2.5, 3.0, f64::INFINITY, 0.1, 6.0],
        };
        write(&path, &a).unwrap();
        assert_eq!(read(&path).unwrap(), a);
    }

    #[test]
    fn every_dtype_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let cases: [(&str, Vec<f64>); 12] = [
            ("float16", vec![1.0, -2.5, 0.0999755859375, 65504.0]),
            ("float32", vec![1.0, -2.5, 0.1f32 as f64, 3e38f32 as f64]),
            ("float64", vec![1.0, -2.5, 0.1, f64::INFINITY]),
            ("int8", vec![-128.0, 127.0, 0.0, -1.0]),
            ("int16", vec![-32768.0, 32767.0, 0.0, -1.0]),
            ("int32", vec![-2147483648.0, 2147483647.0, 0.0, -1.0]),
            (
                "int64",
                vec![-9007199254740992.0, 9007199254740992.0, 0.0, -1.0],
            ),
            ("uint8", vec![0.0, 255.0, 1.0, 7.0]),
            ("uint16", vec![0.0, 65535.0, 1.0, 7.0]),
            ("uint32", vec![0.0, 4294967295.0, 1.0, 7.0]),
            ("uint64", vec![0.0, 9007199254740992.0, 1.0, 7.0]),
            ("bool", vec![0.0, 1.0, 1.0, 0.0]),
        ];
        for (dtype, data) in cases {
            let path = dir.path().join(format!("{dtype}.npy"));
            let a = Array {
                shape: vec![2, 2],
                data,
            };
            write_as(&path, &a, dtype).unwrap();
            assert_eq!(read(&path).unwrap(), a, "{dtype}");
        }
    }

    #[test]
    fn integer_arrays_refuse_values_they_cannot_hold() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.npy");
        for (dtype, x) in [
            ("int8", 128.0),
            ("int64", 0.5),
            ("uint8", -1.0),
            ("bool", 2.0),
        ] {
            let a = Array {
                shape: vec![1],
                data: vec![x],
            };
            let e = write_as(&path, &a, dtype).unwrap_err();
            assert!(e.to_string().contains("cannot hold"), "{dtype}: {e}");
        }
        let nan = Array {
            shape: vec![1],
            data: vec![f64::NAN],
        };
        assert!(write_as(&path, &nan, "int32").is_err());
    }

    #[test]
    fn garbage_is_an_error_not_a_panic() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bad.npy");
        std::fs::write(&path, b"\x93NUMPY garbage").unwrap();
        let e = read(&path).unwrap_err();
        assert!(e.to_string().contains("bad.npy"), "{e}");
    }
}
