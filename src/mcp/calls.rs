//! What each tool and resource does, synchronously, on a blocking thread of the server. Every
//! one calls the service the command line calls, with a typed request, and answers with the
//! same JSON as the command's `--json` `data`: `cm_context` through [`crate::app::task_context`]
//! and the renderer `cm context --json` uses; feedback through [`crate::app::mark`] (`cm mark`);
//! outcomes through [`crate::app::record_outcome`] and [`crate::app::outcomes`] (`cm outcome`,
//! `cm outcome-apply`); search through [`crate::app::similar`] and
//! [`crate::app::history_search`]; reflection through [`crate::app::reflect_on`] (`cm reflect`);
//! `cm_guard_check` through [`crate::app::guard_check`]; the resources through
//! [`crate::app::playbook_list`], [`crate::app::stats`] and [`crate::app::diary`]. No argument
//! is turned back into command-line words, so no value can pose as a flag.
//!
//! Calls run on the connections the server keeps open ([`super::pool`]).

use super::confine::Roots;
use super::pool;
use super::tools::{self, Call, OutcomeStatus, Scope};
use crate::app::history_search::{self, HistorySearchRequest};
use crate::app::mark::{self, MarkRequest};
use crate::app::outcomes;
use crate::app::playbook_list::{self, ListRequest};
use crate::app::record_outcome::{self, RecordRequest};
use crate::app::reflect_on::{self, ReflectOn};
use crate::app::similar::{self, SimilarRequest};
use crate::app::task_context::{self, TaskRequest};
use crate::context::engine::history_job;
use crate::context::render;
use crate::error::{CmError, Result};
use crate::memory::bullet::{FeedbackSource, FeedbackType};
use crate::store::deadline;
use serde_json::{Value, json};
use std::time::Instant;

/// `f` on the call's kept connection, its statements stopping at `due`.
fn on_store<T>(due: Instant, f: impl FnOnce(&crate::store::Store) -> Result<T>) -> Result<T> {
    pool::with(|conns| {
        conns.store()?;
        if let Some(s) = conns.store.as_mut() {
            let _ = deadline::install(&mut s.conn, due);
        }
        let out = f(conns.store()?);
        if let Some(s) = conns.store.as_mut() {
            let _ = deadline::clear(&mut s.conn);
        }
        out
    })
}

/// The playbook half of `memory_search` keeps `cm similar`'s default threshold.
const SIMILAR_THRESHOLD: f64 = 0.1;

pub fn run(call: Call, roots: &Roots, due: Instant) -> Result<Value> {
    match call {
        Call::Context(a) => context(a, roots, due),
        Call::Feedback(a) => feedback(a, roots, due),
        Call::Outcome(a) => outcome(a, roots, due),
        Call::Search(a) => search(a, roots, due),
        Call::Reflect(a) => reflect(a, roots, due),
        Call::Guard(a) => guard(a, roots, due),
    }
}

fn context(a: tools::ContextArgs, roots: &Roots, due: Instant) -> Result<Value> {
    tools::check_range("limit", a.limit, 1, 100)?;
    tools::check_range("history", a.history, 0, 50)?;
    let cwd = roots.workspace(a.workspace.as_deref())?;
    let loaded = crate::config::load(&cwd)?;
    let req = TaskRequest {
        task: a.task.trim().to_string(),
        workspace: a.workspace.as_ref().map(|_| cwd.clone()),
        cwd,
        limit: a.limit.map(|n| n as usize),
        history: a.history.map(|n| n as usize),
        days: a.days,
        // Measured (bench/mcp.py): 2.1x faster at p50 than a second connection opened per call;
        // the kept thread's pooled one is used when a core is free (below).
        history_on_store: true,
        keep_derived: true,
        deadline: Some(due),
        ..TaskRequest::default()
    };
    pool::with(|conns| {
        conns.store()?;
        if let Some(s) = conns.store.as_mut() {
            let _ = deadline::install(&mut s.conn, due);
        }
        let out = answer_context(conns, &loaded, &req);
        if let Some(s) = conns.store.as_mut() {
            let _ = deadline::clear(&mut s.conn);
        }
        out
    })
}

/// The context for `req` on the call's connection (history beside it when a core is free).
fn answer_context(
    conns: &mut pool::Conns,
    loaded: &crate::config::Loaded,
    req: &TaskRequest,
) -> Result<Value> {
    let store = conns.store()?;
    let out = if pool::core_free() {
        // History on a kept thread with a pooled connection of its own, beside the rules.
        let beside = |ask: history_job::Ask| {
            super::beside::run(move || {
                pool::with(|conns| {
                    let store = conns.store().ok()?;
                    Some(history_job::run(&store.conn, &ask))
                })
            })
        };
        task_context::answer_with(store, Some(&beside), loaded, req)?
    } else {
        task_context::answer(store, loaded, req)?
    };
    let mut answer = out.answer;
    let budget = render::trim(&mut answer, out.budget_chars);
    Ok(render::to_json(&req.task, &answer, &budget))
}

fn feedback(a: tools::FeedbackArgs, roots: &Roots, due: Instant) -> Result<Value> {
    let cwd = roots.workspace(a.workspace.as_deref())?;
    let kind = match (a.helpful.unwrap_or(false), a.harmful.unwrap_or(false)) {
        (true, false) => FeedbackType::Helpful,
        (false, true) => FeedbackType::Harmful,
        _ => {
            return Err(CmError::usage(
                "INVALID_ARGUMENT",
                "give exactly one of helpful: true and harmful: true",
            ));
        }
    };
    let loaded = crate::config::load(&cwd)?;
    let session = a
        .session
        .as_deref()
        .map(|s| crate::paths::session_ref(s, &cwd));
    let req = MarkRequest {
        id: &a.bullet_id,
        kind,
        source: FeedbackSource::Manual,
        reason: a.reason.as_deref(),
        session: session.as_deref(),
    };
    on_store(due, |store| {
        Ok(mark::mark(store, &loaded.config, &cwd, &req)?.data)
    })
}

fn outcome(a: tools::OutcomeArgs, roots: &Roots, due: Instant) -> Result<Value> {
    let cwd = roots.workspace(a.workspace.as_deref())?;
    let status = match a.outcome {
        OutcomeStatus::Success => "success",
        OutcomeStatus::Failure => "failure",
        OutcomeStatus::Mixed | OutcomeStatus::Partial => "mixed",
    };
    if let Some(bad) = a.rules_used.iter().find(|r| r.contains(',')) {
        return Err(CmError::usage(
            "INVALID_ARGUMENT",
            format!("rulesUsed: \"{bad}\" is not one rule id"),
        ));
    }
    let loaded = crate::config::load(&cwd)?;
    let req = RecordRequest {
        status: status.into(),
        ids: a.rules_used.join(","),
        summary: a.summary.clone(),
        session: Some(a.session_id.clone()),
        ..RecordRequest::default()
    };
    let recorded = on_store(due, |store| {
        Ok(record_outcome::record(store, &loaded.config, &cwd, &req)?.data)
    })?;
    if !a.apply.unwrap_or(false) {
        return Ok(recorded);
    }
    let applied = on_store(due, |store| {
        let all = outcomes::ApplyRequest::default();
        Ok(outcomes::apply(store, &loaded.config, &cwd, &all)?.data)
    })?;
    Ok(json!({"outcome": recorded["outcome"], "applied": applied}))
}

fn search(a: tools::SearchArgs, roots: &Roots, due: Instant) -> Result<Value> {
    tools::check_range("limit", a.limit, 1, 100)?;
    if a.query.trim().is_empty() {
        return Err(CmError::usage("EMPTY_QUERY", "the query is empty"));
    }
    let workspace = match &a.workspace {
        Some(w) => Some(roots.workspace(Some(w))?),
        None => None,
    };
    let cwd = workspace.clone().unwrap_or_else(|| roots.dirs()[0].clone());
    let limit = a.limit.unwrap_or(10);
    let scope = a.scope.unwrap_or_default();
    let mut out = serde_json::Map::new();
    out.insert("query".into(), json!(a.query));
    if scope != Scope::History {
        let loaded = crate::config::load(&cwd)?;
        let req = SimilarRequest {
            query: a.query.clone(),
            limit: limit as usize,
            threshold: SIMILAR_THRESHOLD,
            all: false,
        };
        let found = on_store(due, |store| similar::answer(store, &loaded, &cwd, &req))?;
        out.insert("playbook".into(), found.to_json());
    }
    if scope != Scope::Playbook {
        let loaded = crate::config::load(&cwd)?;
        let limits: crate::episodic::index::prepare::Limits = loaded.section("history")?;
        let req = HistorySearchRequest {
            query: a.query.clone(),
            limit: limit as usize,
            days: a.days,
            agent: a.agent.clone(),
            workspace: workspace.as_ref().map(|p| p.display().to_string()),
            remote: true,
            associations: limits.associations,
            ..HistorySearchRequest::default()
        };
        let found = on_store(due, |store| {
            history_search::answer(Some(store), &loaded, &req)
        })?;
        out.insert("history".into(), found.to_json());
    }
    Ok(Value::Object(out))
}

fn reflect(a: tools::ReflectArgs, roots: &Roots, due: Instant) -> Result<Value> {
    tools::check_range("days", a.days, 1, 3650)?;
    tools::check_range("maxSessions", a.max_sessions, 1, 200)?;
    let now = crate::clock::now();
    let (session, since, no_index) = match (&a.session, a.days) {
        (Some(_), Some(_)) => {
            return Err(CmError::usage(
                "INVALID_ARGUMENT",
                "give session or days, not both",
            ));
        }
        (Some(s), None) => (Some(roots.file(s, &crate::paths::data_dir())?), None, false),
        // Only what is indexed already: the server reads no agent's log directory.
        (None, days) => {
            let days = i64::from(days.unwrap_or(30));
            let since = crate::clock::to_rfc3339(now - chrono::Duration::days(days));
            (None, Some(since), true)
        }
    };
    let cwd = &roots.dirs()[0];
    let loaded = crate::config::load(cwd)?;
    let req = ReflectOn {
        session,
        since,
        workspace: None,
        max_sessions: a.max_sessions.unwrap_or(20) as usize,
        dry_run: a.dry_run.unwrap_or(true),
        force: false,
        no_index,
        no_llm: true,
        now: crate::clock::to_rfc3339(now),
    };
    on_store(due, |store| {
        Ok(reflect_on::answer(|| Ok(store), &loaded, cwd, &req)?.data)
    })
}

/// The guard opens no store and keeps to the hook's own bounds, so the request's deadline has
/// nothing to stop.
fn guard(a: tools::GuardArgs, roots: &Roots, _due: Instant) -> Result<Value> {
    let cwd = roots.workspace(a.cwd.as_deref())?;
    Ok(crate::app::guard_check::check(&a.command, None, &cwd)?.to_json())
}

/// A resource's JSON text.
pub fn resource(uri: &str, roots: &Roots, due: Instant) -> Result<Value> {
    let cwd = &roots.dirs()[0];
    match uri {
        "cm://playbook" => {
            let loaded = crate::config::load(cwd)?;
            on_store(due, |store| {
                let all_live = ListRequest::default();
                playbook_list::json(store, &loaded.config, cwd, &all_live)?.into_data()
            })
        }
        "cm://stats" => {
            let loaded = crate::config::load(cwd)?;
            on_store(due, |store| {
                crate::app::stats::answer(store, &loaded.config, cwd, false)
            })
        }
        _ => match uri.strip_prefix("cm://diary/") {
            Some(id) if !id.is_empty() && !id.contains('/') => on_store(due, |store| {
                let entry = crate::app::diary::entry(store, id)?;
                Ok(json!({"entry": entry}))
            }),
            _ => Err(
                CmError::usage("RESOURCE_NOT_FOUND", format!("no resource {uri}"))
                    .hint("the resources are cm://playbook, cm://stats and cm://diary/{id}"),
            ),
        },
    }
}
