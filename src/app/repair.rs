//! `cm doctor --fix`: the safe repairs of what doctor diagnoses, each one undoable. It creates
//! what is missing (the data dir, the default config, hook links beside the binary), points
//! hook entries whose program moved at this binary again (the settings file is backed up
//! first), indexes sessions when the index was never refreshed or is stale, and folds a large
//! WAL back into the store. It never overwrites a file it did not create: a hook name taken by
//! a regular file, a malformed config or settings file, a corrupt store are reported and left.

use crate::error::Result;
use crate::install::{self, Scope};
use crate::store::Store;
use serde::Serialize;
use std::path::Path;

/// One repair: what it is about, what it does (or would do), and how it went.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Repair {
    pub check: &'static str,
    pub action: String,
    /// `done`, `would` (dry run) or `failed`.
    pub outcome: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Repair {
    fn new(
        check: &'static str,
        action: String,
        dry_run: bool,
        run: impl FnOnce() -> Result<()>,
    ) -> Repair {
        if dry_run {
            return Repair {
                check,
                action,
                outcome: "would",
                error: None,
            };
        }
        match run() {
            Ok(()) => Repair {
                check,
                action,
                outcome: "done",
                error: None,
            },
            Err(e) => Repair {
                check,
                action,
                outcome: "failed",
                error: Some(e.message),
            },
        }
    }
}

/// The data dir and the default global config, when missing.
pub fn data_dir(dry_run: bool) -> Vec<Repair> {
    let mut out = Vec::new();
    let dir = crate::paths::data_dir();
    if !dir.exists() {
        out.push(Repair::new(
            "data dir",
            format!("create {}", dir.display()),
            dry_run,
            || {
                std::fs::create_dir_all(&dir)
                    .map_err(|e| crate::error::CmError::io(&dir, "create data directory", &e))
            },
        ));
    }
    let cfg = crate::paths::global_config_path();
    if std::fs::symlink_metadata(&cfg).is_err() {
        out.push(Repair::new(
            "config",
            format!("write the default config to {}", cfg.display()),
            dry_run,
            || {
                let defaults = serde_json::to_string_pretty(&crate::config::Config::default())
                    .unwrap_or_default()
                    + "\n";
                crate::fsutil::write_atomic(&cfg, defaults.as_bytes())
            },
        ));
    }
    out
}

/// The original tool's store, imported when it holds what cm does not have yet.
pub fn original_store(store: &Store, cfg: &crate::config::Config, dry_run: bool) -> Vec<Repair> {
    use super::from_original;
    let Some((found, Some(pending))) = from_original::pending(Some(store), cfg) else {
        return Vec::new();
    };
    if !pending.changed {
        return Vec::new();
    }
    vec![Repair::new(
        "original store",
        format!(
            "import the original tool's store from {} ({} rule(s), {} diary entr(ies) new; `cm import --from-original`)",
            found.dir.display(),
            pending.rules.added,
            pending.diary.added
        ),
        dry_run,
        || from_original::import(store, &found, cfg, false).map(drop),
    )]
}

/// Hook links beside the binary: created when absent, replaced when a dangling symlink.
pub fn links(exe: &Path, names: &[&str], dry_run: bool) -> Vec<Repair> {
    let mut out = Vec::new();
    for name in names {
        let link = exe.with_file_name(name);
        let dangling = match std::fs::symlink_metadata(&link) {
            Err(_) => false,
            Ok(m) if m.file_type().is_symlink() && !link.exists() => true,
            Ok(_) => continue, // a working link, or a file that is not ours to replace
        };
        let verb = if dangling {
            "replace the dangling link"
        } else {
            "link"
        };
        out.push(Repair::new(
            name_of(name),
            format!("{verb} {} -> {}", link.display(), exe.display()),
            dry_run,
            || {
                if dangling {
                    std::fs::remove_file(&link).map_err(|e| {
                        crate::error::CmError::io(&link, "remove dangling link", &e)
                    })?;
                }
                std::os::unix::fs::symlink(exe, &link)
                    .map_err(|e| crate::error::CmError::io(&link, "create link", &e))
            },
        ));
    }
    out
}

fn name_of(link: &str) -> &'static str {
    match link {
        "cm-pretool" => "cm-pretool",
        "cm-postsession" => "cm-postsession",
        "cm-precommit" => "cm-precommit",
        _ => "hook link",
    }
}

/// Hook entries whose program is gone (cm was moved): reinstalled pointing at `exe`. A program
/// in `will_exist` (a link the link repairs create first) is not gone: a dry run must list what
/// the real run does, and the real run finds those links in place.
pub fn hooks(
    cwd: &Path,
    exe: &Path,
    will_exist: &[std::path::PathBuf],
    dry_run: bool,
) -> Vec<Repair> {
    let root = install::project_root(cwd);
    let mut out = Vec::new();
    for agent in install::AGENTS {
        for scope in [Scope::User, Scope::Project] {
            let st = install::status(agent, scope, &root);
            if st.error.is_some() {
                continue; // a settings file cm cannot read is the user's to fix
            }
            let mut kinds: Vec<crate::hook_kind::HookKind> = st
                .handlers
                .iter()
                .filter(|h| !h.program_found)
                .filter(|h| {
                    install::command::program(&h.found.command)
                        .is_none_or(|p| !will_exist.iter().any(|w| Path::new(&p) == w))
                })
                .map(|h| h.found.hook)
                .collect();
            kinds.dedup();
            if kinds.is_empty() {
                continue;
            }
            let action = format!(
                "point {}'s {} hooks in {} at {} (a backup is kept){}",
                agent.slug(),
                kinds
                    .iter()
                    .map(|k| k.name())
                    .collect::<Vec<_>>()
                    .join(", "),
                st.path.display(),
                exe.display(),
                if agent == install::Agent::Codex {
                    "; Codex runs a changed hook only once you trust it again: start `codex` and choose \"Trust all and continue\""
                } else {
                    ""
                }
            );
            out.push(Repair::new("hooks", action, dry_run, || {
                install::install(agent, scope, &root, &kinds, exe).map(drop)
            }));
        }
    }
    out
}

/// The session index, when it was never refreshed or is stale; a large WAL folded back.
pub fn store_upkeep(
    store: &Store,
    dry_run: bool,
    index: impl FnOnce() -> Result<()>,
) -> Vec<Repair> {
    let mut out = Vec::new();
    let st = crate::episodic::sessions::status(store);
    let stale = match st.last_indexed_at.as_deref().and_then(crate::clock::parse) {
        None => Some("never refreshed".to_string()),
        Some(t) if (crate::clock::now() - t).num_hours() > 48 => {
            Some(format!("last refreshed {}", crate::clock::to_rfc3339(t)))
        }
        Some(_) => None,
    };
    if let Some(why) = stale {
        out.push(index_repair(&why, dry_run, index));
    }
    let wal = store.wal_bytes();
    if wal > crate::store::WAL_TRUNCATE_BYTES {
        out.push(Repair::new(
            "store",
            format!(
                "fold the {:.1} MB write-ahead log back into the store",
                wal as f64 / 1e6
            ),
            dry_run,
            || {
                store.truncate_wal_if_large();
                Ok(())
            },
        ));
    }
    out
}

fn index_repair(why: &str, dry_run: bool, index: impl FnOnce() -> Result<()>) -> Repair {
    Repair::new(
        "session index",
        format!("index new session logs (the index was {why})"),
        dry_run,
        index,
    )
}

/// The upkeep of a store that does not exist yet (a dry run does not create it; the real run
/// does, and its index was never refreshed).
pub fn index_new_store(dry_run: bool, index: impl FnOnce() -> Result<()>) -> Repair {
    index_repair("never refreshed", dry_run, index)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_are_created_and_dangling_ones_replaced_but_files_left_alone() {
        let dir = std::env::temp_dir().join(format!("cm-repair-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("cm");
        std::fs::write(&exe, b"bin").unwrap();
        std::os::unix::fs::symlink(dir.join("gone"), dir.join("cm-postsession")).unwrap();
        std::fs::write(dir.join("cm-precommit"), b"someone else's").unwrap();
        let names = ["cm-pretool", "cm-postsession", "cm-precommit"];
        let planned = links(&exe, &names, true);
        assert_eq!(planned.len(), 2, "{planned:?}");
        assert!(planned.iter().all(|r| r.outcome == "would"));
        assert!(
            std::fs::symlink_metadata(dir.join("cm-pretool")).is_err(),
            "a dry run writes nothing"
        );
        let done = links(&exe, &names, false);
        assert!(done.iter().all(|r| r.outcome == "done"), "{done:?}");
        for n in ["cm-pretool", "cm-postsession"] {
            assert_eq!(std::fs::read_link(dir.join(n)).unwrap(), exe);
        }
        assert_eq!(
            std::fs::read(dir.join("cm-precommit")).unwrap(),
            b"someone else's"
        );
        assert!(
            links(&exe, &names, false).is_empty(),
            "nothing left to repair"
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
