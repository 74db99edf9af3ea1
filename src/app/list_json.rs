//! `cm playbook list --json` without building the rules: the fast path for big playbooks.
//!
//! Each personal rule is stored as the JSON document the list prints (events included), so the
//! list streams those documents through, adding `effectiveScore` and `location`. Only the few
//! fields the filter and the score need are parsed (borrowed, no allocation for the rest). The
//! output is the same as the general path's ([`crate::memory::view::BulletView`]), field for field, which a test
//! checks; when the documents' event copies disagree with the event table, the caller falls
//! back to the general path.

use crate::config::Scoring;
use crate::error::{CmError, Result};
use crate::memory::bullet::{FeedbackType, Maturity, State};
use crate::memory::playbook::{Entry, Playbook};
use crate::memory::scoring::{assess_feedback, decayed_sums_of, on_purpose, round3};
use crate::memory::tables::bullets::{self as rows, RawBullet};
use crate::output::Report;
use chrono::{DateTime, Utc};
use serde::Deserialize;
use std::borrow::Cow;

/// The fields of a stored document that filtering and scoring read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Slim<'a> {
    #[serde(default)]
    state: State,
    #[serde(default)]
    deprecated: bool,
    #[serde(default)]
    maturity: Maturity,
    #[serde(default)]
    helpful_count: u32,
    #[serde(default)]
    harmful_count: u32,
    #[serde(default)]
    pinned: bool,
    #[serde(default, borrow)]
    deprecation_reason: Option<Cow<'a, str>>,
    #[serde(default, borrow)]
    created_at: Cow<'a, str>,
    #[serde(default, borrow)]
    feedback_events: Vec<SlimEvent<'a>>,
}

#[derive(Deserialize)]
struct SlimEvent<'a> {
    #[serde(rename = "type")]
    kind: FeedbackType,
    #[serde(borrow)]
    timestamp: Cow<'a, str>,
    #[serde(default)]
    weight: Option<f64>,
}

pub struct Filter<'a> {
    pub all: bool,
    pub category: Option<&'a str>,
    pub limit: Option<usize>,
}

/// The list as a streamed report, or `None` when the general path must be used. Stored
/// maturities that are not what the feedback says now are brought in step first (one write),
/// so the stream stays exact; when that write is not possible (a read-only store), the general
/// path computes them.
pub fn list(
    playbook: &Playbook,
    scoring: &Scoring,
    now: DateTime<Utc>,
    filter: &Filter,
) -> Result<Option<Report>> {
    match scan(playbook, scoring, now, filter)? {
        Scan::Stale => {
            if playbook.settle_stored(scoring, now).is_err() {
                return Ok(None);
            }
            match scan(playbook, scoring, now, filter)? {
                Scan::Ready(r) => Ok(Some(r)),
                _ => Ok(None),
            }
        }
        Scan::Ready(r) => Ok(Some(r)),
        Scan::Fallback => Ok(None),
    }
}

enum Scan {
    Ready(Report),
    /// A stored maturity differs from the one the feedback gives now.
    Stale,
    /// The documents' event copies disagree with the event table.
    Fallback,
}

fn scan(
    playbook: &Playbook,
    scoring: &Scoring,
    now: DateTime<Utc>,
    filter: &Filter,
) -> Result<Scan> {
    let repo: Vec<Entry> = playbook
        .load_all_repo()?
        .into_iter()
        .filter(|e| filter.all || e.bullet.is_live())
        .filter(|e| filter.category.is_none_or(|c| e.bullet.category == c))
        .collect();
    let store = playbook.store;
    let raw = rows::load_all_raw(store)?;
    let mut personal: Vec<(RawBullet, f64)> = Vec::with_capacity(raw.len());
    let mut events = 0i64;
    for r in raw {
        let slim: Slim = serde_json::from_str(&r.doc)
            .map_err(|e| CmError::internal(format!("a stored rule is unreadable: {e}")))?;
        events += slim.feedback_events.len() as i64;
        let (h, x) = decayed_sums_of(
            slim.feedback_events
                .iter()
                .map(|e| (e.kind, e.timestamp.as_ref(), e.weight.unwrap_or(1.0))),
            (slim.helpful_count, slim.harmful_count),
            &slim.created_at,
            scoring,
            now,
        );
        // A stored maturity that is not what the feedback says now (the config changed, or an
        // older version kept a deprecation): the general path shows the current one.
        let reason = slim.deprecation_reason.as_deref();
        if !on_purpose(slim.deprecated, slim.state, reason) {
            let now_is = assess_feedback(
                slim.pinned,
                (slim.helpful_count, slim.harmful_count),
                (h, x),
                scoring,
            );
            if now_is.maturity != slim.maturity || now_is.reason.as_deref() != reason {
                return Ok(Scan::Stale);
            }
        }
        let live = !slim.deprecated
            && slim.maturity != Maturity::Deprecated
            && slim.state != State::Retired;
        if !(filter.all || live) || filter.category.is_some_and(|c| r.category != c) {
            continue;
        }
        let score = round3(h - scoring.harmful_multiplier * x);
        drop(slim);
        personal.push((r, score));
    }
    if events != rows::event_count(store)? {
        return Ok(Scan::Fallback);
    }
    let total = repo.len() + personal.len();
    let count = filter.limit.unwrap_or(total).min(total);
    let repo_shown = repo.len().min(count);
    let personal_shown = count - repo_shown;
    let scoring = scoring.clone();
    let degraded = crate::degraded::Degraded {
        repo_playbook: playbook.repo_issue(),
        ..Default::default()
    }
    .to_json();
    Ok(Scan::Ready(Report::streamed(move |w| {
        w.write_all(b"{\"bullets\":[")?;
        let mut first = true;
        for e in &repo[..repo_shown] {
            if !first {
                w.write_all(b",")?;
            }
            first = false;
            serde_json::to_writer(
                &mut *w,
                &crate::memory::view::BulletView::new(e, &scoring, now),
            )?;
        }
        for (r, score) in &personal[..personal_shown] {
            if !first {
                w.write_all(b",")?;
            }
            first = false;
            let body = r.doc.trim_end();
            let body = body.strip_suffix('}').unwrap_or(body);
            w.write_all(body.as_bytes())?;
            // A document always has fields, so a comma always separates the additions.
            write!(
                w,
                ",\"effectiveScore\":{},\"location\":\"personal\"}}",
                serde_json::to_string(score).unwrap_or_else(|_| "0.0".into())
            )?;
        }
        write!(
            w,
            "],\"count\":{count},\"total\":{total},\"degraded\":{degraded}}}"
        )?;
        // The process exits right after printing; freeing every document one by one would
        // cost more than writing them.
        std::mem::forget(personal);
        Ok(())
    })))
}
