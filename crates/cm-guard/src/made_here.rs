//! Deleting what the same line just made: an agent's probe (`createdb t1 && ... && dropdb t1`,
//! `redis-cli SET k 1 && redis-cli DEL k`, `kubectl create secret generic s ... && kubectl
//! delete secret s`) removes only the thing an earlier command of the line created.
//!
//! A delete is excused when an earlier shell segment of the line creates (a create verb among
//! its first words, or a program named for creating: `createdb`, `lvcreate`) and every word of
//! the delete other than its program and delete verbs also appears in that segment: its
//! operands (`vg/lv` by each part) and its flags, so `--all` or another name the creation did
//! not mention keeps the rule. At least one shared operand must be a name rather than a common
//! word (it holds a digit, `-`, `_`, `:` or `.`), so `kubectl delete secret` alone is not
//! enough. Only the estate's packs use this: the filesystem, git, disk, system and opaque
//! packs guard places that exist before any line runs (`mkdir -p ~/x` does not make `~/x` new).

use super::normalize::{Lang, Segment};

/// Packs whose hits are never excused here.
const CORE: &[&str] = &["filesystem", "git", "disk", "system", "opaque"];

const CREATE_WORDS: &[&str] = &[
    "create", "add", "put", "set", "new", "deploy", "init", "insert", "upload", "register", "make",
    "mk", "touch", "apply",
];

/// Flags that only skip a confirmation or quieten output.
const HARMLESS_FLAGS: &[&str] = &["-f", "-y", "-q", "--force", "--yes", "--quiet", "--confirm"];

/// Is the hit of `pack` on `segments[at]` a delete of what an earlier segment made?
pub fn excused(segments: &[Segment], at: usize, pack: &str) -> bool {
    if CORE.contains(&pack) || segments[at].lang != Lang::Shell {
        return false;
    }
    let delete: Vec<&str> = segments[at].text.split_ascii_whitespace().collect();
    segments[..at]
        .iter()
        .filter(|s| s.lang == Lang::Shell && creates(s))
        .any(|made| covers(&made.text, &delete))
}

fn creates(seg: &Segment) -> bool {
    let p = seg.program.to_ascii_lowercase();
    p.starts_with("create")
        || p.ends_with("create")
        || seg
            .text
            .split_ascii_whitespace()
            .skip(1)
            .take(4)
            .any(|w| CREATE_WORDS.contains(&w.to_ascii_lowercase().as_str()))
}

fn is_delete_verb(word: &str) -> bool {
    let w = word.to_ascii_lowercase();
    [
        "delete",
        "del",
        "rm",
        "remove",
        "drop",
        "destroy",
        "purge",
        "unset",
        "uninstall",
    ]
    .iter()
    .any(|v| w == *v || w.starts_with(&format!("{v}-")) || w.starts_with(&format!("{v}_")))
}

fn is_name(word: &str) -> bool {
    word.len() >= 4
        && word
            .bytes()
            .any(|b| b.is_ascii_digit() || b"-_:.".contains(&b))
}

fn covers(made: &str, delete: &[&str]) -> bool {
    let made: Vec<&str> = made.split_ascii_whitespace().collect();
    let has = |w: &str| made.contains(&w);
    let mut named = false;
    for word in delete.iter().skip(1) {
        let flag_name = word.split('=').next().unwrap_or(word);
        if word.starts_with('-') {
            if !(has(word) || has(flag_name) || HARMLESS_FLAGS.contains(&flag_name)) {
                return false;
            }
            continue;
        }
        if is_delete_verb(word) {
            continue;
        }
        let parts: Vec<&str> = word.split('/').filter(|p| !p.is_empty()).collect();
        if has(word) || (!parts.is_empty() && parts.iter().all(|p| has(p))) {
            named |= is_name(word);
            continue;
        }
        return false;
    }
    named
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seg(text: &str) -> Segment {
        Segment {
            lang: Lang::Shell,
            program: text.split(' ').next().unwrap().to_string(),
            text: text.to_string(),
        }
    }

    #[test]
    fn a_delete_of_what_the_line_made_is_excused_and_nothing_more() {
        let line = |a: &str, b: &str| vec![seg(a), seg(b)];
        assert!(excused(
            &line(
                "tool bucket create pr-42-x --region eu",
                "tool bucket delete pr-42-x --region eu -y"
            ),
            1,
            "storage"
        ));
        assert!(!excused(
            &line(
                "tool bucket create pr-42-x",
                "tool bucket delete pr-42-x --all"
            ),
            1,
            "storage"
        ));
        assert!(!excused(
            &line(
                "tool bucket create pr-42-x -n prod",
                "tool bucket delete prod-data -n prod"
            ),
            1,
            "storage"
        ));
        assert!(!excused(
            &line("mkdir -p ~/work-1", "rm -rf ~/work-1"),
            1,
            "filesystem"
        ));
        assert!(!excused(
            &line("tool list pr-42-x", "tool delete pr-42-x"),
            1,
            "storage"
        ));
    }
}
