//! Recursive-descent parser from tokens to [`ast::Module`].
//!
//! Architecture invariant: never panics and never recurses without bound (regions,
//! types, attributes and location aliases all have depth caps); every error names
//! `line:col` and what was expected. Location aliases (`#locN = loc(...)`, printed after
//! the module) are collected in a first pass over the top level and resolved while the
//! ops are parsed.

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use super::ast::{
    Arg, Attr, Block, FloatKind, Func, Loc, Module, Op, Region, Scalar, Successor, Type,
};
use super::floats::{self, FloatFormat};
use super::lexer::{Tok, Token};
use super::ParseError;

/// Deepest nesting of regions (ops inside `scf.for` inside `scf.if` ...).
pub const MAX_REGION_DEPTH: u32 = 64;
/// Deepest nesting of types, attributes and location expressions.
const MAX_NEST: u32 = 64;

/// A location expression before alias resolution.
#[derive(Clone, Debug)]
enum LocExpr {
    Unknown,
    File {
        file: Arc<str>,
        line: u32,
        col: u32,
    },
    Name {
        name: String,
        child: Option<Box<LocExpr>>,
    },
    CallSite {
        callee: Box<LocExpr>,
        caller: Box<LocExpr>,
    },
    Fused(Vec<LocExpr>),
    Alias(String),
}

/// How the types after an op's `:` were written.
#[derive(Debug)]
enum TypeSpec {
    None,
    /// `T` or `T1, T2, ...`
    List(Vec<Type>),
    /// `T1 to T2`, `T1 -> T2`, `(T...) -> (R...)`
    Arrow(Vec<Type>, Vec<Type>),
    /// `tt.dot`: `A * B -> C`
    Dot(Type, Type, Type),
}

pub struct Parser<'a> {
    src: &'a str,
    toks: Vec<Token>,
    pos: usize,
    loc_aliases: HashMap<String, LocExpr>,
    resolved: HashMap<String, Loc>,
    /// File names shared between locations.
    files: HashMap<String, Arc<str>>,
    region_depth: u32,
}

type PResult<T> = Result<T, ParseError>;

/// `tensor<4x!tt.ptr<f32>>` -> `tensor<4xf32>`, `!tt.ptr<f32>` -> `f32`.
fn pointee(t: &Type) -> Type {
    match t {
        Type::Ptr(inner) => (**inner).clone(),
        Type::Tensor { shape, elem } => match &**elem {
            Type::Ptr(inner) => Type::Tensor {
                shape: shape.clone(),
                elem: inner.clone(),
            },
            _ => t.clone(),
        },
        _ => t.clone(),
    }
}

/// The same shape with element type `elem`.
fn with_elem(t: &Type, elem: Type) -> Type {
    match t {
        Type::Tensor { shape, .. } => Type::Tensor {
            shape: shape.clone(),
            elem: Box::new(elem),
        },
        _ => elem,
    }
}

impl<'a> Parser<'a> {
    pub fn new(src: &'a str, toks: Vec<Token>) -> Self {
        Parser {
            src,
            toks,
            pos: 0,
            loc_aliases: HashMap::new(),
            resolved: HashMap::new(),
            files: HashMap::new(),
            region_depth: 0,
        }
    }

    // ---- token access -------------------------------------------------------------

    fn tok_at(&self, i: usize) -> &Token {
        // The lexer always ends the stream with Eof; clamp to it.
        let last = self.toks.len().saturating_sub(1);
        &self.toks[i.min(last)]
    }

    fn cur(&self) -> &Token {
        self.tok_at(self.pos)
    }

    fn peek(&self) -> &Tok {
        &self.cur().tok
    }

    fn peek_n(&self, n: usize) -> &Tok {
        &self.tok_at(self.pos.saturating_add(n)).tok
    }

    fn bump(&mut self) -> Token {
        let t = self.cur().clone();
        if self.pos + 1 < self.toks.len() {
            self.pos += 1;
        }
        t
    }

    fn at_eof(&self) -> bool {
        matches!(self.peek(), Tok::Eof)
    }

    fn err_here(&self, message: impl Into<String>) -> ParseError {
        let t = self.cur();
        ParseError {
            line: t.line,
            col: t.col,
            message: message.into(),
        }
    }

    fn expected(&self, what: &str) -> ParseError {
        self.err_here(format!("expected {what}, found {}", self.peek().describe()))
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == t {
            self.bump();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok, context: &str) -> PResult<()> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.expected(&format!("{} {context}", t.describe())))
        }
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Tok::Ident(i) if i == s)
    }

    fn eat_ident(&mut self, s: &str) -> bool {
        if self.is_ident(s) {
            self.bump();
            true
        } else {
            false
        }
    }

    /// Skips a balanced group starting at the current opening token; returns its
    /// source text. Iterative, so safe on any nesting.
    fn skip_balanced(&mut self) -> PResult<String> {
        let start = self.cur().start;
        let mut depth: u32 = 0;
        loop {
            let t = self.bump();
            match t.tok {
                Tok::LParen | Tok::LBrace | Tok::LBracket | Tok::LAngle => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RBracket | Tok::RAngle => {
                    depth = depth.saturating_sub(1)
                }
                Tok::Eof => {
                    return Err(ParseError {
                        line: t.line,
                        col: t.col,
                        message: "unbalanced brackets: unexpected end of input".into(),
                    })
                }
                _ => {}
            }
            if depth == 0 {
                return Ok(self.text(start, t.end));
            }
        }
    }

    fn text(&self, start: usize, end: usize) -> String {
        self.src.get(start..end).unwrap_or("").to_string()
    }

    // ---- top level ----------------------------------------------------------------

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
    fn collect_loc_aliases(&mut self) -> PResult<()> {
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
    fn skip_alias_def(&mut self) -> PResult<()> {
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

    fn parse_module_op(&mut self, funcs: &mut Vec<Func>) -> PResult<()> {
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

    fn parse_func(&mut self) -> PResult<Func> {
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

    fn parse_region(&mut self) -> PResult<Region> {
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

    fn parse_region_inner(&mut self) -> PResult<Region> {
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

    fn parse_block_arg(&mut self) -> PResult<Arg> {
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

    fn parse_results(&mut self) -> PResult<Vec<String>> {
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

    fn parse_op(&mut self) -> PResult<Op> {
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

    fn operand(&mut self, ctx: &str) -> PResult<String> {
        match self.peek().clone() {
            Tok::Percent(n) => {
                self.bump();
                Ok(n)
            }
            _ => Err(self.expected(&format!("an operand '%name' {ctx}"))),
        }
    }

    /// `"name"(%a, ...) [^succ...] <{props}> ({regions}) {attrs} : (T...) -> (R...) loc(..)`
    fn parse_generic_op(&mut self, op: &mut Op) -> PResult<()> {
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

    fn parse_successor_args(&mut self) -> PResult<Vec<String>> {
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

    /// `arith.constant 4 : i32`, `arith.constant dense<...> : tensor<..>`,
    /// `arith.constant true`, `arith.constant 1.0 : f32`, `arith.constant 0xFF800000 : f32`.
    fn parse_constant(&mut self, op: &mut Op) -> PResult<()> {
        if matches!(self.peek(), Tok::LBrace) {
            let a = self.parse_attr_dict()?;
            op.attrs.extend(a);
        }
        let vt = self.cur().clone();
        let value = match vt.tok.clone() {
            Tok::Ident(s) if s == "dense" => {
                self.bump();
                let body = self.parse_dense_body()?;
                self.expect(&Tok::Colon, "after dense<...> of arith.constant")?;
                let (ty, raw) = self.parse_type_raw()?;
                let values = self.dense_values(&body, &ty, &raw, &vt)?;
                op.result_types.push(ty.clone());
                Attr::Dense { values, ty }
            }
            Tok::Ident(s) if s == "true" || s == "false" => {
                self.bump();
                let ty = if self.eat(&Tok::Colon) {
                    self.parse_type()?
                } else {
                    Type::Int(1)
                };
                op.result_types.push(ty);
                Attr::Scalar(Scalar::Bool(s == "true"))
            }
            Tok::Int(_) | Tok::Float(_) => {
                self.bump();
                self.expect(&Tok::Colon, "after the value of arith.constant")?;
                let (ty, raw) = self.parse_type_raw()?;
                let v = self.scalar_of(&vt, &ty, &raw)?;
                op.result_types.push(ty);
                Attr::Scalar(v)
            }
            _ => {
                return Err(self.expected(&format!(
                    "a constant value (integer, float, true/false or dense<...>) for arith.constant at line {}",
                    op.line
                )))
            }
        };
        op.attrs.insert("value".into(), value);
        op.loc = self.parse_opt_loc()?.unwrap_or_default();
        Ok(())
    }

    /// `scf.for %iv = %lb to %ub step %st [iter_args(%a = %init, ...) -> (T...)] [: T] {..}`
    fn parse_for(&mut self, op: &mut Op) -> PResult<()> {
        let ctx = "of scf.for";
        let iv = self.operand("(the induction variable) of scf.for")?;
        self.expect(&Tok::Equal, &format!("after the induction variable {ctx}"))?;
        op.operands
            .push(self.operand(&format!("(lower bound) {ctx}"))?);
        if !self.eat_ident("to") {
            return Err(self.expected("'to' in scf.for"));
        }
        op.operands
            .push(self.operand(&format!("(upper bound) {ctx}"))?);
        if !self.eat_ident("step") {
            return Err(self.expected("'step' in scf.for"));
        }
        op.operands.push(self.operand(&format!("(step) {ctx}"))?);
        let mut iter_names = Vec::new();
        if self.eat_ident("iter_args") {
            self.expect(&Tok::LParen, "after iter_args")?;
            if !self.eat(&Tok::RParen) {
                loop {
                    iter_names.push(self.operand("(iteration argument) in iter_args")?);
                    self.expect(&Tok::Equal, "after an iteration argument name")?;
                    op.operands
                        .push(self.operand("(initial value) in iter_args")?);
                    if self.eat(&Tok::RParen) {
                        break;
                    }
                    self.expect(&Tok::Comma, "or ')' in iter_args")?;
                }
            }
            self.expect(&Tok::Arrow, "and the result types after iter_args(...)")?;
            op.result_types = self.parse_type_list_maybe_paren()?;
        }
        let iv_ty = if self.eat(&Tok::Colon) {
            self.parse_type()?
        } else {
            Type::Index
        };
        if iter_names.len() != op.result_types.len() {
            return Err(self.err_here(format!(
                "scf.for at line {} has {} iter_args but {} result types",
                op.line,
                iter_names.len(),
                op.result_types.len()
            )));
        }
        op.operand_types = vec![iv_ty.clone(); 3];
        op.operand_types.extend(op.result_types.iter().cloned());
        let mut body = self.parse_region()?;
        if matches!(self.peek(), Tok::LBrace) {
            let a = self.parse_attr_dict()?;
            op.attrs.extend(a);
        }
        op.loc = self.parse_opt_loc()?.unwrap_or_default();
        let mut args = vec![Arg {
            name: iv,
            ty: iv_ty,
            loc: op.loc.clone(),
        }];
        for (n, t) in iter_names.into_iter().zip(op.result_types.iter()) {
            args.push(Arg {
                name: n,
                ty: t.clone(),
                loc: op.loc.clone(),
            });
        }
        self.set_entry_args(&mut body, args, op)?;
        op.regions.push(body);
        Ok(())
    }

    fn set_entry_args(&self, region: &mut Region, args: Vec<Arg>, op: &Op) -> PResult<()> {
        match region.blocks.first_mut() {
            Some(b) if b.label.is_none() && b.args.is_empty() => {
                b.args = args;
                Ok(())
            }
            Some(_) => Err(ParseError {
                line: op.line,
                col: 1,
                message: format!(
                    "{}: the body's entry block must not have its own label or arguments",
                    op.name
                ),
            }),
            None => {
                region.blocks.push(Block {
                    label: None,
                    args,
                    ops: Vec::new(),
                });
                Ok(())
            }
        }
    }

    /// `scf.if %c [-> (T...)] { .. } [else { .. }]`
    fn parse_if(&mut self, op: &mut Op) -> PResult<()> {
        op.operands.push(self.operand("(the condition) of scf.if")?);
        op.operand_types.push(Type::Int(1));
        if self.eat(&Tok::Arrow) {
            op.result_types = self.parse_type_list_maybe_paren()?;
        }
        let then = self.parse_region()?;
        let els = if self.eat_ident("else") {
            self.parse_region()?
        } else {
            Region::default()
        };
        op.regions = vec![then, els];
        if matches!(self.peek(), Tok::LBrace) {
            let a = self.parse_attr_dict()?;
            op.attrs.extend(a);
        }
        op.loc = self.parse_opt_loc()?.unwrap_or_default();
        Ok(())
    }

    /// `scf.while (%a = %init, ...) : (T...) -> (R...) { before } do { after }`
    fn parse_while(&mut self, op: &mut Op) -> PResult<()> {
        let mut names = Vec::new();
        if self.eat(&Tok::LParen) && !self.eat(&Tok::RParen) {
            loop {
                names.push(self.operand("(before-region argument) of scf.while")?);
                self.expect(&Tok::Equal, "after a scf.while argument name")?;
                op.operands
                    .push(self.operand("(initial value) of scf.while")?);
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(&Tok::Comma, "or ')' in scf.while arguments")?;
            }
        }
        self.expect(&Tok::Colon, "and the function type of scf.while")?;
        match self.parse_type_spec()? {
            TypeSpec::Arrow(ins, outs) => {
                op.operand_types = ins;
                op.result_types = outs;
            }
            _ => return Err(self.err_here("expected '(T...) -> (R...)' for scf.while")),
        }
        if names.len() != op.operand_types.len() {
            return Err(self.err_here(format!(
                "scf.while at line {} has {} arguments but {} input types",
                op.line,
                names.len(),
                op.operand_types.len()
            )));
        }
        let mut before = self.parse_region()?;
        if !self.eat_ident("do") {
            return Err(self.expected("'do' and the after-region of scf.while"));
        }
        let after = self.parse_region()?;
        if matches!(self.peek(), Tok::LBrace) {
            let a = self.parse_attr_dict()?;
            op.attrs.extend(a);
        }
        op.loc = self.parse_opt_loc()?.unwrap_or_default();
        let args = names
            .into_iter()
            .zip(op.operand_types.iter())
            .map(|(n, t)| Arg {
                name: n,
                ty: t.clone(),
                loc: op.loc.clone(),
            })
            .collect();
        self.set_entry_args(&mut before, args, op)?;
        op.regions = vec![before, after];
        Ok(())
    }

    /// Any other custom form, read generically: keywords, operands (also inside `(..)`
    /// and `[..]`), successors, `@symbols`, `key = value` pairs, an attribute
    /// dictionary, `: types`, `-> types`, regions, then `loc(...)`. Operands and
    /// keywords must be on the op's line (custom forms never wrap), which is how the
    /// end of an op without `loc` is found.
    fn parse_custom_op(&mut self, op: &mut Op, line: u32) -> PResult<()> {
        let mut keywords: Vec<Attr> = Vec::new();
        let mut spec = TypeSpec::None;
        let mut arrow_results: Option<Vec<Type>> = None;
        let mut after_region = false;
        loop {
            let t = self.cur().clone();
            let same_line = t.line == line || after_region;
            if !same_line {
                break;
            }
            match t.tok.clone() {
                Tok::Percent(n) => {
                    self.bump();
                    op.operands.push(n);
                }
                Tok::Caret(l) => {
                    self.bump();
                    let args = self.parse_successor_args()?;
                    op.successors.push(Successor { label: l, args });
                }
                Tok::At(s) => {
                    self.bump();
                    op.attrs.insert("callee".into(), Attr::Str(s));
                }
                Tok::Comma => {
                    self.bump();
                }
                Tok::LParen | Tok::LBracket => {
                    let close = if t.tok == Tok::LParen {
                        Tok::RParen
                    } else {
                        Tok::RBracket
                    };
                    self.bump();
                    while !self.eat(&close) {
                        match self.peek().clone() {
                            Tok::Percent(n) => {
                                self.bump();
                                op.operands.push(n);
                            }
                            Tok::Comma => {
                                self.bump();
                            }
                            _ => {
                                return Err(self.expected(&format!(
                                    "an operand or {} in {} (line {})",
                                    close.describe(),
                                    op.name,
                                    op.line
                                )))
                            }
                        }
                    }
                }
                Tok::Ident(k) if k == "loc" && matches!(self.peek_n(1), Tok::LParen) => break,
                Tok::Ident(k) if matches!(self.peek_n(1), Tok::Equal) => {
                    self.bump();
                    self.bump();
                    let v = self.parse_attr_value(false, 0)?;
                    op.attrs.insert(k, v);
                }
                Tok::Ident(k) if matches!(self.peek_n(1), Tok::LAngle) => {
                    // `overflow<nsw>`, `fastmath<fast>`
                    self.bump();
                    let text = self.skip_balanced()?;
                    op.attrs.insert(k, Attr::Other(text));
                }
                Tok::Ident(k) => {
                    self.bump();
                    keywords.push(Attr::Str(k));
                }
                Tok::Str(s) => {
                    self.bump();
                    keywords.push(Attr::Str(s));
                }
                Tok::Int(s) => {
                    self.bump();
                    match s.parse::<i64>() {
                        Ok(v) => keywords.push(Attr::Int(v)),
                        Err(_) => keywords.push(Attr::Other(s)),
                    }
                }
                Tok::LBrace => {
                    let next = self.tok_at(self.pos + 1);
                    let is_region = next.line != t.line || matches!(next.tok, Tok::Caret(_));
                    if is_region {
                        let r = self.parse_region()?;
                        op.regions.push(r);
                        after_region = true;
                        // Continue with `else {`-like keywords or the loc on the `}` line.
                        let line_now = self.tok_at(self.pos.saturating_sub(1)).line;
                        if self.cur().line != line_now {
                            break;
                        }
                        continue;
                    }
                    let a = self.parse_attr_dict()?;
                    op.attrs.extend(a);
                }
                Tok::Colon => {
                    self.bump();
                    if matches!(self.peek(), Tok::Percent(_)) {
                        // `tt.print "x" {..} : %x : tensor<..>`
                        continue;
                    }
                    spec = self.parse_type_spec()?;
                }
                Tok::Arrow => {
                    self.bump();
                    arrow_results = Some(self.parse_type_list_maybe_paren()?);
                }
                _ => break,
            }
            if after_region {
                let line_now = self.tok_at(self.pos.saturating_sub(1)).line;
                if self.cur().line != line_now {
                    break;
                }
            }
        }
        let stop = self.cur().clone();
        op.loc = self.parse_opt_loc()?.unwrap_or_default();
        self.name_keywords(op, keywords)?;
        self.assign_types(op, spec, arrow_results, &stop)?;
        self.derive_cache_attrs(op);
        Ok(())
    }

    /// Leading keywords of custom forms, named after the op's ODS attributes.
    fn name_keywords(&self, op: &mut Op, keywords: Vec<Attr>) -> PResult<()> {
        let names: &[&str] = match op.name.as_str() {
            "arith.cmpi" | "arith.cmpf" => &["predicate"],
            "tt.get_program_id" | "tt.get_num_programs" => &["axis"],
            "tt.atomic_rmw" => &["atomic_rmw_op", "sem", "scope"],
            "tt.atomic_cas" => &["sem", "scope"],
            "tt.assert" => &["message"],
            "tt.print" => &["prefix"],
            "tt.elementwise_inline_asm" => &["asm_string"],
            _ => &[],
        };
        for (i, k) in keywords.into_iter().enumerate() {
            let key = names
                .get(i)
                .map(|s| s.to_string())
                .unwrap_or_else(|| format!("kw{i}"));
            let v = if key == "axis" {
                match k.as_str() {
                    Some("x") => Attr::Int(0),
                    Some("y") => Attr::Int(1),
                    Some("z") => Attr::Int(2),
                    _ => {
                        return Err(ParseError {
                            line: op.line,
                            col: 1,
                            message: format!("{}: expected axis x, y or z", op.name),
                        })
                    }
                }
            } else {
                k
            };
            op.attrs.insert(key, v);
        }
        Ok(())
    }

    /// Fills operand and result types from the printed types (see module docs of ast).
    fn assign_types(
        &self,
        op: &mut Op,
        spec: TypeSpec,
        arrow_results: Option<Vec<Type>>,
        stop: &Token,
    ) -> PResult<()> {
        let nres = op.results.len();
        let nops = op.operands.len();
        let replicate = |v: Vec<Type>, n: usize| -> Vec<Type> {
            if v.len() == 1 && n > 1 {
                vec![v[0].clone(); n]
            } else {
                v
            }
        };
        match spec {
            TypeSpec::Arrow(ins, outs) => {
                // `tt.cat %a, %b : T -> U` states the shared operand type once.
                op.operand_types = replicate(ins, nops);
                op.result_types = replicate(outs, nres);
            }
            TypeSpec::Dot(a, b, c) => {
                op.operand_types = vec![a, b, c.clone()];
                op.result_types = vec![c];
            }
            TypeSpec::List(v) => {
                let first = v.first().cloned();
                let last = v.last().cloned();
                match (op.name.as_str(), first, last) {
                    ("tt.load", Some(p), _) => {
                        let val = pointee(&p);
                        let mut ot = vec![p.clone()];
                        if nops > 1 {
                            ot.push(with_elem(&val, Type::Int(1)));
                        }
                        if nops > 2 {
                            ot.push(val.clone());
                        }
                        op.operand_types = ot;
                        op.result_types = vec![val];
                    }
                    ("tt.store", Some(p), _) => {
                        let val = pointee(&p);
                        let mut ot = vec![p.clone(), val.clone()];
                        if nops > 2 {
                            ot.push(with_elem(&val, Type::Int(1)));
                        }
                        op.operand_types = ot;
                    }
                    ("arith.cmpi" | "arith.cmpf", Some(t), _) => {
                        op.operand_types = vec![t.clone(); nops];
                        op.result_types = vec![with_elem(&t, Type::Int(1)); nres];
                    }
                    ("arith.select", Some(c), Some(t)) => {
                        let c = if v.len() == 1 { Type::Int(1) } else { c };
                        op.operand_types = vec![c, t.clone(), t.clone()];
                        op.result_types = vec![t; nres];
                    }
                    ("tt.addptr", Some(p), Some(o)) => {
                        op.operand_types = vec![p.clone(), o];
                        op.result_types = vec![p; nres];
                    }
                    ("scf.condition", _, _) => {
                        let mut ot = vec![Type::Int(1)];
                        ot.extend(v);
                        op.operand_types = ot;
                    }
                    (_, Some(t), _) if v.len() == 1 => {
                        op.operand_types = vec![t.clone(); nops];
                        op.result_types = vec![t; nres];
                    }
                    (_, _, Some(t)) => {
                        op.result_types = vec![t; nres];
                        op.operand_types = v;
                    }
                    _ => {}
                }
            }
            TypeSpec::None => {}
        }
        if let Some(r) = arrow_results {
            op.result_types = replicate(r, nres);
        }
        if !op.result_types.is_empty() && op.result_types.len() != nres {
            return Err(ParseError {
                line: stop.line,
                col: stop.col,
                message: format!(
                    "{} has {} results but {} result types",
                    op.name,
                    nres,
                    op.result_types.len()
                ),
            });
        }
        if op.result_types.is_empty() && nres > 0 {
            return Err(ParseError {
                line: stop.line,
                col: stop.col,
                message: format!(
                    "expected ':' and the result type after the operands of {} (line {}), found {}",
                    op.name,
                    op.line,
                    stop.tok.describe()
                ),
            });
        }
        Ok(())
    }

    /// `{cachePolicy = #tt.cache_policy<cache_modifier = cg, eviction_policy = ...>}`
    /// also yields `cacheModifier = cg` and `evictionPolicy = ...` string attributes.
    fn derive_cache_attrs(&self, op: &mut Op) {
        let Some(Attr::Other(text)) = op.attrs.get("cachePolicy").cloned() else {
            return;
        };
        for (key, out) in [
            ("cache_modifier", "cacheModifier"),
            ("eviction_policy", "evictionPolicy"),
        ] {
            if let Some(i) = text.find(key) {
                let rest = text.get(i + key.len()..).unwrap_or("");
                let rest = rest.trim_start().trim_start_matches('=').trim_start();
                let v: String = rest
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !v.is_empty() {
                    op.attrs.entry(out.to_string()).or_insert(Attr::Str(v));
                }
            }
        }
    }

    // ---- types --------------------------------------------------------------------

    /// After `:` of an op: `T`, `T, U`, `T to U`, `T -> U`, `(T..) -> (U..)`, `A * B -> C`.
    fn parse_type_spec(&mut self) -> PResult<TypeSpec> {
        if matches!(self.peek(), Tok::LParen) {
            let ins = self.parse_paren_types()?;
            self.expect(&Tok::Arrow, "after '(types)' of a function type")?;
            let outs = self.parse_type_list_maybe_paren()?;
            return Ok(TypeSpec::Arrow(ins, outs));
        }
        let t = self.parse_type()?;
        if self.eat_ident("to") {
            let u = self.parse_type()?;
            return Ok(TypeSpec::Arrow(vec![t], vec![u]));
        }
        if self.eat(&Tok::Arrow) {
            let outs = self.parse_type_list_maybe_paren()?;
            return Ok(TypeSpec::Arrow(vec![t], outs));
        }
        if self.eat(&Tok::Star) {
            let b = self.parse_type()?;
            self.expect(&Tok::Arrow, "after 'A * B' of tt.dot")?;
            let c = self.parse_type()?;
            return Ok(TypeSpec::Dot(t, b, c));
        }
        let mut v = vec![t];
        while matches!(self.peek(), Tok::Comma) {
            self.bump();
            v.push(self.parse_type()?);
        }
        Ok(TypeSpec::List(v))
    }

    fn parse_paren_types(&mut self) -> PResult<Vec<Type>> {
        self.expect(&Tok::LParen, "to open a type list")?;
        let mut v = Vec::new();
        if self.eat(&Tok::RParen) {
            return Ok(v);
        }
        loop {
            v.push(self.parse_type()?);
            if self.eat(&Tok::RParen) {
                return Ok(v);
            }
            self.expect(&Tok::Comma, "or ')' in a type list")?;
        }
    }

    fn parse_type_list_maybe_paren(&mut self) -> PResult<Vec<Type>> {
        if matches!(self.peek(), Tok::LParen) {
            self.parse_paren_types()
        } else {
            Ok(vec![self.parse_type()?])
        }
    }

    pub fn parse_type(&mut self) -> PResult<Type> {
        Ok(self.parse_type_raw()?.0)
    }

    /// Parses a type from the source text at the current token; returns it with its
    /// source text, and moves past the tokens it covered.
    fn parse_type_raw(&mut self) -> PResult<(Type, String)> {
        let t = self.cur().clone();
        if t.tok == Tok::Eof {
            return Err(self.expected("a type"));
        }
        let mut tp = TypeText {
            s: self.src.as_bytes(),
            pos: t.start,
        };
        let ty = match tp.ty(0) {
            Some(ty) => ty,
            None => {
                return Err(ParseError {
                    line: t.line,
                    col: t.col,
                    message: format!("expected a type, found {}", t.tok.describe()),
                })
            }
        };
        let end = tp.pos;
        while self.cur().start < end && !self.at_eof() {
            self.bump();
        }
        Ok((ty, self.text(t.start, end)))
    }

    // ---- attributes ---------------------------------------------------------------

    /// `{key = value, key, "quoted.key" = value}`
    fn parse_attr_dict(&mut self) -> PResult<BTreeMap<String, Attr>> {
        self.expect(&Tok::LBrace, "to open an attribute dictionary")?;
        let mut out = BTreeMap::new();
        if self.eat(&Tok::RBrace) {
            return Ok(out);
        }
        loop {
            let key = match self.peek().clone() {
                Tok::Ident(k) | Tok::Str(k) => {
                    self.bump();
                    k
                }
                _ => return Err(self.expected("an attribute name")),
            };
            let v = if self.eat(&Tok::Equal) {
                self.parse_attr_value(true, 0)?
            } else {
                Attr::Unit
            };
            out.insert(key, v);
            if self.eat(&Tok::RBrace) {
                return Ok(out);
            }
            self.expect(&Tok::Comma, "or '}' in an attribute dictionary")?;
        }
    }

    /// One attribute value. `in_dict`: a trailing `: type` belongs to the value.
    fn parse_attr_value(&mut self, in_dict: bool, depth: u32) -> PResult<Attr> {
        if depth > MAX_NEST {
            return Err(self.err_here("attribute nested too deeply"));
        }
        let t = self.cur().clone();
        match t.tok.clone() {
            Tok::Int(_) | Tok::Float(_) => {
                self.bump();
                if in_dict && self.eat(&Tok::Colon) {
                    let (ty, raw) = self.parse_type_raw()?;
                    let s = self.scalar_of(&t, &ty, &raw)?;
                    return Ok(match s {
                        Scalar::Int(i) => match i64::try_from(i) {
                            Ok(i) => Attr::Int(i),
                            Err(_) => Attr::Scalar(s),
                        },
                        _ => Attr::Scalar(s),
                    });
                }
                Ok(match t.tok {
                    Tok::Int(s) => match parse_int(&s).and_then(|i| i64::try_from(i).ok()) {
                        Some(i) => Attr::Int(i),
                        None => Attr::Other(s),
                    },
                    Tok::Float(s) => match s.parse::<f64>() {
                        Ok(f) => Attr::Scalar(Scalar::Float(f)),
                        Err(_) => Attr::Other(s),
                    },
                    _ => Attr::Other(String::new()),
                })
            }
            Tok::Str(s) => {
                self.bump();
                if in_dict && self.eat(&Tok::Colon) {
                    self.parse_type()?;
                }
                Ok(Attr::Str(s))
            }
            Tok::At(s) => {
                self.bump();
                Ok(Attr::Str(s))
            }
            Tok::Ident(k) => match k.as_str() {
                "true" | "false" => {
                    self.bump();
                    Ok(Attr::Scalar(Scalar::Bool(k == "true")))
                }
                "unit" => {
                    self.bump();
                    Ok(Attr::Unit)
                }
                "array" if matches!(self.peek_n(1), Tok::LAngle) => {
                    self.bump();
                    let start = self.pos;
                    let text = self.skip_balanced()?;
                    let end = self.pos;
                    Ok(array_attr(&self.toks[start..end])
                        .unwrap_or(Attr::Other(format!("array{text}"))))
                }
                "dense" if matches!(self.peek_n(1), Tok::LAngle) => {
                    self.bump();
                    let body = self.parse_dense_body()?;
                    self.expect(&Tok::Colon, "after dense<...>")?;
                    let (ty, raw) = self.parse_type_raw()?;
                    let values = self.dense_values(&body, &ty, &raw, &t)?;
                    Ok(Attr::Dense { values, ty })
                }
                _ if matches!(self.peek_n(1), Tok::LAngle) => {
                    self.bump();
                    let text = self.skip_balanced()?;
                    Ok(Attr::Other(format!("{k}{text}")))
                }
                _ => {
                    self.bump();
                    Ok(Attr::Str(k))
                }
            },
            Tok::LBracket => {
                let start = self.pos;
                let text = self.skip_balanced()?;
                let end = self.pos;
                Ok(int_list(&self.toks[start..end])
                    .map(Attr::Array)
                    .unwrap_or(Attr::Other(text)))
            }
            Tok::Hash(h) => {
                self.bump();
                if matches!(self.peek(), Tok::LAngle) {
                    let text = self.skip_balanced()?;
                    Ok(Attr::Other(format!("#{h}{text}")))
                } else {
                    Ok(Attr::Other(format!("#{h}")))
                }
            }
            Tok::LBrace => Ok(Attr::Other(self.skip_balanced()?)),
            Tok::LParen | Tok::Bang(_) => {
                // A type (function type or dialect type) used as an attribute.
                let start = t.start;
                if matches!(t.tok, Tok::LParen) {
                    self.parse_type_spec()?;
                } else {
                    self.parse_type()?;
                }
                let end = self.tok_at(self.pos.saturating_sub(1)).end;
                Ok(Attr::Other(self.text(start, end.max(start))))
            }
            _ => Err(self.expected("an attribute value")),
        }
    }

    /// The tokens between `dense<` and `>`, as a tree of elements.
    fn parse_dense_body(&mut self) -> PResult<DenseElem> {
        self.expect(&Tok::LAngle, "after 'dense'")?;
        let e = self.parse_dense_elem(0)?;
        self.expect(&Tok::RAngle, "to close dense<...>")?;
        Ok(e)
    }

    fn parse_dense_elem(&mut self, depth: u32) -> PResult<DenseElem> {
        if depth > MAX_NEST {
            return Err(self.err_here("dense<...> nested too deeply"));
        }
        let t = self.cur().clone();
        match t.tok {
            Tok::LBracket => {
                self.bump();
                let mut v = Vec::new();
                if self.eat(&Tok::RBracket) {
                    return Ok(DenseElem::List(v));
                }
                loop {
                    v.push(self.parse_dense_elem(depth + 1)?);
                    if self.eat(&Tok::RBracket) {
                        return Ok(DenseElem::List(v));
                    }
                    self.expect(&Tok::Comma, "or ']' in dense<...>")?;
                }
            }
            Tok::Int(_) | Tok::Float(_) | Tok::Str(_) => {
                self.bump();
                Ok(DenseElem::Leaf(t))
            }
            Tok::Ident(ref s) if s == "true" || s == "false" => {
                self.bump();
                Ok(DenseElem::Leaf(t))
            }
            _ => Err(self.expected("a dense element (number, true/false or '[')")),
        }
    }

    fn dense_values(
        &self,
        body: &DenseElem,
        ty: &Type,
        raw: &str,
        at: &Token,
    ) -> PResult<Vec<Scalar>> {
        let elem = ty.elem().clone();
        let mut leaves = Vec::new();
        body.flatten(&mut leaves);
        let mut out = Vec::new();
        for leaf in leaves {
            if let Tok::Str(hex) = &leaf.tok {
                // `dense<"0x0000803F...">`: raw little-endian element bytes.
                out.extend(self.dense_hex_string(hex, &elem, raw, leaf)?);
            } else {
                out.push(self.scalar_of(leaf, &elem, raw)?);
            }
        }
        let n: i64 = ty
            .shape()
            .iter()
            .try_fold(1i64, |a, &d| a.checked_mul(d.max(0)))
            .unwrap_or(-1);
        if out.len() != 1 && (n < 0 || out.len() as i64 != n) {
            return Err(ParseError {
                line: at.line,
                col: at.col,
                message: format!(
                    "dense<...> has {} elements but its type {ty} has {n}",
                    out.len()
                ),
            });
        }
        Ok(out)
    }

    fn dense_hex_string(
        &self,
        hex: &str,
        elem: &Type,
        raw: &str,
        at: &Token,
    ) -> PResult<Vec<Scalar>> {
        let err = |m: &str| ParseError {
            line: at.line,
            col: at.col,
            message: m.to_string(),
        };
        let digits = hex
            .strip_prefix("0x")
            .ok_or_else(|| err("expected a \"0x...\" hex string in dense<...>"))?;
        if digits.len() % 2 != 0 || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(err("malformed hex string in dense<...>"));
        }
        let bytes: Vec<u8> = (0..digits.len() / 2)
            .filter_map(|i| u8::from_str_radix(digits.get(2 * i..2 * i + 2)?, 16).ok())
            .collect();
        let width = match elem {
            Type::Int(w) => (*w).max(8).div_ceil(8) as usize,
            Type::Float(_) => float_format(elem, raw)
                .map(|f| f.width() as usize / 8)
                .ok_or_else(|| err("unsupported float type in dense<...>"))?,
            _ => return Err(err("unsupported element type in a dense hex string")),
        };
        if width == 0 || width > 16 || !bytes.len().is_multiple_of(width) {
            return Err(err("hex string length does not match the element type"));
        }
        let mut out = Vec::new();
        for chunk in bytes.chunks(width) {
            let mut bits: u128 = 0;
            for (i, b) in chunk.iter().enumerate() {
                bits |= (*b as u128) << (8 * i);
            }
            out.push(match elem {
                Type::Int(1) => Scalar::Bool(bits != 0),
                Type::Int(w) => {
                    let w = (*w).min(128);
                    let v = if w < 128 && (bits >> (w - 1)) & 1 == 1 {
                        (bits as i128) - (1i128 << w)
                    } else {
                        bits as i128
                    };
                    Scalar::Int(v)
                }
                _ => {
                    let f = float_format(elem, raw)
                        .and_then(|f| floats::decode_bits(f, bits))
                        .ok_or_else(|| err("bad float bits in dense<...>"))?;
                    Scalar::Float(f)
                }
            });
        }
        Ok(out)
    }

    /// A literal token as a constant of type `ty` (the element type for tensors).
    fn scalar_of(&self, t: &Token, ty: &Type, raw: &str) -> PResult<Scalar> {
        let err = |m: String| ParseError {
            line: t.line,
            col: t.col,
            message: m,
        };
        let elem = ty.elem();
        match (&t.tok, elem) {
            (Tok::Ident(s), _) if s == "true" || s == "false" => Ok(Scalar::Bool(s == "true")),
            (Tok::Int(s), Type::Int(1)) => match parse_int(s) {
                Some(0) => Ok(Scalar::Bool(false)),
                Some(1) | Some(-1) => Ok(Scalar::Bool(true)),
                _ => Err(err(format!("'{s}' is not an i1 value"))),
            },
            (Tok::Int(s), Type::Int(_) | Type::Index) => parse_int(s)
                .map(Scalar::Int)
                .ok_or_else(|| err(format!("integer literal '{s}' out of range"))),
            (Tok::Int(s), Type::Float(_)) => {
                let fmt = float_format(elem, raw)
                    .ok_or_else(|| err(format!("unsupported float type '{raw}'")))?;
                if s.starts_with("0x") || s.starts_with("-0x") {
                    let bits = s
                        .strip_prefix("0x")
                        .and_then(|h| u128::from_str_radix(h, 16).ok())
                        .ok_or_else(|| err(format!("bad hex float literal '{s}'")))?;
                    floats::decode_bits(fmt, bits)
                        .map(Scalar::Float)
                        .ok_or_else(|| err(format!("hex literal '{s}' is wider than {elem}")))
                } else {
                    floats::round_decimal(fmt, s)
                        .map(Scalar::Float)
                        .ok_or_else(|| err(format!("'{s}' is not representable as {elem}")))
                }
            }
            (Tok::Float(s), Type::Float(_)) => {
                let fmt = float_format(elem, raw)
                    .ok_or_else(|| err(format!("unsupported float type '{raw}'")))?;
                floats::round_decimal(fmt, s)
                    .map(Scalar::Float)
                    .ok_or_else(|| err(format!("'{s}' is not representable as {elem}")))
            }
            (tok, _) => Err(err(format!(
                "expected a constant of type {elem}, found {}",
                tok.describe()
            ))),
        }
    }

    // ---- locations ----------------------------------------------------------------

    /// An optional trailing `loc(...)`, resolved.
    fn parse_opt_loc(&mut self) -> PResult<Option<Loc>> {
        if !(self.is_ident("loc") && matches!(self.peek_n(1), Tok::LParen)) {
            return Ok(None);
        }
        let at = self.cur().clone();
        let e = self.parse_loc_expr_wrapped()?;
        self.resolve(&e, 0, &at).map(Some)
    }

    /// `loc(...)`
    fn parse_loc_expr_wrapped(&mut self) -> PResult<LocExpr> {
        if !self.eat_ident("loc") {
            return Err(self.expected("'loc'"));
        }
        self.expect(&Tok::LParen, "after 'loc'")?;
        let e = self.parse_loc_expr(0)?;
        self.expect(&Tok::RParen, "to close loc(...)")?;
        Ok(e)
    }

    fn parse_loc_expr(&mut self, depth: u32) -> PResult<LocExpr> {
        if depth > MAX_NEST {
            return Err(self.err_here("location nested too deeply"));
        }
        match self.peek().clone() {
            Tok::Hash(a) => {
                self.bump();
                Ok(LocExpr::Alias(a))
            }
            Tok::Ident(k) if k == "unknown" => {
                self.bump();
                Ok(LocExpr::Unknown)
            }
            Tok::Ident(k) if k == "callsite" => {
                self.bump();
                self.expect(&Tok::LParen, "after 'callsite'")?;
                let callee = self.parse_loc_expr(depth + 1)?;
                if !self.eat_ident("at") {
                    return Err(self.expected("'at' in callsite(...)"));
                }
                let caller = self.parse_loc_expr(depth + 1)?;
                self.expect(&Tok::RParen, "to close callsite(...)")?;
                Ok(LocExpr::CallSite {
                    callee: Box::new(callee),
                    caller: Box::new(caller),
                })
            }
            Tok::Ident(k) if k == "fused" => {
                self.bump();
                if matches!(self.peek(), Tok::LAngle) {
                    self.skip_balanced()?;
                }
                self.expect(&Tok::LBracket, "after 'fused'")?;
                let mut v = Vec::new();
                if !self.eat(&Tok::RBracket) {
                    loop {
                        v.push(self.parse_loc_expr(depth + 1)?);
                        if self.eat(&Tok::RBracket) {
                            break;
                        }
                        self.expect(&Tok::Comma, "or ']' in fused[...]")?;
                    }
                }
                Ok(LocExpr::Fused(v))
            }
            Tok::Str(s) => {
                self.bump();
                if self.eat(&Tok::Colon) {
                    let line = self.loc_number("a line number")?;
                    self.expect(&Tok::Colon, "after the line number")?;
                    let col = self.loc_number("a column number")?;
                    // Newer MLIR prints ranges: `"f":1:2 to 3:4` / `to :4`.
                    if self.eat_ident("to") {
                        if matches!(self.peek(), Tok::Int(_)) {
                            self.bump();
                        }
                        if self.eat(&Tok::Colon) {
                            self.loc_number("a column number")?;
                        }
                    }
                    let file = self.intern_file(&s);
                    Ok(LocExpr::File { file, line, col })
                } else if self.eat(&Tok::LParen) {
                    let child = self.parse_loc_expr(depth + 1)?;
                    self.expect(&Tok::RParen, "to close a named location")?;
                    Ok(LocExpr::Name {
                        name: s,
                        child: Some(Box::new(child)),
                    })
                } else {
                    Ok(LocExpr::Name {
                        name: s,
                        child: None,
                    })
                }
            }
            _ => Err(self.expected("a location")),
        }
    }

    fn loc_number(&mut self, what: &str) -> PResult<u32> {
        match self.peek().clone() {
            Tok::Int(s) => match s.parse::<u32>() {
                Ok(n) => {
                    self.bump();
                    Ok(n)
                }
                Err(_) => Err(self.expected(what)),
            },
            _ => Err(self.expected(what)),
        }
    }

    fn intern_file(&mut self, s: &str) -> Arc<str> {
        if let Some(f) = self.files.get(s) {
            return f.clone();
        }
        let f: Arc<str> = Arc::from(s);
        self.files.insert(s.to_string(), f.clone());
        f
    }

    fn resolve(&mut self, e: &LocExpr, depth: u32, at: &Token) -> PResult<Loc> {
        if depth > 4 * MAX_NEST {
            return Err(ParseError {
                line: at.line,
                col: at.col,
                message: "location aliases form a cycle or nest too deeply".into(),
            });
        }
        Ok(match e {
            LocExpr::Unknown => Loc::default(),
            LocExpr::File { file, line, col } => Loc {
                file: Some(file.clone()),
                line: *line,
                col: *col,
                name: None,
            },
            LocExpr::Name { name, child } => {
                let mut l = match child {
                    Some(c) => self.resolve(c, depth + 1, at)?,
                    None => Loc::default(),
                };
                l.name = Some(name.clone());
                l
            }
            LocExpr::CallSite { callee, caller } => {
                // The outermost caller is the user's line.
                let outer = self.resolve(caller, depth + 1, at)?;
                if outer.file.is_some() {
                    outer
                } else {
                    self.resolve(callee, depth + 1, at)?
                }
            }
            LocExpr::Fused(v) => {
                let mut first = Loc::default();
                for (i, x) in v.iter().enumerate() {
                    let l = self.resolve(x, depth + 1, at)?;
                    if l.file.is_some() {
                        return Ok(l);
                    }
                    if i == 0 {
                        first = l;
                    }
                }
                first
            }
            LocExpr::Alias(a) => {
                if let Some(l) = self.resolved.get(a) {
                    return Ok(l.clone());
                }
                let Some(def) = self.loc_aliases.get(a).cloned() else {
                    return Err(ParseError {
                        line: at.line,
                        col: at.col,
                        message: format!("undefined location alias '#{a}'"),
                    });
                };
                let l = self.resolve(&def, depth + 1, at)?;
                self.resolved.insert(a.clone(), l.clone());
                l
            }
        })
    }
}

/// Elements of `dense<...>` before they are typed.
#[derive(Debug)]
enum DenseElem {
    Leaf(Token),
    List(Vec<DenseElem>),
}

impl DenseElem {
    fn flatten<'b>(&'b self, out: &mut Vec<&'b Token>) {
        // Iterative: nesting depth is already capped, but keep it cheap anyway.
        let mut stack = vec![self];
        while let Some(e) = stack.pop() {
            match e {
                DenseElem::Leaf(t) => out.push(t),
                DenseElem::List(v) => stack.extend(v.iter().rev()),
            }
        }
    }
}

/// Decimal or hex (`0x...`, bit pattern) integer text.
fn parse_int(s: &str) -> Option<i128> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s),
    };
    let v = if let Some(h) = body.strip_prefix("0x") {
        i128::from_str_radix(h, 16).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    if neg {
        v.checked_neg()
    } else {
        Some(v)
    }
}

/// `<i32: 1, 0>` token slice of `array<...>`.
fn array_attr(toks: &[Token]) -> Option<Attr> {
    // toks: '<' elemtype [':' values...] '>'
    let inner = toks.get(1..toks.len().checked_sub(1)?)?;
    let mut it = inner.iter();
    match it.next().map(|t| &t.tok) {
        Some(Tok::Ident(t)) if t.starts_with('i') => {}
        _ => return None,
    }
    let mut v = Vec::new();
    match it.next().map(|t| &t.tok) {
        None => return Some(Attr::Array(v)),
        Some(Tok::Colon) => {}
        _ => return None,
    }
    for (i, t) in it.enumerate() {
        match (&t.tok, i % 2) {
            (Tok::Int(s), 0) => v.push(i64::try_from(parse_int(s)?).ok()?),
            (Tok::Ident(s), 0) if s == "true" || s == "false" => v.push((s == "true") as i64),
            (Tok::Comma, 1) => {}
            _ => return None,
        }
    }
    Some(Attr::Array(v))
}

/// `[1, 0]` token slice.
fn int_list(toks: &[Token]) -> Option<Vec<i64>> {
    let inner = toks.get(1..toks.len().checked_sub(1)?)?;
    let mut v = Vec::new();
    for (i, t) in inner.iter().enumerate() {
        match (&t.tok, i % 2) {
            (Tok::Int(s), 0) => v.push(i64::try_from(parse_int(s)?).ok()?),
            (Tok::Comma, 1) => {}
            _ => return None,
        }
    }
    Some(v)
}

/// The binary format of a float (element) type; `raw` tells f8 variants apart.
fn float_format(ty: &Type, raw: &str) -> Option<FloatFormat> {
    match ty.elem() {
        Type::Float(FloatKind::F16) => Some(FloatFormat::F16),
        Type::Float(FloatKind::BF16) => Some(FloatFormat::BF16),
        Type::Float(FloatKind::F32) => Some(FloatFormat::F32),
        Type::Float(FloatKind::F64) => Some(FloatFormat::F64),
        Type::Float(FloatKind::F8) => {
            if raw.contains("f8E5M2FNUZ") || raw.contains("FNUZ") {
                None
            } else if raw.contains("f8E5M2") {
                Some(FloatFormat::F8E5M2)
            } else if raw.contains("f8E4M3FN") {
                Some(FloatFormat::F8E4M3FN)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Types read directly from the source bytes (so that `4x8xf32` needs no special
/// lexing). Every method returns `None` on malformed input and never panics.
struct TypeText<'s> {
    s: &'s [u8],
    pos: usize,
}

impl TypeText<'_> {
    fn peek(&self) -> u8 {
        self.s.get(self.pos).copied().unwrap_or(0)
    }

    fn ws(&mut self) {
        while matches!(self.peek(), b' ' | b'\t' | b'\r' | b'\n') {
            self.pos += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.ws();
        if self.peek() == c {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn word(&mut self) -> &str {
        let start = self.pos;
        while self.peek().is_ascii_alphanumeric() || matches!(self.peek(), b'_' | b'.') {
            self.pos += 1;
        }
        std::str::from_utf8(self.s.get(start..self.pos).unwrap_or(b"")).unwrap_or("")
    }

    /// Skips to the matching `>` of an already-consumed `<`.
    fn skip_to_close_angle(&mut self) -> Option<()> {
        let mut depth = 1u32;
        while depth > 0 {
            match self.peek() {
                0 => return None,
                b'<' => depth += 1,
                b'>' => depth -= 1,
                b'-' if self.s.get(self.pos + 1) == Some(&b'>') => self.pos += 1,
                _ => {}
            }
            self.pos += 1;
        }
        Some(())
    }

    fn ty(&mut self, depth: u32) -> Option<Type> {
        if depth > MAX_NEST {
            return None;
        }
        self.ws();
        let start = self.pos;
        if self.peek() == b'!' {
            self.pos += 1;
            let name = self.word().to_string();
            if name.is_empty() {
                return None;
            }
            if name == "tt.ptr" {
                if !self.eat(b'<') {
                    return None;
                }
                let inner = self.ty(depth + 1)?;
                if self.eat(b',') {
                    self.ws();
                    while self.peek().is_ascii_digit() {
                        self.pos += 1;
                    }
                }
                if !self.eat(b'>') {
                    return None;
                }
                return Some(Type::Ptr(Box::new(inner)));
            }
            if self.peek() == b'<' {
                self.pos += 1;
                self.skip_to_close_angle()?;
            }
            let text = std::str::from_utf8(self.s.get(start..self.pos)?).ok()?;
            return Some(Type::Other(text.to_string()));
        }
        if self.peek() == b'<' {
            // `<tensor<..>>`: pointer shorthand printed by some tt ops.
            self.pos += 1;
            let inner = self.ty(depth + 1)?;
            if !self.eat(b'>') {
                return None;
            }
            return Some(Type::Ptr(Box::new(inner)));
        }
        let w = self.word().to_string();
        match w.as_str() {
            "" => None,
            "index" => Some(Type::Index),
            "f16" => Some(Type::Float(FloatKind::F16)),
            "bf16" => Some(Type::Float(FloatKind::BF16)),
            "f32" | "tf32" => Some(Type::Float(FloatKind::F32)),
            "f64" => Some(Type::Float(FloatKind::F64)),
            "tensor" | "vector" => {
                if self.peek() != b'<' {
                    return None;
                }
                self.pos += 1;
                let mut shape = Vec::new();
                loop {
                    self.ws();
                    let c = self.peek();
                    if c.is_ascii_digit() {
                        let ds = self.pos;
                        while self.peek().is_ascii_digit() {
                            self.pos += 1;
                        }
                        let d = std::str::from_utf8(self.s.get(ds..self.pos)?)
                            .ok()?
                            .parse::<i64>()
                            .ok()?;
                        if self.peek() != b'x' {
                            return None;
                        }
                        self.pos += 1;
                        shape.push(d);
                    } else if c == b'?' && self.s.get(self.pos + 1) == Some(&b'x') {
                        self.pos += 2;
                        shape.push(-1);
                    } else {
                        break;
                    }
                }
                let elem = self.ty(depth + 1)?;
                if self.eat(b',') {
                    // Encoding (`#blocked`) or memory space: skip to the close.
                    self.skip_to_close_angle()?;
                } else if !self.eat(b'>') {
                    return None;
                }
                Some(Type::Tensor {
                    shape,
                    elem: Box::new(elem),
                })
            }
            w if w.starts_with("f8E") || w.starts_with("f6E") || w.starts_with("f4E") => {
                Some(Type::Float(FloatKind::F8))
            }
            w if w.starts_with('i') && w.len() > 1 => {
                let bits: u32 = w.get(1..)?.parse().ok()?;
                if bits == 0 || bits > 128 {
                    return None;
                }
                Some(Type::Int(bits))
            }
            w if (w.starts_with("si") || w.starts_with("ui")) && w.len() > 2 => {
                let bits: u32 = w.get(2..)?.parse().ok()?;
                if bits == 0 || bits > 128 {
                    return None;
                }
                Some(Type::Int(bits))
            }
            "none" => Some(Type::Other("none".into())),
            _ => None,
        }
    }
}
