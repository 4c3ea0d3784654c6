//! Module level: directives (`.version`, `.target`, `.file`), global variables,
//! `.entry` and `.func` headers with their parameters, and the check that every branch
//! names a label its block sees.
//!
//! Invariant: never panics; malformed text is a `ParseError` at its line and column.

use super::cursor::{BodyState, Parser};
use super::lexer::{Tok, Token};
use crate::ptx::ast::*;
use crate::ptx::error::ParseError;
use std::collections::BTreeMap;

impl Parser {
    pub(super) fn module(&mut self) -> Result<(), ParseError> {
        while let Some(tok) = self.peek().cloned() {
            let Tok::Ident(word) = tok else {
                return self.err("a directive (.version, .target, .entry, ...)");
            };
            match word.as_str() {
                ".version" => {
                    self.pos += 1;
                    match self.toks.get(self.pos) {
                        Some(Token {
                            tok: Tok::Float(_) | Tok::Int(_),
                            text,
                            ..
                        }) => {
                            self.module.version = text.clone();
                            self.pos += 1;
                        }
                        _ => return self.err("a version number"),
                    }
                }
                ".target" => {
                    self.pos += 1;
                    loop {
                        let t = self.ident("a target name")?;
                        self.module.target.push(t);
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                }
                ".address_size" => {
                    self.pos += 1;
                    self.module.address_size = self.int("an address size")? as u32;
                }
                ".file" => {
                    self.pos += 1;
                    let n = self.int("a file number")?;
                    let name = match self.peek() {
                        Some(Tok::Str(s)) => s.clone(),
                        _ => return self.err("a file name string"),
                    };
                    self.pos += 1;
                    while self.eat_punct(',') {
                        self.int("a file timestamp or size")?;
                    }
                    self.module.files.insert(n as u32, name);
                }
                ".loc" => {
                    let mut st = BodyState::new();
                    self.pos += 1;
                    self.loc(&mut st)?;
                }
                ".section" => {
                    self.pos += 1;
                    self.ident("a section name")?;
                    self.skip_braces()?;
                }
                ".pragma" => {
                    self.pos += 1;
                    self.skip_statement()?;
                }
                ".visible" | ".weak" | ".extern" | ".entry" | ".func" => {
                    let mut is_extern = false;
                    while let Some(Tok::Ident(w)) = self.peek() {
                        match w.as_str() {
                            ".visible" | ".weak" => self.pos += 1,
                            ".extern" => {
                                is_extern = true;
                                self.pos += 1
                            }
                            _ => break,
                        }
                    }
                    if self.eat_ident(".entry") {
                        if is_extern {
                            self.skip_statement()?;
                        } else {
                            let e = self.entry()?;
                            self.module.entries.push(e);
                        }
                    } else if self.eat_ident(".func") {
                        self.func()?;
                    } else if self.is_ident(".global")
                        || self.is_ident(".shared")
                        || self.is_ident(".const")
                    {
                        let v = self.var_decl()?;
                        self.module.globals.push(v);
                    } else {
                        return self.err(".entry, .func or a variable declaration");
                    }
                }
                ".global" | ".shared" | ".const" => {
                    let v = self.var_decl()?;
                    self.module.globals.push(v);
                }
                _ => return self.err("a directive (.version, .target, .entry, ...)"),
            }
        }
        Ok(())
    }

    /// `.shared .align 4 .b8 name[512];` (also `.global`, `.local`, `.const`), with an
    /// optional initializer.
    pub(super) fn var_decl(&mut self) -> Result<VarDecl, ParseError> {
        let (line, _) = self.here();
        let space = match self.ident("a state space")?.as_str() {
            ".global" => Space::Global,
            ".shared" => Space::Shared,
            ".local" => Space::Local,
            ".const" => Space::Const,
            ".param" => Space::Param,
            _ => {
                self.pos -= 1;
                return self.err("a state space");
            }
        };
        let mut align = 0;
        let mut ty = String::new();
        let mut vec = 1u64;
        loop {
            match self.peek() {
                Some(Tok::Ident(w)) if w == ".align" => {
                    self.pos += 1;
                    align = self.int("an alignment")? as u64;
                }
                Some(Tok::Ident(w)) if w == ".v2" || w == ".v4" || w == ".v8" => {
                    vec = w[2..].parse().unwrap_or(1);
                    self.pos += 1;
                }
                Some(Tok::Ident(w)) if w.starts_with('.') => {
                    ty = w[1..].to_string();
                    self.pos += 1;
                }
                _ => break,
            }
        }
        let name = self.ident("a variable name")?;
        let elem = type_bytes(&ty).unwrap_or(1) * vec;
        let mut count = 1u64;
        let mut dynamic = false;
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                count = 0;
                dynamic = true;
                continue;
            }
            count *= self.int("an array length")?.max(0) as u64;
            self.expect_punct(']')?;
        }
        let mut init = None;
        let mut relocs = Vec::new();
        if self.eat_punct('=') {
            if self.is_punct('{') {
                init = self.int_list(type_bytes(&ty).unwrap_or(1), &mut relocs)?;
            } else {
                init = self.scalar_init(type_bytes(&ty).unwrap_or(1));
            }
        }
        self.expect_punct(';')?;
        Ok(VarDecl {
            space,
            name,
            align: align.max(1),
            ty,
            bytes: elem * count,
            dynamic,
            line,
            init,
            relocs,
        })
    }

    pub(super) fn dims(&mut self) -> Result<[i64; 3], ParseError> {
        let mut d = [1i64; 3];
        d[0] = self.int("a thread count")?;
        for slot in d.iter_mut().skip(1) {
            if !self.eat_punct(',') {
                break;
            }
            *slot = self.int("a thread count")?;
        }
        Ok(d)
    }

    pub(super) fn entry(&mut self) -> Result<Entry, ParseError> {
        let (line, _) = self.here();
        let name = self.ident("the entry's name")?;
        let mut params = Vec::new();
        if self.eat_punct('(') && !self.eat_punct(')') {
            {
                loop {
                    if !self.eat_ident(".param") {
                        return self.err("'.param'");
                    }
                    let mut ty = String::new();
                    let mut is_ptr = false;
                    while let Some(Tok::Ident(w)) = self.peek() {
                        if !w.starts_with('.') {
                            break;
                        }
                        let w = w.clone();
                        self.pos += 1;
                        match w.as_str() {
                            ".ptr" => is_ptr = true,
                            ".align" => {
                                self.int("an alignment")?;
                            }
                            ".global" | ".shared" | ".const" | ".local" => {}
                            _ => ty = w[1..].to_string(),
                        }
                    }
                    let pname = self.ident("a parameter name")?;
                    let mut array: Option<u64> = None;
                    while self.eat_punct('[') {
                        let n = self.int("an array length")?;
                        let n = u64::try_from(n)
                            .or_else(|_| self.err("a non-negative array length"))?;
                        array = Some(array.unwrap_or(1).saturating_mul(n));
                        self.expect_punct(']')?;
                    }
                    params.push(Param {
                        name: pname,
                        ty,
                        is_ptr,
                        array,
                    });
                    if self.eat_punct(')') {
                        break;
                    }
                    self.expect_punct(',')?;
                }
            }
        }
        let mut entry = Entry {
            name,
            line,
            params,
            reqntid: None,
            maxntid: None,
            cluster: None,
            vars: Vec::new(),
            regs: Vec::new(),
            body: Vec::new(),
            labels: BTreeMap::new(),
            protos: BTreeMap::new(),
            branch_targets: BTreeMap::new(),
        };
        loop {
            match self.peek() {
                Some(Tok::Punct('{')) => break,
                Some(Tok::Ident(w)) if w == ".reqntid" => {
                    self.pos += 1;
                    entry.reqntid = Some(self.dims()?);
                }
                Some(Tok::Ident(w)) if w == ".maxntid" => {
                    self.pos += 1;
                    entry.maxntid = Some(self.dims()?);
                }
                Some(Tok::Ident(w))
                    if matches!(
                        w.as_str(),
                        ".minnctapersm" | ".maxnreg" | ".maxnctapersm" | ".maxclusterrank"
                    ) =>
                {
                    self.pos += 1;
                    self.int("a number")?;
                }
                Some(Tok::Ident(w)) if w == ".noreturn" => self.pos += 1,
                Some(Tok::Ident(w)) if w == ".pragma" => {
                    self.pos += 1;
                    self.skip_statement()?;
                }
                Some(Tok::Ident(w)) if w == ".reqnctapercluster" || w == ".explicitcluster" => {
                    self.pos += 1;
                    if matches!(self.peek(), Some(Tok::Int(_))) {
                        entry.cluster = Some(self.dims()?);
                    }
                }
                _ => return self.err("'{' opening the entry body"),
            }
        }
        self.expect_punct('{')?;
        let mut st = BodyState::new();
        self.body(&mut entry, &mut st)?;
        check_branches(&entry)?;
        Ok(entry)
    }

    /// `.func (returns) name (parameters) { body }` or a declaration ending in `;`,
    /// after `.func`. A later definition fills in an earlier declaration.
    pub(super) fn func(&mut self) -> Result<(), ParseError> {
        let (line, _) = self.here();
        let mut rets = Vec::new();
        if self.eat_punct('(') {
            rets = self.fparams()?;
        }
        let name = self.ident("the function's name")?;
        let mut params = Vec::new();
        if self.eat_punct('(') {
            params = self.fparams()?;
        }
        loop {
            match self.peek() {
                Some(Tok::Ident(w)) if w == ".noreturn" => self.pos += 1,
                Some(Tok::Ident(w)) if w == ".pragma" => {
                    self.pos += 1;
                    self.skip_statement()?;
                }
                Some(Tok::Ident(w)) if w == ".attribute" => {
                    self.pos += 1;
                    self.expect_punct('(')?;
                    while !self.eat_punct(')') {
                        if self.peek().is_none() {
                            return self.err("')'");
                        }
                        self.pos += 1;
                    }
                }
                _ => break,
            }
        }
        let body = if self.eat_punct(';') {
            None
        } else if self.eat_punct('{') {
            let mut f = Entry {
                name: name.clone(),
                line,
                params: Vec::new(),
                reqntid: None,
                maxntid: None,
                cluster: None,
                vars: Vec::new(),
                regs: Vec::new(),
                body: Vec::new(),
                labels: BTreeMap::new(),
                protos: BTreeMap::new(),
                branch_targets: BTreeMap::new(),
            };
            let mut st = BodyState::new();
            // `.reg` parameters are registers of the body.
            for p in rets.iter_mut().chain(params.iter_mut()) {
                if p.reg.is_some() {
                    let slot = f.regs.len() as u32;
                    f.regs.push((p.name.clone(), p.ty.clone()));
                    st.pre.push((p.name.clone(), slot));
                    p.reg = Some(slot);
                }
            }
            self.body(&mut f, &mut st)?;
            check_branches(&f)?;
            Some(f)
        } else {
            return self.err("';' or '{' after the function's signature");
        };
        match self.module.funcs.iter_mut().find(|f| f.name == name) {
            Some(old) if body.is_some() && old.body.is_some() => Err(ParseError {
                line,
                col: 1,
                message: format!("expected one definition of .func {name}, found a second"),
            }),
            Some(old) => {
                if body.is_some() {
                    *old = Func {
                        name,
                        line,
                        rets,
                        params,
                        body,
                    };
                }
                Ok(())
            }
            None => {
                self.module.funcs.push(Func {
                    name,
                    line,
                    rets,
                    params,
                    body,
                });
                Ok(())
            }
        }
    }

    /// A `.func` or `.callprototype` parameter list after its `(`, through the `)`.
    pub(super) fn fparams(&mut self) -> Result<Vec<FParam>, ParseError> {
        let mut out = Vec::new();
        if self.eat_punct(')') {
            return Ok(out);
        }
        loop {
            let reg = if self.eat_ident(".param") {
                None
            } else if self.eat_ident(".reg") {
                Some(0)
            } else {
                return self.err("'.param' or '.reg'");
            };
            let mut ty = String::new();
            while let Some(Tok::Ident(w)) = self.peek() {
                if !w.starts_with('.') {
                    break;
                }
                let w = w.clone();
                self.pos += 1;
                match w.as_str() {
                    ".align" => {
                        self.int("an alignment")?;
                    }
                    ".ptr" | ".global" | ".shared" | ".const" | ".local" => {}
                    _ => ty = w[1..].to_string(),
                }
            }
            let Some(elem) = type_bytes(&ty) else {
                return self.err("a parameter type");
            };
            let name = self.ident("a parameter name")?;
            let mut count = 1u64;
            while self.eat_punct('[') {
                count = count.saturating_mul(self.int("an array length")?.max(0) as u64);
                self.expect_punct(']')?;
            }
            out.push(FParam {
                name,
                ty,
                bytes: elem.saturating_mul(count),
                reg,
            });
            if self.eat_punct(')') {
                return Ok(out);
            }
            self.expect_punct(',')?;
        }
    }

    /// `(returns) _ (parameters);` after `label: .callprototype`.
    pub(super) fn prototype(&mut self) -> Result<(Vec<FParam>, Vec<FParam>), ParseError> {
        let rets = if self.eat_punct('(') {
            self.fparams()?
        } else {
            Vec::new()
        };
        self.ident("'_' in the prototype")?;
        let params = if self.eat_punct('(') {
            self.fparams()?
        } else {
            Vec::new()
        };
        while self.eat_ident(".noreturn") {}
        self.expect_punct(';')?;
        Ok((rets, params))
    }
}
/// Every branch target must be a label of the same body that the branch's block sees
/// (scoped labels were renamed when their block closed; one still spelled as written
/// names no label of this block or an enclosing one).
pub(super) fn check_branches(entry: &Entry) -> Result<(), ParseError> {
    for ins in &entry.body {
        if ins.op == "bra" {
            match ins.operands.first() {
                Some(Operand::Sym(l)) if entry.labels.contains_key(l) => {}
                _ => {
                    return Err(ParseError {
                        line: ins.line,
                        col: ins.col,
                        message: "expected a label of this block or an enclosing one as the \
                                  branch target"
                            .into(),
                    })
                }
            }
        }
    }
    Ok(())
}
