//! The module's structure: functions, regions, blocks, op results, and the generic
//! `"op"(...)` form of an op. Custom forms are in `ops`.
//!
//! Invariant: region nesting is capped at [`MAX_REGION_DEPTH`].

use std::collections::BTreeMap;

use super::cursor::{PResult, Parser, MAX_REGION_DEPTH};
use super::types::TypeSpec;
use crate::triton_ir::ast::{Arg, Block, Func, Loc, Module, Op, Region, Successor};
use crate::triton_ir::lexer::Tok;

impl Parser<'_> {
    pub fn parse_module(&mut self) -> PResult<Module> {
        self.collect_loc_aliases()?;
        self.pos = 0;
        let mut funcs = Vec::new();
        loop {
            match self.peek().clone() {
                Tok::Eof => break,
                Tok::Hash(_) | Tok::Bang(_) => self.skip_alias_def()?,
                Tok::Ident(s) if s == "module" => self.parse_module_op(&mut funcs)?,
                Tok::Ident(s) if s == "tt.func" => funcs.push(self.parse_func()?),
                _ => return Err(self.expected("'module', 'tt.func' or a '#alias' definition")),
            }
        }
        Ok(Module { funcs })
    }

    /// First pass: every `#name = loc(...)` at bracket depth 0.
    pub(super) fn collect_loc_aliases(&mut self) -> PResult<()> {
        let mut depth: i64 = 0;
        let mut i = 0;
        while i < self.toks.len() {
            match &self.toks[i].tok {
                Tok::LParen | Tok::LBrace | Tok::LBracket => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RBracket => depth = (depth - 1).max(0),
                Tok::Hash(name) if depth == 0 => {
                    let is_def = matches!(self.tok_at(i + 1).tok, Tok::Equal)
                        && matches!(&self.tok_at(i + 2).tok, Tok::Ident(l) if l == "loc");
                    if is_def {
                        let name = name.clone();
                        self.pos = i + 2;
                        let e = self.parse_loc_expr_wrapped()?;
                        self.loc_aliases.insert(name, e);
                        i = self.pos;
                        continue;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        Ok(())
    }

    /// Skips `#name = ...` / `!name = ...` (already collected, or not a location).
    pub(super) fn skip_alias_def(&mut self) -> PResult<()> {
        let line = self.cur().line;
        self.bump();
        self.expect(&Tok::Equal, "after alias name")?;
        if self.is_ident("loc") {
            self.parse_loc_expr_wrapped()?;
            return Ok(());
        }
        // Attribute/type aliases (`#blocked = #ttg.blocked<...>`): one line.
        while !self.at_eof() && self.cur().line == line {
            match self.peek() {
                Tok::LParen | Tok::LBrace | Tok::LBracket | Tok::LAngle => {
                    self.skip_balanced()?;
                }
                _ => {
                    self.bump();
                }
            }
        }
        Ok(())
    }

    pub(super) fn parse_module_op(&mut self, funcs: &mut Vec<Func>) -> PResult<()> {
        self.bump(); // module
        if let Tok::At(_) = self.peek() {
            self.bump();
        }
        if self.eat_ident("attributes") {
            self.parse_attr_dict()?;
        }
        self.expect(&Tok::LBrace, "to open the module body")?;
        loop {
            match self.peek().clone() {
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Ident(s) if s == "tt.func" => funcs.push(self.parse_func()?),
                Tok::Eof => return Err(self.expected("'}' to close the module")),
                _ => return Err(self.expected("'tt.func' or '}' in module body")),
            }
        }
        self.parse_opt_loc()?;
        Ok(())
    }

    pub(super) fn parse_func(&mut self) -> PResult<Func> {
        let line = self.bump().line; // tt.func
        let mut public = true;
        if let Tok::Ident(v) = self.peek().clone() {
            match v.as_str() {
                "public" => {
                    self.bump();
                }
                "private" | "nested" => {
                    public = false;
                    self.bump();
                }
                _ => {}
            }
        }
        let name = match self.peek().clone() {
            Tok::At(n) => {
                self.bump();
                n
            }
            _ => return Err(self.expected("'@name' after tt.func")),
        };
        self.expect(&Tok::LParen, "to open the argument list of tt.func")?;
        let mut args = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                let (aname, ty) = match self.peek().clone() {
                    Tok::Percent(n) => {
                        self.bump();
                        self.expect(&Tok::Colon, "after function argument name")?;
                        (n, self.parse_type()?)
                    }
                    // Declarations list types only.
                    _ => (String::new(), self.parse_type()?),
                };
                if matches!(self.peek(), Tok::LBrace) {
                    self.parse_attr_dict()?;
                }
                let loc = self.parse_opt_loc()?.unwrap_or_default();
                args.push(Arg {
                    name: aname,
                    ty,
                    loc,
                });
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(&Tok::Comma, "or ')' between function arguments")?;
            }
        }
        let mut result_types = Vec::new();
        if self.eat(&Tok::Arrow) {
            if self.eat(&Tok::LParen) {
                if !self.eat(&Tok::RParen) {
                    loop {
                        result_types.push(self.parse_type()?);
                        if matches!(self.peek(), Tok::LBrace) {
                            self.parse_attr_dict()?;
                        }
                        if self.eat(&Tok::RParen) {
                            break;
                        }
                        self.expect(&Tok::Comma, "or ')' between result types")?;
                    }
                }
            } else {
                result_types.push(self.parse_type()?);
            }
        }
        if self.eat_ident("attributes") {
            self.parse_attr_dict()?;
        }
        let mut body = if matches!(self.peek(), Tok::LBrace) {
            self.parse_region()?
        } else {
            Region::default()
        };
        // As in MLIR, the function's arguments are its entry block's arguments.
        if let Some(entry) = body.blocks.first_mut() {
            if entry.label.is_none() && entry.args.is_empty() {
                entry.args = args.clone();
            }
        }
        let loc = self.parse_opt_loc()?.unwrap_or_default();
        Ok(Func {
            name,
            public,
            args,
            result_types,
            body,
            line,
            loc,
        })
    }

    // ---- regions and blocks -------------------------------------------------------

    pub(super) fn parse_region(&mut self) -> PResult<Region> {
        if self.region_depth >= MAX_REGION_DEPTH {
            return Err(self.err_here(format!(
                "regions nested deeper than {MAX_REGION_DEPTH} levels"
            )));
        }
        self.region_depth += 1;
        let r = self.parse_region_inner();
        self.region_depth -= 1;
        r
    }

    pub(super) fn parse_region_inner(&mut self) -> PResult<Region> {
        self.expect(&Tok::LBrace, "to open a region")?;
        let mut blocks: Vec<Block> = Vec::new();
        let mut cur = Block::default();
        let mut started = false;
        loop {
            match self.peek().clone() {
                Tok::RBrace => {
                    self.bump();
                    break;
                }
                Tok::Eof => return Err(self.expected("'}' to close a region")),
                Tok::Caret(label) => {
                    if started {
                        blocks.push(std::mem::take(&mut cur));
                    }
                    started = true;
                    self.bump();
                    cur.label = Some(label);
                    if self.eat(&Tok::LParen) && !self.eat(&Tok::RParen) {
                        loop {
                            cur.args.push(self.parse_block_arg()?);
                            if self.eat(&Tok::RParen) {
                                break;
                            }
                            self.expect(&Tok::Comma, "or ')' between block arguments")?;
                        }
                    }
                    self.expect(&Tok::Colon, "after block label")?;
                }
                _ => {
                    started = true;
                    cur.ops.push(self.parse_op()?);
                }
            }
        }
        if started {
            blocks.push(cur);
        }
        Ok(Region { blocks })
    }

    pub(super) fn parse_block_arg(&mut self) -> PResult<Arg> {
        let name = match self.peek().clone() {
            Tok::Percent(n) => {
                self.bump();
                n
            }
            _ => return Err(self.expected("a block argument '%name'")),
        };
        self.expect(&Tok::Colon, "after block argument name")?;
        let ty = self.parse_type()?;
        let loc = self.parse_opt_loc()?.unwrap_or_default();
        Ok(Arg { name, ty, loc })
    }

    // ---- ops ----------------------------------------------------------------------

    pub(super) fn parse_results(&mut self) -> PResult<Vec<String>> {
        let mut results = Vec::new();
        if !matches!(self.peek(), Tok::Percent(_)) {
            return Ok(results);
        }
        loop {
            let name = match self.peek().clone() {
                Tok::Percent(n) => {
                    self.bump();
                    n
                }
                _ => return Err(self.expected("a result name '%name'")),
            };
            if self.eat(&Tok::Colon) {
                let n = match self.peek().clone() {
                    Tok::Int(s) => s.parse::<u32>().ok().filter(|n| *n <= 4096),
                    _ => None,
                };
                let Some(n) = n else {
                    return Err(self.expected("a result count after ':'"));
                };
                self.bump();
                for i in 0..n {
                    results.push(format!("{name}#{i}"));
                }
            } else {
                results.push(name);
            }
            if self.eat(&Tok::Equal) {
                return Ok(results);
            }
            self.expect(&Tok::Comma, "or '=' after op results")?;
        }
    }

    pub(super) fn parse_op(&mut self) -> PResult<Op> {
        let first = self.cur().clone();
        let results = self.parse_results()?;
        let name_tok = self.cur().clone();
        let mut op = Op {
            name: String::new(),
            results,
            operands: Vec::new(),
            attrs: BTreeMap::new(),
            regions: Vec::new(),
            successors: Vec::new(),
            result_types: Vec::new(),
            operand_types: Vec::new(),
            line: first.line,
            loc: Loc::default(),
        };
        match name_tok.tok.clone() {
            Tok::Str(name) => {
                self.bump();
                op.name = name;
                self.parse_generic_op(&mut op)?;
            }
            Tok::Ident(name) => {
                self.bump();
                op.name = name;
                match op.name.as_str() {
                    "arith.constant" => self.parse_constant(&mut op)?,
                    "scf.for" => self.parse_for(&mut op)?,
                    "scf.if" => self.parse_if(&mut op)?,
                    "scf.while" => self.parse_while(&mut op)?,
                    _ => self.parse_custom_op(&mut op, name_tok.line)?,
                }
            }
            _ => return Err(self.expected("an op name")),
        }
        Ok(op)
    }

    pub(super) fn operand(&mut self, ctx: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Percent(n) => {
                self.bump();
                Ok(n)
            }
            _ => Err(self.expected(&format!("an operand '%name' {ctx}"))),
        }
    }

    /// `"name"(%a, ...) [^succ...] <{props}> ({regions}) {attrs} : (T...) -> (R...) loc(..)`
    pub(super) fn parse_generic_op(&mut self, op: &mut Op) -> PResult<()> {
        let ctx = format!("in generic op \"{}\"", op.name);
        self.expect(
            &Tok::LParen,
            &format!("to open the operands of \"{}\"", op.name),
        )?;
        if !self.eat(&Tok::RParen) {
            loop {
                let o = self.operand(&ctx)?;
                op.operands.push(o);
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(&Tok::Comma, &format!("or ')' between operands {ctx}"))?;
            }
        }
        if self.eat(&Tok::LBracket) {
            loop {
                match self.peek().clone() {
                    Tok::Caret(l) => {
                        self.bump();
                        let args = self.parse_successor_args()?;
                        op.successors.push(Successor { label: l, args });
                    }
                    _ => return Err(self.expected(&format!("a successor '^bb' {ctx}"))),
                }
                if self.eat(&Tok::RBracket) {
                    break;
                }
                self.expect(&Tok::Comma, &format!("or ']' between successors {ctx}"))?;
            }
        }
        if matches!(self.peek(), Tok::LAngle) && matches!(self.peek_n(1), Tok::LBrace) {
            self.bump();
            let props = self.parse_attr_dict()?;
            op.attrs.extend(props);
            self.expect(&Tok::RAngle, &format!("to close the properties {ctx}"))?;
        }
        if matches!(self.peek(), Tok::LParen) {
            self.bump();
            loop {
                let r = self.parse_region()?;
                op.regions.push(r);
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(&Tok::Comma, &format!("or ')' between regions {ctx}"))?;
            }
        }
        if matches!(self.peek(), Tok::LBrace) {
            let a = self.parse_attr_dict()?;
            op.attrs.extend(a);
        }
        self.expect(&Tok::Colon, &format!("':' and the function type {ctx}"))?;
        let spec = self.parse_type_spec()?;
        match spec {
            TypeSpec::Arrow(ins, outs) => {
                op.operand_types = ins;
                op.result_types = outs;
            }
            _ => {
                return Err(
                    self.err_here(format!("expected a function type '(...) -> (...)' {ctx}"))
                )
            }
        }
        op.loc = self.parse_opt_loc()?.unwrap_or_default();
        Ok(())
    }

    pub(super) fn parse_successor_args(&mut self) -> PResult<Vec<String>> {
        let mut args = Vec::new();
        if !self.eat(&Tok::LParen) {
            return Ok(args);
        }
        if self.eat(&Tok::RParen) {
            return Ok(args);
        }
        loop {
            args.push(self.operand("in successor arguments")?);
            if self.eat(&Tok::Comma) {
                continue;
            }
            break;
        }
        if self.eat(&Tok::Colon) {
            loop {
                self.parse_type()?;
                if !self.eat(&Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(&Tok::RParen, "to close successor arguments")?;
        Ok(args)
    }
}
