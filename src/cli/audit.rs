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
    #[arg(long, default_value_t = 7, conflicts_with = "since")]
    days: u32,
    /// Sessions that ended on or after this time: a duration back from now (24h, 7d), a date
    /// (YYYY-MM-DD) or RFC 3339.
    #[arg(long)]
    since: Option<String>,
    /// Most sessions to check (the most recent first).
    #[arg(long, default_value_t = 500)]
    limit: usize,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let playbook = Playbook::open(store, &ctx.cwd);
    let now = crate::clock::now();
    let since = crate::clock::to_rfc3339(match &args.since {
        Some(s) => crate::clock::parse_since(s, now)
            .ok_or_else(|| crate::clock::since_error("--since", s))?,
        None => now - chrono::Duration::days(i64::from(args.days)),
    });
    let audit = crate::app::audit::run(store, &playbook, &since, args.limit.max(1))?;
    let degraded = if !crate::episodic::sessions::has_index(store) {
        json!({"history": {"code": "NO_INDEX", "message": "no sessions are indexed, so there is nothing to audit", "fix": "run `cm history index`"}})
    } else {
        serde_json::Value::Null
    };
    let mut human = format!(
        "Checked {} session(s) {} against {} rule(s) that name a command, and the guard.",
        audit.sessions_checked,
        match &args.since {
            Some(s) => format!("since {s} ({since})"),
            None => format!("of the last {} day(s)", args.days),
        },
        audit.rules_checked
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
    data["since"] = json!(since);
    data["degraded"] = degraded;
    Ok(Report::new(data).human(human))
}
