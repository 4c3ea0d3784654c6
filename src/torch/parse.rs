//! The spec grammar: Python statements `name = expr` and `a, b = expr`, with Python's
//! operator precedence (`|` < `^` < `&` below `+ -` < `* / // % @` < unary `- + ~` < `**`
//! < calls, attributes, indexing; comparisons lowest).

use super::error::SpecError;
use super::lex::{Tok, Token};

#[derive(Clone, Debug)]
pub(crate) struct Stmt {
    /// The assigned names with their columns.
    pub targets: Vec<(String, usize)>,
    /// `a, b = ...` (or `a, = ...`): the value is a tuple to destructure.
    pub destructure: bool,
    pub value: Expr,
}

#[derive(Clone, Debug)]
pub(crate) struct Expr {
    pub kind: ExprKind,
    pub col: usize,
}

#[derive(Clone, Debug)]
pub(crate) enum ExprKind {
    Name(String),
    Int(i64),
    Float(String),
    Str(String),
    Ellipsis,
    Tuple(Vec<Expr>),
    List(Vec<Expr>),
    Unary(&'static str, Box<Expr>),
    Binary(&'static str, Box<Expr>, Box<Expr>),
    Attr(Box<Expr>, String),
    Call(Box<Expr>, Vec<Arg>),
    Index(Box<Expr>, Vec<Sub>),
}

#[derive(Clone, Debug)]
pub(crate) struct Arg {
    pub name: Option<String>,
    pub value: Expr,
}

/// One subscript of an indexing expression.
#[derive(Clone, Debug)]
pub(crate) enum Sub {
    Expr(Expr),
    Slice(Option<Expr>, Option<Expr>, Option<Expr>),
}

pub(crate) struct Parser {
    tokens: Vec<Token>,
    pos: usize,
}

type R<T> = Result<T, SpecError>;

fn describe(t: &Tok) -> String {
    match t {
        Tok::Name(n) => format!("`{n}`"),
        Tok::Int(v) => format!("`{v}`"),
        Tok::Float(s) => format!("`{s}`"),
        Tok::Str(s) => format!("'{s}'"),
        Tok::Op(o) => format!("`{o}`"),
        Tok::Newline => "a newline".into(),
        Tok::Eof => "the end of the spec".into(),
    }
}

impl Parser {
    pub fn new(tokens: Vec<Token>) -> Self {
        Parser { tokens, pos: 0 }
    }

    fn peek(&self) -> &Tok {
        &self.tokens[self.pos].tok
    }
    fn col(&self) -> usize {
        self.tokens[self.pos].col
    }
    fn bump(&mut self) -> Token {
        let t = self.tokens[self.pos].clone();
        if self.pos + 1 < self.tokens.len() {
            self.pos += 1;
        }
        t
    }
    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Tok::Op(o) if *o == op)
    }
    fn eat(&mut self, op: &str) -> bool {
        if self.is_op(op) {
            self.bump();
            true
        } else {
            false
        }
    }
    fn error<T>(&self, what: &str) -> R<T> {
        Err(SpecError {
            col: self.col(),
            message: format!("expected {what}, found {}", describe(self.peek())),
        })
    }
    fn expect(&mut self, op: &str) -> R<()> {
        if self.eat(op) {
            Ok(())
        } else {
            self.error(&format!("`{op}`"))
        }
    }

    pub fn program(&mut self) -> R<Vec<Stmt>> {
        let mut stmts = Vec::new();
        loop {
            while matches!(self.peek(), Tok::Newline) || self.is_op(";") {
                self.bump();
            }
            if matches!(self.peek(), Tok::Eof) {
                return Ok(stmts);
            }
            stmts.push(self.stmt()?);
            if !(matches!(self.peek(), Tok::Newline | Tok::Eof) || self.is_op(";")) {
                return self.error("`;` or a newline after the statement");
            }
        }
    }

    fn stmt(&mut self) -> R<Stmt> {
        let mut targets = Vec::new();
        let mut destructure = false;
        let parens = self.eat("(");
        loop {
            let col = self.col();
            match self.peek().clone() {
                Tok::Name(n) => {
                    self.bump();
                    targets.push((n, col));
                }
                _ => return self.error("an output name (statements are `name = expr`)"),
            }
            if self.eat(",") {
                destructure = true;
                if matches!(self.peek(), Tok::Name(_)) {
                    continue;
                }
            }
            break;
        }
        if parens {
            self.expect(")")?;
            destructure = true;
        }
        self.expect("=")?;
        let value = self.expr_list()?;
        Ok(Stmt {
            targets,
            destructure,
            value,
        })
    }

    /// `a, b, c`: a tuple when there is a comma.
    fn expr_list(&mut self) -> R<Expr> {
        let first = self.expr()?;
        if !self.is_op(",") {
            return Ok(first);
        }
        let col = first.col;
        let mut items = vec![first];
        while self.eat(",") {
            if self.ends_expr() {
                break;
            }
            items.push(self.expr()?);
        }
        Ok(Expr {
            kind: ExprKind::Tuple(items),
            col,
        })
    }

    fn ends_expr(&self) -> bool {
        matches!(self.peek(), Tok::Newline | Tok::Eof)
            || self.is_op(";")
            || self.is_op(")")
            || self.is_op("]")
    }

    pub fn expr(&mut self) -> R<Expr> {
        let lhs = self.binary(0)?;
        let cmp = ["<", ">", "<=", ">=", "==", "!="];
        if let Tok::Op(op) = *self.peek() {
            if cmp.contains(&op) {
                let col = self.col();
                self.bump();
                let rhs = self.binary(0)?;
                if let Tok::Op(o2) = *self.peek() {
                    if cmp.contains(&o2) {
                        return Err(SpecError {
                            col: self.col(),
                            message: "chained comparisons are not supported; use `&`".into(),
                        });
                    }
                }
                return Ok(Expr {
                    kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                    col,
                });
            }
        }
        Ok(lhs)
    }

    /// Left-associative binary levels above comparisons.
    fn binary(&mut self, level: usize) -> R<Expr> {
        const LEVELS: &[&[&str]] = &[
            &["|"],
            &["^"],
            &["&"],
            &["+", "-"],
            &["*", "/", "//", "%", "@"],
        ];
        if level == LEVELS.len() {
            return self.unary();
        }
        let mut lhs = self.binary(level + 1)?;
        loop {
            let op = match *self.peek() {
                Tok::Op(o) if LEVELS[level].contains(&o) => o,
                _ => return Ok(lhs),
            };
            let col = self.col();
            self.bump();
            let rhs = self.binary(level + 1)?;
            lhs = Expr {
                kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
                col,
            };
        }
    }

    fn unary(&mut self) -> R<Expr> {
        if let Tok::Op(op @ ("-" | "+" | "~")) = *self.peek() {
            let col = self.col();
            self.bump();
            let e = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Unary(op, Box::new(e)),
                col,
            });
        }
        let base = self.primary()?;
        if self.is_op("**") {
            let col = self.col();
            self.bump();
            // Right-associative, and binds tighter than a unary minus on its left only.
            let exp = self.unary()?;
            return Ok(Expr {
                kind: ExprKind::Binary("**", Box::new(base), Box::new(exp)),
                col,
            });
        }
        Ok(base)
    }

    fn primary(&mut self) -> R<Expr> {
        let mut e = self.atom()?;
        loop {
            if self.is_op(".") {
                self.bump();
                let col = self.col();
                match self.peek().clone() {
                    Tok::Name(n) => {
                        self.bump();
                        e = Expr {
                            kind: ExprKind::Attr(Box::new(e), n),
                            col,
                        };
                    }
                    _ => return self.error("an attribute name after `.`"),
                }
            } else if self.is_op("(") {
                let col = self.col();
                self.bump();
                let args = self.args()?;
                e = Expr {
                    kind: ExprKind::Call(Box::new(e), args),
                    col,
                };
            } else if self.is_op("[") {
                let col = self.col();
                self.bump();
                let subs = self.subscripts()?;
                e = Expr {
                    kind: ExprKind::Index(Box::new(e), subs),
                    col,
                };
            } else {
                return Ok(e);
            }
        }
    }

    fn args(&mut self) -> R<Vec<Arg>> {
        let mut args = Vec::new();
        loop {
            if self.eat(")") {
                return Ok(args);
            }
            let kw = match (
                self.peek().clone(),
                &self.tokens.get(self.pos + 1).map(|t| &t.tok),
            ) {
                (Tok::Name(n), Some(Tok::Op("="))) => Some(n),
                _ => None,
            };
            if kw.is_some() {
                self.bump();
                self.bump();
            } else if args.iter().any(|a: &Arg| a.name.is_some()) {
                return Err(SpecError {
                    col: self.col(),
                    message: "positional argument follows keyword argument".into(),
                });
            }
            let value = self.expr()?;
            args.push(Arg { name: kw, value });
            if !self.eat(",") {
                self.expect(")")?;
                return Ok(args);
            }
        }
    }

    fn subscripts(&mut self) -> R<Vec<Sub>> {
        let mut subs = Vec::new();
        loop {
            if self.eat("]") {
                return Ok(subs);
            }
            let start = if self.is_op(":") {
                None
            } else {
                Some(self.expr()?)
            };
            if self.eat(":") {
                let stop = if self.is_op(":") || self.is_op(",") || self.is_op("]") {
                    None
                } else {
                    Some(self.expr()?)
                };
                let step = if self.eat(":") && !(self.is_op(",") || self.is_op("]")) {
                    Some(self.expr()?)
                } else {
                    None
                };
                subs.push(Sub::Slice(start, stop, step));
            } else if let Some(e) = start {
                subs.push(Sub::Expr(e));
            }
            if !self.eat(",") {
                self.expect("]")?;
                return Ok(subs);
            }
        }
    }

    fn atom(&mut self) -> R<Expr> {
        let col = self.col();
        let kind = match self.peek().clone() {
            Tok::Name(n) => {
                self.bump();
                ExprKind::Name(n)
            }
            Tok::Int(v) => {
                self.bump();
                ExprKind::Int(v)
            }
            Tok::Float(s) => {
                self.bump();
                ExprKind::Float(s)
            }
            Tok::Str(s) => {
                self.bump();
                ExprKind::Str(s)
            }
            Tok::Op("...") => {
                self.bump();
                ExprKind::Ellipsis
            }
            Tok::Op("(") => {
                self.bump();
                if self.eat(")") {
                    ExprKind::Tuple(Vec::new())
                } else {
                    let first = self.expr()?;
                    if self.eat(")") {
                        return Ok(first);
                    }
                    let mut items = vec![first];
                    while self.eat(",") {
                        if self.is_op(")") {
                            break;
                        }
                        items.push(self.expr()?);
                    }
                    self.expect(")")?;
                    ExprKind::Tuple(items)
                }
            }
            Tok::Op("[") => {
                self.bump();
                let mut items = Vec::new();
                while !self.is_op("]") {
                    items.push(self.expr()?);
                    if !self.eat(",") {
                        break;
                    }
                }
                self.expect("]")?;
                ExprKind::List(items)
            }
            _ => return self.error("an expression"),
        };
        Ok(Expr { kind, col })
    }
}
