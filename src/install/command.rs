//! The command lines cm writes into agents' settings, and how cm recognises its own handlers.
//!
//! A handler is cm's when its first word is one of cm's link names (`cm-pretool`,
//! `cm-postsession`) or a binary named `cm` followed by `hook NAME`. Identifying handlers by
//! command (not by a marker field the agent might reject) is what lets uninstall remove exactly
//! what install added, even after the binary moved.

use std::path::{Path, PathBuf};

/// The hook entry points an agent can be wired to.
pub use crate::hook_kind::HookKind;

/// Where the running binary lives (symlinks resolved), used to write absolute commands.
pub fn current_binary() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|p| p.canonicalize().ok().or(Some(p)))
        .unwrap_or_else(|| PathBuf::from("cm"))
}

/// The command to write for `kind`: the link beside the binary when it exists (no parser on the
/// hot path), else `<binary> hook NAME`.
pub fn command_for(kind: HookKind, binary: &Path) -> String {
    if let Some(link) = kind.link_name()
        && let Some(dir) = binary.parent()
        && dir.join(link).exists()
    {
        return shell_quote(&dir.join(link).to_string_lossy());
    }
    format!(
        "{} hook {}",
        shell_quote(&binary.to_string_lossy()),
        kind.name()
    )
}

/// The command for a settings file other people share (a project's `.claude/settings.json` is
/// committed): the bare name when PATH finds this very binary or link, so the line works on every
/// teammate's machine; otherwise the absolute command of [`command_for`].
pub fn portable_command_for(kind: HookKind, binary: &Path) -> String {
    let same = |name: &str, file: &Path| {
        on_path(name).is_some_and(|found| {
            found.canonicalize().ok().as_deref() == file.canonicalize().ok().as_deref()
        })
    };
    if let Some(link) = kind.link_name()
        && let Some(dir) = binary.parent()
        && dir.join(link).exists()
        && same(link, &dir.join(link))
    {
        return link.to_string();
    }
    let name = binary.file_name().and_then(|n| n.to_str()).unwrap_or("cm");
    if name == "cm" && same("cm", binary) {
        return format!("cm hook {}", kind.name());
    }
    command_for(kind, binary)
}

/// The first file called `name` in a PATH directory.
fn on_path(name: &str) -> Option<PathBuf> {
    let paths = std::env::var_os("PATH")?;
    std::env::split_paths(&paths)
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// The pre-commit program and its arguments: `cm-precommit` beside the binary, else
/// `<binary> hook precommit`.
pub fn precommit_program(binary: &Path) -> (PathBuf, &'static [&'static str]) {
    if let Some(dir) = binary.parent()
        && dir.join("cm-precommit").exists()
    {
        return (dir.join("cm-precommit"), &[]);
    }
    (binary.to_path_buf(), &["hook", "precommit"])
}

/// Which cm hook a handler command runs, if it is one of cm's: a link named `cm-pretool` or
/// `cm-postsession`, or `PROGRAM [--json|--quiet] hook NAME` where PROGRAM is named `cm` or is
/// this very binary under another name or path (a renamed copy, a link). An `env [VAR=value]`
/// prefix is looked through.
pub fn identify(command: &str) -> Option<HookKind> {
    let words = shell_words(command);
    let mut rest: &[String] = &words;
    if rest.first().is_some_and(|w| base_name(w) == "env") {
        rest = &rest[1..];
    }
    while rest
        .first()
        .is_some_and(|w| w.contains('=') && !w.starts_with('=') && !w.starts_with('-'))
    {
        rest = &rest[1..];
    }
    let (first, args) = rest.split_first()?;
    match base_name(first) {
        "cm-pretool" => return Some(HookKind::Pretool),
        "cm-postsession" => return Some(HookKind::Postsession),
        _ => {}
    }
    let at = args
        .iter()
        .take_while(|a| matches!(a.as_str(), "--json" | "--quiet" | "-q"))
        .count();
    if args.get(at).map(String::as_str) != Some("hook") {
        return None;
    }
    let kind = HookKind::from_name(args.get(at + 1)?)?;
    (base_name(first) == "cm" || is_this_binary(first)).then_some(kind)
}

/// A program's file name, without `.exe`.
fn base_name(word: &str) -> &str {
    let base = Path::new(word)
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or(word);
    base.strip_suffix(".exe").unwrap_or(base)
}

/// Whether `program` (a path, or a name PATH finds) is the running binary.
fn is_this_binary(program: &str) -> bool {
    let found = if program.contains('/') {
        Some(PathBuf::from(program))
    } else {
        on_path(program)
    };
    found
        .and_then(|p| p.canonicalize().ok())
        .is_some_and(|p| p == current_binary())
}

/// The program a command line runs (its first word, unquoted).
pub fn program(command: &str) -> Option<String> {
    shell_words(command).into_iter().next()
}

/// Quote `s` for a POSIX shell when it holds anything but plain path characters.
pub fn shell_quote(s: &str) -> String {
    let plain = !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@%,=".contains(c));
    if plain {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

/// Split a command line into words, honouring single quotes, double quotes and backslashes.
/// Enough to read back what [`shell_quote`] wrote and what people usually type.
fn shell_words(s: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in chars.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = chars.next() {
                    match q {
                        '"' => break,
                        '\\' => cur.extend(chars.next()),
                        _ => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                cur.extend(chars.next());
            }
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_cm_handlers_and_nothing_else() {
        let cases = [
            ("cm-pretool", Some(HookKind::Pretool)),
            ("/opt/bin/cm-pretool", Some(HookKind::Pretool)),
            ("'/my dir/cm-postsession'", Some(HookKind::Postsession)),
            ("cm hook session-start", Some(HookKind::SessionStart)),
            ("'/home/u/my bin/cm' hook prompt", Some(HookKind::Prompt)),
            ("/usr/bin/cm hook stop", Some(HookKind::Stop)),
            ("/usr/bin/cm hook postsession", Some(HookKind::Postsession)),
            ("cm-pretool --agent=gemini", Some(HookKind::Pretool)),
            ("cm --json hook pretool", Some(HookKind::Pretool)),
            ("env CM_X=1 /opt/cm-pretool", Some(HookKind::Pretool)),
            ("cm context foo", None),
            ("env FOO=1 my-guard hook pretool", None),
            ("my-guard --check", None),
            ("npx cm-pretool-like", None),
            ("", None),
        ];
        for (cmd, want) in cases {
            assert_eq!(identify(cmd), want, "{cmd}");
        }
    }

    #[test]
    fn this_binary_under_another_name_is_recognised() {
        let dir = tempfile::tempdir().unwrap();
        let alias = dir.path().join("memory-tool");
        std::os::unix::fs::symlink(current_binary(), &alias).unwrap();
        let cmd = format!("{} hook pretool", alias.display());
        assert_eq!(identify(&cmd), Some(HookKind::Pretool));
        let other = dir.path().join("other-tool");
        std::fs::write(&other, "").unwrap();
        assert_eq!(identify(&format!("{} hook pretool", other.display())), None);
    }

    #[test]
    fn quoting_round_trips() {
        for path in ["/usr/bin/cm", "/home/u/my bin/cm", "/x/it's/cm"] {
            let cmd = format!("{} hook pretool", shell_quote(path));
            assert_eq!(shell_words(&cmd)[0], path);
            assert_eq!(identify(&cmd), Some(HookKind::Pretool));
        }
    }

    #[test]
    fn portable_commands_only_when_path_finds_this_binary() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("cm");
        std::fs::write(&bin, "").unwrap();
        // Not on PATH (the test's PATH does not hold a fresh temp dir): absolute.
        assert!(portable_command_for(HookKind::Prompt, &bin).starts_with('/'));
    }

    #[test]
    fn falls_back_to_the_hook_subcommand_without_links() {
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join("cm");
        assert!(command_for(HookKind::Pretool, &bin).ends_with("/cm hook pretool"));
        std::fs::write(dir.path().join("cm-pretool"), "").unwrap();
        assert!(command_for(HookKind::Pretool, &bin).ends_with("/cm-pretool"));
        assert!(command_for(HookKind::Prompt, &bin).ends_with("/cm hook prompt"));
    }
}
