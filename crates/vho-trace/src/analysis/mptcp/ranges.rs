//! A set of half-open ranges of data sequence numbers, merged: what a direction has seen.

use std::collections::BTreeMap;

/// Bytes of `[lo, hi)` already in `set` (merged, exclusive ends).
pub(super) fn overlap(set: &BTreeMap<u64, u64>, lo: u64, hi: u64) -> u64 {
    let mut n = 0;
    let start = set.range(..=lo).next_back().map_or(lo, |(&s, _)| s);
    for (&s, &e) in set.range(start..hi) {
        let (a, b) = (s.max(lo), e.min(hi));
        if b > a {
            n += b - a;
        }
    }
    n
}

/// Adds `[lo, hi)` to `set`, merging what it touches.
pub(super) fn insert(set: &mut BTreeMap<u64, u64>, mut lo: u64, mut hi: u64) {
    if let Some((&s, &e)) = set.range(..=lo).next_back() {
        if e >= lo {
            lo = s;
            hi = hi.max(e);
        }
    }
    let inside: Vec<(u64, u64)> = set.range(lo..=hi).map(|(&s, &e)| (s, e)).collect();
    for (s, e) in inside {
        hi = hi.max(e);
        set.remove(&s);
    }
    set.insert(lo, hi);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_merge_and_count_overlap() {
        let mut s = BTreeMap::new();
        insert(&mut s, 10, 20);
        insert(&mut s, 30, 40);
        assert_eq!(overlap(&s, 15, 35), 10);
        insert(&mut s, 20, 30);
        assert_eq!(s.len(), 1);
        assert_eq!(overlap(&s, 0, 100), 30);
        assert_eq!(overlap(&s, 40, 50), 0);
    }
}
