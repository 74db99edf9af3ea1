//! Installing cm's hooks into agents and git, and taking them out again.
//!
//! One file per target (`claude`, `codex`, `gemini`, `git`) says where its settings live and
//! what cm's handlers look like there; `settings` holds the shared JSON merge and `command` the
//! command lines cm writes and recognises. The guarantees are the same for every target: every
//! other key and hook is kept, installing twice adds nothing, the old file is backed up before
//! it changes, the write is atomic, and uninstall removes exactly cm's handlers.

pub mod claude;
pub mod codex;
pub mod codex_trust;
pub mod command;
pub mod footprint;
pub mod gemini;
pub mod git;
pub mod plan;
pub mod registry;
pub mod settings;

use crate::error::Result;
use command::HookKind;
use serde::Serialize;
use settings::{Change, Entry, SettingsFile};
use std::path::{Path, PathBuf};

pub use crate::agent::Agent;

/// The agents cm installs hooks for (Cursor's, Aider's, OpenCode's and Cline's settings are not
/// written by cm).
pub const AGENTS: [Agent; 3] = [Agent::Claude, Agent::Codex, Agent::Gemini];

/// Where `agent` keeps its hook settings at `scope` (`None` for an agent cm installs nothing for).
pub fn settings_path(agent: Agent, scope: Scope, project_root: &Path) -> Option<PathBuf> {
    match agent {
        Agent::Claude => Some(claude::path(scope, project_root)),
        Agent::Codex => Some(codex::path(scope, project_root)),
        Agent::Gemini => Some(gemini::path(scope, project_root)),
        _ => None,
    }
}

/// The settings entry of cm's handler for `kind` in `agent`'s settings.
pub fn entry(agent: Agent, kind: HookKind) -> Option<Entry> {
    match agent {
        Agent::Claude => claude::entry(kind),
        Agent::Codex => codex::entry(kind),
        Agent::Gemini => gemini::entry(kind),
        _ => None,
    }
}

/// Whether `agent` is on this machine: its user settings directory exists or its program is on
/// PATH. `cm hooks install --agent all` installs only for these, so it never creates the
/// directory of an agent the user does not have.
pub fn agent_present(agent: Agent, project_root: &Path) -> bool {
    let dir_exists = settings_path(agent, Scope::User, project_root)
        .and_then(|p| p.parent().map(Path::is_dir))
        .unwrap_or(false);
    dir_exists || program_found(agent.slug())
}

/// Whether some agent's settings (user or this repository's) run cm's post-session hook, the
/// one that indexes each session as it ends. Read-only and cheap (a few small files, read as
/// untrusted with a size cap, since a repository's are in its working tree); a file that
/// cannot be read counts as no hook.
pub fn post_session_installed(cwd: &Path) -> bool {
    const CAP: u64 = 4 * 1024 * 1024;
    let root = project_root(cwd);
    AGENTS.into_iter().any(|agent| {
        [Scope::User, Scope::Project].into_iter().any(|scope| {
            let Some(path) = settings_path(agent, scope, &root) else {
                return false;
            };
            let Ok(Some(text)) = crate::untrusted::read_text(&path, CAP) else {
                return false;
            };
            serde_json::from_str::<serde_json::Value>(&text).is_ok_and(|v| {
                settings::find_handlers(&v)
                    .iter()
                    .any(|h| h.hook == HookKind::Postsession)
            })
        })
    })
}

fn not_installable(agent: Agent) -> crate::error::CmError {
    crate::error::CmError::usage(
        "UNKNOWN_AGENT",
        format!("cm installs no hooks for {}", agent.title()),
    )
    .hint("cm installs hooks for claude, codex and gemini")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    User,
    Project,
}

/// The directory project-scoped settings go in: the git root, else the working directory.
pub fn project_root(cwd: &Path) -> PathBuf {
    crate::paths::git_root(cwd).unwrap_or_else(|| cwd.to_path_buf())
}

/// What happened to one handler.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HandlerChange {
    pub event: String,
    pub hook: HookKind,
    pub command: String,
    /// added | updated | moved (from another event: `previous` names it) | present | removed
    pub action: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub previous: Option<String>,
}

/// What an install or uninstall did to one settings file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetReport {
    pub agent: Agent,
    pub scope: Scope,
    pub path: PathBuf,
    pub changes: Vec<HandlerChange>,
    /// Whether the file was rewritten.
    pub written: bool,
    pub backup: Option<PathBuf>,
    /// Uninstall: the settings file and directories cm had created, deleted now that cm's
    /// handlers were all they held.
    pub deleted: Vec<PathBuf>,
    /// Uninstall: backups an older cm left beside the file, moved under the data dir.
    pub backups_moved: Vec<PathBuf>,
    /// Codex: whether Codex will run each of cm's handlers (it runs only those the user trusted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trust: Vec<codex_trust::HookTrust>,
}

/// Serialise read-modify-write cycles on agents' settings across cm processes.
fn lock() -> Result<crate::fsutil::FileLock> {
    crate::fsutil::FileLock::acquire(&crate::paths::data_dir().join("install.lock"))
}

/// Merge cm's handlers for `kinds` into `agent`'s settings at `scope`.
pub fn install(
    agent: Agent,
    scope: Scope,
    project_root: &Path,
    kinds: &[HookKind],
    binary: &Path,
) -> Result<TargetReport> {
    let path = settings_path(agent, scope, project_root).ok_or_else(|| not_installable(agent))?;
    let _lock = lock()?;
    let mut file = SettingsFile::load(&path)?;
    let mut changes = Vec::new();
    for &kind in kinds {
        let entry = entry(agent, kind).ok_or_else(|| not_installable(agent))?;
        let cmd = entry.command(&match scope {
            Scope::User => command::command_for(kind, binary),
            Scope::Project => command::portable_command_for(kind, binary),
        });
        let moved = settings::remove_elsewhere(&mut file.value, &entry);
        let change = settings::add_handler(&mut file.value, &entry, &cmd, &path)?;
        let (action, previous) = match change {
            _ if !moved.is_empty() => (
                "moved",
                Some(
                    moved
                        .iter()
                        .map(|f| format!("{}: {}", f.event, f.command))
                        .collect::<Vec<_>>()
                        .join("; "),
                ),
            ),
            Change::Added => ("added", None),
            Change::Updated { from } => ("updated", Some(from)),
            Change::Present => ("present", None),
        };
        changes.push(HandlerChange {
            event: entry.event.to_string(),
            hook: kind,
            command: cmd,
            action,
            previous,
        });
    }
    let backup = file.save()?;
    Ok(TargetReport {
        agent,
        scope,
        written: file.changed(),
        trust: trust(agent, &path, &file.value),
        path,
        changes,
        backup,
        deleted: Vec::new(),
        backups_moved: Vec::new(),
    })
}

/// Codex's verdict on cm's handlers in `doc` (empty for other agents).
fn trust(agent: Agent, path: &Path, doc: &serde_json::Value) -> Vec<codex_trust::HookTrust> {
    if agent == Agent::Codex {
        codex_trust::check(path, doc)
    } else {
        Vec::new()
    }
}

/// Remove cm's handlers for `kinds` from `agent`'s settings at `scope`.
pub fn uninstall(
    agent: Agent,
    scope: Scope,
    project_root: &Path,
    kinds: &[HookKind],
) -> Result<TargetReport> {
    let path = settings_path(agent, scope, project_root).ok_or_else(|| not_installable(agent))?;
    let _lock = lock()?;
    let mut file = SettingsFile::load(&path)?;
    let removed = settings::remove_handlers(&mut file.value, kinds);
    let backup = file.save()?;
    let deleted = footprint::remove_if_ours_and_empty(&path, &file.value)?;
    let backups_moved = footprint::adopt_old_backups(&path)?;
    Ok(TargetReport {
        agent,
        scope,
        written: file.changed(),
        deleted,
        backups_moved,
        path,
        changes: removed
            .into_iter()
            .map(|f| HandlerChange {
                event: f.event,
                hook: f.hook,
                command: f.command,
                action: "removed",
                previous: None,
            })
            .collect(),
        backup,
        trust: Vec::new(),
    })
}

/// One cm handler as `--status` reports it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InstalledHandler {
    #[serde(flatten)]
    pub found: settings::Found,
    /// Whether the program the command runs can be found (a moved binary leaves a dead hook).
    pub program_found: bool,
}

/// What cm finds in one agent's settings file.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TargetStatus {
    pub agent: Agent,
    pub scope: Scope,
    pub path: PathBuf,
    pub exists: bool,
    pub handlers: Vec<InstalledHandler>,
    /// Codex: whether Codex will run each of cm's handlers (it runs only those the user trusted).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trust: Vec<codex_trust::HookTrust>,
    /// Set when the file could not be read (malformed JSON, unexpected layout).
    pub error: Option<String>,
}

pub fn status(agent: Agent, scope: Scope, project_root: &Path) -> TargetStatus {
    let Some(path) = settings_path(agent, scope, project_root) else {
        return TargetStatus {
            agent,
            scope,
            path: PathBuf::new(),
            exists: false,
            handlers: Vec::new(),
            trust: Vec::new(),
            error: Some(not_installable(agent).message),
        };
    };
    match SettingsFile::load(&path) {
        Ok(file) => TargetStatus {
            agent,
            scope,
            exists: file.exists(),
            handlers: settings::find_handlers(&file.value)
                .into_iter()
                .map(|found| InstalledHandler {
                    program_found: program_found(&found.command),
                    found,
                })
                .collect(),
            trust: trust(agent, &path, &file.value),
            path,
            error: None,
        },
        Err(e) => TargetStatus {
            agent,
            scope,
            exists: path.exists(),
            path,
            handlers: Vec::new(),
            trust: Vec::new(),
            error: Some(e.message),
        },
    }
}

/// Whether the first word of `cmd` names an existing file or a program on PATH.
fn program_found(cmd: &str) -> bool {
    let Some(prog) = command::program(cmd) else {
        return false;
    };
    if prog.contains('/') {
        return Path::new(&prog).is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|paths| std::env::split_paths(&paths).any(|dir| dir.join(&prog).is_file()))
}

/// One of cm's hooks that an agent would run more than once.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Duplicate {
    pub agent: Agent,
    pub hook: HookKind,
    /// Every place it is installed.
    pub places: Vec<Place>,
}

/// Where one copy of a hook is installed.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Place {
    pub scope: Scope,
    pub path: PathBuf,
    pub command: String,
}

impl Duplicate {
    /// `claude pretool: ~/.claude/settings.json (user) and /r/.claude/settings.json (project)`.
    pub fn describe(&self) -> String {
        let places: Vec<String> = self
            .places
            .iter()
            .map(|p| {
                let scope = serde_json::json!(p.scope);
                format!("{} ({})", p.path.display(), scope.as_str().unwrap_or(""))
            })
            .collect();
        format!(
            "{} {}: {}",
            self.agent.slug(),
            self.hook.name(),
            places.join(" and ")
        )
    }
}

/// The hooks an agent runs twice in `project_root`: the agents merge user and project
/// settings, so a hook in both (or twice in one file, under any command that runs cm's hook)
/// runs twice per event.
pub fn duplicates(project_root: &Path) -> Vec<Duplicate> {
    let mut out = Vec::new();
    for agent in AGENTS {
        let user = status(agent, Scope::User, project_root);
        let mut all: Vec<(Scope, PathBuf, settings::Found)> = user
            .handlers
            .iter()
            .map(|h| (Scope::User, user.path.clone(), h.found.clone()))
            .collect();
        let project = status(agent, Scope::Project, project_root);
        if project.path != user.path {
            all.extend(
                project
                    .handlers
                    .iter()
                    .map(|h| (Scope::Project, project.path.clone(), h.found.clone())),
            );
        }
        for kind in HookKind::AGENT_HOOKS {
            let places: Vec<Place> = all
                .iter()
                .filter(|(_, _, f)| f.hook == kind)
                .map(|(scope, path, f)| Place {
                    scope: *scope,
                    path: path.clone(),
                    command: f.command.clone(),
                })
                .collect();
            if places.len() > 1 {
                out.push(Duplicate {
                    agent,
                    hook: kind,
                    places,
                });
            }
        }
    }
    out
}
