//! `cm privacy status|enable|disable|allow AGENT|deny AGENT`: which agents' sessions reflection
//! may read ([`crate::reflect::privacy`]).

use super::Ctx;
use crate::agent::Agent;
use crate::error::{CmError, Result};
use crate::output::Report;
use crate::reflect::privacy::Privacy;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Without one: `status`.
    #[command(subcommand)]
    cmd: Option<Sub>,
}

#[derive(clap::Subcommand, Debug)]
enum Sub {
    /// Whether reflection runs, and for which agents.
    Status,
    /// Reflect on sessions (the default).
    Enable,
    /// Reflect on no session at all.
    Disable,
    /// Let reflection read this agent's sessions again.
    Allow {
        /// claude, codex, gemini, cursor, aider, opencode or cline.
        agent: String,
    },
    /// Never reflect on this agent's sessions.
    Deny {
        /// claude, codex, gemini, cursor, aider, opencode or cline.
        agent: String,
    },
}

fn agent(name: &str) -> Result<Agent> {
    Agent::parse(name).ok_or_else(|| {
        CmError::usage("UNKNOWN_AGENT", format!("unknown agent \"{name}\""))
            .hint("one of: claude, codex, gemini, cursor, aider, opencode, cline")
    })
}

pub fn run(args: &Args, _ctx: &Ctx) -> Result<Report> {
    let mut p = Privacy::load()?;
    let before = p.clone();
    match args.cmd.as_ref().unwrap_or(&Sub::Status) {
        Sub::Status => {}
        Sub::Enable => p.reflection = true,
        Sub::Disable => p.reflection = false,
        Sub::Allow { agent: a } => {
            let slug = agent(a)?.slug();
            p.deny.retain(|d| d != slug);
        }
        Sub::Deny { agent: a } => {
            let slug = agent(a)?.slug();
            if !p.deny.iter().any(|d| d == slug) {
                p.deny.push(slug.to_string());
                p.deny.sort();
            }
        }
    }
    let changed = p != before;
    if changed {
        p.save()?;
    }
    let agents: Vec<serde_json::Value> = Agent::ALL
        .iter()
        .map(|a| json!({"agent": a.slug(), "reflected": p.allows(a.slug())}))
        .collect();
    let mut human = format!("Reflection is {}.", if p.reflection { "on" } else { "off" });
    if p.reflection {
        if p.deny.is_empty() {
            human.push_str(" Every agent's sessions are reflected on.");
        } else {
            human.push_str(&format!(" Never reflected on: {}.", p.deny.join(", ")));
        }
    }
    Ok(Report::new(json!({
        "reflection": p.reflection, "deny": p.deny, "agents": agents, "changed": changed,
        "file": Privacy::path().display().to_string(),
    }))
    .human(human))
}
