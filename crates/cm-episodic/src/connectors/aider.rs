//! Aider chat histories: `~/.aider.chat.history.md` and the per-project `.aider.chat.history.md`
//! files aider writes at the root of each repository it runs in. Found by a shallow scan of the
//! home directory (three levels; hidden and build directories skipped; no descent below a
//! repository's root; `$CASS_AIDER_DATA_ROOT` adds another root), never the whole disk.
//!
//! The file is Markdown appended as the chat goes: `# aider chat started at <local time>` opens a
//! session; lines starting `#### ` are what the user typed (prompts and `/commands`); lines
//! starting `> ` are aider's own output (the start-up banner, applied edits, command output);
//! everything else is the model's reply. Consecutive lines of one kind form one message, numbered
//! by its first line. The banner is kept as scaffolding; its `Main model:` line names the model.
//! The workspace is the directory holding the file. Times are the session's start time (the
//! format records nothing finer).

use super::Places;
use super::common::{self, Context};
use super::lines::{Line, LineReader};
use super::{Connector, Discovery, ParseOutput, ResumePoint, SessionInfo, SourceFile, SourceKind};
use crate::model::{MessageKind, Role};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

pub const SLUG: &str = cm_base::agent::Agent::Aider.slug();
pub const FILE_NAME: &str = ".aider.chat.history.md";
const SESSION_START: &str = "# aider chat started at ";

/// Directories never worth descending into when looking for per-project histories.
const SKIP_DIRS: &[&str] = &[
    "node_modules",
    "target",
    "vendor",
    "Library",
    "go",
    "snap",
    "venv",
    "dist",
    "build",
];

pub struct Aider;

impl Connector for Aider {
    fn slug(&self) -> &'static str {
        SLUG
    }

    fn discover(&self, at: &Places) -> Discovery {
        let mut roots = vec![at.home.clone()];
        roots.extend(at.var("CASS_AIDER_DATA_ROOT"));
        discover_in(&roots)
    }

    fn parse_limited(
        &self,
        file: &SourceFile,
        from: &ResumePoint,
        max_bytes: u64,
    ) -> std::io::Result<ParseOutput> {
        parse_file(file, from, max_bytes)
    }
}

pub fn discover_in(roots: &[PathBuf]) -> Discovery {
    let mut d = Discovery::default();
    for root in roots {
        find_histories(root, 0, &mut d);
        d.looked_in.push(root.clone());
    }
    d
}

/// How many directory levels below a root are searched.
const MAX_DEPTH: usize = 3;

/// Histories in `dir` and below. Aider keeps a repository's history at its root, so the search
/// does not descend into a repository (a directory holding `.git`) below the starting root, nor
/// into hidden or build directories, nor through symlinks.
fn find_histories(dir: &Path, depth: usize, d: &mut Discovery) {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return,
        Err(e) => {
            d.errors.push((dir.to_path_buf(), e.to_string()));
            return;
        }
    };
    let mut subdirs = Vec::new();
    let mut is_repo = false;
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if name == FILE_NAME && kind.is_file() {
            let path = entry.path();
            if !d.files.iter().any(|f| f.path == path) {
                d.files.push(SourceFile {
                    agent: SLUG,
                    path,
                    kind: SourceKind::Lines,
                    parent_session_id: None,
                });
            }
        } else if name == ".git" {
            is_repo = true;
        } else if kind.is_dir()
            && depth < MAX_DEPTH
            && !name.starts_with('.')
            && !SKIP_DIRS.contains(&&*name)
        {
            subdirs.push(entry.path());
        }
    }
    if is_repo && depth > 0 {
        return;
    }
    subdirs.sort();
    for sub in subdirs {
        find_histories(&sub, depth + 1, d);
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Debug)]
enum Kind {
    User,
    Output,
    Reply,
}

#[derive(Default, Serialize, Deserialize)]
struct State {
    session_id: Option<String>,
    started_at: Option<String>,
    model: Option<String>,
    /// No user input yet in this session: aider output so far is its start-up banner.
    in_banner: bool,
}

struct Block {
    kind: Kind,
    line: u64,
    text: String,
}

fn parse_file(
    file: &SourceFile,
    from: &ResumePoint,
    max_bytes: u64,
) -> std::io::Result<ParseOutput> {
    let mut reader = LineReader::open(&file.path, from)?;
    let mut state: State = from
        .state
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let mut ctx = Context::for_file(file, state.session_id.clone().unwrap_or_default());
    ctx.workspace = file.path.parent().map(|p| p.to_string_lossy().into_owned());
    ctx.model = state.model.clone();
    let mut out = ParseOutput::default();
    let mut block: Option<Block> = None;

    while reader.consumed_since(from) < max_bytes
        && let Some(line) = reader.next_line()?
    {
        let (number, bytes) = match line {
            Line::Complete { number, bytes } => (number, bytes),
            Line::TooLong { number } => {
                out.skipped.push(super::lines::too_long(number));
                continue;
            }
        };
        if memchr::memchr(0, bytes).is_some() {
            out.skipped
                .push(common::skipped(number, "binary data in a Markdown history"));
            continue;
        }
        let text = String::from_utf8_lossy(bytes);
        if let Some(when) = text.strip_prefix(SESSION_START) {
            flush(&mut block, &ctx, &state, &mut out);
            start_session(&mut state, &mut ctx, &file.path, when.trim(), &mut out);
            continue;
        }
        let (kind, body) = if let Some(rest) = prefixed(&text, "####") {
            (Kind::User, rest)
        } else if let Some(rest) = prefixed(&text, ">") {
            (Kind::Output, rest)
        } else if text.trim().is_empty() {
            // Blank lines belong to whatever message they are in.
            if let Some(b) = block.as_mut() {
                b.text.push('\n');
            }
            continue;
        } else {
            (Kind::Reply, &*text)
        };
        if kind == Kind::Output
            && state.in_banner
            && let Some(model) = banner_model(body)
        {
            ctx.model = Some(model);
        }
        match block.as_mut() {
            Some(b) if b.kind == kind => {
                b.text.push('\n');
                b.text.push_str(body);
            }
            _ => {
                flush(&mut block, &ctx, &state, &mut out);
                block = Some(Block {
                    kind,
                    line: number,
                    text: body.to_owned(),
                });
            }
        }
        if kind == Kind::User {
            state.in_banner = false;
        }
    }
    flush(&mut block, &ctx, &state, &mut out);
    state.model = ctx.model.clone();
    state.session_id = Some(ctx.session_id.clone());
    out.next = reader.resume_point();
    out.next.state = serde_json::to_value(&state).ok();
    if !ctx.session_id.is_empty() {
        out.sessions.push(session_info(&ctx, &state));
    }
    Ok(out)
}

/// `#### text` -> `text`; a bare `####` -> an empty line of that kind.
fn prefixed<'t>(line: &'t str, marker: &str) -> Option<&'t str> {
    let rest = line.strip_prefix(marker)?;
    if rest.is_empty() {
        Some("")
    } else {
        rest.strip_prefix(' ')
    }
}

/// `Main model: gpt-4o with diff edit format` (older: `Model: gpt-4 with ...`) -> the model.
fn banner_model(line: &str) -> Option<String> {
    let rest = line
        .strip_prefix("Main model: ")
        .or_else(|| line.strip_prefix("Model: "))?;
    let model = rest.split(" with ").next()?.trim();
    (!model.is_empty()).then(|| model.to_owned())
}

fn start_session(
    state: &mut State,
    ctx: &mut Context,
    path: &Path,
    when: &str,
    out: &mut ParseOutput,
) {
    if !ctx.session_id.is_empty() {
        out.sessions.push(session_info(ctx, state));
    }
    // Local time without a zone: kept as written, read as UTC (the best the format allows).
    let started = chrono::NaiveDateTime::parse_from_str(when, "%Y-%m-%d %H:%M:%S")
        .ok()
        .map(|t| cm_base::clock::to_rfc3339(t.and_utc()));
    let hash = common::text_hash(&path.to_string_lossy());
    ctx.session_id = format!("{}-{}", when.replace([' ', ':'], ""), &hash[..8]);
    ctx.model = None;
    state.started_at = started;
    state.in_banner = true;
}

fn session_info(ctx: &Context, state: &State) -> SessionInfo {
    SessionInfo {
        agent: SLUG.into(),
        session_id: ctx.session_id.clone(),
        source_path: ctx.source_path.clone(),
        workspace: ctx.workspace.clone(),
        started_at: state.started_at.clone(),
        model: ctx.model.clone(),
        ..SessionInfo::default()
    }
}

fn flush(block: &mut Option<Block>, ctx: &Context, state: &State, out: &mut ParseOutput) {
    let Some(b) = block.take() else { return };
    let text = b.text.trim_end().to_owned();
    if text.trim().is_empty() {
        return;
    }
    let (role, kind) = match b.kind {
        Kind::User => (Role::User, MessageKind::Text),
        Kind::Reply => (Role::Assistant, MessageKind::Text),
        Kind::Output if state.in_banner => (Role::System, MessageKind::Scaffolding),
        Kind::Output => (Role::Tool, MessageKind::ToolResult),
    };
    let mut m = ctx.message(b.line, role, kind, state.started_at.clone(), text);
    if b.kind == Kind::User && m.text.starts_with('/') {
        m.tool_name = m.text.split_whitespace().next().map(str::to_owned);
    }
    out.messages.push(m);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn banner_names_the_model() {
        assert_eq!(
            banner_model(
                "Main model: anthropic/claude-sonnet-4 with diff edit format, infinite output"
            )
            .as_deref(),
            Some("anthropic/claude-sonnet-4")
        );
        assert_eq!(
            banner_model("Model: gpt-4 with whole edit format").as_deref(),
            Some("gpt-4")
        );
        assert_eq!(banner_model("Git repo: .git with 12 files"), None);
    }

    #[test]
    fn binary_lines_are_skipped_and_the_last_line_waits() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(FILE_NAME);
        std::fs::write(
            &path,
            b"# aider chat started at 2026-08-14 09:30:00\n\n#### hi\n\x00\x01\xff\nhello\n#### par",
        )
        .unwrap();
        let file = SourceFile {
            agent: SLUG,
            path,
            kind: SourceKind::Lines,
            parent_session_id: None,
        };
        let out = parse_file(&file, &ResumePoint::default(), u64::MAX).unwrap();
        let got: Vec<_> = out
            .messages
            .iter()
            .map(|m| (m.line_number, m.text.as_str()))
            .collect();
        assert_eq!(got, vec![(3, "hi"), (5, "hello")]);
        assert_eq!(out.skipped.len(), 1);
        assert_eq!(out.skipped[0].line, 4);
        assert_eq!(out.next.line, 6);
    }

    #[test]
    fn markers_need_a_space_or_nothing() {
        assert_eq!(prefixed("#### fix it", "####"), Some("fix it"));
        assert_eq!(prefixed("####", "####"), Some(""));
        assert_eq!(prefixed("#####x", "####"), None);
        assert_eq!(prefixed("> out", ">"), Some("out"));
    }
}
