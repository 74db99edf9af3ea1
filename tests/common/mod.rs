//! Shared helpers for integration tests: a temp environment (HOME, data dir, working dir) and a
//! fluent runner for the real `cm` binary.
//!
//! ```ignore
//! let env = Env::new();
//! let out = env.cm(&["playbook", "add", "Always x"]).json().run().ok();
//! let id = out.data()["bullet"]["id"].as_str().unwrap();
//! ```
#![allow(dead_code)]

use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

pub const CM: &str = env!("CARGO_BIN_EXE_cm");

/// A private world for one test: `$HOME`, `$CASS_MEMORY_HOME` and a working directory, all
/// inside one temp dir that disappears with the value.
pub struct Env {
    pub tmp: tempfile::TempDir,
    pub home: PathBuf,
    pub data: PathBuf,
    pub cwd: PathBuf,
}

impl Env {
    pub fn new() -> Env {
        let tmp = tempfile::tempdir().expect("temp dir");
        let home = tmp.path().join("home");
        let cwd = tmp.path().join("work");
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        Env {
            data: tmp.path().join("data"),
            home,
            cwd,
            tmp,
        }
    }

    /// `cm ARGS` in this environment.
    pub fn cm(&self, args: &[&str]) -> Run {
        self.run_program(CM, args)
    }

    /// Any program (a link to cm, install.sh) with this environment.
    pub fn run_program(&self, program: impl AsRef<std::ffi::OsStr>, args: &[&str]) -> Run {
        let label = format!(
            "{} {}",
            Path::new(program.as_ref()).display(),
            args.join(" ")
        );
        let mut cmd = Command::new(program);
        cmd.args(args)
            .current_dir(&self.cwd)
            .env("HOME", &self.home)
            .env("CASS_MEMORY_HOME", &self.data)
            .env("NO_COLOR", "1")
            // Context hooks answer by a deadline; tests check what they say, not the speed of
            // a debug build on a loaded machine.
            .env("CM_HOOK_BUDGET_MS", "10000")
            .env_remove("CM_NOW")
            .env_remove("XDG_CONFIG_HOME");
        Run {
            cmd,
            stdin: None,
            label,
        }
    }

    /// Add a rule and return its id.
    pub fn add(&self, text: &str) -> String {
        self.cm(&["playbook", "add", text]).json().run().ok().data()["bullet"]["id"]
            .as_str()
            .expect("bullet id")
            .to_string()
    }

    /// Make the working directory a git repository (for `.cass/` discovery).
    pub fn git_repo(&self) -> &Path {
        std::fs::create_dir_all(self.cwd.join(".git")).unwrap();
        &self.cwd
    }

    pub fn db(&self) -> PathBuf {
        self.data.join("cm.db")
    }
}

pub struct Run {
    cmd: Command,
    stdin: Option<Vec<u8>>,
    label: String,
}

impl Run {
    /// Add `--json` (as a global flag, before the subcommand's own arguments is not required).
    pub fn json(mut self) -> Self {
        self.cmd.arg("--json");
        self.label.push_str(" --json");
        self
    }
    /// Pin the clock (`CM_NOW`).
    pub fn now(mut self, rfc3339: &str) -> Self {
        self.cmd.env("CM_NOW", rfc3339);
        self
    }
    /// One more argument, any bytes (for arguments that are not UTF-8).
    pub fn arg_os(mut self, arg: impl AsRef<std::ffi::OsStr>) -> Self {
        self.label
            .push_str(&format!(" {}", arg.as_ref().to_string_lossy()));
        self.cmd.arg(arg);
        self
    }
    pub fn stdin(mut self, text: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(text.into());
        self
    }
    pub fn cwd(mut self, dir: &Path) -> Self {
        self.cmd.current_dir(dir);
        self
    }
    pub fn env(mut self, key: &str, value: impl AsRef<std::ffi::OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }
    pub fn env_remove(mut self, key: &str) -> Self {
        self.cmd.env_remove(key);
        self
    }
    pub fn run(mut self) -> Out {
        self.cmd
            .stdin(if self.stdin.is_some() {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A binary copied by this test process may briefly be "busy" while another test
        // thread forks (the child holds the copy's descriptor until it execs): retry.
        let mut attempts = 0;
        let mut child = loop {
            match self.cmd.spawn() {
                Ok(child) => break child,
                Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 100 => {
                    attempts += 1;
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Err(e) => panic!("spawn {}: {e}", self.label),
            }
        };
        if let Some(input) = self.stdin.take() {
            let mut pipe = child.stdin.take().unwrap();
            // The program may exit without reading everything; that is not a test failure.
            let _ = pipe.write_all(&input);
        }
        let out = child.wait_with_output().expect("wait");
        Out {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            label: self.label,
        }
    }
}

#[derive(Debug)]
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
    pub label: String,
}

impl Out {
    /// Assert exit 0.
    pub fn ok(self) -> Self {
        self.code(0)
    }
    /// Assert the exit code.
    pub fn code(self, want: i32) -> Self {
        assert_eq!(
            self.code, want,
            "`{}` exited {} (want {want})\nstdout: {}\nstderr: {}",
            self.label, self.code, self.stdout, self.stderr
        );
        self
    }
    /// stdout as exactly one JSON object.
    pub fn json(&self) -> Value {
        let trimmed = self.stdout.trim_end();
        assert!(
            !trimmed.contains('\n'),
            "`{}`: --json must print exactly one line, got:\n{}",
            self.label,
            self.stdout
        );
        serde_json::from_str(trimmed).unwrap_or_else(|e| {
            panic!(
                "`{}`: stdout is not JSON ({e}):\n{}\nstderr: {}",
                self.label, self.stdout, self.stderr
            )
        })
    }
    /// `data` of a success envelope (asserting the envelope's shape).
    pub fn data(&self) -> Value {
        let v = self.json();
        assert_eq!(v["success"], true, "`{}`: {v}", self.label);
        v["data"].clone()
    }
    /// `error` of a failure envelope (asserting the envelope's shape).
    pub fn error(&self) -> Value {
        let v = self.json();
        assert_eq!(v["success"], false, "`{}`: {v}", self.label);
        v["error"].clone()
    }
    /// Assert a failure with this error code (JSON mode) and return the error object.
    pub fn error_code(&self, code: &str) -> Value {
        let e = self.error();
        assert_eq!(e["code"], code, "`{}`: {e}", self.label);
        e
    }
}

/// The ids of a list's `bullets`, in order.
pub fn ids(list: &Value) -> Vec<String> {
    list["bullets"]
        .as_array()
        .expect("bullets array")
        .iter()
        .map(|b| b["id"].as_str().unwrap().to_string())
        .collect()
}

/// Running as root means file permissions do not bind.
pub fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// SHA-free fingerprint of a file: its bytes.
pub fn bytes(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}
