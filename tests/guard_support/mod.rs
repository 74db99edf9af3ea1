//! Helpers for tests/guard.rs: corpus files, temp homes, running the binary.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/guard")
}

/// Commands of a corpus file: one per line, or a block between `<<<` and `>>>` lines;
/// `#` lines are comments.
pub fn corpus(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(fixtures().join(name)).expect("corpus file");
    let mut out = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    for line in text.lines() {
        match (&mut block, line) {
            (None, "<<<") => block = Some(Vec::new()),
            (Some(b), ">>>") => {
                out.push(b.join("\n"));
                block = None;
            }
            (Some(b), l) => b.push(l),
            (None, l) if l.trim().is_empty() || l.starts_with('#') => {}
            (None, l) => out.push(l.to_string()),
        }
    }
    out
}

pub fn join(items: &[&String]) -> String {
    items
        .iter()
        .map(|s| s.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A temporary HOME, data dir and git project, with the binary linked as `cm-pretool`.
pub struct Env {
    pub dir: tempfile::TempDir,
}

pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Env {
    pub fn new() -> Env {
        let dir = tempfile::tempdir().unwrap();
        for d in ["home", "data", "project/.git", "bin"] {
            std::fs::create_dir_all(dir.path().join(d)).unwrap();
        }
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_cm"), dir.path().join("bin/cm-pretool"))
            .unwrap();
        Env { dir }
    }

    pub fn home(&self) -> PathBuf {
        self.dir.path().join("home")
    }
    pub fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }
    pub fn project(&self) -> PathBuf {
        self.dir.path().join("project")
    }

    fn command(&self, program: &Path) -> std::process::Command {
        let mut c = std::process::Command::new(program);
        c.env_clear()
            .env("PATH", "/usr/bin:/bin")
            .env("HOME", self.home())
            .env("CASS_MEMORY_HOME", self.data())
            .env("CM_NOW", "2026-06-01T00:00:00Z")
            .current_dir(self.project());
        c
    }

    fn run(&self, c: std::process::Command, stdin: &[u8]) -> Out {
        self.run_within(c, stdin, 120)
    }

    /// Run `c`, killing it (and failing the test) if it has not exited within `secs` seconds:
    /// a hook that hangs on its input is a bug to report, not a test run that never ends.
    fn run_within(&self, mut c: std::process::Command, stdin: &[u8], secs: u64) -> Out {
        use std::io::Write;
        c.stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        let mut child = c.spawn().unwrap();
        let mut input = child.stdin.take().unwrap();
        let data = stdin.to_vec();
        let writer = std::thread::spawn(move || {
            let _ = input.write_all(&data);
        });
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        while child.try_wait().unwrap().is_none() {
            if std::time::Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{:?} did not answer within {secs} s", c.get_program());
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let out = child.wait_with_output().unwrap();
        writer.join().unwrap();
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }

    /// The hook through its link name.
    pub fn pretool(&self, payload: &str) -> Out {
        let c = self.command(&self.dir.path().join("bin/cm-pretool"));
        self.run(c, payload.as_bytes())
    }

    /// The hook through its link name, failing the test if it takes over `secs` seconds.
    pub fn pretool_within(&self, payload: &str, secs: u64) -> Out {
        let c = self.command(&self.dir.path().join("bin/cm-pretool"));
        self.run_within(c, payload.as_bytes(), secs)
    }

    /// The hook through `cm hook pretool`.
    pub fn hook(&self, payload: &str) -> Out {
        let mut c = self.command(Path::new(env!("CARGO_BIN_EXE_cm")));
        c.args(["hook", "pretool"]);
        self.run(c, payload.as_bytes())
    }

    pub fn raw(&self, payload: &[u8]) -> Out {
        let c = self.command(&self.dir.path().join("bin/cm-pretool"));
        self.run(c, payload)
    }

    pub fn cm(&self, args: &[&str]) -> Out {
        let mut c = self.command(Path::new(env!("CARGO_BIN_EXE_cm")));
        c.args(args);
        self.run(c, b"")
    }

    pub fn write(&self, rel: &str, text: &str) {
        let p = self.dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
}

pub fn json_str(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// Documented payload shapes (docs/HOOKS.md), with `command` and `cwd` filled in.
pub fn claude_bash(command: &str, cwd: &Path) -> String {
    format!(
        r#"{{"session_id":"abc123","transcript_path":"/home/u/.claude/projects/-home-u-app/abc123.jsonl","cwd":{},"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{{"command":{},"description":"Run it","timeout":120000,"run_in_background":false}},"tool_use_id":"toolu_01ABC"}}"#,
        json_str(&cwd.display().to_string()),
        json_str(command)
    )
}

pub fn codex_bash(command: &str, cwd: &Path) -> String {
    format!(
        r#"{{"session_id":"0199a-codex","transcript_path":"/home/u/.codex/sessions/2026/06/01/rollout.jsonl","cwd":{},"hook_event_name":"PreToolUse","turn_id":"turn-7","model":"gpt-5-codex","tool_name":"Bash","tool_input":{{"command":{}}},"tool_use_id":"call_9"}}"#,
        json_str(&cwd.display().to_string()),
        json_str(command)
    )
}

pub fn gemini_shell(command: &str, cwd: &Path) -> String {
    format!(
        r#"{{"session_id":"g-1","transcript_path":"/home/u/.gemini/tmp/chats/session.json","cwd":{},"hook_event_name":"BeforeTool","timestamp":"2026-06-01T10:00:00Z","tool_name":"run_shell_command","tool_input":{{"command":{},"description":"run"}}}}"#,
        json_str(&cwd.display().to_string()),
        json_str(command)
    )
}

pub fn cursor_shell(command: &str, cwd: &Path) -> String {
    format!(
        r#"{{"hook_event_name":"beforeShellExecution","conversation_id":"c-42","generation_id":"g-1","workspace_roots":[{}],"command":{},"cwd":{}}}"#,
        json_str(&cwd.display().to_string()),
        json_str(command),
        json_str(&cwd.display().to_string())
    )
}

pub fn claude_write(path: &str, cwd: &Path) -> String {
    format!(
        r#"{{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":{},"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{{"file_path":{},"content":"SECRET=1\n"}},"tool_use_id":"toolu_02"}}"#,
        json_str(&cwd.display().to_string()),
        json_str(path)
    )
}
