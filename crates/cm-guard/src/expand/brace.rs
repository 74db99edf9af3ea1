//! Brace expansion: `/{etc,usr}` is `/etc /usr`, `{rm,-rf,~}` is `rm -rf ~`, `x{1..3}` is `x1 x2
//! x3`. Only unquoted braces count (the caller says which atoms those are).

/// Words one brace expansion may produce, at most. Past it the expansion is cut, and the
/// caller is told so (the guard then refuses the command: a word it did not see may be `~`).
pub const MAX_WORDS: usize = 256;

/// Expand the braces of `atoms`; `is(atom, c)` says whether an atom is the unquoted character
/// `c`. Also says whether the expansion was cut at [`MAX_WORDS`].
pub fn expand<T: Copy>(atoms: &[T], is: impl Fn(T, char) -> bool + Copy) -> (Vec<Vec<T>>, bool) {
    let mut out = Vec::new();
    let mut cut = false;
    expand_into(atoms, is, &mut out, &mut cut);
    if out.is_empty() {
        out.push(atoms.to_vec());
    }
    (out, cut)
}

fn expand_into<T: Copy>(
    atoms: &[T],
    is: impl Fn(T, char) -> bool + Copy,
    out: &mut Vec<Vec<T>>,
    cut: &mut bool,
) {
    if out.len() >= MAX_WORDS {
        *cut = true;
        return;
    }
    let Some((open, close, commas)) = find(atoms, is) else {
        out.push(atoms.to_vec());
        return;
    };
    let (prefix, suffix) = (&atoms[..open], &atoms[close + 1..]);
    let mut start = open + 1;
    for &end in commas.iter().chain(std::iter::once(&close)) {
        let mut w = prefix.to_vec();
        w.extend_from_slice(&atoms[start..end]);
        w.extend_from_slice(suffix);
        expand_into(&w, is, out, cut);
        start = end + 1;
    }
}

/// The first brace pair with a comma at its top level: open, close, comma positions.
fn find<T: Copy>(atoms: &[T], is: impl Fn(T, char) -> bool) -> Option<(usize, usize, Vec<usize>)> {
    for open in 0..atoms.len() {
        if !is(atoms[open], '{') {
            continue;
        }
        let mut depth = 0usize;
        let mut commas = Vec::new();
        for (k, &a) in atoms.iter().enumerate().skip(open) {
            if is(a, '{') {
                depth += 1;
            } else if is(a, '}') {
                depth -= 1;
                if depth == 0 {
                    if !commas.is_empty() {
                        return Some((open, k, commas));
                    }
                    break;
                }
            } else if is(a, ',') && depth == 1 {
                commas.push(k);
            }
        }
    }
    None
}

/// `{a..e}` / `{1..10}` / `{1..10..2}` inside a word of plain text: the words it makes.
pub fn sequences(s: &str) -> Option<Vec<String>> {
    let open = s.find('{')?;
    let close = open + s[open..].find('}')?;
    let body = &s[open + 1..close];
    let parts: Vec<&str> = body.split("..").collect();
    if !(2..=3).contains(&parts.len()) {
        return None;
    }
    let step: i64 = parts
        .get(2)
        .map_or(Some(1i64), |p| p.parse::<i64>().ok())?
        .abs()
        .max(1);
    let (pre, post) = (&s[..open], &s[close + 1..]);
    let items: Vec<String> = match (parts[0].parse::<i64>(), parts[1].parse::<i64>()) {
        (Ok(a), Ok(b)) => {
            let width = if parts[0].starts_with('0') || parts[1].starts_with('0') {
                parts[0].len().max(parts[1].len())
            } else {
                0
            };
            let range: Vec<i64> = if a <= b {
                (a..=b).step_by(step as usize).take(MAX_WORDS).collect()
            } else {
                (b..=a)
                    .rev()
                    .step_by(step as usize)
                    .take(MAX_WORDS)
                    .collect()
            };
            range.iter().map(|n| format!("{n:0width$}")).collect()
        }
        _ => {
            let (a, b) = (single(parts[0])?, single(parts[1])?);
            let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
            (lo..=hi)
                .step_by(step as usize)
                .take(MAX_WORDS)
                .map(String::from)
                .collect()
        }
    };
    Some(
        items
            .into_iter()
            .map(|i| format!("{pre}{i}{post}"))
            .collect(),
    )
}

fn single(s: &str) -> Option<char> {
    let mut c = s.chars();
    let first = c.next().filter(|c| c.is_ascii_alphabetic())?;
    c.next().is_none().then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        let chars: Vec<char> = s.chars().collect();
        expand(&chars, |a, c| a == c)
            .0
            .into_iter()
            .map(|w| w.into_iter().collect())
            .collect()
    }

    #[test]
    fn lists_nest_and_multiply() {
        assert_eq!(words("/{etc,usr}"), vec!["/etc", "/usr"]);
        assert_eq!(words("{rm,-rf,~}"), vec!["rm", "-rf", "~"]);
        assert_eq!(words("~/{.,}*"), vec!["~/.*", "~/*"]);
        assert_eq!(words("a{b,c{d,e}}"), vec!["ab", "acd", "ace"]);
        assert_eq!(words("{x}"), vec!["{x}"]);
        assert_eq!(words("{a,b}{1,2}"), vec!["a1", "a2", "b1", "b2"]);
    }

    #[test]
    fn a_cut_expansion_says_so() {
        let items: Vec<String> = (0..300).map(|i| format!("a{i}")).collect();
        let chars: Vec<char> = format!("{{{},~}}", items.join(",")).chars().collect();
        let (words, cut) = expand(&chars, |a, c| a == c);
        assert!(cut);
        assert_eq!(words.len(), MAX_WORDS);
        let chars: Vec<char> = "{a,b}".chars().collect();
        assert!(!expand(&chars, |a, c| a == c).1);
    }

    #[test]
    fn sequences_count() {
        assert_eq!(sequences("x{1..3}").unwrap(), vec!["x1", "x2", "x3"]);
        assert_eq!(sequences("{01..03}").unwrap(), vec!["01", "02", "03"]);
        assert_eq!(
            sequences("/dev/sd{a..c}").unwrap(),
            vec!["/dev/sda", "/dev/sdb", "/dev/sdc"]
        );
        assert_eq!(sequences("{a,b}"), None);
    }
}
