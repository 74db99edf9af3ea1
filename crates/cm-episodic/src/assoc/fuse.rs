//! Reciprocal rank fusion: one ranking from several (the association layer's, the lexical one,
//! the optional embeddings'), without having to make their scores comparable.
//!
//! `score(d) = sum over rankings r holding d of 1 / (k + rank_r(d))`, ranks from 1, with
//! [`K`] = 60 (the usual constant: it keeps one ranking's first place from outweighing
//! agreement between the others). Pure.

/// The fusion constant.
pub const K: f64 = 60.0;

/// Fused (item, score), best first; ties keep the order of first appearance.
pub fn rrf<T: Clone + PartialEq>(rankings: &[&[T]]) -> Vec<(T, f64)> {
    let mut out: Vec<(T, f64)> = Vec::new();
    for ranking in rankings {
        for (i, item) in ranking.iter().enumerate() {
            let add = 1.0 / (K + 1.0 + i as f64);
            match out.iter_mut().find(|(t, _)| t == item) {
                Some(e) => e.1 += add,
                None => out.push((item.clone(), add)),
            }
        }
    }
    out.sort_by(|a, b| b.1.total_cmp(&a.1));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreement_beats_one_first_place() {
        let lexical = ["a", "b", "c"];
        let assoc = ["b", "c", "a"];
        let semantic = ["d", "b"];
        let fused = rrf(&[&lexical, &assoc, &semantic]);
        assert_eq!(fused[0].0, "b");
        let b = 1.0 / 62.0 + 1.0 / 61.0 + 1.0 / 62.0;
        assert!((fused[0].1 - b).abs() < 1e-12);
        assert_eq!(fused.last().unwrap().0, "d");
        assert!(rrf::<&str>(&[]).is_empty());
    }
}
