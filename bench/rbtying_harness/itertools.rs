//! The few `itertools` adaptors the server's ordered_card.rs uses, with itertools' orders.
use std::collections::HashSet;
use std::hash::Hash;

pub trait Itertools: Iterator + Sized {
    fn unique(self) -> std::vec::IntoIter<Self::Item>
    where
        Self::Item: Eq + Hash + Clone,
    {
        let mut seen = HashSet::new();
        let mut out = vec![];
        for x in self {
            if seen.insert(x.clone()) {
                out.push(x);
            }
        }
        out.into_iter()
    }

    fn permutations(self, k: usize) -> std::vec::IntoIter<Vec<Self::Item>>
    where
        Self::Item: Clone,
    {
        let items: Vec<Self::Item> = self.collect();
        let n = items.len();
        let mut out = vec![];
        if k > n {
            return out.into_iter();
        }
        // Python/itertools order: lexicographic in the indices.
        fn rec<T: Clone>(items: &[T], k: usize, used: &mut Vec<bool>, cur: &mut Vec<T>, out: &mut Vec<Vec<T>>) {
            if cur.len() == k {
                out.push(cur.clone());
                return;
            }
            for i in 0..items.len() {
                if !used[i] {
                    used[i] = true;
                    cur.push(items[i].clone());
                    rec(items, k, used, cur, out);
                    cur.pop();
                    used[i] = false;
                }
            }
        }
        rec(&items, k, &mut vec![false; n], &mut vec![], &mut out);
        out.into_iter()
    }

    fn multi_cartesian_product<U: Clone>(self) -> std::vec::IntoIter<Vec<U>>
    where
        Self: Iterator<Item = Vec<U>>,
    {
        let lists: Vec<Vec<U>> = self.collect();
        let mut out: Vec<Vec<U>> = vec![];
        if lists.is_empty() {
            return out.into_iter();
        }
        let mut idx = vec![0usize; lists.len()];
        if lists.iter().any(|l| l.is_empty()) {
            return out.into_iter();
        }
        loop {
            out.push(idx.iter().enumerate().map(|(i, &j)| lists[i][j].clone()).collect());
            let mut pos = lists.len();
            loop {
                if pos == 0 {
                    return out.into_iter();
                }
                pos -= 1;
                idx[pos] += 1;
                if idx[pos] < lists[pos].len() {
                    break;
                }
                idx[pos] = 0;
            }
        }
    }
}

impl<I: Iterator> Itertools for I {}
