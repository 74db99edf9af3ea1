//! `cm guard`: check a command the way the pre-tool hook would, allow-list one, or install the
//! guard hook into agents and git.
//!
//! `cm guard --install` wires only the guard (PreToolUse Bash -> `cm-pretool`, or the agent's
//! equivalent); `cm hooks install` wires every cm hook. `--git` adds the pre-commit scan.
//! Without target flags, `--status` and `--uninstall` cover every agent, both scopes, and git
//! when run inside a repository.

use super::Ctx;
use crate::error::{CmError, Result};
use crate::install::command::HookKind;
use crate::install::plan::{self, Action, Plan};
use crate::install::{Agent, Scope};
use crate::output::Report;

#[derive(clap::Args, Debug)]
#[command(args_conflicts_with_subcommands = true)]
#[command(group = clap::ArgGroup::new("action").args(["install", "uninstall", "status"]))]
pub struct Args {
    #[command(subcommand)]
    pub sub: Option<Sub>,
    /// Install the guard hook (Claude Code unless --codex/--gemini is given).
    #[arg(long)]
    pub install: bool,
    /// Remove exactly the guard handlers cm added (and its git hook).
    #[arg(long)]
    pub uninstall: bool,
    /// Report what is installed where.
    #[arg(long)]
    pub status: bool,
    /// The user's settings (~/.claude, ~/.codex, ~/.gemini); the default for --install.
    #[arg(long, conflicts_with = "project")]
    pub user: bool,
    /// The project's settings (.claude/, .codex/, .gemini/ at the repository root).
    #[arg(long)]
    pub project: bool,
    /// Claude Code (the default agent).
    #[arg(long)]
    pub claude: bool,
    /// Codex CLI (hooks.json).
    #[arg(long)]
    pub codex: bool,
    /// Gemini CLI (settings.json, BeforeTool).
    #[arg(long)]
    pub gemini: bool,
    /// The git pre-commit hook (secrets and file-scoped traumas in staged changes).
    #[arg(long)]
    pub git: bool,
}

#[derive(clap::Subcommand, Debug)]
pub enum Sub {
    /// Print the decision the pre-tool hook would make for COMMAND.
    Check {
        /// The shell command, quoted as one argument. Bytes that are not UTF-8 are checked as
        /// U+FFFD (the hook sees such a command the same way).
        #[arg(value_parser = clap::value_parser!(std::ffi::OsString))]
        command: std::ffi::OsString,
    },
    /// List the built-in packs (state, rule counts), or enable/disable packs.
    Packs {
        #[command(subcommand)]
        action: Option<super::guard_packs::Action>,
    },
    /// Allow-list a command (exactly), a pattern, or a built-in rule (`git:reset-hard`).
    Allow {
        /// The exact command, a regex with --pattern, or a rule id or pack name.
        entry: String,
        /// ENTRY is a regular expression.
        #[arg(long, conflicts_with = "command")]
        pattern: bool,
        /// ENTRY is an exact command, even if it looks like a rule id.
        #[arg(long)]
        command: bool,
        /// Write to the repository's .cass/config.json instead of the global config.
        #[arg(long)]
        project: bool,
    },
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    match &args.sub {
        Some(Sub::Check { command }) => return check(command, ctx),
        Some(Sub::Packs { action }) => return super::guard_packs::run(action.as_ref(), ctx),
        Some(Sub::Allow {
            entry,
            pattern,
            command,
            project,
        }) => return super::guard_check::run_allow(entry, *pattern, *command, *project, ctx),
        None => {}
    }
    let plan = plan_from(args)?;
    let out = plan::run(&plan, &ctx.cwd)?;
    Ok(Report::new(out.data).human(out.human))
}

fn check(command: &std::ffi::OsStr, ctx: &Ctx) -> Result<Report> {
    let lossy = command
        .to_str()
        .is_none()
        .then(|| super::escape_bytes(command));
    super::guard_check::run_check(&command.to_string_lossy(), lossy.as_deref(), ctx)
}

fn plan_from(args: &Args) -> Result<Plan> {
    let mut agents = Vec::new();
    for (on, agent) in [
        (args.claude, Agent::Claude),
        (args.codex, Agent::Codex),
        (args.gemini, Agent::Gemini),
    ] {
        if on {
            agents.push(agent);
        }
    }
    let explicit_scope = if args.project {
        Some(Scope::Project)
    } else if args.user {
        Some(Scope::User)
    } else {
        None
    };
    let any_target = !agents.is_empty() || args.git;
    let action = if args.status {
        Action::Status
    } else if args.uninstall {
        Action::Uninstall
    } else if args.install || any_target {
        Action::Install
    } else {
        return Err(CmError::usage(
            "INVALID_ARGUMENT",
            "what should `cm guard` do? expected a subcommand or --install, --status, --uninstall, --git",
        )
        .hint("`cm guard check \"git reset --hard\"`, `cm guard --install`, `cm guard --status`"));
    };
    let (scopes, git_if_repo) = match action {
        Action::Install => {
            // `--git` alone installs only the git hook; `--install --git` both.
            if agents.is_empty() && (args.install || !args.git) {
                agents.push(Agent::Claude);
            }
            (vec![explicit_scope.unwrap_or(Scope::User)], false)
        }
        Action::Uninstall | Action::Status => {
            let scopes = explicit_scope
                .map(|s| vec![s])
                .unwrap_or_else(|| vec![Scope::User, Scope::Project]);
            if !any_target {
                agents = crate::install::AGENTS.to_vec();
            }
            (scopes, !any_target)
        }
    };
    Ok(Plan {
        action,
        agents,
        scopes,
        kinds: vec![HookKind::Pretool],
        git: args.git,
        git_if_repo,
    })
}
