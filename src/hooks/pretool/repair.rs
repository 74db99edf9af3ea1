//! Payloads that are not valid JSON: repair what a lenient parser would accept, and salvage
//! the fields a strict one would lose.
//!
//! A lone surrogate (`\ud800`), a raw control character or NUL inside a string, invalid UTF-8,
//! an unknown escape or bytes after the object make a strict parser refuse the whole payload,
//! while the agent (whose parser may be more forgiving) runs the command. Refusing to look
//! would turn every such payload into an allow. So, when the strict parse fails:
//!
//! 1. [`repair`] rewrites the text: invalid UTF-8 and lone surrogates become U+FFFD (what a
//!    UTF-16 runtime sends to the OS for them), control characters inside strings are escaped,
//!    an unknown escape keeps its backslash. Every object of the repaired text is read, one after
//!    another (a second object after the first is read too).
//! 2. [`salvage`] scans the text for `"key": "string"` pairs at any depth, also in a payload cut
//!    short, and adds them (keys found inside an inner object count as `tool_input` fields).
//!
//! Both run and their fields are merged: deciding on more values than the agent will see is the
//! safe direction.

use super::fields::{Fields, Value};
use std::borrow::Cow;

/// The fields of a payload the strict parser refused.
pub fn recover(bytes: &[u8]) -> Fields<'static> {
    let text = repair(bytes);
    let mut fields = Fields::default();
    let mut objects = serde_json::Deserializer::from_str(&text).into_iter::<Fields>();
    while let Some(Ok(f)) = objects.next() {
        fields.merge(owned(f));
    }
    fields.merge(salvage(&text));
    fields
}

fn owned(f: Fields<'_>) -> Fields<'static> {
    let o = |v: Vec<Cow<'_, str>>| -> Vec<Cow<'static, str>> {
        v.into_iter().map(|c| Cow::Owned(c.into_owned())).collect()
    };
    Fields {
        hook_event_name: o(f.hook_event_name),
        tool_name: o(f.tool_name),
        cwd: o(f.cwd),
        command: o(f.command),
        workspace_roots: o(f.workspace_roots),
        input_command: o(f.input_command),
        input_path: o(f.input_path),
        input_patch: o(f.input_patch),
        turn_id: f.turn_id,
        model: f.model,
        conversation_id: f.conversation_id,
        wrong_types: f.wrong_types,
    }
}

/// The payload as text a strict parser accepts wherever only string contents were wrong.
pub fn repair(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let b = text.as_bytes();
    let mut out = String::with_capacity(b.len() + 16);
    let mut in_string = false;
    let mut i = 0;
    // Copy unchanged runs as slices: only the bytes that need fixing are looked at closely.
    let mut copied = 0;
    let flush = |out: &mut String, from: usize, to: usize| out.push_str(&text[from..to]);
    while i < b.len() {
        let c = b[i];
        if !in_string {
            if c == b'"' {
                in_string = true;
            }
            i += 1;
            continue;
        }
        match c {
            b'"' => {
                in_string = false;
                i += 1;
            }
            b'\\' => {
                let next = b.get(i + 1).copied();
                match next {
                    Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => i += 2,
                    Some(b'u') => match hex4(b, i + 2) {
                        Some(unit) if (0xD800..0xDC00).contains(&unit) => {
                            let low = (b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u'))
                                .then(|| hex4(b, i + 8))
                                .flatten();
                            if low.is_some_and(|l| (0xDC00..0xE000).contains(&l)) {
                                i += 12;
                            } else {
                                flush(&mut out, copied, i);
                                out.push_str("\\ufffd");
                                i += 6;
                                copied = i;
                            }
                        }
                        Some(unit) if (0xDC00..0xE000).contains(&unit) => {
                            flush(&mut out, copied, i);
                            out.push_str("\\ufffd");
                            i += 6;
                            copied = i;
                        }
                        Some(_) => i += 6,
                        None => {
                            flush(&mut out, copied, i);
                            out.push_str("\\\\");
                            i += 1;
                            copied = i;
                        }
                    },
                    _ => {
                        flush(&mut out, copied, i);
                        out.push_str("\\\\");
                        i += 1;
                        copied = i;
                    }
                }
            }
            c if c < 0x20 => {
                flush(&mut out, copied, i);
                out.push_str(&format!("\\u{c:04x}"));
                i += 1;
                copied = i;
            }
            _ => i += 1,
        }
    }
    flush(&mut out, copied, b.len());
    out
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let h = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
    if !h.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u32::from_str_radix(h, 16).ok()
}

/// `"key": "string"` pairs found by a lexical scan of repaired text, at any depth: keys one
/// level down count as `tool_input` fields. An unterminated last string (a payload cut short)
/// is taken as it is.
pub fn salvage(text: &str) -> Fields<'static> {
    let b = text.as_bytes();
    let mut fields = Fields::default();
    let mut depth = 0usize;
    let mut key: Option<(String, usize)> = None;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => {
                depth += 1;
                if b[i] == b'[' {
                    key = None;
                }
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                key = None;
                i += 1;
            }
            b'"' => {
                let (s, end) = string_at(text, i);
                i = end;
                let mut j = i;
                while j < b.len() && b[j].is_ascii_whitespace() {
                    j += 1;
                }
                if b.get(j) == Some(&b':') {
                    key = Some((s, depth));
                    i = j + 1;
                } else if let Some((k, d)) = key.take() {
                    fields.take(&k, Value::Text(Cow::Owned(s)), d >= 2);
                }
            }
            c if c.is_ascii_whitespace() || c == b',' || c == b':' => i += 1,
            _ => {
                key = None;
                i += 1;
            }
        }
    }
    fields
}

/// The string starting at the quote at `at`, decoded, and the index just past its closing
/// quote (the end of the text when it has none).
fn string_at(text: &str, at: usize) -> (String, usize) {
    let b = text.as_bytes();
    let mut i = at + 1;
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => {
                let raw = &text[at..=i];
                let s = serde_json::from_str::<String>(raw)
                    .unwrap_or_else(|_| raw[1..raw.len() - 1].to_string());
                return (s, i + 1);
            }
            _ => i += 1,
        }
    }
    let rest = text.get(at + 1..).unwrap_or("");
    let rest = rest.strip_suffix('\\').unwrap_or(rest);
    let s =
        serde_json::from_str::<String>(&format!("\"{rest}\"")).unwrap_or_else(|_| rest.to_string());
    (s, b.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmds(payload: &[u8]) -> Vec<String> {
        let f = recover(payload);
        let mut v: Vec<String> = f.input_command.iter().map(|c| c.to_string()).collect();
        v.dedup();
        v
    }

    #[test]
    fn lone_surrogates_control_characters_and_trailing_bytes_are_repaired() {
        assert_eq!(
            cmds(br#"{"tool_name":"Bash","tool_input":{"command":"rm -rf ~ #\ud800"}}"#),
            ["rm -rf ~ #\u{fffd}"]
        );
        assert_eq!(
            cmds(b"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf ~\0\"}}"),
            ["rm -rf ~\0"]
        );
        assert_eq!(
            cmds(b"{\"tool_name\":\"Bash\",\"tool_input\":{\"command\":\"rm -rf ~\"}}\0"),
            ["rm -rf ~"]
        );
        assert_eq!(
            cmds(b"{\"tool_input\":{\"command\":\"rm -rf \xff~\"}}"),
            ["rm -rf \u{fffd}~"]
        );
        assert_eq!(cmds(br#"{"tool_input":{"command":"a\qb"}}"#), [r"a\qb"]);
        // A valid pair is kept.
        assert_eq!(
            cmds(br#"{"tool_input":{"command":"x \ud83d\ude00"}}"#),
            ["x \u{1f600}"]
        );
    }

    #[test]
    fn a_payload_cut_short_still_yields_its_fields() {
        let f = recover(
            br#"{"hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"cat <<EOF\nhi\nEOF\nrm -rf ~"#,
        );
        assert_eq!(f.hook_event_name, ["PreToolUse"]);
        assert_eq!(f.tool_name, ["Bash"]);
        assert_eq!(f.input_command, ["cat <<EOF\nhi\nEOF\nrm -rf ~"]);
        let f = salvage(r#"{"command": "rm -rf ~", "cwd": 3, "x": {"path": "/etc/passwd"}}"#);
        assert_eq!(f.command, ["rm -rf ~"]);
        assert_eq!(f.input_path, ["/etc/passwd"]);
        assert!(f.cwd.is_empty());
    }
}
