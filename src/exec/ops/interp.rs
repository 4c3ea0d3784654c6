//! The interpreter's state for one launch (memory, store sites, warnings, the program
//! running) and the plumbing every op group shares: environments, how a region ends,
//! errors before they are tied to an op.
//!
//! Invariant: an [`Interp`] only grows (memory written, sites and warnings appended);
//! `finish` hands everything to the caller once all programs ran.

use crate::exec::domain::{Binary, Domain, Truth};
use crate::exec::error::{ErrorKind, ExecError};
use crate::exec::execution::{Execution, Options, StoreSite};
use crate::exec::value::{Elem, Value};
use crate::exec::values::Kind;
use crate::launch::{Instance, Role};
use crate::triton_ir::ast::{Func as IrFunc, Loc, Module, Op};
use std::rc::Rc;

pub(super) type Env<V> = crate::exec::walk::Env<Value<V>>;

/// Operand or result values.
pub(super) type Vals<V> = Vec<Rc<Value<V>>>;

pub(crate) use crate::exec::error::Fail;
pub(super) use crate::exec::error::{fail, R};

pub(super) fn malformed<T>(message: impl Into<String>) -> R<T> {
    fail(ErrorKind::Malformed, message)
}

/// One half of a sign-split float max or min on an element: (old, v, the mask's
/// sign-clear side, max (true) or min, new).
pub(super) type Split<V> = (V, V, bool, bool, V);

/// How a region ended.
pub(super) type Flow<V> = crate::exec::walk::Flow<Value<V>>;

/// Memory of one tensor: what has been written, and by whom.
#[derive(Clone)]
pub(super) struct Memory<V> {
    pub(super) written: Vec<Option<(V, usize, [i64; 3])>>,
}

pub(crate) struct Interp<'a, D: Domain> {
    pub(super) module: &'a Module,
    pub(super) inst: &'a Instance,
    pub(super) domain: &'a mut D,
    pub(super) options: Options,
    pub(super) memory: Vec<Memory<D::V>>,
    pub(super) store_sites: Vec<StoreSite>,
    /// (ttir line, source) of loads whose masked-off lanes had no `other=`.
    pub(super) undef_loads: Vec<(u32, Loc)>,
    /// The output tensor of the last read of an element never written (for
    /// `ExecError::unwritten`).
    pub(super) unwritten: Option<usize>,
    pub(super) warnings: Vec<String>,
    pub(super) written_twice: Option<String>,
    pub(super) program: [i64; 3],
    pub(super) ops: u64,
    pub(super) depth: u32,
    /// The conditions of the enclosing branches on the data, each with the side taken
    /// (`fork.rs`): a gather reads nothing for an index value they rule out.
    pub(super) path: Vec<(D::V, bool)>,
    /// What orders the programs' accesses: the race log and the locks (`order.rs`).
    pub(super) order: super::order::Order<D::V>,
    /// Stores and atomics that changed memory so far (a spin loop makes none).
    pub(super) effects: u64,
    /// The first halves of sign-split float atomic maxes and mins (`atomic_bits.rs`).
    pub(super) splits: std::collections::HashMap<(usize, usize), Split<D::V>>,
}

impl<'a, D: Domain> Interp<'a, D> {
    pub(crate) fn new(
        module: &'a Module,
        inst: &'a Instance,
        options: Options,
        domain: &'a mut D,
    ) -> Self {
        let memory = inst
            .tensors
            .iter()
            .map(|t| Memory {
                written: vec![None; if t.role == Role::In { 0 } else { t.numel() }],
            })
            .collect();
        let order = super::order::Order::new(!domain.values_only(), inst.grid);
        Interp {
            order,
            effects: 0,
            splits: Default::default(),
            module,
            inst,
            domain,
            options,
            memory,
            store_sites: Vec::new(),
            undef_loads: Vec::new(),
            unwritten: None,
            path: Vec::new(),
            warnings: Vec::new(),
            written_twice: None,
            program: [0; 3],
            ops: 0,
            depth: 0,
        }
    }

    pub(crate) fn run_program(
        &mut self,
        program: [i64; 3],
        func: &IrFunc,
        args: Vec<Value<D::V>>,
    ) -> Result<(), ExecError> {
        self.program = program;
        self.order.start(program);
        let args = args.into_iter().map(Rc::new).collect();
        crate::exec::walk::func(self, func, args, func.line, &func.loc)?;
        Ok(())
    }

    pub(crate) fn finish(mut self) -> Execution<D::V> {
        let memory = &mut self.memory;
        let outputs = crate::exec::execution::collect_outputs(self.inst, &mut *self.domain, |i| {
            std::mem::take(&mut memory[i].written)
                .into_iter()
                .map(|slot| slot.map(|(v, site, _)| (v, site)))
                .collect()
        });
        Execution {
            outputs,
            store_sites: self.store_sites,
            warnings: self.warnings,
            written_twice: self.written_twice,
            ops_executed: self.ops,
            order_sensitive: self.order.order_sensitive,
        }
    }

    pub(super) fn at(&self, op: &Op, f: Fail) -> ExecError {
        ExecError {
            kind: f.kind,
            message: format!("{}: {}", op.name, f.message),
            line: op.line,
            loc: op.loc.clone(),
            program: self.program,
            clash: None,
            unwritten: (f.kind == ErrorKind::NeverWritten)
                .then_some(self.unwritten)
                .flatten(),
        }
    }

    pub(super) fn operands(
        &self,
        op: &Op,
        env: &Env<D::V>,
    ) -> Result<Vec<Rc<Value<D::V>>>, ExecError> {
        op.operands
            .iter()
            .map(|n| lookup(env, n))
            .collect::<R<Vec<_>>>()
            .map_err(|f| self.at(op, f))
    }

    pub(super) fn warn_once(&mut self, w: String) {
        if !self.warnings.contains(&w) {
            self.warnings.push(w);
        }
    }
}

pub(super) fn lookup<V>(env: &Env<V>, name: &str) -> R<Rc<Value<V>>> {
    env.get(name).cloned().ok_or_else(|| Fail {
        kind: ErrorKind::Malformed,
        message: format!("use of undefined value %{name}"),
    })
}

pub(super) fn truth_elem<V>(t: Truth<V>) -> Elem<V> {
    match t {
        Truth::Known(b) => Elem::Bool(b),
        Truth::Unknown(v) => Elem::Cond(v),
    }
}

/// The bounded run's lanes (see `exec::values`): machine integers and pointers,
/// decided conditions, and data-dependent integers and pointers the domain holds.
impl<D: Domain> crate::exec::values::Values for Interp<'_, D> {
    type D = D;
    type L = Elem<D::V>;
    type I = i64;
    type E = Fail;
    fn floats(&mut self) -> &mut D {
        &mut *self.domain
    }
    fn kind(&self, l: &Elem<D::V>) -> Kind<D::V, i64> {
        match *l {
            Elem::Float(v) => Kind::Float(v),
            Elem::Cond(v) => Kind::DataCond(v),
            Elem::Bool(b) => Kind::Known(b),
            Elem::Int(i) => Kind::Int(i),
            Elem::Ptr { tensor, offset } => Kind::Ptr { tensor, offset },
            Elem::Undef(_) => Kind::Undef,
            Elem::DataInt { .. } | Elem::DataPtr { .. } => Kind::Other,
        }
    }
    fn float(&self, v: D::V) -> Elem<D::V> {
        Elem::Float(v)
    }
    fn truth(&self, t: Truth<D::V>) -> Elem<D::V> {
        truth_elem(t)
    }
    fn ptr(&self, tensor: usize, offset: i64) -> Elem<D::V> {
        Elem::Ptr { tensor, offset }
    }
    fn add_offset(&mut self, a: &i64, b: &i64) -> i64 {
        a + b
    }
    fn unit(&self) -> Elem<D::V> {
        Elem::Int(0)
    }
    fn fail(&self, kind: ErrorKind, message: String) -> Fail {
        Fail { kind, message }
    }
    fn warn(&mut self, warning: String) {
        self.warn_once(warning);
    }
    fn select_other(&mut self, c: &Elem<D::V>, _: &Elem<D::V>, _: &Elem<D::V>) -> R<Elem<D::V>> {
        malformed(format!("condition is {}", c.kind()))
    }
    fn select_on_data(&mut self, c: D::V, a: &Elem<D::V>, b: &Elem<D::V>) -> Option<R<Elem<D::V>>> {
        self.select_data_int(c, *a, *b)
    }
    fn add_ptr_data(&mut self, p: &Elem<D::V>, o: &Elem<D::V>) -> Option<R<Elem<D::V>>> {
        Some(Ok(match (*p, *o) {
            (Elem::Ptr { tensor, offset }, Elem::DataInt { v, .. }) => Elem::DataPtr {
                tensor,
                offset,
                idx: v,
            },
            (
                Elem::DataPtr {
                    tensor,
                    offset,
                    idx,
                },
                Elem::Int(d),
            ) => Elem::DataPtr {
                tensor,
                offset: offset + d,
                idx,
            },
            (
                Elem::DataPtr {
                    tensor,
                    offset,
                    idx,
                },
                Elem::DataInt { v, .. },
            ) => Elem::DataPtr {
                tensor,
                offset,
                idx: self.domain.binary(Binary::Add, idx, v),
            },
            _ => return None,
        }))
    }
    fn int(&mut self, n: i128) -> Elem<D::V> {
        Elem::Int(n as i64)
    }
    fn int_value(&self, i: &i64) -> Option<i128> {
        Some(*i as i128)
    }
    fn data_int(&mut self, v: D::V, lo: i64, hi: i64) -> Option<Elem<D::V>> {
        Some(if lo == hi {
            Elem::Int(lo)
        } else {
            Elem::DataInt { v, lo, hi }
        })
    }
}
