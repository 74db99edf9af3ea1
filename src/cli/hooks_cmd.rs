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
    Uninstall(Target),
}

impl Args {
    pub fn name(&self) -> String {
        match self.sub {
            Sub::Install(_) => "install",
            Sub::Status(_) => "status",
            Sub::Uninstall(_) => "uninstall",
        }
        .into()
    }
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let (action, target) = match &args.sub {
        Sub::Install(t) => (Action::Install, t),
        Sub::Status(t) => (Action::Status, t),
        Sub::Uninstall(t) => (Action::Uninstall, t),
    };
    let mut agents: Vec<Agent> = Vec::new();
    for name in &target.agent {
        let chosen: &[Agent] = match name.as_str() {
            "claude" => &[Agent::Claude],
            "codex" => &[Agent::Codex],
            "gemini" => &[Agent::Gemini],
            _ => &Agent::ALL,
        };
        for a in chosen {
            if !agents.contains(a) {
                agents.push(*a);
            }
        }
    }
    if agents.is_empty() {
        agents = if action == Action::Install {
            vec![Agent::Claude]
        } else {
            Agent::ALL.to_vec()
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
        kinds: HookKind::ALL.to_vec(),
        git: false,
        git_if_repo: false,
    };
    let out = plan::run(&plan, &ctx.cwd)?;
    Ok(Report::new(out.data).human(out.human))
}
