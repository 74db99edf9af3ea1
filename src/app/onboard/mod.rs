//! Onboarding use cases (`cm onboard ...`): what has been read, where the playbook is thin,
//! which sessions to read next, one session prepared for rule extraction, and marking it
//! done. They combine the playbook (gap counts, rules citing sessions), the session index
//! (any connector's sessions, through `episodic::sessions`) and onboarding progress.
//!
//! A session counts as processed when it was marked done or when rules cite it in their
//! `sourceSessions` (`cm playbook add --file F --session PATH`).

pub mod read;
pub mod sample;
pub mod template;

use crate::context::gaps::{self, Gaps};
use crate::degraded::{Degraded, Issue};
use crate::episodic::sessions::{self, Session};
use crate::error::{CmError, Result};
use crate::memory::playbook::Playbook;
use crate::onboard::progress::{self, Processed};
use crate::store::Store;
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// The next command in the onboarding loop.
pub const NEXT_SAMPLE: &str = "cm onboard sample --fill-gaps";

/// Live rules per gap category: the personal store and the repository's playbook.
pub fn gaps(store: &Store, cwd: &Path) -> Result<(Gaps, Degraded)> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (cat, n) in crate::memory::tables::bullets::live_per_category(store)? {
        *counts.entry(cat).or_insert(0) += n;
    }
    let playbook = Playbook::open(store, cwd);
    for b in playbook
        .readable_repo_rules()
        .iter()
        .filter(|b| b.is_live())
    {
        *counts.entry(b.category.clone()).or_insert(0) += 1;
    }
    let degraded = Degraded {
        repo_playbook: playbook.repo_issue(),
        ..Default::default()
    };
    Ok((gaps::analyse(&counts), degraded))
}

/// What is done: sessions marked, and the sessions rules cite (with how many rules each).
pub struct Progress {
    pub marked: Vec<Processed>,
    cited: HashMap<String, usize>,
    pub live_rules: usize,
}

impl Progress {
    pub fn load(store: &Store) -> Result<Progress> {
        let mut cited: HashMap<String, usize> = HashMap::new();
        let mut live_rules = 0;
        for b in crate::memory::tables::bullets::load_all(store)? {
            live_rules += usize::from(b.is_live());
            for s in &b.source_sessions {
                *cited.entry(s.clone()).or_insert(0) += 1;
                if let Ok(c) = std::fs::canonicalize(s) {
                    let c = c.to_string_lossy().into_owned();
                    if c != *s {
                        *cited.entry(c).or_insert(0) += 1;
                    }
                }
            }
        }
        Ok(Progress {
            marked: progress::list(store)?,
            cited,
            live_rules,
        })
    }

    /// The mark on `s`, if any.
    pub fn mark_of(&self, s: &Session) -> Option<&Processed> {
        self.marked
            .iter()
            .find(|p| p.agent == s.agent && p.session_id == s.session_id)
    }

    /// Rules that cite `s` (by its source path or its session id).
    pub fn rules_citing(&self, s: &Session) -> usize {
        let by_path = s
            .source_path
            .as_ref()
            .and_then(|p| self.cited.get(p))
            .copied()
            .unwrap_or(0);
        by_path.max(self.cited.get(&s.session_id).copied().unwrap_or(0))
    }

    pub fn is_done(&self, s: &Session) -> bool {
        self.mark_of(s).is_some() || self.rules_citing(s) > 0
    }
}

/// The `degraded.history` entry when the index holds no sessions.
pub fn no_sessions(store: &Store) -> Option<Issue> {
    if sessions::tables_present(store) && sessions::count(store).unwrap_or(0) > 0 {
        return None;
    }
    Some(Issue::new(
        "EMPTY_INDEX",
        "no sessions are indexed, so there is nothing to onboard from",
        "run `cm history index` to index your agents' sessions, then `cm onboard status`",
    ))
}

/// Every indexed session, the most recently ended first.
pub fn all_sessions(store: &Store) -> Result<Vec<Session>> {
    sessions::list(
        store,
        &sessions::Filter {
            limit: i64::MAX as usize,
            ..Default::default()
        },
    )
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Status {
    pub sessions_indexed: usize,
    pub sessions_processed: usize,
    pub sessions_marked_done: usize,
    pub sessions_credited_by_rules: usize,
    pub sessions_remaining: usize,
    pub rules: usize,
    pub rules_from_sessions: usize,
    pub started_at: Option<String>,
    pub last_updated_at: Option<String>,
    pub gaps: Gaps,
    pub next_step: String,
    pub degraded: Degraded,
}

/// `cm onboard status`.
pub fn status(store: &Store, cwd: &Path) -> Result<Status> {
    let (gaps, mut degraded) = gaps(store, cwd)?;
    degraded.history = no_sessions(store);
    let progress = Progress::load(store)?;
    let all = all_sessions(store)?;
    let marked = all.iter().filter(|s| progress.mark_of(s).is_some()).count();
    let credited: Vec<usize> = all.iter().map(|s| progress.rules_citing(s)).collect();
    let processed = all.iter().filter(|s| progress.is_done(s)).count();
    let next_step = if degraded.history.is_some() {
        "cm history index".to_string()
    } else if processed == all.len() {
        "cm onboard gaps (every indexed session is processed; index new ones with `cm history index`)".to_string()
    } else {
        NEXT_SAMPLE.to_string()
    };
    Ok(Status {
        sessions_indexed: all.len(),
        sessions_processed: processed,
        sessions_marked_done: marked,
        sessions_credited_by_rules: credited.iter().filter(|n| **n > 0).count(),
        sessions_remaining: all.len() - processed,
        rules: progress.live_rules,
        rules_from_sessions: credited.iter().sum(),
        started_at: progress.marked.iter().map(|p| p.marked_at.clone()).min(),
        last_updated_at: progress.marked.iter().map(|p| p.marked_at.clone()).max(),
        gaps,
        next_step,
        degraded,
    })
}

/// Resolve PATH (a session file, a session id or a unique prefix) to an indexed session.
pub fn find_session(store: &Store, key: &str) -> Result<Session> {
    if no_sessions(store).is_some() {
        return Err(CmError::new(
            "EMPTY_INDEX",
            crate::error::ExitCode::SessionIndex,
            "no sessions are indexed",
        )
        .hint("run `cm history index` first"));
    }
    let (agent, id) = sessions::resolve(store, key)?;
    sessions::get(store, &agent, &id)?.ok_or_else(|| {
        CmError::usage(
            "SESSION_NOT_FOUND",
            format!("no indexed session matches \"{key}\""),
        )
    })
}

/// `cm onboard mark-done PATH`: returns the mark and whether it is new.
pub fn mark_done(store: &Store, key: &str) -> Result<(Processed, bool)> {
    let s = find_session(store, key)?;
    let p = Processed {
        rules_extracted: Progress::load(store)?.rules_citing(&s) as i64,
        agent: s.agent,
        session_id: s.session_id,
        source_path: s.source_path,
        marked_at: crate::clock::to_rfc3339(crate::clock::now()),
    };
    let new = progress::mark(store, &p)?;
    Ok((p, new))
}
