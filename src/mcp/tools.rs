//! The tools: each one's arguments (their JSON Schema is what `tools/list` publishes, derived
//! from the same types that parse the call, so the schema and the validation never disagree),
//! and the dispatch from a `tools/call` to its implementation in [`super::calls`].
//!
//! Arguments are validated strictly: an unknown field, a wrong type or a value out of range is
//! an `INVALID_ARGUMENT` error (JSON-RPC -32602) naming the field, and nothing runs.

use crate::error::{CmError, Result};
use rmcp::model::{JsonObject, Tool, ToolAnnotations};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::sync::Arc;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ContextArgs {
    /// The task, e.g. "fix the auth token refresh timeout".
    pub task: String,
    /// Rules (and, separately, pitfalls) to return at most (default 10).
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// History snippets to return at most (default 5; 0 for none).
    #[schemars(range(max = 50))]
    pub history: Option<u32>,
    /// Only history from the last N days.
    #[schemars(range(min = 1))]
    pub days: Option<u32>,
    /// The workspace the task is about (a directory inside the server's roots; default: the first root).
    pub workspace: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct FeedbackArgs {
    /// The rule's id (or an unambiguous prefix of it).
    pub bullet_id: String,
    /// The rule helped (give exactly one of helpful and harmful).
    pub helpful: Option<bool>,
    /// The rule misled or hurt.
    pub harmful: Option<bool>,
    /// Why (kept with the feedback event, secrets redacted).
    pub reason: Option<String>,
    /// The session where the rule helped or hurt (an id or a log path; recorded, not read).
    pub session: Option<String>,
    /// The workspace whose repository rules to look in (default: the first root).
    pub workspace: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum OutcomeStatus {
    Success,
    Failure,
    Mixed,
    Partial,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct OutcomeArgs {
    /// The session the outcome is for (an id or a log path; recorded, not read).
    #[serde(alias = "session")]
    pub session_id: String,
    /// How the session went (partial is another name for mixed).
    pub outcome: OutcomeStatus,
    /// The rule ids the session used.
    #[schemars(length(min = 1, max = 200))]
    pub rules_used: Vec<String>,
    /// What happened (becomes the feedback's reason).
    pub summary: Option<String>,
    /// Apply recorded outcomes to the rules' scores now (as `cm outcome-apply`); default false.
    pub apply: Option<bool>,
    /// The workspace whose repository rules to look in (default: the first root).
    pub workspace: Option<String>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Playbook,
    History,
    #[default]
    Both,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SearchArgs {
    /// What to look for (free text).
    pub query: String,
    /// Where to look: the playbook's rules, the session history, or both (default).
    pub scope: Option<Scope>,
    /// Results to return at most from each place (default 10).
    #[schemars(range(min = 1, max = 100))]
    pub limit: Option<u32>,
    /// Only history from the last N days.
    #[schemars(range(min = 1))]
    pub days: Option<u32>,
    /// Only this agent's sessions (claude, codex, gemini, aider, opencode, cline, cursor).
    pub agent: Option<String>,
    /// Only sessions of this workspace (a directory inside the server's roots).
    pub workspace: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReflectArgs {
    /// Reflect on this session log (a file inside the server's roots or data directory; it is indexed first). Give this or days.
    pub session: Option<String>,
    /// Reflect on indexed sessions that ended in the last N days (default 30).
    #[schemars(range(min = 1, max = 3650))]
    pub days: Option<u32>,
    /// Propose and validate but change nothing (default true); false stores diary entries, rules and feedback.
    pub dry_run: Option<bool>,
    /// Sessions to reflect on at most this call (default 20).
    #[schemars(range(min = 1, max = 200))]
    pub max_sessions: Option<u32>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GuardArgs {
    /// The shell command to check, as the agent would run it.
    pub command: String,
    /// The directory it would run in (its repository's guard policy applies; default: the first root).
    pub cwd: Option<String>,
}

/// One parsed, validated call.
#[derive(Debug)]
pub enum Call {
    Context(ContextArgs),
    Feedback(FeedbackArgs),
    Outcome(OutcomeArgs),
    Search(SearchArgs),
    Reflect(ReflectArgs),
    Guard(GuardArgs),
}

struct Spec {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    read_only: bool,
    schema: fn() -> JsonObject,
    parse: fn(serde_json::Value) -> Result<Call>,
}

const SPECS: &[Spec] = &[
    Spec {
        name: "cm_context",
        title: "Context for a task",
        description: "The rules, pitfalls and past sessions relevant to a task, ranked (what `cm context TASK --json` answers). Call it before non-trivial work.",
        read_only: false,
        schema: schema::<ContextArgs>,
        parse: |v| parse(v).map(Call::Context),
    },
    Spec {
        name: "cm_feedback",
        title: "Rule feedback",
        description: "Record that a rule helped or hurt (as `cm mark ID --helpful|--harmful`).",
        read_only: false,
        schema: schema::<FeedbackArgs>,
        parse: |v| parse(v).map(Call::Feedback),
    },
    Spec {
        name: "cm_outcome",
        title: "Session outcome",
        description: "Record how a session went and which rules it used (as `cm outcome`); with apply, turn recorded outcomes into feedback (as `cm outcome-apply`).",
        read_only: false,
        schema: schema::<OutcomeArgs>,
        parse: |v| parse(v).map(Call::Outcome),
    },
    Spec {
        name: "memory_search",
        title: "Search memory",
        description: "Search the playbook's rules (as `cm similar`) and/or the indexed session history (as `cm history search`).",
        read_only: true,
        schema: schema::<SearchArgs>,
        parse: |v| parse(v).map(Call::Search),
    },
    Spec {
        name: "memory_reflect",
        title: "Reflect on sessions",
        description: "Learn from finished sessions: diary entries, proposed rules, feedback (as `cm reflect --no-llm`). A dry run by default: set dryRun false to store what it finds.",
        read_only: false,
        schema: schema::<ReflectArgs>,
        parse: |v| parse(v).map(Call::Reflect),
    },
    Spec {
        name: "guard_check",
        title: "Check a command",
        description: "The guard's decision for a shell command, exactly as the pre-tool hook would make it (as `cm guard check`).",
        read_only: true,
        schema: schema::<GuardArgs>,
        parse: |v| parse(v).map(Call::Guard),
    },
];

/// Every tool, as `tools/list` publishes it (built once).
pub fn all() -> &'static [Tool] {
    static TOOLS: once_cell::sync::Lazy<Vec<Tool>> = once_cell::sync::Lazy::new(build);
    &TOOLS
}

fn build() -> Vec<Tool> {
    SPECS
        .iter()
        .map(|s| {
            let notes = ToolAnnotations::with_title(s.title)
                .read_only(s.read_only)
                .destructive(false)
                .open_world(false);
            Tool::new(s.name, s.description, Arc::new((s.schema)()))
                .with_title(s.title)
                .with_annotations(notes)
        })
        .collect()
}

/// Parse and validate a call of the tool `name`.
pub fn parse_call(name: &str, arguments: Option<JsonObject>) -> Result<Call> {
    let spec = SPECS.iter().find(|s| s.name == name).ok_or_else(|| {
        CmError::usage("UNKNOWN_TOOL", format!("no tool is called \"{name}\"")).hint(format!(
            "the tools are {}",
            SPECS.iter().map(|s| s.name).collect::<Vec<_>>().join(", ")
        ))
    })?;
    let args = serde_json::Value::Object(arguments.unwrap_or_default());
    (spec.parse)(args).map_err(|e| CmError {
        message: format!("{name}: {}", e.message),
        ..e
    })
}

fn parse<T: DeserializeOwned>(v: serde_json::Value) -> Result<T> {
    serde_json::from_value(v).map_err(|e| {
        CmError::usage("INVALID_ARGUMENT", format!("invalid arguments: {e}"))
            .hint("the tool's inputSchema in tools/list gives each argument's name and type")
    })
}

fn schema<T: JsonSchema>() -> JsonObject {
    let mut settings = schemars::generate::SchemaSettings::draft2020_12();
    settings.inline_subschemas = true;
    let mut root = serde_json::to_value(settings.into_generator().into_root_schema_for::<T>())
        .unwrap_or_default();
    portable(&mut root);
    let mut root = root.as_object().cloned().unwrap_or_default();
    root.remove("$schema");
    root.remove("title");
    root
}

/// An optional argument is one left out, not one given as null: `"type": ["integer", "null"]`
/// becomes `"type": "integer"` and `anyOf: [S, {"type": "null"}]` becomes `S`, the single-type
/// spelling every client's schema dialect reads.
fn portable(v: &mut serde_json::Value) {
    use serde_json::Value;
    let Value::Object(map) = v else { return };
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if kept.len() == 1 {
            map.insert("type".into(), kept[0].clone());
        }
    }
    if let Some(Value::Array(options)) = map.get_mut("enum") {
        options.retain(|o| !o.is_null());
    }
    if let Some(Value::Array(any)) = map.get("anyOf") {
        let kept: Vec<Value> = any
            .iter()
            .filter(|s| s.get("type").and_then(Value::as_str) != Some("null"))
            .cloned()
            .collect();
        if kept.len() == 1
            && let Value::Object(inner) = &kept[0]
        {
            let inner = inner.clone();
            map.remove("anyOf");
            for (k, val) in inner {
                map.entry(k).or_insert(val);
            }
        }
    }
    for (_, child) in map.iter_mut() {
        match child {
            Value::Object(_) => portable(child),
            Value::Array(items) => items.iter_mut().for_each(portable),
            _ => {}
        }
    }
}

/// A number argument outside its published range.
pub fn check_range(name: &str, value: Option<u32>, min: u32, max: u32) -> Result<()> {
    match value {
        Some(v) if v < min || v > max => Err(CmError::usage(
            "INVALID_ARGUMENT",
            format!("{name} {v} is outside {min}..={max}"),
        )),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: serde_json::Value) -> Option<JsonObject> {
        v.as_object().cloned()
    }

    #[test]
    fn every_tool_publishes_an_object_schema_naming_its_required_arguments() {
        let tools = all();
        assert_eq!(tools.len(), 6);
        let ctx = tools.iter().find(|t| t.name == "cm_context").unwrap();
        assert_eq!(ctx.input_schema["type"], "object");
        assert_eq!(ctx.input_schema["required"], json!(["task"]));
        assert!(ctx.input_schema["properties"]["workspace"].is_object());
        assert_eq!(ctx.input_schema["properties"]["limit"]["type"], "integer");
        let fb = tools.iter().find(|t| t.name == "cm_feedback").unwrap();
        assert!(fb.input_schema["properties"]["bulletId"].is_object());
        let search = tools.iter().find(|t| t.name == "memory_search").unwrap();
        let scope = &search.input_schema["properties"]["scope"];
        assert_eq!(
            scope["enum"],
            json!(["playbook", "history", "both"]),
            "{scope}"
        );
        let text = serde_json::to_string(&tools).unwrap();
        assert!(
            !text.contains("\"null\"") && !text.contains("$ref"),
            "{text}"
        );
    }

    #[test]
    fn wrong_types_unknown_fields_and_unknown_tools_are_refused() {
        let e = parse_call("cm_context", obj(json!({"task": 3}))).unwrap_err();
        assert_eq!(e.code, "INVALID_ARGUMENT");
        assert!(e.message.contains("cm_context"), "{}", e.message);
        let e = parse_call("cm_context", obj(json!({"task": "x", "bogus": 1}))).unwrap_err();
        assert!(e.message.contains("bogus"), "{}", e.message);
        let e =
            parse_call("memory_search", obj(json!({"query": "x", "scope": "all"}))).unwrap_err();
        assert_eq!(e.code, "INVALID_ARGUMENT");
        assert_eq!(parse_call("nope", None).unwrap_err().code, "UNKNOWN_TOOL");
        let ok = parse_call(
            "cm_outcome",
            obj(json!({"session": "s1", "outcome": "success", "rulesUsed": ["b-1"]})),
        );
        assert!(matches!(ok, Ok(Call::Outcome(_))));
    }
}
