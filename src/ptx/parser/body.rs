//! An entry's or function's body: register declarations, `.loc` lines, scoped blocks,
//! and instructions with their operands (registers, immediates, addresses, vectors,
//! special registers).
//!
//! Invariant: never panics; malformed text is a `ParseError` at its line and column.

use super::cursor::{BodyState, Parser};
use super::lexer::Tok;
use crate::ptx::ast::*;
use crate::ptx::error::ParseError;
use crate::triton_ir::ast::Loc;
use std::sync::Arc;

pub(super) fn special(name: &str) -> Option<Special> {
    let axis = |s: &str| match s {
        "x" => Some(0u8),
        "y" => Some(1),
        "z" => Some(2),
        _ => None,
    };
    let (base, ax) = match name.split_once('.') {
        Some((b, a)) => (b, axis(a)),
        None => (name, None),
    };
    Some(match (base, ax) {
        ("%tid", Some(a)) => Special::Tid(a),
        ("%ntid", Some(a)) => Special::Ntid(a),
        ("%ctaid", Some(a)) => Special::Ctaid(a),
        ("%nctaid", Some(a)) => Special::Nctaid(a),
        ("%laneid", None) => Special::LaneId,
        ("%warpid", None) => Special::WarpId,
        ("%nwarpid", None) => Special::NWarpId,
        ("%cluster_ctarank", None) => Special::ClusterCtaRank,
        ("%cluster_nctarank", None) => Special::ClusterNCtaRank,
        ("%clusterid", Some(a)) => Special::ClusterId(a),
        ("%nclusterid", Some(a)) => Special::NClusterId(a),
        ("%cluster_ctaid", Some(a)) => Special::ClusterCtaId(a),
        ("%cluster_nctaid", Some(a)) => Special::ClusterNCtaId(a),
        ("%globaltimer" | "%globaltimer_lo" | "%globaltimer_hi", None) => Special::GlobalTimer,
        _ => return None,
    })
}
impl Parser {
    /// The operands of `call`: `[(rets),] target[, (args)][, prototype];` as
    /// `[Vector(rets), target, Vector(args)]` and `Sym(prototype)` when given.
    pub(super) fn call_operands(&mut self, st: &BodyState) -> Result<Vec<Operand>, ParseError> {
        let mut rets = Vec::new();
        if self.eat_punct('(') {
            rets = self.paren_list(st)?;
            self.expect_punct(',')?;
        }
        let target = self.simple_operand(st)?;
        let mut args = Vec::new();
        let mut proto = None;
        if self.eat_punct(',') {
            if self.eat_punct('(') {
                args = self.paren_list(st)?;
                if self.eat_punct(',') {
                    proto = Some(self.ident("a .callprototype label")?);
                }
            } else {
                proto = Some(self.ident("'(' or a .callprototype label")?);
            }
        }
        self.expect_punct(';')?;
        let mut ops = vec![Operand::Vector(rets), target, Operand::Vector(args)];
        if let Some(p) = proto {
            ops.push(Operand::Sym(p));
        }
        Ok(ops)
    }

    /// Operands up to and through `)`.
    pub(super) fn paren_list(&mut self, st: &BodyState) -> Result<Vec<Operand>, ParseError> {
        let mut xs = Vec::new();
        if self.eat_punct(')') {
            return Ok(xs);
        }
        loop {
            xs.push(self.simple_operand(st)?);
            if self.eat_punct(')') {
                return Ok(xs);
            }
            self.expect_punct(',')?;
        }
    }

    pub(super) fn loc(&mut self, st: &mut BodyState) -> Result<(), ParseError> {
        let f = self.int("a file number")?;
        let l = self.int("a line number")?;
        let c = self.int("a column number")?;
        let here = Loc {
            file: Some(Arc::from(f.to_string().as_str())),
            line: l.max(0) as u32,
            col: c.max(0) as u32,
            name: None,
        };
        let mut inlined = false;
        while self.eat_punct(',') {
            let key = self.ident("function_name or inlined_at")?;
            match key.as_str() {
                "function_name" => {
                    self.ident("a function name label")?;
                }
                "inlined_at" => {
                    let f2 = self.int("a file number")?;
                    let l2 = self.int("a line number")?;
                    let c2 = self.int("a column number")?;
                    inlined = true;
                    if st.last_plain.is_none() {
                        st.last_plain = Some(Loc {
                            file: Some(Arc::from(f2.to_string().as_str())),
                            line: l2.max(0) as u32,
                            col: c2.max(0) as u32,
                            name: None,
                        });
                    }
                }
                _ => {
                    self.pos -= 1;
                    return self.err("function_name or inlined_at");
                }
            }
        }
        if inlined {
            st.loc = st.last_plain.clone().unwrap_or_default();
            st.inner = Some(here);
        } else {
            st.loc = here.clone();
            st.last_plain = Some(here);
            st.inner = None;
        }
        Ok(())
    }

    pub(super) fn lookup(&self, st: &BodyState, name: &str) -> Option<u32> {
        st.scopes.reg(name)
    }

    pub(super) fn body(&mut self, entry: &mut Entry, st: &mut BodyState) -> Result<(), ParseError> {
        st.scopes.open(std::mem::take(&mut st.pre));
        loop {
            let Some(tok) = self.peek().cloned() else {
                return self.err("'}' closing the entry body");
            };
            match tok {
                Tok::Punct('{') => {
                    self.pos += 1;
                    st.scopes.open([]);
                }
                Tok::Punct('}') => {
                    self.pos += 1;
                    if st.scopes.close(&mut entry.body) {
                        return Ok(());
                    }
                }
                Tok::Punct('@') => {
                    self.pos += 1;
                    let neg = self.eat_punct('!');
                    let (line, col) = self.here();
                    let name = self.ident("a predicate register")?;
                    let Some(slot) = self.lookup(st, &name) else {
                        return Err(ParseError {
                            line,
                            col,
                            message: format!(
                                "expected a declared predicate register, found '{name}'"
                            ),
                        });
                    };
                    let mut ins = self.instruction(st)?;
                    ins.guard = Some((neg, slot));
                    st.scopes.note(entry.body.len(), &ins);
                    entry.body.push(ins);
                }
                Tok::Ident(w) if w.starts_with('.') => match w.as_str() {
                    ".reg" => {
                        self.pos += 1;
                        self.reg_decl(entry, st)?;
                    }
                    ".shared" | ".local" | ".global" | ".const" => {
                        let (line, col) = self.here();
                        let mut v = self.var_decl()?;
                        v.name = st
                            .scopes
                            .declare(&v.name, false)
                            .map_err(|message| ParseError { line, col, message })?;
                        entry.vars.push(v);
                    }
                    // A call site's argument or return block: a module-unique name.
                    ".param" => {
                        let v = self.var_decl()?;
                        let unique = format!("{}#{}", v.name, self.next_param);
                        self.next_param += 1;
                        st.scopes.declare_param(v.name, unique);
                    }
                    ".loc" => {
                        self.pos += 1;
                        self.loc(st)?;
                    }
                    ".pragma" => {
                        self.pos += 1;
                        self.skip_statement()?;
                    }
                    _ => return self.err("an instruction, label or body directive"),
                },
                Tok::Ident(w) => {
                    if matches!(self.peek_at(2), Some(Tok::Ident(d)) if d == ".callprototype")
                        && self.peek_at(1) == Some(&Tok::Punct(':'))
                    {
                        self.pos += 3;
                        let proto = self.prototype()?;
                        entry.protos.insert(w, proto);
                    } else if matches!(self.peek_at(2), Some(Tok::Ident(d)) if d == ".branchtargets")
                        && self.peek_at(1) == Some(&Tok::Punct(':'))
                    {
                        self.pos += 3;
                        let mut targets = vec![self.ident("a label")?];
                        while self.eat_punct(',') {
                            targets.push(self.ident("a label")?);
                        }
                        self.expect_punct(';')?;
                        entry.branch_targets.insert(w, targets);
                    } else if self.peek_at(1) == Some(&Tok::Punct(':'))
                        && self.peek_at(2) != Some(&Tok::Punct(':'))
                    {
                        let (line, col) = self.here();
                        self.pos += 2;
                        let key = st.scopes.declare(&w, true).map_err(|message| ParseError {
                            line,
                            col,
                            message,
                        })?;
                        entry.labels.insert(key, entry.body.len());
                    } else {
                        let ins = self.instruction(st)?;
                        st.scopes.note(entry.body.len(), &ins);
                        entry.body.push(ins);
                    }
                }
                _ => return self.err("an instruction, label or directive"),
            }
        }
    }

    pub(super) fn reg_decl(
        &mut self,
        entry: &mut Entry,
        st: &mut BodyState,
    ) -> Result<(), ParseError> {
        let mut ty = String::new();
        while let Some(Tok::Ident(w)) = self.peek() {
            if !w.starts_with('.') {
                break;
            }
            if !w.starts_with(".v") {
                ty = w[1..].to_string();
            }
            self.pos += 1;
        }
        if ty.is_empty() {
            return self.err("a register type");
        }
        loop {
            let name = self.ident("a register name")?;
            let mut declare = |n: String| {
                let slot = entry.regs.len() as u32;
                entry.regs.push((n.clone(), ty.clone()));
                st.scopes.declare_reg(n, slot);
            };
            if self.eat_punct('<') {
                let n = self.int("a register count")?;
                self.expect_punct('>')?;
                if !(0..=1_000_000).contains(&n) {
                    return self.err("a register count below 1000000");
                }
                for k in 0..n {
                    declare(format!("{name}{k}"));
                }
            } else {
                declare(name);
            }
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(';')
    }

    pub(super) fn instruction(&mut self, st: &mut BodyState) -> Result<Instr, ParseError> {
        let (line, col) = self.here();
        let mut word = self.ident("an instruction")?;
        // Qualifiers with `::` (`L2::cache_hint`, `L1::evict_last`, `L2::256B`) are lexed
        // as separate tokens; glue the adjacent ones back into the mnemonic.
        while self.adjacent(0) && self.is_punct(':') && self.adjacent(1) {
            if self.peek_at(1) != Some(&Tok::Punct(':')) {
                break;
            }
            word.push_str("::");
            self.pos += 2;
            let mut glued = false;
            while let Some(t) = self.toks.get(self.pos) {
                if !matches!(t.tok, Tok::Ident(_) | Tok::Int(_)) || (glued && !self.adjacent(0)) {
                    break;
                }
                if !glued && !self.adjacent(0) {
                    break;
                }
                word.push_str(&t.text);
                self.pos += 1;
                glued = true;
            }
            if !glued {
                return self.err("a qualifier after '::'");
            }
        }
        let mut parts = word.split('.');
        let op = parts.next().unwrap_or_default().to_string();
        let mods: Vec<String> = parts.map(str::to_string).collect();
        if op.is_empty() || mods.iter().any(|m| m.is_empty()) {
            self.pos -= 1;
            return self.err("an instruction mnemonic");
        }
        let mut operands = Vec::new();
        if op == "call" {
            operands = self.call_operands(st)?;
        } else if !self.eat_punct(';') {
            loop {
                operands.push(self.operand(st)?);
                if self.eat_punct(';') {
                    break;
                }
                self.expect_punct(',')?;
            }
        }
        Ok(Instr {
            guard: None,
            op,
            mods,
            operands,
            line,
            col,
            loc: st.loc.clone(),
            inner: st.inner.clone(),
        })
    }

    pub(super) fn operand(&mut self, st: &BodyState) -> Result<Operand, ParseError> {
        let first = self.simple_operand(st)?;
        if self.eat_punct('|') {
            let second = self.simple_operand(st)?;
            return Ok(Operand::Pair(Box::new(first), Box::new(second)));
        }
        Ok(first)
    }

    pub(super) fn simple_operand(&mut self, st: &BodyState) -> Result<Operand, ParseError> {
        let (line, col) = self.here();
        match self.peek().cloned() {
            Some(Tok::Punct('{')) => {
                self.pos += 1;
                let mut xs = Vec::new();
                if !self.eat_punct('}') {
                    loop {
                        xs.push(self.simple_operand(st)?);
                        if self.eat_punct('}') {
                            break;
                        }
                        self.expect_punct(',')?;
                    }
                }
                Ok(Operand::Vector(xs))
            }
            Some(Tok::Punct('[')) => {
                self.pos += 1;
                let base = self.simple_operand(st)?;
                // `[tmap, {c0, c1}]`: a tensor map and box coordinates (TMA).
                if self.eat_punct(',') {
                    let Operand::Vector(coords) = self.simple_operand(st)? else {
                        return self.err("'{' starting the coordinates of a tensor-map operand");
                    };
                    self.expect_punct(']')?;
                    return Ok(Operand::Tensor {
                        map: Box::new(base),
                        coords,
                    });
                }
                let mut offset = 0i64;
                loop {
                    if self.eat_punct('+') {
                        offset = offset.wrapping_add(self.int("an address offset")?);
                    } else if self.eat_punct('-') {
                        offset = offset.wrapping_sub(self.int("an address offset")?);
                    } else {
                        break;
                    }
                }
                self.expect_punct(']')?;
                Ok(Operand::Mem {
                    base: Box::new(base),
                    offset,
                })
            }
            Some(Tok::Punct('!')) => {
                self.pos += 1;
                Ok(Operand::Not(Box::new(self.simple_operand(st)?)))
            }
            Some(Tok::Punct('-')) => {
                self.pos += 1;
                match self.peek().cloned() {
                    Some(Tok::Int(v)) => {
                        self.pos += 1;
                        Ok(Operand::Imm(v.wrapping_neg()))
                    }
                    Some(Tok::Float(f)) => {
                        self.pos += 1;
                        Ok(Operand::Float(-f))
                    }
                    _ => self.err("a number after '-'"),
                }
            }
            Some(Tok::Int(v)) => {
                self.pos += 1;
                Ok(Operand::Imm(v))
            }
            Some(Tok::FBits { bits, is_f64 }) => {
                self.pos += 1;
                Ok(Operand::FBits { bits, is_f64 })
            }
            Some(Tok::Float(f)) => {
                self.pos += 1;
                Ok(Operand::Float(f))
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                if name == "_" {
                    return Ok(Operand::Sink);
                }
                // Registers first: inline asm declares them without `%` (`P1`).
                if let Some(slot) = self.lookup(st, &name) {
                    return Ok(Operand::Reg(slot));
                }
                if name.starts_with('%') {
                    if let Some(s) = special(&name) {
                        return Ok(Operand::Special(s));
                    }
                    return Err(ParseError {
                        line,
                        col,
                        message: format!("expected a declared register, found '{name}'"),
                    });
                }
                if let Some(u) = st.scopes.param(&name) {
                    return Ok(Operand::Sym(u.clone()));
                }
                Ok(Operand::Sym(name))
            }
            _ => self.err("an operand"),
        }
    }
}
