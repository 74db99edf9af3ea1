//! Merging cm's handlers into an agent's JSON hook settings, and taking them out again.
//!
//! Claude Code, Codex and Gemini CLI share one layout: `hooks.<Event>` is a list of matcher
//! groups, each holding a list of command handlers. The merge functions here are pure (they edit
//! a parsed `Value`); [`SettingsFile`] does the I/O: it refuses a malformed file (naming the file
//! and position, never overwriting it), backs the file up before changing it, and replaces it
//! atomically. Object key order is preserved, so an install followed by an uninstall gives back
//! the same document.

use super::command::{HookKind, identify};
use crate::error::{CmError, Result};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};

/// One handler cm wants in an agent's settings.
#[derive(Debug, Clone, Copy)]
pub struct Entry {
    pub kind: HookKind,
    pub event: &'static str,
    pub matcher: Option<&'static str>,
    /// In the agent's unit (seconds for Claude Code and Codex, milliseconds for Gemini CLI).
    pub timeout: u64,
    /// Gemini CLI shows handler names; others get none.
    pub name: Option<&'static str>,
    /// An argument appended to the command (Gemini CLI's `--agent=gemini`).
    pub arg: Option<&'static str>,
    /// The handler's `onFailure` (Claude Code 2.1.332+: `block`).
    pub on_failure: Option<&'static str>,
}

impl Entry {
    pub const fn new(
        kind: HookKind,
        event: &'static str,
        matcher: Option<&'static str>,
        timeout: u64,
    ) -> Entry {
        Entry {
            kind,
            event,
            matcher,
            timeout,
            name: None,
            arg: None,
            on_failure: None,
        }
    }

    /// The command line for this entry, given cm's command for its hook.
    pub fn command(&self, base: &str) -> String {
        match self.arg {
            Some(arg) => format!("{base} {arg}"),
            None => base.to_string(),
        }
    }
}

/// What installing one handler did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Added,
    /// A cm handler for the same hook was there with another command (the binary moved).
    Updated {
        from: String,
    },
    Present,
}

/// A cm handler found in a settings document.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Found {
    pub event: String,
    pub matcher: Option<String>,
    pub hook: HookKind,
    pub command: String,
}

fn shape_error(path: &Path, what: String) -> CmError {
    CmError::config(
        "SETTINGS_INVALID",
        format!("unexpected layout in {}: {what}", path.display()),
    )
    .hint("fix the hooks section by hand; cm changes nothing in a file whose layout it does not understand")
}

/// Add `entry` with `command` unless a cm handler for the same hook is already there.
pub fn add_handler(root: &mut Value, entry: &Entry, command: &str, path: &Path) -> Result<Change> {
    let obj = root
        .as_object_mut()
        .ok_or_else(|| shape_error(path, "the top level is not an object".into()))?;
    let hooks = obj
        .entry("hooks")
        .or_insert_with(|| Value::Object(Map::new()));
    let hooks = hooks
        .as_object_mut()
        .ok_or_else(|| shape_error(path, "\"hooks\" is not an object".into()))?;
    let groups = hooks
        .entry(entry.event)
        .or_insert_with(|| Value::Array(Vec::new()));
    let groups = groups
        .as_array_mut()
        .ok_or_else(|| shape_error(path, format!("\"hooks.{}\" is not a list", entry.event)))?;
    for group in groups.iter_mut() {
        let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
            continue;
        };
        let alone = handlers.len() == 1;
        let Some(handler) = handlers.iter_mut().find(|h| {
            h.get("command")
                .and_then(Value::as_str)
                .is_some_and(|c| identify(c) == Some(entry.kind))
        }) else {
            continue;
        };
        let existing = handler["command"].as_str().unwrap_or_default().to_string();
        let mut change = Change::Present;
        if existing != command {
            handler["command"] = Value::String(command.to_string());
            change = Change::Updated { from: existing };
        }
        // cm's handler follows cm's timeout and failure policy (a shorter session-end budget,
        // `onFailure` once the agent supports it).
        if let Some(h) = handler.as_object_mut() {
            if h.get("timeout").and_then(Value::as_u64) != Some(entry.timeout) {
                let from = h.get("timeout").map(Value::to_string).unwrap_or_default();
                h.insert("timeout".into(), json!(entry.timeout));
                if change == Change::Present {
                    change = Change::Updated {
                        from: format!("timeout {from}"),
                    };
                }
            }
            if let Some(policy) = entry.on_failure
                && h.get("onFailure").and_then(Value::as_str) != Some(policy)
            {
                h.insert("onFailure".into(), json!(policy));
                if change == Change::Present {
                    change = Change::Updated {
                        from: "no onFailure".into(),
                    };
                }
            }
        }
        // A group cm made for itself follows cm's matcher (a newer cm may watch more tools);
        // a group shared with the user's handlers keeps the user's matcher.
        if alone && let Some(obj) = group.as_object_mut() {
            let current = obj.get("matcher").and_then(Value::as_str);
            if current != entry.matcher {
                let from = current.unwrap_or("").to_string();
                match entry.matcher {
                    Some(m) => {
                        obj.insert("matcher".into(), json!(m));
                    }
                    None => {
                        obj.shift_remove("matcher");
                    }
                }
                if change == Change::Present {
                    change = Change::Updated {
                        from: format!("matcher {from:?}"),
                    };
                }
            }
        }
        return Ok(change);
    }
    let mut handler = Map::new();
    handler.insert("type".into(), json!("command"));
    if let Some(name) = entry.name {
        handler.insert("name".into(), json!(name));
    }
    handler.insert("command".into(), json!(command));
    handler.insert("timeout".into(), json!(entry.timeout));
    if let Some(policy) = entry.on_failure {
        handler.insert("onFailure".into(), json!(policy));
    }
    let mut group = Map::new();
    if let Some(m) = entry.matcher {
        group.insert("matcher".into(), json!(m));
    }
    group.insert("hooks".into(), Value::Array(vec![Value::Object(handler)]));
    groups.push(Value::Object(group));
    Ok(Change::Added)
}

/// Every cm handler in the document.
pub fn find_handlers(root: &Value) -> Vec<Found> {
    let mut out = Vec::new();
    let Some(hooks) = root.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in hooks {
        for group in groups.as_array().into_iter().flatten() {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_string);
            for handler in group
                .get("hooks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let Some(command) = handler.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if let Some(hook) = identify(command) {
                    out.push(Found {
                        event: event.clone(),
                        matcher: matcher.clone(),
                        hook,
                        command: command.to_string(),
                    });
                }
            }
        }
    }
    out
}

/// Remove cm's handlers for `kinds`. A group, event list or `hooks` object that only held cm
/// handlers goes too; anything the user had, even empty, stays.
pub fn remove_handlers(root: &mut Value, kinds: &[HookKind]) -> Vec<Found> {
    remove_where(root, |_, kind| kinds.contains(&kind))
}

/// Remove cm's handlers for `entry`'s hook that sit under another event than `entry`'s (an older
/// cm hung the post-session job on Codex's `Stop`): they are what a reinstall moves.
pub fn remove_elsewhere(root: &mut Value, entry: &Entry) -> Vec<Found> {
    remove_where(root, |event, kind| {
        kind == entry.kind && event != entry.event
    })
}

fn remove_where(root: &mut Value, wanted: impl Fn(&str, HookKind) -> bool) -> Vec<Found> {
    let mut removed = Vec::new();
    let Some(obj) = root.as_object_mut() else {
        return removed;
    };
    let Some(hooks) = obj.get_mut("hooks").and_then(Value::as_object_mut) else {
        return removed;
    };
    let mut emptied_events = Vec::new();
    for (event, groups) in hooks.iter_mut() {
        let Some(list) = groups.as_array_mut() else {
            continue;
        };
        let before = list.len();
        list.retain_mut(|group| {
            let matcher = group
                .get("matcher")
                .and_then(Value::as_str)
                .map(str::to_string);
            let Some(handlers) = group.get_mut("hooks").and_then(Value::as_array_mut) else {
                return true;
            };
            let had = handlers.len();
            handlers.retain(|h| {
                let command = h.get("command").and_then(Value::as_str).unwrap_or("");
                match identify(command) {
                    Some(kind) if wanted(event, kind) => {
                        removed.push(Found {
                            event: event.clone(),
                            matcher: matcher.clone(),
                            hook: kind,
                            command: command.to_string(),
                        });
                        false
                    }
                    _ => true,
                }
            });
            !(had > 0 && handlers.is_empty())
        });
        if before > 0 && list.is_empty() {
            emptied_events.push(event.clone());
        }
    }
    for event in &emptied_events {
        hooks.shift_remove(event);
    }
    if !emptied_events.is_empty() && hooks.is_empty() {
        obj.shift_remove("hooks");
    }
    removed
}

/// A settings file read for editing: its bytes as found and the parsed document.
pub struct SettingsFile {
    pub path: PathBuf,
    original: Option<Vec<u8>>,
    pub value: Value,
    parsed: Value,
    /// Where `save` backs the old file up (the data dir's, see `footprint`).
    pub backup_dir: PathBuf,
}

impl SettingsFile {
    /// Read `path`. A missing or empty file is an empty object; a malformed one is an error
    /// (exit 2) naming the file, line and column.
    pub fn load(path: &Path) -> Result<SettingsFile> {
        let original = match std::fs::read(path) {
            Ok(b) => Some(b),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => return Err(CmError::io(path, "read", &e)),
        };
        let value = match &original {
            Some(bytes) if !bytes.iter().all(u8::is_ascii_whitespace) => {
                serde_json::from_slice::<Value>(bytes).map_err(|e| {
                    CmError::config(
                        "SETTINGS_MALFORMED",
                        format!(
                            "malformed settings file {} at line {}, column {}: {e}",
                            path.display(),
                            e.line(),
                            e.column()
                        ),
                    )
                    .hint("fix the JSON by hand (comments are not allowed); cm never overwrites a file it cannot parse")
                })?
            }
            _ => Value::Object(Map::new()),
        };
        if !value.is_object() {
            return Err(shape_error(path, "the top level is not an object".into()));
        }
        Ok(SettingsFile {
            path: path.to_path_buf(),
            original,
            parsed: value.clone(),
            value,
            backup_dir: super::footprint::backup_dir(),
        })
    }

    pub fn exists(&self) -> bool {
        self.original.is_some()
    }

    pub fn changed(&self) -> bool {
        self.value != self.parsed
    }

    /// Write the document back when it changed: back up the old file first, then replace it
    /// atomically. Returns the backup's path when one was made.
    pub fn save(&self) -> Result<Option<PathBuf>> {
        if !self.changed() {
            return Ok(None);
        }
        let backup = match &self.original {
            Some(bytes) => Some(super::footprint::backup_in(
                &self.backup_dir,
                &self.path,
                bytes,
            )?),
            None => None,
        };
        // A file cm creates (and the directories it needs) is listed, so uninstall can delete
        // it again once cm's handlers are all it held.
        let new_dirs = super::footprint::missing_dirs(&self.path);
        let mut text = serde_json::to_string_pretty(&self.value)
            .map_err(|e| CmError::internal(format!("cannot serialize settings: {e}")))?;
        text.push('\n');
        // A settings file kept in a dotfiles repository is often a symlink: write through it
        // rather than replacing the link with a plain file.
        let target = match std::fs::symlink_metadata(&self.path) {
            Ok(m) if m.file_type().is_symlink() => {
                std::fs::canonicalize(&self.path).unwrap_or_else(|_| self.path.clone())
            }
            _ => self.path.clone(),
        };
        crate::fsutil::write_atomic(&target, text.as_bytes())?;
        if self.original.is_none() {
            super::footprint::record_created(&self.path, &new_dirs)?;
        }
        Ok(backup)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PRE: Entry = Entry::new(HookKind::Pretool, "PreToolUse", Some("Bash"), 5);

    fn p() -> PathBuf {
        PathBuf::from("settings.json")
    }

    #[test]
    fn add_is_idempotent_and_remove_restores_the_document() {
        let original = json!({
            "model": "x",
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "my-check"}]}],
                "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]
            },
            "permissions": {"allow": ["Bash(ls)"]}
        });
        let mut v = original.clone();
        assert_eq!(
            add_handler(&mut v, &PRE, "/b/cm-pretool", &p()).unwrap(),
            Change::Added
        );
        assert_eq!(
            add_handler(&mut v, &PRE, "/b/cm-pretool", &p()).unwrap(),
            Change::Present
        );
        assert_eq!(v["hooks"]["PreToolUse"].as_array().unwrap().len(), 2);
        assert_eq!(
            add_handler(&mut v, &PRE, "/c/cm-pretool", &p()).unwrap(),
            Change::Updated {
                from: "/b/cm-pretool".into()
            }
        );
        assert_eq!(find_handlers(&v).len(), 1);
        // cm's own group follows a changed matcher.
        let wider = Entry {
            matcher: Some("Bash|Write"),
            ..PRE
        };
        assert!(matches!(
            add_handler(&mut v, &wider, "/c/cm-pretool", &p()).unwrap(),
            Change::Updated { .. }
        ));
        assert_eq!(v["hooks"]["PreToolUse"][1]["matcher"], "Bash|Write");
        assert_eq!(v["hooks"]["PreToolUse"][0]["matcher"], "Bash");
        let removed = remove_handlers(&mut v, &[HookKind::Pretool]);
        assert_eq!(removed.len(), 1);
        assert_eq!(v, original);
    }

    #[test]
    fn remove_drops_only_what_cm_emptied() {
        let mut v = json!({});
        add_handler(&mut v, &PRE, "cm-pretool", &p()).unwrap();
        remove_handlers(&mut v, &[HookKind::Pretool]);
        assert_eq!(v, json!({}));
        // A user's empty list and a handler sharing cm's group survive.
        let mut v = json!({"hooks": {"Stop": [], "PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "cm-pretool"}, {"type": "command", "command": "mine"}]}]}});
        remove_handlers(&mut v, &[HookKind::Pretool]);
        assert_eq!(
            v,
            json!({"hooks": {"Stop": [], "PreToolUse": [{"matcher": "Bash", "hooks": [
                {"type": "command", "command": "mine"}]}]}})
        );
    }

    #[cfg(unix)]
    #[test]
    fn writes_through_a_symlinked_settings_file() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("dotfiles-settings.json");
        std::fs::write(&real, r#"{"model": "x"}"#).unwrap();
        let link = dir.path().join("settings.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        let mut f = SettingsFile::load(&link).unwrap();
        f.backup_dir = dir.path().join("backups");
        add_handler(&mut f.value, &PRE, "cm-pretool", &link).unwrap();
        let backup = f.save().unwrap().unwrap();
        assert!(
            std::fs::symlink_metadata(&link)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        assert!(
            std::fs::read_to_string(&real)
                .unwrap()
                .contains("cm-pretool")
        );
        assert_eq!(
            std::fs::read_to_string(backup).unwrap(),
            r#"{"model": "x"}"#
        );
    }

    #[test]
    fn wrong_layout_is_refused() {
        let mut v = json!({"hooks": []});
        let e = add_handler(&mut v, &PRE, "cm-pretool", &p()).unwrap_err();
        assert_eq!(e.exit_code(), 2); // config
        let mut v = json!({"hooks": {"PreToolUse": {}}});
        assert!(add_handler(&mut v, &PRE, "cm-pretool", &p()).is_err());
    }
}
