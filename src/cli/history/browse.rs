//! `cm history sessions | show | stats | sources`: looking at what the index holds.

use super::{SessionsArgs, ShowArgs, agent_filter, selected};
use crate::cli::Ctx;
use crate::episodic::sessions;
use crate::error::{CmError, Result};
use crate::output::{Report, table, truncate};
use serde_json::{Value, json};

pub fn sessions(args: &SessionsArgs, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let filter = sessions::Filter {
        agent: agent_filter(&args.agent)?,
        workspace: args.workspace.clone(),
        ended_since: args.days.map(|d| {
            crate::clock::to_rfc3339(crate::clock::now() - chrono::Duration::days(d as i64))
        }),
        limit: args.limit,
    };
    let rows: Vec<Value> = sessions::list(store, &filter)?
        .into_iter()
        .map(|mut r| {
            r.title = crate::context::sanitize::title(r.title);
            serde_json::to_value(r).unwrap_or_default()
        })
        .collect();
    let s = |v: &Value| v.as_str().unwrap_or("").to_string();
    let human_rows: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                s(&r["endedAt"]).chars().take(16).collect(),
                s(&r["agent"]),
                truncate(&s(&r["sessionId"]), 14),
                r["messageCount"].to_string(),
                truncate(&s(&r["workspace"]), 30),
                truncate(&s(&r["title"]), 50),
            ]
        })
        .collect();
    let human = if rows.is_empty() {
        let indexed = sessions::count(store)?;
        if indexed == 0 {
            "No sessions indexed (run `cm history index`).".to_string()
        } else if args.limit == 0 {
            format!("(--limit 0: none of the {indexed} indexed sessions shown)")
        } else {
            format!("No sessions match these filters; {indexed} session(s) are indexed.")
        }
    } else {
        table(
            &["ended", "agent", "session", "msgs", "workspace", "title"],
            &human_rows,
        )
    };
    let quiet = rows
        .iter()
        .map(|r| s(&r["sessionId"]))
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Report::new(json!({"count": rows.len(), "sessions": rows}))
        .human(human)
        .quiet(quiet))
}

pub fn show(args: &ShowArgs, ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let (agent, session_id) = sessions::resolve(store, &args.session)?;
    let session = sessions::get(store, &agent, &session_id)?.ok_or_else(|| {
        CmError::usage(
            "SESSION_NOT_FOUND",
            format!("no indexed session matches \"{}\"", args.session),
        )
    })?;
    let session = json!({
        "agent": session.agent, "sessionId": session.session_id,
        "title": crate::context::sanitize::title(session.title),
        "workspace": session.workspace, "gitBranch": session.git_branch,
        "startedAt": session.started_at, "endedAt": session.ended_at,
        "messageCount": session.message_count, "parentSessionId": session.parent_session_id,
        "sourcePath": session.source_path,
    });
    let (lo, hi) = match args.around {
        None => (0i64, i64::MAX),
        Some(line) => sessions::window(store, &agent, &session_id, line, args.context)?,
    };
    // A transcript is as untrusted as its title: what reads like instructions to a model is
    // withheld, whoever reads this output next.
    let messages: Vec<Value> = sessions::messages(store, &agent, &session_id, lo, hi)?
        .into_iter()
        .map(|mut m| {
            m.text = crate::context::sanitize::message(&m.text);
            m.tool_args = m.tool_args.map(|a| crate::context::sanitize::message(&a));
            serde_json::to_value(m).unwrap_or_default()
        })
        .collect();
    let mut human = format!(
        "{} {} {}\n{}\n\n",
        agent,
        session_id,
        session["workspace"].as_str().unwrap_or(""),
        session["title"].as_str().unwrap_or("")
    );
    for m in &messages {
        let marker = if args.around == m["lineNumber"].as_u64() {
            ">"
        } else {
            " "
        };
        let tool = m["toolName"]
            .as_str()
            .map(|t| format!(" [{t}]"))
            .unwrap_or_default();
        let body = match m["text"].as_str().unwrap_or("") {
            "" => m["toolArgs"].as_str().unwrap_or("").to_string(),
            t => t.to_string(),
        };
        human.push_str(&format!(
            "{marker}{:>6} {:<9}{}{} {}\n",
            m["lineNumber"],
            m["role"].as_str().unwrap_or(""),
            tool,
            if m["kind"] == "scaffolding" {
                " (scaffolding)"
            } else {
                ""
            },
            truncate(&body, 300)
        ));
    }
    Ok(Report::new(json!({"session": session, "messages": messages})).human(human))
}

pub fn stats(ctx: &Ctx) -> Result<Report> {
    let store = ctx.store()?;
    let status = sessions::status(store);
    let agents: Vec<Value> = sessions::stats_by_agent(store)?
        .iter()
        .map(|a| serde_json::to_value(a).unwrap_or_default())
        .collect();
    let db_bytes = std::fs::metadata(&store.path).map(|m| m.len()).unwrap_or(0);
    let rows: Vec<Vec<String>> = agents
        .iter()
        .map(|a| {
            [
                "agent",
                "files",
                "messages",
                "skippedRecords",
                "redactions",
                "filesWithErrors",
            ]
            .iter()
            .map(|k| match &a[*k] {
                Value::String(s) => s.clone(),
                v => v.to_string(),
            })
            .collect()
        })
        .collect();
    let human = format!(
        "{} messages in {} sessions from {} files; store {:.1} MB\n{}",
        status.messages,
        status.sessions,
        status.files,
        db_bytes as f64 / 1e6,
        if rows.is_empty() {
            "Nothing indexed yet (run `cm history index`).\n".to_string()
        } else {
            table(
                &[
                    "agent", "files", "messages", "skipped", "redacted", "errors",
                ],
                &rows,
            )
        }
    );
    let mut data = serde_json::to_value(&status).unwrap_or_default();
    data["agents"] = json!(agents);
    data["storeBytes"] = json!(db_bytes);
    Ok(Report::new(data).human(human))
}

pub fn sources(ctx: &Ctx) -> Result<Report> {
    let indexed = sessions::files_by_agent(ctx.store()?)?;
    let mut out = Vec::new();
    let mut human = String::new();
    let places = crate::episodic::connectors::Places::of_process();
    for c in selected(None)? {
        let d = c.discover(&places);
        let looked: Vec<Value> = d
            .looked_in
            .iter()
            .map(|p| json!({"path": p.display().to_string(), "exists": p.exists()}))
            .collect();
        human.push_str(&format!(
            "{}: {} files found, {} indexed\n",
            c.slug(),
            d.files.len(),
            indexed.get(c.slug()).copied().unwrap_or(0)
        ));
        for p in &d.looked_in {
            let mark = if p.exists() { "found" } else { "missing" };
            human.push_str(&format!("  looked in {} ({mark})\n", p.display()));
        }
        for (p, e) in &d.errors {
            human.push_str(&format!("  could not read {}: {e}\n", p.display()));
        }
        out.push(json!({
            "agent": c.slug(),
            "lookedIn": looked,
            "files": d.files.len(),
            "subagentFiles": d.files.iter().filter(|f| f.parent_session_id.is_some()).count(),
            "indexedFiles": indexed.get(c.slug()).copied().unwrap_or(0),
            "errors": d.errors.iter().map(|(p, e)| json!({"path": p.display().to_string(), "error": e})).collect::<Vec<_>>(),
        }));
    }
    let cass = which("cass");
    human.push_str(&match &cass {
        Some(p) => format!(
            "cass: installed at {} (not used as a source: cm reads the logs itself)\n",
            p.display()
        ),
        None => "cass: not installed (not needed)\n".to_string(),
    });
    Ok(Report::new(json!({
        "sources": out,
        "cass": {"path": cass.map(|p| p.display().to_string()), "used": false},
    }))
    .human(human))
}

fn which(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|paths| {
        std::env::split_paths(&paths)
            .map(|d| d.join(name))
            .find(|p| p.is_file())
    })
}
