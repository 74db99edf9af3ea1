//! The playbook as commands see it: the personal store merged with the repository's
//! `.cass/playbook.yaml`, each bullet tagged with where it lives.
//!
//! Every change goes through [`Playbook::change`], which runs under the right lock (a SQLite
//! write transaction or the repo file's lock), records the bullet as it was so `cm undo` can
//! restore it, and stores any bullets the change created (an inverted anti-pattern) beside it.

use super::bullet::Bullet;
use super::repo_file;
use crate::error::{CmError, Result};
use crate::store::{Store, bullets as rows};
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
}

impl<'a> Playbook<'a> {
    pub fn open(store: &'a Store, cwd: &Path) -> Self {
        let repo_file = crate::paths::repo_cass_dir(cwd)
            .map(|d| repo_file::path_in(&d))
            .filter(|p| p.is_file());
        Playbook { store, repo_file }
    }

    /// The repository's rules alone (empty outside a repository).
    pub fn load_all_repo(&self) -> Result<Vec<Entry>> {
        let Some(path) = &self.repo_file else {
            return Ok(Vec::new());
        };
        Ok(repo_file::load(path)?
            .into_iter()
            .map(|b| Entry {
                bullet: b,
                location: Location::Repo(path.clone()),
            })
            .collect())
    }

    /// Every bullet: repository rules first (they are the most specific), then personal ones.
    pub fn load_all(&self) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        if let Some(path) = &self.repo_file {
            for b in repo_file::load(path)? {
                out.push(Entry {
                    bullet: b,
                    location: Location::Repo(path.clone()),
                });
            }
        }
        for b in rows::load_all(&self.store.conn)? {
            out.push(Entry {
                bullet: b,
                location: Location::Personal,
            });
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
        if let Some(path) = &self.repo_file {
            let repo = repo_file::load(path)?;
            if repo.iter().any(|b| b.id == id) {
                return Ok((id.to_string(), Location::Repo(path.clone())));
            }
        }
        if rows::exists(&self.store.conn, id)? {
            return Ok((id.to_string(), Location::Personal));
        }
        let mut matches: Vec<(String, Location)> = rows::ids_with_prefix(&self.store.conn, id)?
            .into_iter()
            .map(|i| (i, Location::Personal))
            .collect();
        if let Some(path) = &self.repo_file {
            for b in repo_file::load(path)? {
                if b.id.starts_with(id) {
                    matches.push((b.id, Location::Repo(path.clone())));
                }
            }
        }
        match matches.len() {
            1 => Ok(matches.remove(0)),
            0 => Err(not_found(id)),
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

    pub fn get(&self, id: &str) -> Result<Entry> {
        let (id, location) = self.resolve(id)?;
        let bullet = match &location {
            Location::Personal => rows::get(&self.store.conn, &id)?,
            Location::Repo(path) => repo_file::load(path)?.into_iter().find(|b| b.id == id),
        };
        bullet
            .map(|bullet| Entry { bullet, location })
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
                rows::save(tx, &b)?;
                for c in &created {
                    rows::insert(tx, c)?;
                }
                let ids: Vec<String> = created.iter().map(|c| c.id.clone()).collect();
                rows::record_revision(tx, &id, action, Some(&before), &ids)?;
                Ok((b, created, location.clone()))
            }
            Location::Repo(path) => {
                let (b, created, before) = repo_file::modify(path, |list| {
                    let idx = list
                        .iter()
                        .position(|b| b.id == id)
                        .ok_or_else(|| not_found(&id))?;
                    let before = list[idx].clone();
                    let created = f(&mut list[idx])?;
                    let b = list[idx].clone();
                    list.extend(created.iter().cloned());
                    Ok((b, created, before))
                })?;
                let ids: Vec<String> = created.iter().map(|c| c.id.clone()).collect();
                let action = format!("{REPO_PREFIX}{action}");
                rows::record_revision(tx, &id, &action, Some(&before), &ids)?;
                Ok((b, created, location.clone()))
            }
        }
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
                    list.extend(bullets.iter().cloned());
                    Ok(())
                })?;
                self.store.write(|tx| {
                    for b in bullets {
                        rows::record_revision(tx, &b.id, "repo:add", None, &[])?;
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
                repo_file::modify(path, |list| {
                    list.retain(|b| b.id != id);
                    Ok(())
                })?;
                self.store.write(|tx| {
                    rows::record_revision(tx, &id, "repo:remove --hard", Some(&entry.bullet), &[])
                })?;
            }
        }
        Ok((entry.bullet, entry.location))
    }

    /// Revert the newest recorded change of `id`. Returns what was undone, the bullet as it is
    /// now (`None` when the change created it), the ids of bullets the change had created (now
    /// removed again) and where the bullet lives.
    pub fn undo(&self, id: &str) -> Result<Undone> {
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
                repo_file::modify(&path, |list| {
                    let at = list.iter().position(|b| b.id == id).unwrap_or(list.len());
                    list.retain(|b| b.id != id && !rev.created.contains(&b.id));
                    if let Some(b) = &rev.before {
                        list.insert(at.min(list.len()), b.clone());
                    }
                    Ok(())
                })?;
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
