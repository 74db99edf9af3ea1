//! The fields of a pre-tool payload the guard looks at, every value of each.
//!
//! An agent runs what its own JSON parser makes of the payload, and parsers disagree: given
//! `{"command":"ls","command":"rm -rf ~"}`, Node keeps the last value, a strict parser refuses
//! the object. So the guard keeps every value a key holds (a duplicated key gives two values, a
//! duplicated `tool_input` merges), skips a value of the wrong type instead of failing (a `cwd`
//! that is a number is no reason not to look at the command), decodes escaped key names
//! (`"comm\u0061nd"` is `command`), and lets the caller decide on all of them. Values are
//! borrowed from the payload when they hold no escapes; a large `content` is skipped unread.

use serde::de::{self, Deserializer, MapAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

#[derive(Debug, Default, Clone, PartialEq)]
pub struct Fields<'a> {
    pub hook_event_name: Vec<Cow<'a, str>>,
    pub tool_name: Vec<Cow<'a, str>>,
    pub cwd: Vec<Cow<'a, str>>,
    /// Top-level `command` (Cursor's beforeShellExecution).
    pub command: Vec<Cow<'a, str>>,
    pub workspace_roots: Vec<Cow<'a, str>>,
    /// `tool_input.command`: a string, or an argv list joined into a shell command line.
    pub input_command: Vec<Cow<'a, str>>,
    /// `tool_input.file_path`, `notebook_path`, `path`.
    pub input_path: Vec<Cow<'a, str>>,
    /// `tool_input.input` / `tool_input.patch`: a Codex `apply_patch` patch.
    pub input_patch: Vec<Cow<'a, str>>,
    pub turn_id: bool,
    pub model: bool,
    pub conversation_id: bool,
    /// Keys whose value had a type the hook does not expect (skipped, reported on stderr).
    pub wrong_types: Vec<String>,
}

impl<'a> Fields<'a> {
    /// Add everything `other` holds (the next object of a concatenated payload).
    pub fn merge(&mut self, other: Fields<'a>) {
        self.hook_event_name.extend(other.hook_event_name);
        self.tool_name.extend(other.tool_name);
        self.cwd.extend(other.cwd);
        self.command.extend(other.command);
        self.workspace_roots.extend(other.workspace_roots);
        self.input_command.extend(other.input_command);
        self.input_path.extend(other.input_path);
        self.input_patch.extend(other.input_patch);
        self.turn_id |= other.turn_id;
        self.model |= other.model;
        self.conversation_id |= other.conversation_id;
        self.wrong_types.extend(other.wrong_types);
    }

    /// Record one top-level key's value (also used by the salvage scan, with `nested` for keys
    /// found inside an inner object).
    pub fn take(&mut self, key: &str, value: Value<'a>, nested: bool) {
        let slot = match (key, nested) {
            ("hook_event_name", false) => &mut self.hook_event_name,
            ("tool_name", false) => &mut self.tool_name,
            ("cwd", false) => &mut self.cwd,
            ("command", false) => &mut self.command,
            ("workspace_roots", false) => &mut self.workspace_roots,
            ("command" | "cmd", true) => &mut self.input_command,
            ("file_path" | "notebook_path" | "path", true) => &mut self.input_path,
            ("input" | "patch", true) => &mut self.input_patch,
            // Present unless null, as the strict reader sees them.
            ("turn_id", false) => return self.turn_id |= !matches!(value, Value::Null),
            ("model", false) => return self.model |= !matches!(value, Value::Null),
            ("conversation_id", false) => {
                return self.conversation_id |= !matches!(value, Value::Null);
            }
            _ => return,
        };
        match value {
            Value::Text(t) => slot.push(t),
            Value::List(items) => slot.extend(items),
            Value::Null => {}
            Value::Other => self.wrong_types.push(key.to_string()),
        }
    }
}

/// The documented payload, every field at most once and of its documented type: the common
/// case, read by a derived deserializer straight into borrowed fields. It touches less code per
/// call than the lenient reader ([`Fields`]'s own `Deserialize`), which runs when this one
/// refuses (a duplicated field, a wrong type, an argv list).
#[derive(serde::Deserialize)]
pub struct Strict<'a> {
    #[serde(borrow, default)]
    hook_event_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    tool_name: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    command: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    workspace_roots: Option<Vec<Cow<'a, str>>>,
    #[serde(borrow, default)]
    tool_input: Option<StrictInput<'a>>,
    #[serde(default)]
    turn_id: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    model: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    conversation_id: Option<serde::de::IgnoredAny>,
}

#[derive(serde::Deserialize)]
struct StrictInput<'a> {
    #[serde(borrow, default, alias = "cmd")]
    command: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    file_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    notebook_path: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    path: Option<Cow<'a, str>>,
    /// Codex `local_shell`'s `action` object and `apply_patch`'s `input`: read by the lenient
    /// reader ([`Strict::is_complete`] says no).
    #[serde(default)]
    action: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    input: Option<serde::de::IgnoredAny>,
    #[serde(default)]
    patch: Option<serde::de::IgnoredAny>,
}

impl<'a> Strict<'a> {
    /// Did the documented shape hold everything? (A nested `action` or a patch `input` needs
    /// the lenient reader.)
    pub fn is_complete(&self) -> bool {
        self.tool_input
            .as_ref()
            .is_none_or(|i| i.action.is_none() && i.input.is_none() && i.patch.is_none())
    }

    pub fn into_fields(self) -> Fields<'a> {
        let input = self.tool_input;
        let (input_command, input_path) = match input {
            Some(i) => (
                i.command.into_iter().collect(),
                [i.file_path, i.notebook_path, i.path]
                    .into_iter()
                    .flatten()
                    .collect(),
            ),
            None => (Vec::new(), Vec::new()),
        };
        Fields {
            hook_event_name: self.hook_event_name.into_iter().collect(),
            tool_name: self.tool_name.into_iter().collect(),
            cwd: self.cwd.into_iter().collect(),
            command: self.command.into_iter().collect(),
            workspace_roots: self.workspace_roots.unwrap_or_default(),
            input_command,
            input_path,
            input_patch: Vec::new(),
            turn_id: self.turn_id.is_some(),
            model: self.model.is_some(),
            conversation_id: self.conversation_id.is_some(),
            wrong_types: Vec::new(),
        }
    }
}

/// A value as the fields use it.
pub enum Value<'a> {
    Text(Cow<'a, str>),
    /// A list of strings: an argv for `command`, the roots for `workspace_roots`.
    List(Vec<Cow<'a, str>>),
    Null,
    Other,
}

impl<'de: 'a, 'a> serde::Deserialize<'de> for Fields<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let Pairs(pairs) = Pairs::deserialize(d)?;
        let mut fields = Fields::default();
        for (key, raw) in pairs {
            if key == "tool_input" {
                match serde_json::from_str::<Pairs>(raw.get()) {
                    Ok(Pairs(inner)) => {
                        for (k, v) in inner {
                            if k == "action" {
                                // Codex `local_shell`: `{"action": {"command": [argv]}}`.
                                if let Ok(Pairs(action)) = serde_json::from_str::<Pairs>(v.get()) {
                                    for (k, v) in action {
                                        fields.take(&k, value(&k, v), true);
                                    }
                                }
                                continue;
                            }
                            fields.take(&k, value(&k, v), true);
                        }
                    }
                    Err(_) => fields.wrong_types.push("tool_input".into()),
                }
            } else {
                fields.take(&key, value(&key, raw), false);
            }
        }
        Ok(fields)
    }
}

/// The value of `key` as text, or a list of strings where one is expected.
fn value<'a>(key: &str, raw: &'a RawValue) -> Value<'a> {
    if let Some(t) = text(raw) {
        return Value::Text(t);
    }
    if raw.get() == "null" {
        return Value::Null;
    }
    let list = || -> Option<Vec<Cow<'a, str>>> {
        let items: Vec<&'a RawValue> = serde_json::from_str(raw.get()).ok()?;
        items.into_iter().map(text).collect()
    };
    match (key, list()) {
        ("command" | "cmd", Some(words)) if !words.is_empty() => {
            let line: Vec<String> = words.iter().map(|w| quote(w)).collect();
            Value::Text(Cow::Owned(line.join(" ")))
        }
        ("workspace_roots", Some(roots)) => Value::List(roots),
        _ => Value::Other,
    }
}

/// A JSON string value, borrowed when it holds no escapes.
fn text(raw: &RawValue) -> Option<Cow<'_, str>> {
    let s = raw.get();
    if !s.starts_with('"') {
        return None;
    }
    if let Ok(b) = serde_json::from_str::<&str>(s) {
        return Some(Cow::Borrowed(b));
    }
    // A lone surrogate passes the outer parse but not decoding: repair it (to U+FFFD).
    serde_json::from_str::<String>(s)
        .or_else(|_| serde_json::from_str::<String>(&super::repair::repair(s.as_bytes())))
        .ok()
        .map(Cow::Owned)
}

/// One argv word as a shell word: kept when it holds only plain characters, else single-quoted.
pub fn quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%^~".contains(&b));
    if plain {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// An object as its key/value pairs in order, duplicates kept; values unparsed.
struct Pairs<'a>(Vec<(Cow<'a, str>, &'a RawValue)>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Pairs<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Pairs<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<M: MapAccess<'de>>(self, mut map: M) -> Result<Self::Value, M::Error> {
                let mut out = Vec::new();
                while let Some(Key(k)) = map.next_key()? {
                    out.push((k, map.next_value()?));
                }
                Ok(Pairs(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A key, decoded (escapes resolved), borrowed when it has none.
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> serde::Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Fields<'_> {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn every_value_of_a_duplicated_key_is_kept() {
        let f = parse(
            r#"{"tool_name":"Bash","tool_input":{"command":"ls","command":"rm -rf ~"},"tool_input":{"command":"git reset --hard"}}"#,
        );
        assert_eq!(f.input_command, ["ls", "rm -rf ~", "git reset --hard"]);
    }

    #[test]
    fn wrong_types_are_skipped_and_escaped_keys_decoded() {
        let f = parse(
            r#"{"cwd":5,"tool_name":"Bash","tool_input":{"comm\u0061nd":"rm -rf ~","file_path":null},"workspace_roots":["/a",3]}"#,
        );
        assert_eq!(f.input_command, ["rm -rf ~"]);
        assert!(f.cwd.is_empty());
        // A null is an absent value, not a wrong type.
        assert_eq!(f.wrong_types, ["cwd", "workspace_roots"]);
        let f = parse(r#"{"tool_input":{"command":["bash","-lc","rm -rf ~ && echo 'done'"]}}"#);
        assert_eq!(
            f.input_command,
            [r"bash -lc 'rm -rf ~ && echo '\''done'\'''"]
        );
        assert!(matches!(f.input_command[0], Cow::Owned(_)));
        let f = parse(r#"{"tool_input":{"command":"ls"}}"#);
        assert!(matches!(f.input_command[0], Cow::Borrowed("ls")));
    }
}
