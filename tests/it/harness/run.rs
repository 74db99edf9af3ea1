//! `Run`, one command about to run in an `Env`, and `Out`, what it did: exit code, stdout,
//! stderr, and the JSON envelope checks every `--json` answer must pass. A command that does not
//! exit by its deadline is killed and fails the test with its name: a hang is a bug to report,
//! not a test run that never ends.

use serde_json::Value;
use std::ffi::OsStr;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long any command may take before it counts as hung.
const DEADLINE: Duration = Duration::from_secs(300);

pub struct Run {
    cmd: Command,
    stdin: Option<Vec<u8>>,
    label: String,
    deadline: Duration,
}

impl Run {
    pub(super) fn new(cmd: Command, label: String) -> Run {
        Run {
            cmd,
            stdin: None,
            label,
            deadline: DEADLINE,
        }
    }
    /// Add `--json` (a global flag: accepted anywhere on the line).
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
    pub fn arg_os(mut self, arg: impl AsRef<OsStr>) -> Self {
        self.label
            .push_str(&format!(" {}", arg.as_ref().to_string_lossy()));
        self.cmd.arg(arg);
        self
    }
    /// Feed `input` on stdin (without it, stdin is `/dev/null`).
    pub fn stdin(mut self, input: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(input.into());
        self
    }
    pub fn cwd(mut self, dir: &Path) -> Self {
        self.cmd.current_dir(dir);
        self
    }
    pub fn env(mut self, key: &str, value: impl AsRef<OsStr>) -> Self {
        self.cmd.env(key, value);
        self
    }
    pub fn env_remove(mut self, key: &str) -> Self {
        self.cmd.env_remove(key);
        self
    }
    /// Fail the test (killing the process) if it has not exited within `secs` seconds.
    pub fn within(mut self, secs: u64) -> Self {
        self.deadline = Duration::from_secs(secs);
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
        let mut child = spawn(&mut self.cmd, &self.label);
        // Feed stdin and drain both outputs on their own threads, so a large input or output
        // never blocks the other side. The program may exit without reading all its input;
        // that is not a test failure.
        let writer = self.stdin.take().map(|input| {
            let mut pipe = child.stdin.take().unwrap();
            std::thread::spawn(move || {
                let _ = pipe.write_all(&input);
            })
        });
        let stdout = drain(child.stdout.take().unwrap());
        let stderr = drain(child.stderr.take().unwrap());
        let status = wait(&mut child, self.deadline, &self.label);
        if let Some(w) = writer {
            w.join().unwrap();
        }
        Out {
            code: status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&stdout.join().unwrap()).into_owned(),
            stderr: String::from_utf8_lossy(&stderr.join().unwrap()).into_owned(),
            label: self.label,
        }
    }
}

/// Spawn, retrying while the program is "busy": a binary a test has just copied stays busy
/// while another test thread forks (the child holds the copy's descriptor until it execs).
fn spawn(cmd: &mut Command, label: &str) -> Child {
    let mut attempts = 0;
    loop {
        match cmd.spawn() {
            Ok(child) => return child,
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy && attempts < 100 => {
                attempts += 1;
                std::thread::sleep(Duration::from_millis(10));
            }
            Err(e) => panic!("spawn {label}: {e}"),
        }
    }
}

fn drain(mut pipe: impl Read + Send + 'static) -> JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let _ = pipe.read_to_end(&mut bytes);
        bytes
    })
}

fn wait(child: &mut Child, deadline: Duration, label: &str) -> ExitStatus {
    let end = Instant::now() + deadline;
    let mut pause = Duration::from_millis(1);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        if Instant::now() > end {
            let _ = child.kill();
            let _ = child.wait();
            panic!("`{label}` did not exit within {} s", deadline.as_secs());
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
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
