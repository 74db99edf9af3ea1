//! A session as reflection reads it: the user's words, the agent's words, and each tool call
//! paired with its result. Built from the indexed messages, so every agent's format that the
//! index reads can be reflected on.

use crate::episodic::sessions::Message;

/// One tool call and what came back.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolRun {
    pub line: i64,
    pub tool: String,
    /// The shell command, for tools that run one.
    pub command: Option<String>,
    /// The file an edit or write changed.
    pub file: Option<String>,
    /// Text an edit removed and added (`old_string` / `new_string`, or a write's content).
    pub removed: String,
    pub added: String,
    /// The result's text (empty when no result was recorded).
    pub output: String,
    pub failed: bool,
}

impl ToolRun {
    /// A shell command and what it printed (tests build transcripts from these).
    #[cfg(test)]
    pub fn shell(line: i64, command: &str, output: &str, failed: bool) -> ToolRun {
        ToolRun {
            line,
            tool: "Bash".into(),
            command: Some(command.into()),
            file: None,
            removed: String::new(),
            added: String::new(),
            output: output.into(),
            failed,
        }
    }

    pub fn is_edit(&self) -> bool {
        self.file.is_some() && self.command.is_none()
    }
}

/// One step of the conversation, in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    User { line: i64, text: String },
    Agent { line: i64, text: String },
    Tool(ToolRun),
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Transcript {
    pub steps: Vec<Step>,
}

/// Words a failed run prints when its tool does not flag the failure itself.
const FAILURE_MARKERS: &[&str] = &[
    "FAILED",
    "FAIL ",
    "failed",
    "error:",
    "Error:",
    "error[",
    "ERROR",
    "Traceback (most recent call last)",
    "npm ERR!",
    "command not found",
    "No such file or directory",
    "panicked at",
    "exit code 1",
    "Exit code 1",
];

/// Output that reports success outright (a test summary with nothing failed).
fn reports_success(output: &str) -> bool {
    let lower = output.to_ascii_lowercase();
    (lower.contains(" 0 failed") || lower.contains("0 failures")) && !lower.contains("error[")
}

/// The number a test summary gives next to a word of failure: `failed 0`, `0 failed`,
/// `failed=0`, `FAIL 0`, `0 tests failed`, `failures: 0`. `None` when no number stands by it.
fn count_by(words: &[&str], at: usize) -> Option<u64> {
    let number = |w: &str| w.parse::<u64>().ok();
    if let Some(n) = words.get(at + 1).and_then(|w| number(w)) {
        return Some(n);
    }
    let before = at
        .checked_sub(1)
        .and_then(|i| words.get(i))
        .and_then(|w| number(w));
    // "0 tests failed": a count, then what it counts.
    before.or_else(|| {
        let counted = at.checked_sub(1).and_then(|i| words.get(i))?;
        ["tests", "test", "examples", "specs", "checks", "cases"]
            .contains(counted)
            .then(|| {
                at.checked_sub(2)
                    .and_then(|i| words.get(i))
                    .and_then(|w| number(w))
            })?
    })
}

/// A summary whose every word of failure counts zero ("Tests: succeeded 12, failed 0", "[ FAIL
/// 0 | WARN 0 | PASS 42 ]", "ok=13 failed=0", "100% tests passed, 0 tests failed out of 2"):
/// the words say nothing failed.
fn zero_failures(output: &str) -> bool {
    let lower = output.to_ascii_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    let mut seen = false;
    for (i, w) in words.iter().enumerate() {
        if w.starts_with("fail") {
            match count_by(&words, i) {
                Some(0) => seen = true,
                _ => return false,
            }
        }
    }
    seen
}

/// The client's answer when the user refused a call: the call never ran, so it did not fail;
/// what the user says next is a correction, not an error to fix.
pub fn refusal(output: &str) -> bool {
    let head = output.get(..200).unwrap_or(output);
    head.contains("doesn't want to proceed") || head.contains("rejected by user")
}

pub fn looks_failed(output: &str) -> bool {
    let marked = |out: &str| FAILURE_MARKERS.iter().any(|m| out.contains(m));
    if reports_success(output) || !marked(output) {
        return false;
    }
    // The only marks are failure words counting zero: nothing failed.
    if zero_failures(output) {
        let rest: String = output
            .split(|c: char| c.is_whitespace() || c == '=' || c == '|')
            .filter(|w| !w.to_ascii_lowercase().starts_with("fail"))
            .collect::<Vec<_>>()
            .join(" ");
        return marked(&rest);
    }
    true
}

impl Transcript {
    pub fn from_messages(messages: &[Message]) -> Transcript {
        let mut steps: Vec<Step> = Vec::new();
        // Calls waiting for their result, oldest first: results come back in call order.
        let mut waiting = std::collections::VecDeque::new();
        for m in messages {
            match (m.role.as_str(), m.kind.as_str()) {
                (_, "tool_call") => {
                    waiting.push_back(steps.len());
                    steps.push(Step::Tool(tool_run(m)));
                }
                (_, "tool_result") => {
                    if let Some(Step::Tool(run)) =
                        waiting.pop_front().and_then(|i| steps.get_mut(i))
                    {
                        run.output = m.text.clone();
                        run.failed = !refusal(&m.text) && (m.is_error || looks_failed(&m.text));
                    }
                }
                ("user", "text") => {
                    let text = m.text.trim();
                    if !text.is_empty() && !text.starts_with('<') {
                        steps.push(Step::User {
                            line: m.line_number,
                            text: text.to_string(),
                        });
                    }
                }
                ("assistant", "text") => steps.push(Step::Agent {
                    line: m.line_number,
                    text: m.text.clone(),
                }),
                _ => {}
            }
        }
        Transcript { steps }
    }

    pub fn tool_runs(&self) -> impl Iterator<Item = &ToolRun> {
        self.steps.iter().filter_map(|s| match s {
            Step::Tool(r) => Some(r),
            _ => None,
        })
    }

    pub fn user_texts(&self) -> impl Iterator<Item = (i64, &str)> {
        self.steps.iter().filter_map(|s| match s {
            Step::User { line, text } => Some((*line, text.as_str())),
            _ => None,
        })
    }

    pub fn agent_texts(&self) -> impl Iterator<Item = (i64, &str)> {
        self.steps.iter().filter_map(|s| match s {
            Step::Agent { line, text } => Some((*line, text.as_str())),
            _ => None,
        })
    }
}

fn tool_run(m: &Message) -> ToolRun {
    let args: serde_json::Value = m
        .tool_args
        .as_deref()
        .and_then(|a| serde_json::from_str(a).ok())
        .unwrap_or_default();
    let text = |k: &str| args.get(k).and_then(|v| v.as_str()).map(str::to_string);
    let command = text("command")
        .or_else(|| text("cmd"))
        .or_else(|| args.get("command").and_then(argv_command));
    let file = if command.is_some() {
        None
    } else {
        text("file_path")
            .or_else(|| text("path"))
            .or_else(|| text("notebook_path"))
    };
    let (removed, added) = match (text("old_string"), text("new_string"), text("content")) {
        (old, Some(new), _) => (old.unwrap_or_default(), new),
        (_, None, Some(content)) => (String::new(), content),
        _ => (String::new(), String::new()),
    };
    // A Codex `apply_patch`: its file and the lines it takes out and puts in.
    let patch = args
        .as_str()
        .or_else(|| args.get("input").and_then(|v| v.as_str()))
        .filter(|p| p.trim_start().starts_with("*** Begin Patch"));
    let (file, removed, added) = match patch {
        Some(p) if command.is_none() => {
            let (f, r, a) = patch_parts(p);
            (f.or(file), r, a)
        }
        _ => (file, removed, added),
    };
    ToolRun {
        line: m.line_number,
        tool: m.tool_name.clone().unwrap_or_default(),
        command,
        file: if removed.is_empty() && added.is_empty() {
            None
        } else {
            file
        },
        removed,
        added,
        output: String::new(),
        failed: false,
    }
}

/// A command given as its argument vector (Codex's `shell` tool: `["bash", "-lc", "nix build
/// ..."]`): the script a shell runs, or the words joined, quoted where they hold a space.
fn argv_command(v: &serde_json::Value) -> Option<String> {
    let words: Vec<&str> = v.as_array()?.iter().filter_map(|w| w.as_str()).collect();
    match words.as_slice() {
        [] => None,
        [shell, flag, script]
            if shell.ends_with("sh") && flag.starts_with('-') && flag.ends_with('c') =>
        {
            Some(script.to_string())
        }
        _ => Some(
            words
                .iter()
                .map(|w| {
                    if w.contains(char::is_whitespace) {
                        format!("'{w}'")
                    } else {
                        w.to_string()
                    }
                })
                .collect::<Vec<_>>()
                .join(" "),
        ),
    }
}

/// The first file a patch in the `*** Begin Patch` format changes, and the lines it removes
/// and adds (without their `-` / `+`).
fn patch_parts(patch: &str) -> (Option<String>, String, String) {
    let mut file = None;
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for line in patch.lines() {
        if let Some(f) = ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
            .iter()
            .find_map(|p| line.strip_prefix(p))
        {
            file.get_or_insert_with(|| f.trim().to_string());
        } else if line.starts_with("***") || line.starts_with("@@") {
            continue;
        } else if let Some(r) = line.strip_prefix('-') {
            removed.push(r);
        } else if let Some(a) = line.strip_prefix('+') {
            added.push(a);
        }
    }
    (file, removed.join("\n"), added.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::looks_failed;

    /// A summary that counts zero failures is a pass; a count above zero, or a failure word
    /// with no count, is a failure.
    #[test]
    fn zero_counts_of_failure_are_a_pass() {
        for ok in [
            "[info] Tests: succeeded 12, failed 0, canceled 0, ignored 0, pending 0",
            "[ FAIL 0 | WARN 0 | SKIP 1 | PASS 42 ]",
            "web-01 : ok=13 changed=1 unreachable=0 failed=0 skipped=0",
            "100% tests passed, 0 tests failed out of 2",
            "5 passing, 0 failing",
        ] {
            assert!(!looks_failed(ok), "{ok}");
        }
        for bad in [
            "[info] Tests: succeeded 11, failed 1, canceled 0",
            "[ FAIL 2 | WARN 0 | SKIP 1 | PASS 40 ]",
            "web-01 : ok=3 changed=0 unreachable=0 failed=1",
            "FAILED tests/test_x.py::test_y",
            "ok=13 failed=0\\nerror: could not connect",
            "build failed",
        ] {
            assert!(looks_failed(bad), "{bad}");
        }
    }
}
