//! Triton's custom assembly forms of ops (`arith.constant`, `scf.for`/`if`/`while`,
//! `tt.*` with keywords), and the typing of an op's operands and results from the
//! types written after its `:`.
//!
//! Invariant: every custom form is normalised to the same `ast::Op` shape as the generic
//! form; malformed input is a `ParseError`, never a panic.

use super::cursor::{PResult, Parser};
use super::types::TypeSpec;
use crate::triton_ir::ast::{Arg, Attr, Block, Op, Region, Scalar, Successor, Type};
use crate::triton_ir::error::ParseError;
use crate::triton_ir::lexer::{Tok, Token};

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

impl Parser<'_> {
    /// `arith.constant 4 : i32`, `arith.constant dense<...> : tensor<..>`,
    /// `arith.constant true`, `arith.constant 1.0 : f32`, `arith.constant 0xFF800000 : f32`.
    pub(super) fn parse_constant(&mut self, op: &mut Op) -> PResult<()> {
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
    pub(super) fn parse_for(&mut self, op: &mut Op) -> PResult<()> {
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

    pub(super) fn set_entry_args(
        &self,
        region: &mut Region,
        args: Vec<Arg>,
        op: &Op,
    ) -> PResult<()> {
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
    pub(super) fn parse_if(&mut self, op: &mut Op) -> PResult<()> {
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
    pub(super) fn parse_while(&mut self, op: &mut Op) -> PResult<()> {
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
    pub(super) fn parse_custom_op(&mut self, op: &mut Op, line: u32) -> PResult<()> {
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
    pub(super) fn name_keywords(&self, op: &mut Op, keywords: Vec<Attr>) -> PResult<()> {
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
    pub(super) fn assign_types(
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
    pub(super) fn derive_cache_attrs(&self, op: &mut Op) {
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
}
