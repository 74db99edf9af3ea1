//! Reflecting on sessions: `cm reflect` and the post-session job. For each indexed session not
//! yet reflected on (or grown since), read its transcript from the index, run the deterministic
//! reflector, validate each proposed rule against the history, let the curator add what is new
//! ([`super::add_rules`]: duplicates merged, contradictions flagged), apply feedback once
//! ([`super::feedback_once`]), and store the diary entry.
//!
//! Idempotent: a session is reflected once per message count; run again (or with `force`),
//! every delta finds its work done (the same rule is a duplicate, the same feedback event is
//! already there), so a second run changes nothing. A lock per session keeps two hooks firing
//! at once from reflecting one session together.

use super::feedback_once::{self, Once};
use crate::config::Config;
use crate::episodic::model::SearchQuery;
use crate::episodic::sessions::{self, Session};
use crate::error::Result;
use crate::fsutil::FileLock;
use crate::memory::bullet::{Bullet, FeedbackSource, FeedbackType};
use crate::memory::new_rule::{self, RuleInput};
use crate::memory::playbook::Playbook;
use crate::reflect::delta::{Delta, LessonKind};
use crate::reflect::diary::{self, DiaryEntry, RelatedSession};
use crate::reflect::fixes;
use crate::reflect::privacy::Privacy;
use crate::reflect::tables;
use crate::reflect::transcript::Transcript;
use crate::reflect::validate::{self, Evidence, Verdict};
use crate::store::Store;
use serde::Serialize;
use serde_json::json;

/// Which sessions to reflect on.
#[derive(Debug, Clone, Default)]
pub struct ReflectRequest {
    /// Only the sessions of this indexed source file.
    pub session_file: Option<String>,
    /// Only sessions that ended at or after this time (RFC 3339).
    pub since: Option<String>,
    /// Only sessions in this workspace or a directory under it.
    pub workspace: Option<String>,
    pub max_sessions: usize,
    /// Propose and validate, write nothing.
    pub dry_run: bool,
    /// Reflect again on sessions already reflected on.
    pub force: bool,
    pub now: String,
    /// The optional LLM pass (`None`: deterministic only).
    pub llm: Option<crate::llm::LlmSettings>,
    /// Embeddings for near-duplicate detection, when semantic search is configured.
    pub embeddings: Option<crate::context::semantic::provider::Provider>,
}

/// A proposed rule and what the validator and curator made of it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Proposed {
    #[serde(flatten)]
    pub delta: Delta,
    #[serde(flatten)]
    pub verdict: Verdict,
    pub evidence: Evidence,
    /// `added` (its new id), `duplicate` (the id it repeats), or why it was not added.
    pub outcome: String,
    pub rule: Option<String>,
}

/// Feedback a session gave.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Feedback {
    pub rule: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub via: &'static str,
    /// `applied`, `already-applied`, `unknown-rule`, or `dry-run`.
    pub outcome: &'static str,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionReflection {
    pub agent: String,
    pub session_id: String,
    pub source_path: Option<String>,
    pub workspace: Option<String>,
    /// Why the session was not reflected on, when it was not.
    pub skipped: Option<String>,
    pub diary: Option<DiaryEntry>,
    pub proposed: Vec<Proposed>,
    pub feedback: Vec<Feedback>,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Reflected {
    pub sessions: Vec<SessionReflection>,
    /// Ids of the rules added.
    pub added: Vec<String>,
    pub feedback: Vec<Feedback>,
    /// Sessions waiting beyond `max_sessions`.
    pub remaining: usize,
    /// Sessions matched but already reflected on.
    pub already_reflected: usize,
    /// Sessions matched that hold no message yet (a transcript just begun): nothing to learn
    /// from; they are reflected on once they have messages.
    pub empty_sessions: usize,
    /// Sessions the LLM pass refined.
    pub llm_refined: usize,
    /// Why the LLM pass did not run (not configured, over budget, unreachable, a dry run), when
    /// it did not for some session: the reflection is then deterministic. Reported in
    /// `degraded.llm` only.
    #[serde(skip)]
    pub llm_unavailable: Option<crate::degraded::Issue>,
}

/// Reflect on the sessions `req` selects.
pub fn run(
    store: &Store,
    playbook: &Playbook,
    cfg: &Config,
    req: &ReflectRequest,
) -> Result<Reflected> {
    let privacy = Privacy::load()?;
    let candidates: Vec<Session> = match &req.session_file {
        Some(path) => sessions::of_file(store, path)?,
        None => sessions::list(
            store,
            &sessions::Filter {
                workspace: req.workspace.clone(),
                ended_since: req.since.clone(),
                limit: 1_000_000,
                ..Default::default()
            },
        )?,
    };
    let mut out = Reflected::default();
    let mut todo: Vec<Session> = Vec::new();
    for s in candidates {
        if s.parent_session_id.is_some() {
            continue; // a subagent's work belongs to its parent session
        }
        if s.message_count == 0 {
            out.empty_sessions += 1;
            continue;
        }
        let done = tables::reflected_at_count(store, &s.agent, &s.session_id)?;
        if !req.force && done == Some(s.message_count) {
            out.already_reflected += 1;
            continue;
        }
        todo.push(s);
    }
    // Oldest first, so a lesson seen again later finds the earlier session's diary.
    todo.reverse();
    if todo.len() > req.max_sessions {
        out.remaining = todo.len() - req.max_sessions;
        todo.truncate(req.max_sessions);
    }
    let locks = crate::paths::data_dir().join("locks");
    for s in todo {
        if !privacy.allows(&s.agent) {
            out.sessions.push(skipped(
                &s,
                if privacy.reflection {
                    format!("`cm privacy` denies reflection on {} sessions", s.agent)
                } else {
                    "reflection is disabled (`cm privacy enable` turns it on)".to_string()
                },
            ));
            continue;
        }
        let _lock = if req.dry_run {
            None
        } else {
            let key = format!("{}\0{}", s.agent, s.session_id);
            Some(FileLock::acquire(&locks.join(format!(
                "reflect-{:016x}.lock",
                crate::episodic::index::files::fnv1a(key.as_bytes())
            )))?)
        };
        // Another process may have reflected on it while this one waited for the lock.
        if !req.force
            && !req.dry_run
            && tables::reflected_at_count(store, &s.agent, &s.session_id)? == Some(s.message_count)
        {
            out.already_reflected += 1;
            continue;
        }
        let mut llm_state = LlmState::default();
        let one = session(store, playbook, cfg, req, &s, &mut llm_state)?;
        if llm_state.refined {
            out.llm_refined += 1;
        }
        if out.llm_unavailable.is_none() {
            out.llm_unavailable = llm_state.unavailable;
        }
        out.added.extend(
            one.proposed
                .iter()
                .filter(|p| p.outcome == "added")
                .filter_map(|p| p.rule.clone()),
        );
        out.feedback.extend(one.feedback.iter().cloned());
        out.sessions.push(one);
    }
    // What the hooks read is brought up to date now: a rule learned by the post-session job is
    // in the very next prompt's and session start's answer (they never rebuild the index).
    if !req.dry_run && (!out.added.is_empty() || !out.feedback.is_empty()) {
        let fresh = crate::context::index::mark_stale_evidence(store)
            .and_then(|_| crate::context::index::refresh(store));
        if let Err(e) = fresh {
            eprintln!(
                "cm: warning: context index not refreshed after reflection: {}",
                e.message
            );
        }
    }
    if req.dry_run
        && out.llm_unavailable.is_none()
        && out.sessions.iter().any(|s| s.skipped.is_none())
        && let Some(settings) = &req.llm
    {
        out.llm_unavailable = Some(match crate::llm::ready(settings) {
            Ok(kind) => crate::degraded::Issue::new(
                "LLM_SKIPPED_DRY_RUN",
                &format!(
                    "a dry run makes no LLM call: these proposals are the deterministic reflector's, without the {} pass a real run adds",
                    kind.name()
                ),
                "run `cm reflect` without --dry-run to let the LLM refine them",
            ),
            // What a real run would say (not configured, disabled, no key).
            Err(why) => why.issue(),
        });
    }
    Ok(out)
}

fn skipped(s: &Session, why: String) -> SessionReflection {
    SessionReflection {
        agent: s.agent.clone(),
        session_id: s.session_id.clone(),
        source_path: s.source_path.clone(),
        workspace: s.workspace.clone(),
        skipped: Some(why),
        diary: None,
        proposed: Vec::new(),
        feedback: Vec::new(),
    }
}

/// Other sessions of the workspace whose messages hold `words`, with how they ended.
fn evidence(store: &Store, s: &Session, words: &[String]) -> Result<(Evidence, SessionKeys)> {
    evidence_in(store, s.workspace.as_deref(), Some(&s.session_id), words)
}

/// Sessions by (agent, session id).
pub type SessionKeys = Vec<(String, String)>;

/// The text `cm validate` weighs: held to the checks `playbook add` makes (`EMPTY_RULE`,
/// `RULE_TOO_LONG`), with secrets redacted so the answer never repeats one and the validator
/// sees that the rule would carry it.
pub fn validation_text(text: &str) -> Result<String> {
    let text = new_rule::rule_text(text)?;
    Ok(crate::redact::redact(&text).0)
}

/// What `cm validate "RULE"` answers: the verdict a rule stated by a person would get, with the
/// sessions (of `workspace`, else all) where its situation occurred.
pub fn validate_text(
    store: &Store,
    text: &str,
    workspace: Option<&str>,
) -> Result<(Verdict, Evidence, SessionKeys)> {
    let words = crate::reflect::lessons::situation_words(text);
    let (ev, sessions) = evidence_in(store, workspace, None, &words)?;
    Ok((
        validate::judge(text, LessonKind::Convention, &ev),
        ev,
        sessions,
    ))
}

fn evidence_in(
    store: &Store,
    workspace: Option<&str>,
    except: Option<&str>,
    words: &[String],
) -> Result<(Evidence, SessionKeys)> {
    let mut ev = Evidence::default();
    let mut others: Vec<(String, String)> = Vec::new();
    // Only the rule's distinctive words are evidence: a session sharing "run" and "tests" with
    // it is no sign that its situation occurred there.
    let total = sessions::count(store)?.max(0) as u64;
    let words = crate::reflect::distinctive::distinctive(words, total, |w| {
        crate::episodic::search::spread::sessions_with(store, w, total / 2 + 1).unwrap_or(0)
    });
    if words.is_empty() {
        return Ok((ev, others));
    }
    let hits = crate::episodic::search::search(
        store,
        &SearchQuery {
            query: words.iter().take(4).cloned().collect::<Vec<_>>().join(" "),
            limit: 30,
            workspace: workspace.map(str::to_string),
            ..Default::default()
        },
    )
    .unwrap_or_default();
    let needed = words.len().min(2);
    for h in hits {
        let snippet = h.snippet.to_lowercase();
        if words
            .iter()
            .filter(|w| snippet.contains(&w.to_lowercase()))
            .count()
            < needed
        {
            continue; // matched a word or two of the situation, not the situation
        }
        if Some(h.session_id.as_str()) == except
            || others
                .iter()
                .any(|(a, id)| *a == h.agent && *id == h.session_id)
        {
            continue;
        }
        others.push((h.agent.clone(), h.session_id.clone()));
    }
    ev.sessions = others.len();
    for (agent, id) in &others {
        match tables::status_of(store, agent, id)?.as_deref() {
            Some("success") => ev.succeeded += 1,
            Some("failure") => ev.failed += 1,
            _ => {}
        }
    }
    Ok((ev, others))
}

/// Sessions of the workspace that hit the same errors; for an error this session left
/// unresolved, a rule naming the fix an earlier session found (from its diary).
fn recurring(
    store: &Store,
    s: &Session,
    t: &Transcript,
    deltas: &mut Vec<Delta>,
) -> Result<Vec<RelatedSession>> {
    let mut related = Vec::new();
    let failures: Vec<fixes::Failure> = fixes::failures(t)
        .into_iter()
        .filter(|f| !f.trivial)
        .collect();
    if failures.is_empty() || s.workspace.is_none() {
        return Ok(related);
    }
    let earlier = tables::entries(store, s.workspace.as_deref(), None, 200)?;
    let earlier: Vec<&DiaryEntry> = earlier
        .iter()
        .filter(|e| e.session_id != s.session_id)
        .collect();
    for f in failures.iter().take(5) {
        let words = crate::reflect::lessons::situation_words(&f.error);
        // The same failure in an earlier session of this workspace: the same step failing with
        // an error that shares most of its words.
        let same = |c: &diary::FailedCommand| {
            fixes::base(&c.command) == fixes::base(&f.command) && {
                let lower = c.error.to_lowercase();
                let shared = words
                    .iter()
                    .filter(|w| lower.contains(&w.to_lowercase()))
                    .count();
                shared * 2 >= words.len().max(1)
            }
        };
        let seen: Vec<&&DiaryEntry> = earlier
            .iter()
            .filter(|e| e.failed_commands.iter().any(same))
            .collect();
        for e in seen.iter().take(5) {
            if !related
                .iter()
                .any(|r: &RelatedSession| r.session_id == e.session_id)
            {
                related.push(RelatedSession {
                    agent: e.agent.clone(),
                    session_id: e.session_id.clone(),
                    why: format!("also hit: {}", f.error),
                });
            }
        }
        let ev = Evidence {
            sessions: seen.len(),
            succeeded: seen
                .iter()
                .filter(|e| e.status == diary::Status::Success)
                .count(),
            failed: seen
                .iter()
                .filter(|e| e.status == diary::Status::Failure)
                .count(),
        };
        if f.fix.is_some() || ev.sessions == 0 {
            continue;
        }
        let known_fix = seen
            .iter()
            .flat_map(|e| e.failed_commands.iter())
            .find(|c| same(c) && c.fixed_by.is_some())
            .and_then(|c| c.fixed_by.clone());
        // The step and the error's message as a rule names them, never the line that ran.
        let step = crate::reflect::gist::shown(&f.command);
        let cause = f
            .cause
            .as_ref()
            .map(|c| format!(" with '{c}'"))
            .unwrap_or_default();
        let content = match known_fix {
            Some(fix) => format!(
                "When `{step}` fails{cause} (seen in {} sessions of this project), apply the fix that worked before: {fix}.",
                ev.sessions + 1
            ),
            None => format!(
                "`{step}` keeps failing{cause} in this project ({} sessions); find the cause instead of retrying.",
                ev.sessions + 1
            ),
        };
        deltas.push(Delta::Add {
            category: "debugging".into(),
            situation: words,
            content,
            lesson: LessonKind::Recurring,
            reason: None,
            line: f.line,
        });
    }
    Ok(related)
}

/// What the LLM pass did for one session.
#[derive(Default)]
struct LlmState {
    refined: bool,
    unavailable: Option<crate::degraded::Issue>,
}

/// The LLM pass: the model's diary lines merged into `entry`, its rules appended to `deltas`.
/// Any failure (no provider, no key, over budget, unreachable, an answer that fails the schema
/// twice) leaves the deterministic result as it is and says why.
fn llm_pass(
    store: &Store,
    settings: Option<&crate::llm::LlmSettings>,
    t: &Transcript,
    entry: &mut DiaryEntry,
    deltas: &mut Vec<Delta>,
    session_ref: &str,
    state: &mut LlmState,
) {
    use crate::reflect::llm_pass;
    let Some(settings) = settings else {
        return; // `--no-llm`: deterministic by request
    };
    let schema = llm_pass::schema();
    let system = llm_pass::system();
    let prompt = llm_pass::prompt(t, entry, deltas);
    let req = crate::llm::LlmRequest {
        purpose: "reflect",
        system: &system,
        prompt: &prompt,
        schema: &schema,
        max_output_tokens: 1200,
        session: Some(session_ref),
    };
    match crate::llm::complete_json(settings, store, &req) {
        Ok(answer) => {
            for w in &answer.budget_warnings {
                eprintln!("cm reflect: {w}");
            }
            let proposed = llm_pass::apply(&answer.value, entry);
            for d in proposed {
                if let Delta::Add { content, .. } = &d
                    && deltas.iter().any(|e| matches!(e, Delta::Add { content: c, .. } if c.eq_ignore_ascii_case(content)))
                {
                    continue;
                }
                deltas.push(d);
            }
            state.refined = true;
        }
        Err(why) => state.unavailable = Some(why.issue()),
    }
}

fn session(
    store: &Store,
    playbook: &Playbook,
    cfg: &Config,
    req: &ReflectRequest,
    s: &Session,
    llm_state: &mut LlmState,
) -> Result<SessionReflection> {
    let messages = sessions::messages(store, &s.agent, &s.session_id, 0, i64::MAX)?;
    let t = Transcript::from_messages(&messages);
    if t.user_texts()
        .next()
        .is_some_and(|(_, text)| crate::llm::is_own_call(text))
    {
        return Ok(skipped(s, "a session of cm's own LLM calls".into()));
    }
    let failures = fixes::failures(&t);
    let status = diary::status_of(&t, &failures);
    let mut deltas = crate::reflect::lessons::reflect(
        &t,
        status == diary::Status::Success,
        s.workspace.as_deref(),
    );
    let related = recurring(store, s, &t, &mut deltas)?;
    let session_ref = s
        .source_path
        .clone()
        .unwrap_or_else(|| format!("{}/{}", s.agent, s.session_id));
    let about = diary::About {
        agent: &s.agent,
        session_id: &s.session_id,
        session_path: s.source_path.as_deref(),
        workspace: s.workspace.as_deref(),
        git_branch: s.git_branch.as_deref(),
        title: s.title.as_deref(),
        now: &req.now,
    };
    let mut entry = diary::redacted(diary::write(&t, &about, &deltas, related));
    let refined_before = tables::llm_refined(store, &s.agent, &s.session_id)?;
    if !req.dry_run && (req.force || !refined_before) {
        llm_pass(
            store,
            req.llm.as_ref(),
            &t,
            &mut entry,
            &mut deltas,
            &session_ref,
            llm_state,
        );
    }
    let mut proposed: Vec<Proposed> = Vec::new();
    let mut fresh: Vec<(usize, Bullet)> = Vec::new();
    let mut feedback: Vec<Feedback> = Vec::new();
    for d in deltas {
        match &d {
            Delta::Add {
                content,
                category,
                lesson,
                reason,
                line,
                situation,
            } => {
                let (ev, _) = evidence(store, s, situation)?;
                let mut verdict = validate::judge(content, *lesson, &ev);
                if *lesson == LessonKind::Model
                    && !crate::reflect::llm_pass::grounded(situation, &t)
                    && !matches!(verdict, Verdict::Reject { .. })
                {
                    verdict = Verdict::Reject {
                        reason: "its words do not occur in the session".into(),
                    };
                }
                let mut outcome = String::new();
                if let Verdict::Reject { reason } = &verdict {
                    outcome = format!("rejected: {reason}");
                } else {
                    let mut tags: Vec<String> = vec!["learned".into()];
                    tags.extend(entry.tags.iter().cloned());
                    // The place it was learned in: the workspace is its scope, the files go in
                    // the provenance (as tags they would weigh in every ranking).
                    let mut reasoning =
                        validate::provenance(*lesson, &session_ref, *line, &ev, reason.as_deref());
                    if !entry.files_touched.is_empty() {
                        let files: Vec<&str> = entry
                            .files_touched
                            .iter()
                            .take(5)
                            .map(String::as_str)
                            .collect();
                        reasoning.push_str(&format!(" Files: {}.", files.join(", ")));
                    }
                    let built = new_rule::build(RuleInput {
                        content,
                        category: Some(category),
                        tags: &tags,
                        scope: s.workspace.as_ref().map(|_| "workspace"),
                        custom_categories: &cfg.custom_categories,
                        session: Some(&session_ref),
                        agent: Some(&s.agent),
                        reasoning: Some(&reasoning),
                        workspace: s.workspace.as_deref(),
                        now: &req.now,
                    });
                    match built {
                        Ok(b) => fresh.push((proposed.len(), b)),
                        Err(e) => outcome = format!("rejected: {}", e.message),
                    }
                }
                proposed.push(Proposed {
                    delta: d.clone(),
                    verdict,
                    evidence: ev,
                    outcome,
                    rule: None,
                });
            }
            Delta::Helpful {
                rule, reason, via, ..
            } => {
                feedback.push(give(
                    store,
                    playbook,
                    cfg,
                    req,
                    s,
                    &session_ref,
                    rule,
                    FeedbackType::Helpful,
                    reason.as_deref(),
                    via,
                )?);
            }
            Delta::Harmful { rule, reason, .. } => {
                feedback.push(give(
                    store,
                    playbook,
                    cfg,
                    req,
                    s,
                    &session_ref,
                    rule,
                    FeedbackType::Harmful,
                    reason.as_deref(),
                    "inline",
                )?);
            }
        }
    }
    // What the validator refused (a planted or secret-bearing rule) is not a learning of the
    // session either, and no diary line may carry a credential.
    let refused: Vec<String> = proposed
        .iter()
        .filter(|p| p.outcome.starts_with("rejected"))
        .filter_map(|p| match &p.delta {
            Delta::Add { content, .. } => Some(content.clone()),
            _ => None,
        })
        .collect();
    // A refused rule that carried a credential is not repeated in the answer either.
    for p in proposed.iter_mut() {
        if p.outcome.contains("credential")
            && let Delta::Add {
                content, situation, ..
            } = &mut p.delta
        {
            *content = "[withheld: it carried a credential]".into();
            situation.clear();
        }
    }
    // The LLM pass may have repeated a line or listed the request as done.
    crate::reflect::tidy::tidy(&mut entry, &t);
    entry.key_learnings.retain(|l| !refused.contains(l));
    entry.preferences.retain(|l| !refused.contains(l));
    for lines in [
        &mut entry.accomplishments,
        &mut entry.decisions,
        &mut entry.challenges,
        &mut entry.key_learnings,
        &mut entry.preferences,
    ] {
        crate::reflect::safety::scrub(lines);
    }
    if !req.dry_run {
        let more = restated(
            store,
            playbook,
            cfg,
            req,
            s,
            &session_ref,
            &mut fresh,
            &mut proposed,
            &feedback,
        )?;
        feedback.extend(more);
    }
    if req.dry_run {
        for (i, _) in &fresh {
            proposed[*i].outcome = "dry-run".into();
        }
    } else if let Some(provider) = &req.embeddings {
        {
            fresh.retain(|(slot, b)| {
                match semantic_duplicate(
                    store,
                    playbook,
                    provider,
                    crate::reflect::situation::strip(&b.content),
                    cfg.dedup_similarity_threshold,
                ) {
                    Some((id, sim)) => {
                        let p = &mut proposed[*slot];
                        p.outcome =
                            format!("near-duplicate (embeddings, {:.0}% alike)", sim * 100.0);
                        p.rule = Some(id);
                        false
                    }
                    None => true,
                }
            });
        }
    }
    if !req.dry_run && !fresh.is_empty() {
        let (slots, bullets): (Vec<usize>, Vec<Bullet>) = fresh.into_iter().unzip();
        let ids: Vec<String> = bullets.iter().map(|b| b.id.clone()).collect();
        let contents: Vec<String> = bullets.iter().map(|b| b.content.clone()).collect();
        let added = super::add_rules::add(
            store,
            playbook,
            bullets,
            None,
            cfg.dedup_similarity_threshold,
            false,
        )?;
        for ((slot, id), content) in slots.into_iter().zip(ids).zip(contents) {
            let p = &mut proposed[slot];
            if added.fresh.iter().any(|b| b.id == id) {
                p.outcome = "added".into();
                p.rule = Some(id);
            } else if let Some(d) = added.duplicates.iter().find(|d| d.content == content) {
                p.outcome = if d.same {
                    "duplicate".into()
                } else {
                    "near-duplicate".into()
                };
                p.rule = Some(d.duplicate_of.clone());
            }
        }
    }
    if !req.dry_run {
        let result = json!({
            "added": proposed.iter().filter(|p| p.outcome == "added").filter_map(|p| p.rule.clone()).collect::<Vec<_>>(),
            "feedback": feedback.iter().filter(|f| f.outcome == "applied").map(|f| json!({"rule": f.rule, "type": f.kind})).collect::<Vec<_>>(),
            "rejected": proposed.iter().filter(|p| p.outcome.starts_with("rejected")).count(),
            "llm": llm_state.refined || refined_before,
        });
        store.write(|tx| {
            tables::save_entry(tx, &entry)?;
            tables::record_reflection(
                tx,
                &s.agent,
                &s.session_id,
                s.message_count,
                &req.now,
                &result,
            )
        })?;
    }
    Ok(SessionReflection {
        agent: s.agent.clone(),
        session_id: s.session_id.clone(),
        source_path: s.source_path.clone(),
        workspace: s.workspace.clone(),
        skipped: None,
        diary: Some(entry),
        proposed,
        feedback,
    })
}

/// One lesson, one rule: a rule learned here that restates a live rule of the workspace (or one
/// learned earlier in this session) is not added; the live rule gets a helpful mark and this
/// session as a source instead ([`crate::reflect::restate`]).
#[allow(clippy::too_many_arguments)]
fn restated(
    store: &Store,
    playbook: &Playbook,
    cfg: &Config,
    req: &ReflectRequest,
    s: &Session,
    session_ref: &str,
    fresh: &mut Vec<(usize, Bullet)>,
    proposed: &mut [Proposed],
    feedback: &[Feedback],
) -> Result<Vec<Feedback>> {
    use crate::reflect::restate::same_lesson;
    let mut given = Vec::new();
    if fresh.is_empty() || s.workspace.is_none() {
        return Ok(given);
    }
    let live: Vec<Bullet> = crate::memory::tables::bullets::load_all(store)?
        .into_iter()
        .filter(|b| b.is_live() && b.scope_key == s.workspace)
        .collect();
    let mut kept: Vec<(usize, Bullet)> = Vec::new();
    for (slot, b) in fresh.drain(..) {
        if let Some((_, first)) = kept
            .iter()
            .find(|(_, k)| same_lesson(&b.content, &k.content))
        {
            proposed[slot].outcome = "restated".into();
            proposed[slot].rule = Some(first.id.clone());
            continue;
        }
        let Some(old) = live.iter().find(|o| same_lesson(&b.content, &o.content)) else {
            kept.push((slot, b));
            continue;
        };
        proposed[slot].outcome = "restated".into();
        proposed[slot].rule = Some(old.id.clone());
        // The rule this very session taught (reflected on again, with --force): nothing new.
        if old.source_sessions.iter().any(|x| x == session_ref) {
            continue;
        }
        playbook.change(&old.id, "restated", |r| {
            if !r.source_sessions.iter().any(|x| x == session_ref) {
                r.source_sessions.push(session_ref.to_string());
            }
            Ok(Vec::new())
        })?;
        if !feedback
            .iter()
            .chain(&given)
            .any(|f| f.rule == old.id && f.kind == "helpful")
        {
            given.push(give(
                store,
                playbook,
                cfg,
                req,
                s,
                session_ref,
                &old.id,
                FeedbackType::Helpful,
                Some("the same lesson came up again in another session"),
                "restated",
            )?);
        }
    }
    *fresh = kept;
    Ok(given)
}

/// The live rule an embedding finds at least `threshold` alike to `content`, when there is
/// one. Embeddings that cannot be had (endpoint down) leave the lexical curation alone.
fn semantic_duplicate(
    store: &Store,
    playbook: &Playbook,
    provider: &crate::context::semantic::provider::Provider,
    content: &str,
    threshold: f64,
) -> Option<(String, f64)> {
    let repo = playbook.readable_repo_rules();
    let found = crate::context::semantic::similarities(store, Some(provider), content, &repo);
    if found.issue.is_some() {
        return None;
    }
    let mut best: Vec<(String, f64)> = found
        .similarity
        .into_iter()
        .filter(|(_, s)| *s >= threshold)
        .collect();
    best.sort_by(|a, b| b.1.total_cmp(&a.1));
    best.into_iter()
        .find(|(id, _)| playbook.get(id).is_ok_and(|e| e.bullet.is_live()))
}

#[allow(clippy::too_many_arguments)]
fn give(
    store: &Store,
    playbook: &Playbook,
    cfg: &Config,
    req: &ReflectRequest,
    s: &Session,
    session_ref: &str,
    rule: &str,
    kind: FeedbackType,
    reason: Option<&str>,
    via: &'static str,
) -> Result<Feedback> {
    let type_name = match kind {
        FeedbackType::Helpful => "helpful",
        FeedbackType::Harmful => "harmful",
    };
    let mut fb = Feedback {
        rule: rule.to_string(),
        kind: type_name,
        via,
        outcome: "dry-run",
    };
    if req.dry_run {
        return Ok(fb);
    }
    // One event per session, rule and verdict, whatever reflects on the session again.
    let given_by = format!("session:{}/{}:{type_name}", s.agent, s.session_id);
    let source = if via == "inline" {
        FeedbackSource::Inline
    } else {
        FeedbackSource::Audit
    };
    let given = store.write(|tx| {
        feedback_once::give(
            playbook,
            tx,
            &Once {
                rule,
                action: "reflect",
                given_by: &given_by,
                kind,
                source,
                reason,
                session_path: Some(session_ref),
                now: &req.now,
                scoring: &cfg.scoring,
                weight: None,
            },
        )
    })?;
    fb.outcome = if given.missing {
        "unknown-rule"
    } else if given.applied {
        "applied"
    } else {
        "already-applied"
    };
    Ok(fb)
}
