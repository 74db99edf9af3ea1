//! `cm guard packs [enable|disable NAME...]`: the built-in packs with their state under the
//! user's config and their rule counts, and turning packs on or off in the global config.
//!
//! A pack that ships off still runs its critical rules (irreversible loss); `enable` turns on
//! the rest. `all` stands for every pack (`"enabledPacks": ["*"]`).

use super::Ctx;
use crate::error::{CmError, Result};
use crate::guard::packs::PACKS;
use crate::guard::{Severity, policy_file};
use crate::output::Report;
use serde_json::json;

/// What `cm guard packs` does.
#[derive(clap::Subcommand, Debug)]
pub enum Action {
    /// Turn packs on (every rule): NAME... or `all`.
    Enable {
        /// The packs to turn on (`cm guard packs` lists them), or `all`.
        #[arg(required = true)]
        names: Vec<String>,
    },
    /// Turn packs off (no rule at all, critical ones included): NAME... or `all`.
    Disable {
        /// The packs to turn off, or `all`.
        #[arg(required = true)]
        names: Vec<String>,
    },
}

pub fn run(action: Option<&Action>, ctx: &Ctx) -> Result<Report> {
    let Some(action) = action else {
        return list(ctx);
    };
    let (names, enable) = match action {
        Action::Enable { names } => (names, true),
        Action::Disable { names } => (names, false),
    };
    let mut picked: Vec<String> = Vec::new();
    for name in names {
        let name = name.trim();
        if name == "all" || name == "*" {
            picked.push(if enable { "*".into() } else { "all".into() });
        } else if PACKS.iter().any(|p| p.name == name) {
            picked.push(name.to_string());
        } else {
            return Err(CmError::usage(
                "UNKNOWN_PACK",
                format!("no built-in pack is called \"{name}\""),
            )
            .hint(format!(
                "the packs are: {} (or `all`); nothing was saved",
                PACKS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
            )));
        }
    }
    // `disable all`: every pack by name, and no `*` left in enabledPacks to win over them.
    if picked.iter().any(|n| n == "all") {
        picked = PACKS.iter().map(|p| p.name.to_string()).collect();
        policy_file::remove_from("enabledPacks", "*")?;
        let path = policy_file::set_packs(&picked, false)?;
        return changed(&picked, false, &path, ctx);
    }
    let path = policy_file::set_packs(&picked, enable)?;
    changed(&picked, enable, &path, ctx)
}

fn changed(names: &[String], enable: bool, path: &std::path::Path, ctx: &Ctx) -> Result<Report> {
    let listed = list(ctx)?;
    let verb = if enable { "enabled" } else { "disabled" };
    let data = json!({
        "changed": names,
        "enabled": enable,
        "file": path,
        "packs": listed.data["packs"],
    });
    Ok(Report::new(data)
        .human(format!(
            "{verb} {} in {}\n{}",
            names.join(", "),
            path.display(),
            listed.human
        ))
        .quiet(path.display().to_string()))
}

fn list(ctx: &Ctx) -> Result<Report> {
    let (policy, sources) = policy_file::load(&ctx.cwd);
    let states = policy.packs_state();
    let mut rows = Vec::new();
    let mut human = String::from("pack        state     rules  critical  high  what\n");
    for (pack, (_, state)) in PACKS.iter().zip(states) {
        let critical = pack
            .rules
            .iter()
            .filter(|r| r.severity >= Severity::Critical)
            .count();
        let high = pack.rules.len() - critical;
        rows.push(json!({
            "name": pack.name,
            "state": state,
            "defaultOn": pack.default_on,
            "rules": pack.rules.len(),
            "critical": critical,
            "high": high,
            "description": pack.description,
        }));
        human.push_str(&format!(
            "{:<11} {:<9} {:>5}  {:>8}  {:>4}  {}\n",
            pack.name,
            state,
            pack.rules.len(),
            critical,
            high,
            pack.description
        ));
    }
    human.push_str(
        "state: on = every rule; critical = ships off, only its critical rules run; off = none.\n`cm guard packs enable NAME|all` turns every rule of a pack on.\n",
    );
    for w in &sources.warnings {
        human.push_str(&format!("warning: {w}\n"));
    }
    let data = json!({
        "packs": rows,
        "configFiles": sources.config_files,
        "warnings": sources.warnings,
    });
    Ok(Report::new(data).human(human))
}
