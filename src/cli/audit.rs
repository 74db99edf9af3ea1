//! `cm audit [--days N]`: recent sessions that went against a rule or ran a command the guard
//! blocks ([`crate::app::audit`]).

use super::Ctx;
use crate::error::Result;
use crate::memory::playbook::Playbook;
use crate::output::Report;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Sessions that ended in the last N days.
    #[arg(long, default_value_t = 7)]
    days: u32,
    /// Most sessions to check (the most recent first).
    #[arg(long, default_value_t = 500)]
    limit: usize,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    let since = crate::clock::to_rfc3339(
        crate::clock::now() - chrono::Duration::days(i64::from(args.days)),
    );
    let audit = crate::app::audit::run(store, &playbook, &since, args.limit.max(1))?;
    let degraded = if !crate::episodic::sessions::has_index(store) {
        json!({"history": {"code": "NO_INDEX", "message": "no sessions are indexed, so there is nothing to audit", "fix": "run `cm history index`"}})
    } else {
        serde_json::Value::Null
    };
    let mut human = format!(
        "Checked {} session(s) of the last {} day(s) against {} rule(s) that name a command, and the guard.",
        audit.sessions_checked, args.days, audit.rules_checked
    );
    if audit.findings.is_empty() {
        human.push_str(" Nothing went against them.");
    }
    for f in &audit.findings {
        human.push_str(&format!(
            "\n{} ({})",
            f.source_path.as_deref().unwrap_or(&f.session_id),
            f.agent
        ));
        for b in &f.against_rules {
            human.push_str(&format!(
                "\n  line {}: against {} ({}): {}",
                b.line, b.rule, b.content, b.command
            ));
        }
        for g in &f.guarded_commands {
            human.push_str(&format!(
                "\n  line {}: the guard blocks `{}`: {}",
                g.line, g.command, g.reason
            ));
        }
    }
    let mut data = serde_json::to_value(&audit).unwrap_or_default();
    data["days"] = json!(args.days);
    data["degraded"] = degraded;
    Ok(Report::new(data).human(human))
}
