//! The MCP server driven by real clients: the official Python SDK (`tests/mcp/client.py`, in the
//! venv `.ci/run` creates at `target/mcp-venv`) over stdio and Streamable HTTP, raw HTTP for the
//! gate (`tests/mcp/http_guards.py`: token, body limit, Origin, overload), and the MCP Inspector
//! CLI (installed by `.ci/run` under `target/mcp-inspector` when node is there). Without the
//! venv or the Inspector a test says so on stderr and skips, except under CI (`CI` set), where
//! `.ci/run` installed them and a missing client is a failure.

use crate::harness::{Env, repo_path};
use serde_json::{Value, json};
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

fn client(rel: &str, what: &str) -> Option<PathBuf> {
    let path = repo_path(rel);
    if path.exists() {
        return Some(path);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{what} is missing at {}: .ci/run installs it",
        path.display()
    );
    eprintln!(
        "SKIPPED: {what} is not installed at {} (run .ci/run, or see docs/mcp.md, to install it)",
        path.display()
    );
    None
}

fn python() -> Option<PathBuf> {
    client("target/mcp-venv/bin/python", "the Python MCP SDK venv")
}

fn inspector() -> Option<PathBuf> {
    if Command::new("node").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no node on PATH, so no MCP Inspector");
        return None;
    }
    client(
        "target/mcp-inspector/node_modules/.bin/mcp-inspector",
        "the MCP Inspector CLI",
    )
}

/// A world with one rule, a git workspace, and a session log inside it to reflect on.
fn world() -> (Env, PathBuf) {
    let env = Env::builder().now("2026-11-21T00:00:00Z").build();
    env.git_repo();
    env.add("Check the token expiry before debugging auth token refresh timeouts");
    let cwd = env.cwd.display().to_string();
    let line = |n: usize, kind: &str, message: Value| {
        json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": cwd,
            "sessionId": "11111111-2222-4333-8444-555566667777", "version": "2.1.19", "gitBranch": "main",
            "type": kind, "message": message, "uuid": format!("11111111-{n:04}"),
            "timestamp": format!("2026-11-20T10:00:{n:02}.000Z")})
    };
    let lines = [
        line(
            1,
            "user",
            json!({"role": "user", "content": "Fix the date formatting test, it fails on CI"}),
        ),
        line(
            2,
            "assistant",
            json!({"id": "m1", "type": "message", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "The runner's timezone shifts the date; I'll pin TZ in the jest config."}]}),
        ),
        line(
            3,
            "user",
            json!({"role": "user", "content": "no, don't use moment here, we use date-fns in this repo"}),
        ),
        line(
            4,
            "assistant",
            json!({"id": "m2", "type": "message", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "Understood, switching to date-fns."}]}),
        ),
    ];
    let session = env.cwd.join("session.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&session, text).unwrap();
    (env, session)
}

/// A running `cm serve` (killed on drop) and its endpoint.
struct Server {
    child: Child,
    url: String,
}

impl Server {
    fn start(env: &Env, args: &[&str]) -> Server {
        let mut cmd = env.command(crate::harness::CM);
        cmd.args(["serve", "--port", "0"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = cmd.spawn().expect("start cm serve");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let first = lines.next().and_then(|l| l.ok()).unwrap_or_default();
        let url = first
            .split_once(" at ")
            .map(|(_, u)| u.trim().to_string())
            .unwrap_or_else(|| panic!("cm serve said: {first}"));
        // Keep draining stderr so the server never blocks on it.
        std::thread::spawn(move || for _ in lines {});
        let url = url.replace("0.0.0.0", "127.0.0.1");
        Server { child, url }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Run a client script; its JSON report, asserting every check passed.
fn script(env: &Env, py: &Path, name: &str, args: &[&str]) -> Value {
    let script = repo_path(&format!("tests/mcp/{name}"));
    let mut all = vec![script.to_str().unwrap()];
    all.extend_from_slice(args);
    let out = env.run_program(py, &all).within(240).run();
    let last = out.stdout.lines().last().unwrap_or_default().to_string();
    let report: Value = serde_json::from_str(&last)
        .unwrap_or_else(|_| panic!("{name} printed no report:\n{}\n{}", out.stdout, out.stderr));
    assert_eq!(report["ok"], true, "{name}: {report:#}\n{}", out.stderr);
    report
}

#[test]
fn the_python_sdk_over_stdio_calls_every_tool_and_reads_every_resource() {
    let Some(py) = python() else { return };
    let (env, session) = world();
    let r = script(
        &env,
        &py,
        "client.py",
        &[
            "stdio",
            crate::harness::CM,
            env.cwd.to_str().unwrap(),
            session.to_str().unwrap(),
        ],
    );
    assert!(r["checks"].as_array().unwrap().len() >= 30, "{r}");
}

#[test]
fn the_python_sdk_over_http_calls_every_tool_and_reads_every_resource() {
    let Some(py) = python() else { return };
    let (env, session) = world();
    let server = Server::start(&env, &[]);
    let r = script(
        &env,
        &py,
        "client.py",
        &[
            "http",
            &server.url,
            env.cwd.to_str().unwrap(),
            session.to_str().unwrap(),
        ],
    );
    assert!(r["checks"].as_array().unwrap().len() >= 30, "{r}");
}

#[test]
fn a_public_bind_requires_its_token_and_the_gate_refuses_what_it_documents() {
    let Some(py) = python() else { return };
    let (env, session) = world();
    let server = Server::start(
        &env,
        &[
            "--host",
            "0.0.0.0",
            "--max-concurrent",
            "1",
            "--workers",
            "1",
        ],
    );
    let token_file = env.data.join("mcp-token");
    let token = std::fs::read_to_string(&token_file).unwrap();
    let token = token.trim();
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&token_file).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let r = script(&env, &py, "http_guards.py", &[&server.url, token]);
    assert!(
        r["checks"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c == "no token: 401"),
        "{r}"
    );
    drop(server);
    // The SDK client with the token does everything a loopback client does.
    let server = Server::start(&env, &["--host", "0.0.0.0"]);
    script(
        &env,
        &py,
        "client.py",
        &[
            "http",
            &server.url,
            env.cwd.to_str().unwrap(),
            session.to_str().unwrap(),
            token,
        ],
    );
}

#[test]
fn a_loopback_server_refuses_big_bodies_foreign_origins_and_bursts_past_its_limit() {
    let Some(py) = python() else { return };
    let (env, _) = world();
    let server = Server::start(
        &env,
        &[
            "--max-concurrent",
            "1",
            "--workers",
            "1",
            "--max-body",
            "65536",
        ],
    );
    script(&env, &py, "http_guards.py", &[&server.url]);
}

#[test]
fn a_token_from_the_environment_is_required_even_on_loopback() {
    let Some(py) = python() else { return };
    let (env, _) = world();
    let token = "0123456789abcdef0123456789abcdef";
    let env = env.with_env("CM_TEST_TOKEN", token);
    let server = Server::start(
        &env,
        &[
            "--token-env",
            "CM_TEST_TOKEN",
            "--max-concurrent",
            "1",
            "--workers",
            "1",
        ],
    );
    script(&env, &py, "http_guards.py", &[&server.url, token]);
}

/// `mcp-inspector --cli TARGET... --method ...`, its JSON answer and exit status.
fn inspect(env: &Env, bin: &Path, target: &[&str], method: &[&str]) -> (bool, Value) {
    let mut all: Vec<&str> = vec!["--cli"];
    all.extend_from_slice(target);
    all.extend_from_slice(method);
    let out = env.run_program(bin, &all).within(120).run();
    let v = serde_json::from_str(&out.stdout)
        .unwrap_or_else(|_| json!({"raw": out.stdout, "stderr": out.stderr}));
    (out.code == 0, v)
}

fn inspector_session(env: &Env, bin: &Path, target: &[&str], session: &Path) {
    let (ok, tools) = inspect(env, bin, target, &["--method", "tools/list", "--strict"]);
    assert!(ok, "{tools}");
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 6, "{names:?}");
    let calls: &[&[&str]] = &[
        &[
            "--tool-name",
            "cm_context",
            "--tool-arg",
            "task=auth token refresh timeout",
            "limit=3",
        ],
        &[
            "--tool-name",
            "memory_search",
            "--tool-arg",
            "query=token",
            "scope=both",
        ],
        &[
            "--tool-name",
            "guard_check",
            "--tool-arg",
            "command=rm -rf /",
        ],
        &[
            "--tool-name",
            "memory_reflect",
            "--tool-arg",
            &format!("session={}", session.display()),
        ],
    ];
    let mut rule = String::new();
    for call in calls {
        let mut m = vec!["--method", "tools/call"];
        m.extend_from_slice(call);
        let (ok, v) = inspect(env, bin, target, &m);
        assert!(ok && v["isError"] != true, "{call:?}: {v}");
        let data = &v["structuredContent"];
        assert!(data.is_object(), "{call:?}: {v}");
        if call[1] == "cm_context" {
            rule = data["relevantBullets"][0]["id"]
                .as_str()
                .unwrap_or_default()
                .to_string();
        }
        if call[1] == "guard_check" {
            assert_eq!(data["decision"], "deny", "{v}");
        }
    }
    assert!(rule.starts_with("b-"), "cm_context found no rule");
    let (ok, v) = inspect(
        env,
        bin,
        target,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "cm_feedback",
            "--tool-arg",
            &format!("bulletId={rule}"),
            "helpful=true",
        ],
    );
    assert!(ok, "{v}");
    let (ok, v) = inspect(
        env,
        bin,
        target,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "cm_outcome",
            "--tool-arg",
            "sessionId=s-1",
            "outcome=success",
            &format!("rulesUsed=[\"{rule}\"]"),
        ],
    );
    assert!(ok, "{v}");
    let (ok, v) = inspect(env, bin, target, &["--method", "resources/list"]);
    assert!(ok && v["resources"].as_array().unwrap().len() == 2, "{v}");
    let (ok, v) = inspect(env, bin, target, &["--method", "resources/templates/list"]);
    assert!(
        ok && v["resourceTemplates"][0]["uriTemplate"] == "cm://diary/{id}",
        "{v}"
    );
    for uri in ["cm://playbook", "cm://stats"] {
        let (ok, v) = inspect(
            env,
            bin,
            target,
            &["--method", "resources/read", "--uri", uri],
        );
        assert!(
            ok && (uri == "cm://stats"
                || v["contents"][0]["text"]
                    .as_str()
                    .is_some_and(|t| t.contains(&rule))),
            "{uri}: {v}"
        );
    }
    let (ok, v) = inspect(
        env,
        bin,
        target,
        &[
            "--method",
            "tools/call",
            "--tool-name",
            "cm_context",
            "--tool-arg",
            "task=5",
        ],
    );
    assert!(!ok && v.to_string().contains("invalid arguments"), "{v}");
    // (An unknown tool the Inspector refuses itself, before asking the server.)
}

#[test]
fn the_inspector_cli_drives_both_transports() {
    let Some(bin) = inspector() else { return };
    let (env, session) = world();
    let root = env.cwd.to_str().unwrap().to_string();
    // The Inspector starts a stdio server with a minimal environment: pass the test's own.
    let data = format!("CASS_MEMORY_HOME={}", env.data.display());
    let home = format!("HOME={}", env.home.display());
    let stdio = [
        "-e",
        &data,
        "-e",
        &home,
        "-e",
        "CM_NOW=2026-11-21T00:00:00Z",
        crate::harness::CM,
        "mcp",
        "--root",
        &root,
    ];
    inspector_session(&env, &bin, &stdio, &session);
    let server = Server::start(&env, &[]);
    inspector_session(&env, &bin, &[&server.url, "--transport", "http"], &session);
}

#[test]
fn check_reports_the_settings_and_a_bad_root_or_host_is_refused() {
    let env = Env::new();
    let d = env.data_of(&["mcp", "--check"]);
    assert_eq!(d["transport"], "stdio");
    assert_eq!(d["roots"][0], env.cwd.display().to_string());
    let d = env.data_of(&["serve", "--check", "--host", "0.0.0.0", "--port", "9999"]);
    assert_eq!(d["tokenRequired"], true);
    assert_eq!(d["url"], "http://0.0.0.0:9999/mcp");
    let d = env.data_of(&["serve", "--check"]);
    assert_eq!(d["tokenRequired"], false);
    env.cm(&["mcp", "--root", "/no/such/dir"])
        .json()
        .run()
        .code(3);
    env.cm(&["serve", "--host", "example.com", "--check"])
        .json()
        .run()
        .code(3)
        .error_code("INVALID_ARGUMENT");
}
