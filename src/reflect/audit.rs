//! Which rules a session went against, read from what it ran. Only rules that name a command
//! can be checked this way: "Never `X`" / "Don't run `X`" is broken by a command holding `X`;
//! "Always run `X` before `Y`" (and "Run `X` before `Y`") by `Y` run with no `X` before it.
//! Rules with no code span name their command in plain words ([`super::audit_plain`]).

pub use super::audit_plain::Term;
use super::transcript::Transcript;

/// What a rule forbids or requires, when a command can show it.
#[derive(Debug, Clone, PartialEq)]
pub enum Check {
    Forbids(Term),
    Before { first: Term, then: Term },
}

/// The code spans of `text` (between backticks).
fn spans(text: &str) -> Vec<&str> {
    text.split('`')
        .enumerate()
        .filter(|(i, s)| i % 2 == 1 && !s.trim().is_empty())
        .map(|(_, s)| s.trim())
        .collect()
}

pub fn check_of(rule: &str) -> Option<Check> {
    let lower = rule.to_lowercase();
    let code = spans(rule);
    let negative = ["never ", "don't ", "do not ", "avoid "]
        .iter()
        .any(|w| lower.starts_with(w));
    if code.is_empty() {
        return super::audit_plain::plain_check(rule);
    }
    if negative {
        return code.first().map(|c| Check::Forbids(Term::code(c)));
    }
    let ordered = lower.starts_with("always run ") || lower.starts_with("run ");
    if ordered
        && code.len() >= 2
        && lower.contains(" before ")
        && rule.find(code[0]) < rule.find(" before ")
    {
        return Some(Check::Before {
            first: Term::code(code[0]),
            then: Term::code(code[1]),
        });
    }
    None
}

/// Where in `t` the rule was broken: (line, the command).
pub fn breaches(t: &Transcript, check: &Check) -> Vec<(i64, String)> {
    let mut out = Vec::new();
    let mut ran_first = false;
    for run in t.tool_runs() {
        let Some(cmd) = run.command.as_deref() else {
            continue;
        };
        match check {
            Check::Forbids(x) => {
                if x.found_in(cmd) {
                    out.push((run.line, cmd.to_string()));
                }
            }
            Check::Before { first, then } => {
                if first.found_in(cmd) {
                    ran_first = true;
                } else if then.found_in(cmd) && !ran_first {
                    out.push((run.line, cmd.to_string()));
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::transcript::{Step, ToolRun};

    fn run(line: i64, c: &str) -> Step {
        Step::Tool(ToolRun::shell(line, c, "", false))
    }

    #[test]
    fn rules_that_name_commands_are_checked_against_what_ran() {
        let t = Transcript {
            steps: vec![
                run(1, "git push origin main"),
                run(2, "make lint"),
                run(3, "git push"),
            ],
        };
        let lint = check_of("Always run `make lint` before `git push`.").unwrap();
        assert_eq!(
            breaches(&t, &lint),
            [(1, "git push origin main".to_string())]
        );
        let never = check_of("Never use `git push --force` on shared branches.").unwrap();
        assert!(breaches(&t, &never).is_empty());
        assert_eq!(check_of("Prefer small commits."), None);
    }
}
