//! The refuter's memo of sub-term values: compact numbers for the terms one chunk of
//! pairs evaluates, and the values at each point by number.
//!
//! Why: every node's evaluation reads its children's values, and a row's max and sum
//! are read by every element of the chunk; looked up by hashing term ids, those reads
//! were most of the refuter's time. A term's number comes from a table indexed by term
//! id that each thread keeps between chunks, stamped as in `symmetry` (a fresh table
//! per chunk would cost a pass over the whole store), and values sit in dense vectors
//! indexed by number. Past [`DENSE_TERMS`] terms in the store the numbers are hashed
//! instead, so that no thread holds a table of a huge store.
//!
//! Invariant: a cache only. A value is found only where it was stored for the same term
//! under the same key (a point whose leaf values are a function of the key), or earlier
//! in the same evaluation for a table of its own; so what the refuter computes does not
//! depend on what was kept or flushed.

use crate::term::TermId;
use rustc_hash::FxHashMap;

/// A point's key: (seed, compensated sums, the constants' error bound's bits).
pub(super) type Key = (u64, bool, u64);

/// Most terms one memo numbers before it starts afresh (between evaluations).
const LIMIT: usize = 1 << 18;

/// Largest store numbered through a table by term id (8 bytes a term, per thread).
const DENSE_TERMS: usize = 1 << 21;

/// Compact numbers of terms.
enum Numbers {
    /// By term id: the stamp of the memo that numbered it and its number there. From
    /// this thread's scratch, given back when the memo drops.
    Dense(Vec<(u32, u32)>),
    /// By hashing, for a store past [`DENSE_TERMS`].
    Hashed(FxHashMap<TermId, u32>),
}
/// Values of sub-terms by compact number, for the pairs of one chunk.
pub(super) struct Memo<V> {
    /// Claimed on first use.
    number: Option<Numbers>,
    stamp: u32,
    count: usize,
    /// The values at points shared by the chunk's pairs, by key.
    shared: Vec<(Key, Table<V>)>,
    /// The values of one evaluation that shares none (`Memo::own`).
    own: Table<V>,
}

/// Values by number; an entry holds a value when its generation is the table's.
struct Table<V> {
    generation: u32,
    vals: Vec<(u32, V)>,
}

impl<V> Default for Table<V> {
    fn default() -> Self {
        Table {
            generation: 1,
            vals: Vec::new(),
        }
    }
}

impl<V> Default for Memo<V> {
    fn default() -> Self {
        Memo {
            number: None,
            stamp: 0,
            count: 0,
            shared: Vec::new(),
            own: Table::default(),
        }
    }
}

/// The numbering tables this thread's memos reuse (see the module documentation).
#[derive(Default)]
struct Scratch {
    number: Vec<(u32, u32)>,
    /// The highest stamp used so far (0: never numbered).
    next: u32,
}

thread_local! {
    static SCRATCH: std::cell::Cell<Scratch> = std::cell::Cell::new(Scratch::default());
}

impl<V> Drop for Memo<V> {
    fn drop(&mut self) {
        if let Some(Numbers::Dense(number)) = self.number.take() {
            let next = self.stamp;
            SCRATCH.with(|s| s.set(Scratch { number, next }));
        }
    }
}

impl<V: Copy + Default> Memo<V> {
    /// The values of `key`'s point over a store of `len` terms, kept for later
    /// evaluations at the same key.
    pub fn shared(&mut self, len: usize, key: Key) -> Values<'_, V> {
        self.prepare(len);
        let i = match self.shared.iter().position(|(k, _)| *k == key) {
            Some(i) => i,
            None => {
                self.shared.push((key, Table::default()));
                self.shared.len() - 1
            }
        };
        let table = &mut self.shared[i].1;
        Self::values(&mut self.number, self.stamp, &mut self.count, table)
    }

    /// Empty values for one evaluation over a store of `len` terms, shared with none.
    pub fn own(&mut self, len: usize) -> Values<'_, V> {
        self.prepare(len);
        let own = &mut self.own;
        if own.generation == u32::MAX {
            own.vals.clear();
            own.generation = 1;
        } else {
            own.generation += 1;
        }
        Self::values(&mut self.number, self.stamp, &mut self.count, own)
    }

    fn values<'m>(
        number: &'m mut Option<Numbers>,
        stamp: u32,
        count: &'m mut usize,
        table: &'m mut Table<V>,
    ) -> Values<'m, V> {
        match number.as_mut().expect("numbered by prepare") {
            Numbers::Dense(number) => Values::Dense(Lookup {
                number: Dense { number, stamp },
                count,
                table,
            }),
            Numbers::Hashed(number) => Values::Hashed(Lookup {
                number,
                count,
                table,
            }),
        }
    }

    /// Claims the numbering table, sized for `len` terms; past [`LIMIT`] numbers, a
    /// fresh numbering and no values.
    fn prepare(&mut self, len: usize) {
        if self.number.is_none() {
            if len <= DENSE_TERMS {
                let Scratch { number, next } = SCRATCH.with(|s| s.take());
                self.number = Some(Numbers::Dense(number));
                self.stamp = next;
            } else {
                self.number = Some(Numbers::Hashed(FxHashMap::default()));
            }
            self.restart();
        } else if self.count > LIMIT {
            self.restart();
        }
        if let Some(Numbers::Dense(number)) = &mut self.number {
            if number.len() < len {
                number.resize(len, (0, 0));
            }
        }
    }

    /// A stamp no entry of the table holds, and no values.
    fn restart(&mut self) {
        match self.number.as_mut().expect("claimed") {
            Numbers::Dense(number) => {
                if self.stamp == u32::MAX {
                    number.iter_mut().for_each(|e| *e = (0, 0));
                    self.stamp = 0;
                }
                self.stamp += 1;
            }
            Numbers::Hashed(number) => number.clear(),
        }
        self.count = 0;
        for (_, table) in &mut self.shared {
            table.vals.clear();
        }
        self.own.vals.clear();
    }
}

/// One table of values with the memo's numbering, of either kind: callers match once
/// and run [`Lookup`]'s methods, compiled for each kind (no branch per term).
pub(super) enum Values<'m, V> {
    Dense(Lookup<'m, V, Dense<'m>>),
    Hashed(Lookup<'m, V, &'m mut FxHashMap<TermId, u32>>),
}

/// A term's compact number.
pub(super) trait Number {
    /// `t`'s number, if it has one.
    fn get(&self, t: TermId) -> Option<u32>;
    /// `t`'s number, `fresh` where it had none.
    fn assign(&mut self, t: TermId, fresh: u32) -> u32;
}

/// The numbering table by term id, under one memo's stamp.
pub(super) struct Dense<'m> {
    number: &'m mut Vec<(u32, u32)>,
    stamp: u32,
}

impl Number for Dense<'_> {
    #[inline]
    fn get(&self, t: TermId) -> Option<u32> {
        match self.number[t.0 as usize] {
            (stamp, n) if stamp == self.stamp => Some(n),
            _ => None,
        }
    }

    #[inline]
    fn assign(&mut self, t: TermId, fresh: u32) -> u32 {
        let e = &mut self.number[t.0 as usize];
        if e.0 != self.stamp {
            *e = (self.stamp, fresh);
        }
        e.1
    }
}

impl Number for &mut FxHashMap<TermId, u32> {
    fn get(&self, t: TermId) -> Option<u32> {
        (**self).get(&t).copied()
    }

    fn assign(&mut self, t: TermId, fresh: u32) -> u32 {
        *self.entry(t).or_insert(fresh)
    }
}

/// One table of values, read through numbering `N`.
pub(super) struct Lookup<'m, V, N> {
    number: N,
    count: &'m mut usize,
    table: &'m mut Table<V>,
}

impl<V: Copy + Default, N: Number> Lookup<'_, V, N> {
    /// `t`'s value, if stored.
    #[inline]
    pub fn get(&self, t: TermId) -> Option<V> {
        let n = self.number.get(t)?;
        match self.table.vals.get(n as usize) {
            Some(&(g, v)) if g == self.table.generation => Some(v),
            _ => None,
        }
    }

    /// Whether `t` has a value.
    #[inline]
    pub fn has(&self, t: TermId) -> bool {
        self.get(t).is_some()
    }

    /// The value of `t`, which was stored.
    #[inline]
    pub fn value(&self, t: TermId) -> V {
        self.get(t).expect("a child is evaluated before its parent")
    }

    /// Stores `t`'s value.
    pub fn set(&mut self, t: TermId, v: V) {
        let fresh = *self.count as u32;
        let n = self.number.assign(t, fresh);
        if n == fresh {
            *self.count += 1;
        }
        let n = n as usize;
        let vals = &mut self.table.vals;
        if vals.len() <= n {
            // Doubling: a table grows a bounded number of times per chunk.
            let len = (*self.count).max(n + 1).max(2 * vals.len()).max(64);
            vals.resize(len, (0, V::default()));
        }
        vals[n] = (self.table.generation, v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    impl<V: Copy + Default> Values<'_, V> {
        fn get(&self, t: TermId) -> Option<V> {
            match self {
                Values::Dense(l) => l.get(t),
                Values::Hashed(l) => l.get(t),
            }
        }
        fn has(&self, t: TermId) -> bool {
            self.get(t).is_some()
        }
        fn set(&mut self, t: TermId, v: V) {
            match self {
                Values::Dense(l) => l.set(t, v),
                Values::Hashed(l) => l.set(t, v),
            }
        }
    }

    #[test]
    fn values_are_kept_by_key_and_an_own_table_starts_empty() {
        let mut memo: Memo<f64> = Memo::default();
        let (a, b) = (TermId(3), TermId(7));
        let mut v = memo.shared(10, (1, false, 0));
        v.set(a, 1.5);
        assert_eq!(v.get(a), Some(1.5));
        assert!(!v.has(b));
        let mut w = memo.shared(10, (2, false, 0));
        assert_eq!(w.get(a), None, "another point's value");
        w.set(b, 2.0);
        assert_eq!(memo.shared(10, (1, false, 0)).get(a), Some(1.5));
        let mut own = memo.own(10);
        assert_eq!(own.get(a), None);
        own.set(a, 9.0);
        assert_eq!(own.get(a), Some(9.0));
        assert_eq!(memo.own(10).get(a), None, "a second own evaluation");
        assert_eq!(memo.shared(10, (2, false, 0)).get(b), Some(2.0));
    }

    #[test]
    fn a_huge_store_is_numbered_by_hashing_with_the_same_values() {
        let len = DENSE_TERMS + 1;
        let mut memo: Memo<f64> = Memo::default();
        let far = TermId(DENSE_TERMS as u32);
        memo.shared(len, (1, false, 0)).set(far, 4.0);
        assert!(matches!(memo.number, Some(Numbers::Hashed(_))));
        assert_eq!(memo.shared(len, (1, false, 0)).get(far), Some(4.0));
        assert_eq!(memo.shared(len, (2, false, 0)).get(far), None);
        assert_eq!(memo.own(len).get(far), None);
    }

    #[test]
    fn a_later_memo_on_the_thread_sees_none_of_an_earlier_ones_values() {
        {
            let mut memo: Memo<f64> = Memo::default();
            memo.shared(4, (1, false, 0)).set(TermId(2), 1.0);
        }
        let mut memo: Memo<f64> = Memo::default();
        assert_eq!(memo.shared(4, (1, false, 0)).get(TermId(2)), None);
    }
}
