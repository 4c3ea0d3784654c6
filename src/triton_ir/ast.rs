//! The parsed form of a Triton IR module.
//!
//! Architecture invariant: this is plain data. Every op, whether Triton printed it in
//! its custom assembly form (`arith.addf %a, %b : f32`) or in MLIR's generic form
//! (`"tt.reduce"(%x) <{axis = 0 : i32}> ({...})`), is normalised to one [`Op`] shape:
//! results, operands, named attributes, regions, result types, a source location.
//! The interpreter only ever sees this shape, so adding a custom form is a parser-only
//! change.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// A parsed `.ttir` file.
#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub funcs: Vec<Func>,
}

impl Module {
    /// The kernel entry: the first public function, else the first function.
    pub fn entry(&self) -> Option<&Func> {
        self.funcs
            .iter()
            .find(|f| f.public)
            .or_else(|| self.funcs.first())
    }

    pub fn func(&self, name: &str) -> Option<&Func> {
        self.funcs.iter().find(|f| f.name == name)
    }
}

/// `tt.func [public|private] @name(%arg: type loc(...), ...) -> (results) { body }`
#[derive(Clone, Debug, PartialEq)]
pub struct Func {
    pub name: String,
    pub public: bool,
    pub args: Vec<Arg>,
    pub result_types: Vec<Type>,
    pub body: Region,
    /// Line of the `tt.func` in the .ttir file (1-based).
    pub line: u32,
    pub loc: Loc,
}

/// A function or block argument. `name` is the SSA name without `%`
/// (`y_ptr`, `arg0`, `x_9`).
#[derive(Clone, Debug, PartialEq)]
pub struct Arg {
    pub name: String,
    pub ty: Type,
    pub loc: Loc,
}

#[derive(Clone, Debug, PartialEq, Default)]
pub struct Region {
    pub blocks: Vec<Block>,
}

/// A basic block. The entry block of a region may have no label.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Block {
    /// `bb0` for `^bb0(...)`, `None` for an unlabelled entry block.
    pub label: Option<String>,
    pub args: Vec<Arg>,
    pub ops: Vec<Op>,
}

/// One operation, normalised (see the module doc).
///
/// Operand order for the custom forms follows the op's operand list in Triton's
/// ODS definition, e.g.:
/// - `tt.load %ptr[, %mask[, %other]]`, `tt.store %ptr, %value[, %mask]`
/// - `tt.dot %a, %b, %c`
/// - `scf.for %iv = %lb to %ub step %st iter_args(%a = %init, ...)`:
///   operands `[lb, ub, step, init...]`, one region whose entry block has args
///   `[iv, a, ...]`
/// - `scf.if %cond -> (types) { then } else { else }`: operands `[cond]`, regions
///   `[then, else]` (the else region is empty when absent)
/// - `cf.br ^bb1(%x : f32)` and `cf.cond_br %c, ^bb1(...), ^bb2(...)`: operands are the
///   condition only; targets and their arguments are in `successors`.
#[derive(Clone, Debug, PartialEq)]
pub struct Op {
    /// Full op name with dialect: `arith.addf`, `tt.reduce`, `scf.for`.
    pub name: String,
    /// SSA result names without `%`. `%x:2 = ...` yields `["x#0", "x#1"]`, the names
    /// by which later uses `%x#0`, `%x#1` refer to them.
    pub results: Vec<String>,
    /// SSA operand names without `%` (`x#1` for `%x#1`).
    pub operands: Vec<String>,
    /// Named attributes, both the custom-form ones the parser recognised (see
    /// [`Attr`]) and those in `{...}` / `<{...}>` dictionaries.
    /// Custom-form conventions:
    /// - `arith.cmpi slt, ...` / `arith.cmpf olt, ...`: `predicate = Attr::Str("slt")`
    /// - `tt.get_program_id x` / `tt.get_num_programs y`: `axis = Attr::Int(0|1|2)`
    /// - `arith.constant 4 : i32`, `arith.constant dense<...> : tensor<..>`:
    ///   `value = Attr::Scalar` / `Attr::Dense`
    /// - `tt.extern_elementwise`: its dictionary (`symbol = Attr::Str("__nv_tanhf")`, ...)
    /// - `tt.load`/`tt.store` keywords such as `cacheModifier = ca` go in as `Attr::Str`.
    pub attrs: BTreeMap<String, Attr>,
    pub regions: Vec<Region>,
    /// Branch targets for `cf.br` / `cf.cond_br`.
    pub successors: Vec<Successor>,
    pub result_types: Vec<Type>,
    /// Types of the operands where the printed form states them (may be empty).
    pub operand_types: Vec<Type>,
    /// Line of the op's first token in the .ttir file (1-based).
    pub line: u32,
    pub loc: Loc,
}

impl Op {
    pub fn attr(&self, name: &str) -> Option<&Attr> {
        self.attrs.get(name)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Successor {
    pub label: String,
    pub args: Vec<String>,
}

/// MLIR types as Triton uses them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Type {
    /// `i1`, `i8`, `i16`, `i32`, `i64`
    Int(u32),
    /// `index`
    Index,
    Float(FloatKind),
    /// `!tt.ptr<f32>` (the optional address space is dropped).
    Ptr(Box<Type>),
    /// `tensor<4x8xf32>`, `tensor<4x!tt.ptr<f32>>`
    Tensor {
        shape: Vec<i64>,
        elem: Box<Type>,
    },
    /// Anything else, kept verbatim (e.g. `!tt.tensordesc<...>`), so that an op using
    /// it can be reported by name rather than failing to parse.
    Other(String),
}

impl Type {
    /// The element type of a tensor, or the type itself for scalars.
    pub fn elem(&self) -> &Type {
        match self {
            Type::Tensor { elem, .. } => elem,
            t => t,
        }
    }

    /// The shape of a tensor, `[]` for scalars.
    pub fn shape(&self) -> &[i64] {
        match self {
            Type::Tensor { shape, .. } => shape,
            _ => &[],
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FloatKind {
    F16,
    BF16,
    F32,
    F64,
    /// `f8E4M3FN`, `f8E5M2`, ... — kept distinct only for printing.
    F8,
}

/// Attribute values.
#[derive(Clone, Debug, PartialEq)]
pub enum Attr {
    /// `4 : i32`, `true`, `1.000000e+00 : f32`, `0xFF800000 : f32`
    Scalar(Scalar),
    /// `dense<...> : tensor<...>`: a splat (one value) or every element row-major.
    Dense { values: Vec<Scalar>, ty: Type },
    /// `array<i32: 1, 0>` and `[1, 0]` lists of integers.
    Array(Vec<i64>),
    /// A bare integer kept for convenience (`axis = 1 : i32` is `Int(1)`).
    Int(i64),
    /// Strings and bare keywords: `"__nv_tanhf"`, `slt`, `tf32`, `ca`.
    Str(String),
    /// A unit attribute (`{foo}`) or `unit`.
    Unit,
    /// Anything else, kept as its source text.
    Other(String),
}

impl Attr {
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Attr::Int(i) => Some(*i),
            Attr::Scalar(Scalar::Int(i)) => Some(*i as i64),
            Attr::Scalar(Scalar::Bool(b)) => Some(*b as i64),
            _ => None,
        }
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Attr::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// A constant element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// Integers of any width (i1 constants printed as `true`/`false` are `Bool`).
    Int(i128),
    Bool(bool),
    /// A float constant, already rounded to its type (`1.000000e-01 : f32` is the f32
    /// nearest 0.1, widened exactly to f64; hex forms are decoded from their bit
    /// pattern of the type's width, so `0xFF800000 : f32` is -inf).
    Float(f64),
}

/// Where an op came from in the Python source, resolved through `#locN` aliases,
/// `callsite(callee at caller)` (the outermost caller is kept: the user's line, not
/// Triton's standard library) and named locations `"x"(...)` (the name is kept).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Loc {
    pub file: Option<Arc<str>>,
    pub line: u32,
    pub col: u32,
    /// The Python variable name Triton attached, if any.
    pub name: Option<String>,
}

impl fmt::Display for Loc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.file {
            Some(file) => write!(f, "{}:{}", file, self.line),
            None => write!(f, "<unknown>"),
        }
    }
}

impl fmt::Display for Type {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Type::Int(1) => write!(f, "i1"),
            Type::Int(b) => write!(f, "i{b}"),
            Type::Index => write!(f, "index"),
            Type::Float(k) => write!(f, "{k}"),
            Type::Ptr(t) => write!(f, "!tt.ptr<{t}>"),
            Type::Tensor { shape, elem } => {
                write!(f, "tensor<")?;
                for d in shape {
                    write!(f, "{d}x")?;
                }
                write!(f, "{elem}>")
            }
            Type::Other(s) => write!(f, "{s}"),
        }
    }
}

impl fmt::Display for FloatKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            FloatKind::F16 => "f16",
            FloatKind::BF16 => "bf16",
            FloatKind::F32 => "f32",
            FloatKind::F64 => "f64",
            FloatKind::F8 => "f8",
        };
        f.write_str(s)
    }
}
