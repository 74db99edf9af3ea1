//! Keywords for user traumas: literal text that any match of a trauma's regex must contain.
//!
//! The user's patterns are arbitrary regexes, so they cannot be listed by hand like the packs'
//! keywords. The pattern is parsed (not compiled) and walked: a literal run in a concatenation
//! is required; an alternation requires one of its branches' literals; an optional part
//! requires nothing. Runs are cut at whitespace, quotes, backslashes, `$` and parentheses,
//! because normalisation may change those between the raw command and the segment text the
//! regex runs on. A pattern with no required literal (`.*`) yields `None`: it is checked on
//! every command.

use regex_syntax::hir::{Class, Hir, HirKind};

/// Lowercase strings, one of which appears in every text the pattern matches; `None` when
/// nothing is required (or the pattern does not parse).
pub fn required(pattern: &str) -> Option<Vec<String>> {
    required_in(&regex_syntax::parse(pattern).ok()?)
}

/// [`required`] of a pattern already parsed.
pub fn required_in(hir: &Hir) -> Option<Vec<String>> {
    match req(hir) {
        Req::Any(v) if v.iter().all(|s| !s.is_empty()) => Some(v),
        _ => None,
    }
}

#[derive(Debug)]
enum Req {
    Nothing,
    Any(Vec<String>),
}

impl Req {
    /// Shortest alternative: the weakest guarantee this requirement gives.
    fn strength(&self) -> usize {
        match self {
            Req::Nothing => 0,
            Req::Any(v) => v.iter().map(|s| s.len()).min().unwrap_or(0),
        }
    }
}

fn req(h: &Hir) -> Req {
    match h.kind() {
        HirKind::Empty | HirKind::Look(_) => Req::Nothing,
        HirKind::Literal(_) | HirKind::Class(_) => match exact(h) {
            Some(s) => best_piece(&s),
            None => Req::Nothing,
        },
        HirKind::Repetition(r) if r.min >= 1 => req(&r.sub),
        HirKind::Repetition(_) => Req::Nothing,
        HirKind::Capture(c) => req(&c.sub),
        HirKind::Concat(subs) => {
            let mut best = Req::Nothing;
            let mut run = String::new();
            let consider = |r: Req, best: &mut Req| {
                if r.strength() > best.strength() {
                    *best = r;
                }
            };
            for s in subs {
                match exact(s) {
                    Some(t) => run.push_str(&t),
                    None => {
                        consider(best_piece(&run), &mut best);
                        run.clear();
                        consider(req(s), &mut best);
                    }
                }
            }
            consider(best_piece(&run), &mut best);
            best
        }
        HirKind::Alternation(subs) => {
            let mut all = Vec::new();
            for s in subs {
                match req(s) {
                    Req::Any(v) => all.extend(v),
                    Req::Nothing => return Req::Nothing,
                }
            }
            Req::Any(all)
        }
    }
}

/// The one string `h` matches (lowercased), if it matches exactly one up to ASCII case.
fn exact(h: &Hir) -> Option<String> {
    match h.kind() {
        HirKind::Literal(l) => std::str::from_utf8(&l.0)
            .ok()
            .map(|s| s.to_ascii_lowercase()),
        HirKind::Class(c) => single_char(c).map(String::from),
        HirKind::Capture(c) => exact(&c.sub),
        HirKind::Concat(subs) => subs.iter().map(exact).collect(),
        HirKind::Look(_) => Some(String::new()),
        _ => None,
    }
}

/// A class that is one ASCII character, or one ASCII letter in both cases.
fn single_char(c: &Class) -> Option<char> {
    let chars: Vec<char> = match c {
        Class::Unicode(u) => {
            let mut v = Vec::new();
            for r in u.ranges() {
                if (r.end() as u32) - (r.start() as u32) > 2 {
                    return None;
                }
                v.extend(r.start()..=r.end());
            }
            v
        }
        Class::Bytes(b) => {
            let mut v = Vec::new();
            for r in b.ranges() {
                if r.end() - r.start() > 2 {
                    return None;
                }
                v.extend((r.start()..=r.end()).map(char::from));
            }
            v
        }
    };
    if chars.is_empty() || chars.iter().any(|c| !c.is_ascii()) {
        return None;
    }
    let first = chars[0].to_ascii_lowercase();
    chars
        .iter()
        .all(|c| c.to_ascii_lowercase() == first)
        .then_some(first)
}

/// The longest piece of a literal run once cut at characters normalisation may change.
fn best_piece(run: &str) -> Req {
    run.split(|c: char| c.is_whitespace() || matches!(c, '\'' | '"' | '\\' | '$' | '(' | ')' | '`'))
        .max_by_key(|p| p.len())
        .filter(|p| !p.is_empty())
        .map(|p| Req::Any(vec![p.to_string()]))
        .unwrap_or(Req::Nothing)
}

#[cfg(test)]
mod tests {
    use super::required;

    fn r(p: &str) -> Option<Vec<String>> {
        required(p)
    }

    #[test]
    fn literal_runs_and_alternations() {
        assert_eq!(r(r"rm -rf ~/work"), Some(vec!["~/work".into()]));
        assert_eq!(r(r"^kubectl\s+delete"), Some(vec!["kubectl".into()]));
        assert_eq!(r(r"(?i)DROP\s+TABLE"), Some(vec!["table".into()]));
        assert_eq!(r(r"deploy (prod|staging)"), Some(vec!["deploy".into()]));
        assert_eq!(
            r(r"(prod|staging)-db"),
            Some(vec!["prod".into(), "staging".into()])
        );
        assert_eq!(r(r".*"), None);
        assert_eq!(r(r"(a|.*)"), None);
        assert_eq!(r(r"[a-z]+"), None);
        assert_eq!(r(r"("), None);
    }
}
