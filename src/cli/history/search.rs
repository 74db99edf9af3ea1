//! `cm history search`: the local index, plus configured remote hosts. The search is the
//! service [`crate::app::history_search`]; this file picks the store, parses the flags and
//! renders the hits.

use super::SearchArgs;
use crate::app::history_search::{self, HistorySearchRequest};
use crate::cli::Ctx;
use crate::degraded::Degraded;
use crate::episodic::model::{Hit, SearchQuery};
use crate::episodic::search;
use crate::error::Result;
use crate::output::{Report, Style, paint};
use crate::store::Store;

pub fn run(args: &SearchArgs, ctx: &Ctx) -> Result<Report> {
    let req = HistorySearchRequest {
        query: args.query.join(" "),
        limit: args.limit,
        days: args.days,
        agent: args.agent.clone(),
        workspace: args.workspace.clone(),
        role: args.role.clone(),
        remote: !args.no_remote,
        associations: super::index::limits(ctx)?.associations,
        options: search::Options {
            exhaustive: args.exhaustive,
            explain: args.explain,
            no_coverage: args.no_coverage,
            no_neighbours: args.no_neighbours,
            no_expand: args.no_expand,
            no_session_prior: args.no_session_prior,
            no_feedback: args.no_feedback,
            no_dates: args.no_dates,
        },
    };
    let loaded = ctx.loaded()?;
    let db = crate::paths::db_path();
    let found = if db.is_file() {
        // Read-only when the schema is current; the CLI's store (which migrates) otherwise.
        let ro = Store::open_readonly(&db)?;
        let store = match &ro {
            Some(s) => s,
            None => ctx.store()?,
        };
        history_search::answer(Some(store), loaded, &req)?
    } else {
        history_search::answer(None, loaded, &req)?
    };
    let human = human(&found.query, &found.hits, &found.degraded, args.limit);
    let quiet = found
        .hits
        .iter()
        .map(|h| format!("{}:{}", h.source_path, h.line_number))
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Report::new(found.to_json()).human(human).quiet(quiet))
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
