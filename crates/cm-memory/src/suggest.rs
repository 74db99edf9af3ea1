//! "Did you mean ...?" for a rule id that matches nothing: the known ids within a small edit
//! distance of what was typed (a swapped, dropped or mistyped character or two).

/// The known ids closest to `typed` (at most three), when the closest is a likely typo: within
/// two edits, and fewer than half the characters compared.
pub fn nearest(typed: &str, known: &[String]) -> Vec<String> {
    let typed = typed.trim();
    if typed.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &String)> = known
        .iter()
        .map(|k| {
            // A typed prefix is compared with as much of the id.
            let cut: String = k.chars().take(typed.chars().count().max(1)).collect();
            (distance(typed, &cut).min(distance(typed, k)), k)
        })
        .filter(|(d, _)| *d <= 2 && *d * 2 < typed.chars().count())
        .collect();
    scored.sort();
    let Some(best) = scored.first().map(|s| s.0) else {
        return Vec::new();
    };
    scored
        .into_iter()
        .filter(|s| s.0 == best)
        .take(3)
        .map(|s| s.1.clone())
        .collect()
}

/// Edit distance (insert, delete, substitute, swap adjacent) between `a` and `b`.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_are_suggested_and_strangers_are_not() {
        let known: Vec<String> = ["b-8f3a2c1d", "b-1234abcd", "b-8f3a9999"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(nearest("b-8f3a2c1e", &known), vec!["b-8f3a2c1d"]);
        assert_eq!(nearest("b-f83a2c1d", &known), vec!["b-8f3a2c1d"], "a swap");
        assert_eq!(
            nearest("b-1243", &known),
            vec!["b-1234abcd"],
            "a prefix with a swap"
        );
        assert!(nearest("b-zzzzzzzz", &known).is_empty());
        assert!(nearest("x", &known).is_empty());
    }
}
