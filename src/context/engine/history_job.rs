//! The history half of an answer as a job another thread can run: what it needs, owned
//! ([`Ask`]), and what it gives back ([`Done`]). A long-running server hands it to a thread it
//! keeps, with a connection of its own, while the calling thread ranks the rules ([`Beside`]).
//!
//! The thread is kept rather than spawned per call: on a busy machine a new thread waits for a
//! core behind everything already queued, while a thread waking from a wait is scheduled at
//! once (measured on two shared cores at load 4: spawned per call 1.6x the p50 of doing the two
//! halves in turn).

use super::super::degraded::Issue;
use super::super::history::{self, Snippet};
use super::Request;
use crate::episodic::model::SearchQuery;
use chrono::{DateTime, Utc};
use rusqlite::Connection;
use std::sync::mpsc::Receiver;
use std::time::Instant;

/// What the history half needs from the request.
#[derive(Debug, Clone)]
pub struct Ask {
    pub task: String,
    pub history: usize,
    pub days: Option<u32>,
    pub workspace: Option<String>,
    pub now: DateTime<Utc>,
    pub widen: bool,
    pub keep: bool,
    pub deadline: Option<Instant>,
}

impl Ask {
    pub fn of(req: &Request) -> Ask {
        Ask {
            task: req.task.to_string(),
            history: req.history,
            days: req.days,
            workspace: req.history_workspace.clone(),
            now: req.now,
            widen: req.widen_history,
            keep: req.keep,
            deadline: req.deadline,
        }
    }
}

/// The snippets, whether the deadline cut them, and the index's issue.
pub type Done = ((Vec<Snippet>, bool), Option<Issue>);

/// Starts the history half elsewhere; the receiver gets its answer, or `None` when it could not
/// run (the caller then runs it itself).
pub type Beside = dyn Fn(Ask) -> Receiver<Option<Done>>;

/// The history half on `conn` in a read transaction of its own (one snapshot and one lock for
/// the search's dozens of statements), as a thread other than the rules' runs it.
pub fn run(conn: &Connection, ask: &Ask) -> Done {
    let _snapshot = conn.unchecked_transaction().ok();
    history_part(conn, ask)
}

/// The index check and the re-ranked snippets for the task (and whether the deadline cut them).
pub(super) fn history_part(conn: &Connection, ask: &Ask) -> Done {
    if ask.deadline.is_some_and(|at| Instant::now() >= at) {
        return ((Vec::new(), true), None);
    }
    let mut issue = history::index_issue(conn, ask.now);
    let q = SearchQuery {
        query: super::keywords_query(&ask.task),
        limit: ask.history,
        days: ask.days,
        workspace: ask.workspace.clone(),
        ..SearchQuery::default()
    };
    let found = history::snippets(conn, &q, ask.history, ask.now, ask.widen, ask.keep);
    if found.issue.is_some() {
        issue = found.issue;
    }
    ((found.snippets, found.cut), issue)
}
