//! Working memory: one structured summary per session, written deterministically from the
//! transcript: how it went, what was done, decided and hit, what it taught, which files it
//! touched, the commands that failed and what fixed them.

use super::delta::Delta;
use super::fixes::{self, Failure, Fix};
use super::transcript::Transcript;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Success,
    Failure,
    Mixed,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Success => "success",
            Status::Failure => "failure",
            Status::Mixed => "mixed",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedCommand {
    pub command: String,
    pub error: String,
    /// What made it pass, when the session found it.
    pub fixed_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RelatedSession {
    pub agent: String,
    pub session_id: String,
    /// Why it is related (the shared error).
    pub why: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DiaryEntry {
    pub id: String,
    pub session_path: Option<String>,
    pub session_id: String,
    pub agent: String,
    pub timestamp: String,
    pub workspace: Option<String>,
    /// The repository the workspace belongs to (its directory name) and the branch.
    pub repository: Option<String>,
    pub git_branch: Option<String>,
    pub status: Status,
    pub accomplishments: Vec<String>,
    pub decisions: Vec<String>,
    pub challenges: Vec<String>,
    pub key_learnings: Vec<String>,
    pub preferences: Vec<String>,
    pub files_touched: Vec<String>,
    pub failed_commands: Vec<FailedCommand>,
    pub related_sessions: Vec<RelatedSession>,
    /// Rules the agent said it followed, or gave inline feedback on.
    pub rules_used: Vec<String>,
    pub tags: Vec<String>,
    /// Every time the user objected to what the agent did, with the line, whether or not a
    /// rule came of it (a later pass, the LLM or onboarding, can still use it).
    #[serde(default)]
    pub corrections: Vec<Correction>,
}

/// A message where the user corrected the agent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Correction {
    /// The line of the session file (its turn).
    pub line: i64,
    /// What the user said (at most 300 characters).
    pub text: String,
}

/// `entry` with a secret in any of its fields redacted. The entry is built from the transcript
/// as written: its workspace, branch, commands and files, not only what was said.
pub fn redacted(entry: DiaryEntry) -> DiaryEntry {
    let Ok(mut value) = serde_json::to_value(&entry) else {
        return entry;
    };
    if crate::redact::redact_json(&mut value) == 0 {
        return entry;
    }
    serde_json::from_value(value).unwrap_or(entry)
}

/// What the diary needs to know about the session besides its transcript.
pub struct About<'a> {
    pub agent: &'a str,
    pub session_id: &'a str,
    pub session_path: Option<&'a str>,
    pub workspace: Option<&'a str>,
    pub git_branch: Option<&'a str>,
    pub title: Option<&'a str>,
    pub now: &'a str,
}

/// Test, build and check runs: their last result says how the session ended.
fn is_check(command: &str) -> bool {
    let l = command.to_lowercase();
    [
        "test", "pytest", "build", "lint", "check", "vitest", "jest", "make", "tsc", "clippy",
    ]
    .iter()
    .any(|w| l.contains(w))
}

pub fn status_of(t: &Transcript, failures: &[Failure]) -> Status {
    use super::transcript::Step;
    use super::user_verdict::{rejects, still_broken};
    let last_users: Vec<&str> = t.user_texts().map(|(_, s)| s).collect();
    let last_two = &last_users[last_users.len().saturating_sub(2)..];
    // The user's last word stopped the agent (and no work followed), or says the work is
    // still not done.
    let last_user = t.steps.iter().rposition(|s| matches!(s, Step::User { .. }));
    let worked_after =
        last_user.is_some_and(|i| t.steps[i + 1..].iter().any(|s| matches!(s, Step::Tool(_))));
    let stopped = !worked_after && last_users.last().is_some_and(|u| rejects(u));
    if stopped || last_two.iter().any(|u| still_broken(u)) {
        return Status::Failure;
    }
    let last_check = t
        .tool_runs()
        .filter(|r| r.command.as_deref().is_some_and(is_check))
        .last();
    let open = failures.iter().any(|f| f.fix.is_none() && !f.trivial);
    match last_check {
        Some(r) if r.failed => Status::Failure,
        Some(_) if open => Status::Mixed,
        Some(_) => Status::Success,
        None if open => Status::Mixed,
        None => Status::Success,
    }
}

fn language_of(file: &str) -> Option<&'static str> {
    let ext = file.rsplit('.').next()?;
    Some(match ext {
        "rs" => "rust",
        "ts" | "tsx" => "typescript",
        "js" | "jsx" | "mjs" | "cjs" => "javascript",
        "py" => "python",
        "go" => "go",
        "rb" => "ruby",
        "java" => "java",
        "kt" => "kotlin",
        "swift" => "swift",
        "c" | "h" => "c",
        "cc" | "cpp" | "hpp" => "cpp",
        "cs" => "csharp",
        "php" => "php",
        "sql" => "sql",
        "sh" => "shell",
        _ => return None,
    })
}

/// Languages and frameworks the session's files and commands point to.
pub fn inferred_tags(t: &Transcript, files: &[String]) -> Vec<String> {
    let mut tags: Vec<String> = Vec::new();
    let mut add = |s: &str| {
        if !tags.iter().any(|x| x == s) {
            tags.push(s.to_string());
        }
    };
    for f in files {
        if let Some(l) = language_of(f) {
            add(l);
        }
    }
    for r in t.tool_runs() {
        let c = r.command.as_deref().unwrap_or("").to_lowercase();
        for (word, tag) in [
            ("cargo ", "rust"),
            ("npm ", "node"),
            ("pnpm ", "node"),
            ("yarn ", "node"),
            ("pytest", "python"),
            ("go test", "go"),
            ("django", "django"),
            ("rails ", "rails"),
            ("jest", "jest"),
            ("docker", "docker"),
            ("terraform", "terraform"),
        ] {
            if c.contains(word) {
                add(tag);
            }
        }
    }
    tags
}

fn fixed_by(f: &Failure) -> Option<String> {
    Some(match f.fix.as_ref()? {
        Fix::Command { passed, .. } => format!("`{passed}`"),
        Fix::Step { first } => format!("running `{}` first", first.join("` and `")),
        Fix::Edits(changes) => changes
            .iter()
            .map(|(file, added)| {
                if added.is_empty() {
                    file.clone()
                } else {
                    format!("{file}: {added}")
                }
            })
            .collect::<Vec<_>>()
            .join("; "),
    })
}

/// The agent's sentences that record a choice.
fn decisions(t: &Transcript) -> Vec<String> {
    const CHOICE: &[&str] = &[
        "i'll use",
        "i will use",
        "decided to",
        "going with",
        "i chose",
        "instead of",
        "we'll use",
        "switching to",
    ];
    let mut out = Vec::new();
    for (_, text) in t.agent_texts() {
        for s in text.split(['\n', '.']).map(str::trim) {
            let l = s.to_lowercase();
            if s.len() > 15 && CHOICE.iter().any(|c| l.contains(c)) && !out.contains(&s.to_string())
            {
                out.push(fixes::clip(s, 200));
            }
        }
    }
    out.truncate(6);
    out
}

/// The session's diary entry, with the deltas its reflection proposed (their rules are its
/// key learnings) and the sessions found to share its errors.
pub fn write(
    t: &Transcript,
    about: &About,
    deltas: &[Delta],
    related: Vec<RelatedSession>,
) -> DiaryEntry {
    let failures = fixes::failures(t);
    let status = status_of(t, &failures);
    let mut files: Vec<String> = Vec::new();
    for r in t.tool_runs().filter(|r| r.is_edit()) {
        if let Some(f) = &r.file
            && !files.contains(f)
        {
            files.push(f.clone());
        }
    }
    let mut accomplishments: Vec<String> = Vec::new();
    if let Some(title) = about.title.filter(|s| !s.trim().is_empty()) {
        // The diary is shown to agents (`cm diary show`, MCP `cm://diary/...`).
        accomplishments.push(fixes::clip(&crate::context::sanitize::clean(title), 200));
    }
    if !files.is_empty() {
        let shown: Vec<&str> = files.iter().take(5).map(String::as_str).collect();
        let more = files.len().saturating_sub(5);
        accomplishments.push(format!(
            "Changed {}{}",
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if let Some(r) = t
        .tool_runs()
        .filter(|r| r.command.as_deref().is_some_and(is_check))
        .last()
        && !r.failed
    {
        accomplishments.push(format!(
            "`{}` passes",
            r.command.as_deref().unwrap_or_default()
        ));
    }
    let challenges: Vec<String> = failures
        .iter()
        .filter(|f| !f.trivial)
        .map(|f| format!("`{}` failed: {}", f.command, f.error))
        .take(8)
        .collect();
    let mut key_learnings = Vec::new();
    let mut preferences = Vec::new();
    let mut rules_used = Vec::new();
    for d in deltas {
        match d {
            Delta::Add {
                content, lesson, ..
            } => {
                if matches!(
                    lesson,
                    super::delta::LessonKind::Convention | super::delta::LessonKind::Correction
                ) {
                    preferences.push(content.clone());
                }
                key_learnings.push(content.clone());
            }
            Delta::Helpful { rule, .. } | Delta::Harmful { rule, .. } => {
                if !rules_used.contains(rule) {
                    rules_used.push(rule.clone());
                }
            }
        }
    }
    let repository = about
        .workspace
        .and_then(|w| std::path::Path::new(w).file_name())
        .map(|n| n.to_string_lossy().into_owned());
    let id = format!(
        "d-{:012x}",
        crate::episodic::index::files::fnv1a(
            format!("{}\0{}", about.agent, about.session_id).as_bytes()
        ) & 0xffff_ffff_ffff
    );
    let mut entry = DiaryEntry {
        id,
        session_path: about.session_path.map(str::to_string),
        session_id: about.session_id.to_string(),
        agent: about.agent.to_string(),
        timestamp: about.now.to_string(),
        workspace: about.workspace.map(str::to_string),
        repository,
        git_branch: about.git_branch.map(str::to_string),
        status,
        accomplishments,
        decisions: decisions(t),
        challenges,
        key_learnings,
        preferences,
        failed_commands: failures
            .iter()
            .filter(|f| !f.trivial)
            .map(|f| FailedCommand {
                command: f.command.clone(),
                error: f.error.clone(),
                fixed_by: fixed_by(f),
            })
            .collect(),
        tags: inferred_tags(t, &files),
        files_touched: files,
        related_sessions: related,
        rules_used,
        corrections: super::said::read(t, about.workspace)
            .1
            .into_iter()
            .map(|o| Correction {
                line: o.line,
                text: o.text,
            })
            .collect(),
    };
    super::tidy::tidy(&mut entry, t);
    entry
}
