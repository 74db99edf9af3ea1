//! Place and evidence: what a rule knows about the situations it came from.
//!
//! A rule carries the sessions it was learned from (`source_sessions`) and the sessions where
//! it was marked helpful (feedback events with a session). When the rule's terms are rebuilt
//! ([`crate::context::index::refresh`]) those sessions are looked up in the episodic index and
//! give the rule
//! - an **evidence vocabulary** ([`vocabulary`]): the weighted words of those sessions (the
//!   user's phrasing, commands, files, errors), at most [`vocabulary::MAX_TERMS`], searched as a
//!   second field beside the rule's own text ([`score`]), so a task that resembles the
//!   situation finds the rule even when it shares no word with the rule;
//! - its **places** ([`places`]): the workspaces those sessions ran in and the language or tool
//!   stacks they touched, which ranking uses to prefer the current workspace's rules and to
//!   hold back rules of other stacks ([`crate::context::place`]).
//!
//! A transcript's vocabulary is computed once and cached (`session_vocab`); when a cited
//! transcript is indexed later, or grows, its rules are listed for rebuilding
//! ([`tables::mark_stale`], run by `cm history index`). Only the redacted index is read, so no
//! secret reaches the vocabulary.

pub mod places;
pub mod score;
pub mod tables;
pub mod vocabulary;
pub mod workspace;

use crate::error::Result;
use crate::memory::bullet::{Bullet, FeedbackType};
use rusqlite::Connection;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::rc::Rc;

/// What a rebuild found for one rule.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub struct Built {
    /// The rule has a workspace it was learned or helped in.
    pub placed: bool,
    /// The rule has an evidence vocabulary.
    pub evidenced: bool,
}

/// The session references a rule carries: (reference, kind), learned-from first.
pub fn references(b: &Bullet) -> Vec<(String, &'static str)> {
    let mut out: Vec<(String, &'static str)> = Vec::new();
    let mut push = |r: &str, kind: &'static str| {
        let r = r.trim();
        if !r.is_empty() && !out.iter().any(|(x, _)| x == r) {
            out.push((r.to_string(), kind));
        }
    };
    for s in &b.source_sessions {
        push(s, "source");
    }
    for e in &b.feedback_events {
        if e.kind == FeedbackType::Helpful
            && let Some(s) = &e.session_path
        {
            push(s, "helped");
        }
    }
    out
}

/// Sessions of a workspace read to tell its setting from a session's situation.
pub const BACKGROUND_SESSIONS: usize = 60;

/// Rebuilds rules' evidence, remembering each workspace's background across the rules of one
/// refresh.
#[derive(Default)]
pub struct Builder {
    backgrounds: HashMap<String, Rc<vocabulary::Background>>,
}

impl Builder {
    /// Rebuild the sessions, vocabulary and places of rule `id` (`bullet` is `None` when it was
    /// deleted). Runs inside the caller's write transaction.
    pub fn rebuild(
        &mut self,
        conn: &Connection,
        id: &str,
        bullet: Option<&Bullet>,
    ) -> Result<Built> {
        rebuild(conn, id, bullet, self)
    }

    /// The vocabularies of the latest sessions of `workspace`, as document frequencies.
    fn background(
        &mut self,
        conn: &Connection,
        workspace: &str,
    ) -> Result<Rc<vocabulary::Background>> {
        if let Some(b) = self.backgrounds.get(workspace) {
            return Ok(b.clone());
        }
        let mut sets = Vec::new();
        for file in tables::workspace_files(conn, workspace, BACKGROUND_SESSIONS)? {
            sets.push(session_vocab(conn, file)?.terms);
        }
        let b = Rc::new(vocabulary::Background::of(&sets));
        self.backgrounds.insert(workspace.to_string(), b.clone());
        Ok(b)
    }
}

fn rebuild(
    conn: &Connection,
    id: &str,
    bullet: Option<&Bullet>,
    builder: &mut Builder,
) -> Result<Built> {
    tables::clear_rule(conn, id)?;
    let Some(b) = bullet else {
        return Ok(Built::default());
    };
    let mut vocabs = Vec::new();
    let mut workspaces: BTreeMap<String, usize> = BTreeMap::new();
    let mut stacks: BTreeMap<String, usize> = BTreeMap::new();
    for (reference, kind) in references(b) {
        // A path is recorded as the index knows it (canonical) when it can be resolved.
        let canonical = std::fs::canonicalize(&reference)
            .ok()
            .map(|p| p.to_string_lossy().into_owned());
        let mut file = tables::resolve(conn, &reference)?;
        let mut recorded = reference.clone();
        if file.is_none()
            && let Some(c) = &canonical
        {
            file = tables::resolve(conn, c)?;
            recorded = c.clone();
        }
        tables::insert_session(conn, id, &recorded, kind, file)?;
        let Some(file) = file else { continue };
        let v = session_vocab(conn, file)?;
        if let Some(w) = &v.workspace {
            *workspaces.entry(w.clone()).or_insert(0) += 1;
        }
        for s in &v.langs {
            *stacks.entry(s.clone()).or_insert(0) += 1;
        }
        // What this session says that its workspace's other sessions do not.
        let terms = match &v.workspace {
            Some(w) => builder.background(conn, w)?.specific(&v.terms),
            None => v.terms,
        };
        vocabs.push(terms);
    }
    let terms = vocabulary::merge(&vocabs);
    for (t, w) in &terms {
        tables::insert_term(conn, id, t, *w)?;
    }
    for (w, n) in &workspaces {
        tables::insert_place(conn, id, "workspace", w, *n)?;
    }
    for (s, n) in &stacks {
        tables::insert_place(conn, id, "lang", s, *n)?;
    }
    Ok(Built {
        placed: !workspaces.is_empty(),
        evidenced: !terms.is_empty(),
    })
}

/// A transcript's vocabulary and places, from the cache when the file has not grown.
fn session_vocab(conn: &Connection, file: tables::IndexedFile) -> Result<tables::SessionVocab> {
    if let Some(v) = tables::cached_vocab(conn, file.id)?
        && v.messages == file.messages
    {
        return Ok(v);
    }
    let stored = tables::messages(conn, file.id, vocabulary::MAX_MESSAGES)?;
    let said: Vec<vocabulary::Said> = stored
        .iter()
        .map(|m| vocabulary::Said {
            role: &m.role,
            kind: &m.kind,
            text: &m.text,
            is_error: m.is_error,
        })
        .collect();
    let mut langs = BTreeSet::new();
    for m in &said {
        if m.kind != "tool_result" {
            places::of_text(m.text, m.kind == "tool_call", &mut langs);
        }
    }
    let v = tables::SessionVocab {
        messages: file.messages,
        workspace: tables::workspace_of(conn, file.id)?,
        langs: langs.into_iter().map(str::to_string).collect(),
        terms: vocabulary::of_messages(&said),
    };
    tables::store_vocab(conn, file.id, &v)?;
    Ok(v)
}
