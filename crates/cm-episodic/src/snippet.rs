//! Short highlighted passages for search hits, computed from the stored text.
//!
//! FTS5's `snippet()` needs the full-text query re-run per hit, which in a large index means
//! seeking every query term's postings in every segment: several milliseconds for ten hits. The
//! hits are already known to match, so a passage is chosen here instead: the window of
//! [`WINDOW`] words holding the most distinct query terms (then the most matches), with each
//! matching word in `**`. A word matches a term when one is the other plus a short ending
//! (`tests`/`test`, `failing`/`fail`), which approximates the index's stemming.

/// Words a snippet shows.
pub const WINDOW: usize = 16;

/// The passage of `text` that best shows `terms` (lowercase words; phrases may hold spaces).
pub fn snippet(text: &str, terms: &[String]) -> String {
    let words: Vec<&str> = text.split_whitespace().collect();
    if words.is_empty() {
        return String::new();
    }
    let needles: Vec<&str> = terms.iter().flat_map(|t| t.split(' ')).collect();
    let hit: Vec<Option<usize>> = words.iter().map(|w| matching_term(w, &needles)).collect();
    let (mut best, mut best_key) = (0, (0usize, 0usize));
    for start in 0..words.len().saturating_sub(WINDOW - 1).max(1) {
        let end = (start + WINDOW).min(words.len());
        let mut seen = Vec::new();
        let mut count = 0;
        for t in hit[start..end].iter().flatten() {
            count += 1;
            if !seen.contains(t) {
                seen.push(*t);
            }
        }
        if (seen.len(), count) > best_key {
            best_key = (seen.len(), count);
            best = start;
        }
    }
    let end = (best + WINDOW).min(words.len());
    let mut out = String::new();
    if best > 0 {
        out.push('…');
    }
    for (i, w) in words[best..end].iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        if hit[best + i].is_some() {
            out.push_str("**");
            out.push_str(w);
            out.push_str("**");
        } else {
            out.push_str(w);
        }
    }
    if end < words.len() {
        out.push('…');
    }
    out
}

/// Which needle (if any) a word of the text matches.
fn matching_term(word: &str, needles: &[&str]) -> Option<usize> {
    let core: String = word
        .trim_matches(|c: char| !c.is_alphanumeric())
        .chars()
        .flat_map(char::to_lowercase)
        .collect();
    if core.is_empty() {
        return None;
    }
    // Possessives and the like: only the leading alphanumeric run counts.
    let run: &str = core
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or("");
    needles.iter().position(|n| {
        let n = *n;
        n == core || n == run || (run.len() >= 3 && related(run, n))
    })
}

/// One word is the other plus an ending of at most three characters (or both share all but
/// such endings): a cheap stand-in for stemming.
fn related(a: &str, b: &str) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if short.len() < 3 {
        return false;
    }
    if long.starts_with(short) {
        return long.len() - short.len() <= 3;
    }
    let common = short
        .chars()
        .zip(long.chars())
        .take_while(|(x, y)| x == y)
        .count();
    common >= 4 && short.chars().count() - common <= 1 && long.chars().count() - common <= 3
}

#[cfg(test)]
mod tests {
    use super::*;

    fn terms(t: &[&str]) -> Vec<String> {
        t.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn highlights_words_and_their_forms() {
        let s = snippet(
            "Fix the failing tests in src/lib.rs please",
            &terms(&["fail", "test"]),
        );
        assert_eq!(s, "Fix the **failing** **tests** in src/lib.rs please");
        let s = snippet("Caroline's mural, done.", &terms(&["caroline", "mural"]));
        assert_eq!(s, "**Caroline's** **mural,** done.");
        let s = snippet("studies: study studied", &terms(&["studi"]));
        assert!(
            s.contains("**studies:**") && s.contains("**studied**"),
            "{s}"
        );
        assert_eq!(
            snippet("cat category", &terms(&["cat"])),
            "**cat** category"
        );
    }

    #[test]
    fn picks_the_window_with_the_most_distinct_terms() {
        let text = format!(
            "{} alpha {} beta gamma {}",
            "x ".repeat(30),
            "y ".repeat(30),
            "z ".repeat(30)
        );
        let s = snippet(&text, &terms(&["alpha", "beta", "gamma"]));
        assert!(s.contains("**beta** **gamma**"), "{s}");
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert_eq!(s.split_whitespace().count(), WINDOW);
    }

    #[test]
    fn falls_back_to_the_start() {
        assert_eq!(
            snippet("no match here", &terms(&["zebra"])),
            "no match here"
        );
        assert_eq!(snippet("", &terms(&["zebra"])), "");
        let long = "w ".repeat(40);
        assert!(snippet(&long, &terms(&["zebra"])).ends_with('…'));
    }
}
