//! `Env`: a private world for one test. `$HOME`, the data dir (`$CASS_MEMORY_HOME`) and a
//! working directory live in one temp dir that disappears with the value, and every program a
//! test runs through it gets that world and nothing of the developer's: the variables that could
//! point cm (or git) elsewhere are removed, so no test can read or write the real home.

use super::CM;
use super::run::Run;
use serde_json::Value;
use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};
use std::process::Command;

/// Variables that would send cm, an agent connector or git outside the temp world. Removed
/// from every command; a test that needs one sets it on the command.
const SCRUBBED: &[&str] = &[
    "CM_NOW",
    "CLAUDE_CONFIG_DIR",
    "CODEX_HOME",
    "GEMINI_CLI_HOME",
    "GEMINI_HOME",
    "OPENCODE_STORAGE_ROOT",
    "OPENCODE_SQLITE_DB",
    "CASS_AIDER_DATA_ROOT",
    "XDG_CONFIG_HOME",
    "XDG_DATA_HOME",
    "APPDATA",
    "GIT_DIR",
    "GIT_INDEX_FILE",
    "GIT_WORK_TREE",
];

/// The context hooks' deadline in tests: they answer by 50 ms by default, and these tests check
/// what they say, not how fast a debug build on a loaded machine says it.
pub const HOOK_BUDGET_MS: &str = "10000";

/// Per-environment defaults, applied to every command before the command's own settings.
#[derive(Clone, Default)]
struct Defaults {
    now: Option<String>,
    clean: bool,
    vars: Vec<(OsString, Option<OsString>)>,
}

pub struct Env {
    _tmp: tempfile::TempDir,
    /// The temp dir itself (canonical, so paths compare equal to what the binary prints).
    pub root: PathBuf,
    pub home: PathBuf,
    /// The data dir, `$CASS_MEMORY_HOME` (not created: a fresh install has none).
    pub data: PathBuf,
    /// Where commands run unless told otherwise.
    pub cwd: PathBuf,
    defaults: Defaults,
}

/// How an `Env` is laid out and what every command in it gets (`Env::builder()`).
pub struct Builder {
    workdir: String,
    defaults: Defaults,
}

impl Builder {
    /// Name of the working directory under the root (default `work`).
    pub fn workdir(mut self, name: &str) -> Self {
        self.workdir = name.to_string();
        self
    }
    /// Pin the clock (`CM_NOW`) for every command; `Run::now` still wins.
    pub fn now(mut self, rfc3339: &str) -> Self {
        self.defaults.now = Some(rfc3339.to_string());
        self
    }
    /// Start every command from an empty environment with `PATH=/usr/bin:/bin`, so nothing on
    /// this machine (another `cm`, `cass`, a user's settings) can change an answer.
    pub fn clean_env(mut self) -> Self {
        self.defaults.clean = true;
        self
    }
    pub fn build(self) -> Env {
        let tmp = tempfile::tempdir().expect("temp dir");
        let root = tmp.path().canonicalize().expect("canonical temp dir");
        let home = root.join("home");
        let cwd = root.join(&self.workdir);
        std::fs::create_dir_all(&home).unwrap();
        std::fs::create_dir_all(&cwd).unwrap();
        Env {
            _tmp: tmp,
            data: root.join("data"),
            home,
            cwd,
            root,
            defaults: self.defaults,
        }
    }
}

impl Env {
    pub fn new() -> Env {
        Env::builder().build()
    }

    pub fn builder() -> Builder {
        Builder {
            workdir: "work".into(),
            defaults: Defaults::default(),
        }
    }

    /// The same world with `key` set for every command from now on.
    pub fn with_env(mut self, key: &str, value: impl AsRef<OsStr>) -> Env {
        let value = value.as_ref().to_os_string();
        self.defaults.vars.push((key.into(), Some(value)));
        self
    }

    /// A copy of cm under this environment's root, for commands that write beside their own
    /// binary (`doctor --fix` links the hooks there): never beside the build's binary, which every
    /// other test shares.
    pub fn copy_of_cm(&self) -> PathBuf {
        let dir = self.root.join("install/bin");
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("cm");
        if !exe.exists() {
            std::fs::copy(CM, &exe).unwrap();
        }
        exe
    }

    /// `cm ARGS` in this environment.
    pub fn cm(&self, args: &[&str]) -> Run {
        self.run_program(CM, args)
    }

    /// Any program (a link to cm, install.sh, git, sh) in this environment.
    pub fn run_program(&self, program: impl AsRef<OsStr>, args: &[&str]) -> Run {
        let label = format!(
            "{} {}",
            Path::new(program.as_ref()).display(),
            args.join(" ")
        );
        let mut cmd = self.command(program);
        cmd.args(args);
        Run::new(cmd, label)
    }

    /// `sh -c SCRIPT` in this environment; `$CM` is the binary.
    pub fn shell(&self, script: &str) -> Run {
        self.run_program("sh", &["-c", script])
    }

    /// The bare command, with this environment and working dir applied, for a test that
    /// spawns processes itself (workers racing each other, a process killed part way).
    pub fn command(&self, program: impl AsRef<OsStr>) -> Command {
        let mut cmd = Command::new(program);
        if self.defaults.clean {
            cmd.env_clear().env("PATH", "/usr/bin:/bin");
        }
        for v in SCRUBBED {
            cmd.env_remove(v);
        }
        cmd.current_dir(&self.cwd)
            .env("HOME", &self.home)
            .env("CASS_MEMORY_HOME", &self.data)
            .env("CM", CM)
            .env("NO_COLOR", "1")
            .env("CM_HOOK_BUDGET_MS", HOOK_BUDGET_MS)
            .env("GIT_CONFIG_NOSYSTEM", "1");
        if let Some(now) = &self.defaults.now {
            cmd.env("CM_NOW", now);
        }
        for (key, value) in &self.defaults.vars {
            match value {
                Some(v) => cmd.env(key, v),
                None => cmd.env_remove(key),
            };
        }
        cmd
    }

    /// The binary linked under another name in `<root>/bin` (a hook name such as
    /// `cm-pretool`, or `cm` for a fake remote); made once, then reused.
    pub fn link(&self, name: &str) -> PathBuf {
        let bin = self.root.join("bin");
        std::fs::create_dir_all(&bin).unwrap();
        let link = bin.join(name);
        if std::fs::symlink_metadata(&link).is_err() {
            std::os::unix::fs::symlink(CM, &link).unwrap();
        }
        link
    }

    /// `cm ARGS`, asserting exit 0; its stdout.
    pub fn stdout_of(&self, args: &[&str]) -> String {
        self.cm(args).run().ok().stdout
    }

    /// `cm ARGS --json`, asserting exit 0 and a success envelope; its `data`.
    pub fn data_of(&self, args: &[&str]) -> Value {
        self.cm(args).json().run().ok().data()
    }

    /// The text of every rule in the playbook, deprecated ones too.
    pub fn rule_contents(&self) -> Vec<String> {
        self.data_of(&["playbook", "list", "--all"])["bullets"]
            .as_array()
            .expect("bullets")
            .iter()
            .map(|b| b["content"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// Add a rule and return its id.
    pub fn add(&self, text: &str) -> String {
        self.data_of(&["playbook", "add", text])["bullet"]["id"]
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

    /// Write `text` to `rel` under the root (parents created); returns the path.
    pub fn write(&self, rel: &str, text: &str) -> PathBuf {
        let path = self.root.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// Write the global config (`<data dir>/config.json`).
    pub fn write_config(&self, config: &Value) {
        std::fs::create_dir_all(&self.data).unwrap();
        std::fs::write(self.data.join("config.json"), config.to_string()).unwrap();
    }
}
