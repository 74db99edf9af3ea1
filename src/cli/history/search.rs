//! `cm history search`: the local index, plus configured remote hosts.
//!
//! No index yet is not an error: the answer says so in `degraded.history`, as `degraded.remote`
//! names every remote host that could not be searched (the `degraded` shape every command
//! uses). `--limit 0` returns no hits.

use super::{SearchArgs, agent_filter};
use crate::cli::Ctx;
use crate::degraded::{Degraded, Issue};
use crate::episodic::model::{Hit, Role, SearchQuery};
use crate::episodic::{remote, search};
use crate::error::{CmError, Result};
use crate::output::{Report, Style, paint};
use crate::store::Store;
use serde_json::json;

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
        agent: agent_filter(&args.agent)?,
        workspace: args.workspace.clone(),
        role,
    };
    let mut degraded = Degraded::default();
    let associations = super::index::limits(ctx)?.associations;
    let opts = search::Options {
        exhaustive: args.exhaustive,
        explain: args.explain,
        no_coverage: args.no_coverage,
        no_neighbours: args.no_neighbours,
        no_expand: args.no_expand || !associations,
        no_session_prior: args.no_session_prior,
        no_feedback: args.no_feedback,
        no_dates: args.no_dates,
    };
    let outcome = local(&q, opts, ctx, &mut degraded)?;
    if let Some(stage) = outcome.cut {
        degraded.history = Some(Issue::new(
            "SEARCH_CUT",
            &format!(
                "the search was stopped during its {stage} stage; the hits are those found by then"
            ),
            "search again; if it keeps happening run `cm doctor`",
        ));
    }
    let mut hits = outcome.hits;
    if !args.no_remote {
        let cfg: remote::RemoteConfig = ctx.loaded()?.section("remoteCass")?;
        let (remote_hits, failures) = remote::search_all(&cfg, &q);
        hits.extend(remote_hits);
        if !failures.is_empty() {
            let which: Vec<String> = failures
                .iter()
                .map(|f| format!("{}: {}", f.host, f.reason))
                .collect();
            degraded.remote = Some(Issue::new(
                "REMOTE_UNREACHABLE",
                &format!("remote history unavailable from {}", which.join("; ")),
                "check `ssh -o BatchMode=yes HOST cm --version` works, or remove the host from remoteCass.hosts",
            ));
        }
        if cfg.enabled && !cfg.hosts.is_empty() {
            hits.sort_by(|a, b| b.score.total_cmp(&a.score));
            hits.truncate(q.limit);
        }
    }
    // The engine always looks for at least one hit; `--limit 0` asks for none.
    hits.truncate(args.limit);
    // Titles and snippets reach agents (this command, MCP `memory_search`) as the context's do.
    for h in &mut hits {
        crate::context::sanitize::hit(h);
    }
    let human = human(&q, &hits, &degraded, args.limit);
    let quiet = hits
        .iter()
        .map(|h| format!("{}:{}", h.source_path, h.line_number))
        .collect::<Vec<_>>()
        .join("\n");
    let data = json!({
        "query": q.query,
        "count": hits.len(),
        "hits": hits,
        "degraded": degraded.to_json(),
        "ranking": {
            "strategy": outcome.strategy,
            "terms": outcome.terms,
            "termsDropped": outcome.terms_dropped,
            "expanded": outcome.expanded,
            "feedback": outcome.feedback,
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
    degraded: &mut Degraded,
) -> Result<search::Outcome> {
    let db = crate::paths::db_path();
    if !db.is_file() {
        degraded.history = Some(no_index());
        return Ok(search::Outcome::default());
    }
    // Read-only when the schema is current; the CLI's store (which migrates) otherwise.
    let ro = Store::open_readonly(&db)?;
    let store = match &ro {
        Some(s) => s,
        None => ctx.store()?,
    };
    if !crate::episodic::sessions::has_index(store) {
        degraded.history = Some(no_index());
        return Ok(search::Outcome::default());
    }
    if !opts.no_expand {
        degraded.associations = associations_issue(store);
    }
    search::run(store, q, opts)
}

/// The association layer not built, or behind the index: searches are not widened (or only
/// with what it learned so far) until `cm history index` catches it up.
fn associations_issue(store: &Store) -> Option<Issue> {
    let status = match crate::episodic::assoc::status(store) {
        Ok(s) => s,
        Err(_) => {
            return Some(Issue::new(
                "ASSOCIATIONS_UNREADABLE",
                "the term associations could not be read; searches are not widened",
                "run `cm history index`; if it persists run `cm doctor`",
            ));
        }
    };
    if !status.built() {
        return Some(Issue::new(
            "ASSOCIATIONS_NOT_BUILT",
            "term associations have not been learned from the index yet; searches are not widened",
            "run `cm history index` (it learns from what is already indexed)",
        ));
    }
    status.behind().then(|| {
        Issue::new(
            "ASSOCIATIONS_BEHIND",
            "term associations have not learned from the newest indexed messages yet",
            "run `cm history index`",
        )
    })
}

fn no_index() -> Issue {
    Issue::new(
        "NO_INDEX",
        "no sessions are indexed yet",
        "run `cm history index`",
    )
}

fn human(q: &SearchQuery, hits: &[Hit], degraded: &Degraded, limit: usize) -> String {
    let mut s = String::new();
    for line in degraded.lines() {
        s.push_str(&format!("note: {line}\n"));
    }
    if limit == 0 {
        s.push_str("(--limit 0: no hits shown)\n");
        return s;
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
