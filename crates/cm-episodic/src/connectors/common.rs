//! Small pieces every connector shares: borrowed JSON strings, timestamps, environment
//! overrides, flattening tool arguments into searchable text, and building messages.

use super::SourceFile;
use crate::model::{Message, MessageKind, Role};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;
use std::fmt;
use std::path::PathBuf;

/// A JSON string borrowed from the input when it has no escapes, owned otherwise.
///
/// serde only borrows a `Cow<str>` that is a struct field of its own; inside an `Option` it
/// always allocates. This wrapper borrows in both places. Any other JSON value reads as the empty
/// string (and is skipped without allocating), so a field whose type drifts in a new version of
/// an agent costs that field, not the whole record.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Str<'a>(pub Cow<'a, str>);

impl<'a> Str<'a> {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(v))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v.to_owned()))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(""))
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(""))
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(""))
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(""))
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(""))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Cow::Borrowed(""))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Cow::Borrowed(""))
            }
        }
        d.deserialize_any(V).map(Str)
    }
}

/// The borrowed text of an optional string field.
pub fn opt_str<'s>(s: &'s Option<Str<'_>>) -> Option<&'s str> {
    s.as_ref().map(Str::as_str)
}

/// A non-empty environment variable as a path.
pub fn env_path(name: &str) -> Option<PathBuf> {
    std::env::var_os(name)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Epoch milliseconds (or seconds, when the number is too small to be milliseconds) as RFC 3339.
pub fn epoch_to_rfc3339(n: f64) -> Option<String> {
    if !n.is_finite() || n <= 0.0 {
        return None;
    }
    let ms = if n < 1e11 { n * 1000.0 } else { n } as i64;
    chrono::DateTime::from_timestamp_millis(ms).map(cm_base::clock::to_rfc3339)
}

/// A JSON timestamp that is either a string (kept when it parses as RFC 3339, normalised to UTC
/// milliseconds) or a number of epoch (milli)seconds.
pub fn json_time(v: &serde_json::Value) -> Option<String> {
    match v {
        serde_json::Value::String(s) => normalise_time(s),
        serde_json::Value::Number(n) => n.as_f64().and_then(epoch_to_rfc3339),
        _ => None,
    }
}

/// An RFC 3339 string as stored (UTC, milliseconds, `Z`); `None` when it does not parse.
pub fn normalise_time(s: &str) -> Option<String> {
    // The common case is already in stored form: `YYYY-MM-DDThh:mm:ss.mmmZ`.
    let b = s.as_bytes();
    if b.len() == 24 && b[10] == b'T' && b[19] == b'.' && b[23] == b'Z' {
        return Some(s.to_owned());
    }
    cm_base::clock::parse(s).map(cm_base::clock::to_rfc3339)
}

/// Searchable text for a tool call's arguments: every string leaf, one per line, in document
/// order (`{"command":"cargo test","description":"Run tests"}` -> `cargo test\nRun tests`).
/// Falls back to the raw JSON when it does not parse or holds no strings.
pub fn flatten_args(raw: &str) -> String {
    fn walk(v: &serde_json::Value, out: &mut String) {
        match v {
            serde_json::Value::String(s) if !s.is_empty() => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(s);
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, out)),
            serde_json::Value::Object(m) => m.values().for_each(|x| walk(x, out)),
            serde_json::Value::Number(n) => {
                if !out.is_empty() {
                    out.push('\n');
                }
                out.push_str(&n.to_string());
            }
            _ => {}
        }
    }
    match serde_json::from_str::<serde_json::Value>(raw) {
        Ok(serde_json::Value::String(s)) => s,
        Ok(v) => {
            let mut out = String::new();
            walk(&v, &mut out);
            if out.is_empty() { raw.to_owned() } else { out }
        }
        Err(_) => raw.to_owned(),
    }
}

/// A stable 64-bit hash (FNV-1a) as hex: used to remember prompts across runs without keeping
/// their text (which the index would otherwise store unredacted in resume state).
pub fn text_hash(text: &str) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.trim().bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// Everything a message shares with its neighbours in one source.
#[derive(Debug, Clone, Default)]
pub struct Context {
    pub agent: &'static str,
    pub session_id: String,
    pub parent_session_id: Option<String>,
    pub source_path: String,
    pub workspace: Option<String>,
    pub git_branch: Option<String>,
    pub model: Option<String>,
}

impl Context {
    pub fn for_file(file: &SourceFile, session_id: String) -> Self {
        Context {
            agent: file.agent,
            session_id,
            parent_session_id: file.parent_session_id.clone(),
            source_path: file.path.to_string_lossy().into_owned(),
            ..Context::default()
        }
    }

    /// A message with this context's identity; callers set tool fields and the error flag.
    pub fn message(
        &self,
        line_number: u64,
        role: Role,
        kind: MessageKind,
        timestamp: Option<String>,
        text: String,
    ) -> Message {
        Message {
            agent: self.agent.to_string(),
            session_id: self.session_id.clone(),
            parent_session_id: self.parent_session_id.clone(),
            source_path: self.source_path.clone(),
            line_number,
            workspace: self.workspace.clone(),
            git_branch: self.git_branch.clone(),
            role,
            kind,
            timestamp,
            model: self.model.clone(),
            text,
            tool_name: None,
            tool_args: None,
            is_error: false,
        }
    }
}

/// A skipped record for a line that is not valid JSON (or not the expected shape). The reason
/// names the error class and column only: serde's message can quote the offending value, and
/// skipped reasons are reported, so they must never carry message text.
pub fn malformed(line: u64, e: &serde_json::Error) -> super::Skipped {
    super::Skipped {
        line,
        reason: format!(
            "malformed JSON ({:?} error at column {})",
            e.classify(),
            e.column()
        ),
    }
}

pub fn skipped(line: u64, reason: impl Into<String>) -> super::Skipped {
    super::Skipped {
        line,
        reason: reason.into(),
    }
}

/// The file name without its extension, as an owned string.
pub fn file_stem(path: &std::path::Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The 1-based line on which `inner` (a sub-slice of `doc`) starts, counting from `from_line`
/// at byte `from_offset`. Used to give records of whole JSON documents their physical line.
pub fn line_of(doc: &str, inner: &str, from_offset: &mut usize, from_line: &mut u64) -> u64 {
    let start = (inner.as_ptr() as usize).saturating_sub(doc.as_ptr() as usize);
    if start >= *from_offset && start <= doc.len() {
        *from_line +=
            memchr::memchr_iter(b'\n', &doc.as_bytes()[*from_offset..start]).count() as u64;
        *from_offset = start;
    }
    *from_line
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn borrowed_strings_borrow_unless_escaped() {
        let s: Option<Str> = serde_json::from_str(r#""plain""#).unwrap();
        assert!(matches!(s.unwrap().0, Cow::Borrowed("plain")));
        let s: Option<Str> = serde_json::from_str(r#""a\nb""#).unwrap();
        assert_eq!(s.unwrap().as_str(), "a\nb");
        let s: Option<Str> = serde_json::from_str("null").unwrap();
        assert!(s.is_none());
        for other in ["42", "true", "[1,{\"a\":2}]", "{\"a\":[\"b\"]}"] {
            let s: Option<Str> = serde_json::from_str(other).unwrap();
            assert_eq!(s.unwrap().as_str(), "", "{other}");
        }
    }

    #[test]
    fn times_normalise_to_utc_millis() {
        assert_eq!(
            normalise_time("2026-08-10T12:00:00.000Z").as_deref(),
            Some("2026-08-10T12:00:00.000Z")
        );
        assert_eq!(
            normalise_time("2026-08-10T14:00:00+02:00").as_deref(),
            Some("2026-08-10T12:00:00.000Z")
        );
        assert_eq!(normalise_time("soon"), None);
        assert_eq!(
            epoch_to_rfc3339(1_786_363_200_000.0).as_deref(),
            Some("2026-08-10T12:00:00.000Z")
        );
        assert_eq!(
            epoch_to_rfc3339(1_786_363_200.0).as_deref(),
            Some("2026-08-10T12:00:00.000Z")
        );
    }

    #[test]
    fn tool_arguments_flatten_to_their_strings() {
        assert_eq!(
            flatten_args(r#"{"command":"cargo test","description":"Run tests","timeout":5}"#),
            "cargo test\nRun tests\n5"
        );
        assert_eq!(flatten_args(r#""{\"cmd\":\"ls\"}""#), r#"{"cmd":"ls"}"#);
        assert_eq!(flatten_args("not json"), "not json");
        assert_eq!(flatten_args("{}"), "{}");
    }

    #[test]
    fn record_lines_count_newlines_before_them() {
        let doc = "[\n  {\"a\":1},\n\n  {\"b\":2}\n]";
        let v: Vec<&serde_json::value::RawValue> = serde_json::from_str(doc).unwrap();
        let (mut off, mut line) = (0, 1);
        assert_eq!(line_of(doc, v[0].get(), &mut off, &mut line), 2);
        assert_eq!(line_of(doc, v[1].get(), &mut off, &mut line), 4);
    }

    #[test]
    fn hashes_are_stable_and_trim() {
        assert_eq!(text_hash("run the tests"), text_hash(" run the tests\n"));
        assert_ne!(text_hash("a"), text_hash("b"));
    }
}
