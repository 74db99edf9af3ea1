//! The documentation and the binary cannot drift apart: every `cm ...` line in README.md and
//! docs/*.md names commands and flags the argument parser has, and every command and flag the
//! parser has is shown in some such line. The parser is the binary's own (`cm::cli::Cli`).

use crate::harness::repo_path;
use clap::CommandFactory;
use std::collections::BTreeSet;

/// The documents that show commands.
fn documents() -> Vec<(String, String)> {
    let root = repo_path("");
    let mut docs = vec![
        root.join("README.md"),
        root.join("templates/agents-blurb.md"),
        root.join("templates/agents-section.md"),
    ];
    let mut more: Vec<_> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    more.sort();
    docs.extend(more);
    docs.into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p.strip_prefix(&root).unwrap().display().to_string(), text)
        })
        .collect()
}

/// The text of every command shown: lines of fenced blocks, and inline code, that start with `cm `.
fn command_lines(text: &str) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut fenced = false;
    let mut continuing = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            let t = line.trim_start().trim_start_matches("$ ");
            // Each line's comment goes, so continuation lines can be joined after it.
            let t = t.split(" #").next().unwrap_or(t).trim_end();
            if t.starts_with("cm ") {
                out.push((n + 1, t.to_string()));
                continuing = true;
            } else if continuing
                && (t.starts_with('[') || t.starts_with("--"))
                && let Some((_, last)) = out.last_mut()
            {
                // A continuation line of the command above (`  [--no-history] [--days N]`).
                last.push(' ');
                last.push_str(t);
            } else {
                continuing = false;
            }
            continue;
        }
        for (i, span) in line.split('`').enumerate() {
            if i % 2 == 1 && span.starts_with("cm ") {
                out.push((n + 1, span.to_string()));
            }
        }
    }
    out
}

/// Quoted text replaced by a placeholder and a trailing comment dropped, then split in words.
fn words(line: &str) -> Vec<String> {
    let mut clean = String::new();
    let mut quote = None;
    for c in line.chars() {
        match (quote, c) {
            (None, '"' | '\'') => {
                quote = Some(c);
                clean.push('Q');
            }
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '#') if clean.ends_with(' ') => break,
            (None, c) => clean.push(c),
        }
    }
    clean.split_whitespace().map(str::to_string).collect()
}

fn find_sub<'a>(cmd: &'a clap::Command, word: &str) -> Option<&'a clap::Command> {
    cmd.get_subcommands()
        .find(|s| s.get_name() == word || s.get_all_aliases().any(|a| a == word))
}

fn long_flags(cmd: &clap::Command) -> BTreeSet<String> {
    cmd.get_arguments()
        .filter_map(|a| a.get_long().map(|l| (a, l)))
        .flat_map(|(a, l)| {
            let mut names = vec![l.to_string()];
            names.extend(
                a.get_all_aliases()
                    .unwrap_or_default()
                    .into_iter()
                    .map(str::to_string),
            );
            names
        })
        .collect()
}

const GLOBAL: &[&str] = &["json", "quiet", "help", "version"];

/// Check one shown command: its path names real subcommands and each `--flag` belongs to the
/// command it is given to. Records (path, flag) pairs seen.
fn check(line: &str, root: &clap::Command, seen: &mut BTreeSet<(String, String)>) -> Vec<String> {
    let w = words(line);
    let mut errors = Vec::new();
    let mut i = 1;
    let mut path: Vec<String> = Vec::new();
    let mut chain: Vec<&clap::Command> = vec![root];
    while let Some(sub) = w.get(i).and_then(|x| find_sub(chain.last().unwrap(), x)) {
        path.push(sub.get_name().to_string());
        chain.push(sub);
        i += 1;
    }
    if path.is_empty() && !w.get(1).is_some_and(|x| x.starts_with('-')) {
        errors.push(format!(
            "`{}` is not a cm command",
            w.get(1).cloned().unwrap_or_default()
        ));
    }
    seen.insert((path.join(" "), String::new()));
    while i < w.len() {
        let word = &w[i];
        i += 1;
        if word == "|" {
            // `cm trauma list | heal ID`: an alternative sibling subcommand; anything else is a
            // pipe into another program.
            let parent = chain.len().checked_sub(2).map(|p| chain[p]);
            match (parent, w.get(i)) {
                (Some(p), Some(next)) if find_sub(p, next).is_some() => {
                    let sub = find_sub(p, next).unwrap();
                    chain.pop();
                    path.pop();
                    path.push(sub.get_name().to_string());
                    chain.push(sub);
                    seen.insert((path.join(" "), String::new()));
                    i += 1;
                    continue;
                }
                _ => break,
            }
        }
        for flag in word.split(['[', ']', '|', '/', ',', '=', '(', ')']) {
            let Some(name) = flag.strip_prefix("--") else {
                continue;
            };
            let name: String = name
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
                .collect();
            if name.is_empty() {
                continue;
            }
            let cmd = chain.last().unwrap();
            if long_flags(cmd).contains(&name) || GLOBAL.contains(&name.as_str()) {
                seen.insert((path.join(" "), name));
            } else {
                errors.push(format!("`cm {}` has no --{name}", path.join(" ")));
            }
        }
    }
    errors
}

/// Commands that are other names of one command: documenting either documents both.
const SAME: &[(&str, &str)] = &[
    ("ls", "playbook list"),
    ("add", "playbook add"),
    ("rm", "playbook remove"),
    ("playbook stats", "stats"),
];

fn other_name(path: &str) -> Option<&'static str> {
    SAME.iter().find_map(|(a, b)| {
        if *a == path {
            Some(*b)
        } else if *b == path {
            Some(*a)
        } else {
            None
        }
    })
}

/// Every runnable command path with its own long flags (not the global ones). A command that
/// only groups subcommands (`cm history`) is not itself runnable.
fn every_command(cmd: &clap::Command, prefix: &str, out: &mut Vec<(String, BTreeSet<String>)>) {
    for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
        let path = if prefix.is_empty() {
            sub.get_name().to_string()
        } else {
            format!("{prefix} {}", sub.get_name())
        };
        if sub.is_subcommand_required_set() {
            every_command(sub, &path, out);
            continue;
        }
        let flags: BTreeSet<String> = sub
            .get_arguments()
            .filter(|a| !a.is_hide_set() && !a.is_global_set())
            .filter_map(|a| a.get_long().map(str::to_string))
            .filter(|l| !GLOBAL.contains(&l.as_str()))
            .collect();
        out.push((path.clone(), flags));
        every_command(sub, &path, out);
    }
}

#[test]
fn every_command_line_in_the_docs_is_real_and_every_flag_is_documented() {
    let root = cm::cli::Cli::command();
    let mut seen = BTreeSet::new();
    let mut errors = Vec::new();
    for (name, text) in documents() {
        for (n, line) in command_lines(&text) {
            for e in check(&line, &root, &mut seen) {
                errors.push(format!("{name}:{n}: {e}: {line}"));
            }
        }
    }
    let mut all = Vec::new();
    every_command(&root, "", &mut all);
    for (path, flags) in &all {
        // `cm hook NAME` is the hooks' entry point (docs/HOOKS), not a command people type.
        if path == "hook" {
            continue;
        }
        let shown = |flag: &str| {
            seen.contains(&(path.clone(), flag.to_string()))
                || other_name(path)
                    .is_some_and(|o| seen.contains(&(o.to_string(), flag.to_string())))
        };
        if !shown("") {
            errors.push(format!("`cm {path}` is in no command line of the docs"));
        }
        for f in flags {
            if !shown(f) {
                errors.push(format!(
                    "`cm {path} --{f}` is in no command line of the docs"
                ));
            }
        }
    }
    assert!(
        errors.is_empty(),
        "the docs and the binary disagree:\n{}",
        errors.join("\n")
    );
}

/// `cm X --help` explains every argument (a bare flag name says nothing a user can act on).
#[test]
fn every_argument_has_help() {
    fn walk(cmd: &clap::Command, prefix: &str, missing: &mut Vec<String>) {
        for a in cmd.get_arguments().filter(|a| !a.is_hide_set()) {
            if a.get_help().is_none() && !["help", "version"].contains(&a.get_id().as_str()) {
                missing.push(format!("cm {prefix} {}", a.get_id()));
            }
        }
        for sub in cmd.get_subcommands().filter(|s| s.get_name() != "help") {
            if sub.get_about().is_none() {
                missing.push(format!("cm {prefix} {} (no description)", sub.get_name()));
            }
            walk(sub, format!("{prefix} {}", sub.get_name()).trim(), missing);
        }
    }
    let mut missing = Vec::new();
    walk(&cm::cli::Cli::command(), "", &mut missing);
    assert!(
        missing.is_empty(),
        "arguments without help:\n{}",
        missing.join("\n")
    );
}

#[test]
fn the_line_checker_catches_what_it_must() {
    let root = cm::cli::Cli::command();
    let mut seen = BTreeSet::new();
    assert!(check("cm top --debug", &root, &mut seen).is_empty());
    assert_eq!(
        check("cm top --bogus", &root, &mut seen),
        ["`cm top` has no --bogus"]
    );
    assert!(
        check(
            "cm trauma list | heal ID [--for 2h] | unheal ID",
            &root,
            &mut seen
        )
        .is_empty()
    );
    assert!(seen.contains(&("trauma heal".into(), "for".into())));
    assert!(
        check("cm ls | head -3 --x", &root, &mut seen).is_empty(),
        "a pipe ends the command"
    );
    assert!(
        check(
            r#"cm add "a --fake flag in text" --force # --not-a-flag"#,
            &root,
            &mut seen
        )
        .is_empty()
    );
    assert_eq!(
        check("cm frobnicate", &root, &mut seen),
        ["`frobnicate` is not a cm command"]
    );
}
