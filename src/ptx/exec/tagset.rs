//! One register's load tags (see `uses`): a sorted set of tag numbers.
//!
//! Most registers hold the tags of a load or two (an address, a loaded operand); only
//! accumulators collect many. [`TagSet`] keeps up to [`INLINE`] tags in the register's
//! own slot (no heap list to chase for every operand read) and moves to a heap list
//! once more are added; a heap list stays one (it keeps its capacity for the next
//! value, as the register's next accumulation usually needs it again).
//!
//! Invariant: `as_slice` is always sorted and distinct, and every operation is the set
//! operation it is named after, whichever storage holds the tags.

/// Tags kept in place: as many as fit beside the tag of a 32-byte slot (a heap list
/// and the enum's tag take 32 bytes too).
pub(super) const INLINE: usize = 7;

/// A register's tags, sorted and distinct.
#[derive(Clone, Debug)]
pub(super) enum TagSet {
    Inline { len: u8, tags: [u32; INLINE] },
    Heap(Vec<u32>),
}

impl Default for TagSet {
    fn default() -> Self {
        TagSet::Inline {
            len: 0,
            tags: [0; INLINE],
        }
    }
}

impl TagSet {
    pub(super) fn as_slice(&self) -> &[u32] {
        match self {
            TagSet::Inline { len, tags } => &tags[..*len as usize],
            TagSet::Heap(v) => v,
        }
    }

    pub(super) fn clear(&mut self) {
        match self {
            TagSet::Inline { len, .. } => *len = 0,
            TagSet::Heap(v) => v.clear(),
        }
    }

    /// Makes this set `ts` (sorted and distinct).
    pub(super) fn set_from(&mut self, ts: &[u32]) {
        match self {
            TagSet::Heap(v) => {
                v.clear();
                v.extend_from_slice(ts);
            }
            TagSet::Inline { len, tags } if ts.len() <= INLINE => {
                tags[..ts.len()].copy_from_slice(ts);
                *len = ts.len() as u8;
            }
            TagSet::Inline { .. } => *self = TagSet::Heap(ts.to_vec()),
        }
    }

    /// Adds the sorted, distinct `ts` to this set.
    pub(super) fn union_with(&mut self, ts: &[u32]) {
        if ts.is_empty() {
            return;
        }
        match self {
            TagSet::Heap(v) => union_into(v, ts),
            TagSet::Inline { len, tags } => {
                let n = *len as usize;
                if n + ts.len() <= INLINE {
                    let mut out = [0; INLINE];
                    let k = merge_into(&tags[..n], ts, &mut out);
                    *tags = out;
                    *len = k as u8;
                } else {
                    let mut v = Vec::with_capacity(n + ts.len());
                    v.extend_from_slice(&tags[..n]);
                    union_into(&mut v, ts);
                    if v.len() <= INLINE {
                        // Overlapping lists whose union still fits stay in place.
                        self.set_from(&v);
                    } else {
                        *self = TagSet::Heap(v);
                    }
                }
            }
        }
    }
}

/// How many distinct tags `a ∪ b` has (both sorted and distinct), without building it:
/// usually `b` lies wholly after `a` (newer loads), and the sizes just add up.
pub(super) fn union_len(a: &[u32], b: &[u32]) -> usize {
    match (a.last(), b.first()) {
        (None, _) | (_, None) => a.len() + b.len(),
        (Some(&l), Some(&f)) if l < f => a.len() + b.len(),
        _ => {
            let shared = b.iter().filter(|g| a.binary_search(g).is_ok()).count();
            a.len() + b.len() - shared
        }
    }
}

/// Adds the sorted, distinct `ts` to the sorted, distinct `acc`, keeping it so. Tags
/// are numbered in load order, so one list usually lies wholly after the other (an
/// accumulator's old tags, an operand's new one) or one is a tag or two: appended,
/// prepended or inserted in place; only long interleaved lists are merged into a new
/// list.
pub(super) fn union_into(acc: &mut Vec<u32>, ts: &[u32]) {
    let (Some(&first), Some(&last)) = (ts.first(), ts.last()) else {
        return;
    };
    match (acc.first(), acc.last()) {
        (None, _) | (_, None) => append(acc, ts),
        (_, Some(&l)) if l < first => append(acc, ts),
        (Some(&f), _) if last < f => {
            acc.extend_from_slice(ts);
            acc.rotate_right(ts.len());
        }
        _ if ts.len() <= 4 => {
            for &g in ts {
                if let Err(at) = acc.binary_search(&g) {
                    acc.insert(at, g);
                }
            }
        }
        _ => {
            let mut out = vec![0; acc.len() + ts.len()];
            let k = merge_into(acc, ts, &mut out);
            out.truncate(k);
            *acc = out;
        }
    }
}

/// `acc` then `ts`: a tag or two pushed one by one (no copy call for the usual
/// single tag of an operand).
pub(super) fn append(acc: &mut Vec<u32>, ts: &[u32]) {
    if ts.len() <= 2 {
        ts.iter().for_each(|&g| acc.push(g));
    } else {
        acc.extend_from_slice(ts);
    }
}

/// Writes the sorted union of two sorted, distinct lists to `out` (which has room for
/// both); how many it wrote.
fn merge_into(a: &[u32], b: &[u32], out: &mut [u32]) -> usize {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => {
                out[k] = a[i];
                i += 1;
            }
            std::cmp::Ordering::Greater => {
                out[k] = b[j];
                j += 1;
            }
            std::cmp::Ordering::Equal => {
                out[k] = a[i];
                i += 1;
                j += 1;
            }
        }
        k += 1;
    }
    for &g in a[i..].iter().chain(&b[j..]) {
        out[k] = g;
        k += 1;
    }
    k
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const LISTS: &[&[u32]] = &[
        &[],
        &[5],
        &[1, 2, 3],
        &[7, 8, 9, 10, 11, 12],
        &[2, 9],
        &[0, 3, 5, 8, 13, 21],
        &[4, 5, 6],
        &[30],
        &[1, 4, 6, 9, 11, 14, 17, 20, 23],
    ];

    fn set(xs: &[u32]) -> Vec<u32> {
        xs.iter()
            .copied()
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    }

    /// `union_into` is the sorted set union, whatever the lists' order and overlap
    /// (checked against a set built independently).
    #[test]
    fn union_into_is_the_sorted_union() {
        for a in LISTS {
            for b in LISTS {
                let mut acc = a.to_vec();
                union_into(&mut acc, b);
                let both: Vec<u32> = a.iter().chain(b.iter()).copied().collect();
                assert_eq!(acc, set(&both), "{a:?} with {b:?}");
            }
        }
    }

    /// A `TagSet` built by `set_from` then `union_with`, from either storage, holds
    /// the union; `union_len` counts it without building it.
    #[test]
    fn tag_set_is_the_sorted_union_in_either_storage() {
        for a in LISTS {
            for b in LISTS {
                let both = set(&a.iter().chain(b.iter()).copied().collect::<Vec<_>>());
                assert_eq!(union_len(a, b), both.len(), "{a:?} with {b:?}");
                for start in [TagSet::default(), TagSet::Heap(vec![99, 100])] {
                    let mut s = start;
                    s.set_from(a);
                    assert_eq!(s.as_slice(), *a);
                    s.union_with(b);
                    assert_eq!(s.as_slice(), both.as_slice(), "{a:?} with {b:?}");
                    s.clear();
                    assert!(s.as_slice().is_empty());
                }
            }
        }
    }

    /// The inline tags take no more room than the heap variant's slot.
    #[test]
    fn a_tag_set_is_one_32_byte_slot() {
        assert_eq!(std::mem::size_of::<TagSet>(), 32);
    }
}
