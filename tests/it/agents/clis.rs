//! The agents' real CLIs with cm's hooks, end to end: Claude Code 2.1.197 and 2.1.332, Gemini CLI
//! 0.61.0 and Codex 0.171.0, installed from the npm registry by `tests/agents/install-clis.sh`
//! into `target/agent-clis/` (`.ci/run` runs it), each run headless (`claude -p`, `gemini -p`,
//! `codex exec`) in a fresh HOME holding exactly what `cm hooks install` wrote, against
//! `tests/agents/fake_model.py` on 127.0.0.1, which answers with a scripted tool call and logs
//! every request. From the agent's own output, the model's requests and the files on disk, each
//! test shows: the guard blocked `rm -rf ~/important` and it survived, a write to a protected
//! path was blocked, a benign command ran, cm's context reached the model, and the post-session
//! job indexed the session.
//!
//! A CLI that is not installed makes its test say so on stderr and return ("SKIPPED ..."); with
//! `CM_REQUIRE_AGENT_CLIS=1` (set by `.ci/run` once the install succeeded) it fails instead, so a
//! broken install can never pass as a green run.

use crate::harness::{Env, repo_path};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long one headless agent run may take (Gemini CLI starts slowly on a loaded machine).
const RUN_SECS: u64 = 240;

/// The installed CLI `dir` (e.g. `claude-2.1.197`) with its program `bin`, or `None` after saying
/// why the test is skipped.
fn cli(dir: &str, bin: &str) -> Option<PathBuf> {
    let root = std::env::var_os("CM_AGENT_CLIS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_path("target/agent-clis"));
    let path = root.join(dir).join("node_modules/.bin").join(bin);
    if path.exists() {
        return Some(path);
    }
    let why = format!(
        "{} is not installed (run tests/agents/install-clis.sh; it installs into {})",
        path.display(),
        root.display()
    );
    if std::env::var_os("CM_REQUIRE_AGENT_CLIS").is_some_and(|v| v == "1") {
        panic!("CM_REQUIRE_AGENT_CLIS=1 but {why}");
    }
    eprintln!("SKIPPED: {why}");
    None
}

/// `tests/agents/fake_model.py`, serving one scenario; killed when dropped.
struct FakeModel {
    child: Child,
    port: u16,
    log: PathBuf,
}

impl FakeModel {
    fn start(env: &Env, scenario: &Value) -> FakeModel {
        let dir = env.root.join("fake-model");
        std::fs::create_dir_all(&dir).unwrap();
        let scenario_file = dir.join("scenario.json");
        std::fs::write(&scenario_file, scenario.to_string()).unwrap();
        let log = dir.join("requests.jsonl");
        let _ = std::fs::remove_file(&log);
        let port_file = dir.join("port");
        let _ = std::fs::remove_file(&port_file);
        let child = Command::new("python3")
            .arg(repo_path("tests/agents/fake_model.py"))
            .args([&scenario_file, &log, &port_file])
            .args(["--lifetime", "900"])
            .stdin(Stdio::null())
            .spawn()
            .expect("python3 runs the fake model server");
        let deadline = Instant::now() + Duration::from_secs(30);
        let port = loop {
            if let Some(p) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|s| s.trim().parse().ok())
            {
                break p;
            }
            assert!(
                Instant::now() < deadline,
                "the fake model server never listened"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        FakeModel { child, port, log }
    }

    fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request the CLI sent, as `{path, body}`.
    fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.log)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect()
    }

    /// Whether any request to the model (its whole body) contains `needle`.
    fn sent(&self, needle: &str) -> bool {
        self.requests()
            .iter()
            .any(|r| r["body"].to_string().contains(needle))
    }
}

impl Drop for FakeModel {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one headless run printed.
struct Ran {
    code: Option<i32>,
    stdout: String,
    stderr: String,
}

impl std::fmt::Debug for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
            self.code, self.stdout, self.stderr
        )
    }
}

fn run(mut cmd: Command) -> Ran {
    cmd.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let child = cmd.spawn().expect("the agent CLI starts");
    let pid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    let out = match rx.recv_timeout(Duration::from_secs(RUN_SECS)) {
        Ok(out) => out.expect("the agent CLI ran"),
        Err(_) => {
            // SAFETY: kill(2) on the child this test started.
            unsafe {
                libc::kill(pid as i32, libc::SIGKILL);
            }
            panic!("the agent CLI did not finish within {RUN_SECS} s");
        }
    };
    Ran {
        code: out.status.code(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// A world for one agent: cm's data dir with a rule whose words the model should be shown, a
/// repository to work in, `~/important` to protect, and `guard.protectedPaths`.
fn world() -> Env {
    let env = Env::builder().workdir("proj").build();
    env.cm(&["init"]).run().ok();
    env.cm(&[
        "playbook",
        "add",
        "Before cleaning build output run the zorblax check",
    ])
    .run()
    .ok();
    env.write_config(&json!({"guard": {"protectedPaths": ["**/protected/**"]}}));
    std::fs::create_dir_all(env.home.join("important")).unwrap();
    std::fs::write(env.home.join("important/keep.txt"), "keep").unwrap();
    std::fs::create_dir_all(env.cwd.join("protected")).unwrap();
    env.shell("git init -q . && git config user.email t@e && git config user.name t")
        .run()
        .ok();
    env
}

/// `cm hooks install --agent AGENT` with `path_dirs` first on PATH (where an agent's CLI is, so
/// the installer sees its version).
fn install_hooks(env: &Env, agent: &str, path_dirs: &[&Path]) -> Value {
    env.cm(&["hooks", "install", "--agent", agent])
        .env("PATH", path_with(path_dirs))
        .json()
        .run()
        .ok()
        .data()
}

fn path_with(dirs: &[&Path]) -> String {
    let mut parts: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    parts.push(std::env::var("PATH").unwrap_or_default());
    parts.join(":")
}

/// Wait until the index holds a session of `agent`; its JSON.
fn indexed_session(env: &Env, agent: &str) -> Value {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let d = env.cm(&["history", "sessions"]).json().run().data();
        if let Some(s) = d["sessions"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|s| s["agent"] == agent)
        {
            return s.clone();
        }
        assert!(
            Instant::now() < deadline,
            "the post-session job never indexed the {agent} session: {d}\npostsession.log: {:?}\nstop.log: {:?}",
            std::fs::read_to_string(env.data.join("logs/postsession.log")),
            std::fs::read_to_string(env.data.join("logs/stop.log")),
        );
        std::thread::sleep(Duration::from_millis(300));
    }
}

const PROMPT: &str = "please clean up the build output";
const DESTRUCTIVE: &str = "rm -rf ~/important";
const BENIGN: &str = "touch made-by-the-agent.txt";
const RULE_WORDS: &str = "zorblax check";
const DENIED: &str = "cm guard blocked";

fn destructive() -> Value {
    json!({"action": "shell", "command": DESTRUCTIVE})
}

fn benign() -> Value {
    json!({"action": "shell", "command": BENIGN})
}

fn protected_write(env: &Env) -> Value {
    json!({"action": "write", "path": env.cwd.join("protected/notes.txt"), "content": "changed"})
}

/// The checks every agent must pass, given how to run it once against a model.
fn guard_context_and_index(
    env: &Env,
    agent: &str,
    write: bool,
    run_once: &dyn Fn(&FakeModel) -> Ran,
) {
    // The guard blocks the destructive command; the model is told why; the target survives.
    let model = FakeModel::start(env, &destructive());
    let ran = run_once(&model);
    assert!(
        env.home.join("important/keep.txt").exists(),
        "{agent}: `{DESTRUCTIVE}` ran: {ran:?}"
    );
    assert!(
        model.sent(DENIED),
        "{agent}: the deny never reached the model: {ran:?}"
    );
    // cm's context (the session-start memory and the prompt's related records) reached it.
    assert!(
        model.sent(RULE_WORDS),
        "{agent}: cm's context never reached the model: {ran:?}"
    );
    // The session ended and the post-session job indexed it, without cm's injected text.
    let session = indexed_session(env, agent);
    let title = session["title"].as_str().unwrap_or("");
    assert!(title.contains(PROMPT), "{agent}: {session}");
    assert!(
        !title.contains("cm memory") && !title.contains("hook_context"),
        "{session}"
    );
    drop(model);

    // A benign command runs.
    let model = FakeModel::start(env, &benign());
    let ran = run_once(&model);
    assert!(
        env.cwd.join("made-by-the-agent.txt").exists(),
        "{agent}: the benign command did not run: {ran:?}"
    );
    assert!(!model.sent(DENIED), "{agent}: {ran:?}");
    drop(model);

    // A write to a protected path is blocked.
    if write {
        let model = FakeModel::start(env, &protected_write(env));
        let ran = run_once(&model);
        assert!(
            !env.cwd.join("protected/notes.txt").exists(),
            "{agent}: the protected write went through: {ran:?}"
        );
        assert!(model.sent(DENIED), "{agent}: {ran:?}");
    }
}

fn claude(version: &str) {
    let Some(bin) = cli(&format!("claude-{version}"), "claude") else {
        return;
    };
    let env = world();
    let bin_dir = bin.parent().unwrap().to_path_buf();
    let d = install_hooks(&env, "claude", &[&bin_dir]);
    // onFailure is written exactly where this Claude Code honours it.
    let pre = read_json(&env.home.join(".claude/settings.json"))["hooks"]["PreToolUse"][0]["hooks"]
        [0]
    .clone();
    let supports = version >= "2.1.332";
    assert_eq!(
        pre.get("onFailure").is_some(),
        supports,
        "{version}: {pre} {d}"
    );
    let run_once = |model: &FakeModel| {
        let mut cmd = env.command(&bin);
        cmd.args(["-p", PROMPT, "--output-format", "json"])
            .args(["--allowedTools", "Bash,Write"])
            .env("ANTHROPIC_BASE_URL", model.url())
            .env("ANTHROPIC_API_KEY", "sk-fake")
            .env("DISABLE_AUTOUPDATER", "1")
            .env("PATH", path_with(&[&bin_dir]));
        let ran = run(cmd);
        assert_eq!(ran.code, Some(0), "{ran:?}");
        ran
    };
    guard_context_and_index(&env, "claude", true, &run_once);

    // A failed tool call reaches the index through the transcript (a `tool_result` with
    // `is_error`), which is why cm hooks no PostToolUseFailure: the end-of-turn and session-end
    // indexing already record it.
    let model = FakeModel::start(&env, &json!({"action": "shell", "command": FAILING}));
    run_once(&model);
    let deadline = Instant::now() + Duration::from_secs(90);
    while !failure_indexed(&env) {
        assert!(
            Instant::now() < deadline,
            "the failed command never reached the index as a failure"
        );
        std::thread::sleep(Duration::from_millis(300));
    }
    drop(model);

    if supports {
        // `onFailure: block`: a guard that cannot run (cm moved away) blocks the call instead of
        // letting it through.
        let settings = env.home.join(".claude/settings.json");
        let mut v = read_json(&settings);
        v["hooks"]["PreToolUse"][0]["hooks"][0]["command"] = json!("/nonexistent/cm-pretool");
        std::fs::write(&settings, v.to_string()).unwrap();
        let model = FakeModel::start(&env, &destructive());
        let ran = run_once(&model);
        assert!(
            env.home.join("important/keep.txt").exists(),
            "a guard that could not run let `{DESTRUCTIVE}` through: {ran:?}"
        );
    }
}

const FAILING: &str = "ls /definitely-missing-dir-for-cm";

/// Whether an indexed Claude session holds the failed command's result marked as an error.
fn failure_indexed(env: &Env) -> bool {
    let d = env.cm(&["history", "sessions"]).json().run().data();
    d["sessions"].as_array().into_iter().flatten().any(|s| {
        let id = s["sessionId"].as_str().unwrap_or("");
        let shown = env.cm(&["history", "show", id]).json().run();
        shown.code == 0
            && shown.data()["messages"]
                .as_array()
                .into_iter()
                .flatten()
                .any(|m| {
                    m["isError"] == true && m["text"].to_string().contains("definitely-missing")
                })
    })
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

#[test]
fn claude_code_2_1_197_runs_cms_hooks() {
    claude("2.1.197");
}

#[test]
fn claude_code_2_1_332_runs_cms_hooks() {
    claude("2.1.332");
}

#[test]
fn gemini_cli_0_61_runs_cms_hooks() {
    let Some(bin) = cli("gemini-0.61.0", "gemini") else {
        return;
    };
    let env = world();
    // Gemini's home moved: installer, CLI and indexer all follow GEMINI_CLI_HOME.
    let gemini_home = env.root.join("gemini-home");
    let env = env.with_env("GEMINI_CLI_HOME", &gemini_home);
    install_hooks(&env, "gemini", &[]);
    let settings = gemini_home.join(".gemini/settings.json");
    let mut v = read_json(&settings);
    // The CLI needs an API key auth and a trusted folder (in an untrusted one it runs no hooks).
    v["security"] = json!({"auth": {"selectedType": "gemini-api-key"}});
    std::fs::write(&settings, v.to_string()).unwrap();
    std::fs::write(
        gemini_home.join(".gemini/trustedFolders.json"),
        json!({ env.cwd.display().to_string(): "TRUST_FOLDER" }).to_string(),
    )
    .unwrap();
    let run_once = |model: &FakeModel| {
        let mut cmd = env.command(&bin);
        cmd.args(["-p", PROMPT, "--yolo", "-o", "json"])
            .env("GOOGLE_GEMINI_BASE_URL", model.url())
            .env("GEMINI_API_KEY", "fake")
            .env("GEMINI_CLI_NO_RELAUNCH", "true");
        let ran = run(cmd);
        assert_eq!(ran.code, Some(0), "{ran:?}");
        // cm's hooks print nothing Gemini would show the user.
        assert!(!ran.stderr.contains("cm-pretool:"), "{ran:?}");
        ran
    };
    guard_context_and_index(&env, "gemini", true, &run_once);
    assert!(
        !env.home.join(".gemini").exists(),
        "nothing may be written to ~/.gemini when GEMINI_CLI_HOME is set"
    );
}

/// Codex's user config: the fake model as its provider, the project trusted. Once written, only
/// the provider's URL changes (the fake server's port), so what Codex added (the hooks' trust)
/// stays as Codex wrote it.
fn codex_config(env: &Env, model: &FakeModel) {
    let codex = env.home.join(".codex");
    std::fs::create_dir_all(&codex).unwrap();
    let path = codex.join("config.toml");
    let url = format!("base_url = \"{}/v1\"", model.url());
    let text = match std::fs::read_to_string(&path) {
        Ok(old) => old
            .lines()
            .map(|l| {
                if l.starts_with("base_url = ") {
                    url.as_str()
                } else {
                    l
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Err(_) => format!(
            "model = \"gpt-fake\"\nmodel_provider = \"fake\"\n\n[model_providers.fake]\nname = \"fake\"\n{url}\nenv_key = \"FAKE_OPENAI_KEY\"\nwire_api = \"responses\"\n\n[projects.{}]\ntrust_level = \"trusted\"",
            json!(env.cwd.display().to_string())
        ),
    };
    std::fs::write(&path, text + "\n").unwrap();
}

/// Approve cm's hooks the way a user does: start the Codex TUI in tmux, and in its "Hooks need
/// review" dialog choose "Trust all and continue". `false` when tmux is not here.
fn approve_codex_hooks_in_the_tui(env: &Env, bin: &Path) -> bool {
    if Command::new("tmux").arg("-V").output().is_err() {
        return false;
    }
    let session = format!("cm-codex-{}", std::process::id());
    let mut cmd = env.command("tmux");
    cmd.args([
        "-L",
        &session,
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "200",
        "-y",
        "50",
    ])
    .arg(format!("FAKE_OPENAI_KEY=x {} ; sleep 60", bin.display()));
    assert!(cmd.status().unwrap().success());
    let tmux = |args: &[&str]| {
        env.command("tmux")
            .args(["-L", &session])
            .args(args)
            .output()
            .unwrap()
    };
    let screen = || {
        String::from_utf8_lossy(&tmux(&["capture-pane", "-p", "-t", &session]).stdout).into_owned()
    };
    // The dialog: 1. Review hooks, 2. Trust all and continue, 3. Continue without trusting.
    // Keys are sent as the screen shows the dialog ready for them (on a loaded machine it may
    // draw before it reads keys), until Codex has saved the trust.
    let config = env.home.join(".codex/config.toml");
    let trusted = || {
        std::fs::read_to_string(&config)
            .unwrap_or_default()
            .contains("trusted_hash")
    };
    let deadline = Instant::now() + Duration::from_secs(120);
    while !trusted() {
        let s = screen();
        if Instant::now() > deadline {
            tmux(&["kill-server"]);
            panic!("Codex saved no hook trust:\n{s}");
        }
        if s.contains("› 2. Trust all and continue") {
            tmux(&["send-keys", "-t", &session, "Enter"]);
        } else if s.contains("› 3. Continue without trusting") {
            tmux(&["send-keys", "-t", &session, "Up"]);
        } else if s.contains("Trust all and continue") {
            tmux(&["send-keys", "-t", &session, "Down"]);
        }
        std::thread::sleep(Duration::from_millis(1000));
    }
    tmux(&["kill-server"]);
    true
}

#[test]
fn codex_0_171_runs_cms_hooks_once_the_user_trusts_them() {
    let Some(bin) = cli("codex-0.171.0", "codex") else {
        return;
    };
    let env = world();
    let d = install_hooks(&env, "codex", &[]);
    // Installed, but Codex runs none of it yet: cm says so.
    let trust = d["targets"][0]["trust"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(trust.len(), 5, "{d}");
    assert!(trust.iter().all(|t| t["trust"] == "needs-review"), "{d}");

    let approve_model = FakeModel::start(&env, &json!({"action": "text"}));
    codex_config(&env, &approve_model);
    let by_tui = approve_codex_hooks_in_the_tui(&env, &bin);
    drop(approve_model);
    if by_tui {
        // cm reads the approval Codex saved.
        let st = env
            .cm(&["hooks", "status", "--agent", "codex", "--user"])
            .json()
            .run()
            .ok()
            .data();
        let trust = st["targets"][0]["trust"].as_array().cloned().unwrap();
        assert!(trust.iter().all(|t| t["trust"] == "approved"), "{st}");
    } else {
        eprintln!("NOTE: no tmux here, so the Codex runs use --dangerously-bypass-hook-trust");
    }
    let run_once = |model: &FakeModel| {
        codex_config(&env, model);
        let mut cmd = env.command(&bin);
        cmd.args([
            "exec",
            "--dangerously-bypass-approvals-and-sandbox",
            "--skip-git-repo-check",
        ]);
        if !by_tui {
            cmd.arg("--dangerously-bypass-hook-trust");
        }
        cmd.arg(PROMPT).env("FAKE_OPENAI_KEY", "x");
        let mut ran = run(cmd);
        ran.stderr.push_str(&format!(
            "\n--- config.toml\n{}",
            std::fs::read_to_string(env.home.join(".codex/config.toml")).unwrap_or_default()
        ));
        assert_eq!(ran.code, Some(0), "{ran:?}");
        ran
    };
    // Codex edits files through apply_patch, which the guard judges on the guard branch; here
    // only shell commands.
    guard_context_and_index(&env, "codex", false, &run_once);
}

/// A Codex world whose hooks run (trusted by flag: the TUI approval is shown above) and a way to
/// run `codex exec` once against a model.
fn codex_exec(env: &Env, bin: &Path, model: &FakeModel) -> Ran {
    codex_config(env, model);
    let mut cmd = env.command(bin);
    cmd.args([
        "exec",
        "--dangerously-bypass-approvals-and-sandbox",
        "--skip-git-repo-check",
    ])
    .arg("--dangerously-bypass-hook-trust")
    .arg(PROMPT)
    .env("FAKE_OPENAI_KEY", "x");
    run(cmd)
}

#[test]
#[ignore = "needs guard branch: the guard judging Codex patches (issue 31, item 4)"]
fn codex_patches_to_protected_paths_are_blocked() {
    let Some(bin) = cli("codex-0.171.0", "codex") else {
        return;
    };
    let env = world();
    install_hooks(&env, "codex", &[]);
    // Codex applies a patch the model sends as a shell command itself (the hook sees `Bash`
    // with the patch in the command), or through its apply_patch tool where the model has one.
    let patch = "apply_patch <<'EOF'\n*** Begin Patch\n*** Add File: protected/notes.txt\n+changed\n*** End Patch\nEOF\n";
    let model = FakeModel::start(&env, &json!({"action": "shell", "command": patch}));
    let ran = codex_exec(&env, &bin, &model);
    assert!(
        !env.cwd.join("protected/notes.txt").exists(),
        "a Codex patch wrote a protected file: {ran:?}"
    );
    assert!(model.sent(DENIED), "{ran:?}");
}

#[test]
#[ignore = "needs guard branch: interactive shells under Codex (issue 31, item 5)"]
fn codex_keystrokes_into_an_open_shell_cannot_bypass_the_guard() {
    let Some(bin) = cli("codex-0.171.0", "codex") else {
        return;
    };
    let env = world();
    install_hooks(&env, "codex", &[]);
    // Open a bare shell, then type the destructive command into it: Codex fires no hook for
    // write_stdin, so the shell must be refused when it is opened.
    let model = FakeModel::start(
        &env,
        &json!({"steps": [
            {"action": "call", "name": "exec_command", "arguments": {"cmd": "bash", "tty": true}},
            {"action": "call", "name": "write_stdin",
             "arguments": {"session_id": "$SESSION", "chars": format!("{DESTRUCTIVE}\n"), "yield_time_ms": 2000}}
        ]}),
    );
    let ran = codex_exec(&env, &bin, &model);
    assert!(
        env.home.join("important/keep.txt").exists(),
        "`{DESTRUCTIVE}` typed into an open shell ran: {ran:?}"
    );
    assert!(model.sent(DENIED), "{ran:?}");
}
