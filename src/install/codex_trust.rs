//! Whether Codex will run cm's hooks: Codex 0.171 runs a hook from `hooks.json` only after the
//! user trusted it, and keeps that trust in `$CODEX_HOME/config.toml` as
//! `[hooks.state."<hooks.json path>:<event>:<group>:<handler>"]` with `trusted_hash =
//! "sha256:<hex>"` (and `enabled = false` for a hook the user turned off). The hash is over the
//! handler as Codex normalises it, so a changed command, matcher or timeout needs trusting
//! again; until then the hook silently never runs.
//!
//! This module recomputes that hash for each cm handler and compares it with the stored one:
//! approved, needs review (never trusted), changed (trusted in another form) or disabled.
//!
//! The TOML is read by a small reader of exactly these tables rather than a TOML crate: cm needs
//! two keys of one table, the file is the user's and is never written here, and a form this
//! reader does not know reads as "needs review", which is what the user is then told to do.

use super::command::identify;
use serde::Serialize;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Trust {
    Approved,
    NeedsReview,
    Changed,
    Disabled,
}

impl Trust {
    pub fn describe(self) -> &'static str {
        match self {
            Trust::Approved => "trusted by you in Codex",
            Trust::NeedsReview => "needs review in Codex: it does not run until you trust it",
            Trust::Changed => {
                "changed since you trusted it: Codex does not run it until you trust it again"
            }
            Trust::Disabled => "disabled in Codex",
        }
    }
}

/// One of cm's handlers in a Codex `hooks.json`, and whether Codex will run it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HookTrust {
    pub event: String,
    pub command: String,
    pub key: String,
    pub trust: Trust,
}

/// What `config.toml` says about one hook.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct State {
    pub trusted_hash: Option<String>,
    pub enabled: Option<bool>,
}

/// Codex's `config.toml`: `$CODEX_HOME/config.toml`.
pub fn config_path() -> PathBuf {
    super::codex::home().join("config.toml")
}

/// Whether Codex will run each of cm's handlers in `doc`, the parsed `hooks.json` at `path`.
pub fn check(path: &Path, doc: &Value) -> Vec<HookTrust> {
    let text = std::fs::read_to_string(config_path()).unwrap_or_default();
    check_with(path, doc, &read_states(&text))
}

pub fn check_with(path: &Path, doc: &Value, states: &HashMap<String, State>) -> Vec<HookTrust> {
    let mut out = Vec::new();
    let Some(hooks) = doc.get("hooks").and_then(Value::as_object) else {
        return out;
    };
    for (event, groups) in hooks {
        for (g, group) in groups.as_array().into_iter().flatten().enumerate() {
            let matcher = group.get("matcher").and_then(Value::as_str);
            let handlers = group.get("hooks").and_then(Value::as_array);
            for (h, handler) in handlers.into_iter().flatten().enumerate() {
                let Some(command) = handler.get("command").and_then(Value::as_str) else {
                    continue;
                };
                if identify(command).is_none() {
                    continue;
                }
                let key = format!("{}:{}:{g}:{h}", path.display(), snake(event));
                let hash = hash(event, matcher, handler);
                let state = states.get(&key).cloned().unwrap_or_default();
                let trust = match (state.enabled, state.trusted_hash) {
                    (Some(false), _) => Trust::Disabled,
                    (_, None) => Trust::NeedsReview,
                    (_, Some(t)) if t == hash => Trust::Approved,
                    _ => Trust::Changed,
                };
                out.push(HookTrust {
                    event: event.clone(),
                    command: command.to_string(),
                    key,
                    trust,
                });
            }
        }
    }
    out
}

/// `PreToolUse` -> `pre_tool_use`, as Codex names events in trust keys and hashes.
pub fn snake(event: &str) -> String {
    let mut out = String::with_capacity(event.len() + 4);
    for (i, c) in event.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Codex's hash of one command handler: SHA-256 over the compact JSON, keys sorted, of
/// `{event_name, hooks: [{async, command, timeout, type}], matcher}` (the matcher only when
/// there is one; a missing timeout is Codex's default of 600 s).
pub fn hash(event: &str, matcher: Option<&str>, handler: &Value) -> String {
    let s = |v: &str| serde_json::to_string(v).expect("a string serializes");
    let command = handler.get("command").and_then(Value::as_str).unwrap_or("");
    let timeout = handler
        .get("timeout")
        .and_then(Value::as_u64)
        .unwrap_or(600);
    let is_async = handler
        .get("async")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let mut identity = format!(
        r#"{{"event_name":{},"hooks":[{{"async":{is_async},"command":{},"timeout":{timeout},"type":"command"}}]"#,
        s(&snake(event)),
        s(command),
    );
    if let Some(m) = matcher {
        identity.push_str(&format!(r#","matcher":{}"#, s(m)));
    }
    identity.push('}');
    let digest = Sha256::digest(identity.as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// The `hooks.state` entries of a `config.toml`: tables `[hooks.state."KEY"]` holding
/// `trusted_hash` and `enabled`, and inline tables `"KEY" = { ... }` under `[hooks.state]`.
pub fn read_states(text: &str) -> HashMap<String, State> {
    let mut out: HashMap<String, State> = HashMap::new();
    let mut current: Option<String> = None;
    let mut in_state = false;
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if line.starts_with('[') {
            current = None;
            in_state = false;
            let inner = line.trim_start_matches('[').trim_end_matches(']').trim();
            if let Some(rest) = state_header(inner) {
                if rest.is_empty() {
                    in_state = true;
                } else if let Some((key, tail)) = quoted(rest)
                    && tail.trim().is_empty()
                {
                    out.entry(key.clone()).or_default();
                    current = Some(key);
                }
            }
            continue;
        }
        if let Some(key) = &current {
            let state = out.entry(key.clone()).or_default();
            assign(line, state);
        } else if in_state && let Some((key, rest)) = quoted(line) {
            let state = out.entry(key).or_default();
            let rest = rest.trim_start();
            if let Some(field) = rest.strip_prefix('.') {
                assign(field.trim_start(), state);
            } else if let Some(table) = rest.strip_prefix('=').map(str::trim) {
                let body = table.trim_start_matches('{').trim_end_matches('}');
                for part in body.split(',') {
                    assign(part.trim(), state);
                }
            }
        }
    }
    out
}

/// `trusted_hash = "..."` or `enabled = true|false` into `state`.
fn assign(line: &str, state: &mut State) {
    let Some((name, value)) = line.split_once('=') else {
        return;
    };
    let value = value.trim();
    match name.trim() {
        "trusted_hash" => state.trusted_hash = quoted(value).map(|(v, _)| v),
        "enabled" => {
            state.enabled = match value.split_whitespace().next() {
                Some("true") => Some(true),
                Some("false") => Some(false),
                _ => None,
            }
        }
        _ => {}
    }
}

/// `hooks.state.REST` (spaces allowed around the dots) -> `REST`, `hooks.state` -> "".
fn state_header(inner: &str) -> Option<&str> {
    let s = inner.strip_prefix("hooks")?.trim_start();
    let s = s
        .strip_prefix('.')?
        .trim_start()
        .strip_prefix("state")?
        .trim_start();
    if s.is_empty() {
        return Some("");
    }
    s.strip_prefix('.').map(str::trim_start)
}

/// A TOML basic (`"..."`, with escapes) or literal (`'...'`) string at the start of `s`: its
/// value and what follows it.
fn quoted(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start();
    if let Some(rest) = s.strip_prefix('\'') {
        let end = rest.find('\'')?;
        return Some((rest[..end].to_string(), &rest[end + 1..]));
    }
    let rest = s.strip_prefix('"')?;
    let mut out = String::new();
    let mut chars = rest.char_indices();
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => return Some((out, &rest[i + 1..])),
            '\\' => match chars.next()?.1 {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                'r' => out.push('\r'),
                'b' => out.push('\u{8}'),
                'f' => out.push('\u{c}'),
                'u' | 'U' => {
                    let width = if c == 'u' { 4 } else { 8 };
                    let hex: String = chars.by_ref().take(width).map(|(_, h)| h).collect();
                    out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
                }
                other => out.push(other),
            },
            c => out.push(c),
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // Hashes Codex 0.171 wrote when these handlers were trusted in its own start-up dialog.
    const PRE_HASH: &str =
        "sha256:65c1150785123060c51dd205976120d122bc18234f7986606ced72e85bec8a36";
    const END_HASH: &str =
        "sha256:0a9a73a59ff0c7095a12cd9b36e21ac90b6f1efca9590351da9e8dfaf7afbdfe";

    #[test]
    fn hashes_handlers_as_codex_does() {
        let pre = json!({"type": "command", "command": "/usr/bin/true", "timeout": 5});
        assert_eq!(
            hash(
                "PreToolUse",
                Some("^(Bash|exec_command|shell|local_shell|apply_patch|mcp__.*)$"),
                &pre
            ),
            PRE_HASH
        );
        let end = json!({"type": "command", "command": "/usr/bin/true postsession", "timeout": 3});
        assert_eq!(hash("SessionEnd", None, &end), END_HASH);
    }

    #[test]
    fn reads_the_state_tables_codex_writes() {
        let text = r#"model = "x"
[projects."/p"]
trust_level = "trusted"

[hooks.state]

[hooks.state."/h/.codex/hooks.json:pre_tool_use:0:0"]
trusted_hash = "sha256:aa"

[hooks.state."/h/.codex/hooks.json:stop:0:0"]
trusted_hash = "sha256:bb"
enabled = false

[hooks.state]
"/h/.codex/hooks.json:session_end:0:0" = { trusted_hash = "sha256:cc", enabled = true }
'/h/x:a:0:0'.trusted_hash = 'sha256:dd'
[other]
trusted_hash = "not this"
"#;
        let s = read_states(text);
        assert_eq!(
            s["/h/.codex/hooks.json:pre_tool_use:0:0"]
                .trusted_hash
                .as_deref(),
            Some("sha256:aa")
        );
        assert_eq!(s["/h/.codex/hooks.json:stop:0:0"].enabled, Some(false));
        assert_eq!(
            s["/h/.codex/hooks.json:session_end:0:0"],
            State {
                trusted_hash: Some("sha256:cc".into()),
                enabled: Some(true)
            }
        );
        assert_eq!(s["/h/x:a:0:0"].trusted_hash.as_deref(), Some("sha256:dd"));
        assert_eq!(s.len(), 4);
    }

    #[test]
    fn tells_approved_review_changed_and_disabled_apart() {
        let doc = json!({"hooks": {
            "PreToolUse": [{"matcher": "^(Bash|exec_command|shell|local_shell|apply_patch|mcp__.*)$",
                "hooks": [{"type": "command", "command": "/usr/bin/true", "timeout": 5}]}],
            "SessionEnd": [{"hooks": [{"type": "command", "command": "/usr/bin/true postsession", "timeout": 3}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "mine"}, {"type": "command", "command": "cm hook stop"}]}],
            "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "cm hook prompt", "timeout": 5}]}]
        }});
        // `/usr/bin/true` is no cm command: make the doc's handlers cm's by name.
        let doc: Value = serde_json::from_str(
            &doc.to_string()
                .replace("/usr/bin/true postsession", "/b/cm-postsession")
                .replace("/usr/bin/true", "/b/cm-pretool"),
        )
        .unwrap();
        let pre = json!({"type": "command", "command": "/b/cm-pretool", "timeout": 5});
        let pre_hash = hash(
            "PreToolUse",
            Some("^(Bash|exec_command|shell|local_shell|apply_patch|mcp__.*)$"),
            &pre,
        );
        let mut states = HashMap::new();
        states.insert(
            "/h/hooks.json:pre_tool_use:0:0".to_string(),
            State {
                trusted_hash: Some(pre_hash),
                enabled: None,
            },
        );
        states.insert(
            "/h/hooks.json:session_end:0:0".to_string(),
            State {
                trusted_hash: Some(END_HASH.into()),
                enabled: None,
            },
        );
        states.insert(
            "/h/hooks.json:stop:0:1".to_string(),
            State {
                trusted_hash: None,
                enabled: Some(false),
            },
        );
        let got: Vec<(String, Trust)> = check_with(Path::new("/h/hooks.json"), &doc, &states)
            .into_iter()
            .map(|t| (t.key, t.trust))
            .collect();
        assert_eq!(
            got,
            vec![
                ("/h/hooks.json:pre_tool_use:0:0".into(), Trust::Approved),
                // Trusted when it ran `/usr/bin/true postsession`: the command changed since.
                ("/h/hooks.json:session_end:0:0".into(), Trust::Changed),
                ("/h/hooks.json:stop:0:1".into(), Trust::Disabled),
                (
                    "/h/hooks.json:user_prompt_submit:0:0".into(),
                    Trust::NeedsReview
                ),
            ]
        );
    }
}
