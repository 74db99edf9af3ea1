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

pub fn looks_failed(output: &str) -> bool {
    !reports_success(output) && FAILURE_MARKERS.iter().any(|m| output.contains(m))
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
                        run.failed = m.is_error || looks_failed(&m.text);
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
    let command = text("command").or_else(|| text("cmd"));
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
