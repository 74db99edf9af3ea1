//! The repository's shared playbook, `.cass/playbook.yaml`, committed with the code so a team
//! shares rules through git. Read-modify-write happens under an advisory lock and the file is
//! replaced atomically; a file that does not parse is reported with its path and never rewritten.
//! Readers get its rules through [`untrusted`]: only those that pass the playbook's safety check,
//! with no trust fields of their own and ids of their own (`repo:ID`).

use super::bullet::{Bullet, FeedbackEvent, FeedbackType, Maturity};
use super::formats::{self, Format, PlaybookDoc};
use super::tables::repo_feedback;
use cm_base::error::{CmError, Result};
use cm_base::fsutil::{self, FileLock};
use rusqlite::Connection;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const FILE_NAME: &str = "playbook.yaml";

pub fn path_in(cass_dir: &Path) -> PathBuf {
    cass_dir.join(FILE_NAME)
}

/// The most of a repository playbook a command reads: a committed file comes from whoever wrote
/// the repository, and parsing YAML costs about 0.25 ms per KiB (4 MiB, some 13,000 rules: about
/// a second).
pub const LOAD_CAP: u64 = 4 << 20;
/// The most a context hook reads: it has the hook budget (50 ms by default) for everything, and
/// 64 KiB (some 200 rules) parse in about 16 ms. A larger file is left out of the hooks, with a
/// line on stderr; `cm context` still reads it.
pub const HOOK_CAP: u64 = 64 << 10;

/// The bullets in `path`; a missing file is an empty playbook.
pub fn load(path: &Path) -> Result<Vec<Bullet>> {
    load_capped(path, LOAD_CAP)
}

/// [`load`], reading at most `cap` bytes (a larger file is an error naming it). The file's
/// shape is bounded before it is parsed ([`super::parse_limits`]): a deeply nested or
/// alias-laden file is refused in microseconds instead of parsed for seconds.
fn load_capped(path: &Path, cap: u64) -> Result<Vec<Bullet>> {
    // A committed file: only a regular one is read (never a FIFO or device), up to `cap`.
    let text = match cm_base::untrusted::read_text(path, cap) {
        Ok(Some(t)) => t,
        Ok(None) => return Ok(Vec::new()),
        Err(e) => return Err(CmError::io(path, "read", &e)),
    };
    super::parse_limits::check(&text)
        .and_then(|()| formats::parse(&text, Format::Yaml))
        .map_err(|msg| {
            CmError::config("REPO_PLAYBOOK_INVALID", format!("{}: {msg}", path.display()))
                .hint("fix the file by hand (cm never rewrites a file it cannot parse), or check it out again from git")
        })
}

/// What a repository rule's id is prefixed with wherever cm shows or resolves it, so it never
/// shares an id with a personal rule (a repository reusing a personal rule's id cannot shadow
/// it, nor receive its marks).
pub const ID_PREFIX: &str = "repo:";

/// The id cm knows the repository rule `raw` (its id in the file) by.
pub fn view_id(raw: &str) -> String {
    format!("{ID_PREFIX}{raw}")
}

/// The id in the file of the repository rule cm knows as `view`.
pub fn raw_id(view: &str) -> &str {
    view.strip_prefix(ID_PREFIX).unwrap_or(view)
}

/// The key of a repository file's rows in `repo_rule_feedback`.
pub fn feedback_key(path: &Path) -> String {
    path.display().to_string()
}

/// The rules of a repository file as cm may use them. The file is written by whoever wrote the
/// repository, so its rules carry no trust of their own (feedback counts, events, maturity and
/// pins in the file are ignored: a rule claiming `helpfulCount: 900, maturity: proven` starts
/// as a candidate like any new rule; this user's own feedback is added by [`with_feedback`]),
/// their ids (and the ids they say they contradict) are namespaced ([`view_id`]), and each
/// passes the playbook's safety check ([`super::safety`]); a refused rule is left out and named
/// on stderr (the first five, then a count). With a `deadline`, the rules not judged by then are
/// left out too: a hook answers with fewer repository rules rather than late or with an
/// unjudged one.
pub fn untrusted(rules: Vec<Bullet>, who: &str, deadline: Option<Instant>) -> Vec<Bullet> {
    const SHOWN: usize = 5;
    let total = rules.len();
    let mut out = Vec::with_capacity(total);
    let mut refused = 0;
    for (i, mut b) in rules.into_iter().enumerate() {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            eprintln!(
                "{who}: {} repository rule(s) not checked before the deadline are left out",
                total - i
            );
            break;
        }
        if let Some(why) = super::safety::refusal(&b.content) {
            refused += 1;
            if refused <= SHOWN {
                eprintln!(
                    "{who}: repository rule {} left out: {why}",
                    cm_base::text::clip::clip(&b.id, 40)
                );
            }
            continue;
        }
        b.id = view_id(&b.id);
        for c in &mut b.contradicts {
            *c = view_id(c);
        }
        strip_trust(&mut b);
        out.push(b);
    }
    if refused > SHOWN {
        eprintln!(
            "{who}: {} more repository rule(s) left out by the safety check",
            refused - SHOWN
        );
    }
    out
}

/// Give [`untrusted`] rules this user's own feedback on them (`repo_rule_feedback`).
pub fn with_feedback(rules: &mut [Bullet], feedback: &HashMap<String, Vec<FeedbackEvent>>) {
    if feedback.is_empty() {
        return;
    }
    for b in rules {
        if let Some(events) = feedback.get(raw_id(&b.id)) {
            b.feedback_events = events.clone();
            b.helpful_count = events
                .iter()
                .filter(|e| e.kind == FeedbackType::Helpful)
                .count() as u32;
            b.harmful_count = events.len() as u32 - b.helpful_count;
        }
    }
}

/// `b` (a view of a repository rule) as its file holds it: its own id and contradictions, no
/// trust fields (those are this user's and live in `repo_rule_feedback`).
pub fn file_form(b: &Bullet) -> Bullet {
    let mut f = b.clone();
    f.id = raw_id(&b.id).to_string();
    for c in &mut f.contradicts {
        *c = raw_id(c).to_string();
    }
    strip_trust(&mut f);
    f
}

/// `b` (a file form) with the trust fields the file had in `old` (ignored when read, but not
/// cm's to rewrite).
pub fn keep_file_trust(b: &mut Bullet, old: &Bullet) {
    b.helpful_count = old.helpful_count;
    b.harmful_count = old.harmful_count;
    b.feedback_events = old.feedback_events.clone();
    b.pinned = old.pinned;
}

/// `b` without feedback, maturity or pin: what trust it has is earned here.
fn strip_trust(b: &mut Bullet) {
    b.helpful_count = 0;
    b.harmful_count = 0;
    b.feedback_events.clear();
    b.maturity = Maturity::Candidate;
    b.pinned = false;
}

/// The rules of the repository playbook that applies in `cwd`, for a reader that must not stop
/// at a broken file and has a deadline (the hooks): none when there is no file, and none, with a
/// line on stderr naming the file, when it cannot be read or parsed or is over [`HOOK_CAP`].
/// Those it returns are [`untrusted`], with this user's feedback on them read from `conn`.
pub fn readable_in(cwd: &Path, who: &str, deadline: Instant, conn: &Connection) -> Vec<Bullet> {
    let Some(path) = cm_base::paths::repo_cass_dir(cwd)
        .map(|d| path_in(&d))
        .filter(|f| f.is_file())
    else {
        return Vec::new();
    };
    match load_capped(&path, HOOK_CAP) {
        Ok(rules) => {
            let mut rules = untrusted(rules, who, Some(deadline));
            match repo_feedback::for_repo(conn, &feedback_key(&path)) {
                Ok(feedback) => with_feedback(&mut rules, &feedback),
                Err(e) => eprintln!(
                    "{who}: feedback on the repository's rules not read: {}",
                    e.message
                ),
            }
            rules
        }
        Err(e) => {
            eprintln!(
                "{who}: {}; its rules are left out (a hook reads at most {} KiB of it; `cm context` reads up to {} MiB)",
                e.message,
                HOOK_CAP >> 10,
                LOAD_CAP >> 20
            );
            Vec::new()
        }
    }
}

/// Load, change and write back `path` while holding its lock (not written when `f` changed
/// nothing).
pub fn modify<T>(path: &Path, f: impl FnOnce(&mut Vec<Bullet>) -> Result<T>) -> Result<T> {
    let lock_path = path.with_file_name(".playbook.lock");
    let _lock = FileLock::acquire(&lock_path)?;
    let mut bullets = load(path)?;
    let unchanged = bullets.clone();
    let value = f(&mut bullets)?;
    if bullets == unchanged {
        // Nothing to write (a mark on a repository rule is this user's, not the file's).
        return Ok(value);
    }
    write(path, bullets)?;
    Ok(value)
}

/// Replace `path` with a repository playbook holding `bullets` (none: an empty one, as
/// `cm init --repo` creates it).
pub fn write(path: &Path, bullets: Vec<Bullet>) -> Result<()> {
    let doc = PlaybookDoc {
        schema_version: 2,
        name: Some("repository".into()),
        description: Some("Rules shared through git; managed by `cm playbook add --repo`.".into()),
        bullets,
    };
    let text = serde_norway::to_string(&doc)
        .map_err(|e| CmError::internal(format!("serialize playbook: {e}")))?;
    fsutil::write_atomic(path, text.as_bytes())
}
