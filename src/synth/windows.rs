//! Recognising pooling and convolution (`formula::window`): outputs whose elements each
//! read a window of an input of the same rank, sliding along the trailing axes.
//!
//! The geometry is read off the input elements an interior output element reads (the
//! one reading the most): along each windowed axis the distinct positions give the
//! kernel and the dilation, the shift to a neighbouring interior element gives the
//! stride, and the first position gives the padding. Those are only a proposal: every
//! candidate (max pool, average pool, convolution with each weight and optional bias)
//! is returned only if [`Synth::matches`] finds its instantiation equal, term for term,
//! to the list; `prove` then proves each element as for every formula.

use super::leaves::{self, LeafSets};
use super::{ravel, Synth};
use crate::formula::{Formula, Geometry, WindowOp};
use crate::term::{Node, TermId};
use std::collections::{BTreeMap, BTreeSet};

/// Windowed axes tried: 1-D to 3-D pooling and convolution.
const MAX_WINDOWED_AXES: usize = 3;

impl Synth<'_> {
    pub(super) fn window(&mut self, shape: &[usize], list: &[TermId]) -> Option<Formula> {
        let r = shape.len();
        if r < 2
            || !matches!(
                self.terms.node(list[0]),
                Node::Max(_) | Node::Add(_) | Node::Mul(_)
            )
        {
            return None;
        }
        // The middle element is interior along every axis (no padding clips it); its
        // reads and those of its neighbours are all the geometry needs.
        let mid: Vec<usize> = shape.iter().map(|&n| n / 2).collect();
        let mut reads: BTreeMap<usize, BTreeMap<String, Vec<Vec<i64>>>> = BTreeMap::new();
        // The input elements below each element, from the memoised leaf sets: the
        // elements of an online recurrence's steps share their history.
        let mut read = |p: usize, terms: &crate::term::Terms, sets: &mut LeafSets| {
            reads
                .entry(p)
                .or_insert_with(|| {
                    let bits = sets.of(terms, list[p]);
                    let mut leaves: Vec<(&str, &[i64])> = sets
                        .terms_of(&bits)
                        .into_iter()
                        .filter_map(|t| leaves::input_element(terms, t))
                        .collect();
                    leaves.sort_unstable();
                    let mut m: BTreeMap<String, Vec<Vec<i64>>> = BTreeMap::new();
                    for (name, idx) in leaves {
                        m.entry(name.to_string()).or_default().push(idx.to_vec());
                    }
                    m
                })
                .clone()
        };
        let p0 = ravel(&mid, shape);
        let at_mid = read(p0, self.terms, &mut self.leaf_sets);
        let rank = |name: &str| self.env.tensors.get(name).map(|s| s.len());
        let same_rank: Vec<&String> = at_mid.keys().filter(|n| rank(n) == Some(r)).collect();
        let vectors: Vec<&String> = at_mid.keys().filter(|n| rank(n) == Some(1)).collect();
        // A pool reads one tensor; a convolution an input, a weight and maybe a bias.
        let roles: Vec<(&String, Option<&String>)> = match (same_rank.as_slice(), vectors.len()) {
            ([x], 0) if at_mid.len() == 1 => vec![(*x, None)],
            ([a, b], n) if r >= 3 && n <= 1 && at_mid.len() == 2 + n => {
                vec![(*a, Some(*b)), (*b, Some(*a))]
            }
            _ => return None,
        };
        for (x, w) in roles {
            let nds = match w {
                Some(_) => r - 2..=r - 2,
                None => 1..=MAX_WINDOWED_AXES.min(r - 1),
            };
            for nd in nds {
                let Some(g) = geometry(shape, &mid, x, nd, &mut |p| {
                    read(p, self.terms, &mut self.leaf_sets)
                }) else {
                    continue;
                };
                let cands: Vec<Formula> = match w {
                    None => [WindowOp::MaxPool, WindowOp::AvgPool]
                        .into_iter()
                        .map(|op| Formula::window(op, vec![Formula::input(x)], g.clone()))
                        .collect(),
                    Some(w) => {
                        let mut args = vec![Formula::input(x), Formula::input(w)];
                        args.extend(vectors.first().map(|b| Formula::input(b)));
                        let g = Geometry {
                            kernel: Vec::new(),
                            ..g
                        };
                        vec![Formula::window(WindowOp::Conv, args, g)]
                    }
                };
                for f in cands {
                    if f.shape(self.env).ok().as_deref() == Some(shape)
                        && self.matches(&f, shape, list)
                    {
                        return Some(f);
                    }
                }
            }
        }
        None
    }
}

/// The geometry of `nd` trailing windowed axes read off the elements' reads of `x`, or
/// `None` where they show no window (see the module documentation).
fn geometry(
    shape: &[usize],
    mid: &[usize],
    x: &str,
    nd: usize,
    read: &mut dyn FnMut(usize) -> BTreeMap<String, Vec<Vec<i64>>>,
) -> Option<Geometry> {
    let r = shape.len();
    let p0 = ravel(mid, shape);
    let reads0 = read(p0);
    let most = reads0.get(x).map_or(0, |v| v.len());
    if most == 0 {
        return None;
    }
    let idx0 = mid.to_vec();
    let positions = |reads: &BTreeMap<String, Vec<Vec<i64>>>, axis: usize| -> Vec<i64> {
        let set: BTreeSet<i64> = reads
            .get(x)
            .into_iter()
            .flatten()
            .map(|i| i[axis])
            .collect();
        set.into_iter().collect()
    };
    let mut g = Geometry {
        kernel: Vec::new(),
        stride: Vec::new(),
        padding: Vec::new(),
        dilation: Vec::new(),
    };
    // At least one axis must hold a window of several elements: a kernel of 1 is a
    // strided gather, not a pooling, and reads better as what else explains it.
    let mut windowed = false;
    for axis in r - nd..r {
        let at = positions(&reads0, axis);
        let first = *at.first()?;
        let dilation = at.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(1);
        // A neighbour along the axis reading as many elements (not clipped by padding).
        let neighbour = [1i64, -1].into_iter().find_map(|step| {
            let i = idx0[axis] as i64 + step;
            if !(0..shape[axis] as i64).contains(&i) {
                return None;
            }
            let mut idx = idx0.clone();
            idx[axis] = i as usize;
            let theirs = read(ravel(&idx, shape));
            let count = theirs.get(x).map_or(0, |v| v.len());
            (count == most).then(|| (step, *positions(&theirs, axis).first().unwrap_or(&first)))
        });
        let kernel = at.len();
        let stride = match neighbour {
            Some((step, their_first)) => (their_first - first) * step,
            // One window along the axis: PyTorch's default stride (the kernel).
            None => kernel as i64,
        };
        let padding = stride * idx0[axis] as i64 - first;
        if dilation < 1 || stride < 1 || padding < 0 {
            return None;
        }
        g.kernel.push(kernel);
        windowed |= kernel > 1;
        g.stride.push(stride as usize);
        g.padding.push(padding as usize);
        g.dilation.push(dilation as usize);
    }
    windowed.then_some(g)
}
