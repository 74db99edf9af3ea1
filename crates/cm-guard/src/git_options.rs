//! Git's option grammar, as data: a long option may be shortened to any unique prefix
//! (`git reset --ha` is `--hard`), short options bundle (`checkout -qf` is `-q -f`), and after
//! `--` nothing is an option (`git switch -- -f` switches to a branch named `-f`). The guard's
//! git rules are written against one spelling; [`canonical`] gives a git command line in it.

use super::shell::Word;

/// Long options of the subcommands the rules look at (all of them, so that a prefix is
/// unique here exactly when git takes it).
const LONG: &[(&str, &[&str])] = &[
    (
        "reset",
        &[
            "--hard",
            "--soft",
            "--mixed",
            "--merge",
            "--keep",
            "--quiet",
            "--patch",
            "--no-refresh",
            "--refresh",
            "--recurse-submodules",
            "--pathspec-from-file",
            "--pathspec-file-nul",
            "--intent-to-add",
            "--no-recurse-submodules",
        ],
    ),
    (
        "checkout",
        &[
            "--force",
            "--quiet",
            "--detach",
            "--track",
            "--no-track",
            "--orphan",
            "--ours",
            "--theirs",
            "--merge",
            "--conflict",
            "--patch",
            "--ignore-skip-worktree-bits",
            "--ignore-other-worktrees",
            "--overwrite-ignore",
            "--recurse-submodules",
            "--progress",
            "--guess",
            "--pathspec-from-file",
            "--overlay",
            "--no-overlay",
            "--no-guess",
            "--no-progress",
        ],
    ),
    (
        "switch",
        &[
            "--force",
            "--discard-changes",
            "--create",
            "--force-create",
            "--detach",
            "--guess",
            "--no-guess",
            "--track",
            "--no-track",
            "--orphan",
            "--merge",
            "--conflict",
            "--quiet",
            "--progress",
            "--ignore-other-worktrees",
            "--recurse-submodules",
        ],
    ),
    (
        "clean",
        &[
            "--force",
            "--dry-run",
            "--quiet",
            "--exclude",
            "--interactive",
        ],
    ),
    (
        "push",
        &[
            "--force",
            "--force-with-lease",
            "--force-if-includes",
            "--delete",
            "--mirror",
            "--prune",
            "--all",
            "--branches",
            "--tags",
            "--follow-tags",
            "--dry-run",
            "--verbose",
            "--quiet",
            "--set-upstream",
            "--no-verify",
            "--verify",
            "--atomic",
            "--porcelain",
            "--repo",
            "--receive-pack",
            "--signed",
            "--push-option",
            "--progress",
            "--recurse-submodules",
            "--thin",
            "--ipv4",
            "--ipv6",
            "--exec",
            "--no-force-with-lease",
        ],
    ),
    (
        "branch",
        &[
            "--delete",
            "--force",
            "--move",
            "--copy",
            "--list",
            "--all",
            "--remotes",
            "--verbose",
            "--quiet",
            "--track",
            "--no-track",
            "--set-upstream-to",
            "--unset-upstream",
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--sort",
            "--format",
            "--show-current",
            "--edit-description",
            "--create-reflog",
            "--color",
            "--no-color",
            "--column",
            "--no-column",
            "--points-at",
            "--ignore-case",
            "--abbrev",
            "--no-abbrev",
            "--recurse-submodules",
        ],
    ),
    (
        "restore",
        &[
            "--source",
            "--staged",
            "--worktree",
            "--patch",
            "--quiet",
            "--progress",
            "--ours",
            "--theirs",
            "--merge",
            "--conflict",
            "--ignore-unmerged",
            "--ignore-skip-worktree-bits",
            "--recurse-submodules",
            "--overlay",
            "--no-overlay",
            "--pathspec-from-file",
        ],
    ),
    (
        "worktree",
        &[
            "--force",
            "--detach",
            "--checkout",
            "--lock",
            "--reason",
            "--quiet",
            "--track",
            "--guess-remote",
            "--orphan",
            "--expire",
            "--verbose",
            "--dry-run",
            "--porcelain",
            "--null",
        ],
    ),
    (
        "checkout-index",
        &[
            "--all",
            "--force",
            "--index",
            "--quiet",
            "--prefix",
            "--stage",
            "--temp",
            "--stdin",
            "--no-create",
            "--ignore-skip-worktree-bits",
        ],
    ),
    (
        "read-tree",
        &[
            "--reset",
            "--prefix",
            "--index-output",
            "--trivial",
            "--aggressive",
            "--dry-run",
            "--no-sparse-checkout",
            "--empty",
            "--quiet",
            "--exclude-per-directory",
            "--recurse-submodules",
        ],
    ),
    (
        "stash",
        &[
            "--all",
            "--include-untracked",
            "--keep-index",
            "--quiet",
            "--patch",
            "--staged",
            "--message",
            "--index",
        ],
    ),
];

/// Short options that take a value (the rest of a bundle, or the next word).
const SHORT_VALUES: &[(&str, &str)] = &[
    ("checkout", "bB"),
    ("switch", "cC"),
    ("clean", "e"),
    ("branch", "tu"),
    ("restore", "s"),
    ("push", "o"),
    ("stash", "m"),
];

/// `git GLOBAL... SUB ARGS...` in the rules' spelling.
pub fn canonical(words: &[Word]) -> String {
    let mut out: Vec<String> = Vec::with_capacity(words.len() + 2);
    let mut sub: Option<&str> = None;
    let mut after_dd = false;
    let mut k = 0;
    while k < words.len() {
        let w = &words[k];
        let t = w.text.as_str();
        k += 1;
        if w.op {
            out.push(t.to_string());
            if let Some(next) = words.get(k) {
                out.push(quote(&next.text));
                k += 1;
            }
            continue;
        }
        let Some(s) = sub else {
            if k > 1 && !t.starts_with('-') {
                sub = Some(t);
            }
            out.push(quote(if k == 1 {
                super::normalize::base_name(t)
            } else {
                t
            }));
            if matches!(t, "-c" | "-C" | "--git-dir" | "--work-tree" | "--namespace")
                && let Some(v) = words.get(k)
            {
                out.push(quote(&v.text));
                k += 1;
            }
            continue;
        };
        if after_dd {
            // An operand, even when it looks like an option.
            out.push(if t.starts_with('-') {
                format!("'{t}'")
            } else {
                quote(t)
            });
            continue;
        }
        if t == "--" {
            after_dd = true;
            out.push(t.to_string());
            continue;
        }
        if let Some(long) = t.strip_prefix("--").filter(|l| !l.is_empty()) {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let full = expand_prefix(s, name).unwrap_or_else(|| format!("--{name}"));
            out.push(quote(&match value {
                Some(v) => format!("{full}={v}"),
                None => full,
            }));
            continue;
        }
        let known = LONG.iter().any(|(n, _)| *n == s);
        if known && t.len() > 2 && t.starts_with('-') && !t.starts_with("--") {
            let takes = SHORT_VALUES
                .iter()
                .find(|(n, _)| *n == s)
                .map_or("", |(_, v)| v);
            let body = &t[1..];
            for (pos, c) in body.char_indices() {
                if takes.contains(c) {
                    out.push(format!("-{c}"));
                    let rest = &body[pos + c.len_utf8()..];
                    if !rest.is_empty() {
                        out.push(quote(rest));
                    }
                    break;
                }
                if !c.is_ascii_alphabetic() {
                    // `-1`, `-U3`: not a plain bundle; the rest kept as written.
                    out.push(quote(&format!("-{}", &body[pos..])));
                    break;
                }
                out.push(format!("-{c}"));
            }
            continue;
        }
        out.push(quote(t));
    }
    out.join(" ")
}

/// The long option of `sub` that `--name` is a unique prefix of.
fn expand_prefix(sub: &str, name: &str) -> Option<String> {
    let (_, longs) = LONG.iter().find(|(n, _)| *n == sub)?;
    let want = format!("--{name}");
    if longs.contains(&want.as_str()) {
        return Some(want);
    }
    let mut found = longs.iter().filter(|l| l.starts_with(&want));
    let first = found.next()?;
    found.next().is_none().then(|| first.to_string())
}

fn quote(t: &str) -> String {
    let mut s = String::new();
    super::normalize::push_word(&mut s, t, false);
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str) -> String {
        let words: Vec<Word> = s.split(' ').map(|w| Word::plain(w, false)).collect();
        canonical(&words)
    }

    #[test]
    fn prefixes_bundles_and_operands() {
        assert_eq!(canon("git reset --ha"), "git reset --hard");
        assert_eq!(canon("git reset --har HEAD~1"), "git reset --hard HEAD~1");
        assert_eq!(canon("git checkout -qf main"), "git checkout -q -f main");
        assert_eq!(canon("git switch -- -f"), "git switch -- '-f'");
        assert_eq!(
            canon("git push --force --force-with-lease"),
            "git push --force --force-with-lease"
        );
        assert_eq!(canon("git push --mir origin"), "git push --mirror origin");
        assert_eq!(canon("git push --f origin"), "git push --f origin");
        assert_eq!(canon("git -C /x clean -fdx"), "git -C /x clean -f -d -x");
        assert_eq!(canon("git checkout -b new"), "git checkout -b new");
        assert_eq!(canon("git log -n5"), "git log -n5");
    }
}
