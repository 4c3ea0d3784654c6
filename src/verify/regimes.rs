//! A grid whose size is a `min` or `max` of size expressions (a persistent launch,
//! `grid = ["min(132, cdiv(N, 128))"]`: as many programs as SMs, fewer when there are
//! fewer tiles) proved case by case: each `min(a, b)` axis is `a` where `a <= b` and
//! `b` where `b < a` (`max` the other way round), one [`Regime`] per combination.
//!
//! Within a regime every axis is a plain polynomial over the sizes, so a persistent
//! loop `range(pid, n_tiles, num_programs)` strides by a constant (132, summarised as
//! for a fixed grid) or by the tile count itself (one trip per program, fixed by the
//! path). The regimes together cover every size: the proof for all sizes is the proof
//! in each (`super::verify_with` joins them), and a refutation in any is one.
//!
//! Invariant: the regimes' conditions partition the sizes (`a <= b` and `b < a`), and
//! each regime's grid equals the launch's grid wherever its conditions hold; a regime
//! is left out only where Z3 shows that no sizes satisfy its conditions.

use super::at_index::size_poly;
use super::sym::{Cond, Poly, Rel, Smt};
use crate::launch::{BinOp, Expr};

/// One case of the grid: its polynomial per axis, the size conditions under which the
/// launch's grid is that, and those conditions in words (empty for a plain grid).
#[derive(Clone, Debug)]
pub(super) struct Regime {
    pub(super) grid: [Poly; 3],
    pub(super) conds: Vec<Cond>,
    pub(super) text: String,
}

/// The regimes of `grid` (the launch's expressions, 1-3 axes): one where no axis is a
/// top-level `min`/`max`.
pub(super) fn regimes(grid: &[Expr]) -> Result<Vec<Regime>, String> {
    let mut out = vec![Regime {
        grid: [Poly::constant(1), Poly::constant(1), Poly::constant(1)],
        conds: Vec::new(),
        text: String::new(),
    }];
    for (k, e) in grid.iter().enumerate().take(3) {
        // (the axis's polynomial, the condition it holds under, in words) per case.
        let cases: Vec<(Poly, Option<(Cond, String)>)> = match e {
            Expr::Bin(op @ (BinOp::Min | BinOp::Max), a, b) => {
                let (pa, pb) = (size_poly(a)?, size_poly(b)?);
                // `a` is the value where `a <= b` (min) or `b <= a` (max).
                let (a_wins, b_wins, rel) = match op {
                    BinOp::Min => (
                        Cond::cmp(Rel::Le, &pa, &pb),
                        Cond::cmp(Rel::Lt, &pb, &pa),
                        ("<=", "<"),
                    ),
                    _ => (
                        Cond::cmp(Rel::Le, &pb, &pa),
                        Cond::cmp(Rel::Lt, &pa, &pb),
                        (">=", ">"),
                    ),
                };
                vec![
                    (pa, Some((a_wins, format!("{a} {} {b}", rel.0)))),
                    (pb, Some((b_wins, format!("{b} {} {a}", rel.1)))),
                ]
            }
            _ => vec![(size_poly(e)?, None)],
        };
        let mut next = Vec::with_capacity(out.len() * cases.len());
        for r in &out {
            for (p, cond) in &cases {
                let mut r = r.clone();
                r.grid[k] = p.clone();
                if let Some((c, text)) = cond {
                    r.conds.push(c.clone());
                    if !r.text.is_empty() {
                        r.text += " and ";
                    }
                    r.text += text;
                }
                next.push(r);
            }
        }
        out = next;
    }
    Ok(out)
}

/// Whether some sizes (each at least 1) satisfy `r`'s conditions; `false` only when Z3
/// shows none do (within `rlimit`, a count), so an empty case (`cdiv(N, 4) < 1`) is
/// dropped and any other is proved.
pub(super) fn feasible(r: &Regime, sizes: &[String], rlimit: u32) -> bool {
    if r.conds.is_empty() {
        return true;
    }
    let mut cfg = z3::Config::new();
    cfg.set_param_value("rlimit", &rlimit.to_string());
    let ctx = z3::Context::new(&cfg);
    let smt = Smt { ctx: &ctx };
    let solver = z3::Solver::new(&ctx);
    for s in sizes {
        solver.assert(&smt.cond(&Cond::cmp(Rel::Le, &Poly::constant(1), &Poly::sym(s))));
    }
    for c in &r.conds {
        solver.assert(&smt.cond(c));
    }
    solver.check() != z3::SatResult::Unsat
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `min(132, cdiv(N, 4))` is 132 where `132 <= cdiv(N, 4)` and `cdiv(N, 4)` where it
    /// is below: two regimes whose conditions hold at exactly complementary sizes.
    #[test]
    fn a_min_grid_is_two_complementary_regimes() {
        let rs = regimes(&[Expr::parse("min(132, cdiv(N, 4))").unwrap()]).unwrap();
        assert_eq!(rs.len(), 2);
        assert_eq!(rs[0].grid[0].as_const(), Some(132));
        assert!(rs[1].grid[0].as_const().is_none());
        assert!(rs[0].text.contains("<=") && rs[1].text.contains('<'));
        let plain = regimes(&[Expr::parse("cdiv(N, 4)").unwrap(), Expr::Int(2)]).unwrap();
        assert_eq!(plain.len(), 1);
        assert!(plain[0].conds.is_empty() && plain[0].text.is_empty());
        assert_eq!(plain[0].grid[1].as_const(), Some(2));
    }
}
