//! Lexer and parser for PTX as NVRTC 12.x and Triton 3.x emit it.
//!
//! Architecture invariant: never panics; a malformed file gives a [`ParseError`] with
//! the line, column and what was expected. Debug sections and pragmas are skipped;
//! everything an entry executes is kept. `.func` bodies are parsed like entries and
//! their calls inlined into the entries by `calls::inline` (call-site `.param` blocks
//! get module-unique names here, so that the inliner can match them by name).

use super::ast::*;
use super::scope::Scopes;
use super::ParseError;
use crate::triton_ir::ast::Loc;
use std::collections::BTreeMap;
use std::sync::Arc;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Ident(String),
    Int(i64),
    FBits { bits: u64, is_f64: bool },
    Float(f64),
    Str(String),
    Punct(char),
}

#[derive(Clone, Debug)]
struct Token {
    tok: Tok,
    text: String,
    line: u32,
    col: u32,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || matches!(c, '_' | '$' | '%' | '.')
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '$' | '.')
}

fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = src.chars().collect();
    let mut toks = Vec::new();
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let err = |line, col, message: String| ParseError { line, col, message };
    while i < chars.len() {
        let c = chars[i];
        let (tl, tc) = (line, col);
        if c == '\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
            continue;
        }
        if c == '/' && chars.get(i + 1) == Some(&'*') {
            i += 2;
            col += 2;
            loop {
                match chars.get(i) {
                    None => return Err(err(tl, tc, "unterminated /* comment".into())),
                    Some('*') if chars.get(i + 1) == Some(&'/') => {
                        i += 2;
                        col += 2;
                        break;
                    }
                    Some('\n') => {
                        i += 1;
                        line += 1;
                        col = 1;
                    }
                    Some(_) => {
                        i += 1;
                        col += 1;
                    }
                }
            }
            continue;
        }
        let start = i;
        let tok = if c == '"' {
            i += 1;
            let mut s = String::new();
            loop {
                match chars.get(i) {
                    None | Some('\n') => {
                        return Err(err(tl, tc, "unterminated string literal".into()))
                    }
                    Some('"') => {
                        i += 1;
                        break;
                    }
                    Some('\\') if i + 1 < chars.len() => {
                        s.push(chars[i + 1]);
                        i += 2;
                    }
                    Some(&ch) => {
                        s.push(ch);
                        i += 1;
                    }
                }
            }
            Tok::Str(s)
        } else if c.is_ascii_digit() {
            let next = chars.get(i + 1).copied().unwrap_or(' ');
            let hex_run = |from: usize| {
                let mut j = from;
                while j < chars.len() && chars[j].is_ascii_hexdigit() {
                    j += 1;
                }
                j
            };
            if c == '0' && matches!(next, 'f' | 'F' | 'd' | 'D') {
                let is_f64 = matches!(next, 'd' | 'D');
                let j = hex_run(i + 2);
                let digits: String = chars[i + 2..j].iter().collect();
                let want = if is_f64 { 16 } else { 8 };
                if digits.len() != want {
                    return Err(err(
                        tl,
                        tc,
                        format!("expected {want} hex digits in a float literal"),
                    ));
                }
                i = j;
                let bits = u64::from_str_radix(&digits, 16)
                    .map_err(|_| err(tl, tc, "bad float literal".into()))?;
                Tok::FBits { bits, is_f64 }
            } else if c == '0' && matches!(next, 'x' | 'X') {
                let j = hex_run(i + 2);
                let digits: String = chars[i + 2..j].iter().collect();
                i = j;
                if chars.get(i) == Some(&'U') {
                    i += 1;
                }
                let v = u64::from_str_radix(&digits, 16)
                    .map_err(|_| err(tl, tc, "expected hex digits after 0x".into()))?;
                Tok::Int(v as i64)
            } else {
                let mut j = i;
                while j < chars.len() && chars[j].is_ascii_digit() {
                    j += 1;
                }
                let is_float = chars.get(j) == Some(&'.')
                    && chars.get(j + 1).is_some_and(|d| d.is_ascii_digit());
                if is_float {
                    j += 1;
                    while j < chars.len() && chars[j].is_ascii_digit() {
                        j += 1;
                    }
                    let text: String = chars[i..j].iter().collect();
                    i = j;
                    Tok::Float(
                        text.parse()
                            .map_err(|_| err(tl, tc, "bad decimal float".into()))?,
                    )
                } else {
                    let text: String = chars[i..j].iter().collect();
                    i = j;
                    if chars.get(i) == Some(&'U') {
                        i += 1;
                    }
                    let v: u64 = text
                        .parse()
                        .map_err(|_| err(tl, tc, format!("integer {text} is too large")))?;
                    Tok::Int(v as i64)
                }
            }
        } else if is_ident_start(c) {
            i += 1;
            while i < chars.len() && is_ident_char(chars[i]) {
                i += 1;
            }
            Tok::Ident(chars[start..i].iter().collect())
        } else if ",;:[]{}()<>+-@!|=".contains(c) {
            i += 1;
            Tok::Punct(c)
        } else {
            return Err(err(tl, tc, format!("unexpected character '{c}'")));
        };
        let text: String = chars[start..i].iter().collect();
        col += (i - start) as u32;
        toks.push(Token {
            tok,
            text,
            line: tl,
            col: tc,
        });
    }
    Ok(toks)
}

/// Parse a whole .ptx file.
pub fn parse(src: &str) -> Result<Module, ParseError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        module: Module::default(),
        next_param: 0,
    };
    p.module()?;
    let mut module = p.module;
    super::calls::inline(&mut module)?;
    let files: BTreeMap<u32, Arc<str>> = module
        .files
        .iter()
        .map(|(k, v)| (*k, Arc::from(v.as_str())))
        .collect();
    let fix = |loc: &mut Loc| {
        let num = loc.file.as_ref().and_then(|f| f.parse::<u32>().ok());
        loc.file = num.and_then(|n| files.get(&n).cloned());
    };
    for e in &mut module.entries {
        for ins in &mut e.body {
            fix(&mut ins.loc);
            if let Some(inner) = &mut ins.inner {
                fix(inner);
            }
        }
    }
    Ok(module)
}

struct Parser {
    toks: Vec<Token>,
    pos: usize,
    module: Module,
    /// Call-site `.param` variables declared so far (their unique-name suffix).
    next_param: usize,
}

/// Body-parsing state of one entry.
struct BodyState {
    /// Registers, labels, variables and call-site `.param` names of the open blocks.
    scopes: Scopes,
    /// Registers declared before the body (a `.func`'s `.reg` parameters).
    pre: Vec<(String, u32)>,
    loc: Loc,
    inner: Option<Loc>,
    last_plain: Option<Loc>,
}

fn special(name: &str) -> Option<Special> {
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
        _ => return None,
    })
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }

    fn here(&self) -> (u32, u32) {
        match self.toks.get(self.pos) {
            Some(t) => (t.line, t.col),
            None => self
                .toks
                .last()
                .map_or((1, 1), |t| (t.line, t.col + t.text.len() as u32)),
        }
    }

    fn err<T>(&self, what: &str) -> Result<T, ParseError> {
        let (line, col) = self.here();
        let found = match self.toks.get(self.pos) {
            Some(t) => format!("'{}'", t.text),
            None => "end of file".into(),
        };
        Err(ParseError {
            line,
            col,
            message: format!("expected {what}, found {found}"),
        })
    }

    /// Whether token `pos + k` starts right where token `pos + k - 1` ends (no space).
    fn adjacent(&self, k: usize) -> bool {
        let i = self.pos + k;
        match (
            i.checked_sub(1).and_then(|j| self.toks.get(j)),
            self.toks.get(i),
        ) {
            (Some(a), Some(b)) => {
                a.line == b.line && a.col as usize + a.text.chars().count() == b.col as usize
            }
            _ => false,
        }
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            self.err(&format!("'{c}'"))
        }
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(x)) if x == s)
    }

    fn eat_ident(&mut self, s: &str) -> bool {
        if self.is_ident(s) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn ident(&mut self, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => self.err(what),
        }
    }

    fn int(&mut self, what: &str) -> Result<i64, ParseError> {
        let neg = self.eat_punct('-');
        match self.peek() {
            Some(Tok::Int(v)) => {
                let v = *v;
                self.pos += 1;
                Ok(if neg { v.wrapping_neg() } else { v })
            }
            _ => self.err(what),
        }
    }

    /// Skip to just after the next `;` at this brace depth.
    fn skip_statement(&mut self) -> Result<(), ParseError> {
        let mut depth = 0i32;
        loop {
            match self.peek() {
                None => return self.err("';'"),
                Some(Tok::Punct(';')) if depth == 0 => {
                    self.pos += 1;
                    return Ok(());
                }
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth -= 1,
                _ => {}
            }
            self.pos += 1;
        }
    }

    /// Skip a balanced `{ ... }` starting at the current `{`.
    /// A flat initializer `{1, 2, ...}` of integers, as little-endian bytes of `elem`
    /// bytes each; `None` (skipped) for any other initializer.
    fn int_list(
        &mut self,
        elem: u64,
        relocs: &mut Vec<(u64, String)>,
    ) -> Result<Option<Vec<u8>>, ParseError> {
        let start = self.pos;
        self.expect_punct('{')?;
        let mut bytes = Vec::new();
        loop {
            match self.peek() {
                // A symbol (a function pointer table): patched once the module is read.
                Some(Tok::Ident(name)) if !name.starts_with('.') && elem == 8 => {
                    let mut name = name.clone();
                    self.pos += 1;
                    if name == "generic" && self.eat_punct('(') {
                        name = self.ident("a symbol")?;
                        self.expect_punct(')')?;
                    }
                    relocs.push((bytes.len() as u64, name));
                    bytes.extend_from_slice(&[0; 8]);
                }
                Some(Tok::Int(v)) => {
                    let v = *v;
                    self.pos += 1;
                    bytes.extend_from_slice(&v.to_le_bytes()[..elem.min(8) as usize]);
                }
                // a negative element, `-125`: two tokens
                Some(Tok::Punct('-')) if matches!(self.peek_at(1), Some(Tok::Int(_))) => {
                    let v = self.int("an integer")?;
                    bytes.extend_from_slice(&v.to_le_bytes()[..elem.min(8) as usize]);
                }
                Some(Tok::Punct(',')) => self.pos += 1,
                Some(Tok::Punct('}')) => {
                    self.pos += 1;
                    return Ok(Some(bytes));
                }
                _ => {
                    self.pos = start;
                    relocs.clear();
                    self.skip_braces()?;
                    return Ok(None);
                }
            }
        }
    }

    /// A scalar initializer `= 1`, `= -125` (libcu++'s `numeric_limits` members, which
    /// `cooperative_groups.h` pulls in) or `= 0f3F800000`, as little-endian bytes of
    /// `elem` bytes; anything else (an address expression) is skipped up to the `;`
    /// and gives `None`.
    fn scalar_init(&mut self, elem: u64) -> Option<Vec<u8>> {
        let start = self.pos;
        let neg = self.eat_punct('-');
        let bits = match self.peek() {
            Some(Tok::Int(v)) => Some(if neg {
                v.wrapping_neg() as u64
            } else {
                *v as u64
            }),
            Some(Tok::FBits { bits, .. }) if !neg => Some(*bits),
            _ => None,
        };
        if let Some(b) = bits {
            if self.peek_at(1) == Some(&Tok::Punct(';')) {
                self.pos += 1;
                return Some(b.to_le_bytes()[..elem.min(8) as usize].to_vec());
            }
        }
        self.pos = start;
        while self.peek().is_some() && !self.is_punct(';') {
            self.pos += 1;
        }
        None
    }

    fn skip_braces(&mut self) -> Result<(), ParseError> {
        self.expect_punct('{')?;
        let mut depth = 1;
        while depth > 0 {
            match self.peek() {
                None => return self.err("'}'"),
                Some(Tok::Punct('{')) => depth += 1,
                Some(Tok::Punct('}')) => depth -= 1,
                _ => {}
            }
            self.pos += 1;
        }
        Ok(())
    }

    fn module(&mut self) -> Result<(), ParseError> {
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
    fn var_decl(&mut self) -> Result<VarDecl, ParseError> {
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

    fn dims(&mut self) -> Result<[i64; 3], ParseError> {
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

    fn entry(&mut self) -> Result<Entry, ParseError> {
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
            vars: Vec::new(),
            regs: Vec::new(),
            body: Vec::new(),
            labels: BTreeMap::new(),
            protos: BTreeMap::new(),
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
                        self.dims()?;
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
    fn func(&mut self) -> Result<(), ParseError> {
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
                vars: Vec::new(),
                regs: Vec::new(),
                body: Vec::new(),
                labels: BTreeMap::new(),
                protos: BTreeMap::new(),
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
    fn fparams(&mut self) -> Result<Vec<FParam>, ParseError> {
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
    fn prototype(&mut self) -> Result<(Vec<FParam>, Vec<FParam>), ParseError> {
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

    /// The operands of `call`: `[(rets),] target[, (args)][, prototype];` as
    /// `[Vector(rets), target, Vector(args)]` and `Sym(prototype)` when given.
    fn call_operands(&mut self, st: &BodyState) -> Result<Vec<Operand>, ParseError> {
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
    fn paren_list(&mut self, st: &BodyState) -> Result<Vec<Operand>, ParseError> {
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

    fn loc(&mut self, st: &mut BodyState) -> Result<(), ParseError> {
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

    fn lookup(&self, st: &BodyState, name: &str) -> Option<u32> {
        st.scopes.reg(name)
    }

    fn body(&mut self, entry: &mut Entry, st: &mut BodyState) -> Result<(), ParseError> {
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

    fn reg_decl(&mut self, entry: &mut Entry, st: &mut BodyState) -> Result<(), ParseError> {
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

    fn instruction(&mut self, st: &mut BodyState) -> Result<Instr, ParseError> {
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

    fn operand(&mut self, st: &BodyState) -> Result<Operand, ParseError> {
        let first = self.simple_operand(st)?;
        if self.eat_punct('|') {
            let second = self.simple_operand(st)?;
            return Ok(Operand::Pair(Box::new(first), Box::new(second)));
        }
        Ok(first)
    }

    fn simple_operand(&mut self, st: &BodyState) -> Result<Operand, ParseError> {
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

/// Every branch target must be a label of the same body that the branch's block sees
/// (scoped labels were renamed when their block closed; one still spelled as written
/// names no label of this block or an enclosing one).
fn check_branches(entry: &Entry) -> Result<(), ParseError> {
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

impl BodyState {
    fn new() -> Self {
        BodyState {
            scopes: Scopes::default(),
            pre: Vec::new(),
            loc: Loc::default(),
            inner: None,
            last_plain: None,
        }
    }
}

/// Bytes of a scalar PTX type ("f32" → 4).
pub fn type_bytes(ty: &str) -> Option<u64> {
    Some(match ty {
        "b8" | "u8" | "s8" | "pred" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" | "tf32" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        "b128" => 16,
        _ => return None,
    })
}
