//! Coverage through a program-id → tile map: tile orders that compute a program's tile
//! from its id with divisions, remainders and minima (Triton tutorial 03's grouped
//! `GROUP_M` order, where `pid_m = first_pid_m + (pid % in_group) % group_size_m` with
//! `group_size_m = min(num_pid_m - first_pid_m, GROUP_M)`).
//!
//! Each index coordinate of a writer is `g·T(pid) + b`: `T` the part that reads the
//! program ids, `b` the rest (lanes, loop variables, sizes). Where every such part is a
//! multiple of one of a few tile polynomials `T_1, …, T_m` (read off the writers, each
//! over the program ids and sizes only), the map `pid ↦ (T_1, …, T_m)` is proved a
//! bijection from the grid onto the box `B = Π [0, n_j)`, `n_j = cdiv(extent_d, g)`:
//! (a) `|B|` equals the number of programs (as polynomials, else by Z3; a grid of
//! another count, a persistent launch, is left to the quantified query), (b) no
//! program's tile lies outside `B`, (c) no two programs share a tile; (a)–(c) make the
//! injection into `B` onto. Every polynomial the writers read (index, guard, path
//! condition) is then rewritten with a fresh tile symbol `#tile_j` for `T_j`, the tile
//! symbols bound like loop variables by `B` and the program ids gone: the writers of a
//! plain tiled kernel, which [`super::coverage`] reads without quantifiers.
//!
//! Invariant: the retiled writers write exactly the elements the original ones do, as
//! often: each rewritten polynomial is the original one with `T_j` named (an identity of
//! polynomials, built term by term), and (a)–(c) are unsat queries. A map that fails (b)
//! or (c) is a failure with the sizes Z3 found (only a replay there refutes); one Z3
//! cannot settle is a failure without sizes, at once.

use super::attempt::{Attempt, Failed};
use super::lane::small_witness;
use super::records::{Access, Path, TensorSym};
use super::residue::gcd;
use super::sym::{Cond, Poly, Rel};
use z3::ast::{Ast, Bool, Int};
use z3::SatResult;

/// What the tile map settled.
pub(super) enum ByTiles {
    /// The writers over tile symbols (program ids gone, tiles bounded by their box).
    Retiled(Vec<Path>),
    Failed(Failed),
    /// The writers do not read the program ids through tile polynomials.
    NotApplicable,
}

/// The tile polynomials the writers read, their symbols and their box.
#[derive(Default)]
struct Tiles {
    polys: Vec<Poly>,
    names: Vec<String>,
    extents: Vec<Poly>,
}

/// Whether `p` reads one of `names`.
fn reads_any(p: &Poly, names: &[String]) -> bool {
    let mut syms = Vec::new();
    p.symbols(&mut syms);
    syms.iter().any(|s| names.iter().any(|n| **s == **n))
}

/// `p` as (the monomials that read the program ids, the rest).
fn split(p: &Poly, pids: &[String]) -> (Poly, Poly) {
    let (mut part, mut rest) = (Poly::default(), Poly::default());
    for (m, c) in p.terms() {
        if reads_any(&m, pids) {
            part = part.add(&m.scale(c));
        } else {
            rest = rest.add(&m.scale(c));
        }
    }
    (part, rest)
}

/// `p = g·T` with `g > 0` the gcd of its coefficients.
fn primitive(p: &Poly) -> Option<(i128, Poly)> {
    let terms = p.terms();
    let g = terms.iter().fold(0, |g, (_, c)| gcd(g, c.abs()));
    if g <= 0 {
        return None;
    }
    let t = terms
        .iter()
        .fold(Poly::default(), |acc, (m, c)| acc.add(&m.scale(c / g)));
    Some((g, t))
}

impl Tiles {
    /// `p` with each tile polynomial named by its symbol; `None` where the part of `p`
    /// that reads the program ids is not an integer combination of them.
    fn rewrite(&self, p: &Poly, pids: &[String]) -> Option<Poly> {
        let (mut part, mut out) = split(p, pids);
        for (t, name) in self.polys.iter().zip(&self.names) {
            let (lead, lc) = t.terms().into_iter().next()?;
            let c = part
                .terms()
                .into_iter()
                .find(|(m, _)| *m == lead)
                .map_or(0, |(_, c)| c);
            if c % lc != 0 {
                return None;
            }
            if c != 0 {
                part = part.sub(&t.scale(c / lc));
                out = out.add(&Poly::sym(name).scale(c / lc));
            }
        }
        (part == Poly::default()).then_some(out)
    }

    fn rewrite_cond(&self, c: &Cond, pids: &[String]) -> Option<Cond> {
        let all = |cs: &[Cond]| -> Option<Vec<Cond>> {
            cs.iter().map(|c| self.rewrite_cond(c, pids)).collect()
        };
        Some(match c {
            Cond::Const(b) => Cond::Const(*b),
            Cond::Cmp(rel, p) => Cond::cmp(*rel, &self.rewrite(p, pids)?, &Poly::default()),
            Cond::Not(c) => Cond::Not(Box::new(self.rewrite_cond(c, pids)?)),
            Cond::And(cs) => Cond::And(all(cs)?),
            Cond::Or(cs) => Cond::Or(all(cs)?),
        })
    }

    /// `0 <= #tile_j < n_j` for every tile.
    fn bounds(&self) -> Vec<Cond> {
        let mut out = Vec::new();
        for (name, n) in self.names.iter().zip(&self.extents) {
            out.push(Cond::cmp(Rel::Le, &Poly::default(), &Poly::sym(name)));
            out.push(Cond::cmp(Rel::Lt, &Poly::sym(name), n));
        }
        out
    }
}

impl<'ctx> Attempt<'_, 'ctx> {
    /// The symbolic program ids' names.
    fn pid_names(&self) -> Vec<String> {
        ["pid_x", "pid_y", "pid_z"]
            .iter()
            .zip(self.pids)
            .filter(|(_, p)| p.as_const().is_none())
            .map(|(n, _)| n.to_string())
            .collect()
    }

    /// The writers of tensor `k` over tile symbols, where their program ids enter
    /// through a tile map proved a bijection onto its box.
    pub(super) fn retiled(&self, paths: &[Path], k: usize, t: &TensorSym) -> ByTiles {
        let pids = self.pid_names();
        if pids.is_empty() || paths.iter().any(|p| !p.labels.is_empty()) {
            return ByTiles::NotApplicable;
        }
        let Some(tiles) = self.tiles(paths, k, t, &pids) else {
            return ByTiles::NotApplicable;
        };
        let Some(retiled) = retile(paths, k, &tiles, &pids) else {
            return ByTiles::NotApplicable;
        };
        // A grid that is not the tiles' count in number (a persistent launch) is
        // another kind of map: left to the quantified query.
        if !self.as_many_tiles_as_programs(&tiles) {
            return ByTiles::NotApplicable;
        }
        match self.bijective(&tiles, &pids) {
            Ok(()) => ByTiles::Retiled(retiled),
            Err(f) => ByTiles::Failed(f),
        }
    }

    /// The tile polynomials of the writers of tensor `k`; `None` where a coordinate's
    /// program-id part also reads a loop variable, or one tile gets two boxes.
    fn tiles(&self, paths: &[Path], k: usize, t: &TensorSym, pids: &[String]) -> Option<Tiles> {
        let mut tiles = Tiles::default();
        for p in paths {
            for st in p.stores.iter().filter(|s| s.tensor == k) {
                for (d, x) in st.index.as_deref()?.iter().enumerate() {
                    let (part, _) = split(x, pids);
                    if part == Poly::default() {
                        continue;
                    }
                    if reads_any(&part, &st.vars) {
                        return None;
                    }
                    let (g, tp) = primitive(&part)?;
                    let n = t.shape[d]
                        .add(&Poly::constant(g - 1))
                        .floor_div(&Poly::constant(g));
                    match tiles.polys.iter().position(|q| *q == tp) {
                        Some(j) if tiles.extents[j] != n => return None,
                        Some(_) => {}
                        None => {
                            tiles.names.push(format!("#tile{}", tiles.polys.len()));
                            tiles.polys.push(tp);
                            tiles.extents.push(n);
                        }
                    }
                }
            }
        }
        (!tiles.polys.is_empty()).then_some(tiles)
    }

    /// (a) of the module doc: as many tiles in the box as programs in the grid.
    fn as_many_tiles_as_programs(&self, tiles: &Tiles) -> bool {
        let programs = self
            .pids
            .iter()
            .zip(self.grid)
            .filter(|(p, _)| p.as_const().is_none())
            .fold(Poly::constant(1), |a, (_, g)| a.mul(g));
        let boxed = tiles
            .extents
            .iter()
            .fold(Poly::constant(1), |a, n| a.mul(n));
        if programs == boxed {
            return true;
        }
        let s = z3::Solver::new(self.smt.ctx);
        for c in self.size_conds {
            s.assert(&self.smt.cond(c));
        }
        s.assert(&self.smt.int(&programs)._eq(&self.smt.int(&boxed)).not());
        s.check() == SatResult::Unsat
    }

    /// (b) and (c) of the module doc: with (a), the tile map is a bijection from the
    /// grid onto the tiles' box.
    fn bijective(&self, tiles: &Tiles, pids: &[String]) -> Result<(), Failed> {
        let ctx = self.smt.ctx;
        let zero = Int::from_i64(ctx, 0);
        let open = |what: &str| Failed {
            reason: format!("Z3 could not decide whether {what}"),
            witness: None,
        };
        // (b) Every program's tile inside the box.
        let s = z3::Solver::new(ctx);
        for c in self.base {
            s.assert(&self.smt.cond(c));
        }
        let inside: Vec<Bool<'ctx>> = tiles
            .polys
            .iter()
            .zip(&tiles.extents)
            .flat_map(|(tp, n)| {
                let x = self.smt.int(tp);
                [x.ge(&zero), x.lt(&self.smt.int(n))]
            })
            .collect();
        let refs: Vec<&Bool<'ctx>> = inside.iter().collect();
        s.push();
        s.assert(&Bool::and(ctx, &refs).not());
        match s.check() {
            SatResult::Unsat => {}
            SatResult::Sat => {
                return Err(Failed {
                    reason: "some program's tile lies outside the tile grid".into(),
                    witness: small_witness(&s, self.smt, self.sizes),
                })
            }
            SatResult::Unknown => return Err(open("every program's tile lies in the tile grid")),
        }
        s.pop(1);
        // (c) No two programs on one tile: a second copy of the program ids.
        let ids: Vec<Int<'ctx>> = pids
            .iter()
            .map(|n| Int::new_const(ctx, n.as_str()))
            .collect();
        let primed: Vec<Int<'ctx>> = pids
            .iter()
            .map(|n| Int::new_const(ctx, format!("{n}'")))
            .collect();
        let subst: Vec<(&Int<'ctx>, &Int<'ctx>)> = ids.iter().zip(&primed).collect();
        for c in &self.base[self.size_conds.len()..] {
            s.assert(&self.smt.cond(c).substitute(&subst));
        }
        let differ: Vec<Bool<'ctx>> = ids
            .iter()
            .zip(&primed)
            .map(|(a, b)| a._eq(b).not())
            .collect();
        let refs: Vec<&Bool<'ctx>> = differ.iter().collect();
        s.assert(&Bool::or(ctx, &refs));
        for tp in &tiles.polys {
            let x = self.smt.int(tp);
            s.assert(&x._eq(&x.substitute(&subst)));
        }
        match s.check() {
            SatResult::Unsat => Ok(()),
            SatResult::Sat => Err(Failed {
                reason: "two programs compute the same tile".into(),
                witness: small_witness(&s, self.smt, self.sizes),
            }),
            SatResult::Unknown => Err(open("two programs may compute the same tile")),
        }
    }
}

/// The paths' writers of tensor `k` with the tiles named and bounded (what coverage
/// reads: conditions, indices, guards, variables); `None` where some polynomial does not
/// rewrite.
fn retile(paths: &[Path], k: usize, tiles: &Tiles, pids: &[String]) -> Option<Vec<Path>> {
    let conds = |cs: &[Cond]| -> Option<Vec<Cond>> {
        cs.iter().map(|c| tiles.rewrite_cond(c, pids)).collect()
    };
    let mut out = Vec::new();
    for p in paths {
        let mut stores = Vec::new();
        for st in p.stores.iter().filter(|s| s.tensor == k) {
            let index: Option<Vec<Poly>> = st
                .index
                .as_deref()?
                .iter()
                .map(|x| tiles.rewrite(x, pids))
                .collect();
            let mut guard = conds(&st.guard)?;
            guard.extend(tiles.bounds());
            let mut vars = st.vars.clone();
            vars.extend(tiles.names.iter().cloned());
            stores.push(Access {
                index: Some(index?),
                guard,
                vars,
                ..st.clone()
            });
        }
        out.push(Path {
            cond: conds(&p.cond)?,
            stores,
            ..Path::default()
        });
    }
    Some(out)
}
