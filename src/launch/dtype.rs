//! Element types of launch tensors ([`Dtype`]): their names, bytes, and the range of an
//! integer type.
//!
//! Invariant: plain data; no I/O.

use std::fmt;

/// The element type of a launch tensor: how many bytes an element takes and whether its
/// elements are reals (floats) or integers (exact, within the type's range).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    #[default]
    F32,
    F16,
    Bf16,
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

impl Dtype {
    /// Every dtype, for messages and tests.
    pub const ALL: [Dtype; 13] = [
        Dtype::F32,
        Dtype::F16,
        Dtype::Bf16,
        Dtype::F64,
        Dtype::I8,
        Dtype::I16,
        Dtype::I32,
        Dtype::I64,
        Dtype::U8,
        Dtype::U16,
        Dtype::U32,
        Dtype::U64,
        Dtype::Bool,
    ];

    /// Read a launch `dtype`: NumPy/PyTorch names (`float32`, `int64`, `bool`, …) or
    /// PTX-style short ones (`f32`, `s64`/`i64`, `u8`, …).
    pub fn parse(s: &str) -> Option<Dtype> {
        Some(match s.trim().trim_start_matches("torch.") {
            "float32" | "f32" | "float" => Dtype::F32,
            "float16" | "f16" | "half" => Dtype::F16,
            "bfloat16" | "bf16" => Dtype::Bf16,
            "float64" | "f64" | "double" => Dtype::F64,
            "int8" | "i8" | "s8" => Dtype::I8,
            "int16" | "i16" | "s16" => Dtype::I16,
            "int32" | "i32" | "s32" => Dtype::I32,
            "int64" | "i64" | "s64" | "long" => Dtype::I64,
            "uint8" | "u8" => Dtype::U8,
            "uint16" | "u16" => Dtype::U16,
            "uint32" | "u32" => Dtype::U32,
            "uint64" | "u64" => Dtype::U64,
            "bool" => Dtype::Bool,
            _ => return None,
        })
    }

    /// The NumPy name (`float32`, `int64`, `bool`).
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "float32",
            Dtype::F16 => "float16",
            Dtype::Bf16 => "bfloat16",
            Dtype::F64 => "float64",
            Dtype::I8 => "int8",
            Dtype::I16 => "int16",
            Dtype::I32 => "int32",
            Dtype::I64 => "int64",
            Dtype::U8 => "uint8",
            Dtype::U16 => "uint16",
            Dtype::U32 => "uint32",
            Dtype::U64 => "uint64",
            Dtype::Bool => "bool",
        }
    }

    /// Bytes per element.
    pub fn bytes(self) -> u64 {
        match self {
            Dtype::I8 | Dtype::U8 | Dtype::Bool => 1,
            Dtype::F16 | Dtype::Bf16 | Dtype::I16 | Dtype::U16 => 2,
            Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
            Dtype::F64 | Dtype::I64 | Dtype::U64 => 8,
        }
    }

    /// Whether elements are reals (a float type).
    pub fn is_float(self) -> bool {
        matches!(self, Dtype::F32 | Dtype::F16 | Dtype::Bf16 | Dtype::F64)
    }

    /// Whether a launch that states `self` agrees with a kernel whose IR stores `ir`:
    /// the same float type, or integers of the same width (the IR's `i8` holds
    /// `int8`, `uint8` and `bool` alike; signedness is in the ops, not the pointer).
    pub fn agrees_with(self, ir: Dtype) -> bool {
        if self.is_float() || ir.is_float() {
            return self == ir;
        }
        self.bytes() == ir.bytes()
    }

    /// The integers an element of an integer dtype can hold (`None` for floats); a
    /// `bool` holds 0 and 1.
    pub fn int_range(self) -> Option<(i128, i128)> {
        let bits = 8 * self.bytes() as u32;
        match self {
            Dtype::Bool => Some((0, 1)),
            Dtype::U8 | Dtype::U16 | Dtype::U32 | Dtype::U64 => Some((0, (1i128 << bits) - 1)),
            Dtype::I8 | Dtype::I16 | Dtype::I32 | Dtype::I64 => {
                Some((-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1))
            }
            _ => None,
        }
    }
}

impl fmt::Display for Dtype {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
