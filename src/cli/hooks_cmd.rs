//! `cm hooks install|status|uninstall`: every cm hook for an agent at once (session start,
//! prompt, pre-tool guard, post-session), merged with the same guarantees as `cm guard
//! --install`: other keys and hooks kept, idempotent, backed up, undoable.

use super::Ctx;
use crate::error::Result;
use crate::install::command::HookKind;
use crate::install::plan::{self, Action, Plan};
use crate::install::{Agent, Scope};
use crate::output::Report;

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(subcommand)]
    pub sub: Sub,
}

#[derive(clap::Args, Debug)]
pub struct Target {
    /// The user's settings (the default for install).
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// The project's settings, at the repository root.
    #[arg(long)]
    pub project: bool,
    /// Which agent (repeatable): claude, codex, gemini, or all. Install defaults to claude;
    /// status and uninstall to all.
    #[arg(long, value_parser = ["claude", "codex", "gemini", "all"])]
    pub agent: Vec<String>,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Install SessionStart, UserPromptSubmit, PreToolUse (guard) and SessionEnd hooks.
    Install(Target),
    /// Report which cm hooks are installed where.
    Status(Target),
    /// Remove exactly the handlers cm added.
    Uninstall(UninstallArgs),
}

#[derive(clap::Args, Debug)]
pub struct UninstallArgs {
    #[command(flatten)]
    pub target: Target,
    /// Every agent's user settings and every project cm installed hooks into (settings and git
    /// pre-commit hook): what `install.sh --uninstall` runs.
    #[arg(long, conflicts_with_all = ["user", "project", "agent"])]
    pub everywhere: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let (action, target) = match &args.sub {
        Sub::Install(t) => (Action::Install, t),
        Sub::Status(t) => (Action::Status, t),
        Sub::Uninstall(u) if u.everywhere => return everywhere(ctx),
        Sub::Uninstall(u) => (Action::Uninstall, &u.target),
    };
    let root = crate::install::project_root(&ctx.cwd);
    let mut agents: Vec<Agent> = Vec::new();
    let mut absent: Vec<Agent> = Vec::new();
    for name in &target.agent {
        let chosen: Vec<Agent> = match Agent::parse(name) {
            Some(a) => vec![a],
            // `all` installs only for the agents this machine has (named ones always).
            None if action == Action::Install => {
                let (here, gone): (Vec<Agent>, Vec<Agent>) = crate::install::AGENTS
                    .iter()
                    .partition(|&&a| crate::install::agent_present(a, &root));
                absent.extend(gone);
                here
            }
            None => crate::install::AGENTS.to_vec(),
        };
        for a in &chosen {
            if !agents.contains(a) {
                agents.push(*a);
            }
        }
    }
    absent.retain(|a| !agents.contains(a));
    if agents.is_empty() {
        agents = if action == Action::Install {
            vec![Agent::Claude]
        } else {
            crate::install::AGENTS.to_vec()
        };
    }
    let scopes = if target.project {
        vec![Scope::Project]
    } else if target.user || action == Action::Install {
        vec![Scope::User]
    } else {
        vec![Scope::User, Scope::Project]
    };
    let plan = Plan {
        action,
        agents,
        scopes,
        kinds: HookKind::AGENT_HOOKS.to_vec(),
        git: false,
        git_if_repo: false,
    };
    let out = plan::run(&plan, &ctx.cwd)?;
    let (mut data, mut human) = (out.data, out.human);
    absent.retain(|a| !plan.agents.contains(a));
    if action == Action::Install {
        for a in &absent {
            human.push_str(&format!(
                "{}: skipped, not on this machine (no settings directory, no `{}` on PATH); \
                 `--agent {}` installs anyway\n",
                a.slug(),
                a.slug(),
                a.slug()
            ));
        }
        data["skippedAgents"] = serde_json::json!(absent);
    }
    Ok(Report::new(data).human(human))
}

/// `cm hooks uninstall --everywhere`: the user settings of every agent, then every recorded
/// project. Every settings file is read first; a malformed one stops everything before any
/// change.
fn everywhere(ctx: &Ctx) -> Result<Report> {
    use crate::install::{project_root, registry, settings::SettingsFile};
    let recorded = registry::projects();
    let (present, missing): (Vec<_>, Vec<_>) = recorded.iter().cloned().partition(|p| p.is_dir());
    for agent in crate::install::AGENTS {
        if let Some(p) = crate::install::settings_path(agent, Scope::User, &project_root(&ctx.cwd))
        {
            SettingsFile::load(&p)?;
        }
        for root in &present {
            if let Some(p) = crate::install::settings_path(agent, Scope::Project, root) {
                SettingsFile::load(&p)?;
            }
        }
    }
    let plan_for = |scope: Scope, git_if_repo: bool| Plan {
        action: Action::Uninstall,
        agents: crate::install::AGENTS.to_vec(),
        scopes: vec![scope],
        kinds: HookKind::AGENT_HOOKS.to_vec(),
        git: false,
        git_if_repo,
    };
    let user = plan::run(&plan_for(Scope::User, false), &ctx.cwd)?;
    let mut human = user.human;
    let mut projects = Vec::new();
    for root in &present {
        let out = plan::run(&plan_for(Scope::Project, true), root)?;
        human.push_str(&format!("project {}:\n{}", root.display(), out.human));
        let mut data = out.data;
        data["root"] = serde_json::json!(root);
        projects.push(data);
    }
    for root in &missing {
        human.push_str(&format!(
            "project {} is gone; nothing to remove there\n",
            root.display()
        ));
    }
    registry::forget(&recorded)?;
    Ok(Report::new(serde_json::json!({
        "action": "uninstall",
        "everywhere": true,
        "user": user.data,
        "projects": projects,
        "missingProjects": missing,
    }))
    .human(human))
}
