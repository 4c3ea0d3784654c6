//! Denominators cancelled against monomial multiples of themselves before anything is
//! expanded: `(q·D) · (N / D) = q·N` and `N₁/D + N₂/(q·D) = (q·N₁ + N₂)/(q·D)` for a
//! monomial `q` (an exponential part, atoms, a rational coefficient).
//!
//! FlashAttention-1 re-divides its output by the running sum every key tile:
//! `O_k = (l_{k-1}·e^(m_{k-1} - m_k)·O_{k-1} + e^(mt_k - m_k)·P_k V_k) / l_k` with
//! `O_{k-1} = N_{k-1} / l_{k-1}`. The forms have no polynomial gcd, so multiplying the
//! factors in the term's order expands `l_{k-1}·N_{k-1}` (|l|·|N| monomials) and keeps
//! `l_{k-1}` in the denominator; over K tiles the denominator is `l_1 ⋯ l_K`. Here the
//! factor `l_{k-1}` meets the denominator of `O_{k-1}` first: the two are the same
//! polynomial up to the exponential factor `exp(m_{k-1})` that normalising a quotient
//! divides out ([`Canon::cancel_exp`]), so the quotient is that monomial and the
//! rescaled accumulator stays `Σ_j exp(s_j - m_k)·v_j / Σ_j exp(s_j - m_k)`, the online
//! softmax-weighted sum, with as many monomials as keys so far.
//!
//! Invariant: a quotient `q` is returned only after `q·d = p` was checked by exact
//! multiplication, so every rewrite is an identity over the reals wherever `d ≠ 0`, which
//! the conversion that built the quotient `·/d` recorded (or proved, for a positive `d`).

use super::state::*;
use crate::decide::poly::{print_inv, print_mul, AtomId, Mono, Poly, Stop, PRINT_PRIME};
use rustc_hash::FxHashMap;
use std::rc::Rc;

/// A monomial of `p` as [`Canon::monomial_ratio`] looks it up: its exponent's
/// fingerprint and its atoms.
type ImageKey<'a> = (u64, &'a [(AtomId, i32)]);

impl Canon<'_> {
    /// The monomial `q` with `p = q·d`, where there is one (`d` with two or more
    /// monomials). Only in the exp-polynomial setting where monomials multiply by adding
    /// exponents (no `log` or square-root facts that split or reduce a product): there
    /// `None`, and the callers expand as before.
    ///
    /// `q` is found in time linear in the size: summed over the monomials, `p`'s atom
    /// exponents and exponent fingerprints ([`Algebra::fingerprint`]) are `d`'s plus `n`
    /// times `q`'s, which gives `q`'s; every monomial of `d` times `q` must then be one
    /// of `p`'s (by fingerprint and atoms), and the one `d`'s first monomial meets gives
    /// `q`'s exact exponent and coefficient. The product `q·d` is then multiplied out and
    /// compared with `p`.
    pub(crate) fn monomial_ratio(&mut self, p: &Poly, d: &Poly) -> Result<Option<Poly>, Stop> {
        let n = d.len();
        if p.len() != n || n < 2 {
            return Ok(None);
        }
        if p == d {
            return Ok(Some(Poly::one()));
        }
        if !(self.alg.logs.is_empty()
            && self.general_logs.is_empty()
            && self.alg.squares.is_empty())
        {
            return Ok(None);
        }
        let Some(q_atoms) = atom_shift(p, d, n) else {
            return Ok(None);
        };
        let (Some(fp), Some(fd)) = (self.print_sum(p), self.print_sum(d)) else {
            return Ok(None);
        };
        let fq = print_mul(
            (fp + PRINT_PRIME - fd) % PRINT_PRIME,
            print_inv(n as u64 % PRINT_PRIME),
        );
        let mut keys: FxHashMap<ImageKey, usize> = FxHashMap::default();
        for (i, (m, _)) in p.0.iter().enumerate() {
            let Some(f) = self.alg.fingerprint(m.exp) else {
                return Ok(None);
            };
            keys.insert((f, &m.atoms), i);
        }
        let mut first_image = None;
        for (m, _) in &d.0 {
            let Some(f) = self.alg.fingerprint(m.exp) else {
                return Ok(None);
            };
            let Some(atoms) = add_atoms(&m.atoms, &q_atoms) else {
                return Ok(None);
            };
            match keys.get(&((f + fq) % PRINT_PRIME, &atoms[..])) {
                Some(&k) => {
                    first_image.get_or_insert(k);
                }
                None => return Ok(None),
            }
        }
        let Some(k) = first_image else {
            return Ok(None);
        };
        let (pk, pkc) = &p.0[k];
        let (d0, d0c) = &d.0[0];
        let q_exp = self
            .alg
            .exp_poly(pk.exp)
            .add(&self.alg.exp_poly(d0.exp).neg());
        let q = Poly::mono(
            Mono {
                exp: self.alg.intern_exp(q_exp),
                atoms: q_atoms.into(),
            },
            pkc / d0c,
        );
        if &self.alg.mul(d, &q)? == p {
            return Ok(Some(q));
        }
        Ok(None)
    }

    /// The sum of the fingerprints of `p`'s exponents (see [`Algebra::fingerprint`]).
    fn print_sum(&mut self, p: &Poly) -> Option<u64> {
        let mut sum = 0u64;
        for (m, _) in &p.0 {
            sum = (sum + self.alg.fingerprint(m.exp)?) % PRINT_PRIME;
        }
        Some(sum)
    }

    /// The product of `factors` (a product term's operands, in order), where a factor
    /// whose numerator is a monomial multiple of another factor's denominator is first
    /// cancelled against it (see the module documentation).
    pub(super) fn product(&mut self, factors: &[Rc<Rf>]) -> Result<Rf, Stop> {
        let mut rest: Vec<Rc<Rf>> = factors.to_vec();
        if rest.len() > 1 && rest.iter().any(|r| !r.d.is_one()) {
            let mut j = 0;
            while j < rest.len() {
                if rest[j].d.is_one() {
                    j += 1;
                    continue;
                }
                let mut found = None;
                for i in 0..rest.len() {
                    if i == j {
                        continue;
                    }
                    if let Some(q) = self.monomial_ratio(&rest[i].n, &rest[j].d)? {
                        found = Some((i, q));
                        break;
                    }
                }
                let Some((i, q)) = found else {
                    j += 1;
                    continue;
                };
                // (q·D / D_i) · (N_j / D) = q·N_j / D_i
                let n = self.alg.mul(&q, &rest[j].n)?;
                let merged = self.normalize(n, rest[i].d.clone())?;
                rest[i] = Rc::new(merged);
                rest.remove(j);
                // The merged numerator may cancel a denominator already passed.
                j = 0;
            }
        }
        let mut acc = Rf::constant(crate::decide::poly::rat(1));
        for r in &rest {
            acc = self.mul(&acc, r)?;
        }
        Ok(acc)
    }
}

/// The atoms `q` of a monomial with `p = q·d` must have (`n` monomials each): the atom
/// exponents summed over `p`, less those summed over `d`, divided by `n`; `None` where
/// that is not a whole number.
fn atom_shift(p: &Poly, d: &Poly, n: usize) -> Option<Vec<(AtomId, i32)>> {
    let mut sums: FxHashMap<AtomId, i64> = FxHashMap::default();
    for (m, _) in &p.0 {
        for &(a, e) in m.atoms.iter() {
            *sums.entry(a).or_insert(0) += e as i64;
        }
    }
    for (m, _) in &d.0 {
        for &(a, e) in m.atoms.iter() {
            *sums.entry(a).or_insert(0) -= e as i64;
        }
    }
    let mut out: Vec<(AtomId, i32)> = Vec::new();
    for (a, s) in sums {
        if s % n as i64 != 0 {
            return None;
        }
        let e = i32::try_from(s / n as i64).ok()?;
        if e != 0 {
            out.push((a, e));
        }
    }
    out.sort_unstable();
    Some(out)
}

/// `a + b` of sorted atom-exponent lists (zero exponents dropped); `None` on overflow.
fn add_atoms(a: &[(AtomId, i32)], b: &[(AtomId, i32)]) -> Option<Vec<(AtomId, i32)>> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(&x), Some(&y)) if x.0 == y.0 => {
                let e = x.1.checked_add(y.1)?;
                if e != 0 {
                    out.push((x.0, e));
                }
                i += 1;
                j += 1;
            }
            (Some(&x), Some(&y)) if x.0 < y.0 => {
                out.push(x);
                i += 1;
            }
            (Some(_), Some(&y)) => {
                out.push(y);
                j += 1;
            }
            (Some(&x), None) => {
                out.push(x);
                i += 1;
            }
            (None, Some(&y)) => {
                out.push(y);
                j += 1;
            }
            (None, None) => break,
        }
    }
    Some(out)
}
