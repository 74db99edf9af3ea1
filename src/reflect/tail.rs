//! The end of a transcript read straight from the file's bytes, for the `Stop` hook's reflector
//! mode ([`crate::hooks::stop_reflect`]): that hook runs at the end of every turn and must not
//! wait for the index, so it reads the last few hundred KiB of the session file itself (Claude
//! Code records or Codex rollout records) and asks one question: did the user correct the agent,
//! or did one step keep failing? Pure: bytes in, answer out.

use super::transcript::{Step, Transcript};
use crate::episodic::sessions::Message;
use serde_json::Value;

/// Why the session is worth reflecting on before the agent stops.
#[derive(Debug, Clone, PartialEq)]
pub enum Worth {
    /// The user objected to what the agent did (the message, clipped).
    Correction(String),
    /// One step failed this many times in a row (the step, as a rule would quote it).
    FailureStreak(String, usize),
}

/// Failures of one step in a row that make a streak.
const STREAK: usize = 2;

/// The transcript in `bytes`; `partial_start`: the bytes start mid-file, so the first line is
/// cut and skipped.
pub fn transcript(bytes: &[u8], partial_start: bool) -> Transcript {
    let mut messages: Vec<Message> = Vec::new();
    for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
        if (n == 0 && partial_start) || line.is_empty() {
            continue;
        }
        let Ok(rec) = serde_json::from_slice::<Value>(line) else {
            continue;
        };
        read_record(&rec, n as i64 + 1, &mut messages);
    }
    Transcript::from_messages(&messages)
}

fn message(line: i64, role: &str, kind: &str, text: String) -> Message {
    Message {
        line_number: line,
        role: role.into(),
        kind: kind.into(),
        created_at: None,
        text,
        tool_name: None,
        tool_args: None,
        is_error: false,
        model: None,
        source_path: String::new(),
    }
}

/// Text of a content value: a string, or the text blocks of an array.
fn text_of(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Array(items) => items
            .iter()
            .filter_map(|b| b.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

fn read_record(rec: &Value, line: i64, out: &mut Vec<Message>) {
    let kind = rec.get("type").and_then(Value::as_str).unwrap_or("");
    match kind {
        "user" | "assistant" => claude(rec, kind, line, out),
        "response_item" => {
            if let Some(p) = rec.get("payload") {
                codex(p, line, out);
            }
        }
        _ => {}
    }
}

fn claude(rec: &Value, role: &str, line: i64, out: &mut Vec<Message>) {
    let Some(content) = rec.get("message").and_then(|m| m.get("content")) else {
        return;
    };
    let Some(blocks) = content.as_array() else {
        out.push(message(line, role, "text", text_of(content)));
        return;
    };
    for b in blocks {
        match b.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => out.push(message(line, role, "text", text_of(b))),
            "tool_use" => {
                let mut m = message(line, role, "tool_call", String::new());
                m.tool_name = b.get("name").and_then(Value::as_str).map(str::to_string);
                m.tool_args = b.get("input").map(Value::to_string);
                out.push(m);
            }
            "tool_result" => {
                let mut m = message(
                    line,
                    "user",
                    "tool_result",
                    b.get("content").map(text_of).unwrap_or_default(),
                );
                m.is_error = b.get("is_error").and_then(Value::as_bool) == Some(true);
                out.push(m);
            }
            _ => {}
        }
    }
}

/// A Codex shell call's arguments, with its command as one line (`["bash", "-lc", "npm i"]`
/// is `npm i`).
fn codex_args(arguments: &str) -> String {
    let Ok(mut v) = serde_json::from_str::<Value>(arguments) else {
        return arguments.to_string();
    };
    if let Some(parts) = v.get("command").and_then(Value::as_array) {
        let words: Vec<&str> = parts.iter().filter_map(Value::as_str).collect();
        let line = match words.as_slice() {
            [shell, flag, script] if shell.ends_with("sh") && flag.starts_with('-') => {
                script.to_string()
            }
            _ => words.join(" "),
        };
        v["command"] = Value::String(line);
    }
    v.to_string()
}

fn codex(p: &Value, line: i64, out: &mut Vec<Message>) {
    let s = |k: &str| p.get(k).and_then(Value::as_str);
    match s("type").unwrap_or("") {
        "message" => {
            let role = s("role").unwrap_or("");
            if role == "user" || role == "assistant" {
                let text = p.get("content").map(text_of).unwrap_or_default();
                out.push(message(line, role, "text", text));
            }
        }
        "function_call" | "custom_tool_call" => {
            let mut m = message(line, "assistant", "tool_call", String::new());
            m.tool_name = s("name").map(str::to_string);
            m.tool_args = s("arguments").or(s("input")).map(codex_args);
            out.push(m);
        }
        "function_call_output" | "custom_tool_call_output" => {
            let output = match p.get("output") {
                Some(Value::String(o)) => o.clone(),
                Some(o) => o.get("output").map(text_of).unwrap_or_default(),
                None => String::new(),
            };
            let failed = output.contains("Process exited with code ")
                && !output.contains("Process exited with code 0");
            let mut m = message(line, "user", "tool_result", output);
            m.is_error = failed;
            out.push(m);
        }
        _ => {}
    }
}

/// Whether the session so far is worth a reflection: the latest correction by the user, or
/// else the longest run of failures of one step.
pub fn worth(t: &Transcript) -> Option<Worth> {
    let (_, objections) = super::said::read(t, None);
    if let Some(o) = objections.last() {
        return Some(Worth::Correction(super::fixes::clip(&o.text, 160)));
    }
    let mut best: Option<(String, usize)> = None;
    let mut run: Option<(String, usize)> = None;
    for step in &t.steps {
        let Step::Tool(r) = step else { continue };
        let Some(cmd) = r.command.as_deref() else {
            continue;
        };
        let key = super::gist::base(cmd);
        run = match (run.take(), r.failed) {
            (_, false) => None,
            (Some((k, n)), true) if k == key => Some((k, n + 1)),
            (_, true) => Some((key, 1)),
        };
        if let Some((k, n)) = &run
            && *n >= STREAK
            && best.as_ref().is_none_or(|(_, b)| n > b)
        {
            best = Some((k.clone(), *n));
        }
    }
    best.map(|(k, n)| Worth::FailureStreak(k, n))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn claude_line(kind: &str, content: Value) -> String {
        serde_json::json!({"type": kind, "message": {"role": kind, "content": content}}).to_string()
    }

    fn bash(command: &str, output: &str, error: bool) -> String {
        format!(
            "{}\n{}\n",
            claude_line(
                "assistant",
                serde_json::json!([{"type": "tool_use", "id": "t", "name": "Bash", "input": {"command": command}}])
            ),
            claude_line(
                "user",
                serde_json::json!([{"type": "tool_result", "tool_use_id": "t", "content": output, "is_error": error}])
            )
        )
    }

    #[test]
    fn a_correction_after_a_command_is_worth_reflecting() {
        let text = format!(
            "{{\"cut\": \n{}{}\n",
            bash("npm install dayjs", "added 1 package", false),
            claude_line("user", Value::String("no. yarn.".into()))
        );
        let t = transcript(text.as_bytes(), true);
        assert_eq!(worth(&t), Some(Worth::Correction("no. yarn.".into())));
    }

    #[test]
    fn a_streak_of_one_failing_step_is_worth_reflecting_and_chatter_is_not() {
        let fail = bash("go test ./...", "--- FAIL: TestX\nFAIL", true);
        let t = transcript(format!("{fail}{fail}").as_bytes(), false);
        assert_eq!(worth(&t), Some(Worth::FailureStreak("go test".into(), 2)));
        let calm = format!(
            "{}{}\n",
            bash("go test ./...", "ok", false),
            claude_line("user", Value::String("thanks, nice work".into()))
        );
        assert_eq!(worth(&transcript(calm.as_bytes(), false)), None);
    }

    #[test]
    fn codex_records_are_read() {
        let call = serde_json::json!({"type": "response_item", "payload": {"type": "function_call", "name": "shell", "arguments": "{\"command\":[\"bash\",\"-lc\",\"npm install dayjs\"]}", "call_id": "c"}});
        let result = serde_json::json!({"type": "response_item", "payload": {"type": "function_call_output", "call_id": "c", "output": "added 1 package"}});
        let user = serde_json::json!({"type": "response_item", "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "why npm?? we're a pnpm shop"}]}});
        let text = format!("{call}\n{result}\n{user}\n");
        let t = transcript(text.as_bytes(), false);
        assert_eq!(
            t.tool_runs().next().and_then(|r| r.command.as_deref()),
            Some("npm install dayjs")
        );
        assert!(matches!(worth(&t), Some(Worth::Correction(_))));
    }
}
