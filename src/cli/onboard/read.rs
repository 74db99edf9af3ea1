//! `cm onboard read PATH [--template]`: rendering the prepared session.

use crate::app::onboard::read;
use crate::cli::Ctx;
use crate::error::Result;
use crate::output::Report;

pub fn run(path: &str, template: bool, ctx: &Ctx) -> Result<Report> {
    let r = read::read(ctx.existing_store()?, &ctx.cwd, path, template)?;
    let m = &r.metadata;
    let mut h = format!(
        "Session {} ({}){}\n  path: {}\n  workspace: {}  branch: {}\n  {} .. {}  {} messages, {} failed tool call(s), {} correction(s){}\n",
        m.session_id,
        m.agent,
        m.title
            .as_deref()
            .map(|t| format!(": {t}"))
            .unwrap_or_default(),
        m.path.as_deref().unwrap_or("-"),
        m.workspace.as_deref().unwrap_or("-"),
        m.git_branch.as_deref().unwrap_or("-"),
        m.started_at.as_deref().unwrap_or("?"),
        m.ended_at.as_deref().unwrap_or("?"),
        m.message_count,
        m.errors,
        m.corrections,
        if m.processed { "  (processed)" } else { "" },
    );
    h.push_str(&format!(
        "Topics: {}\nFocus: {}\n",
        if m.topic_hints.is_empty() {
            "none detected".to_string()
        } else {
            m.topic_hints.join(", ")
        },
        r.context["suggestedFocus"].as_str().unwrap_or("")
    ));
    if let Some(rules) = r.context["relatedRules"]
        .as_array()
        .filter(|a| !a.is_empty())
    {
        h.push_str("Related rules:\n");
        for rule in rules {
            h.push_str(&format!(
                "  {} [{}] {}\n",
                rule["id"].as_str().unwrap_or(""),
                rule["category"].as_str().unwrap_or(""),
                rule["content"].as_str().unwrap_or("")
            ));
        }
    }
    h.push_str("\n--- transcript ---\n");
    h.push_str(&r.session_content);
    if let Some(note) = &r.cut.note {
        h.push_str(&format!("--- {note}\n"));
    }
    if let Some(f) = &r.extraction_format {
        h.push_str("\n--- extraction ---\nWrite rules.json as a JSON array, for example:\n");
        let some: Vec<&serde_json::Value> = f["examples"]
            .as_array()
            .map(|a| a.iter().take(3).collect())
            .unwrap_or_default();
        h.push_str(&serde_json::to_string_pretty(&some).unwrap_or_default());
        h.push_str(&format!(
            "\nCategories: {}\nThen: {}\nOr, with nothing to add: {}\n",
            crate::memory::bullet::GAP_CATEGORIES.join(", "),
            f["addCommand"].as_str().unwrap_or(""),
            f["doneCommand"].as_str().unwrap_or("")
        ));
    }
    for l in r.degraded.lines() {
        h.push_str(&format!("! {l}\n"));
    }
    let mut data = serde_json::to_value(&r).unwrap_or_default();
    if r.degraded.is_empty() {
        data["degraded"] = serde_json::Value::Null;
    }
    Ok(Report::new(data).human(h))
}
