//! Commands that failed and what made them pass. A failure followed by the same command
//! passing with a real change in between (an edit, or a different command line) is a lesson;
//! the same command simply run again (a flaky step), a mistyped command, or an edit of a
//! character or two (a typo) is not.

use super::transcript::{ToolRun, Transcript};

/// A failure, and (when the session found it) what fixed it.
#[derive(Debug, Clone, PartialEq)]
pub struct Failure {
    pub line: i64,
    pub command: String,
    /// The output line that says what went wrong.
    pub error: String,
    /// That line made general ([`super::gist::error`]); `None` for an assertion.
    pub cause: Option<String>,
    pub fix: Option<Fix>,
    /// Passed on a plain re-run, or failed for a typo: nothing to learn.
    pub trivial: bool,
    /// The line of the run that passed (0: none did).
    pub fixed_at: i64,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Fix {
    /// The command that passed differs from the one that failed.
    Command { passed: String, added: Vec<String> },
    /// Files changed between the failure and the pass: (file, the lines the change added).
    Edits(Vec<(String, String)>),
    /// Other commands run before the same command passed (a service started, say), as a rule
    /// quotes them.
    Step { first: Vec<String> },
}

/// The program and its subcommand ([`super::gist::base`]): `TZ=UTC npm test -x` and
/// `npm test` share `npm test`.
pub fn base(command: &str) -> String {
    super::gist::base(command)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len().abs_diff(b.len()) > 3 {
        return 4;
    }
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            cur.push(
                (prev[j] + usize::from(ca != cb))
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1),
            );
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Lines that say what went wrong, most telling first: an assertion's expected value or an
/// error message beats a bare "FAIL file".
const TELLING: &[&str] = &[
    "Expected",
    "expected",
    "Received",
    "assert",
    "error[",
    "Error:",
    "error:",
    "panicked at",
    "Exception",
    "ERR!",
    "SEVERE",
    "FATAL",
    "ERROR:",
    "[ERROR]",
    "not found",
    "No such file",
];

/// The line of `output` that names the failure, trimmed.
pub fn error_line(output: &str) -> String {
    // "Exit code 2" is the agent's wrapper, not the error.
    let lines: Vec<&str> = output
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !is_exit_code(l))
        .collect();
    let at = TELLING
        .iter()
        .find_map(|m| lines.iter().position(|l| l.contains(m) && l.len() > 8))
        .or_else(|| {
            lines
                .iter()
                .position(|l| super::transcript::looks_failed(l))
        })
        // R's "Error in `f()`:" heads the message on the next line.
        .or_else(|| lines.iter().position(|l| l.starts_with("Error in ")));
    let Some(at) = at else {
        return clip(lines.first().copied().unwrap_or(""), 140);
    };
    let line = lines[at];
    // "Error in `loadNamespace()`:" then "! there is no package called 'haven'": the line
    // ending in a colon only says where; the next one says what.
    match lines.get(at + 1) {
        Some(next) if line.ends_with(':') && line.split_whitespace().count() <= 5 => clip(
            &format!("{line} {}", next.trim_start_matches(['!', ' '])),
            140,
        ),
        _ => clip(line, 140),
    }
}

fn is_exit_code(line: &str) -> bool {
    line.strip_prefix("Exit code ")
        .is_some_and(|n| n.trim().chars().all(|c| c.is_ascii_digit() || c == '-'))
}

/// `text` quoted for a rule: in backticks, or in quotes when it holds a backtick itself.
pub fn quoted(text: &str) -> String {
    if text.contains('`') {
        format!("\"{text}\"")
    } else {
        format!("`{text}`")
    }
}

pub fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max - 1).collect();
    out.push('…');
    out
}

/// Lines that only restate a removed line with a character or two changed, and comments,
/// say nothing about the fix.
fn telling_line(line: &str, old: &[&str]) -> bool {
    let comment = ["//", "#", "/*", "*", "--"]
        .iter()
        .any(|c| line.starts_with(c));
    line.chars().filter(|c| c.is_alphanumeric()).count() >= 3
        && !comment
        && !old.iter().any(|o| edit_distance(o, line) <= 3)
}

/// The lines an edit added, as one short line of code.
fn added_lines(run: &ToolRun) -> String {
    let old: Vec<&str> = run.removed.lines().map(str::trim).collect();
    let new: Vec<&str> = run
        .added
        .lines()
        .map(str::trim)
        .filter(|l| telling_line(l, &old))
        .take(2)
        .collect();
    clip(&new.join(" "), 120)
}

fn only_looks(command: &str) -> bool {
    super::gist::doing(command).is_empty()
}

/// Whether `later` runs the same thing as `failed`: the same program and subcommand, or the
/// failed command line wrapped (`poetry run pytest -q` for `pytest -q`).
fn same_step(failed: &str, later: &str) -> bool {
    let key = base(failed);
    let other = base(later);
    other == key
        || super::gist::doing(later)
            .iter()
            .any(|s| super::gist::base_of(s) == key)
        || edit_distance(&other, &key) <= 2
        || (later.contains(failed.trim()) && later.trim() != failed.trim())
}

/// Every failed command of the session, in order, with what fixed it.
pub fn failures(t: &Transcript) -> Vec<Failure> {
    let runs: Vec<&ToolRun> = t.tool_runs().collect();
    let mut out: Vec<Failure> = Vec::new();
    for (i, run) in runs.iter().enumerate() {
        let Some(cmd) = run.command.as_deref().filter(|_| run.failed) else {
            continue;
        };
        let key = base(cmd);
        // Already covered: an earlier failure of the same command still open at this point.
        if out
            .iter()
            .any(|f| base(&f.command) == key && f.line < run.line && f.fix.is_none() && !f.trivial)
        {
            continue;
        }
        let error = error_line(&run.output);
        let later = &runs[i + 1..];
        let passes = |cmd: &str| {
            later
                .iter()
                .position(|r| r.command.as_deref().is_some_and(|c| same_step(cmd, c)) && !r.failed)
        };
        // `mix deps.get && mix test` failed and `mix test` passed later: the chain's later
        // step is the one that failed.
        let (cmd, passed) = match passes(cmd) {
            Some(p) => (cmd.to_string(), Some(p)),
            None => super::gist::doing(cmd)
                .iter()
                .skip(1)
                .map(|step| super::gist::show(step))
                .find_map(|step| passes(&step).map(|p| (step, Some(p))))
                .unwrap_or((cmd.to_string(), None)),
        };
        let cmd = cmd.as_str();
        let key = base(cmd);
        let Some(p) = passed else {
            let typo = run.output.contains("command not found") || run.output.contains("not found");
            out.push(Failure {
                line: run.line,
                command: cmd.to_string(),
                error,
                cause: super::gist::error(&run.output),
                fix: None,
                trivial: typo,
                fixed_at: 0,
            });
            continue;
        };
        // A second failure on the way to the same pass is the same episode.
        if out
            .iter()
            .any(|f| base(&f.command) == key && f.fixed_at == later[p].line)
        {
            continue;
        }
        let pass_cmd = later[p].command.clone().unwrap_or_default();
        let between = &later[..p];
        let (fix, trivial) = diagnose(cmd, &run.output, &pass_cmd, between, &runs[..i]);
        let fix = fix.map(|f| mentioned_steps(f, t, run.line));
        out.push(Failure {
            line: run.line,
            command: cmd.to_string(),
            error,
            cause: super::gist::error(&run.output),
            fix,
            trivial,
            fixed_at: later[p].line,
        });
    }
    out
}

/// What made `cmd` pass as `pass_cmd`, given the runs in between and those before the failure;
/// `(None, true)` when the session fixed nothing worth a rule.
fn diagnose(
    cmd: &str,
    output: &str,
    pass_cmd: &str,
    between: &[&ToolRun],
    before: &[&ToolRun],
) -> (Option<Fix>, bool) {
    let tiny = |r: &ToolRun| edit_distance(&r.removed, &r.added) <= 2;
    // The agent's own mistake: the edit undoes text this session's own edits wrote just before.
    let own = |r: &ToolRun| {
        !r.removed.trim().is_empty()
            && before
                .iter()
                .any(|b| b.is_edit() && b.added.contains(r.removed.trim()))
    };
    // The command line itself changed (an added variable, flag or step first): that is the
    // fix, unless it only ran a fixer of the same tool first (`cargo fmt && cargo fmt --check`)
    // or only the output shaping changed (`| tail`, `-v`).
    if output.contains("command not found") {
        return (None, true);
    }
    // The agent changed what the error names (the file it points at, a name it quotes): that
    // change is the fix, whatever else the passing command line ran first.
    // A slip of the agent's own (it undoes what it wrote) or a typo fixed that way teaches
    // nothing.
    if between.iter().any(|r| r.is_edit() && answers(r, output)) {
        let changes: Vec<(String, String)> = between
            .iter()
            .filter(|r| r.is_edit() && !tiny(r) && !own(r))
            .map(|r| (r.file.clone().unwrap_or_default(), added_lines(r)))
            .collect();
        return if changes.is_empty() {
            (None, true)
        } else {
            (Some(Fix::Edits(changes)), false)
        };
    }
    let failed = super::gist::doing(cmd);
    let passed = super::gist::doing(pass_cmd);
    let key = base(cmd);
    if let Some(at) = passed.iter().position(|s| super::gist::base_of(s) == key) {
        let firsts: Vec<String> = passed[..at]
            .iter()
            .filter(|s| !failed.contains(s) && !moves_work(s))
            .map(|s| super::gist::show(s))
            .collect();
        // A fixer of the same tool (`cargo fmt && cargo fmt --check`, `ruff check --fix`), not
        // another of its subcommands that sets something up (`go install x && go generate`).
        let fixer = passed[..at].iter().any(|s| {
            let b = super::gist::base_of(s);
            b == key
                || b.split_whitespace().next() == key.split_whitespace().next()
                    && s.iter().any(|w| {
                        [
                            "fmt",
                            "format",
                            "fix",
                            "--fix",
                            "--write",
                            "autofix",
                            "--fix-only",
                        ]
                        .contains(&w.as_str())
                    })
        });
        if !firsts.is_empty() {
            return if fixer {
                (None, true)
            } else {
                (Some(Fix::Step { first: firsts }), false)
            };
        }
        let old: Vec<String> = failed
            .iter()
            .find(|s| super::gist::base_of(s) == key)
            .cloned()
            .unwrap_or_default();
        let new = &passed[at];
        let mut added: Vec<String> = Vec::new();
        for (i, w) in new.iter().enumerate() {
            if old.contains(w) {
                continue;
            }
            // A flag's value comes with its flag (`-destination 'platform=...'`).
            if let Some(flag) = i.checked_sub(1).map(|j| &new[j])
                && flag.starts_with('-')
                && old.contains(flag)
                && !added.contains(flag)
            {
                added.push(flag.clone());
            }
            added.push(w.clone());
        }
        // Other file or test arguments are another run, not a fix; `--abort` undoes the step.
        added.retain(|w| w.starts_with('-') || w.contains('=') || !w.contains('/'));
        if added
            .iter()
            .any(|w| ["--abort", "--continue", "--skip", "--quit"].contains(&w.as_str()))
        {
            return (None, true);
        }
        if !added.is_empty() && edit_distance(&added.join(" "), "") > 2 {
            return (
                Some(Fix::Command {
                    passed: super::gist::show(new),
                    added,
                }),
                false,
            );
        }
    }
    let edits: Vec<&&ToolRun> = between.iter().filter(|r| r.is_edit()).collect();
    if !edits.is_empty() {
        if edits.iter().all(|r| tiny(r) || own(r)) {
            return (None, true);
        }
        let changes = edits
            .iter()
            .filter(|r| !tiny(r) && !own(r))
            .map(|r| (r.file.clone().unwrap_or_default(), added_lines(r)))
            .collect();
        return (Some(Fix::Edits(changes)), false);
    }
    // A step run in between (a service started, a dependency installed): the fix is to run it
    // first. Steps that only look around do not count, nor does a plain re-run.
    let mut steps: Vec<String> = Vec::new();
    for r in between.iter().filter(|r| !r.failed && !r.is_edit()) {
        let Some(c) = r.command.as_deref() else {
            continue;
        };
        if only_looks(c) || same_step(cmd, c) {
            continue;
        }
        for s in super::gist::doing(c) {
            let shown = super::gist::show(&s);
            if super::gist::base_of(&s) != key && !steps.contains(&shown) && !moves_work(&s) {
                steps.push(shown);
            }
        }
    }
    if steps.is_empty() {
        (None, true)
    } else {
        (Some(Fix::Step { first: steps }), false)
    }
}

/// Whether an edit changes what a failure's output names: the edited file (by its name and
/// extension), or a name the edit removed or added (`legacy_ami`, `regex_syntax`).
fn answers(edit: &ToolRun, output: &str) -> bool {
    let file = edit.file.as_deref().unwrap_or("");
    let name = file.rsplit('/').next().unwrap_or(file);
    if name.contains('.') && name.len() >= 4 && output.contains(name) {
        return true;
    }
    let named = |text: &str| {
        text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| {
                w.len() >= 5
                    && !w.ends_with("Error")
                    && !w.ends_with("Exception")
                    && (w.contains('_') || w.chars().skip(1).any(|c| c.is_uppercase()))
                    && w.chars().any(|c| c.is_alphabetic())
            })
            .any(|w| output.contains(w))
    };
    named(&edit.removed) || named(&edit.added)
}

/// Steps that move the work around (git, copies) rather than set something up.
fn moves_work(step: &[String]) -> bool {
    let base = super::gist::base_of(step);
    let program = base.split_whitespace().next().unwrap_or("");
    // Copying an example or config file into place (`cp .env.example .env.local`) sets up.
    let sets_up = program == "cp"
        && step.last().is_some_and(|dest| {
            let name = dest.rsplit('/').next().unwrap_or(dest).to_lowercase();
            name.starts_with('.') || name.contains("config") || name.contains("settings")
        });
    (program == "git" && !["git submodule", "git lfs"].contains(&base.as_str()))
        || (["cp", "mv", "kill", "pkill", "cd"].contains(&program) && !sets_up)
}

/// Of several steps run before a command passed, those the agent names afterwards (its account
/// of what fixed it), else the last two.
fn mentioned_steps(fix: Fix, t: &Transcript, after: i64) -> Fix {
    let Fix::Step { first } = fix else {
        return fix;
    };
    if first.len() == 1 {
        return Fix::Step { first };
    }
    let said: String = t
        .agent_texts()
        .filter(|(line, _)| *line > after)
        .map(|(_, text)| text.to_lowercase())
        .collect::<Vec<_>>()
        .join("\n");
    let named: Vec<String> = first
        .iter()
        .filter(|s| {
            let w = super::gist::words(s);
            let at = w.iter().position(|x| !x.contains('=')).unwrap_or(0);
            let key = w[at..]
                .iter()
                .take(3)
                .cloned()
                .collect::<Vec<_>>()
                .join(" ");
            !key.is_empty() && said.contains(&key.to_lowercase())
        })
        .cloned()
        .collect();
    let first = if named.is_empty() {
        first[first.len().saturating_sub(2)..].to_vec()
    } else {
        named
    };
    Fix::Step { first }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::transcript::Step;

    fn cmd(line: i64, c: &str, out: &str, failed: bool) -> Step {
        Step::Tool(ToolRun::shell(line, c, out, failed))
    }

    fn edit(line: i64, file: &str, old: &str, new: &str) -> Step {
        Step::Tool(ToolRun {
            line,
            tool: "Edit".into(),
            command: None,
            file: Some(file.into()),
            removed: old.into(),
            added: new.into(),
            output: "ok".into(),
            failed: false,
        })
    }

    #[test]
    fn a_changed_command_or_a_real_edit_is_a_fix() {
        let t = Transcript {
            steps: vec![
                cmd(
                    1,
                    "npm test",
                    "FAIL src/date.test.ts\n  Expected: \"2024-01-01\" Received: \"2023-12-31\"",
                    true,
                ),
                cmd(2, "TZ=UTC npm test", "Tests: 12 passed, 0 failed", false),
            ],
        };
        let f = failures(&t);
        assert_eq!(f.len(), 1);
        assert_eq!(
            f[0].fix,
            Some(Fix::Command {
                passed: "TZ=UTC npm test".into(),
                added: vec!["TZ=UTC".into()]
            })
        );
        let t = Transcript {
            steps: vec![
                cmd(
                    1,
                    "cargo test",
                    "error[E0425]: cannot find value `cfg` in this scope",
                    true,
                ),
                edit(
                    2,
                    "src/lib.rs",
                    "fn run() {}",
                    "fn run() {\n    let cfg = Config::load();\n}",
                ),
                cmd(
                    3,
                    "cargo test",
                    "test result: ok. 3 passed; 0 failed",
                    false,
                ),
            ],
        };
        let f = failures(&t);
        assert_eq!(
            f[0].fix,
            Some(Fix::Edits(vec![(
                "src/lib.rs".into(),
                "let cfg = Config::load();".into()
            )]))
        );
        assert!(f[0].error.contains("E0425"), "{}", f[0].error);
    }

    #[test]
    fn a_step_run_first_or_a_wrapper_is_a_fix() {
        let refused = "--- FAIL: TestX\n  dial tcp 127.0.0.1:5433: connect: connection refused";
        let t = Transcript {
            steps: vec![
                cmd(1, "go test ./internal/store/...", refused, true),
                cmd(2, "grep -rn 5433 .", "docker-compose.yml:24", false),
                cmd(3, "docker compose up -d postgres-test", "Started", false),
                cmd(4, "go test ./internal/store/...", "ok", false),
            ],
        };
        assert_eq!(
            failures(&t)[0].fix,
            Some(Fix::Step {
                first: vec!["docker compose up -d postgres-test".into()]
            })
        );
        let t = Transcript {
            steps: vec![
                cmd(
                    1,
                    "pytest tests/ingest -q",
                    "E   ModuleNotFoundError: No module named 'tidepool'",
                    true,
                ),
                cmd(2, "poetry run pytest tests/ingest -q", "12 passed", false),
            ],
        };
        assert_eq!(
            failures(&t)[0].fix,
            Some(Fix::Command {
                passed: "poetry run pytest tests/ingest".into(),
                added: vec!["poetry".into(), "run".into()]
            })
        );
    }

    #[test]
    fn the_agents_own_slip_and_running_the_fixer_teach_nothing() {
        let t = Transcript {
            steps: vec![
                edit(
                    1,
                    "src/show.rs",
                    "println!(title);",
                    "println!(title);\nlet words: u32 = body.count();",
                ),
                cmd(2, "cargo build", "error[E0308]: mismatched types", true),
                edit(
                    3,
                    "src/show.rs",
                    "let words: u32 = body.count();",
                    "let words = body.count();",
                ),
                cmd(4, "cargo build", "Finished", false),
            ],
        };
        assert!(
            failures(&t).iter().all(|f| f.trivial && f.fix.is_none()),
            "{:?}",
            failures(&t)
        );
        let t = Transcript {
            steps: vec![
                cmd(1, "cargo fmt --check", "Diff in src/main.rs", true),
                cmd(2, "cargo fmt && cargo fmt --check", "", false),
            ],
        };
        assert!(
            failures(&t).iter().all(|f| f.trivial && f.fix.is_none()),
            "{:?}",
            failures(&t)
        );
    }

    /// The error points at what the agent then changed: that change fixed it, not the steps
    /// the passing command line happened to run first.
    #[test]
    fn a_change_to_what_the_error_names_is_the_fix() {
        let t = Transcript {
            steps: vec![
                cmd(
                    1,
                    "cargo build --release 2>&1 | tail -5",
                    "error[E0433]: failed to resolve: use of undeclared crate `regex_syntax`\n  --> src/matcher.rs:13:35",
                    true,
                ),
                edit(
                    2,
                    "/w/src/matcher.rs",
                    "if p.iter().all(|p| regex_syntax::escape(p) == *p) {",
                    "if p.iter().all(|p| regex::escape(p) == *p) {",
                ),
                cmd(
                    3,
                    "/usr/bin/time -v ./target/release/x --pattern-file big.txt; cargo build -q --release",
                    "Elapsed 0:00.09",
                    false,
                ),
            ],
        };
        let f = failures(&t);
        assert!(matches!(f[0].fix, Some(Fix::Edits(_))), "{f:?}");
        // The same when the change undoes the agent's own slip: nothing to learn at all.
        let mut steps = t.steps.clone();
        steps.insert(
            0,
            edit(
                0,
                "/w/src/matcher.rs",
                "",
                "if p.iter().all(|p| regex_syntax::escape(p) == *p) {",
            ),
        );
        let f = failures(&Transcript { steps });
        assert!(f[0].trivial && f[0].fix.is_none(), "{f:?}");
        let t = Transcript {
            steps: vec![
                cmd(
                    1,
                    "tflint --recursive",
                    "Warning: variable \"legacy_ami\" is declared but not used",
                    true,
                ),
                edit(
                    2,
                    "/w/envs/dev/variables.tf",
                    "variable \"legacy_ami\" {\n  type = string\n}",
                    "",
                ),
                cmd(
                    3,
                    "terraform fmt -recursive && tflint --recursive",
                    "",
                    false,
                ),
            ],
        };
        assert!(matches!(failures(&t)[0].fix, Some(Fix::Edits(_))));
    }

    #[test]
    fn reruns_typos_and_tiny_edits_teach_nothing() {
        for steps in [
            vec![
                cmd(1, "npm install", "npm ERR! network timeout", true),
                cmd(2, "npm install", "added 3 packages", false),
            ],
            vec![
                cmd(1, "carg test", "bash: carg: command not found", true),
                cmd(2, "cargo test", "test result: ok. 0 failed", false),
            ],
            vec![
                cmd(1, "cargo build", "error: expected `;`", true),
                edit(2, "src/a.rs", "let x = 1", "let x = 1;"),
                cmd(3, "cargo build", "Finished", false),
            ],
        ] {
            let f = failures(&Transcript { steps });
            assert!(f.iter().all(|f| f.trivial && f.fix.is_none()), "{f:?}");
        }
    }
}
#[cfg(test)]
mod remote_and_argv_tests {
    use super::*;
    use crate::reflect::transcript::Step;

    fn fix_of(failed: &str, output: &str, passed: &str) -> Option<Fix> {
        let t = Transcript {
            steps: vec![
                Step::Tool(ToolRun::shell(1, failed, output, true)),
                Step::Tool(ToolRun::shell(2, passed, "all tests passed", false)),
            ],
        };
        failures(&t).into_iter().next().and_then(|f| f.fix)
    }

    /// A variable added inside a remote command (`ssh host '...'`), a variable whose name holds
    /// lower case letters, and a flag with a quoted value before the subcommand are fixes.
    #[test]
    fn fixes_inside_ssh_and_with_flag_values() {
        let fix = fix_of(
            r#"ssh lab 'cd sim && julia --project=. -e "using Pkg; Pkg.test()"'"#,
            "GKS: can't connect to GKS socket application",
            r#"ssh lab 'cd sim && GKSwstype=100 julia --project=. -e "using Pkg; Pkg.test()"'"#,
        );
        assert!(
            matches!(&fix, Some(Fix::Command { added, .. }) if added == &["GKSwstype=100"]),
            "{fix:?}"
        );
        let fix = fix_of(
            "nix build .#x",
            "error: experimental Nix feature 'nix-command' is disabled",
            "nix --extra-experimental-features 'nix-command flakes' build .#x",
        );
        assert!(
            matches!(&fix, Some(Fix::Command { added, .. }) if added.iter().any(|a| a == "--extra-experimental-features")),
            "{fix:?}"
        );
    }
}
