//! `cm history search`: the local index, plus configured remote hosts.
//!
//! No index yet is not an error: the answer says so in `degraded`, as does every remote host
//! that could not be searched.

use super::{SearchArgs, agent_filter};
use crate::cli::Ctx;
use crate::episodic::model::{Hit, Role, SearchQuery};
use crate::episodic::{remote, search};
use crate::error::{CmError, Result};
use crate::output::{Report, Style, paint};
use crate::store::Store;
use serde_json::{Value, json};

pub fn run(args: &SearchArgs, ctx: &Ctx) -> Result<Report> {
    let role = match args.role.as_deref() {
        None => None,
        Some(r) => Some(Role::parse(r).ok_or_else(|| {
            CmError::usage("INVALID_ROLE", format!("unknown role \"{r}\""))
                .hint("use one of: user, assistant, tool, system")
        })?),
    };
    let q = SearchQuery {
        query: args.query.join(" "),
        limit: args.limit.max(1),
        days: args.days,
        agent: agent_filter(&args.agent),
        workspace: args.workspace.clone(),
        role,
    };
    let mut degraded: Vec<Value> = Vec::new();
    let opts = search::Options {
        exhaustive: args.exhaustive,
        explain: args.explain,
        no_coverage: args.no_coverage,
    };
    let outcome = local(&q, opts, ctx, &mut degraded)?;
    if let Some(stage) = outcome.cut {
        degraded.push(json!({"kind": "cut", "message": format!("the search was interrupted during its {stage} stage; hits are partial")}));
    }
    let mut hits = outcome.hits;
    if !args.no_remote {
        let cfg: remote::RemoteConfig = ctx.loaded()?.section("remoteCass")?;
        let (remote_hits, failures) = remote::search_all(&cfg, &q);
        hits.extend(remote_hits);
        for f in failures {
            degraded
                .push(json!({"kind": "remote_unreachable", "host": f.host, "message": f.reason}));
        }
        if cfg.enabled && !cfg.hosts.is_empty() {
            hits.sort_by(|a, b| b.score.total_cmp(&a.score));
            hits.truncate(q.limit);
        }
    }
    let human = human(&q, &hits, &degraded);
    let quiet = hits
        .iter()
        .map(|h| format!("{}:{}", h.source_path, h.line_number))
        .collect::<Vec<_>>()
        .join("\n");
    let data = json!({
        "query": q.query,
        "count": hits.len(),
        "hits": hits,
        "degraded": if degraded.is_empty() { Value::Null } else { json!(degraded) },
        "ranking": {
            "strategy": outcome.strategy,
            "terms": outcome.terms,
            "termsDropped": outcome.terms_dropped,
            "scored": outcome.scored,
        },
    });
    let mut data = data;
    if args.explain {
        data["plans"] = json!(outcome.plans);
    }
    Ok(Report::new(data).human(human).quiet(quiet))
}

fn local(
    q: &SearchQuery,
    opts: search::Options,
    ctx: &Ctx,
    degraded: &mut Vec<Value>,
) -> Result<search::Outcome> {
    let db = crate::paths::db_path();
    if !db.is_file() {
        degraded.push(no_index());
        return Ok(search::Outcome::default());
    }
    // Read-only when the schema is current; the CLI's store (which migrates) otherwise.
    let ro = Store::open_readonly(&db)?;
    let store = match &ro {
        Some(s) => s,
        None => ctx.store()?,
    };
    if !search::has_index(&store.conn) {
        degraded.push(no_index());
        return Ok(search::Outcome::default());
    }
    search::run(&store.conn, q, opts)
}

fn no_index() -> Value {
    json!({
        "kind": "no_index",
        "message": "no sessions are indexed yet; run `cm history index`",
    })
}

fn human(q: &SearchQuery, hits: &[Hit], degraded: &[Value]) -> String {
    let mut s = String::new();
    for d in degraded {
        s.push_str(&format!(
            "note: {}{}\n",
            d.get("host")
                .and_then(Value::as_str)
                .map(|h| format!("{h}: "))
                .unwrap_or_default(),
            d["message"].as_str().unwrap_or("")
        ));
    }
    if hits.is_empty() {
        s.push_str(&format!("No sessions match \"{}\".\n", q.query));
        return s;
    }
    for h in hits {
        let when = h
            .created_at
            .as_deref()
            .map(|t| &t[..t.len().min(10)])
            .unwrap_or("");
        let origin = h
            .origin
            .host
            .as_deref()
            .map(|h| format!(" @{h}"))
            .unwrap_or_default();
        s.push_str(&format!(
            "{} {} {} {}{}\n  {}:{}\n  {}\n",
            paint(&format!("{:.2}", h.score), Style::Dim),
            paint(&h.agent, Style::Cyan),
            when,
            h.title
                .as_deref()
                .map(|t| crate::output::truncate(t, 60))
                .unwrap_or_default(),
            origin,
            h.source_path,
            h.line_number,
            h.snippet
        ));
    }
    s
}
