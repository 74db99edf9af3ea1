//! The rule a fixed failure teaches, written as the lesson and not as the command that happened
//! to pass: "Run `make kafka-up` before `go test -tags integration`: without it, it fails with
//! 'dial tcp ...: connection refused'." Only reusable fixes give one: a step run first, a flag,
//! a variable, a wrapper, or a change to a setup file. A change to the code or to a test (a real
//! bug, a new expected value) is the session's work, not a lesson; the diary keeps it.

use super::fixes::{Failure, Fix};
use super::gist;

/// Files whose change is a setup step rather than a code change.
fn setup_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path).to_lowercase();
    let test = path.to_lowercase().contains("test") || name.contains("spec");
    let setup = name.contains("config")
        || name.starts_with('.')
        || name == "makefile"
        || name == "dockerfile"
        || name == "package.json"
        || name == "cargo.toml"
        || name == "pyproject.toml"
        || name == "go.mod"
        || [".toml", ".yml", ".yaml", ".ini", ".cfg", ".env", ".conf"]
            .iter()
            .any(|e| name.ends_with(e));
    setup && (!test || name.contains("config"))
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match (c.next(), c.clone().next()) {
        (Some(first), Some(second)) if !second.is_uppercase() => {
            first.to_lowercase().chain(c).collect()
        }
        _ => s.to_string(),
    }
}

/// A flag that rewrites what the tests expect (`-update`, `--update-snapshots`, `-u`,
/// `--bless`): the new expected output is the session's work, not a lesson.
fn rewrites_expectations(added: &[String]) -> bool {
    added.iter().any(|w| {
        let flag = w.split('=').next().unwrap_or(w).to_lowercase();
        flag.starts_with('-')
            && (flag == "-u"
                || [
                    "update",
                    "snapshot",
                    "golden",
                    "bless",
                    "overwrite",
                    "accept",
                    "record",
                    "regen",
                ]
                .iter()
                .any(|m| flag.contains(m)))
    })
}

/// The step of the failed command line that failed, as a rule quotes it.
fn failed_step(command: &str) -> String {
    let key = gist::base(command);
    gist::doing(command)
        .iter()
        .find(|s| gist::base_of(s) == key)
        .map(|s| gist::show(s))
        .unwrap_or_else(|| gist::shown(command))
}

/// The rule `f` teaches, or `None` when its fix is no lesson. `reason`: the agent's account.
pub fn rule(f: &Failure, reason: Option<&str>, workspace: Option<&str>) -> Option<String> {
    rule_within(f, reason, workspace, super::rule_text::MAX)
}

/// [`rule`] in at most `max` characters (room left for the clause saying when it applies).
pub fn rule_within(
    f: &Failure,
    reason: Option<&str>,
    workspace: Option<&str>,
    max: usize,
) -> Option<String> {
    let fix = f.fix.as_ref()?;
    // A loop, a remote command or a long chain is a script, not a step a rule can name.
    // `ssh host 'cmd'`: a remote session's commands are a script, unless the fix only set a
    // variable or a flag on the same remote command (`GKSwstype=100 julia ...`).
    let only_set = matches!(fix, Fix::Command { added, .. }
        if added.iter().all(|w| w.starts_with('-') || w.contains('=')));
    let scripted = |c: &str| {
        let inner = gist::unwrapped(c).filter(|_| only_set);
        let w = gist::words(inner.as_deref().unwrap_or(c));
        w.first().is_some_and(|p| p == "ssh")
            || w.iter()
                .any(|x| ["for", "while", "do", "done", "if", "then", "fi"].contains(&x.as_str()))
            || gist::doing(c).len() > 3
    };
    let steps = match fix {
        Fix::Step { first } => first.clone(),
        _ => Vec::new(),
    };
    if scripted(&f.command) || steps.iter().any(|s| scripted(s) || s.trim().is_empty()) {
        return None;
    }
    let failed = failed_step(&f.command);
    let head = match fix {
        Fix::Step { first } => {
            let steps = first
                .iter()
                .map(|s| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(", then ");
            format!("Run {steps} before `{failed}`")
        }
        Fix::Command { added, .. } => {
            if rewrites_expectations(added) {
                return None;
            }
            let vars: Vec<&String> = added
                .iter()
                .filter(|w| w.contains('=') && !w.starts_with('-'))
                .collect();
            if vars.len() == added.len() {
                let vars = vars
                    .iter()
                    .map(|v| format!("`{v}`"))
                    .collect::<Vec<_>>()
                    .join(" and ");
                format!("Set {vars} when running `{}`", gist::base(&f.command))
            } else {
                format!(
                    "Run `{}` with `{}`",
                    gist::base(&f.command),
                    added.join(" ")
                )
            }
        }
        Fix::Edits(changes) => {
            if changes.is_empty() || !changes.iter().all(|(file, _)| setup_file(file)) {
                return None;
            }
            let local = |file: &str| -> String {
                workspace
                    .and_then(|w| std::path::Path::new(file).strip_prefix(w).ok())
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|| file.to_string())
            };
            let what = changes
                .iter()
                .map(|(file, added)| {
                    if added.is_empty() {
                        format!("change {}", local(file))
                    } else {
                        format!("in {}: `{}`", local(file), added.replace('`', "'"))
                    }
                })
                .collect::<Vec<_>>()
                .join("; ");
            format!("When `{failed}` fails, fix it {what}")
        }
    };
    // The agent's account, when it reads as one clause (not a fragment cut at a file's dot).
    let because = reason
        .filter(|r| r.len() <= 100 && !r.contains(['`', '"', '(']))
        .map(|r| format!(" ({})", lower_first(r)));
    let cause = f
        .cause
        .as_ref()
        .filter(|_| !matches!(fix, Fix::Edits(_)))
        .map(|c| format!(": without it, it fails with '{c}'"));
    // The longest that fits in a rule: the reason goes first, then the error.
    // The error cut at a word to what room is left: its first words still say what failed.
    let room = max.saturating_sub(head.chars().count() + 1);
    let cut = cause.as_deref().and_then(|c| {
        let body = c.strip_suffix('\'')?;
        let mut out = String::new();
        for w in body.split(' ') {
            if out.chars().count() + w.chars().count() + 3 > room {
                break;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(w);
        }
        (out.chars().count() >= 45 && out.len() < body.len()).then(|| format!("{out}…'"))
    });
    for (b, c) in [
        (because.as_deref(), cause.as_deref()),
        (None, cause.as_deref()),
        (None, cut.as_deref()),
        (None, None),
    ] {
        let rule = format!("{head}{}{}.", b.unwrap_or(""), c.unwrap_or(""));
        if rule.chars().count() <= max {
            return Some(rule);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(command: &str, output: &str, fix: Fix) -> Failure {
        Failure {
            line: 1,
            command: command.into(),
            error: super::super::fixes::error_line(output),
            cause: gist::error(output),
            fix: Some(fix),
            trivial: false,
            fixed_at: 2,
        }
    }

    #[test]
    fn a_step_first_is_the_lesson_not_the_line_that_ran() {
        let f = failure(
            "go test -tags integration ./internal/consumer/... -run Integration -v 2>&1 | tail -15",
            "Exit code 1\n    x_test.go:41: unable to dial: dial tcp 127.0.0.1:19092: connect: connection refused",
            Fix::Step {
                first: vec!["make kafka-up".into()],
            },
        );
        let r = rule(&f, None, None).unwrap();
        assert!(
            r.starts_with("Run `make kafka-up` before `go test -tags integration"),
            "{r}"
        );
        assert!(
            !r.contains("tail") && !r.contains("2>&1") && !r.contains("Exit code"),
            "{r}"
        );
    }

    #[test]
    fn a_flag_that_rewrites_the_expected_output_teaches_nothing() {
        for flag in ["-update", "--update-snapshots", "-u", "--bless"] {
            let f = failure(
                "go test ./cmd/...",
                "--- FAIL: TestLsGolden (0.00s)",
                Fix::Command {
                    passed: format!("go test {flag}"),
                    added: vec![flag.into()],
                },
            );
            assert_eq!(rule(&f, None, None), None, "{flag}");
        }
    }

    #[test]
    fn code_and_test_changes_teach_nothing() {
        let f = failure(
            "pnpm test",
            "Exit code 1\nexpected '¥1,200.000' to be '¥1,200'",
            Fix::Edits(vec![("apps/admin/lib/money.ts".into(), "x".into())]),
        );
        assert_eq!(rule(&f, None, None), None);
        let f = failure(
            "npm test",
            "Expected: 1",
            Fix::Edits(vec![(
                "/w/jest.config.js".into(),
                "process.env.TZ = 'UTC';".into(),
            )]),
        );
        assert_eq!(
            rule(&f, None, Some("/w")).as_deref(),
            Some("When `npm test` fails, fix it in jest.config.js: `process.env.TZ = 'UTC';`.")
        );
    }
}
