//! The parsed form of a PTX module: entries, their parameters, declared variables and
//! one flat instruction list per entry (labels resolved to instruction indices,
//! registers resolved to slots, scoping blocks `{ }` flattened away, device-function
//! calls inlined by `ptx::calls`).
//!
//! Architecture invariant: plain data, no behaviour beyond small accessors.

use crate::triton_ir::ast::Loc;
use std::collections::BTreeMap;

/// A whole `.ptx` file.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// `.version`, e.g. "8.8".
    pub version: String,
    /// `.target` words, e.g. ["sm_80"].
    pub target: Vec<String>,
    pub address_size: u32,
    /// Module-scope variables (`.global`, `.shared`, `.const`).
    pub globals: Vec<VarDecl>,
    pub entries: Vec<Entry>,
    /// `.func` device functions (declared or defined), in order of first appearance;
    /// a function's address (`mov.u64 %rd, f;`, a pointer table's initializer) is
    /// `calls::FUNC_BASE + 16 * index`.
    pub funcs: Vec<Func>,
    /// `.file N "path"` table.
    pub files: BTreeMap<u32, String>,
}

impl Module {
    /// The entry named `name`, or the only entry when `name` is `None`.
    pub fn entry(&self, name: Option<&str>) -> Option<&Entry> {
        match name {
            Some(n) => self.entries.iter().find(|e| e.name == n),
            None => self.entries.first(),
        }
    }
}

/// A state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Global,
    Shared,
    Local,
    Param,
    Const,
}

/// A variable declaration (`.shared .align 4 .b8 name[512];`).
#[derive(Clone, Debug, PartialEq)]
pub struct VarDecl {
    pub space: Space,
    pub name: String,
    pub align: u64,
    /// Element type without the dot, e.g. "b8", "f32".
    pub ty: String,
    /// Size in bytes (0 for an unsized array).
    pub bytes: u64,
    /// Declared with an empty dimension (`.extern .shared .b8 smem[];`): dynamic shared
    /// memory, sized by the launch.
    pub dynamic: bool,
    pub line: u32,
    /// Initial bytes (`= {65, 144, ...}`), little-endian; `None` when uninitialised.
    pub init: Option<Vec<u8>>,
    /// Symbols in the initializer (`= {_Z2sqf, _Z3negf}`): byte offset and name,
    /// patched with function addresses once the module is parsed.
    pub relocs: Vec<(u64, String)>,
}

/// A `.func` parameter or return value, or one of a `.callprototype`'s.
#[derive(Clone, Debug, PartialEq)]
pub struct FParam {
    pub name: String,
    /// Type without the dot, e.g. "b32", "b8".
    pub ty: String,
    /// Size in bytes (an array `.b8 x[16]`: 16).
    pub bytes: u64,
    /// A `.reg` parameter: its register slot in the function's body.
    pub reg: Option<u32>,
}

/// A `.func` device function.
#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    pub line: u32,
    pub rets: Vec<FParam>,
    pub params: Vec<FParam>,
    /// The body, parsed like an entry's (its `params` empty); `None` for a
    /// declaration without a definition (`.extern .func vprintf`).
    pub body: Option<Entry>,
}

/// A kernel parameter.
#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    /// Type without the dot, e.g. "u64", "u32", "f32".
    pub ty: String,
    /// Declared `.ptr` (Triton).
    pub is_ptr: bool,
    /// Elements of an array parameter (`.param .align 8 .b8 p[24]`: a struct passed by
    /// value, whose fields the launch binds by byte offset).
    pub array: Option<u64>,
}

/// A `.entry` kernel.
#[derive(Clone, Debug)]
pub struct Entry {
    pub name: String,
    pub line: u32,
    pub params: Vec<Param>,
    pub reqntid: Option<[i64; 3]>,
    pub maxntid: Option<[i64; 3]>,
    /// `.reqnctapercluster x, y, z` (CUDA's `__cluster_dims__`): CTAs per cluster.
    pub cluster: Option<[i64; 3]>,
    /// `.shared`/`.local` variables declared in the body (or at module scope).
    pub vars: Vec<VarDecl>,
    /// Register slots: name and declared type (e.g. ("%r3", "b32")); inner-scope
    /// registers get their own slots even when their names repeat.
    pub regs: Vec<(String, String)>,
    pub body: Vec<Instr>,
    /// Label name → index of the instruction it precedes.
    pub labels: BTreeMap<String, usize>,
    /// `.callprototype` labels: (returns, parameters).
    pub protos: BTreeMap<String, (Vec<FParam>, Vec<FParam>)>,
    /// `.branchtargets` lists (`ts: .branchtargets L0, L1;`) for `brx.idx`.
    pub branch_targets: BTreeMap<String, Vec<String>>,
}

/// Special registers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    /// `%cluster_ctarank`: this CTA's rank in its cluster.
    ClusterCtaRank,
    /// `%cluster_nctarank`: CTAs per cluster.
    ClusterNCtaRank,
    /// `%clusterid.{x,y,z}`: the cluster's index in the grid.
    ClusterId(u8),
    /// `%nclusterid.{x,y,z}`.
    NClusterId(u8),
    /// `%cluster_ctaid.{x,y,z}` (the CTA's index in its cluster) and
    /// `%cluster_nctaid.{x,y,z}` (the cluster's dimensions).
    ClusterCtaId(u8),
    ClusterNCtaId(u8),
    /// `%globaltimer` (and `%globaltimer_lo`/`_hi`): time does not pass in the simulator.
    GlobalTimer,
}

/// One instruction operand.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    /// A register slot of the entry.
    Reg(u32),
    Special(Special),
    /// An integer immediate (two's complement in 64 bits).
    Imm(i64),
    /// A float immediate: `0fXXXXXXXX` (is_f64 = false) or `0dXXXXXXXXXXXXXXXX`.
    FBits {
        bits: u64,
        is_f64: bool,
    },
    /// A decimal float immediate (`1.5`).
    Float(f64),
    /// A variable, parameter or label name.
    Sym(String),
    /// `[base+offset]`.
    Mem {
        base: Box<Operand>,
        offset: i64,
    },
    /// `{a, b, ...}`.
    Vector(Vec<Operand>),
    /// `[tmap, {c0, c1, ...}]`: a TMA tensor map and the coordinates of a box.
    Tensor {
        map: Box<Operand>,
        coords: Vec<Operand>,
    },
    /// `%r|%p`: two destinations (shfl's value and predicate).
    Pair(Box<Operand>, Box<Operand>),
    /// `!%p` as an operand (negated predicate source).
    Not(Box<Operand>),
    /// `_` sink.
    Sink,
}

/// One instruction.
#[derive(Clone, Debug, PartialEq)]
pub struct Instr {
    /// `@%p` / `@!%p` guard: (negated, register slot).
    pub guard: Option<(bool, u32)>,
    /// Base opcode, e.g. "ld".
    pub op: String,
    /// Modifiers in order, without dots, e.g. ["global", "nc", "f32"].
    pub mods: Vec<String>,
    pub operands: Vec<Operand>,
    /// Line and column in the .ptx file.
    pub line: u32,
    pub col: u32,
    /// Source location: the caller's line for inlined code.
    pub loc: Loc,
    /// For inlined code, the inlined function's own line.
    pub inner: Option<Loc>,
}

impl Instr {
    /// The opcode with its modifiers, e.g. "ld.global.nc.f32".
    pub fn mnemonic(&self) -> String {
        let mut s = self.op.clone();
        for m in &self.mods {
            s.push('.');
            s.push_str(m);
        }
        s
    }

    /// Inlined: the modifier is a literal at every call, compared without a call.
    #[inline]
    pub fn has(&self, m: &str) -> bool {
        self.mods.iter().any(|x| x == m)
    }
}

/// Bytes of a scalar PTX type ("f32" → 4).
pub fn type_bytes(ty: &str) -> Option<u64> {
    // The executor asks this for every operand it reads or writes: a few byte tests,
    // not a string comparison per type name.
    let b = ty.as_bytes();
    let int_or_float = |k: u8| matches!(k, b'b' | b'u' | b's' | b'f');
    Some(match b {
        [k, b'8'] if matches!(k, b'b' | b'u' | b's') => 1,
        [k, b'1', b'6'] if int_or_float(*k) => 2,
        [k, b'3', b'2'] if int_or_float(*k) => 4,
        [k, b'6', b'4'] if int_or_float(*k) => 8,
        b"pred" => 1,
        b"bf16" => 2,
        b"tf32" | b"f16x2" | b"bf16x2" => 4,
        b"b128" => 16,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::type_bytes;

    /// Sizes from the PTX ISA's table of fundamental types; everything else is no type.
    #[test]
    fn type_bytes_knows_the_isa_types_and_nothing_else() {
        let isa: &[(&str, u64)] = &[
            ("b8", 1),
            ("u8", 1),
            ("s8", 1),
            ("pred", 1),
            ("b16", 2),
            ("u16", 2),
            ("s16", 2),
            ("f16", 2),
            ("bf16", 2),
            ("b32", 4),
            ("u32", 4),
            ("s32", 4),
            ("f32", 4),
            ("f16x2", 4),
            ("bf16x2", 4),
            ("tf32", 4),
            ("b64", 8),
            ("u64", 8),
            ("s64", 8),
            ("f64", 8),
            ("b128", 16),
        ];
        for &(ty, bytes) in isa {
            assert_eq!(type_bytes(ty), Some(bytes), "{ty}");
        }
        for ty in [
            "", "f8", "x16", "global", "rn", "s128", "u128", "f128", "b", "f3", "pred2",
        ] {
            assert_eq!(type_bytes(ty), None, "{ty}");
        }
    }
}
