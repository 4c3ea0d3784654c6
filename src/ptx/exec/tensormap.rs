//! TMA tensor maps that the kernel builds itself (as Triton emits them for
//! `tl.make_tensor_descriptor`) or the launch passes, and the tensor copies that read
//! them (`cp.async.bulk.tensor`).
//!
//! A tensor map is a 128-byte object whose encoding the PTX ISA leaves opaque; lift
//! keeps its fields ([`TensorMap`]): the global address, rank, and per dimension the
//! global size, byte stride, box size and element stride, then element type,
//! interleave, swizzle and out-of-bounds fill. The all-zero 128 bytes are the map whose
//! fields are all zero (Triton zeroes a shared template before writing its fields).
//!
//! - `tensormap.replace.tile.FIELD [map], (ord,) value` rewrites one field of the map
//!   at a shared (or global) address. In shared memory the map's bytes hold marker
//!   words naming the map version lift keeps, so that an ordinary store over them
//!   (zeroing the template again) is seen: bytes that are all zero are the zero map,
//!   bytes that are a version's markers that version, anything else is refused.
//! - `tensormap.cp_fenceproxy.global.shared::cta... [dst], [src], 128` copies the map
//!   to global memory (the kernel's global scratch, see [`SCRATCH_BASE`]), and
//!   `fence.proxy.tensormap::generic.acquire [dst], 128` by a thread that copied it
//!   makes it visible to the tensor-map proxy.
//! - `cp.async.bulk.tensor.Nd.shared.global.mbarrier::complete_tx::bytes [dst],
//!   [map, {c0, ...}], [mbar]` copies the box at coordinates `c` (innermost first)
//!   into shared memory, rows packed and XOR-swizzled as `wgmma` reads them
//!   ([`super::wgmma::swizzle`]), elements outside the global dims filled with zeros;
//!   the bytes are written by the issuing thread's copy agent and complete the box's
//!   byte count on the mbarrier, as `cp.async.bulk` does (see `mbarrier`).
//! - A map the host made and passes by value (a `__grid_constant__` parameter, as CuTe
//!   DSL passes its TMA atoms) is the launch's `tensormap` binding of that parameter
//!   (`launch_map`): written before the launch, so no copy or fence orders it.
//!
//! Invariant: a copy reads a map only when every copy of it into global memory and a
//! `fence.proxy.tensormap` acquire after one of them are ordered before the copy (a
//! missing fence or barrier is a finding); a map field lift cannot follow (interleave,
//! element strides other than 1, a swizzle narrower than the box row, a NaN fill that
//! is used, partial words out of bounds) is `Unsupported`, never guessed.

use super::race::Rec;
use super::*;

/// Where the global scratch buffers start: Triton's entries take two trailing pointers
/// the launch does not list (global and profile scratch); lift binds the `i`-th
/// unlisted trailing pointer to `SCRATCH_BASE + (i << 32)`. These addresses lie in no
/// tensor, so an ordinary load or store there is out of bounds; only tensor maps live
/// there.
pub(super) const SCRATCH_BASE: u64 = 0xf0 << 40;

/// The fields of one tensor map (PTX ISA "Tensor-map"); all zero in the zero map.
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct TensorMap {
    address: u64,
    /// The rank less one.
    rank: u64,
    box_dim: [u64; 5],
    global_dim: [u64; 5],
    /// The byte stride of dimension `i + 1` (dimension 0 is contiguous).
    global_stride: [u64; 4],
    element_stride: [u64; 5],
    elemtype: u64,
    interleave: u64,
    swizzle: u64,
    fill: u64,
    atomicity: u64,
}

/// A map copied into global memory: its fields, the copies that wrote them (the lanes
/// of a `cp_fenceproxy`) and the acquire fences of those lanes since.
struct Copied<V> {
    map: TensorMap,
    writes: Vec<Rec<V>>,
    fences: Vec<Rec<V>>,
}

/// The tensor maps of a run: versions written in the current CTA's shared memory, and
/// maps in global memory (kept across CTAs, like global memory).
pub(super) struct Maps<V> {
    versions: Vec<TensorMap>,
    global: HashMap<u64, Copied<V>>,
}

impl<V> Default for Maps<V> {
    fn default() -> Self {
        Maps {
            versions: Vec::new(),
            global: HashMap::new(),
        }
    }
}

impl<V> Maps<V> {
    /// A new CTA: its shared memory starts empty.
    pub(super) fn new_cta(&mut self) {
        self.versions.clear();
    }
}

/// The marker word `k` of shared map version `id`.
fn marker(id: usize, k: u64) -> u64 {
    0xa000_0000 | ((id as u64 & 0x7f_ffff) << 5) | k
}

/// Bytes of an element of tensor-map element type `t` (PTX ISA: u8, u16, u32, s32,
/// u64, s64, f16, f32, f32.ftz, f64, bf16, tf32, tf32.ftz).
fn elem_bytes(t: u64) -> Option<u64> {
    Some(match t {
        0 => 1,
        1 | 6 | 10 => 2,
        2 | 3 | 7 | 8 | 11 | 12 => 4,
        4 | 5 | 9 => 8,
        _ => return None,
    })
}

impl<'a, D: Domain> Sim<'a, D> {
    /// An immediate or register operand as an unsigned integer of `ty`.
    fn tm_int(
        &mut self,
        t: usize,
        op: Option<&Operand>,
        ty: &str,
        what: &str,
    ) -> Result<u64, Fail> {
        let Some(op) = op else {
            return fail(ErrorKind::Malformed, format!("expected {what}"));
        };
        let v = self.read(t, op, ty)?;
        self.int(v, ty)
    }

    /// The address of a tensor-map operand `[map]`.
    fn tm_addr(&mut self, t: usize, op: Option<&Operand>) -> Result<u64, Fail> {
        let Some(op) = op else {
            return fail(ErrorKind::Malformed, "expected a tensor map address [map]");
        };
        match self.address(t, op)? {
            Addr::At(a) if a % 64 == 0 => Ok(a),
            Addr::At(a) => fail(
                ErrorKind::Malformed,
                format!("tensor map at {a:#x}, not 64-byte aligned (undefined behaviour)"),
            ),
            _ => unsupported("a tensor map at a data-dependent or parameter address"),
        }
    }

    /// The map the 128 shared bytes at `a` hold.
    fn shared_map(&self, a: u64) -> Result<TensorMap, Fail> {
        let mut words = Vec::with_capacity(32);
        for k in 0..32 {
            match self.shared.get(&(a + 4 * k)) {
                Some((Val::Bits(x), 4)) => words.push(*x),
                None => {
                    return fail(
                        ErrorKind::NeverWritten,
                        format!(
                            "tensor map at {}: byte {} was never written",
                            self.shared_name(a),
                            4 * k
                        ),
                    )
                }
                Some(_) => {
                    return unsupported(format!(
                        "a tensor map at {} whose bytes lift cannot decode",
                        self.shared_name(a)
                    ))
                }
            }
        }
        if words.iter().all(|&w| w == 0) {
            return Ok(TensorMap::default());
        }
        let id = ((words[0] >> 5) & 0x7f_ffff) as usize;
        match self.tmaps.versions.get(id) {
            Some(m) if (0..32).all(|k| words[k as usize] == marker(id, k)) => Ok(m.clone()),
            _ => unsupported(format!(
                "a tensor map at {} whose bytes were partly overwritten",
                self.shared_name(a)
            )),
        }
    }

    /// Write map `m` into the 128 shared bytes at `a` as a new version's markers.
    fn put_shared_map(&mut self, a: u64, m: TensorMap) {
        let id = self.tmaps.versions.len();
        self.tmaps.versions.push(m);
        for k in 0..32 {
            self.shared.insert(a + 4 * k, (Val::Bits(marker(id, k)), 4));
        }
    }

    /// `tensormap.*`: `replace` of a field, or the `cp_fenceproxy` copy to global memory.
    pub(super) fn tensormap(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        if self.path.is_some() {
            return unsupported(format!("{} under a data-dependent branch", ins.mnemonic()));
        }
        self.effect(t);
        match ins.mods.first().map(String::as_str) {
            Some("replace") => self.tensormap_replace(t, pc, ins),
            Some("cp_fenceproxy") => self.tensormap_copy(t, pc, ins),
            _ => unsupported(format!("unsupported: {}", ins.mnemonic())),
        }
    }

    fn tensormap_replace(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        if !ins.has("tile") || !ins.has("b1024") {
            return unsupported(format!("unsupported: {}", ins.mnemonic()));
        }
        let shared = ins.has("shared::cta");
        if !shared && !ins.has("global") {
            return unsupported(format!("{} in another state space", ins.mnemonic()));
        }
        let ty = if ins.has("b64") { "b64" } else { "b32" };
        let ops = &ins.operands;
        let a = self.tm_addr(t, ops.first())?;
        let mut m = if shared {
            self.log_shared(t, pc, a, 128, true)?;
            self.shared_map(a)?
        } else {
            match self.tmaps.global.get(&a) {
                Some(c) => c.map.clone(),
                None => {
                    return unsupported(format!(
                        "tensormap.replace on global bytes at {a:#x} that hold no tensor map lift built"
                    ))
                }
            }
        };
        let field = ins.mods.get(2).map_or("", String::as_str);
        let ordered = matches!(
            field,
            "box_dim" | "global_dim" | "global_stride" | "element_stride"
        );
        let ord = if ordered {
            let o = self.tm_int(t, ops.get(1), "b32", "a dimension")? as usize;
            let dims = if field == "global_stride" { 4 } else { 5 };
            if o >= dims {
                return fail(
                    ErrorKind::Malformed,
                    format!(
                        "tensormap.replace.{field} of dimension {o} (at most {})",
                        dims - 1
                    ),
                );
            }
            o
        } else {
            0
        };
        let v = self.tm_int(t, ops.get(if ordered { 2 } else { 1 }), ty, "a new value")?;
        match field {
            "global_address" => m.address = v,
            "rank" => m.rank = v,
            "box_dim" => m.box_dim[ord] = v,
            "global_dim" => m.global_dim[ord] = v,
            "global_stride" => m.global_stride[ord] = v,
            "element_stride" => m.element_stride[ord] = v,
            "elemtype" => m.elemtype = v,
            "interleave_layout" => m.interleave = v,
            "swizzle_mode" => m.swizzle = v,
            "fill_mode" => m.fill = v,
            "swizzle_atomicity" => m.atomicity = v,
            f => return unsupported(format!("tensormap.replace of field `{f}`")),
        }
        if shared {
            self.put_shared_map(a, m);
        } else {
            let r = self.rec(t, pc, a, 128, true);
            self.tmaps.global.insert(
                a,
                Copied {
                    map: m,
                    writes: vec![r],
                    fences: Vec::new(),
                },
            );
        }
        Ok(())
    }

    /// `tensormap.cp_fenceproxy.global.shared::cta.tensormap::generic.release.gpu
    /// .sync.aligned [dst], [src], 128`: each lane copies the map (the same one).
    fn tensormap_copy(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        if !ins.has("global") || !ins.has("shared::cta") || !ins.has("release") {
            return unsupported(format!("unsupported: {}", ins.mnemonic()));
        }
        let ops = &ins.operands;
        let dst = self.tm_addr(t, ops.first())?;
        let src = self.tm_addr(t, ops.get(1))?;
        let size = self.tm_int(t, ops.get(2), "u32", "the size 128")?;
        if size != 128 {
            return fail(
                ErrorKind::Malformed,
                format!("tensormap.cp_fenceproxy of {size} bytes (a tensor map has 128)"),
            );
        }
        self.log_shared(t, pc, src, 128, false)?;
        let m = self.shared_map(src)?;
        let r = self.rec(t, pc, dst, 128, true);
        let old = self
            .tmaps
            .global
            .get(&dst)
            .map(|c| (c.map == m, c.writes.clone()));
        match old {
            Some((true, _)) => {
                // The same map: other CTAs' copies of it (one map every CTA writes)
                // leave the bytes as they are.
                let cta = self.cta;
                if let Some(c) = self.tmaps.global.get_mut(&dst) {
                    c.writes.retain(|w| w.cta == cta);
                    c.fences.retain(|f| f.cta == cta);
                    c.writes.push(r);
                }
            }
            old => {
                // A different map over one not ordered before it: which one a tensor
                // copy reads depends on timing.
                let writes = old.map(|(_, w)| w).unwrap_or_default();
                if let Some(w) = writes.iter().find(|w| !self.ordered(w, t)) {
                    let m = format!(
                        "data race on the tensor map at global {dst:#x}: {} and {} write different maps, unordered",
                        self.describe(w),
                        self.describe(&r)
                    );
                    return fail(ErrorKind::Race, m);
                }
                self.tmaps.global.insert(
                    dst,
                    Copied {
                        map: m,
                        writes: vec![r],
                        fences: Vec::new(),
                    },
                );
            }
        }
        Ok(())
    }

    /// `fence.proxy.tensormap::generic.acquire.SCOPE [map], 128`: the thread's own copy of
    /// the map is visible to the tensor-map proxy after it.
    pub(super) fn tensormap_fence(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        if ins.has("release") {
            return Ok(()); // orders this thread's earlier generic writes; none are tracked
        }
        if !ins.has("acquire") {
            return unsupported(format!("unsupported: {}", ins.mnemonic()));
        }
        let a = self.tm_addr(t, ins.operands.first())?;
        let r = self.rec(t, pc, a, 128, false);
        if let Some(c) = self.tmaps.global.get_mut(&a) {
            if c.writes.iter().any(|w| w.thread == t) {
                c.fences.push(r);
            }
        }
        Ok(())
    }

    /// `cp.async.bulk.commit_group` / `wait_group(.read) N`: bulk async-groups hold only
    /// bulk copies out of shared memory, which lift refuses, so they are always empty.
    pub(super) fn bulk_group(&mut self, ins: &Instr) -> Result<(), Fail> {
        if ins.has("commit_group") || ins.has("wait_group") {
            return Ok(());
        }
        unsupported(format!("unsupported: {}", ins.mnemonic()))
    }

    /// The map a tensor copy of thread `t` reads at global `a`, checked to be ordered
    /// before it.
    fn map_for_copy(&mut self, t: usize, a: u64) -> Result<TensorMap, Fail> {
        let Some(c) = self.tmaps.global.get(&a) else {
            if (PARAM_BASE..PARAM_BASE << 1).contains(&a) {
                return self.launch_map(a - PARAM_BASE);
            }
            return fail(
                ErrorKind::Malformed,
                format!("cp.async.bulk.tensor reads no tensor map at {a:#x}"),
            );
        };
        if let Some(w) = c.writes.iter().find(|w| !self.ordered(w, t)) {
            return fail(
                ErrorKind::Race,
                format!(
                    "data race on the tensor map at global {a:#x}: its copy {} is not ordered before the tensor copy that reads it",
                    self.describe(w)
                ),
            );
        }
        if !c.fences.iter().any(|f| self.ordered(f, t)) {
            let w = self.describe(&c.writes[0]);
            return fail(
                ErrorKind::Race,
                format!(
                    "the tensor map at global {a:#x}, written by {w}, is read by a tensor copy with no fence.proxy.tensormap::generic.acquire after the write ordered before it (the tensor-map proxy may see stale bytes)"
                ),
            );
        }
        Ok(c.map.clone())
    }

    /// The tensor map the launch passes by value as the kernel parameter at byte `at`
    /// of the parameter space (`p = { tensormap = ... }`): its tensor's address, dims
    /// (innermost first) and compact row-major strides, the launch's box and swizzle.
    /// The host wrote it before the launch, so no copy or fence of the kernel's orders it.
    fn launch_map(&self, at: u64) -> Result<TensorMap, Fail> {
        let i = (at >> PARAM_SHIFT) as usize;
        let key = self.entry.params.get(i).and_then(|p| {
            [p.name.clone(), format!("param_{i}")]
                .into_iter()
                .find(|k| self.inst.tensormaps.contains_key(k))
        });
        let (Some(key), 0) = (key, at & ((1 << PARAM_SHIFT) - 1)) else {
            return unsupported(
                "unsupported: cp.async.bulk.tensor through a kernel parameter the launch does \
                 not bind as a tensor map (give it as `p = { tensormap = { tensor = ..., \
                 shape = [...], box = [...], swizzle = ... } }`)",
            );
        };
        let Some(&ArgValue::Tensor(ti)) = self.inst.args.get(&key) else {
            return fail(
                ErrorKind::Launch,
                format!("tensor map `{key}` maps no tensor"),
            );
        };
        let (decl, bx) = (&self.inst.tensors[ti], &self.inst.tensormaps[&key]);
        let elemtype = match decl.dtype.name() {
            "float16" => 6,
            "float32" => 7,
            "bfloat16" => 10,
            d => return unsupported(format!("a tensor map of {d} elements (`{key}`)")),
        };
        let mut m = TensorMap {
            address: ((ti as u64) + 1) << TENSOR_SHIFT,
            rank: decl.shape.len() as u64 - 1,
            elemtype,
            swizzle: match bx.swizzle {
                0 => 0,
                32 => 1,
                64 => 2,
                _ => 3,
            },
            ..TensorMap::default()
        };
        let mut stride = elem_bytes(elemtype).unwrap_or(1);
        for (d, (&dim, &b)) in decl.shape.iter().zip(&bx.box_dim).rev().enumerate() {
            if d > 0 {
                m.global_stride[d - 1] = stride;
            }
            stride *= dim as u64;
            m.global_dim[d] = dim as u64;
            m.box_dim[d] = b;
            m.element_stride[d] = 1;
        }
        Ok(m)
    }

    /// `cp.async.bulk.tensor.Nd.shared::{cta,cluster}.global.mbarrier::complete_tx::bytes
    /// {.multicast::cluster} [dst], [map, {c0, ...}], [mbar]{, ctaMask}`: the box at the
    /// coordinates, written by thread `t`'s copy agent at issue and completed on the
    /// mbarrier (with a mask, in every CTA of it: `cluster::deliver`).
    pub(super) fn tensor_copy(&mut self, t: usize, pc: usize, ins: &Instr) -> Result<(), Fail> {
        self.synced = true;
        let shared_pos = ins.mods.iter().position(|m| m.starts_with("shared"));
        let global_pos = ins.mods.iter().position(|m| m == "global");
        let multicast = ins.has("multicast::cluster");
        let plain = shared_pos.zip(global_pos).is_some_and(|(s, g)| s < g)
            && ins
                .mods
                .iter()
                .any(|m| m.starts_with("mbarrier::complete_tx"))
            && !ins.mods.iter().any(|m| {
                (m.starts_with("multicast") && !multicast)
                    || m.starts_with("im2col")
                    || m.starts_with("cta_group")
                    || (m.starts_with("L2") && m != "L2::cache_hint")
            });
        let ops = &ins.operands;
        // `.L2::cache_hint` adds the cache-policy operand (after the CTA mask of a
        // multicast): a hint that changes no value.
        let n_ops = 3 + usize::from(multicast) + usize::from(ins.has("L2::cache_hint"));
        if !plain || ops.len() != n_ops {
            return unsupported(format!(
                "unsupported: {} (lift models tile-mode tensor copies from global to shared \
                 memory completing on an mbarrier, multicast to the cluster or not)",
                ins.mnemonic()
            ));
        }
        let rank = ins
            .mods
            .iter()
            .find_map(|m| m.strip_suffix('d').and_then(|d| d.parse::<usize>().ok()))
            .filter(|r| (1..=5).contains(r));
        let Some(rank) = rank else {
            return fail(
                ErrorKind::Malformed,
                "cp.async.bulk.tensor needs .1d to .5d",
            );
        };
        let Operand::Tensor { map, coords } = &ops[1] else {
            return fail(
                ErrorKind::Malformed,
                "cp.async.bulk.tensor needs [map, {coordinates}] as its source",
            );
        };
        if coords.len() != rank {
            return fail(
                ErrorKind::Malformed,
                format!("{} coordinates for a {rank}-d tensor copy", coords.len()),
            );
        }
        let Addr::At(dst) = self.address(t, &ops[0])? else {
            return unsupported("cp.async.bulk.tensor at a data-dependent or parameter address");
        };
        let a = match self.read(t, map, "u64")? {
            Val::Bits(a) => a,
            _ => return unsupported("a tensor map at a data-dependent address"),
        };
        let m = self.map_for_copy(t, a)?;
        let mut c = Vec::with_capacity(rank);
        for op in coords {
            let v = self.read(t, op, "s32")?;
            c.push(self.int(v, "s32")? as u32 as i32 as i64);
        }
        let geo = Geometry::of(&m, rank)?;
        if dst % 128 != 0 {
            return fail(
                ErrorKind::Malformed,
                format!("cp.async.bulk.tensor destination {dst:#x} is not 128-byte aligned"),
            );
        }
        let dst = self.copy_destination(t, dst, multicast)?;
        let rows: u64 = m.box_dim[1..rank].iter().product();
        let mut words = Vec::with_capacity((rows * geo.row_bytes / 4) as usize);
        for row in 0..rows {
            // The row's index in each outer dimension (dimension 1 fastest).
            let mut rest = row;
            let mut outer_in = true;
            let mut from = m.address as i64;
            for d in 1..rank {
                let i = (rest % m.box_dim[d]) as i64;
                rest /= m.box_dim[d];
                let x = c[d] + i;
                outer_in &= x >= 0 && x < m.global_dim[d] as i64;
                from += x * m.global_stride[d - 1] as i64;
            }
            for w in 0..geo.row_bytes / 4 {
                let byte = c[0] * geo.elem as i64 + 4 * w as i64;
                let inner = geo.elem as i64 * m.global_dim[0] as i64;
                let inside = outer_in && byte >= 0 && byte + 4 <= inner;
                let outside = !outer_in || byte + 4 <= 0 || byte >= inner;
                let v = if inside {
                    self.load_one(t, pc, (from + byte) as u64, 4, Some(Space::Global), "b32")?
                } else if outside && m.fill == 0 {
                    Val::Bits(0)
                } else {
                    return unsupported(format!(
                        "a tensor copy whose box is partly outside the tensor within a 32-bit word, or filled with NaN (fill mode {})",
                        m.fill
                    ));
                };
                let to = super::wgmma::swizzle(dst + row * geo.row_bytes + 4 * w, geo.swizzle_bits);
                words.push((to, v));
            }
        }
        self.deliver(t, pc, &words, ops.get(2), ops.get(3).filter(|_| multicast))
    }
}

/// What a tensor copy needs of a map, checked.
struct Geometry {
    elem: u64,
    row_bytes: u64,
    swizzle_bits: u32,
}

impl Geometry {
    fn of(m: &TensorMap, rank: usize) -> Result<Geometry, Fail> {
        if m.rank as usize + 1 != rank {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "a {rank}-d tensor copy through a tensor map of rank {}",
                    m.rank + 1
                ),
            );
        }
        let Some(elem) = elem_bytes(m.elemtype) else {
            return unsupported(format!("tensor map element type {}", m.elemtype));
        };
        if m.interleave != 0 || m.element_stride[..rank].iter().any(|&s| s != 1) {
            return unsupported("a tensor map with interleave or element strides other than 1");
        }
        if m.box_dim[..rank].iter().any(|&b| b == 0 || b > 256)
            || m.global_dim[..rank].iter().any(|&d| d == 0)
        {
            return fail(
                ErrorKind::Malformed,
                format!(
                    "tensor map box {:?} or global dims {:?}: each must be 1..=256 and positive",
                    &m.box_dim[..rank],
                    &m.global_dim[..rank]
                ),
            );
        }
        if m.address % 16 != 0 || m.global_stride[..rank - 1].iter().any(|s| s % 16 != 0) {
            return fail(
                ErrorKind::Malformed,
                "tensor map global address and strides must be multiples of 16 bytes",
            );
        }
        let row_bytes = m.box_dim[0] * elem;
        if row_bytes % 16 != 0 {
            return fail(
                ErrorKind::Malformed,
                format!("tensor map box rows of {row_bytes} bytes (a multiple of 16 is needed)"),
            );
        }
        let swizzle_bits = match m.swizzle {
            0 => 0,
            s @ 1..=3 => {
                if row_bytes != 16 << s {
                    return unsupported(format!(
                        "a {}-byte swizzle on box rows of {row_bytes} bytes",
                        16 << s
                    ));
                }
                s as u32
            }
            s => return unsupported(format!("tensor map swizzle mode {s}")),
        };
        if m.atomicity != 0 {
            return unsupported("a tensor map with a swizzle atomicity");
        }
        Ok(Geometry {
            elem,
            row_bytes,
            swizzle_bits,
        })
    }
}
