//! Connectors through the library API: discover() and parse() against fixture homes laid out like
//! each agent's real directories, copied into a temp HOME. Resume tests cut files mid-line,
//! append the rest and check that nothing is lost, duplicated or renumbered.

use crate::harness::{Env, copy_tree, fixture_path};
use cm::episodic::connectors::{
    self, Connector, ParseOutput, Places, ResumePoint, SourceFile, SourceKind,
};
use cm::episodic::model::{Message, MessageKind, Role};
use std::path::Path;

/// A harness world whose HOME holds every agent's fixture tree. The connectors are called
/// in-process with [`Home::places`] (that HOME and no override), never through the process
/// environment, which the tests of this binary share.
struct Home {
    env: Env,
}

impl Home {
    fn path(&self) -> &Path {
        &self.env.home
    }
    fn places(&self) -> Places {
        Places::at(self.path())
    }
}

fn home() -> Home {
    let env = Env::new();
    for agent in std::fs::read_dir(fixture_path("episodic")).unwrap() {
        copy_tree(&agent.unwrap().path(), &env.home);
    }
    Home { env }
}

fn connector(slug: &str) -> Box<dyn Connector> {
    connectors::by_slug(slug).unwrap_or_else(|| panic!("no connector {slug}"))
}

fn file_named<'a>(files: &'a [SourceFile], part: &str) -> &'a SourceFile {
    files
        .iter()
        .find(|f| f.path.to_string_lossy().contains(part))
        .unwrap_or_else(|| panic!("no file matching {part} in {files:?}"))
}

fn parse(c: &dyn Connector, f: &SourceFile) -> ParseOutput {
    c.parse(f, &ResumePoint::default()).unwrap()
}

fn brief(m: &Message) -> (u64, Role, MessageKind, String) {
    (m.line_number, m.role, m.kind, m.text.clone())
}

fn append(path: &Path, bytes: &[u8]) {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .unwrap()
        .write_all(bytes)
        .unwrap();
}

/// Every message of a Lines file read in one pass equals the messages read one line per call
/// (resume state carried between calls) and read in two halves cut mid-line.
fn assert_resumable(c: &dyn Connector, f: &SourceFile) {
    let whole = parse(c, f);
    let mut from = ResumePoint::default();
    let mut stepped = Vec::new();
    loop {
        let out = c.parse_limited(f, &from, 1).unwrap();
        stepped.extend(out.messages);
        if out.next.offset == from.offset {
            break;
        }
        from = out.next;
    }
    assert_eq!(
        stepped,
        whole.messages,
        "{}: line-by-line",
        f.path.display()
    );

    let full = std::fs::read(&f.path).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let copy = SourceFile {
        path: dir.path().join(f.path.file_name().unwrap()),
        ..f.clone()
    };
    let cut = full.len() / 2;
    std::fs::write(&copy.path, &full[..cut]).unwrap();
    let first = parse(c, &copy);
    append(&copy.path, &full[cut..]);
    let second = c.parse(&copy, &first.next).unwrap();
    let mut halves: Vec<Message> = first.messages;
    halves.extend(second.messages);
    let rel = |ms: &[Message]| ms.iter().map(brief).collect::<Vec<_>>();
    assert_eq!(
        rel(&halves),
        rel(&whole.messages),
        "{}: halves",
        f.path.display()
    );
    assert_eq!(second.next.offset, whole.next.offset);
    assert_eq!(second.next.line, whole.next.line);

    // Cut at many byte offsets, each time in three pieces appended one after another.
    let step = (full.len() / 19).max(1);
    for a in (1..full.len()).step_by(step) {
        let b = (a + step / 2 + 1).min(full.len());
        std::fs::write(&copy.path, &full[..a]).unwrap();
        let p1 = parse(c, &copy);
        append(&copy.path, &full[a..b]);
        let p2 = c.parse(&copy, &p1.next).unwrap();
        append(&copy.path, &full[b..]);
        let p3 = c.parse(&copy, &p2.next).unwrap();
        let pieces: Vec<Message> = [p1.messages, p2.messages, p3.messages].concat();
        assert_eq!(
            pieces,
            relocate(&whole.messages, &copy.path),
            "cut at {a} and {b}"
        );
        assert_eq!(p3.next.line, whole.next.line);
    }
}

/// The same messages as read from a copy of their file at `path`.
fn relocate(messages: &[Message], path: &Path) -> Vec<Message> {
    messages
        .iter()
        .map(|m| Message {
            source_path: path.to_string_lossy().into_owned(),
            ..m.clone()
        })
        .collect()
}

#[test]
fn registry_knows_every_connector() {
    let slugs: Vec<&str> = connectors::all().iter().map(|c| c.slug()).collect();
    for s in [
        "claude", "codex", "gemini", "aider", "opencode", "cline", "cursor",
    ] {
        assert!(slugs.contains(&s), "{s} missing from {slugs:?}");
        assert_eq!(connector(s).slug(), s);
    }
    assert!(connectors::by_slug("nope").is_none());
}

#[test]
fn claude_sessions_subagents_errors_and_bad_lines() {
    let home = home();
    let c = connector("claude");
    let d = c.discover(&home.places());
    assert_eq!(
        d.looked_in,
        vec![
            home.path().join(".claude/projects"),
            home.path().join(".config/claude/projects")
        ]
    );
    assert_eq!(d.files.len(), 3, "{:?}", d.files);
    assert!(d.files.iter().all(|f| f.kind == SourceKind::Lines));
    let sub = file_named(&d.files, "agent-a3f9c2e");
    assert_eq!(
        sub.parent_session_id.as_deref(),
        Some("3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f")
    );

    let main = file_named(
        &d.files,
        "-home-u-proj/3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f.jsonl",
    );
    let out = parse(c.as_ref(), main);
    let got: Vec<_> = out
        .messages
        .iter()
        .map(|m| {
            (
                m.line_number,
                m.role,
                m.kind,
                m.tool_name.clone(),
                m.is_error,
            )
        })
        .collect();
    use MessageKind::*;
    assert_eq!(
        got,
        vec![
            (1, Role::User, Text, None, false),
            (2, Role::Assistant, Thinking, None, false),
            (2, Role::Assistant, ToolCall, Some("Bash".into()), false),
            (3, Role::Tool, ToolResult, Some("Bash".into()), true),
            (4, Role::Assistant, Text, None, false),
            (5, Role::Assistant, ToolCall, Some("Task".into()), false),
            (6, Role::Tool, ToolResult, Some("Task".into()), false),
            (9, Role::System, Scaffolding, None, false),
        ]
    );
    let m = &out.messages[2];
    assert_eq!(m.agent, "claude");
    assert_eq!(m.session_id, "3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f");
    assert_eq!(m.source_path, main.path.to_string_lossy());
    assert_eq!(m.workspace.as_deref(), Some("/home/u/proj"));
    assert_eq!(m.git_branch.as_deref(), Some("main"));
    assert_eq!(m.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(m.timestamp.as_deref(), Some("2026-08-10T12:00:05.123Z"));
    assert_eq!(m.text, "cargo test add_works\nRun the failing test");
    let args: serde_json::Value = serde_json::from_str(m.tool_args.as_deref().unwrap()).unwrap();
    assert_eq!(args["command"], "cargo test add_works");
    assert!(out.messages[3].text.starts_with("error[E0308]"));

    // malformed (7), unknown type (11), binary garbage (13); the blank line 8 is not an error
    let skipped: Vec<u64> = out.skipped.iter().map(|s| s.line).collect();
    assert_eq!(skipped, vec![7, 11, 13]);
    let s = &out.sessions[0];
    assert_eq!(
        s.title.as_deref(),
        Some("Fix add subtracting instead of adding")
    );

    // The partially written last line waits: next points at its start.
    let len = std::fs::metadata(&main.path).unwrap().len();
    assert_eq!(out.next.offset, len - 60);
    assert_eq!(out.next.line, 14);
    let rest = r#"rnal","type":"user","message":{"role":"user","content":"Now run the whole suite please"},"uuid":"u-14","timestamp":"2026-08-10T12:01:00.000Z"}"#;
    append(&main.path, format!("{rest}\n").as_bytes());
    let more = c.parse(main, &out.next).unwrap();
    assert_eq!(more.messages.len(), 1);
    assert_eq!(more.messages[0].line_number, 14);
    assert_eq!(more.messages[0].text, "Now run the whole suite please");
    assert_eq!(more.messages[0].workspace.as_deref(), Some("/home/u/proj"));
    assert!(more.skipped.is_empty());

    let sub_out = parse(c.as_ref(), sub);
    assert_eq!(sub_out.messages.len(), 4);
    for m in &sub_out.messages {
        assert_eq!(
            m.session_id,
            "3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f:agent-a3f9c2e"
        );
        assert_eq!(
            m.parent_session_id.as_deref(),
            Some("3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f")
        );
    }
    assert_eq!(sub_out.messages[2].tool_name.as_deref(), Some("Grep"));

    let other = parse(c.as_ref(), file_named(&d.files, "-home-u-other"));
    assert_eq!(other.sessions[0].title.as_deref(), Some("Login form"));
    assert_eq!(
        other.messages[1].text,
        "I will add the form in src/login.tsx."
    );
    assert_eq!(
        other.messages[1].git_branch.as_deref(),
        Some("feature/login")
    );

    for f in &d.files {
        assert_resumable(c.as_ref(), f);
    }
}

#[test]
fn claude_config_dir_overrides_home() {
    let home = home();
    let alt = home.path().join("alt-claude");
    copy_tree(&home.path().join(".claude"), &alt);
    std::fs::remove_dir_all(alt.join("projects/-home-u-other")).unwrap();
    let d = connector("claude").discover(&home.places().with("CLAUDE_CONFIG_DIR", &alt));
    assert_eq!(d.looked_in, vec![alt.join("projects")]);
    assert_eq!(d.files.len(), 2);

    // Without the override, the XDG location some versions used is searched too.
    let xdg = home.path().join(".config/claude/projects/-home-u-xdg");
    std::fs::create_dir_all(&xdg).unwrap();
    std::fs::copy(
        home.path()
            .join(".claude/projects/-home-u-other/9b8c7d6e-5f4a-4b3c-8d2e-1f0a9b8c7d6e.jsonl"),
        xdg.join("5e5e5e5e-0000-4000-8000-000000000001.jsonl"),
    )
    .unwrap();
    let d = connector("claude").discover(&home.places());
    assert_eq!(d.files.len(), 4);
}

#[test]
fn codex_dedupes_prompts_marks_scaffolding_and_follows_cwd() {
    let home = home();
    let c = connector("codex");
    let d = c.discover(&home.places());
    assert_eq!(
        d.looked_in,
        vec![
            home.path().join(".codex/sessions"),
            home.path().join(".codex/archived_sessions")
        ]
    );
    assert_eq!(d.files.len(), 2);
    let main = file_named(&d.files, "sessions/2026/08/10/rollout-");
    let out = parse(c.as_ref(), main);
    let got: Vec<_> = out.messages.iter().map(brief).collect();
    let texts = |kind: MessageKind| -> Vec<u64> {
        got.iter().filter(|g| g.2 == kind).map(|g| g.0).collect()
    };
    // the developer message, AGENTS.md text and environment context are scaffolding
    assert_eq!(texts(MessageKind::Scaffolding), vec![3, 4, 5]);
    // "run the tests" was sent twice; each copy appears in both logs
    let prompts: Vec<u64> = got
        .iter()
        .filter(|g| g.1 == Role::User && g.2 == MessageKind::Text)
        .map(|g| g.0)
        .collect();
    assert_eq!(prompts, vec![6, 17]);
    assert_eq!(texts(MessageKind::Thinking), vec![8]);
    let replies: Vec<u64> = got
        .iter()
        .filter(|g| g.1 == Role::Assistant && g.2 == MessageKind::Text)
        .map(|g| g.0)
        .collect();
    assert_eq!(replies, vec![13]);
    let result = out.messages.iter().find(|m| m.line_number == 11).unwrap();
    assert!(result.is_error);
    assert_eq!(result.tool_name.as_deref(), Some("exec_command"));
    assert!(result.text.contains("1 failed"));
    let patch = out.messages.iter().find(|m| m.line_number == 19).unwrap();
    assert_eq!(patch.tool_name.as_deref(), Some("apply_patch"));
    assert_eq!(patch.workspace.as_deref(), Some("/home/u/proj/crates/core"));
    let applied = out.messages.iter().find(|m| m.line_number == 20).unwrap();
    assert!(!applied.is_error);
    assert!(applied.text.starts_with("Success."));
    assert!(
        out.messages
            .iter()
            .all(|m| m.session_id == "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"
                && m.git_branch.as_deref() == Some("main"))
    );
    let skipped: Vec<u64> = out.skipped.iter().map(|s| s.line).collect();
    assert_eq!(skipped, vec![12, 21]);
    assert_eq!(out.next.line, 22);
    assert_eq!(
        out.sessions[0].workspace.as_deref(),
        Some("/home/u/proj/crates/core")
    );

    let sub = parse(c.as_ref(), file_named(&d.files, "archived_sessions"));
    assert_eq!(sub.messages.len(), 4, "{:?}", sub.messages);
    assert!(
        sub.messages
            .iter()
            .all(|m| m.session_id == "0199a1b2-aaaa-7bbb-8ccc-0d1e2f3a4b5c"
                && m.parent_session_id.as_deref() == Some("0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b"))
    );
    assert!(sub.messages[2].is_error);
    assert_eq!(sub.messages[2].tool_name.as_deref(), Some("shell"));
    assert_eq!(sub.messages[0].model.as_deref(), Some("gpt-5-codex-mini"));

    for f in &d.files {
        assert_resumable(c.as_ref(), f);
    }
}

#[test]
fn codex_home_overrides_and_missing_dirs_are_quiet() {
    let home = home();
    let d = connector("codex").discover(
        &home
            .places()
            .with("CODEX_HOME", home.path().join("nowhere")),
    );
    assert!(d.files.is_empty() && d.errors.is_empty());
    assert_eq!(d.looked_in[0], home.path().join("nowhere/sessions"));
}

#[test]
fn every_connector_survives_an_empty_home() {
    let empty = tempfile::tempdir().unwrap();
    for c in connectors::all() {
        let d = c.discover(&Places::at(empty.path()));
        assert!(d.files.is_empty(), "{} found {:?}", c.slug(), d.files);
        assert!(d.errors.is_empty(), "{}: {:?}", c.slug(), d.errors);
    }
}

/// The line holding `needle` in `path` (1-based).
fn line_containing(path: &Path, needle: &str) -> u64 {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines().position(|l| l.contains(needle)).unwrap() as u64 + 1
}

#[test]
fn gemini_documents_place_messages_on_their_lines() {
    let home = home();
    let c = connector("gemini");
    let d = c.discover(&home.places());
    assert_eq!(d.looked_in, vec![home.path().join(".gemini/tmp")]);
    assert_eq!(d.files.len(), 2);
    assert!(d.files.iter().all(|f| f.kind == SourceKind::Document));
    let f = file_named(&d.files, "6e1f2a3b");
    let out = parse(c.as_ref(), f);
    let at = |id: &str| line_containing(&f.path, &format!("\"id\": \"{id}\"")) - 1;
    let got: Vec<_> = out
        .messages
        .iter()
        .map(|m| (m.line_number, m.role, m.kind, m.is_error))
        .collect();
    use MessageKind::*;
    assert_eq!(
        got,
        vec![
            (at("m1"), Role::User, Text, false),
            (at("m2"), Role::Assistant, Thinking, false),
            (at("m2"), Role::Assistant, Text, false),
            (at("m2"), Role::Assistant, ToolCall, false),
            (at("m2"), Role::Tool, ToolResult, true),
            (at("m4"), Role::System, Scaffolding, false),
            (at("m5"), Role::Assistant, Text, false),
        ]
    );
    let m = &out.messages[3];
    assert_eq!(m.tool_name.as_deref(), Some("run_shell_command"));
    assert_eq!(m.text, "npm test -- --ci\nRun tests in CI mode");
    assert_eq!(m.timestamp.as_deref(), Some("2026-08-12T10:00:20.000Z"));
    assert!(out.messages[4].text.contains("Jest did not exit"));
    assert_eq!(out.messages[6].model.as_deref(), Some("gemini-2.5-pro"));
    assert!(
        out.messages
            .iter()
            .all(|m| m.workspace.as_deref() == Some("/home/u/webapp")
                && m.session_id == "6e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b")
    );
    assert_eq!(out.skipped.len(), 1, "the bare number in messages[]");
    let s = &out.sessions[0];
    assert_eq!(s.started_at.as_deref(), Some("2026-08-12T10:00:00.000Z"));
    assert_eq!(s.ended_at.as_deref(), Some("2026-08-12T10:02:30.000Z"));
    assert_eq!(out.next.offset, std::fs::metadata(&f.path).unwrap().len());

    let broken = parse(c.as_ref(), file_named(&d.files, "broken"));
    assert!(broken.messages.is_empty());
    assert_eq!(broken.skipped.len(), 1);
}

#[test]
fn aider_histories_split_into_user_reply_and_output_blocks() {
    let home = home();
    // A history below a repository's root is not aider's (it keeps one at the root).
    std::fs::create_dir_all(home.path().join("code/webapp/.git")).unwrap();
    std::fs::create_dir_all(home.path().join("code/webapp/nested")).unwrap();
    std::fs::write(
        home.path()
            .join("code/webapp/nested/.aider.chat.history.md"),
        "#### not found\n",
    )
    .unwrap();
    let c = connector("aider");
    let d = c.discover(&home.places());
    assert_eq!(d.looked_in, vec![home.path().to_path_buf()]);
    let found: Vec<_> = d
        .files
        .iter()
        .map(|f| f.path.strip_prefix(home.path()).unwrap().to_path_buf())
        .collect();
    assert_eq!(
        found,
        vec![
            Path::new(".aider.chat.history.md").to_path_buf(),
            Path::new("code/webapp/.aider.chat.history.md").to_path_buf()
        ],
        "hidden, node_modules and in-repository directories are not searched"
    );
    let f = file_named(&d.files, "webapp");
    let out = parse(c.as_ref(), f);
    use MessageKind::*;
    let got: Vec<_> = out
        .messages
        .iter()
        .map(|m| (m.line_number, m.role, m.kind))
        .collect();
    assert_eq!(
        got,
        vec![
            (4, Role::System, Scaffolding),
            (10, Role::User, Text),
            (13, Role::Assistant, Text),
            (26, Role::Tool, ToolResult),
            (29, Role::User, Text),
            (31, Role::Tool, ToolResult),
            (38, Role::System, Scaffolding),
            (41, Role::User, Text),
            (43, Role::Assistant, Text),
        ]
    );
    let m = &out.messages[1];
    assert_eq!(
        m.text,
        "add input validation to the signup handler\nreject empty emails"
    );
    assert_eq!(
        m.workspace.as_deref(),
        Some(f.path.parent().unwrap().to_str().unwrap())
    );
    assert_eq!(
        m.model.as_deref(),
        Some("anthropic/claude-sonnet-4-20250514")
    );
    assert_eq!(m.timestamp.as_deref(), Some("2026-08-14T09:30:00.000Z"));
    assert!(out.messages[2].text.ends_with("```"));
    assert_eq!(out.messages[4].tool_name.as_deref(), Some("/run"));
    assert_eq!(out.messages[8].model.as_deref(), Some("gpt-4o"));
    assert_ne!(out.messages[0].session_id, out.messages[8].session_id);
    assert_eq!(out.sessions.len(), 2);

    // Appended at a block boundary: the second run continues exactly.
    let full = std::fs::read(&f.path).unwrap();
    let text = String::from_utf8(full.clone()).unwrap();
    let cut = text.find("#### /run").unwrap();
    std::fs::write(&f.path, &full[..cut]).unwrap();
    let first = parse(c.as_ref(), f);
    append(&f.path, &full[cut..]);
    let second = c.parse(f, &first.next).unwrap();
    let mut both = first.messages;
    both.extend(second.messages);
    assert_eq!(both, out.messages);
}

/// Build a SQLite database from the `.sql` script committed beside where it belongs.
fn build_db(script: &Path) -> std::path::PathBuf {
    let db = script.with_extension("");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.execute_batch(&std::fs::read_to_string(script).unwrap())
        .unwrap();
    db
}

#[test]
fn opencode_reads_the_database_and_legacy_json_once_each() {
    let home = home();
    let share = home.path().join(".local/share/opencode");
    let db = build_db(&share.join("opencode.db.sql"));
    let before = std::fs::read(&db).unwrap();
    let c = connector("opencode");
    let d = c.discover(&home.places());
    assert_eq!(d.looked_in, vec![db.clone(), share.join("storage/session")]);
    assert!(d.errors.is_empty(), "{:?}", d.errors);
    let names: Vec<String> = d
        .files
        .iter()
        .map(|f| f.path.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec!["opencode.db", "ses_6a1b2c3d4e5fLegacyJson01.json"],
        "the migrated session's legacy copy is skipped"
    );

    let out = parse(c.as_ref(), &d.files[0]);
    assert_eq!(std::fs::read(&db).unwrap(), before, "opened read-only");
    use MessageKind::*;
    let got: Vec<_> = out
        .messages
        .iter()
        .map(|m| (m.session_id.as_str(), m.line_number, m.role, m.kind))
        .collect();
    let (main, child) = (
        "ses_7c2d3e4f5a6bInDatabase001",
        "ses_7c2d3e4f5a6bChildTask0001",
    );
    assert_eq!(
        got,
        vec![
            (child, 1, Role::User, Text),
            (child, 2, Role::Assistant, ToolCall),
            (child, 2, Role::Tool, ToolResult),
            (main, 1, Role::User, Text),
            (main, 3, Role::Assistant, ToolCall),
            (main, 3, Role::Tool, ToolResult),
            (main, 4, Role::Assistant, Text),
        ]
    );
    assert_eq!(out.skipped.len(), 1, "the cut-off part");
    let call = &out.messages[4];
    assert_eq!(call.tool_name.as_deref(), Some("task"));
    assert_eq!(call.model.as_deref(), Some("gpt-5"));
    assert_eq!(call.workspace.as_deref(), Some("/home/u/api"));
    assert_eq!(call.timestamp.as_deref(), Some("2026-08-11T12:00:02.000Z"));
    assert_eq!(out.messages[0].parent_session_id.as_deref(), Some(main));
    let s = out.sessions.iter().find(|s| s.session_id == main).unwrap();
    assert_eq!(s.title.as_deref(), Some("Fix flaky login test"));
    assert_eq!(s.started_at.as_deref(), Some("2026-08-11T12:00:00.000Z"));

    let legacy = parse(c.as_ref(), &d.files[1]);
    let got: Vec<_> = legacy
        .messages
        .iter()
        .map(|m| (m.line_number, m.role, m.kind, m.is_error))
        .collect();
    assert_eq!(
        got,
        vec![
            (1, Role::User, Text, false),
            (2, Role::User, Scaffolding, false),
            (4, Role::Assistant, Thinking, false),
            (5, Role::Assistant, ToolCall, false),
            (5, Role::Tool, ToolResult, true),
            (6, Role::Assistant, Text, false),
        ]
    );
    assert!(legacy.messages[4].text.contains("undefined: Cursor"));
    assert_eq!(
        legacy.messages[3].text,
        "go test ./users/...\nRun user tests"
    );
    assert_eq!(legacy.skipped.len(), 1, "the truncated part file");
    assert_eq!(
        legacy.sessions[0].title.as_deref(),
        Some("Paginate the users endpoint")
    );
}

#[test]
fn cline_tasks_from_every_editor_and_fork() {
    let home = home();
    let c = connector("cline");
    let d = c.discover(&home.places());
    assert!(
        d.looked_in.contains(
            &home
                .path()
                .join(".config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks")
        )
    );
    assert_eq!(d.files.len(), 3, "{:?}", d.files);
    let f = file_named(&d.files, "1786536000000");
    let out = parse(c.as_ref(), f);
    use MessageKind::*;
    let got: Vec<_> = out
        .messages
        .iter()
        .map(|m| {
            (
                m.line_number,
                m.role,
                m.kind,
                m.tool_name.clone(),
                m.is_error,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            (1, Role::User, Text, None, false),
            (1, Role::User, Scaffolding, None, false),
            (2, Role::Assistant, Text, None, false),
            (
                2,
                Role::Assistant,
                ToolCall,
                Some("read_file".into()),
                false
            ),
            (3, Role::Tool, ToolResult, Some("read_file".into()), false),
            (3, Role::User, Scaffolding, None, false),
            (
                4,
                Role::Assistant,
                ToolCall,
                Some("execute_command".into()),
                false
            ),
            (
                5,
                Role::Tool,
                ToolResult,
                Some("execute_command".into()),
                true
            ),
            (7, Role::Assistant, Text, None, false),
        ]
    );
    assert_eq!(out.skipped.len(), 1, "the message with an unknown role");
    let m = &out.messages[0];
    assert_eq!(m.session_id, "1786536000000");
    assert_eq!(m.workspace.as_deref(), Some("/home/u/shop"));
    assert_eq!(m.model.as_deref(), Some("claude-sonnet-4-5-20250929"));
    assert_eq!(m.timestamp.as_deref(), Some("2026-08-12T12:00:00.000Z"));
    let s = &out.sessions[0];
    assert_eq!(
        s.title.as_deref(),
        Some("The cart total ignores discounts; fix computeTotal")
    );
    assert_eq!(s.ended_at.as_deref(), Some("2026-08-12T12:01:30.000Z"));

    let roo = parse(c.as_ref(), file_named(&d.files, "1786539600000"));
    assert_eq!(roo.messages.len(), 4);
    let result = &roo.messages[3];
    assert_eq!(
        (result.role, result.kind, result.is_error),
        (Role::Tool, ToolResult, true)
    );
    assert_eq!(result.tool_name.as_deref(), Some("list_files"));
    assert_eq!(result.workspace.as_deref(), Some("/Users/u/db"));
    assert_eq!(
        result.timestamp.as_deref(),
        Some("2026-08-12T13:00:02.000Z")
    );

    let cut = parse(c.as_ref(), file_named(&d.files, "1786543200000"));
    assert!(cut.messages.is_empty());
    assert_eq!(cut.skipped.len(), 1);
}

/// Build every database whose `.sql` script is in the temp home.
fn build_all_dbs(dir: &Path) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            build_all_dbs(&path);
        } else if path.extension() == Some("sql".as_ref()) {
            build_db(&path);
        }
    }
}

#[test]
fn cursor_composers_bubbles_and_chat_tabs() {
    let home = home();
    let user = home.path().join(".config/Cursor/User");
    build_all_dbs(&user);
    let global = user.join("globalStorage/state.vscdb");
    let before = std::fs::read(&global).unwrap();
    let c = connector("cursor");
    let d = c.discover(&home.places());
    assert!(d.looked_in.contains(&global));
    assert!(d.errors.is_empty(), "{:?}", d.errors);
    assert_eq!(d.files.len(), 3, "{:?}", d.files);

    let out = parse(c.as_ref(), file_named(&d.files, "globalStorage"));
    assert_eq!(std::fs::read(&global).unwrap(), before, "opened read-only");
    use MessageKind::*;
    let got: Vec<_> = out
        .messages
        .iter()
        .map(|m| {
            (
                &m.session_id[..4],
                m.line_number,
                m.role,
                m.kind,
                m.is_error,
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("3d1c", 1, Role::User, Text, false),
            ("3d1c", 2, Role::Assistant, Thinking, false),
            ("3d1c", 2, Role::Assistant, Text, false),
            ("3d1c", 3, Role::Assistant, ToolCall, false),
            ("3d1c", 3, Role::Tool, ToolResult, true),
            ("7a8b", 1, Role::User, Text, false),
            ("7a8b", 2, Role::Assistant, Text, false),
        ]
    );
    let call = &out.messages[3];
    assert_eq!(call.tool_name.as_deref(), Some("run_terminal_cmd"));
    assert_eq!(call.text, "cargo test cache::evict");
    assert_eq!(call.workspace.as_deref(), Some("/home/u/cache lib"));
    assert_eq!(call.model.as_deref(), Some("claude-4.5-sonnet-thinking"));
    assert_eq!(call.timestamp.as_deref(), Some("2026-08-13T12:00:09.000Z"));
    let inline = &out.messages[5];
    assert_eq!(inline.text, "rename maxConn to maxConnections");
    assert_eq!(inline.workspace.as_deref(), Some("/home/u/settings"));
    assert_eq!(
        inline.timestamp.as_deref(),
        Some("2026-08-13T13:00:00.000Z")
    );
    assert_eq!(out.messages[6].model.as_deref(), Some("gpt-5"));
    let skipped: Vec<u64> = out.skipped.iter().map(|s| s.line).collect();
    assert_eq!(
        skipped,
        vec![4, 4],
        "the missing bubble and the broken composer row"
    );
    let titles: Vec<_> = out.sessions.iter().map(|s| s.title.as_deref()).collect();
    assert_eq!(
        titles,
        vec![Some("Fix flaky cache test"), Some("Rename config keys")],
        "the empty composer is no session"
    );

    let ws = parse(c.as_ref(), file_named(&d.files, "9f86d081"));
    let got: Vec<_> = ws
        .messages
        .iter()
        .map(|m| (m.session_id.as_str(), m.line_number, m.role))
        .collect();
    assert_eq!(
        got,
        vec![
            ("tab-5c6d7e8f", 1, Role::User),
            ("tab-5c6d7e8f", 2, Role::Assistant)
        ]
    );
    assert_eq!(ws.messages[1].model.as_deref(), Some("gpt-4o"));
    assert_eq!(
        ws.messages[0].workspace.as_deref(),
        Some("/home/u/cache lib")
    );
    assert_eq!(ws.skipped.len(), 1);
    assert_eq!(ws.sessions[0].title.as_deref(), Some("Explain the LRU"));

    let empty = parse(c.as_ref(), file_named(&d.files, "e3b0c442"));
    assert!(empty.messages.is_empty() && empty.sessions.is_empty());
}
