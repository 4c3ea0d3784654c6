//! Sliding windows over the trailing axes: PyTorch's pooling (`F.max_pool{1,2,3}d`,
//! `F.avg_pool{1,2,3}d`) and convolution (`F.conv{1,2,3}d`), as formulas.
//!
//! Geometry is PyTorch's (ceil_mode=False): along a windowed axis of extent `n`, with
//! kernel `k`, stride `s`, padding `p` and dilation `d`, there are
//! `(n + 2p - d·(k - 1) - 1) // s + 1` windows, and window `i` reads positions
//! `i·s - p + j·d` for `j < k`. Positions outside `0..n` are padding: `-inf` for a max
//! pool (so they never win), `0` for an average pool (PyTorch's default
//! count_include_pad=True: the divisor stays `k`) and for a convolution.
//!
//! Convolution here is groups=1 over batched input: `x[N, Ci, L..]`, `w[Co, Ci, K..]`,
//! optional `b[Co]`, output `[N, Co, Lo..]` with
//! `y[n, co, l..] = b[co] + Σ_ci Σ_j x[n, ci, l·s - p + j·d] · w[co, ci, j]`.

use super::instantiate::{strides, unravel};
use super::{err, sizes, Dim, Formula, FormulaError, ShapeEnv};
use crate::term::{TermId, Terms};
use num_bigint::BigInt;
use num_rational::BigRational;

/// What a window computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WindowOp {
    MaxPool,
    /// count_include_pad=True: the sum of the window's in-range elements over `Π k`.
    AvgPool,
    /// Operands `[x, w]` or `[x, w, b]`.
    Conv,
}

impl WindowOp {
    /// PyTorch's name for `nd` windowed axes (`max_pool2d`).
    pub fn name(self, nd: usize) -> String {
        match self {
            WindowOp::MaxPool => format!("max_pool{nd}d"),
            WindowOp::AvgPool => format!("avg_pool{nd}d"),
            WindowOp::Conv => format!("conv{nd}d"),
        }
    }
}

/// Per windowed axis: kernel (pools only; a convolution's is its weight's shape),
/// stride, padding, dilation. All vectors have one entry per windowed axis.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Geometry {
    pub kernel: Vec<usize>,
    pub stride: Vec<usize>,
    pub padding: Vec<usize>,
    pub dilation: Vec<usize>,
}

impl Geometry {
    /// Windowed axes.
    pub fn nd(&self) -> usize {
        self.stride.len()
    }
    /// Windows along an axis of extent `n` with kernel `k`, or `None` where the
    /// (dilated) kernel does not fit the padded axis.
    pub fn windows(&self, axis: usize, n: usize, k: usize) -> Option<usize> {
        let (s, p, d) = (self.stride[axis], self.padding[axis], self.dilation[axis]);
        let span = d * k.checked_sub(1)? + 1;
        let padded = n + 2 * p;
        (s > 0 && padded >= span).then(|| (padded - span) / s + 1)
    }
}

/// The shape of a window formula, or what is wrong with it.
pub(super) fn dims(
    f: &Formula,
    op: WindowOp,
    args: &[Formula],
    g: &Geometry,
    env: &ShapeEnv,
) -> Result<Vec<Dim>, FormulaError> {
    let here = || crate::render::text::expr(f);
    let nd = g.nd();
    let ok_geometry = nd > 0
        && g.padding.len() == nd
        && g.dilation.len() == nd
        && (op == WindowOp::Conv || g.kernel.len() == nd)
        && g.stride.iter().chain(&g.dilation).all(|&v| v > 0);
    if !ok_geometry {
        return err(format!("malformed window geometry {g:?} in {}", here()));
    }
    let x = args[0].dims(env)?;
    let kernel: Vec<usize> = match op {
        WindowOp::MaxPool | WindowOp::AvgPool => {
            if args.len() != 1 || x.len() < nd + 1 {
                return err(format!(
                    "{} needs one operand of at least {} axes in {}",
                    op.name(nd),
                    nd + 1,
                    here()
                ));
            }
            g.kernel.clone()
        }
        WindowOp::Conv => {
            let w = match args.get(1) {
                Some(w) if args.len() <= 3 => w.dims(env)?,
                _ => {
                    return err(format!(
                        "{} needs an input, a weight and an optional bias in {}",
                        op.name(nd),
                        here()
                    ))
                }
            };
            if x.len() != nd + 2 || w.len() != nd + 2 || x[1].size != w[1].size {
                return err(format!(
                    "{} of input {:?} and weight {:?}: needs [N, Ci, ..] and [Co, Ci, ..] with {nd} windowed axes in {}",
                    op.name(nd),
                    sizes(&x),
                    sizes(&w),
                    here()
                ));
            }
            if let Some(b) = args.get(2) {
                let b = b.dims(env)?;
                if b.len() != 1 || b[0].size != w[0].size {
                    return err(format!(
                        "bias of shape {:?} for {} output channels in {}",
                        sizes(&b),
                        w[0].size,
                        here()
                    ));
                }
            }
            w[2..].iter().map(|d| d.size).collect()
        }
    };
    let lead = x.len() - nd;
    let mut out: Vec<Dim> = x[..lead].to_vec();
    if op == WindowOp::Conv {
        out[1] = args[1].dims(env)?[0].clone();
    }
    for a in 0..nd {
        let Some(n) = g.windows(a, x[lead + a].size, kernel[a]) else {
            return err(format!(
                "a window of {} (dilation {}) does not fit axis {} of extent {} padded by {} in {}",
                kernel[a],
                g.dilation[a],
                lead + a,
                x[lead + a].size,
                g.padding[a],
                here()
            ));
        };
        out.push(Dim {
            size: n,
            name: None,
        });
    }
    Ok(out)
}

/// Every offset `j` (row-major) of a kernel of extents `kernel`.
fn kernel_offsets(kernel: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = kernel.iter().product();
    (0..n).map(|f| unravel(f, kernel)).collect()
}

/// Position `i·s - p + j·d` of window `i`, offset `j`, along windowed axis `a`, or
/// `None` in the padding.
fn position(g: &Geometry, a: usize, i: usize, j: usize, n: usize) -> Option<usize> {
    let pos = (i * g.stride[a] + j * g.dilation[a]) as i64 - g.padding[a] as i64;
    (0..n as i64).contains(&pos).then_some(pos as usize)
}

/// The elements of a window formula at concrete sizes (operands already instantiated,
/// each a row-major tensor of `shape`); `out` is the formula's shape.
pub(super) fn instantiate(
    terms: &mut Terms,
    op: WindowOp,
    g: &Geometry,
    args: &[(Vec<usize>, Vec<TermId>)],
    out: &[usize],
) -> Vec<TermId> {
    let nd = g.nd();
    let (xs, x) = (&args[0].0, &args[0].1);
    let xst = strides(xs);
    let lead = xs.len() - nd;
    let total: usize = out.iter().product();
    let mut elems = Vec::with_capacity(total);
    match op {
        WindowOp::MaxPool | WindowOp::AvgPool => {
            let offsets = kernel_offsets(&g.kernel);
            let inv = BigRational::new(BigInt::from(1), BigInt::from(offsets.len().max(1)));
            for flat in 0..total {
                let idx = unravel(flat, out);
                let base: usize = (0..lead).map(|k| idx[k] * xst[k]).sum();
                let window: Vec<TermId> = offsets
                    .iter()
                    .filter_map(|j| {
                        let mut at = base;
                        for a in 0..nd {
                            at +=
                                position(g, a, idx[lead + a], j[a], xs[lead + a])? * xst[lead + a];
                        }
                        Some(x[at])
                    })
                    .collect();
                elems.push(if op == WindowOp::MaxPool {
                    // Padding is -inf: it never wins; an all-padding window is -inf.
                    if window.is_empty() {
                        terms.inf(true)
                    } else {
                        terms.maxn(&window)
                    }
                } else {
                    let s = terms.sum(&window);
                    let c = terms.constant(inv.clone());
                    terms.mul(s, c)
                });
            }
        }
        WindowOp::Conv => {
            let (ws, w) = (&args[1].0, &args[1].1);
            let wst = strides(ws);
            let offsets = kernel_offsets(&ws[2..]);
            for flat in 0..total {
                let idx = unravel(flat, out);
                let (n, co) = (idx[0], idx[1]);
                let mut summands = Vec::new();
                if let Some((_, b)) = args.get(2) {
                    summands.push(b[co]);
                }
                for ci in 0..xs[1] {
                    for j in &offsets {
                        let mut at = n * xst[0] + ci * xst[1];
                        let mut inside = true;
                        for a in 0..nd {
                            match position(g, a, idx[2 + a], j[a], xs[2 + a]) {
                                Some(p) => at += p * xst[2 + a],
                                None => inside = false,
                            }
                        }
                        if inside {
                            let wat = co * wst[0]
                                + ci * wst[1]
                                + (0..nd).map(|a| j[a] * wst[2 + a]).sum::<usize>();
                            summands.push(terms.mul(x[at], w[wat]));
                        }
                    }
                }
                elems.push(terms.sum(&summands));
            }
        }
    }
    elems
}
