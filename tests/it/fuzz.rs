//! Property tests over everything that reads input someone else wrote: hook payloads, command
//! normalisation, every session connector, config files, playbook imports, trauma files and the
//! secret scanner. Stable toolchain (proptest); failures are kept in `tests/it/fuzz.proptest-regressions`
//! and replayed first. `PROPTEST_CASES` sets the cases per property (default 256 here);
//! `bench/fuzz.sh` runs a long hunt and reports executions and findings.

use cm::guard::{self, Policy};
use cm::hooks::pretool::payload;
use proptest::prelude::*;

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256);
    ProptestConfig {
        cases,
        max_shrink_iters: 2000,
        ..ProptestConfig::default()
    }
}

/// Random edits of `base`: flip, insert, delete, truncate, duplicate a slice.
fn mutate(base: &[u8], ops: &[(u8, usize, u8)]) -> Vec<u8> {
    let mut b = base.to_vec();
    for &(op, at, byte) in ops {
        if b.is_empty() {
            b.push(byte);
            continue;
        }
        let i = at % b.len();
        match op % 6 {
            0 => b[i] = byte,
            1 => b.insert(i, byte),
            2 => {
                b.remove(i);
            }
            3 => b.truncate(i),
            4 => {
                let end = (i + 1 + byte as usize).min(b.len());
                let chunk = b[i..end].to_vec();
                b.splice(i..i, chunk);
            }
            _ => b.insert(
                i,
                [b'"', b'\\', b'{', b'}', b',', b':', 0, 0xff][byte as usize % 8],
            ),
        }
    }
    b
}

fn ops() -> impl Strategy<Value = Vec<(u8, usize, u8)>> {
    proptest::collection::vec((any::<u8>(), any::<usize>(), any::<u8>()), 0..8)
}

const PAYLOAD: &str = r#"{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":"/home/u/app","permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"npm test","description":"Run tests","timeout":120000},"tool_use_id":"toolu_01ABC"}"#;

/// What the hook would decide on for `bytes`.
fn asked(bytes: &[u8]) -> Vec<String> {
    let (fields, _) = payload::parse(bytes);
    let agent = fields.agent();
    let a = fields.asked(agent);
    let _ = fields.cwd();
    a.commands.iter().map(|c| c.to_string()).collect()
}

fn dangerous() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(
        &[
            "rm -rf ~",
            "git reset --hard",
            "git push --force origin main",
            "terraform destroy -auto-approve",
            "python3 -c \"import shutil; shutil.rmtree('/')\"",
            "bash -c 'rm -rf /'",
        ][..],
    )
}

/// A payload shape a forgiving JSON reader still runs `cmd` from, with the command hidden in
/// one of the ways a strict reader trips over.
fn hidden(cmd: &str, how: u8, noise: &str) -> Vec<u8> {
    let q = serde_json::to_string(cmd).unwrap();
    let n = serde_json::to_string(noise).unwrap();
    let head = r#"{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","#;
    let text = match how % 9 {
        0 => format!(r#"{head}"cwd":"/w","tool_input":{{"command":{n},"command":{q}}}}}"#),
        1 => format!(r#"{head}"cwd":7,"tool_input":{{"command":{q}}}}}"#),
        2 => format!(
            r#"{head}"cwd":"/w","tool_input":{{"command":{}}}}}"#,
            q.replacen('"', r#""\ud800"#, 1)
        ),
        3 => format!(r#"{head}"cwd":"/w","tool_input":{{"command":{q}}}}}{n}"#),
        4 => format!(
            r#"{head}"cwd":"/w","tool_input":{{"command":{n}}},"tool_input":{{"command":{q}}}}}"#
        ),
        5 => format!(r#"{head}"cwd":"/w","tool_input":{{"comm\u0061nd":{q}}}}}"#),
        6 => format!(r#"{head}"cwd":"/w","tool_input":{{"command":{q}"#),
        // A raw control character (invalid inside a JSON string), after the command.
        7 => {
            let with_control = format!("{}  #\u{1}\"", &q[..q.len() - 1]);
            format!(r#"{head}"cwd":"/w","x":{n},"tool_input":{{"command":{with_control}}}}}"#)
        }
        _ => format!(
            r#"{head}"cwd":"/w","tool_input":{{"command":{}}}}}"#,
            q.replace(
                &cmd[cmd.len() - 1..],
                &format!("{}\\u0000", &cmd[cmd.len() - 1..])
            )
        ),
    };
    text.into_bytes()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn payload_parsing_never_panics_on_any_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        asked(&bytes);
    }

    #[test]
    fn payload_parsing_never_panics_on_mutated_payloads(ops in ops()) {
        asked(&mutate(PAYLOAD.as_bytes(), &ops));
    }

    #[test]
    fn a_dangerous_command_hidden_in_an_odd_payload_is_still_denied(
        cmd in dangerous(), how in any::<u8>(), noise in "[a-z ]{0,12}"
    ) {
        let bytes = hidden(cmd, how, &noise);
        let policy = Policy::default();
        let commands = asked(&bytes);
        prop_assert!(
            commands.iter().any(|c| guard::evaluate(c, &policy).is_deny()),
            "{} -> {:?}", String::from_utf8_lossy(&bytes), commands
        );
    }

    #[test]
    fn the_derived_and_the_lenient_payload_readers_agree(
        fields in proptest::collection::vec((0usize..12, "[a-z /~.\\-]{0,12}", any::<bool>()), 0..10)
    ) {
        use cm::hooks::pretool::fields::{Fields, Strict};
        let keys = ["hook_event_name", "tool_name", "cwd", "command", "turn_id", "model",
            "conversation_id", "session_id", "tool_input", "workspace_roots", "tool_use_id", "timestamp"];
        let mut parts = Vec::new();
        for (k, v, null) in &fields {
            let key = keys[*k];
            let value = match key {
                "tool_input" => format!(r#"{{"command":{},"file_path":"/x/{}","content":"c"}}"#,
                    serde_json::to_string(v).unwrap(), v.len()),
                "workspace_roots" => format!("[{}]", serde_json::to_string(v).unwrap()),
                _ if *null => "null".to_string(),
                _ => serde_json::to_string(v).unwrap(),
            };
            parts.push(format!("{}:{value}", serde_json::to_string(key).unwrap()));
        }
        let text = format!("{{{}}}", parts.join(","));
        if let Ok(strict) = serde_json::from_str::<Strict>(&text) {
            let lenient: Fields = serde_json::from_str(&text).unwrap();
            prop_assert_eq!(strict.into_fields(), lenient, "{}", text);
        }
    }

    #[test]
    fn normalisation_and_matching_never_panic_and_the_quick_path_is_sound(
        s in "(\\PC|[;&|()<>$`'\"\\\\\n\t ]|rm|git|-rf|~|/|sh -c|<<EOF|python3 -c|eval){0,40}"
    ) {
        let policy = Policy::default();
        let fast = guard::evaluate(&s, &policy).is_deny();
        let full = guard::evaluate_exhaustive(&s, &policy).is_deny();
        prop_assert!(fast || !full, "quick path allowed {s:?}, which the exhaustive matcher blocks");
    }

    #[test]
    fn secrets_inserted_anywhere_never_survive_redaction(
        prefix in "\\PC{0,40}", suffix in "\\PC{0,40}", which in 0usize..1000, tail in "[A-Za-z0-9]{40}"
    ) {
        let secrets = [
            format!("ghp_{}", &tail[..36]),
            format!("hf_{}", &tail[..34]),
            format!("npm_{}", &tail[..36]),
            format!("whsec_{}", &tail[..32]),
            format!("AKIA{}", tail[..16].to_ascii_uppercase()),
            format!("sk-ant-api03-{tail}"),
            format!("xoxb-1234567890-{}", &tail[..20]),
        ];
        let secret = &secrets[which % secrets.len()];
        // Separated by a space: glued to a word, a token is no longer that token.
        let text = format!("{prefix} {secret} {suffix}");
        let (out, _) = cm::redact::redact(&text);
        prop_assert!(!out.contains(secret.as_str()), "{out}");
    }

    #[test]
    fn redaction_never_panics_and_never_grows_a_finding(text in "\\PC{0,300}") {
        let (out, n) = cm::redact::redact(&text);
        prop_assert!(n > 0 || out == text);
    }
}

/// The session connectors on mutated copies of real fixtures (JSON Lines, JSON documents,
/// Markdown, SQLite databases built from the fixture SQL with mutated values).
mod connectors {
    use super::*;
    use cm::episodic::connectors::{self, ResumePoint, SourceFile, SourceKind};

    /// The bytes of `tests/fixtures/episodic/REL`.
    fn fixture(rel: &str) -> Vec<u8> {
        crate::harness::fixture(&format!("episodic/{rel}"))
    }

    /// Parse `bytes` as `agent` would (stored under `name`), from the start and again from where
    /// the first parse stopped; neither may panic, and the resume point stays inside the file.
    fn parse(
        agent: &'static str,
        name: &str,
        kind: SourceKind,
        bytes: &[u8],
    ) -> Result<(), TestCaseError> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(name);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, bytes).unwrap();
        let c = connectors::by_slug(agent).unwrap();
        let file = SourceFile {
            agent,
            path,
            kind,
            parent_session_id: None,
        };
        if let Ok(out) = c.parse_limited(&file, &ResumePoint::default(), u64::MAX) {
            prop_assert!(
                out.next.offset <= bytes.len() as u64,
                "{agent}: offset past the end"
            );
            let _ = c.parse_limited(&file, &out.next, 4096);
        }
        Ok(())
    }

    /// A fixture SQL script run into a fresh database, each quoted JSON value mutated.
    fn mutated_db(sql: &[u8], ops: &[(u8, usize, u8)]) -> Vec<u8> {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("x.db");
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(&String::from_utf8_lossy(sql)).unwrap();
        for table in ["cursorDiskKV", "ItemTable", "message", "part", "session"] {
            let col = if table.ends_with("KV") || table == "ItemTable" {
                "value"
            } else {
                "data"
            };
            let Ok(mut stmt) =
                conn.prepare(&format!("SELECT rowid, CAST({col} AS TEXT) FROM {table}"))
            else {
                continue;
            };
            let rows: Vec<(i64, String)> = stmt
                .query_map([], |r| {
                    Ok((
                        r.get(0)?,
                        r.get::<_, Option<String>>(1)?.unwrap_or_default(),
                    ))
                })
                .map(|it| it.flatten().collect())
                .unwrap_or_default();
            for (id, v) in rows {
                let m = String::from_utf8_lossy(&mutate(v.as_bytes(), ops)).into_owned();
                let _ = conn.execute(
                    &format!("UPDATE {table} SET {col} = ?1 WHERE rowid = ?2"),
                    rusqlite::params![m, id],
                );
            }
        }
        drop(conn);
        std::fs::read(db).unwrap()
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn claude(ops in ops()) {
            let base = fixture("claude/.claude/projects/-home-u-proj/3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f.jsonl");
            parse("claude", "p/s.jsonl", SourceKind::Lines, &mutate(&base, &ops))?;
        }

        #[test]
        fn codex(ops in ops()) {
            let base = fixture("codex/.codex/sessions/2026/08/10/rollout-2026-08-10T20-05-50-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl");
            parse("codex", "rollout-2026-08-10T20-05-50-x.jsonl", SourceKind::Lines, &mutate(&base, &ops))?;
        }

        #[test]
        fn gemini(ops in ops(), lines in any::<bool>()) {
            let base = fixture("gemini/.gemini/tmp/5d41402abc4b2a76b9719d911017c592d4b6f1a0c3e5b7d9f1a3c5e7b9d1f3a5/chats/session-2026-08-12T10-00-6e1f2a3b.json");
            let (name, kind) = if lines { ("chats/s.jsonl", SourceKind::Lines) } else { ("chats/s.json", SourceKind::Document) };
            parse("gemini", name, kind, &mutate(&base, &ops))?;
        }

        #[test]
        fn aider(ops in ops()) {
            let base = fixture("aider/.aider.chat.history.md");
            parse("aider", ".aider.chat.history.md", SourceKind::Lines, &mutate(&base, &ops))?;
        }

        #[test]
        fn cline(ops in ops()) {
            let base = fixture("cline/.config/Code/User/globalStorage/saoudrizwan.claude-dev/tasks/1786536000000/api_conversation_history.json");
            parse("cline", "tasks/1786536000000/api_conversation_history.json", SourceKind::Document, &mutate(&base, &ops))?;
        }

        #[test]
        fn opencode(ops in ops(), db in any::<bool>()) {
            if db {
                let bytes = mutated_db(&fixture("opencode/.local/share/opencode/opencode.db.sql"), &ops);
                parse("opencode", "opencode/opencode.db", SourceKind::Document, &bytes)?;
            } else {
                let base = fixture("opencode/.local/share/opencode/storage/session/4b825dc642cb6eb9a060e54bf8d69288fbee4904/ses_6a1b2c3d4e5fLegacyJson01.json");
                parse("opencode", "storage/session/p/ses_x.json", SourceKind::Document, &mutate(&base, &ops))?;
            }
        }

        #[test]
        fn cursor(ops in ops(), global in any::<bool>()) {
            let (sql, name) = if global {
                ("cursor/.config/Cursor/User/globalStorage/state.vscdb.sql", "globalStorage/state.vscdb")
            } else {
                ("cursor/.config/Cursor/User/workspaceStorage/9f86d081884c7d659a2feaa0c55ad015/state.vscdb.sql", "workspaceStorage/w/state.vscdb")
            };
            let bytes = mutated_db(&fixture(sql), &ops);
            parse("cursor", name, SourceKind::Document, &bytes)?;
        }

        #[test]
        fn any_connector_on_random_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..600), which in 0usize..7) {
            let agents = [("claude", "s.jsonl", SourceKind::Lines), ("codex", "rollout-x.jsonl", SourceKind::Lines),
                ("gemini", "chats/s.json", SourceKind::Document), ("aider", ".aider.chat.history.md", SourceKind::Lines),
                ("cline", "tasks/1/api_conversation_history.json", SourceKind::Document),
                ("opencode", "opencode/opencode.db", SourceKind::Document), ("cursor", "globalStorage/state.vscdb", SourceKind::Document)];
            let (agent, name, kind) = agents[which];
            parse(agent, name, kind, &bytes)?;
        }
    }
}

/// Config files, playbook imports and trauma files: whatever they hold, a clear result.
mod files {
    use super::*;
    use cm::memory::formats::{self, Format};

    const CONFIG: &str = r#"{"scoring":{"decayHalfLifeDays":90},"maxBulletsInContext":50,"guard":{"protectedPaths":[".env"],"allow":[{"command":"git reset --hard","scope":"global"}],"failClosed":true,"disabledPacks":["containers"]},"history":{"redact":true}}"#;
    const PLAYBOOK: &str = "schema_version: 2\nname: p\nbullets:\n  - id: b-1\n    content: Always run the tests before pushing\n    category: testing\n    helpfulCount: 3\n    feedbackEvents:\n      - id: fb-1\n        type: helpful\n        timestamp: 2026-01-01T00:00:00Z\n";

    fn write(bytes: &[u8], name: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        (dir, p)
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn config_files_parse_or_fail_with_a_config_error(ops in ops()) {
            let (_d, p) = write(&mutate(CONFIG.as_bytes(), &ops), "config.json");
            if let Err(e) = cm::config::read_json_file(&p) {
                prop_assert!(e.code.starts_with("CONFIG_"), "{}", e.code);
            }
            let _ = cm::guard::policy_file::read_section(&p);
        }

        #[test]
        fn playbook_imports_parse_or_fail_with_a_message(ops in ops(), json in any::<bool>()) {
            let base = if json {
                formats::render(&formats::parse(PLAYBOOK, Format::Yaml).unwrap(), Format::Json)
            } else {
                PLAYBOOK.to_string()
            };
            let text = String::from_utf8_lossy(&mutate(base.as_bytes(), &ops)).into_owned();
            let format = if json { Format::Json } else { Format::Yaml };
            if let Ok(bullets) = formats::parse(&text, format) {
                // What parsed renders and parses back to the same rules.
                let again = formats::parse(&formats::render(&bullets, format), format);
                prop_assert_eq!(again.map(|b| b.len()), Ok(bullets.len()));
            }
        }

        #[test]
        fn trauma_files_index_or_report_bad_lines(ops in ops()) {
            let line = r#"{"id":"t-1","pattern":"deploy\\.sh\\s+--prod","severity":"critical","scope":"global","createdAt":"2026-01-01T00:00:00Z"}"#;
            let base = format!("{line}\n# note\n{line}\n");
            let (_d, p) = write(&mutate(base.as_bytes(), &ops), "traumas.jsonl");
            let _ = cm::guard::user_traumas::load(&p);
            let cache = _d.path().join("cache");
            if let Ok(Some(index)) = cm::guard::trauma_cache::open(&p, cm::guard::trauma_cache::Limits::PROJECT, Some(&cache)) {
                let all: Vec<usize> = (0..index.entries.len()).collect();
                let _ = index.candidates(&["./deploy.sh --prod"], "2026-06-01T00:00:00Z");
                let _ = index.load(&all);
            }
        }
    }
}
