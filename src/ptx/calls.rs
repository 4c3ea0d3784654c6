//! Device-function calls, inlined into each entry right after parsing, so that the
//! simulator only ever sees one flat instruction list per entry.
//!
//! A `call` is replaced by the callee's body: its registers get fresh slots of the
//! entry, its labels a suffix unique to the call, its `.local`/`.shared` variables a
//! name unique to the function (activations of one function never overlap, since
//! recursion is refused), and its `ret` a branch to the end of the copy. The `.param`
//! space of a call is moved into registers: each `st.param` into a call-site block
//! (or a callee's return value) writes a register per byte offset, and each
//! `ld.param` from it reads that register back (`mov`, or an integer `cvt` where the
//! read is narrower or sign-extends), so values keep their register form (sums, load
//! tags, data-dependent branches) across the call.
//!
//! A pure function with a loop (no effect beyond its locals and return values, such
//! as NVRTC's `__internal_trig_reduction_slowpathd`, whose loop runs a data-dependent
//! number of times) is preceded by a `call.pure` marker: at run time, where its
//! arguments are not all constants, the simulator writes each return value as an
//! opaque function of the arguments and skips the body (`Sim::pure_call`). The
//! opaque name carries a fingerprint of the function's code and of the module's
//! initialised tables, so only identical code gives an identical term (what the libm
//! probes compare); decide reads nothing into an opaque value.
//!
//! A call through a function pointer (`call (r), %rd, (a), prototype;`) becomes a
//! comparison of the pointer with the address of every function of the module whose
//! signature matches the prototype, each branching to its own inlined copy; a pointer
//! that is none of them reaches the original `call`, which the simulator reports as
//! unsupported, naming it. A function's address is `FUNC_BASE + 16 * index` (outside
//! every tensor and variable, so using it as data address is out of bounds).
//!
//! Invariant: never panics; recursion (direct, mutual, or through a matching
//! pointer) is a `ParseError` at the call naming the cycle; an entry without calls
//! comes out unchanged.

use super::ast::type_bytes;
use super::ast::*;
use super::error::ParseError;
use std::collections::{BTreeMap, HashMap};

/// Address of the first `.func`.
pub const FUNC_BASE: u64 = 0x7f00_0000_0000_0000;

/// Most instructions an entry may have once its calls are inlined.
const MAX_INLINED: usize = 2_000_000;

fn func_addr(i: usize) -> u64 {
    FUNC_BASE + 16 * i as u64
}

/// Patch function-pointer tables and inline every call of every entry.
pub(super) fn inline(module: &mut Module) -> Result<(), ParseError> {
    let index: HashMap<String, usize> = module
        .funcs
        .iter()
        .enumerate()
        .map(|(i, f)| (f.name.clone(), i))
        .collect();
    for v in &mut module.globals {
        if v.relocs.is_empty() {
            continue;
        }
        // A symbol that is no function (another variable's address): as before calls
        // were read, the initializer is not kept.
        let all_funcs = v.relocs.iter().all(|(_, n)| index.contains_key(n));
        match (&mut v.init, all_funcs) {
            (Some(bytes), true) => {
                for (off, n) in &v.relocs {
                    let a = func_addr(index[n]).to_le_bytes();
                    if let Some(dst) = bytes.get_mut(*off as usize..*off as usize + 8) {
                        dst.copy_from_slice(&a);
                    }
                }
            }
            _ => v.init = None,
        }
    }
    let cx = Cx {
        funcs: &module.funcs,
        index: &index,
        globals: &module.globals,
    };
    for e in &mut module.entries {
        let src = e.clone();
        let mut out = Out {
            body: Vec::new(),
            labels: BTreeMap::new(),
            regs: src.regs.clone(),
            vars: src.vars.clone(),
            pieces: HashMap::new(),
            fresh: 0,
            unrun: Vec::new(),
        };
        let frame = Frame {
            src: &src,
            base: 0,
            tag: String::new(),
            formals: HashMap::new(),
            ret_label: None,
            vars: HashMap::new(),
        };
        cx.emit(&mut out, &frame, &mut Vec::new())?;
        e.body = out.body;
        e.labels = out.labels;
        e.regs = out.regs;
        e.vars = out.vars;
    }
    Ok(())
}

struct Cx<'m> {
    funcs: &'m [Func],
    index: &'m HashMap<String, usize>,
    globals: &'m [VarDecl],
}

/// Instructions a pure function may not contain (effects beyond its own locals and
/// return values, or thread-dependent results).
const IMPURE: &[&str] = &[
    "atom",
    "red",
    "bar",
    "barrier",
    "membar",
    "fence",
    "shfl",
    "vote",
    "match",
    "redux",
    "activemask",
    "cp",
    "ldmatrix",
    "stmatrix",
    "trap",
    "exit",
    "mma",
    "wmma",
    "tex",
    "tld4",
    "suld",
    "sust",
    "sured",
    "mbarrier",
    "tensormap",
    "cp.async",
    "griddepcontrol",
    "nanosleep",
    "brx",
];

/// FNV-1a, stable across processes (a fingerprint compared between modules).
fn fnv(h: &mut u64, bytes: &[u8]) {
    for b in bytes {
        *h ^= *b as u64;
        *h = h.wrapping_mul(0x100_0000_01b3);
    }
}

/// The entry being built.
struct Out {
    body: Vec<Instr>,
    labels: BTreeMap<String, usize>,
    regs: Vec<(String, String)>,
    vars: Vec<VarDecl>,
    /// (call-site `.param` name, byte offset) → the register holding it, its type.
    pieces: HashMap<(String, i64), (u32, String)>,
    /// Inlined copies so far (label suffixes).
    fresh: usize,
    /// Return blocks of calls left to the simulator (no body): read as they are, after
    /// the call that fails first.
    unrun: Vec<String>,
}

/// One body being copied: the entry itself or an inlined function.
struct Frame<'f> {
    src: &'f Entry,
    /// Its register slots start here in the entry.
    base: u32,
    /// Suffix of its labels.
    tag: String,
    /// The callee's `.param` parameter and return names → the caller's call-site
    /// `.param` names.
    formals: HashMap<String, String>,
    /// Where its `ret` goes (`None`: the entry, where `ret` ends the thread).
    ret_label: Option<String>,
    /// Its variables' names in the entry.
    vars: HashMap<String, String>,
}

fn error(ins: &Instr, message: String) -> ParseError {
    ParseError {
        line: ins.line,
        col: ins.col,
        message,
    }
}

/// A new instruction at `at`'s place in the text.
fn made(at: &Instr, op: &str, mods: &[&str], operands: Vec<Operand>) -> Instr {
    Instr {
        guard: None,
        op: op.to_string(),
        mods: mods.iter().map(|m| m.to_string()).collect(),
        operands,
        line: at.line,
        col: at.col,
        loc: at.loc.clone(),
        inner: at.inner.clone(),
    }
}

fn bra(at: &Instr, label: &str, guard: Option<(bool, u32)>) -> Instr {
    let mut b = made(at, "bra", &[], vec![Operand::Sym(label.to_string())]);
    b.guard = guard;
    b
}

fn is_int(ty: &str) -> bool {
    matches!(ty.chars().next(), Some('b' | 'u' | 's')) && type_bytes(ty).is_some()
}

impl Cx<'_> {
    /// Whether function `fi` (and every function it calls) only reads its arguments,
    /// constant tables and input memory, and writes only its locals and returns.
    /// `memo`: each function's answer (`None` while being worked out: a cycle is not
    /// pure), so a call graph with shared callees costs its size.
    fn pure(&self, fi: usize, memo: &mut HashMap<usize, Option<bool>>) -> bool {
        let Some(body) = &self.funcs[fi].body else {
            return false;
        };
        if let Some(known) = memo.get(&fi) {
            return known.unwrap_or(false);
        }
        memo.insert(fi, None);
        let special = |o: &Operand| matches!(o, Operand::Special(_));
        let ok = body.body.iter().all(|i| {
            let op = i.op.as_str();
            if IMPURE.contains(&op) || i.operands.iter().any(special) {
                return false;
            }
            match op {
                "st" => i.has("param") || i.has("local"),
                // Read-only memory only: kernel-constant tables, `.nc` inputs.
                "ld" | "ldu" => i.has("param") || i.has("local") || i.has("const") || i.has("nc"),
                "call" => match i.operands.get(1) {
                    Some(Operand::Sym(n)) => self
                        .index
                        .get(n.as_str())
                        .is_some_and(|&g| self.pure(g, memo)),
                    _ => false,
                },
                _ => true,
            }
        });
        memo.insert(fi, Some(ok));
        ok
    }

    /// Whether function `fi` or one it calls has a backward branch.
    /// `seen`: functions already looked at (each once).
    fn has_loop(&self, fi: usize, seen: &mut Vec<bool>) -> bool {
        let Some(body) = &self.funcs[fi].body else {
            return false;
        };
        if std::mem::replace(&mut seen[fi], true) {
            return false;
        }
        body.body.iter().enumerate().any(|(k, i)| {
            match (i.op.as_str(), i.operands.get(1), i.operands.first()) {
                ("bra", _, Some(Operand::Sym(l))) => body.labels.get(l).is_some_and(|&to| to <= k),
                ("call", Some(Operand::Sym(n)), _) => self
                    .index
                    .get(n.as_str())
                    .is_some_and(|&g| self.has_loop(g, seen)),
                _ => false,
            }
        })
    }

    /// The function's code (without its place in the file), the code of the functions
    /// it calls, and the module's initialised variables, hashed.
    /// Each function hashed once, in call order (`seen`).
    fn fingerprint(&self, fi: usize, h: &mut u64, seen: &mut Vec<bool>) {
        let Some(body) = &self.funcs[fi].body else {
            return;
        };
        let top = !seen.iter().any(|&b| b);
        if std::mem::replace(&mut seen[fi], true) {
            return;
        }
        fnv(h, self.funcs[fi].name.as_bytes());
        for i in &body.body {
            let text = format!("{:?}{}{:?};", i.guard, i.mnemonic(), i.operands);
            fnv(h, text.as_bytes());
            if let (true, Some(Operand::Sym(n))) = (i.op == "call", i.operands.get(1)) {
                if let Some(&g) = self.index.get(n.as_str()) {
                    self.fingerprint(g, h, seen);
                }
            }
        }
        fnv(h, format!("{:?}{:?}", body.labels, body.regs).as_bytes());
        for v in &body.vars {
            // Not its line: the same code elsewhere in another file is the same code.
            let text = format!(
                "{}{:?}{}{}{}{:?}",
                v.name, v.space, v.ty, v.bytes, v.align, v.init
            );
            fnv(h, text.as_bytes());
        }
        if top {
            for v in self.globals.iter().filter(|v| v.init.is_some()) {
                fnv(h, format!("{}{:?}", v.name, v.init).as_bytes());
            }
        }
    }

    fn emit(&self, out: &mut Out, frame: &Frame, stack: &mut Vec<usize>) -> Result<(), ParseError> {
        let mut at: BTreeMap<usize, Vec<&String>> = BTreeMap::new();
        for (name, &i) in &frame.src.labels {
            at.entry(i).or_default().push(name);
        }
        let place = |out: &mut Out, i: usize| {
            for name in at.get(&i).into_iter().flatten() {
                out.labels
                    .insert(format!("{name}{}", frame.tag), out.body.len());
            }
        };
        for (i, ins) in frame.src.body.iter().enumerate() {
            place(out, i);
            let ins = self.rename(ins, frame);
            match ins.op.as_str() {
                "call" => self.call(out, frame, stack, &ins)?,
                "ret" if frame.ret_label.is_some() => {
                    let to = frame.ret_label.clone().unwrap_or_default();
                    out.body.push(bra(&ins, &to, ins.guard));
                }
                "ld" if ins.has("param") => param_load(out, frame, ins)?,
                "st" if ins.has("param") => param_store(out, frame, ins)?,
                _ => out.body.push(ins),
            }
            if out.body.len() > MAX_INLINED {
                return Err(error(
                    &frame.src.body[i],
                    format!("more than {MAX_INLINED} instructions once calls are inlined"),
                ));
            }
        }
        place(out, frame.src.body.len());
        Ok(())
    }

    /// Registers moved to the frame's slots, labels and variables to their entry
    /// names, function names (not a call's target) to their addresses.
    fn rename(&self, ins: &Instr, frame: &Frame) -> Instr {
        let mut ins = ins.clone();
        if let Some((_, s)) = &mut ins.guard {
            *s += frame.base;
        }
        let is_bra = ins.op == "bra" || ins.op == "brx";
        let is_call = ins.op == "call";
        for (k, o) in ins.operands.iter_mut().enumerate() {
            let keep_fn = is_call && k == 1;
            self.rename_operand(o, frame, is_bra, keep_fn);
        }
        ins
    }

    fn rename_operand(&self, o: &mut Operand, frame: &Frame, label: bool, keep_fn: bool) {
        match o {
            Operand::Reg(s) => *s += frame.base,
            Operand::Sym(name) if label => name.push_str(&frame.tag),
            Operand::Sym(name) => {
                if let Some(n) = frame.vars.get(name.as_str()) {
                    *name = n.clone();
                } else if let (Some(&i), false) = (self.index.get(name.as_str()), keep_fn) {
                    *o = Operand::Imm(func_addr(i) as i64);
                }
            }
            Operand::Mem { base, .. } => self.rename_operand(base, frame, false, false),
            Operand::Vector(xs) => {
                for x in xs {
                    self.rename_operand(x, frame, false, false);
                }
            }
            Operand::Pair(a, b) => {
                self.rename_operand(a, frame, false, false);
                self.rename_operand(b, frame, false, false);
            }
            Operand::Not(a) => self.rename_operand(a, frame, false, false),
            Operand::Tensor { map, coords } => {
                self.rename_operand(map, frame, false, false);
                for x in coords {
                    self.rename_operand(x, frame, false, false);
                }
            }
            _ => {}
        }
    }

    fn call(
        &self,
        out: &mut Out,
        frame: &Frame,
        stack: &mut Vec<usize>,
        ins: &Instr,
    ) -> Result<(), ParseError> {
        let (rets, target, args, proto) = match &ins.operands[..] {
            [Operand::Vector(r), t, Operand::Vector(a)] => (r, t, a, None),
            [Operand::Vector(r), t, Operand::Vector(a), Operand::Sym(p)] => (r, t, a, Some(p)),
            _ => return Err(error(ins, "expected call's operands".into())),
        };
        // A guarded call: skip it when the guard is off.
        let skip = ins.guard.map(|(neg, slot)| {
            let l = format!("$skip{}#{}", frame.tag, out.fresh);
            out.fresh += 1;
            out.body.push(bra(ins, &l, Some((!neg, slot))));
            l
        });
        match target {
            Operand::Sym(name) => {
                let Some(&fi) = self.index.get(name.as_str()) else {
                    return Err(error(
                        ins,
                        format!(
                            "expected a .func of this module as the call target, found '{name}'"
                        ),
                    ));
                };
                if self.funcs[fi].body.is_none() {
                    // No body to run: the simulator reports the call.
                    out.unrun.extend(rets.iter().filter_map(|r| match r {
                        Operand::Sym(s) => Some(s.clone()),
                        _ => None,
                    }));
                    let mut c = ins.clone();
                    c.guard = None;
                    out.body.push(c);
                } else {
                    self.inline_one(out, stack, fi, rets, args, ins)?;
                }
            }
            Operand::Reg(_) => {
                let Some(p) = proto else {
                    return Err(error(
                        ins,
                        "expected a .callprototype for a call through a register".into(),
                    ));
                };
                let Some((prets, pparams)) = frame.src.protos.get(p) else {
                    return Err(error(
                        ins,
                        format!("expected a .callprototype label, found '{p}'"),
                    ));
                };
                let same = |a: &[FParam], b: &[FParam]| {
                    a.len() == b.len()
                        && a.iter()
                            .zip(b)
                            .all(|(x, y)| x.bytes == y.bytes && x.reg.is_some() == y.reg.is_some())
                };
                let cands: Vec<usize> = (0..self.funcs.len())
                    .filter(|&i| {
                        let f = &self.funcs[i];
                        f.body.is_some() && same(&f.rets, prets) && same(&f.params, pparams)
                    })
                    .collect();
                let k = out.fresh;
                out.fresh += 1;
                let end = format!("$callend{}#{k}", frame.tag);
                let to = |j: usize| format!("$callto{}#{k}.{j}", frame.tag);
                for (j, &fi) in cands.iter().enumerate() {
                    let p = out.regs.len() as u32;
                    out.regs.push((format!("%callp{k}.{j}"), "pred".into()));
                    out.body.push(made(
                        ins,
                        "setp",
                        &["eq", "u64"],
                        vec![
                            Operand::Reg(p),
                            target.clone(),
                            Operand::Imm(func_addr(fi) as i64),
                        ],
                    ));
                    out.body.push(bra(ins, &to(j), Some((false, p))));
                }
                // The pointer is no matching function: the simulator reports the call.
                let mut c = ins.clone();
                c.guard = None;
                out.body.push(c);
                out.body.push(bra(ins, &end, None));
                for (j, &fi) in cands.iter().enumerate() {
                    out.labels.insert(to(j), out.body.len());
                    self.inline_one(out, stack, fi, rets, args, ins)?;
                    out.body.push(bra(ins, &end, None));
                }
                out.labels.insert(end, out.body.len());
            }
            _ => {
                return Err(error(
                    ins,
                    "expected a function name or a register as the call target".into(),
                ))
            }
        }
        if let Some(l) = skip {
            out.labels.insert(l, out.body.len());
        }
        Ok(())
    }

    /// Function `fi`'s body in place of `call`, its parameters bound to `args` and
    /// its returns to `rets` (the caller's call-site `.param` names or registers).
    fn inline_one(
        &self,
        out: &mut Out,
        stack: &mut Vec<usize>,
        fi: usize,
        rets: &[Operand],
        args: &[Operand],
        call: &Instr,
    ) -> Result<(), ParseError> {
        let f = &self.funcs[fi];
        if let Some(pos) = stack.iter().position(|&s| s == fi) {
            let mut names: Vec<&str> = stack[pos..]
                .iter()
                .map(|&s| self.funcs[s].name.as_str())
                .collect();
            names.push(&f.name);
            return Err(error(
                call,
                format!(
                    "recursion: {} (lift inlines device functions, and a recursive call has no bound)",
                    names.join(" -> ")
                ),
            ));
        }
        let Some(body) = &f.body else {
            return Err(error(call, format!("expected a body for .func {}", f.name)));
        };
        if rets.len() != f.rets.len() || args.len() != f.params.len() {
            return Err(error(
                call,
                format!(
                    "expected {} return values and {} arguments for .func {}, found {} and {}",
                    f.rets.len(),
                    f.params.len(),
                    f.name,
                    rets.len(),
                    args.len()
                ),
            ));
        }
        let base = out.regs.len() as u32;
        out.regs.extend(body.regs.iter().cloned());
        let mut formals = HashMap::new();
        let mut after = Vec::new();
        for (formal, actual) in f.params.iter().zip(args).chain(f.rets.iter().zip(rets)) {
            let is_ret = f.rets.iter().any(|r| std::ptr::eq(r, formal));
            match (formal.reg, actual) {
                (Some(slot), a) => {
                    let mine = Operand::Reg(base + slot);
                    let ty = formal.ty.as_str();
                    if is_ret {
                        after.push(made(call, "mov", &[ty], vec![a.clone(), mine]));
                    } else {
                        out.body
                            .push(made(call, "mov", &[ty], vec![mine, a.clone()]));
                    }
                }
                (None, Operand::Sym(s)) => {
                    formals.insert(formal.name.clone(), s.clone());
                }
                (None, _) => {
                    return Err(error(
                        call,
                        format!(
                            "expected a call-site .param for `{}` of .func {}",
                            formal.name, f.name
                        ),
                    ))
                }
            }
        }
        let mut vars = HashMap::new();
        for v in &body.vars {
            let name = format!("{}@{}", v.name, f.name);
            vars.insert(v.name.clone(), name.clone());
            if !out.vars.iter().any(|w| w.name == name) {
                out.vars.push(VarDecl { name, ..v.clone() });
            }
        }
        let tag = format!("@{}#{}", f.name, out.fresh);
        out.fresh += 1;
        let ret_label = format!("$ret{tag}");
        // A pure function with a loop: the marker, its operands completed below.
        let n = self.funcs.len();
        let marker = (self.has_loop(fi, &mut vec![false; n]) && self.pure(fi, &mut HashMap::new()))
            .then(|| {
                let mut h = 0xcbf2_9ce4_8422_2325u64;
                self.fingerprint(fi, &mut h, &mut vec![false; n]);
                let p = out.regs.len() as u32;
                out.regs.push((format!("%pure{tag}"), "pred".into()));
                let name = Operand::Sym(format!("{}#{h:016x}", f.name));
                let none = || Operand::Vector(Vec::new());
                let m = made(
                    call,
                    "call",
                    &["pure"],
                    vec![name, none(), none(), Operand::Reg(p)],
                );
                out.body.push(m);
                out.body.push(bra(call, &ret_label, Some((false, p))));
                out.body.len() - 2
            });
        // The values of the formals (`.param` ones by byte offset) once inlined.
        let values = |out: &Out, list: &[FParam], actual: &[Operand]| -> Vec<Operand> {
            let mut vs = Vec::new();
            for (formal, a) in list.iter().zip(actual) {
                match (formal.reg, a) {
                    (Some(slot), _) => vs.push(Operand::Reg(base + slot)),
                    (None, Operand::Sym(key)) => {
                        let mut ps: Vec<(i64, u32)> = out
                            .pieces
                            .iter()
                            .filter(|((k, _), _)| k == key)
                            .map(|((_, o), (slot, _))| (*o, *slot))
                            .collect();
                        ps.sort();
                        vs.extend(ps.into_iter().map(|(_, s)| Operand::Reg(s)));
                    }
                    _ => {}
                }
            }
            vs
        };
        if let Some(m) = marker {
            out.body[m].operands[1] = Operand::Vector(values(out, &f.params, args));
        }
        let frame = Frame {
            src: body,
            base,
            tag,
            formals,
            ret_label: Some(ret_label.clone()),
            vars,
        };
        stack.push(fi);
        self.emit(out, &frame, stack)?;
        stack.pop();
        if let Some(m) = marker {
            out.body[m].operands[2] = Operand::Vector(values(out, &f.rets, rets));
        }
        out.labels.insert(ret_label, out.body.len());
        out.body.extend(after);
        Ok(())
    }
}

/// The call-site `.param` name an address operand names, if any: a callee's
/// parameter or return value (bound by the call) or a call-site block (`name#k`).
fn param_of(frame: &Frame, addr: &Operand) -> Option<(String, i64)> {
    let Operand::Mem { base, offset } = addr else {
        return None;
    };
    let Operand::Sym(s) = &**base else {
        return None;
    };
    if let Some(c) = frame.formals.get(s) {
        return Some((c.clone(), *offset));
    }
    s.contains('#').then(|| (s.clone(), *offset))
}

/// `st.param [p+o], x` into a call-site block or return value: `mov` into the
/// register of (p, o).
fn param_store(out: &mut Out, frame: &Frame, ins: Instr) -> Result<(), ParseError> {
    let Some((key, off)) = ins.operands.first().and_then(|a| param_of(frame, a)) else {
        return Err(error(
            &ins,
            "expected a store into a call's .param block or a return value".into(),
        ));
    };
    let ty = ins.mods.last().cloned().unwrap_or_default();
    let size = type_bytes(&ty).unwrap_or(4) as i64;
    let srcs: Vec<Operand> = match ins.operands.get(1) {
        Some(Operand::Vector(xs)) => xs.clone(),
        Some(x) => vec![x.clone()],
        None => return Err(error(&ins, "expected a value to store".into())),
    };
    for (k, src) in srcs.into_iter().enumerate() {
        let at = (key.clone(), off + k as i64 * size);
        let slot = match out.pieces.get(&at) {
            Some((slot, t)) if type_bytes(t) == type_bytes(&ty) => *slot,
            Some((_, t)) => {
                return Err(error(
                    &ins,
                    format!(
                        "expected a store of {t} at `{}+{}` as before, found {ty}",
                        at.0, at.1
                    ),
                ))
            }
            None => {
                let slot = out.regs.len() as u32;
                out.regs.push((format!("{}+{}", at.0, at.1), ty.clone()));
                out.pieces.insert(at, (slot, ty.clone()));
                slot
            }
        };
        let mut m = made(&ins, "mov", &[&ty], vec![Operand::Reg(slot), src]);
        m.guard = ins.guard;
        out.body.push(m);
    }
    Ok(())
}

/// `ld.param d, [p+o]` from a call-site block or parameter: `mov` (or an integer
/// `cvt`) from the register of (p, o). A kernel parameter stays an `ld.param`.
fn param_load(out: &mut Out, frame: &Frame, ins: Instr) -> Result<(), ParseError> {
    let Some((key, off)) = ins.operands.get(1).and_then(|a| param_of(frame, a)) else {
        out.body.push(ins);
        return Ok(());
    };
    if out.unrun.contains(&key) {
        out.body.push(ins);
        return Ok(());
    }
    let lty = ins.mods.last().cloned().unwrap_or_default();
    let lbytes = type_bytes(&lty).unwrap_or(4);
    let dsts: Vec<Operand> = match ins.operands.first() {
        Some(Operand::Vector(xs)) => xs.clone(),
        Some(x) => vec![x.clone()],
        None => return Err(error(&ins, "expected a destination".into())),
    };
    for (k, dst) in dsts.into_iter().enumerate() {
        let at = (key.clone(), off + k as i64 * lbytes as i64);
        let Some((slot, wty)) = out.pieces.get(&at).cloned() else {
            return Err(error(
                &ins,
                format!(
                    "expected a st.param to `{}+{}` before this read",
                    at.0, at.1
                ),
            ));
        };
        let wbytes = type_bytes(&wty).unwrap_or(4);
        let same_kind = lbytes == wbytes || (is_int(&lty) && is_int(&wty) && lbytes < wbytes);
        if !same_kind {
            return Err(error(
                &ins,
                format!(
                    "expected a read of `{}+{}` as it was written ({wty}), found {lty}",
                    at.0, at.1
                ),
            ));
        }
        // A signed read into a wider register sign-extends (as `ld` does).
        let dbits = match &dst {
            Operand::Reg(d) => out
                .regs
                .get(*d as usize)
                .and_then(|(_, t)| type_bytes(t))
                .map_or(0, |b| 8 * b),
            _ => 0,
        };
        let m = if lty.starts_with('s') && dbits > 8 * lbytes {
            let to = format!("s{dbits}");
            made(&ins, "cvt", &[&to, &lty], vec![dst, Operand::Reg(slot)])
        } else {
            made(&ins, "mov", &[&lty], vec![dst, Operand::Reg(slot)])
        };
        let mut m = m;
        m.guard = ins.guard;
        out.body.push(m);
    }
    Ok(())
}
