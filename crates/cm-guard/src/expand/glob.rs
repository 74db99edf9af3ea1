//! Globs, matched against the places the rules protect rather than the filesystem: `/h*` and
//! `/[h]ome` name `/home`, `/???` names `/bin`, `/etc`, `/usr`..., `.g?t` names `.git`. The hook
//! never lists directories (that would cost a syscall per candidate and depend on the machine);
//! a glob that can name a protected place is taken to name it. A glob that names none stays as
//! written (`*.o`, `~/.cache/*`), which the rules read as they always have.

use super::State;
use super::word::{A, EChar};

/// Top-level directories the rules protect (and their protected children).
const ROOT: &[(&str, &[&str])] = &[
    ("bin", &[]),
    ("boot", &[]),
    ("dev", &[]),
    (
        "etc",
        &[
            "passwd", "shadow", "group", "gshadow", "sudoers", "fstab", "hosts", "ssh",
        ],
    ),
    ("home", &[]),
    ("lib", &[]),
    ("lib32", &[]),
    ("lib64", &[]),
    ("libx32", &[]),
    ("media", &[]),
    ("mnt", &[]),
    ("opt", &[]),
    ("proc", &[]),
    ("root", &[]),
    ("run", &[]),
    ("sbin", &[]),
    ("snap", &[]),
    ("srv", &[]),
    ("sys", &[]),
    (
        "usr",
        &["bin", "lib", "lib64", "local", "sbin", "share", "include"],
    ),
    (
        "var",
        &["lib", "log", "www", "mail", "spool", "backups", "db"],
    ),
    ("Applications", &[]),
    ("Library", &[]),
    ("System", &[]),
    ("Users", &[]),
    ("Volumes", &[]),
    ("private", &[]),
];

/// Does `s` match the glob `p` (`*`, `?`, `[...]`, `\x`)? `*` matches `/` too (as in
/// parameter patterns); pathnames are matched a component at a time.
pub fn matches(p: &str, s: &str) -> bool {
    let p: Vec<char> = p.chars().collect();
    let s: Vec<char> = s.chars().collect();
    match_from(&p, &s)
}

fn match_from(p: &[char], s: &[char]) -> bool {
    let (mut pi, mut si) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while si < s.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi, si));
                pi += 1;
                continue;
            }
            Some('?') => Some(1),
            Some('[') => class(&p[pi..], s[si]),
            Some('\\') if pi + 1 < p.len() => (p[pi + 1] == s[si]).then_some(2),
            Some(&c) => (c == s[si]).then_some(1),
            None => None,
        };
        match step {
            Some(len) => {
                pi += len;
                si += 1;
            }
            None => match star {
                Some((sp, ss)) => {
                    pi = sp + 1;
                    si = ss + 1;
                    star = Some((sp, ss + 1));
                }
                None => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

/// `[...]` at the start of `p` against `c`: the pattern length consumed when it matches.
fn class(p: &[char], c: char) -> Option<usize> {
    let mut i = 1;
    let negate = matches!(p.get(1), Some('!' | '^'));
    if negate {
        i += 1;
    }
    let mut hit = false;
    let start = i;
    while i < p.len() && (p[i] != ']' || i == start) {
        if p.get(i + 1) == Some(&'-') && p.get(i + 2).is_some_and(|&e| e != ']') {
            hit |= p[i] <= c && c <= p[i + 2];
            i += 3;
        } else {
            hit |= p[i] == c;
            i += 1;
        }
    }
    if i >= p.len() {
        // No closing bracket: a literal `[`.
        return (c == '[').then_some(1);
    }
    (hit != negate).then_some(i + 1)
}

/// Is there an active glob character in the text?
pub fn has_glob(t: &[EChar]) -> bool {
    t.iter()
        .any(|e| e.f & A != 0 && matches!(e.c, '*' | '?' | '['))
}

/// The text as a glob pattern: inactive characters escaped.
fn pattern(t: &[EChar]) -> String {
    let mut p = String::new();
    for e in t {
        if e.f & A == 0 && matches!(e.c, '*' | '?' | '[' | '\\') {
            p.push('\\');
        }
        p.push(e.c);
    }
    p
}

/// The protected places a glob may name, when it may name any.
pub fn protected_matches(t: &[EChar], st: &State) -> Option<Vec<String>> {
    if !has_glob(t) {
        return None;
    }
    let p = pattern(t);
    let found: Vec<String> = if let Some(rest) = p.strip_prefix('/') {
        absolute(rest.trim_end_matches('/'), st)
    } else {
        let name = p.strip_prefix("./").unwrap_or(&p);
        // A leading dot is only matched by a pattern that starts with one.
        if name.starts_with('.') && matches(name, ".git") {
            vec![".git".to_string()]
        } else {
            Vec::new()
        }
    };
    (!found.is_empty()).then_some(found)
}

fn absolute(rest: &str, st: &State) -> Vec<String> {
    let comps: Vec<&str> = rest.split('/').filter(|c| !c.is_empty()).collect();
    let mut out = Vec::new();
    match comps.as_slice() {
        [top] => {
            for (name, _) in ROOT {
                if matches(top, name) {
                    out.push(format!("/{name}"));
                }
            }
        }
        [top, child] => {
            for (name, children) in ROOT {
                if !matches(top, name) {
                    continue;
                }
                for c in *children {
                    if matches(child, c) {
                        out.push(format!("/{name}/{c}"));
                    }
                }
            }
        }
        _ => {}
    }
    // The user's home directory, however deep it lies.
    if let Some(home) = &st.ctx.home {
        let hc: Vec<&str> = home.split('/').filter(|c| !c.is_empty()).collect();
        if hc.len() == comps.len() && hc.iter().zip(&comps).all(|(h, p)| matches(p, h)) {
            out.push(home.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn globs_match_like_the_shell() {
        assert!(matches("h*", "home"));
        assert!(matches("[h]ome", "home"));
        assert!(matches("???", "etc"));
        assert!(!matches("???", "home"));
        assert!(matches("[!a-c]*", "dev"));
        assert!(!matches("[!a-z]*", "dev"));
        assert!(matches("\\*", "*"));
        assert!(!matches("\\*", "x"));
        assert!(matches("*/", "a/b/"));
        assert!(matches(".g?t", ".git"));
        assert!(matches("*", ""));
    }
}
