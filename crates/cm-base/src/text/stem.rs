//! English stemming (the Porter algorithm, 1980), so "refreshing", "refreshed" and "refreshes"
//! all score as "refresh" when a task is matched against rules.
//!
//! Written here rather than taken from a crate: it is ~200 lines, has no state, and keeps the
//! hook binary free of another dependency. Input is one lower-case ASCII word; anything else
//! (digits, non-ASCII letters) is returned unchanged, which is the safe choice for code words.

/// The stem of `word` (lower-case ASCII expected).
pub fn stem(word: &str) -> String {
    if word.len() <= 2 || !word.bytes().all(|b| b.is_ascii_lowercase()) {
        return word.to_string();
    }
    let mut w: Vec<u8> = word.as_bytes().to_vec();
    step1a(&mut w);
    step1b(&mut w);
    step1c(&mut w);
    step2(&mut w);
    step3(&mut w);
    step4(&mut w);
    step5(&mut w);
    String::from_utf8(w).unwrap_or_else(|_| word.to_string())
}

fn is_consonant(w: &[u8], i: usize) -> bool {
    match w[i] {
        b'a' | b'e' | b'i' | b'o' | b'u' => false,
        b'y' => i == 0 || !is_consonant(w, i - 1),
        _ => true,
    }
}

/// m(): the number of vowel-consonant sequences in `w`.
fn measure(w: &[u8]) -> usize {
    let n = w.len();
    let mut i = 0;
    while i < n && is_consonant(w, i) {
        i += 1;
    }
    let mut m = 0;
    loop {
        while i < n && !is_consonant(w, i) {
            i += 1;
        }
        if i >= n {
            return m;
        }
        while i < n && is_consonant(w, i) {
            i += 1;
        }
        m += 1;
        if i >= n {
            return m;
        }
    }
}

fn has_vowel(w: &[u8]) -> bool {
    (0..w.len()).any(|i| !is_consonant(w, i))
}

fn ends_double_consonant(w: &[u8]) -> bool {
    let n = w.len();
    n >= 2 && w[n - 1] == w[n - 2] && is_consonant(w, n - 1)
}

/// consonant-vowel-consonant at the end, the last not w, x or y ("hop", not "snow").
fn ends_cvc(w: &[u8]) -> bool {
    let n = w.len();
    n >= 3
        && is_consonant(w, n - 3)
        && !is_consonant(w, n - 2)
        && is_consonant(w, n - 1)
        && !matches!(w[n - 1], b'w' | b'x' | b'y')
}

fn ends(w: &[u8], suffix: &str) -> bool {
    w.ends_with(suffix.as_bytes())
}

fn stem_of<'a>(w: &'a [u8], suffix: &str) -> &'a [u8] {
    &w[..w.len() - suffix.len()]
}

fn replace(w: &mut Vec<u8>, suffix: &str, with: &str) {
    let n = w.len() - suffix.len();
    w.truncate(n);
    w.extend_from_slice(with.as_bytes());
}

/// Replace the first matching suffix whose stem has measure > `min_m`.
fn rule_list(w: &mut Vec<u8>, rules: &[(&str, &str)], min_m: usize) {
    for (suffix, with) in rules {
        if ends(w, suffix) {
            if measure(stem_of(w, suffix)) > min_m {
                replace(w, suffix, with);
            }
            return;
        }
    }
}

fn step1a(w: &mut Vec<u8>) {
    if ends(w, "sses") {
        replace(w, "sses", "ss");
    } else if ends(w, "ies") {
        replace(w, "ies", "i");
    } else if ends(w, "ss") {
    } else if ends(w, "s") {
        w.pop();
    }
}

fn step1b(w: &mut Vec<u8>) {
    if ends(w, "eed") {
        if measure(stem_of(w, "eed")) > 0 {
            w.pop();
        }
        return;
    }
    let cut = if ends(w, "ed") && has_vowel(stem_of(w, "ed")) {
        2
    } else if ends(w, "ing") && has_vowel(stem_of(w, "ing")) {
        3
    } else {
        return;
    };
    w.truncate(w.len() - cut);
    if ends(w, "at") || ends(w, "bl") || ends(w, "iz") {
        w.push(b'e');
    } else if ends_double_consonant(w) && !matches!(w[w.len() - 1], b'l' | b's' | b'z') {
        w.pop();
    } else if measure(w) == 1 && ends_cvc(w) {
        w.push(b'e');
    }
}

fn step1c(w: &mut [u8]) {
    let n = w.len();
    if n > 1 && w[n - 1] == b'y' && has_vowel(&w[..n - 1]) {
        w[n - 1] = b'i';
    }
}

fn step2(w: &mut Vec<u8>) {
    const RULES: &[(&str, &str)] = &[
        ("ational", "ate"),
        ("tional", "tion"),
        ("enci", "ence"),
        ("anci", "ance"),
        ("izer", "ize"),
        ("abli", "able"),
        ("alli", "al"),
        ("entli", "ent"),
        ("eli", "e"),
        ("ousli", "ous"),
        ("ization", "ize"),
        ("ation", "ate"),
        ("ator", "ate"),
        ("alism", "al"),
        ("iveness", "ive"),
        ("fulness", "ful"),
        ("ousness", "ous"),
        ("aliti", "al"),
        ("iviti", "ive"),
        ("biliti", "ble"),
    ];
    rule_list(w, RULES, 0);
}

fn step3(w: &mut Vec<u8>) {
    const RULES: &[(&str, &str)] = &[
        ("icate", "ic"),
        ("ative", ""),
        ("alize", "al"),
        ("iciti", "ic"),
        ("ical", "ic"),
        ("ful", ""),
        ("ness", ""),
    ];
    rule_list(w, RULES, 0);
}

fn step4(w: &mut Vec<u8>) {
    const SUFFIXES: &[&str] = &[
        "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion",
        "ou", "ism", "ate", "iti", "ous", "ive", "ize",
    ];
    // Longest match first among suffixes sharing an ending ("ement" before "ment" before "ent").
    let mut best: Option<&str> = None;
    for s in SUFFIXES {
        if ends(w, s) && best.is_none_or(|b| s.len() > b.len()) {
            best = Some(s);
        }
    }
    let Some(s) = best else { return };
    let stem = stem_of(w, s);
    if measure(stem) <= 1 {
        return;
    }
    if s == "ion" && !matches!(stem.last(), Some(b's') | Some(b't')) {
        return;
    }
    let n = stem.len();
    w.truncate(n);
}

fn step5(w: &mut Vec<u8>) {
    if ends(w, "e") {
        let stem = stem_of(w, "e");
        let m = measure(stem);
        if m > 1 || (m == 1 && !ends_cvc(stem)) {
            w.pop();
        }
    }
    if measure(w) > 1 && ends_double_consonant(w) && w.last() == Some(&b'l') {
        w.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::stem;

    #[test]
    fn classic_examples() {
        let cases = [
            ("caresses", "caress"),
            ("ponies", "poni"),
            ("cats", "cat"),
            ("agreed", "agre"),
            ("plastered", "plaster"),
            ("motoring", "motor"),
            ("hopping", "hop"),
            ("filing", "file"),
            ("happy", "happi"),
            ("relational", "relat"),
            ("conditional", "condit"),
            ("generalization", "gener"),
            ("hopefulness", "hope"),
            ("electrical", "electr"),
            ("adjustment", "adjust"),
            ("adoption", "adopt"),
            ("controlling", "control"),
            ("rate", "rate"),
        ];
        for (word, want) in cases {
            assert_eq!(stem(word), want, "{word}");
        }
    }

    #[test]
    fn inflections_share_a_stem() {
        for group in [
            ["refresh", "refreshing", "refreshed"],
            ["token", "tokens", "tokens"],
            ["timeout", "timeouts", "timeouts"],
            ["test", "testing", "tests"],
            ["authenticate", "authentication", "authenticated"],
        ] {
            let s = stem(group[0]);
            for w in group {
                assert_eq!(stem(w), s, "{w}");
            }
        }
    }

    #[test]
    fn leaves_short_numeric_and_non_ascii_words_alone() {
        assert_eq!(stem("is"), "is");
        assert_eq!(stem("http2"), "http2");
        assert_eq!(stem("café"), "café");
    }
}
