//! One install, uninstall or status request over several targets, shared by `cm guard` and
//! `cm hooks`: which agents, scopes and hooks, plus optionally git; the JSON data and the human
//! text that describe what happened.
//!
//! Every settings file involved is read and checked before any is written, so a malformed file
//! for one agent stops the whole request before anything changes.

use super::command::HookKind;
use super::{Agent, Scope, git, settings::SettingsFile};
use crate::error::Result;
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::Path;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    Install,
    Uninstall,
    Status,
}

#[derive(Debug, Clone)]
pub struct Plan {
    pub action: Action,
    pub agents: Vec<Agent>,
    pub scopes: Vec<Scope>,
    pub kinds: Vec<HookKind>,
    /// Include the git pre-commit hook.
    pub git: bool,
    /// For status/uninstall without an explicit git request: include git only when `cwd` is
    /// inside a repository, without failing otherwise.
    pub git_if_repo: bool,
}

/// The outcome: JSON `data` and human text.
pub struct Outcome {
    pub data: Value,
    pub human: String,
}

fn display(p: &Path) -> String {
    let home = crate::paths::home_dir();
    match p.strip_prefix(&home) {
        Ok(rest) if home.as_os_str().len() > 1 => format!("~/{}", rest.display()),
        _ => p.display().to_string(),
    }
}

pub fn run(plan: &Plan, cwd: &Path) -> Result<Outcome> {
    let root = super::project_root(cwd);
    let binary = super::command::current_binary();
    let in_repo = git::hooks_dir(cwd).is_ok();
    let want_git = plan.git || (plan.git_if_repo && in_repo);
    let mut human = String::new();
    let mut targets = Vec::new();

    if plan.action == Action::Status {
        for &agent in &plan.agents {
            for &scope in &plan.scopes {
                let st = super::status(agent, scope, &root);
                let _ = write!(
                    human,
                    "{} ({}) {}:",
                    agent.slug(),
                    scope_name(scope),
                    display(&st.path)
                );
                if let Some(err) = &st.error {
                    let _ = writeln!(human, " unreadable: {err}");
                } else if st.handlers.is_empty() {
                    let _ = writeln!(
                        human,
                        " {}",
                        if st.exists { "no cm hooks" } else { "no file" }
                    );
                } else {
                    let _ = writeln!(human);
                    for h in &st.handlers {
                        let _ = writeln!(
                            human,
                            "  {} -> {}{}",
                            h.found.event,
                            h.found.command,
                            if h.program_found {
                                ""
                            } else {
                                "  (program not found!)"
                            }
                        );
                    }
                    trust_lines(&mut human, &st.trust);
                }
                targets.push(serde_json::to_value(&st).expect("status serializes"));
            }
        }
        let git_value = if want_git {
            let st = git::status(cwd)?;
            let _ = writeln!(
                human,
                "git {}: {}",
                display(&st.path),
                if st.installed {
                    format!(
                        "cm pre-commit hook installed{}",
                        st.chained
                            .as_ref()
                            .map(|c| format!(", chaining to {}", display(c)))
                            .unwrap_or_default()
                    )
                } else if st.other_hook {
                    "another pre-commit hook, not cm's".into()
                } else {
                    "no pre-commit hook".into()
                }
            );
            serde_json::to_value(&st).expect("status serializes")
        } else {
            Value::Null
        };
        return Ok(Outcome {
            data: json!({"action": "status", "targets": targets, "git": git_value}),
            human,
        });
    }

    // Read and check every file first: a malformed one stops everything before any write.
    for &agent in &plan.agents {
        for &scope in &plan.scopes {
            if let Some(path) = super::settings_path(agent, scope, &root) {
                SettingsFile::load(&path)?;
            }
        }
    }
    if plan.git {
        git::hooks_dir(cwd)?;
    }
    let warnings = if plan.action == Action::Install {
        overlaps(plan, &root)?
    } else {
        Vec::new()
    };
    for w in &warnings {
        let _ = writeln!(human, "warning: {w}");
    }

    let install = plan.action == Action::Install;
    for &agent in &plan.agents {
        for &scope in &plan.scopes {
            let report = if install {
                super::install(agent, scope, &root, &plan.kinds, &binary)?
            } else {
                super::uninstall(agent, scope, &root, &plan.kinds)?
            };
            let _ = write!(
                human,
                "{} ({}) {}:",
                agent.slug(),
                scope_name(scope),
                display(&report.path)
            );
            if report.changes.is_empty() {
                let _ = writeln!(human, " nothing of cm's to remove");
            } else {
                let _ = writeln!(human);
                for c in &report.changes {
                    let _ = writeln!(human, "  {} {} -> {}", c.action, c.event, c.command);
                    if let (true, Some(from)) = (c.action == "moved", &c.previous) {
                        let _ = writeln!(human, "    (was {from})");
                    }
                }
            }
            if let Some(b) = &report.backup {
                let _ = writeln!(human, "  backup: {}", display(b));
            }
            for d in &report.deleted {
                let _ = writeln!(human, "  deleted {} (cm had created it)", display(d));
            }
            for b in &report.backups_moved {
                let _ = writeln!(human, "  moved an old backup to {}", display(b));
            }
            trust_lines(&mut human, &report.trust);
            targets.push(serde_json::to_value(&report).expect("report serializes"));
        }
    }
    let any_written = targets.iter().any(|t| t["written"] == true);
    if install && (plan.scopes.contains(&Scope::Project) || plan.git) {
        super::registry::record(&root)?;
    }
    if install && any_written {
        let _ = writeln!(
            human,
            "agents read their hooks when a session starts: new sessions use these; restart running ones"
        );
    }
    let git_value = if want_git {
        let report = if install {
            git::install(cwd, &binary)?
        } else {
            git::uninstall(cwd)?
        };
        let _ = writeln!(human, "git {}: {}", display(&report.path), report.action);
        if let Some(c) = &report.chained {
            let _ = writeln!(
                human,
                "  {} {}",
                if install {
                    "the existing hook was kept and runs first, from"
                } else {
                    "restored the previous hook from"
                },
                display(c)
            );
        }
        if let Some(b) = &report.backup {
            let _ = writeln!(human, "  backup: {}", display(b));
        }
        serde_json::to_value(&report).expect("report serializes")
    } else {
        Value::Null
    };
    let mut data = json!({
        "action": if install { "install" } else { "uninstall" },
        "targets": targets,
        "git": git_value,
    });
    if install {
        data["warnings"] = json!(warnings);
    }
    Ok(Outcome { data, human })
}

/// cm's hooks already installed at the other scope: agents merge user and project settings, so
/// the same hook in both runs twice. A project install on top of user-level hooks is refused
/// (the user's hooks already run in every project); a user install over a project's hooks goes
/// ahead (it is what every other project needs) and returns a warning naming the project file.
fn overlaps(plan: &Plan, root: &Path) -> Result<Vec<String>> {
    let mut warnings = Vec::new();
    for &agent in &plan.agents {
        for &scope in &plan.scopes {
            let other = match scope {
                Scope::User => Scope::Project,
                Scope::Project => Scope::User,
            };
            if super::settings_path(agent, scope, root) == super::settings_path(agent, other, root)
            {
                continue;
            }
            let st = super::status(agent, other, root);
            let clash: Vec<&str> = st
                .handlers
                .iter()
                .filter(|h| plan.kinds.contains(&h.found.hook))
                .map(|h| h.found.hook.name())
                .collect();
            if clash.is_empty() {
                continue;
            }
            let what = format!(
                "{} already runs cm's {} hook(s) from {} ({} settings)",
                agent.title(),
                clash.join(", "),
                display(&st.path),
                scope_name(other)
            );
            if scope == Scope::Project {
                return Err(crate::error::CmError::usage(
                    "HOOKS_DUPLICATE",
                    format!("{what}; project hooks on top would run every hook twice"),
                )
                .hint(format!(
                    "the user-level hooks already run in this project; to keep hooks per project \
                     instead, run `cm hooks uninstall --user --agent {}` first",
                    agent.slug()
                )));
            }
            warnings.push(format!(
                "{what}: in that project each hook now runs twice; run `cm hooks uninstall \
                 --project --agent {}` there",
                agent.slug()
            ));
        }
    }
    Ok(warnings)
}

/// What Codex will not run yet, and how the user approves it.
fn trust_lines(human: &mut String, trust: &[super::codex_trust::HookTrust]) {
    let waiting: Vec<_> = trust
        .iter()
        .filter(|t| t.trust != super::codex_trust::Trust::Approved)
        .collect();
    if trust.is_empty() {
        return;
    }
    if waiting.is_empty() {
        let _ = writeln!(human, "  Codex: every cm hook here is trusted");
        return;
    }
    for t in &waiting {
        let _ = writeln!(human, "  Codex: {} hook {}", t.event, t.trust.describe());
    }
    let _ = writeln!(
        human,
        "  to approve: start `codex` and choose \"Trust all and continue\" (or \"Review hooks\"); \
         Codex asks again whenever a hook's command changes"
    );
}

fn scope_name(s: Scope) -> &'static str {
    match s {
        Scope::User => "user",
        Scope::Project => "project",
    }
}
