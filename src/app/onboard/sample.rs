//! `cm onboard sample`: indexed sessions worth reading next, scored toward the playbook's gaps
//! (`onboard::score`). The newest sessions matching the filters form the pool (at most
//! [`POOL`]); each is read from the index (the first [`TEXT_CAP`] bytes of its messages) for its
//! topics, failed tool calls and user corrections.

use super::Progress;
use crate::context::gaps::Gaps;
use crate::episodic::sessions::{self, Session};
use crate::error::Result;
use crate::onboard::score::{self, Score, Signals};
use crate::onboard::signals;
use crate::store::Store;
use serde::Serialize;

/// Sessions looked at per sample, the most recent first.
pub const POOL: usize = 400;
/// Bytes of a session's text read for its topics.
pub const TEXT_CAP: usize = 64 * 1024;

#[derive(Debug, Clone, Default)]
pub struct Request {
    pub fill_gaps: bool,
    pub agent: Option<String>,
    pub workspace: Option<String>,
    pub ended_since: Option<String>,
    pub limit: usize,
    pub include_processed: bool,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Pick {
    pub path: Option<String>,
    pub agent: String,
    pub session_id: String,
    pub workspace: Option<String>,
    pub title: Option<String>,
    pub ended_at: Option<String>,
    pub message_count: i64,
    pub errors: usize,
    pub corrections: usize,
    pub topics: Vec<&'static str>,
    pub processed: bool,
    pub score: Score,
    pub read: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Sample {
    pub considered: usize,
    pub skipped_processed: usize,
    pub pool_cut: bool,
    pub sessions: Vec<Pick>,
}

/// What sampling reads of one session.
pub fn signals_of(store: &Store, s: &Session) -> Result<(Signals, String)> {
    let mut text = String::new();
    let (mut errors, mut corrections) = (0, 0);
    for m in sessions::messages(store, &s.agent, &s.session_id, 0, i64::MAX)? {
        errors += usize::from(m.is_error);
        if m.kind == "scaffolding" {
            continue;
        }
        if m.role == "user" && m.kind == "text" && signals::is_correction(&m.text) {
            corrections += 1;
        }
        if text.len() < TEXT_CAP {
            text.push_str(&m.text);
            text.push('\n');
        }
    }
    if let Some(t) = &s.title {
        text.push_str(t);
    }
    let sig = Signals {
        messages: s.message_count,
        errors,
        corrections,
        topics: signals::topics(&text),
    };
    Ok((sig, text))
}

/// A gap category's status, by name.
pub fn status_in(gaps: &Gaps) -> impl Fn(&str) -> &'static str + '_ {
    |c| {
        gaps.categories
            .iter()
            .find(|g| g.category == c)
            .map(|g| g.status)
            .unwrap_or("well-covered")
    }
}

pub fn sample(store: &Store, gaps: &Gaps, req: &Request) -> Result<Sample> {
    let pool = sessions::list(
        store,
        &sessions::Filter {
            agent: req.agent.clone(),
            workspace: req.workspace.clone(),
            ended_since: req.ended_since.clone(),
            limit: POOL + 1,
        },
    )?;
    let pool_cut = pool.len() > POOL;
    let progress = Progress::load(store)?;
    let status = status_in(gaps);
    let (mut picks, mut skipped) = (Vec::new(), 0);
    for s in pool.into_iter().take(POOL) {
        let processed = progress.is_done(&s);
        if processed && !req.include_processed {
            skipped += 1;
            continue;
        }
        let (sig, _) = signals_of(store, &s)?;
        let sc = score::score(&sig, &status, req.fill_gaps);
        let key = s
            .source_path
            .clone()
            .unwrap_or_else(|| s.session_id.clone());
        picks.push(Pick {
            read: format!("cm onboard read {} --template", shell_word(&key)),
            path: s.source_path,
            agent: s.agent,
            session_id: s.session_id,
            workspace: s.workspace,
            title: s.title,
            ended_at: s.ended_at,
            message_count: s.message_count,
            errors: sig.errors,
            corrections: sig.corrections,
            topics: sig.topics,
            processed,
            score: sc,
        });
    }
    let considered = picks.len() + skipped;
    picks.sort_by(|a, b| {
        b.score
            .total
            .total_cmp(&a.score.total)
            .then_with(|| b.ended_at.cmp(&a.ended_at))
    });
    picks.truncate(req.limit);
    Ok(Sample {
        considered,
        skipped_processed: skipped,
        pool_cut,
        sessions: picks,
    })
}

/// `s` quoted for a POSIX shell when it needs it.
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:@,=".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}
