//! Episodic memory through the real binary: `cm history index | search | sessions | show | stats
//! | sources`, the post-session hook, remote search over a fake `ssh`, bad input, secrets, and a
//! `kill -9` in the middle of indexing. Every test runs with a temp HOME and data dir.

use crate::harness::{CM, Env, repo_path};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

const SESSION: &str = "3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f";

/// The bytes of `tests/fixtures/episodic/index/NAME`.
fn fixture(name: &str) -> Vec<u8> {
    crate::harness::fixture(&format!("episodic/index/{name}"))
}

/// What these tests ask of a world: session files where each agent keeps them, and the
/// history commands' answers.
impl Env {
    fn claude_file(&self, project: &str, session: &str) -> PathBuf {
        let d = self.home.join(".claude/projects").join(project);
        std::fs::create_dir_all(&d).unwrap();
        d.join(format!("{session}.jsonl"))
    }
    /// Run with --json; return (exit code, envelope).
    fn envelope(&self, args: &[&str]) -> (i32, Value) {
        let out = self.cm(args).json().run();
        (out.code, out.json())
    }
    fn index(&self) -> Value {
        self.data_of(&["history", "index"])
    }
    fn hits(&self, q: &str) -> Vec<Value> {
        self.data_of(&["history", "search", q])["hits"]
            .as_array()
            .unwrap()
            .clone()
    }
    fn messages(&self) -> u64 {
        self.data_of(&["history", "stats"])["messages"]
            .as_u64()
            .unwrap()
    }
    /// Every output a user can see for the indexed sessions, as one string.
    fn all_output(&self, queries: &[&str]) -> String {
        let mut s = String::new();
        for q in queries {
            for args in [
                vec!["history", "search", q],
                vec!["history", "search", q, "--json"],
            ] {
                s.push_str(&self.cm(&args).run().stdout);
            }
        }
        for args in [
            vec!["history", "sessions", "--json"],
            vec!["history", "sessions"],
            vec!["history", "show", SESSION, "--json"],
            vec!["history", "show", SESSION],
            vec!["history", "stats", "--json"],
        ] {
            s.push_str(&self.cm(&args).run().stdout);
        }
        s
    }
}

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new().append(true).open(path).unwrap();
    f.write_all(bytes).unwrap();
}

#[test]
fn index_search_append_reindex_truncate_reindex() {
    let env = Env::new();
    let file = env.claude_file("-home-u-proj", SESSION);
    std::fs::write(&file, fixture("claude_session.jsonl")).unwrap();
    let rollout_dir = env.home.join(".codex/sessions/2026/08/10");
    std::fs::create_dir_all(&rollout_dir).unwrap();
    std::fs::write(
        rollout_dir.join("rollout-2026-08-10T20-05-50-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"),
        fixture("codex_rollout.jsonl"),
    )
    .unwrap();

    let r = env.index();
    assert_eq!(r["filesNew"], 2, "{r}");
    let first = r["messagesAdded"].as_u64().unwrap();
    assert!(first >= 8, "{r}");
    assert!(r["byAgent"]["claude"].as_u64().unwrap() > 0);
    assert!(r["byAgent"]["codex"].as_u64().unwrap() > 0);

    let hits = env.hits("quaternion");
    assert_eq!(hits.len(), 1, "{hits:?}");
    let h = &hits[0];
    assert_eq!(h["agent"], "claude");
    assert_eq!(h["session_id"], SESSION);
    assert_eq!(h["line_number"], 5);
    assert_eq!(h["role"], "tool");
    assert_eq!(h["workspace"], "/home/u/proj");
    assert_eq!(h["title"], "Fix failing add test");
    assert_eq!(h["origin"]["kind"], "local");
    assert_eq!(h["source_path"], file.display().to_string());
    assert!(h["snippet"].as_str().unwrap().contains("**quaternion**"));
    assert!(
        h["created_at"]
            .as_str()
            .unwrap()
            .starts_with("2026-08-10T12:00:12")
    );
    // Filters.
    assert_eq!(
        env.data_of(&["history", "search", "quaternion", "--agent", "codex"])["count"],
        0
    );
    assert_eq!(
        env.data_of(&["history", "search", "quaternion", "--workspace", "/home/u"])["count"],
        1
    );
    assert_eq!(
        env.data_of(&[
            "history",
            "search",
            "quaternion",
            "--workspace",
            "/elsewhere"
        ])["count"],
        0
    );
    assert_eq!(
        env.data_of(&["history", "search", "quaternion", "--role", "user"])["count"],
        0
    );
    let (code, _) = env.envelope(&["history", "search", "quaternion", "--role", "robot"]);
    assert_eq!(code, 3);

    // Nothing changed: nothing read.
    let r = env.index();
    assert_eq!(
        (r["messagesAdded"].as_u64(), r["filesUnchanged"].as_u64()),
        (Some(0), Some(2))
    );

    // Append: only the new lines are read.
    append(&file, &fixture("claude_append.jsonl"));
    let r = env.index();
    assert_eq!(r["filesResumed"], 1, "{r}");
    assert_eq!(r["messagesAdded"], 2);
    assert_eq!(env.messages(), first + 2);
    assert_eq!(env.hits("zeppelin").len(), 2);
    assert_eq!(env.hits("quaternion").len(), 1, "nothing indexed twice");

    // Truncate to the first two lines: re-read from the start, old rows gone.
    let text = String::from_utf8(fixture("claude_session.jsonl")).unwrap();
    let two: String = text.lines().take(2).map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, two).unwrap();
    let r = env.index();
    assert_eq!(r["filesReread"]["truncated"], 1, "{r}");
    assert!(env.hits("zeppelin").is_empty());
    assert!(env.hits("quaternion").is_empty());
    let claude_now = env.data_of(&["history", "sessions", "--agent", "claude"]);
    assert_eq!(claude_now["sessions"][0]["messageCount"], 3, "{claude_now}"); // thinking + tool call + prompt

    // Re-index after truncation is stable.
    let r = env.index();
    assert_eq!(r["messagesAdded"], 0);

    // sessions / show / sources.
    let s = env.data_of(&["history", "sessions"]);
    assert_eq!(s["count"], 2);
    let show = env.data_of(&[
        "history",
        "show",
        &SESSION[..8],
        "--around",
        "2",
        "--context",
        "1",
    ]);
    assert_eq!(show["session"]["sessionId"], SESSION);
    assert!(
        show["messages"]
            .as_array()
            .unwrap()
            .iter()
            .all(|m| m["lineNumber"].as_u64().unwrap() <= 2)
    );
    let src = env.data_of(&["history", "sources"]);
    let claude = src["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["agent"] == "claude")
        .unwrap();
    assert_eq!(claude["files"], 1);
    assert_eq!(claude["lookedIn"][0]["exists"], true);
}

#[test]
fn bad_input_is_counted_never_fatal() {
    let env = Env::new();
    let file = env.claude_file("-home-u-junk", "11111111-2222-4333-8444-555555555555");
    std::fs::write(&file, fixture("claude_malformed.jsonl")).unwrap();
    // Binary garbage and a huge single line, each between good lines.
    let garbage = env.claude_file("-home-u-junk", "22222222-2222-4333-8444-555555555555");
    let good = String::from_utf8(fixture("claude_append.jsonl")).unwrap();
    let mut bytes = good.lines().next().unwrap().as_bytes().to_vec();
    bytes.extend_from_slice(b"\n\x00\xff\xfe garbage \x1b[0m\x80\n");
    bytes.extend_from_slice(
        format!(
            "{{\"type\":\"user\",\"huge\":\"{}\"}}\n",
            "x".repeat(3 << 20)
        )
        .as_bytes(),
    );
    bytes.extend_from_slice(good.lines().nth(1).unwrap().as_bytes());
    bytes.push(b'\n');
    std::fs::write(&garbage, bytes).unwrap();

    let r = env.index();
    assert!(r["recordsSkipped"].as_u64().unwrap() >= 2, "{r}");
    let skipped = r["skippedFiles"].as_array().unwrap();
    assert!(
        skipped
            .iter()
            .any(|f| f["path"] == file.display().to_string()),
        "{r}"
    );
    assert!(
        skipped
            .iter()
            .any(|f| f["path"] == garbage.display().to_string()),
        "{r}"
    );
    assert_eq!(env.hits("marmalade").len(), 2);
    assert_eq!(
        env.hits("zeppelin").len(),
        2,
        "good lines around garbage survive"
    );
    // The partial last line waits for its newline.
    assert!(env.hits("walrus").is_empty());
    append(&file, &fixture("claude_malformed_tail.txt"));
    let r = env.index();
    assert_eq!(r["messagesAdded"], 1, "{r}");
    assert_eq!(env.hits("walrus").len(), 1);
    let stats = env.data_of(&["history", "stats"]);
    assert!(stats["agents"][0]["skippedRecords"].as_u64().unwrap() >= 2);

    // A file that vanishes is reported, not fatal, and its rows stay.
    std::fs::remove_file(&garbage).unwrap();
    let r = env.index();
    assert_eq!(r["messagesAdded"], 0);
    assert_eq!(env.hits("zeppelin").len(), 2);
}

#[test]
fn missing_session_dirs_and_no_index_are_reported_not_errors() {
    let env = Env::new();
    // No index yet: search says so in `degraded`.
    let d = env.data_of(&["history", "search", "anything"]);
    assert_eq!(d["count"], 0);
    assert_eq!(d["degraded"]["history"]["code"], "NO_INDEX", "{d}");
    // No agent directories at all.
    let r = env.index();
    assert_eq!(r["filesSeen"], 0);
    assert_eq!(r["errors"].as_array().unwrap().len(), 0);
    let src = env.data_of(&["history", "sources"]);
    assert!(
        src["sources"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["files"] == 0)
    );
    let (code, v) = env.envelope(&["history", "index", "--agent", "nosuchagent"]);
    assert_eq!(code, 3, "{v}");
    assert_eq!(v["error"]["code"], "UNKNOWN_AGENT");
    let (code, v) = env.envelope(&["history", "show", "nope"]);
    assert_eq!(code, 3, "{v}");
}

#[test]
fn secrets_never_appear_in_any_output() {
    let env = Env::new();
    let file = env.claude_file("-home-u-proj", SESSION);
    let secrets = [
        "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "AKIAIOSFODNN7ABCDEFG",
        "sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345",
        "Xk9mQ2vL8pW4zR7t",
    ];
    let lines = [
        serde_json::json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/home/u/proj", "sessionId": SESSION, "type": "user", "message": {"role": "user", "content": format!("deploy the ocelot service with token {} please", secrets[0])}, "uuid": "s1", "timestamp": "2026-08-10T12:00:00.000Z"}),
        serde_json::json!({"parentUuid": "s1", "isSidechain": false, "userType": "external", "cwd": "/home/u/proj", "sessionId": SESSION, "type": "assistant", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {"command": format!("AWS_ACCESS_KEY_ID={} ocelot deploy", secrets[1])}}], "stop_reason": "tool_use", "stop_sequence": null, "usage": {"input_tokens": 1, "output_tokens": 1}}, "uuid": "s2", "timestamp": "2026-08-10T12:00:01.000Z"}),
        serde_json::json!({"parentUuid": "s2", "isSidechain": false, "userType": "external", "cwd": "/home/u/proj", "sessionId": SESSION, "type": "user", "message": {"role": "user", "content": [{"tool_use_id": "toolu_1", "type": "tool_result", "content": format!("ocelot config: ANTHROPIC_API_KEY={} db_password = \"{}\"", secrets[2], secrets[3])}]}, "uuid": "s3", "timestamp": "2026-08-10T12:00:02.000Z"}),
    ];
    let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&file, body).unwrap();
    let r = env.index();
    assert!(r["redactions"].as_u64().unwrap() >= 4, "{r}");
    assert!(!env.hits("ocelot").is_empty());
    for s in secrets {
        let d = env.data_of(&["history", "search", s]);
        assert!(!d["hits"].to_string().contains(s), "{d}");
    }
    let out = env.all_output(&["ocelot", "ghp", "deploy", "token", "password"]);
    assert!(out.contains("ocelot"), "the outputs were produced");
    for s in secrets {
        assert!(!out.contains(s), "secret {s} leaked:\n{out}");
    }
    assert!(out.contains("[REDACTED:"));
}

#[test]
fn redaction_off_needs_the_global_config_not_the_repo() {
    let env = Env::new();
    let repo = env.root.join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap();
    std::fs::create_dir_all(repo.join(".cass")).unwrap();
    std::fs::write(
        repo.join(".cass/config.json"),
        r#"{"history":{"redact":false}}"#,
    )
    .unwrap();
    let file = env.claude_file("-home-u-proj", SESSION);
    let secret = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";
    std::fs::write(&file, format!("{}\n", serde_json::json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/home/u/proj", "sessionId": SESSION, "type": "user", "message": {"role": "user", "content": format!("the pelican token {secret}")}, "uuid": "s1", "timestamp": "2026-08-10T12:00:00.000Z"}))).unwrap();
    let out = env
        .command(CM)
        .args(["history", "index", "--json"])
        .current_dir(&repo)
        .output()
        .unwrap();
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["data"]["redaction"], "on", "{v}");
    assert!(!env.all_output(&["pelican"]).contains(secret));
}

#[test]
fn post_session_hook_returns_at_once_and_indexes_in_the_background() {
    let env = Env::new();
    let file = env.claude_file("-home-u-proj", SESSION);
    std::fs::write(&file, fixture("claude_session.jsonl")).unwrap();
    std::fs::create_dir_all(&env.data).unwrap();
    let payload = serde_json::json!({"session_id": SESSION, "transcript_path": file, "cwd": "/home/u/proj", "hook_event_name": "SessionEnd", "reason": "exit"});
    let mut child = env
        .command(CM)
        .args(["hook", "postsession"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(payload.to_string().as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stdout.is_empty(), "silent on stdout");
    // Generous: on a loaded CI machine the detached job competes with every other test.
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let d = env.data_of(&["history", "search", "quaternion"]);
        if d["count"] == 1 {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the detached indexer never indexed the file: {d}; its log: {}",
            std::fs::read_to_string(env.data.join("logs/postsession.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    // Bad payloads are ignored, exit 0.
    for bad in [
        "",
        "not json",
        r#"{"transcript_path":"/nonexistent/x.jsonl"}"#,
    ] {
        let mut c = env
            .command(CM)
            .args(["hook", "postsession"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        c.stdin.take().unwrap().write_all(bad.as_bytes()).unwrap();
        let o = c.wait_with_output().unwrap();
        assert_eq!(o.status.code(), Some(0));
        assert!(o.stdout.is_empty());
    }
}

#[test]
fn remote_hosts_are_searched_over_ssh_and_failures_degrade() {
    let env = Env::new();
    // The "remote" machine: its own data dir, indexed from its own home.
    let remote_home = env.root.join("remote-home");
    let remote_data = env.root.join("remote-data");
    let rfile = remote_home
        .join(".claude/projects/-srv-app")
        .join(format!("{SESSION}.jsonl"));
    std::fs::create_dir_all(rfile.parent().unwrap()).unwrap();
    std::fs::write(&rfile, fixture("claude_session.jsonl")).unwrap();
    let st = env
        .command(CM)
        .args(["history", "index", "--quiet"])
        .env("HOME", &remote_home)
        .env("CASS_MEMORY_HOME", &remote_data)
        .stdout(Stdio::null())
        .status()
        .unwrap();
    assert!(st.success());
    // A fake ssh first on PATH: drops the options, runs the remote command line in a shell with
    // the remote data dir; host "down" fails the way ssh does.
    let bin = env.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(CM, bin.join("cm")).unwrap();
    let script = format!(
        "#!/bin/sh\nwhile [ $# -gt 0 ]; do case \"$1\" in -o) shift 2;; --) shift; break;; -*) shift;; *) break;; esac; done\n\
         host=$1; shift\n\
         if [ \"$host\" = down ]; then echo \"ssh: connect to host down port 22: Connection refused\" >&2; exit 255; fi\n\
         if [ \"$host\" = slow ]; then sleep 30; fi\n\
         echo \"$host $*\" >> {log}\n\
         HOME={rh} CASS_MEMORY_HOME={rd} exec sh -c \"$*\"\n",
        log = env.root.join("ssh.log").display(),
        rh = remote_home.display(),
        rd = remote_data.display()
    );
    let ssh = bin.join("ssh");
    std::fs::write(&ssh, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&ssh, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::create_dir_all(&env.data).unwrap();
    std::fs::write(
        env.data.join("config.json"),
        r#"{"remoteCass":{"enabled":true,"timeoutSeconds":2,"hosts":[{"host":"box1","label":"work"},{"host":"down"},{"host":"slow"}]}}"#,
    )
    .unwrap();
    // Local index holds a different session.
    let local = env.claude_file("-home-u-proj", "99999999-2222-4333-8444-555555555555");
    std::fs::write(&local, fixture("claude_append.jsonl")).unwrap();
    let path = std::env::var("PATH").unwrap_or_default();
    let env = env.with_env("PATH", format!("{}:{path}", bin.display()));
    env.index();
    let started = Instant::now();
    let d = env.data_of(&["history", "search", "quaternion zeppelin"]);
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "the slow host was not cut off"
    );
    let hits = d["hits"].as_array().unwrap();
    let remote: Vec<_> = hits
        .iter()
        .filter(|h| h["origin"]["kind"] == "remote")
        .collect();
    let local: Vec<_> = hits
        .iter()
        .filter(|h| h["origin"]["kind"] == "local")
        .collect();
    assert_eq!(remote.len(), 1, "{d}");
    assert_eq!(remote[0]["origin"]["host"], "work");
    assert_eq!(remote[0]["source_path"], rfile.display().to_string());
    assert!(!local.is_empty(), "{d}");
    // One `remote` entry (the shape `cm context` uses too) naming every host and its reason.
    let remote_issue = &d["degraded"]["remote"];
    assert_eq!(remote_issue["code"], "REMOTE_UNREACHABLE", "{d}");
    let message = remote_issue["message"].as_str().unwrap();
    assert!(
        message.contains("down: ") && message.contains("slow: "),
        "{d}"
    );
    assert!(message.contains("Connection refused"), "{d}");
    let log = std::fs::read_to_string(env.root.join("ssh.log")).unwrap();
    assert!(log.contains("--no-remote"), "{log}");
    // --no-remote stays local.
    let d = env.data_of(&["history", "search", "quaternion zeppelin", "--no-remote"]);
    assert!(
        d["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["origin"]["kind"] == "local")
    );
    assert!(d["degraded"].is_null());
}

#[test]
fn kill_9_mid_index_resumes_to_the_same_index_as_a_clean_run() {
    let env = Env::new();
    let generator = repo_path("bench/gen_corpus.py");
    let st = env
        .command("python3")
        .arg(&generator)
        .arg(&env.home)
        .args(["--records", "60000", "--sessions", "120", "--seed", "3"])
        .stdout(Stdio::null())
        .status();
    let Ok(st) = st else {
        eprintln!("python3 not available; skipping");
        return;
    };
    assert!(st.success());
    // Clean run in its own data dir.
    let clean_data = env.root.join("clean");
    let clean = |args: &[&str]| -> Value {
        let out = env
            .command(CM)
            .args(args)
            .env("CASS_MEMORY_HOME", &clean_data)
            .arg("--json")
            .output()
            .unwrap();
        serde_json::from_slice::<Value>(&out.stdout).unwrap()["data"].clone()
    };
    clean(&["history", "index"]);
    let want = clean(&["history", "stats"]);
    // Interrupted runs: kill -9 after a while, several times, then finish.
    let db = env.data.join("cm.db");
    for delay in [300u64, 700, 1200] {
        let mut child = env
            .command(CM)
            .args(["history", "index", "--quiet"])
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(delay));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
        assert!(!db.exists() || std::fs::metadata(&db).unwrap().len() > 0);
    }
    let partial = env.data_of(&["history", "stats"])["messages"]
        .as_u64()
        .unwrap();
    let r = env.index();
    assert!(r["errors"].as_array().unwrap().is_empty(), "{r}");
    let got = env.data_of(&["history", "stats"]);
    assert_eq!(got["messages"], want["messages"], "partial was {partial}");
    assert_eq!(got["sessions"], want["sessions"]);
    assert_eq!(got["files"], want["files"]);
    // Same search results, same order.
    for q in [
        "borrow checker error",
        "migration timeout",
        "kubernetes ingress",
    ] {
        let a = env.data_of(&["history", "search", q]);
        let b = clean(&["history", "search", q]);
        let key = |d: &Value| -> Vec<(String, u64)> {
            d["hits"]
                .as_array()
                .unwrap()
                .iter()
                .map(|h| {
                    (
                        h["session_id"].as_str().unwrap().to_string(),
                        h["line_number"].as_u64().unwrap(),
                    )
                })
                .collect()
        };
        assert_eq!(key(&a), key(&b), "{q}");
    }
    // And nothing was indexed twice.
    let again = env.index();
    assert_eq!(again["messagesAdded"], 0);
}

#[test]
fn document_sources_are_replaced_when_they_change() {
    let env = Env::new();
    let dir = env
        .home
        .join(".gemini/tmp/5d41402abc4b2a76b9719d911017c592d4b6f1a0c3e5b7d9f1a3c5e7b9d1f3a5/chats");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("session-2026-08-12T10-00-6e1f2a3b.json");
    let mut doc = serde_json::json!({
        "sessionId": "6e1f2a3b-4c5d-4e6f-8a9b-0c1d2e3f4a5b",
        "projectHash": "5d41402abc4b2a76b9719d911017c592d4b6f1a0c3e5b7d9f1a3c5e7b9d1f3a5",
        "startTime": "2026-08-12T10:00:00.000Z",
        "lastUpdated": "2026-08-12T10:02:30.000Z",
        "messages": [
            {"id": "m1", "timestamp": "2026-08-12T10:00:00.000Z", "type": "user", "content": "Why does the pangolin suite hang on CI?"},
            {"id": "m2", "timestamp": "2026-08-12T10:00:05.000Z", "type": "gemini", "content": "The pangolin watcher never exits."}
        ]
    });
    std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let r = env.index();
    assert_eq!(r["byAgent"]["gemini"], 2, "{r}");
    assert_eq!(env.hits("pangolin").len(), 2);
    // The agent rewrites the whole file with one more message.
    doc["messages"].as_array_mut().unwrap().push(serde_json::json!(
        {"id": "m3", "timestamp": "2026-08-12T10:01:00.000Z", "type": "user", "content": "Then disable the pangolin watcher"}
    ));
    std::thread::sleep(Duration::from_millis(20));
    std::fs::write(&file, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let r = env.index();
    assert_eq!(r["filesReread"]["changed"], 1, "{r}");
    assert_eq!(r["messagesAdded"], 3);
    assert_eq!(
        env.hits("pangolin").len(),
        3,
        "no duplicates after a re-read"
    );
    assert_eq!(env.messages(), 3);
}

#[test]
fn unreadable_session_dirs_are_reported_and_the_rest_is_indexed() {
    let env = Env::new();
    // A path where a directory is expected cannot be read (works even as root, unlike chmod).
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    std::fs::write(env.home.join(".claude/projects"), "not a directory").unwrap();
    let rollout_dir = env.home.join(".codex/sessions/2026/08/10");
    std::fs::create_dir_all(&rollout_dir).unwrap();
    std::fs::write(
        rollout_dir.join("rollout-2026-08-10T20-05-50-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"),
        fixture("codex_rollout.jsonl"),
    )
    .unwrap();
    let r = env.index();
    assert!(r["byAgent"]["codex"].as_u64().unwrap() > 0, "{r}");
    let claude = r["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["agent"] == "claude")
        .unwrap();
    assert_eq!(claude["errors"].as_array().unwrap().len(), 1, "{r}");
    let out = env.command(CM).args(["history", "index"]).output().unwrap();
    assert!(out.status.success());
    let src = env.data_of(&["history", "sources"]);
    let claude = src["sources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["agent"] == "claude")
        .unwrap();
    assert!(
        claude["errors"][0]["path"]
            .as_str()
            .unwrap()
            .ends_with(".claude/projects")
    );
}

/// One Claude Code transcript line.
fn claude_line(session: &str, n: usize, role: &str, text: &str) -> String {
    let message = if role == "user" {
        serde_json::json!({"role": "user", "content": text})
    } else {
        serde_json::json!({"role": "assistant", "content": [{"type": "text", "text": text}]})
    };
    serde_json::json!({"type": role, "uuid": format!("{session}-{n}"), "sessionId": session,
        "cwd": "/home/u/app", "timestamp": format!("2026-11-{:02}T10:{:02}:00Z", 1 + n % 28, n % 60),
        "message": message})
    .to_string()
        + "\n"
}

/// Filler text: a few words of a small vocabulary, "build" in every other message (common once
/// there are thousands), and `marker` in the session's first message.
fn session_text(session: usize, n: usize) -> String {
    const WORDS: &[&str] = &["cache", "parser", "socket", "schema", "render", "queue"];
    let mut words: Vec<&str> = (0..4)
        .map(|k| WORDS[(session * 7 + n * 3 + k) % WORDS.len()])
        .collect();
    if n.is_multiple_of(2) {
        words.push("build");
    }
    words.join(" ")
}

impl Env {
    /// Write session `s` of `messages` messages and index it the way the post-session job does.
    fn add_session(&self, s: usize, messages: usize) {
        let id = format!("sess-{s:04}");
        let path = self.claude_file("-home-u-app", &id);
        let mut text = String::new();
        for n in 0..messages {
            let role = if n.is_multiple_of(2) {
                "user"
            } else {
                "assistant"
            };
            let body = if n == 0 {
                format!("session marker zq{s:04}x {}", session_text(s, n))
            } else {
                session_text(s, n)
            };
            text.push_str(&claude_line(&id, n, role, &body));
        }
        std::fs::write(&path, text).unwrap();
        self.data_of(&["history", "index", "--file", path.to_str().unwrap()]);
    }

    /// Put planner statistics back to what they were when the index held one message.
    fn make_statistics_stale(&self) {
        let conn = rusqlite::Connection::open(self.data.join("cm.db")).unwrap();
        conn.execute_batch(
            "DELETE FROM sqlite_stat1;
             INSERT INTO sqlite_stat1 (tbl, idx, stat) VALUES
               ('episodic_messages', 'episodic_messages_file_line', '1 1 1'),
               ('episodic_files', 'sqlite_autoindex_episodic_files_1', '1 1'),
               ('episodic_sessions', 'sqlite_autoindex_episodic_sessions_1', '1 1 1'),
               ('episodic_sessions', 'episodic_sessions_ended', '1 1'),
               ('episodic_sessions', 'episodic_sessions_file', '1 1');",
        )
        .unwrap();
    }

    /// Search with its plans shown; check every plan starts from the full-text table and reads
    /// messages only by primary key. Returns the data object.
    fn search_checked(&self, args: &[&str]) -> Value {
        let mut all = vec!["history", "search"];
        all.extend_from_slice(args);
        all.push("--explain");
        let d = self.data_of(&all);
        let plans = d["plans"].as_array().unwrap();
        assert!(!plans.is_empty() || d["count"] == 0, "{d}");
        for p in plans {
            let lines: Vec<&str> = p["plan"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| l.as_str().unwrap().trim())
                .collect();
            let first = lines
                .iter()
                .find(|l| l.starts_with("SCAN") || l.starts_with("SEARCH"))
                .unwrap();
            assert!(
                first.starts_with("SCAN episodic_fts VIRTUAL TABLE"),
                "{args:?}: {p}"
            );
            for l in &lines {
                assert!(
                    !l.starts_with("SCAN m") && !l.starts_with("SCAN episodic_messages"),
                    "{args:?}: {p}"
                );
            }
        }
        d
    }
}

#[test]
fn search_answers_and_plans_hold_as_the_index_grows() {
    let env = Env::new();
    // Step 1: one message, analysed as the first index of a store used to be.
    let first = env.claude_file("-home-u-app", "first");
    std::fs::write(
        &first,
        claude_line("first", 0, "user", "the oauth token refresh timeout in CI"),
    )
    .unwrap();
    env.index();
    rusqlite::Connection::open(env.data.join("cm.db"))
        .unwrap()
        .execute_batch("ANALYZE")
        .unwrap();
    let d = env.search_checked(&["oauth token refresh timeout"]);
    assert_eq!(d["count"], 1);
    assert_eq!(d["ranking"]["strategy"], "exact");

    // Step 2: ten sessions, one at a time.
    for s in 0..10 {
        env.add_session(s, 50);
    }
    for stale in [false, true] {
        if stale {
            env.make_statistics_stale();
        }
        let d = env.search_checked(&["zq0007x"]);
        assert_eq!(d["count"], 1, "{d}");
        assert_eq!(d["hits"][0]["session_id"], "sess-0007");
        let d = env.search_checked(&["oauth timeout", "--agent", "claude", "--days", "10000"]);
        assert_eq!(d["hits"][0]["session_id"], "first", "{d}");
    }

    // Step 3: thousands of messages; "build" is now common (in more messages than a probe
    // reads), so the bounded path runs.
    for s in 10..60 {
        env.add_session(s, 100);
    }
    assert!(env.messages() > 5_000);
    for stale in [false, true] {
        if stale {
            env.make_statistics_stale();
        }
        // A rare term with common ones: the rare term's message first, scored on every term.
        let d = env.search_checked(&["zq0042x build cache"]);
        assert_eq!(d["ranking"]["strategy"], "bounded", "{d}");
        assert_eq!(d["hits"][0]["session_id"], "sess-0042", "{d}");
        assert_eq!(d["count"], 10, "common terms fill the rest: {d}");
        // Only common terms: ranked answers holding the terms, not merely the newest messages.
        let d = env.search_checked(&["build cache parser"]);
        assert_eq!(d["count"], 10);
        for h in d["hits"].as_array().unwrap() {
            let s = h["snippet"].as_str().unwrap();
            let held = ["**build", "**cache", "**parser"]
                .iter()
                .filter(|t| s.contains(*t))
                .count();
            assert!(held >= 2, "{h}");
        }
        // The bounded answer's best hit is the exhaustive ranking's best too.
        let exhaustive = env.search_checked(&["zq0042x build cache", "--exhaustive"]);
        assert_eq!(exhaustive["ranking"]["strategy"], "exhaustive");
        assert_eq!(exhaustive["hits"][0]["session_id"], "sess-0042");
        // Nothing matches: no hits, no error.
        let d = env.search_checked(&["nosuchwordanywhere"]);
        assert_eq!(d["count"], 0);
    }
}

/// Messages that said the opposite of what happened: "No sessions indexed" on a full index,
/// one hit for `--limit 0`, exit 0 for an agent cm does not know.
#[test]
fn history_answers_say_what_happened() {
    let env = Env::new();
    std::fs::write(
        env.claude_file("-home-u-proj", SESSION),
        fixture("claude_session.jsonl"),
    )
    .unwrap();
    env.index();
    let d = env.data_of(&["history", "search", "zeppelin", "--limit", "0"]);
    assert_eq!(d["count"], 0, "{d}");
    assert!(d["hits"].as_array().unwrap().is_empty());
    assert!(d["degraded"].is_null(), "{d}");
    let unknown: [&[&str]; 2] = [
        &["history", "search", "zeppelin", "--agent", "nosuch"],
        &["history", "sessions", "--agent", "nosuch", "--limit", "5"],
    ];
    for cmd in unknown {
        let (code, v) = env.envelope(cmd);
        assert_eq!(code, 3, "{cmd:?}: {v}");
        assert_eq!(v["error"]["code"], "UNKNOWN_AGENT");
    }
    let out = env
        .command(CM)
        .args(["history", "sessions", "--agent", "codex"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("No sessions match these filters; 1 session(s) are indexed."),
        "{text}"
    );
    let out = env
        .command(CM)
        .args(["history", "sessions"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains(&SESSION[..8]));
}
