//! What `cm hooks install` writes for each agent, checked against the agents' own rules, and how
//! the hooks behave under each: Gemini's exact-string lifecycle matchers and `GEMINI_CLI_HOME`,
//! Codex's session end and hook trust, Claude Code's `onFailure`, the per-turn indexer, and
//! stderr held back under Gemini.

use crate::harness::{Env, Out};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// Every (matcher, handler) under `event`.
fn handlers(v: &Value, event: &str) -> Vec<(Option<String>, Value)> {
    v["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| {
            let m = g["matcher"].as_str().map(str::to_string);
            g["hooks"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .into_iter()
                .map(move |h| (m.clone(), h))
        })
        .collect()
}

fn install(env: &Env, agent: &str) -> Value {
    env.cm(&["hooks", "install", "--agent", agent])
        .json()
        .run()
        .ok()
        .data()
}

#[test]
fn gemini_hooks_fire_for_every_session_source_and_live_in_gemini_cli_home() {
    let env = Env::new();
    let gemini_home = env.root.join("gemini-home");
    let env = env.with_env("GEMINI_CLI_HOME", &gemini_home);
    let d = install(&env, "gemini");
    let settings = gemini_home.join(".gemini/settings.json");
    assert_eq!(d["targets"][0]["path"], json!(settings), "{d}");
    assert!(!env.home.join(".gemini/settings.json").exists());
    let v = read_json(&settings);
    // Gemini compares lifecycle matchers as exact strings: any matcher but the one source would
    // never fire, so there is none.
    let start = handlers(&v, "SessionStart");
    assert_eq!(start.len(), 1, "{v}");
    assert_eq!(start[0].0, None, "{v}");
    let tool = handlers(&v, "BeforeTool");
    assert_eq!(
        tool[0].0.as_deref(),
        Some("^(run_shell_command|write_file|replace|mcp_.*)$")
    );
    for event in [
        "SessionStart",
        "BeforeAgent",
        "BeforeTool",
        "AfterAgent",
        "SessionEnd",
    ] {
        let h = handlers(&v, event);
        assert_eq!(h.len(), 1, "{event}: {v}");
        assert!(
            h[0].1["command"]
                .as_str()
                .unwrap()
                .ends_with(" --agent=gemini"),
            "{event}: {v}"
        );
    }
    // Status and uninstall find the same file.
    let st = env
        .cm(&["hooks", "status", "--agent", "gemini", "--user"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(st["targets"][0]["handlers"].as_array().unwrap().len(), 5);
    env.cm(&["hooks", "uninstall", "--agent", "gemini"])
        .run()
        .ok();
    assert!(!settings.exists(), "the file cm created is gone again");
}

#[test]
fn claude_and_codex_start_hooks_match_forked_sessions() {
    let env = Env::new();
    for dir in [".claude", ".codex"] {
        std::fs::create_dir_all(env.home.join(dir)).unwrap();
    }
    install(&env, "all");
    for file in [".claude/settings.json", ".codex/hooks.json"] {
        let v = read_json(&env.home.join(file));
        let m = handlers(&v, "SessionStart")[0].0.clone().unwrap();
        assert!(m.split('|').any(|s| s == "fork"), "{file}: {m}");
        let pre = handlers(&v, "PreToolUse")[0].0.clone().unwrap();
        assert!(pre.starts_with("^(") && pre.ends_with(")$"), "{pre}");
        assert!(pre.contains("mcp__.*"), "{pre}");
    }
    let codex = read_json(&env.home.join(".codex/hooks.json"));
    let pre = handlers(&codex, "PreToolUse")[0].0.clone().unwrap();
    for tool in ["exec_command", "apply_patch", "Bash"] {
        assert!(pre.contains(tool), "{pre}");
    }
}

/// Codex's hash of a handler, as its own start-up dialog stores it when the user trusts it.
fn codex_hash(event: &str, matcher: Option<&str>, command: &str, timeout: u64) -> String {
    let mut s = format!(
        r#"{{"event_name":{},"hooks":[{{"async":false,"command":{},"timeout":{timeout},"type":"command"}}]"#,
        json!(event),
        json!(command)
    );
    if let Some(m) = matcher {
        s.push_str(&format!(r#","matcher":{}"#, json!(m)));
    }
    s.push('}');
    let hex: String = Sha256::digest(s.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    format!("sha256:{hex}")
}

fn trust_of(data: &Value) -> Vec<(String, String)> {
    data["trust"]
        .as_array()
        .unwrap_or_else(|| panic!("no trust report: {data}"))
        .iter()
        .map(|t| {
            (
                t["event"].as_str().unwrap().to_string(),
                t["trust"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn codex_post_session_moves_to_session_end_and_hook_trust_is_reported() {
    let env = Env::new();
    let codex = env.home.join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let hooks = codex.join("hooks.json");
    // What an older cm installed: the post-session job on Codex's per-turn Stop.
    std::fs::write(
        &hooks,
        json!({"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "/opt/cm/cm-postsession", "timeout": 10}]}]}}).to_string(),
    )
    .unwrap();
    let out = env
        .cm(&["hooks", "install", "--agent", "codex"])
        .json()
        .run()
        .ok();
    let d = out.data();
    let target = &d["targets"][0];
    let post = target["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["hook"] == "postsession")
        .unwrap();
    assert_eq!(post["action"], "moved", "{d}");
    assert_eq!(post["event"], "SessionEnd");
    assert!(
        post["previous"]
            .as_str()
            .unwrap()
            .contains("Stop: /opt/cm/cm-postsession"),
        "{post}"
    );
    let v = read_json(&hooks);
    let end = handlers(&v, "SessionEnd");
    assert_eq!(end.len(), 1);
    assert_eq!(end[0].1["timeout"], 3);
    let stop = handlers(&v, "Stop");
    assert_eq!(stop.len(), 1, "{v}");
    assert!(
        stop[0].1["command"]
            .as_str()
            .unwrap()
            .ends_with("hook stop")
    );
    // Nothing is trusted yet: Codex would run none of it, and the user is told.
    let trust = trust_of(target);
    assert_eq!(trust.len(), 5, "{trust:?}");
    assert!(trust.iter().all(|(_, t)| t == "needs-review"), "{trust:?}");
    let human = env
        .cm(&["hooks", "status", "--agent", "codex"])
        .run()
        .ok()
        .stdout;
    assert!(human.contains("needs review in Codex"), "{human}");
    assert!(human.contains("Trust all and continue"), "{human}");

    // The user trusts the guard, trusted an older session-end command, and turned off the
    // per-turn hook.
    let key = |event: &str| format!("{}:{event}:0:0", hooks.display());
    let (pm, pre) = handlers(&v, "PreToolUse").remove(0);
    let pre_hash = codex_hash(
        "pre_tool_use",
        pm.as_deref(),
        pre["command"].as_str().unwrap(),
        5,
    );
    let config = format!(
        "model = \"gpt-5\"\n\n[hooks.state]\n\n[hooks.state.{}]\ntrusted_hash = \"{pre_hash}\"\n\n[hooks.state.{}]\ntrusted_hash = \"{}\"\n\n[hooks.state.{}]\nenabled = false\n",
        json!(key("pre_tool_use")),
        json!(key("session_end")),
        codex_hash("session_end", None, "/opt/cm/cm-postsession", 3),
        json!(key("stop")),
    );
    std::fs::write(codex.join("config.toml"), config).unwrap();
    let st = env
        .cm(&["hooks", "status", "--agent", "codex", "--user"])
        .json()
        .run()
        .ok()
        .data();
    let trust = trust_of(&st["targets"][0]);
    let of = |event: &str| {
        trust
            .iter()
            .find(|(e, _)| e == event)
            .map(|(_, t)| t.as_str())
            .unwrap()
    };
    assert_eq!(of("PreToolUse"), "approved", "{trust:?}");
    assert_eq!(of("SessionEnd"), "changed", "{trust:?}");
    assert_eq!(of("Stop"), "disabled", "{trust:?}");
    assert_eq!(of("UserPromptSubmit"), "needs-review", "{trust:?}");

    // cm doctor says so too.
    let doctor = env.cm(&["doctor"]).json().run();
    let checks = doctor.json()["data"]["checks"].clone();
    let hooks_check = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "hooks")
        .unwrap_or_else(|| panic!("{checks}"));
    assert_eq!(hooks_check["status"], "warn", "{hooks_check}");
    let msg = hooks_check["message"].as_str().unwrap();
    assert!(
        msg.contains("Codex") && msg.contains("SessionEnd (changed)"),
        "{msg}"
    );
}

fn fake_claude(env: &Env, version: &str) -> PathBuf {
    let bin = env.root.join(format!("claude-{version}"));
    std::fs::create_dir_all(&bin).unwrap();
    let script = bin.join("claude");
    std::fs::write(
        &script,
        format!("#!/bin/sh\necho '{version} (Claude Code)'\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

#[test]
fn claude_guard_blocks_when_it_fails_where_claude_code_supports_it() {
    let env = Env::new();
    let old = fake_claude(&env, "2.1.197");
    let new = fake_claude(&env, "2.1.332");
    let path = |bin: &Path| format!("{}:/usr/bin:/bin", bin.display());
    let settings = env.home.join(".claude/settings.json");
    env.cm(&["hooks", "install"])
        .env("PATH", path(&old))
        .run()
        .ok();
    let pre = handlers(&read_json(&settings), "PreToolUse").remove(0).1;
    assert_eq!(pre.get("onFailure"), None, "{pre}");
    // After upgrading Claude Code, a reinstall adds it.
    let d = env
        .cm(&["hooks", "install"])
        .env("PATH", path(&new))
        .json()
        .run()
        .ok()
        .data();
    let change = d["targets"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["hook"] == "pretool")
        .unwrap()
        .clone();
    assert_eq!(change["action"], "updated", "{change}");
    let pre = handlers(&read_json(&settings), "PreToolUse").remove(0).1;
    assert_eq!(pre["onFailure"], "block", "{pre}");
    // Only the guard blocks on failure: a failed context hook must not stop the session.
    let start = handlers(&read_json(&settings), "SessionStart").remove(0).1;
    assert_eq!(start.get("onFailure"), None);
}

fn search_hits(env: &Env, word: &str) -> usize {
    let d = env.cm(&["history", "search", word]).json().run().data();
    d["hits"].as_array().map(Vec::len).unwrap_or(0)
}

#[test]
fn the_stop_hook_indexes_the_transcript_at_the_end_of_each_turn() {
    let env = Env::new();
    env.cm(&["init"]).run().ok();
    let dir = env.home.join(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&dir).unwrap();
    let transcript = dir.join("3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f.jsonl");
    let line = json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/home/u/app", "sessionId": "3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f", "version": "2.1.197", "gitBranch": "main", "type": "user", "message": {"role": "user", "content": "rename the quarkstrudel module"}, "uuid": "a1f4c0de-1111-4222-8333-444455556666", "timestamp": "2026-08-10T12:00:00.000Z"});
    std::fs::write(&transcript, format!("{line}\n")).unwrap();
    assert_eq!(search_hits(&env, "quarkstrudel"), 0);
    let payload = json!({"session_id": "3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f", "transcript_path": transcript, "cwd": "/home/u/app", "hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "Renamed."});
    let out = env.hook("stop", payload.to_string()).run().ok();
    // An empty answer: the agent stops as it would without the hook.
    assert_eq!(out.stdout, "");
    let deadline = Instant::now() + Duration::from_secs(60);
    while search_hits(&env, "quarkstrudel") == 0 {
        assert!(
            Instant::now() < deadline,
            "the turn was never indexed; logs: {:?}",
            std::fs::read_to_string(env.data.join("logs/stop.log"))
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// A Gemini BeforeTool call of the shell tool whose command cannot be read: the guard allows it
/// and says why on stderr.
fn gemini_shell_without_command(cwd: &Path) -> String {
    json!({"session_id": "g1", "transcript_path": "/tmp/none.json", "cwd": cwd, "hook_event_name": "BeforeTool", "timestamp": "2026-08-10T12:00:00.000Z", "tool_name": "run_shell_command", "tool_input": {}}).to_string()
}

fn guard_with(env: &Env, args: &[&str], payload: &str) -> Out {
    env.run_program(env.link("cm-pretool"), args)
        .stdin(payload.as_bytes().to_vec())
        .run()
}

#[test]
fn under_gemini_stderr_goes_to_the_log_on_success_and_to_gemini_on_a_block() {
    let env = Env::new();
    std::fs::create_dir_all(&env.data).unwrap();
    let payload = gemini_shell_without_command(&env.cwd);
    // Without the argument the note is on stderr, which Gemini would show the user.
    let plain = guard_with(&env, &[], &payload).ok();
    assert!(plain.stderr.contains("allowing"), "{plain:?}");
    // As installed for Gemini: nothing on stderr, the note in the hook log.
    let held = guard_with(&env, &["--agent=gemini"], &payload).ok();
    assert_eq!(held.stderr, "", "{held:?}");
    assert_eq!(held.stdout, "");
    let log = std::fs::read_to_string(env.data.join("logs/hooks.log")).unwrap();
    assert!(
        log.contains("cm hook pretool (gemini)") && log.contains("allowing"),
        "{log}"
    );
    // CM_HOOK_LOG moves the log.
    let elsewhere = env.root.join("hook.log");
    env.run_program(env.link("cm-pretool"), &["--agent=gemini"])
        .env("CM_HOOK_LOG", &elsewhere)
        .stdin(payload.as_bytes().to_vec())
        .run()
        .ok();
    assert!(
        std::fs::read_to_string(&elsewhere)
            .unwrap()
            .contains("allowing")
    );
    // A block (exit 2) keeps its reason on stderr: Gemini shows it to the model.
    env.write_config(&json!({"guard": {"failClosed": true}}));
    let blocked = guard_with(&env, &["--agent=gemini"], &payload).code(2);
    assert!(blocked.stderr.contains("blocked"), "{blocked:?}");
}
