//! The playbook as commands see it: the personal store merged with the repository's
//! `.cass/playbook.yaml`, each bullet tagged with where it lives.
//!
//! Every change goes through [`Playbook::change`], which runs under the right lock (a SQLite
//! write transaction or the repo file's lock), records the bullet as it was so `cm undo` can
//! restore it, and stores any bullets the change created (an inverted anti-pattern) beside it.
//!
//! A repository file that cannot be read or parsed does not stop reads: they serve the
//! personal rules and [`Playbook::repo_issue`] names the file for `degraded`. Writes to it
//! refuse (exit 2), and the file is never rewritten.

use super::bullet::Bullet;
use super::{repo_file, scoring};
use crate::tables::bullets as rows;
use crate::tables::repo_feedback;
use chrono::{DateTime, Utc};
use cm_base::config::Scoring;
use cm_base::degraded::Issue;
use cm_base::error::{CmError, Result};
use cm_store::Store;
use once_cell::unsync::OnceCell;
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    Personal,
    Repo(PathBuf),
}

impl Location {
    pub fn name(&self) -> &'static str {
        match self {
            Location::Personal => "personal",
            Location::Repo(_) => "repo",
        }
    }
}

impl Serialize for Location {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

#[derive(Debug, Clone)]
pub struct Entry {
    pub bullet: Bullet,
    pub location: Location,
}

pub struct Playbook<'a> {
    pub store: &'a Store,
    /// `.cass/playbook.yaml` of the current repository, when it exists.
    pub repo_file: Option<PathBuf>,
    /// When set, bullets are read with their maturity as it stands at that instant
    /// ([`scoring::settle`]), not as last stored.
    settle_at: Option<(Scoring, DateTime<Utc>)>,
    /// The repository file's rules, read once; an error when the file cannot be read or parsed.
    repo: OnceCell<Result<Vec<Bullet>>>,
}

impl<'a> Playbook<'a> {
    pub fn open(store: &'a Store, cwd: &Path) -> Self {
        let repo_file = cm_base::paths::repo_cass_dir(cwd)
            .map(|d| repo_file::path_in(&d))
            .filter(|p| p.is_file());
        Playbook {
            store,
            repo_file,
            settle_at: None,
            repo: OnceCell::new(),
        }
    }

    /// How many rules the personal store holds (every state).
    pub fn personal_count(&self) -> Result<i64> {
        rows::count(self.store)
    }

    /// The id of a personal rule with exactly this text, if there is one.
    pub fn personal_with_text(&self, content: &str) -> Result<Option<String>> {
        rows::find_by_content(self.store, content)
    }

    /// What was done to a rule and when (its revision actions, oldest first).
    pub fn revisions(&self, id: &str) -> Result<Vec<(String, String)>> {
        crate::tables::revisions::revisions(self.store, id)
    }

    /// The repository's rules as last read (empty outside a repository), or why the file cannot
    /// be read. Reads serve the personal rules either way; writes to the file refuse
    /// (`repo_file::modify` reads it again under its lock).
    fn repo_rules(&self) -> std::result::Result<&[Bullet], &CmError> {
        let Some(path) = &self.repo_file else {
            return Ok(&[]);
        };
        self.repo
            .get_or_init(|| {
                let loaded = repo_file::load(path);
                if let Err(e) = &loaded {
                    eprintln!("cm: warning: {}; its rules are left out", e.message);
                }
                loaded.map(|rules| {
                    // Unbounded for the command line; a server request stops at its deadline.
                    let mut rules = repo_file::untrusted(rules, "cm: warning", cm_base::due::at());
                    match repo_feedback::for_repo(&self.store.conn, &repo_file::feedback_key(path))
                    {
                        Ok(feedback) => repo_file::with_feedback(&mut rules, &feedback),
                        Err(e) => eprintln!(
                            "cm: warning: feedback on the repository's rules not read: {}",
                            e.message
                        ),
                    }
                    rules
                })
            })
            .as_deref()
    }

    /// What is missing because the repository's playbook cannot be read: the file and why, as
    /// the `repoPlaybook` entry of `degraded`.
    pub fn repo_issue(&self) -> Option<Issue> {
        let e = self.repo_rules().err()?;
        Some(Issue::new(
            e.code,
            &format!(
                "{}; its rules are left out, the personal rules are served",
                e.message
            ),
            "fix the file by hand or check it out again from git (cm never rewrites it); writes to it are refused until then",
        ))
    }

    /// The repository's rules for reading: none when the file is broken (see [`Self::repo_issue`]).
    pub fn readable_repo_rules(&self) -> Vec<Bullet> {
        self.repo_rules()
            .map(<[Bullet]>::to_vec)
            .unwrap_or_default()
    }

    /// Read bullets with their maturity and deprecation reason computed at `now` under `cfg`
    /// (what every view shows), instead of as last stored.
    pub fn settled(mut self, cfg: &Scoring, now: DateTime<Utc>) -> Self {
        self.settle_at = Some((cfg.clone(), now));
        self
    }

    fn entry(&self, mut bullet: Bullet, location: Location) -> Entry {
        if let Some((cfg, now)) = &self.settle_at {
            scoring::settle(&mut bullet, cfg, *now);
        }
        Entry { bullet, location }
    }

    /// Store every personal rule's maturity as its feedback stands at `now` (after a scoring
    /// config change, or rules an older version left deprecated). Returns how many changed.
    /// The readers compute it anyway; this keeps the stored copy, which `cm playbook list
    /// --json` streams, in step.
    pub fn settle_stored(&self, cfg: &Scoring, now: DateTime<Utc>) -> Result<usize> {
        self.store.write(|tx| {
            let mut changed = 0;
            for mut b in rows::load_all(tx)? {
                if scoring::settle(&mut b, cfg, now) {
                    rows::save(tx, &b)?;
                    changed += 1;
                }
            }
            Ok(changed)
        })
    }

    /// The repository's rules alone (empty outside a repository, or when its file is broken:
    /// [`Self::repo_issue`] says so).
    pub fn load_all_repo(&self) -> Result<Vec<Entry>> {
        let Some(path) = &self.repo_file else {
            return Ok(Vec::new());
        };
        Ok(self
            .readable_repo_rules()
            .into_iter()
            .map(|b| self.entry(b, Location::Repo(path.clone())))
            .collect())
    }

    /// Every bullet: repository rules first (they are the most specific), then personal ones.
    pub fn load_all(&self) -> Result<Vec<Entry>> {
        let mut out = self.load_all_repo()?;
        for b in rows::load_all(&self.store.conn)? {
            out.push(self.entry(b, Location::Personal));
        }
        Ok(out)
    }

    /// Resolve an id (or an unambiguous prefix of one) to its full id and location.
    pub fn resolve(&self, id: &str) -> Result<(String, Location)> {
        let id = id.trim();
        if id.is_empty() {
            return Err(CmError::usage("INVALID_ARGUMENT", "a rule id is required")
                .hint("list ids with `cm playbook list`"));
        }
        // A personal rule first: a repository rule's id is `repo:ID` and never shadows one. Its
        // id in the file also names it when no personal rule has that id.
        if rows::exists(&self.store.conn, id)? {
            return Ok((id.to_string(), Location::Personal));
        }
        if let (Some(path), Ok(repo)) = (&self.repo_file, self.repo_rules()) {
            let namespaced = repo_file::view_id(id);
            if let Some(b) = repo.iter().find(|b| b.id == id || b.id == namespaced) {
                return Ok((b.id.clone(), Location::Repo(path.clone())));
            }
        }
        let mut matches: Vec<(String, Location)> = rows::ids_with_prefix(&self.store.conn, id)?
            .into_iter()
            .map(|i| (i, Location::Personal))
            .collect();
        if let (Some(path), Ok(repo)) = (&self.repo_file, self.repo_rules()) {
            let namespaced = repo_file::view_id(id);
            for b in repo
                .iter()
                .filter(|b| b.id.starts_with(id) || b.id.starts_with(&namespaced))
            {
                matches.push((b.id.clone(), Location::Repo(path.clone())));
            }
        }
        match matches.len() {
            1 => Ok(matches.remove(0)),
            // The rule may be in the repository file nobody can read: say that, not "no rule".
            0 => Err(self
                .repo_rules()
                .err()
                .cloned()
                .unwrap_or_else(|| self.not_found_near(id))),
            _ => Err(CmError::usage(
                "AMBIGUOUS_ID",
                format!(
                    "\"{id}\" matches several rules: {}",
                    matches
                        .iter()
                        .map(|m| m.0.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            )
            .hint("give more of the id")),
        }
    }

    /// "no rule with id X", with the nearest ids when one is a likely typo of X.
    fn not_found_near(&self, id: &str) -> CmError {
        let mut known: Vec<String> = rows::all_ids(&self.store.conn)
            .unwrap_or_default()
            .into_iter()
            .collect();
        if let Ok(repo) = self.repo_rules() {
            known.extend(repo.iter().map(|b| b.id.clone()));
        }
        let near = super::suggest::nearest(id, &known);
        if near.is_empty() {
            return not_found(id);
        }
        CmError::usage("RULE_NOT_FOUND", format!("no rule with id \"{id}\"")).hint(format!(
            "did you mean {}? (`cm playbook list --all` lists ids)",
            near.join(" or ")
        ))
    }

    pub fn get(&self, id: &str) -> Result<Entry> {
        let (id, location) = self.resolve(id)?;
        let bullet = match &location {
            Location::Personal => rows::get(&self.store.conn, &id)?,
            Location::Repo(_) => self.readable_repo_rules().into_iter().find(|b| b.id == id),
        };
        bullet
            .map(|bullet| self.entry(bullet, location))
            .ok_or_else(|| not_found(&id))
    }

    /// Apply `f` to the bullet `id` under the proper lock. `f` returns bullets to create beside it.
    /// Returns the changed bullet, the created ones and where they live.
    pub fn change(
        &self,
        id: &str,
        action: &str,
        f: impl FnOnce(&mut Bullet) -> Result<Vec<Bullet>>,
    ) -> Result<(Bullet, Vec<Bullet>, Location)> {
        self.store.write(|tx| self.change_in(tx, id, action, f))
    }

    /// [`Playbook::change`] inside the caller's write transaction `tx`, so the change commits
    /// (or rolls back) with whatever else the caller does in it. A repository rule's file is
    /// rewritten under its own lock while `tx` holds the store's.
    pub fn change_in(
        &self,
        tx: &rusqlite::Connection,
        id: &str,
        action: &str,
        f: impl FnOnce(&mut Bullet) -> Result<Vec<Bullet>>,
    ) -> Result<(Bullet, Vec<Bullet>, Location)> {
        let (id, location) = self.resolve(id)?;
        match &location {
            Location::Personal => {
                let mut b = rows::get(tx, &id)?.ok_or_else(|| not_found(&id))?;
                let before = b.clone();
                let created = f(&mut b)?;
                if b == before && created.is_empty() {
                    // Nothing changed (feedback already given): nothing to write or undo.
                    return Ok((b, created, location.clone()));
                }
                rows::save(tx, &b)?;
                for c in &created {
                    rows::insert(tx, c)?;
                }
                let ids: Vec<String> = created.iter().map(|c| c.id.clone()).collect();
                rows::record_change(tx, action, &before, &b, &ids)?;
                Ok((b, created, location.clone()))
            }
            Location::Repo(path) => {
                let (b, created, before) = self.change_repo(tx, path, &id, f)?;
                let ids: Vec<String> = created.iter().map(|c| c.id.clone()).collect();
                let action = format!("{REPO_PREFIX}{action}");
                if b != before || !ids.is_empty() {
                    rows::record_revision(tx, &id, &action, Some(&before), &ids)?;
                }
                Ok((b, created, location.clone()))
            }
        }
    }

    /// Apply `f` to the repository rule `id` (as cm knows it, `repo:ID`) under the file's lock,
    /// with this user's feedback on it read inside `tx`. A change of feedback (a mark, an
    /// outcome) is this user's: it goes into `repo_rule_feedback`, and what it creates (an
    /// inverted anti-pattern) into the personal store; the file is left as it is. Any other
    /// change (remove, revive, a contradiction) is written into the file.
    fn change_repo(
        &self,
        tx: &rusqlite::Connection,
        path: &Path,
        id: &str,
        f: impl FnOnce(&mut Bullet) -> Result<Vec<Bullet>>,
    ) -> Result<(Bullet, Vec<Bullet>, Bullet)> {
        let key = repo_file::feedback_key(path);
        let raw = repo_file::raw_id(id).to_string();
        let feedback = repo_feedback::for_repo(tx, &key)?;
        let (b, created, before, personal) = repo_file::modify(path, |list| {
            let idx = list
                .iter()
                .position(|b| b.id == raw)
                .ok_or_else(|| not_found(id))?;
            let mut view = repo_file::untrusted(vec![list[idx].clone()], "cm: warning", None);
            let Some(mut b) = view.pop() else {
                return Err(not_found(id));
            };
            repo_file::with_feedback(std::slice::from_mut(&mut b), &feedback);
            let before = b.clone();
            let created = f(&mut b)?;
            let personal = b.feedback_events != before.feedback_events;
            if !personal {
                let mut kept = repo_file::file_form(&b);
                repo_file::keep_file_trust(&mut kept, &list[idx]);
                list[idx] = kept;
                list.extend(created.iter().map(repo_file::file_form));
            }
            Ok((b, created, before, personal))
        })?;
        if personal {
            repo_feedback::save(tx, &key, &raw, &b.feedback_events)?;
            for c in &created {
                rows::insert(tx, c)?;
            }
        }
        Ok((b, created, before))
    }

    /// Store new bullets, personally or in the repository file (`repo_dir` is its `.cass/`).
    pub fn add(&self, bullets: &[Bullet], repo_dir: Option<&Path>) -> Result<Location> {
        match repo_dir {
            None => {
                self.store.write(|tx| {
                    for b in bullets {
                        rows::insert(tx, b)?;
                        rows::record_revision(tx, &b.id, "add", None, &[])?;
                    }
                    Ok(())
                })?;
                Ok(Location::Personal)
            }
            Some(dir) => {
                let path = repo_file::path_in(dir);
                repo_file::modify(&path, |list| {
                    list.extend(bullets.iter().map(repo_file::file_form));
                    Ok(())
                })?;
                self.store.write(|tx| {
                    for b in bullets {
                        let id = repo_file::view_id(repo_file::raw_id(&b.id));
                        rows::record_revision(tx, &id, "repo:add", None, &[])?;
                    }
                    Ok(())
                })?;
                Ok(Location::Repo(path))
            }
        }
    }

    /// Delete a bullet outright (`--hard`); `cm undo` can still bring it back.
    pub fn delete(&self, id: &str) -> Result<(Bullet, Location)> {
        let entry = self.get(id)?;
        let id = entry.bullet.id.clone();
        match &entry.location {
            Location::Personal => self.store.write(|tx| {
                rows::delete(tx, &id)?;
                rows::record_revision(tx, &id, "remove --hard", Some(&entry.bullet), &[])
            })?,
            Location::Repo(path) => {
                let raw = repo_file::raw_id(&id);
                repo_file::modify(path, |list| {
                    list.retain(|b| b.id != raw);
                    Ok(())
                })?;
                self.store.write(|tx| {
                    repo_feedback::save(tx, &repo_file::feedback_key(path), raw, &[])?;
                    rows::record_revision(tx, &id, "repo:remove --hard", Some(&entry.bullet), &[])
                })?;
            }
        }
        self.drop_references(&id)?;
        Ok((entry.bullet, entry.location))
    }

    /// A rule is gone: no other rule may still say it contradicts it.
    fn drop_references(&self, id: &str) -> Result<()> {
        self.store.write(|tx| {
            for mut b in rows::referencing(tx, id)? {
                if b.contradicts.iter().any(|c| c == id) {
                    b.contradicts.retain(|c| c != id);
                    rows::save(tx, &b)?;
                }
            }
            Ok(())
        })?;
        if let Some(path) = &self.repo_file {
            let namespaced = repo_file::view_id(repo_file::raw_id(id));
            let refers = self
                .readable_repo_rules()
                .iter()
                .any(|b| b.contradicts.iter().any(|c| *c == namespaced || c == id));
            if refers {
                let raw = repo_file::raw_id(id);
                repo_file::modify(path, |list| {
                    for b in list.iter_mut() {
                        b.contradicts.retain(|c| c != raw && c != id);
                    }
                    Ok(())
                })?;
            }
        }
        Ok(())
    }

    /// Revert the newest recorded change of `id`. Returns what was undone, the bullet as it is
    /// now (`None` when the change created it), the ids of bullets the change had created (now
    /// removed again) and where the bullet lives.
    pub fn undo(&self, id: &str) -> Result<Undone> {
        self.undo_if(id, |_| true)
    }

    /// [`Playbook::undo`], only when the newest change's action passes `accept`; otherwise
    /// `NOT_FEEDBACK` and nothing changes (the popped revision rolls back with the transaction).
    pub fn undo_if(&self, id: &str, accept: impl Fn(&str) -> bool) -> Result<Undone> {
        // A live rule may be named by a prefix; a hard-deleted one only by its full id.
        let (id, exists) = match self.resolve(id) {
            Ok((full, _)) => (full, true),
            Err(e) if e.code == "RULE_NOT_FOUND" => (id.trim().to_string(), false),
            Err(e) => return Err(e),
        };
        // Pop the revision and restore in one transaction: a mark landing in between cannot be
        // clobbered, and a failed restore keeps the revision for the next attempt.
        let rev = self.store.write(|tx| {
            let rev = rows::pop_revision(tx, &id)?.ok_or_else(|| {
                if exists {
                    CmError::usage(
                        "NOTHING_TO_UNDO",
                        format!("no recorded change to undo for {id}"),
                    )
                    .hint("`cm why ID` shows a rule's history")
                } else {
                    not_found(&id)
                }
            })?;
            let action = rev.action.trim_start_matches(REPO_PREFIX);
            if !accept(action) {
                return Err(CmError::usage(
                    "NOT_FEEDBACK",
                    format!("the newest change to {id} is \"{action}\", not feedback"),
                )
                .hint("`cm undo ID` without --feedback undoes it; `cm why ID` shows the history"));
            }
            // Repository changes are recorded with a prefix, so a hard-removed repo rule goes
            // back into the repository file, not the personal store.
            if rev.action.starts_with(REPO_PREFIX) {
                let path = self.repo_file.clone().ok_or_else(|| {
                    CmError::usage(
                        "REPO_PLAYBOOK_MISSING",
                        format!("{id} lived in a repository playbook that is not here"),
                    )
                    .hint("run `cm undo` from inside that repository")
                })?;
                // A feedback change was this user's (`repo_rule_feedback`, the personal store),
                // any other a change of the file: both go back to `before`.
                let raw = repo_file::raw_id(&id).to_string();
                repo_file::modify(&path, |list| {
                    let at = list.iter().position(|b| b.id == raw).unwrap_or(list.len());
                    let old = list.get(at).cloned();
                    list.retain(|b| b.id != raw && !rev.created.contains(&b.id));
                    if let Some(b) = &rev.before {
                        let mut restored = repo_file::file_form(b);
                        if let Some(old) = &old {
                            repo_file::keep_file_trust(&mut restored, old);
                        }
                        list.insert(at.min(list.len()), restored);
                    }
                    Ok(())
                })?;
                let events = rev.before.as_ref().map(|b| b.feedback_events.clone());
                repo_feedback::save(
                    tx,
                    &repo_file::feedback_key(&path),
                    &raw,
                    &events.unwrap_or_default(),
                )?;
                for c in &rev.created {
                    rows::delete(tx, c)?;
                }
            } else {
                for c in &rev.created {
                    rows::delete(tx, c)?;
                }
                match &rev.before {
                    Some(b) => rows::replace(tx, b)?,
                    None => {
                        rows::delete(tx, &id)?;
                    }
                }
            }
            Ok(rev)
        })?;
        let in_repo = rev.action.starts_with(REPO_PREFIX);
        if rev.before.is_none() {
            // Undoing the add: the rule is gone again.
            self.drop_references(&id)?;
        }
        let restored = rev.before.clone();
        let action = rev.action.trim_start_matches(REPO_PREFIX).to_string();
        let location = match (in_repo, &self.repo_file) {
            (true, Some(p)) => Location::Repo(p.clone()),
            _ => Location::Personal,
        };
        Ok(Undone {
            id,
            action,
            bullet: restored,
            removed: rev.created,
            location,
        })
    }
}

/// What `Playbook::undo` reverted.
#[derive(Debug)]
pub struct Undone {
    pub id: String,
    pub action: String,
    pub bullet: Option<Bullet>,
    pub removed: Vec<String>,
    pub location: Location,
}

const REPO_PREFIX: &str = "repo:";

pub fn not_found(id: &str) -> CmError {
    CmError::usage("RULE_NOT_FOUND", format!("no rule with id \"{id}\""))
        .hint("list ids with `cm playbook list --all`")
}
