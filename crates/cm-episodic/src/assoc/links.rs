//! The arithmetic of associations, free of I/O: how strongly two terms go together, how a term's
//! bounded list of associates is updated, how it is stored, and the cosine of sparse vectors.
//!
//! **Strength** of `a -> b`, from `n` messages holding both, `df_a` and `df_b` messages holding
//! each, and `N` messages learned: normalised pointwise mutual information, discounted for
//! evidence seen only a few times,
//!
//! ```text
//! npmi(a, b) = ln(p_ab / (p_a * p_b)) / -ln(p_ab)     p_x = count / N
//! strength   = max(0, npmi) * n / (n + 1)
//! ```
//!
//! NPMI is 1 for terms that only ever occur together, 0 for independent ones, below 0 for terms
//! that avoid each other; the discount halves a pair seen once (noise, often) and leaves a pair
//! seen twenty times almost whole.
//!
//! **Bounded lists**: each term keeps at most [`MAX_LINKS`] associates. A learning run's new
//! co-occurrences are folded in strongest first: a listed associate adds them up; a new one
//! takes a free slot, or, for the [`NEWCOMERS`] strongest new ones of the run, replaces the
//! weakest-counted entry and inherits its count (the space-saving rule: an association that
//! keeps coming back always gets in, and a count over-estimates by at most what it inherited);
//! other new ones wait for a later run. Strengths are recomputed whenever a list is written.

/// Associates kept per term.
pub const MAX_LINKS: usize = 32;
/// New associates a full list takes per learning run, at most.
pub const NEWCOMERS: usize = 8;

/// One associate of a term.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Link {
    pub id: u32,
    /// Messages holding both (space-saving: may over-estimate).
    pub n: u32,
    pub strength: f32,
}

/// Normalised PMI, discounted for thin evidence; 0 when they do not go together.
pub fn strength(n: u64, df_a: u64, df_b: u64, total: u64) -> f64 {
    if n == 0 || df_a == 0 || df_b == 0 || total == 0 {
        return 0.0;
    }
    let total = total as f64;
    let n = (n as f64).min(df_a.min(df_b) as f64);
    let p_ab = n / total;
    if p_ab >= 1.0 {
        return 0.0;
    }
    let pmi = (p_ab / ((df_a as f64 / total) * (df_b as f64 / total))).ln();
    let npmi = pmi / -p_ab.ln();
    npmi.clamp(0.0, 1.0) * n / (n + 1.0)
}

/// Fold one run's `added` (associate id, new co-occurrences) into `links`, strongest first;
/// at most [`MAX_LINKS`] remain, highest count first. Strengths are left to the caller.
/// Linear in `added` (a common term may have thousands of new associates in a big run).
pub fn merge(links: &mut Vec<Link>, added: &[(u32, u32)]) {
    let listed: std::collections::HashMap<u32, usize> =
        links.iter().enumerate().map(|(i, l)| (l.id, i)).collect();
    let mut fresh: Vec<(u32, u32)> = Vec::new();
    for &(id, n) in added {
        match listed.get(&id) {
            Some(&i) => links[i].n = links[i].n.saturating_add(n),
            None => fresh.push((id, n)),
        }
    }
    let strongest = |a: &(u32, u32), b: &(u32, u32)| b.1.cmp(&a.1).then(a.0.cmp(&b.0));
    let keep = MAX_LINKS.saturating_sub(links.len()) + NEWCOMERS;
    if fresh.len() > keep {
        fresh.select_nth_unstable_by(keep, strongest);
        fresh.truncate(keep);
    }
    fresh.sort_by(strongest);
    let mut newcomers = 0;
    for (id, n) in fresh {
        if links.len() < MAX_LINKS {
            links.push(Link {
                id,
                n,
                strength: 0.0,
            });
        } else if newcomers < NEWCOMERS
            && let Some(min) = links
                .iter_mut()
                .min_by_key(|l| (l.n, std::cmp::Reverse(l.id)))
        {
            newcomers += 1;
            *min = Link {
                id,
                n: min.n.saturating_add(n),
                strength: 0.0,
            };
        }
    }
    links.sort_by(|a, b| b.n.cmp(&a.n).then(a.id.cmp(&b.id)));
}

/// 12 bytes per link: id, count, strength (little-endian).
pub fn encode(links: &[Link]) -> Vec<u8> {
    let mut out = Vec::with_capacity(links.len() * 12);
    for l in links {
        out.extend_from_slice(&l.id.to_le_bytes());
        out.extend_from_slice(&l.n.to_le_bytes());
        out.extend_from_slice(&l.strength.to_le_bytes());
    }
    out
}

/// The links of a blob; trailing bytes that do not make a whole link are ignored.
pub fn decode(blob: &[u8]) -> Vec<Link> {
    blob.chunks_exact(12)
        .map(|c| Link {
            id: u32::from_le_bytes([c[0], c[1], c[2], c[3]]),
            n: u32::from_le_bytes([c[4], c[5], c[6], c[7]]),
            strength: f32::from_le_bytes([c[8], c[9], c[10], c[11]]),
        })
        .collect()
}

/// A sparse vector over term ids: (id, weight), sorted by id, ids distinct.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Vector(pub Vec<(u32, f32)>);

impl Vector {
    /// From unsorted entries; weights of a repeated id add up.
    pub fn from_entries(mut entries: Vec<(u32, f32)>) -> Vector {
        entries.sort_by_key(|e| e.0);
        let mut out: Vec<(u32, f32)> = Vec::with_capacity(entries.len());
        for (id, w) in entries {
            match out.last_mut() {
                Some(last) if last.0 == id => last.1 += w,
                _ => out.push((id, w)),
            }
        }
        Vector(out)
    }

    fn norm(&self) -> f64 {
        self.0
            .iter()
            .map(|(_, w)| (*w as f64) * (*w as f64))
            .sum::<f64>()
            .sqrt()
    }
}

/// Cosine of two sparse vectors (0 when either is empty).
pub fn cosine(a: &Vector, b: &Vector) -> f64 {
    let (na, nb) = (a.norm(), b.norm());
    if na == 0.0 || nb == 0.0 {
        return 0.0;
    }
    let (mut i, mut j, mut dot) = (0, 0, 0.0f64);
    while i < a.0.len() && j < b.0.len() {
        match a.0[i].0.cmp(&b.0[j].0) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                dot += a.0[i].1 as f64 * b.0[j].1 as f64;
                i += 1;
                j += 1;
            }
        }
    }
    dot / (na * nb)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strength_is_npmi_discounted() {
        // Always together: NPMI 1, halved for a single sighting.
        assert!((strength(1, 1, 1, 1000) - 0.5).abs() < 1e-9);
        assert!((strength(9, 9, 9, 1000) - 0.9).abs() < 1e-9);
        // Independent: p_ab = p_a * p_b.
        assert!(strength(10, 100, 100, 1000).abs() < 1e-9);
        // Avoiding each other is no association.
        assert_eq!(strength(1, 500, 500, 1000), 0.0);
        // Worked value: n = 2, df 4 and 10, N = 1000.
        let pmi = (0.002f64 / (0.004 * 0.01)).ln();
        let want = pmi / -(0.002f64).ln() * 2.0 / 3.0;
        assert!((strength(2, 4, 10, 1000) - want).abs() < 1e-12);
        assert_eq!(strength(0, 4, 10, 1000), 0.0);
        assert_eq!(strength(5, 5, 5, 5), 0.0);
    }

    #[test]
    fn merge_keeps_the_heaviest_and_lets_persistent_newcomers_in() {
        let mut links = Vec::new();
        let first: Vec<(u32, u32)> = (0..MAX_LINKS as u32).map(|i| (i, 1 + i % 3)).collect();
        merge(&mut links, &first);
        assert_eq!(links.len(), MAX_LINKS);
        assert!(links.windows(2).all(|w| w[0].n >= w[1].n));
        // A newcomer replaces a weakest entry and inherits its count (1) plus its own.
        merge(&mut links, &[(1000, 1)]);
        assert_eq!(links.len(), MAX_LINKS);
        let newcomer = links.iter().find(|l| l.id == 1000).unwrap();
        assert_eq!(newcomer.n, 2);
        // Known associates add up.
        merge(&mut links, &[(1000, 5)]);
        assert_eq!(
            links[0],
            Link {
                id: 1000,
                n: 7,
                strength: 0.0
            }
        );
        // At most NEWCOMERS new ones per run once the list is full: the strongest of them.
        let flood: Vec<(u32, u32)> = (2000..2100).map(|i| (i, 1 + (i % 2))).collect();
        merge(&mut links, &flood);
        let new = links.iter().filter(|l| l.id >= 2000).count();
        assert_eq!(new, NEWCOMERS);
        assert!(links.iter().filter(|l| l.id >= 2000).all(|l| l.id % 2 == 1));
    }

    #[test]
    fn blobs_round_trip() {
        let links = vec![
            Link {
                id: 7,
                n: 3,
                strength: 0.25,
            },
            Link {
                id: u32::MAX,
                n: 1,
                strength: 1.0,
            },
        ];
        let mut blob = encode(&links);
        assert_eq!(blob.len(), 24);
        assert_eq!(decode(&blob), links);
        blob.push(9);
        assert_eq!(decode(&blob), links);
    }

    #[test]
    fn cosine_of_sparse_vectors() {
        let a = Vector::from_entries(vec![(3, 1.0), (1, 1.0), (3, 1.0)]);
        assert_eq!(a.0, vec![(1, 1.0), (3, 2.0)]);
        let b = Vector::from_entries(vec![(3, 1.0)]);
        assert!((cosine(&a, &b) - 2.0 / 5f64.sqrt()).abs() < 1e-6);
        assert!((cosine(&a, &a) - 1.0).abs() < 1e-6);
        assert_eq!(cosine(&a, &Vector::from_entries(vec![(2, 1.0)])), 0.0);
        assert_eq!(cosine(&a, &Vector::default()), 0.0);
    }
}
