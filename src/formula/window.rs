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
//!
//! This module holds the operators and the geometry; the shape rule is in `shape`, the
//! elements in `instantiate`.

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
