//! A playbook document as the original tool wrote it, made into our bullets without losing
//! anything quietly.
//!
//! The original's files differ from ours in three ways this module absorbs: its feedback events
//! carry no `id` (each gets one made from the rule's id, the event's place, time and type, so a
//! second import of the same file makes the same ids and adds nothing); its `deprecatedPatterns`
//! list texts the user retired (each becomes a deprecated rule tagged `deprecated-pattern`, so
//! the text, date and reason are kept and the same text is never added again as new); and it
//! carries fields cm has no place for. Those are reported by name with how many rules had them,
//! never dropped without a word. Pure: values in, bullets and a report out.

use super::bullet::Bullet;
use serde::Serialize;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;

/// The tag on a rule that came from the original's `deprecatedPatterns`.
pub const DEPRECATED_PATTERN_TAG: &str = "deprecated-pattern";

/// A field of the file cm did not keep: where (`bullets[].embedding`), in how many entries, the
/// first entry's id, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unmapped {
    pub field: String,
    pub count: usize,
    pub first: String,
    pub why: &'static str,
}

/// What a document held: its bullets (deprecated patterns among them) and what was left out.
#[derive(Debug, Default)]
pub struct Document {
    pub bullets: Vec<Bullet>,
    pub deprecated_patterns: usize,
    pub unmapped: Vec<Unmapped>,
}

const BULLET_FIELDS: &[&str] = &[
    "id",
    "content",
    "category",
    "scope",
    "scopeKey",
    "type",
    "kind",
    "isNegative",
    "state",
    "maturity",
    "helpfulCount",
    "harmfulCount",
    "feedbackEvents",
    "sourceSessions",
    "sourceAgents",
    "reasoning",
    "tags",
    "contradicts",
    "pinned",
    "deprecated",
    "deprecationReason",
    "createdAt",
    "updatedAt",
];
const EVENT_FIELDS: &[&str] = &[
    "id",
    "type",
    "timestamp",
    "source",
    "sessionPath",
    "session",
    "reason",
    "weight",
];
const DOC_FIELDS: &[&str] = &[
    "schema_version",
    "schemaVersion",
    "name",
    "description",
    "bullets",
    "deprecatedPatterns",
];
const PATTERN_FIELDS: &[&str] = &["pattern", "deprecatedAt", "reason", "replacement"];
/// Fields the original stores that cm derives again from what it keeps.
const RECOMPUTED: &[&str] = &["effectiveScore", "embedding", "decayedValue"];

/// Snake-case names of an older command reference, read as ours.
const ALIASES: &[(&str, &str)] = &[
    ("created_at", "createdAt"),
    ("updated_at", "updatedAt"),
    ("helpful_count", "helpfulCount"),
    ("harmful_count", "harmfulCount"),
    ("source_sessions", "sourceSessions"),
    ("source_agents", "sourceAgents"),
    ("is_negative", "isNegative"),
    ("feedback_events", "feedbackEvents"),
    ("session_path", "sessionPath"),
];

#[derive(Default)]
struct Report(BTreeMap<String, (usize, String, &'static str)>);

impl Report {
    fn note(&mut self, field: String, owner: &str, why: &'static str) {
        let e = self.0.entry(field).or_insert((0, owner.to_string(), why));
        e.0 += 1;
    }
    fn into_list(self) -> Vec<Unmapped> {
        self.0
            .into_iter()
            .map(|(field, (count, first, why))| Unmapped {
                field,
                count,
                first,
                why,
            })
            .collect()
    }
}

/// Read `list` (the bullets) and, when the document was a mapping, `doc` (its other keys).
pub fn read(list: Value, doc: Option<&Map<String, Value>>) -> Result<Document, String> {
    let mut report = Report::default();
    let Value::Array(items) = list else {
        return Err("\"bullets\" is not a list".into());
    };
    let mut out = Document::default();
    for (i, item) in items.into_iter().enumerate() {
        let Value::Object(mut m) = item else {
            return Err(format!("bullet {} is not a mapping", i + 1));
        };
        normalise_bullet(&mut m, &mut report);
        let b: Bullet = serde_json::from_value(Value::Object(m))
            .map_err(|e| format!("invalid bullet {}: {e}", i + 1))?;
        out.bullets.push(b);
    }
    if let Some(doc) = doc {
        for (key, v) in doc {
            if key == "metadata"
                && let Value::Object(meta) = v
            {
                for k in meta.keys() {
                    report.note(format!("metadata.{k}"), "playbook", "no place in cm");
                }
            } else if !DOC_FIELDS.contains(&key.as_str()) {
                report.note(key.clone(), "playbook", "no place in cm");
            }
        }
        if let Some(patterns) = doc.get("deprecatedPatterns") {
            let made = deprecated_patterns(patterns, &mut report)?;
            out.deprecated_patterns = made.len();
            out.bullets.extend(made);
        }
    }
    out.unmapped = report.into_list();
    Ok(out)
}

fn normalise_bullet(m: &mut Map<String, Value>, report: &mut Report) {
    for (from, to) in ALIASES {
        if let Some(v) = m.remove(*from) {
            m.entry(to.to_string()).or_insert(v);
        }
    }
    let owner = m
        .get("id")
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
        .map(str::to_string);
    // Events are named after the rule's id, or its text when it has none.
    let seed = owner.clone().unwrap_or_else(|| {
        m.get("content")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    });
    let who = owner.as_deref().unwrap_or("(no id)");
    // A single `sourceSession` joins the list rather than vanishing.
    if let Some(Value::String(s)) = m.remove("sourceSession") {
        let list = m
            .entry("sourceSessions")
            .or_insert_with(|| Value::Array(vec![]));
        if let Value::Array(a) = list
            && !s.trim().is_empty()
            && !a.iter().any(|x| x.as_str() == Some(s.as_str()))
        {
            a.push(Value::String(s));
        }
    }
    if m.get("is_anti_pattern").and_then(Value::as_bool) == Some(true) {
        m.entry("type")
            .or_insert_with(|| Value::String("anti-pattern".into()));
    }
    m.remove("is_anti_pattern");
    if let Some(Value::Array(events)) = m.get_mut("feedbackEvents") {
        for (i, e) in events.iter_mut().enumerate() {
            if let Value::Object(e) = e {
                normalise_event(e, &seed, i, who, report);
            }
        }
    }
    drop_unknown(m, BULLET_FIELDS, "bullets[]", who, report);
}

/// Remove the keys of `m` cm has no field for, noting each under `prefix`.
fn drop_unknown(
    m: &mut Map<String, Value>,
    known: &[&str],
    prefix: &str,
    who: &str,
    report: &mut Report,
) {
    let unknown: Vec<String> = m
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .cloned()
        .collect();
    for k in unknown {
        m.remove(&k);
        let why = why(&k);
        report.note(format!("{prefix}.{k}"), who, why);
    }
}

fn normalise_event(
    e: &mut Map<String, Value>,
    seed: &str,
    index: usize,
    who: &str,
    report: &mut Report,
) {
    if let Some(v) = e.remove("session_path") {
        e.entry("sessionPath").or_insert(v);
    }
    let has_id = e
        .get("id")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.trim().is_empty());
    if !has_id {
        let text = |k: &str| e.get(k).and_then(Value::as_str).unwrap_or_default();
        let id = event_id(seed, index, text("timestamp"), text("type"));
        e.insert("id".into(), Value::String(id));
    }
    // A weight is cm's own (an outcome's implicit signals); a file cannot make one event count
    // for more than the signals ever give it.
    if let Some(w) = e.get("weight").and_then(Value::as_f64) {
        let w = w.clamp(super::implicit::MIN_WEIGHT, super::implicit::MAX_WEIGHT);
        e.insert("weight".into(), Value::from(w));
    } else if e.remove("weight").is_some() {
        report.note(
            "bullets[].feedbackEvents[].weight".into(),
            who,
            "not a number",
        );
    }
    drop_unknown(e, EVENT_FIELDS, "bullets[].feedbackEvents[]", who, report);
}

fn why(field: &str) -> &'static str {
    if RECOMPUTED.contains(&field) {
        "recomputed by cm"
    } else {
        "no place in cm"
    }
}

/// The id of an event that came without one: the same rule, place, time and type always give
/// the same id.
pub fn event_id(rule: &str, index: usize, timestamp: &str, kind: &str) -> String {
    format!(
        "fb-{}",
        digest(&[rule, &index.to_string(), timestamp, kind])
    )
}

fn digest(parts: &[&str]) -> String {
    let mut h = Sha256::new();
    for p in parts {
        h.update(p.as_bytes());
        h.update([0u8]);
    }
    h.finalize()
        .iter()
        .take(8)
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Each deprecated pattern as a deprecated rule: its text, date, reason and replacement kept.
fn deprecated_patterns(v: &Value, report: &mut Report) -> Result<Vec<Bullet>, String> {
    let Value::Array(items) = v else {
        return Err("\"deprecatedPatterns\" is not a list".into());
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let (pattern, m) = match item {
            Value::String(s) => (s.clone(), None),
            Value::Object(m) => match m.get("pattern").and_then(Value::as_str) {
                Some(p) => (p.to_string(), Some(m)),
                None => return Err(format!("deprecated pattern {} has no \"pattern\"", i + 1)),
            },
            _ => return Err(format!("deprecated pattern {} is not a mapping", i + 1)),
        };
        if pattern.trim().is_empty() {
            continue;
        }
        let id = format!("b-dp-{}", &digest(&[&pattern])[..12]);
        let text = |k: &str| {
            m.and_then(|m| m.get(k))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        let mut reason = text("reason").unwrap_or_else(|| "deprecated pattern".into());
        if let Some(r) = text("replacement") {
            reason.push_str(&format!(" (use instead: {r})"));
        }
        let at = text("deprecatedAt").unwrap_or_default();
        if let Some(m) = m {
            for k in m.keys().filter(|k| !PATTERN_FIELDS.contains(&k.as_str())) {
                report.note(format!("deprecatedPatterns[].{k}"), &id, "no place in cm");
            }
        }
        out.push(Bullet {
            id,
            content: pattern,
            deprecated: true,
            maturity: super::bullet::Maturity::Deprecated,
            deprecation_reason: Some(reason),
            tags: vec![DEPRECATED_PATTERN_TAG.to_string()],
            created_at: at.clone(),
            updated_at: at,
            ..Bullet::default()
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn an_event_weight_is_kept_within_what_signals_can_give() {
        let list = json!([{"id": "b-1", "content": "x", "feedbackEvents": [
            {"id": "fb-1", "type": "helpful", "timestamp": "t", "weight": 1.5},
            {"id": "fb-2", "type": "helpful", "timestamp": "t", "weight": 1000},
            {"id": "fb-3", "type": "harmful", "timestamp": "t", "weight": 0},
            {"id": "fb-4", "type": "harmful", "timestamp": "t", "weight": "heavy"},
        ]}]);
        let d = read(list, None).unwrap();
        let w: Vec<Option<f64>> = d.bullets[0]
            .feedback_events
            .iter()
            .map(|e| e.weight)
            .collect();
        assert_eq!(w, vec![Some(1.5), Some(2.0), Some(0.1), None]);
        assert_eq!(d.unmapped.len(), 1);
        assert_eq!(d.unmapped[0].field, "bullets[].feedbackEvents[].weight");
    }

    #[test]
    fn events_without_ids_get_the_same_ids_every_time() {
        let list = json!([{"id": "b-1", "content": "x", "feedbackEvents": [
            {"type": "helpful", "timestamp": "2025-01-01T00:00:00Z"},
            {"type": "helpful", "timestamp": "2025-01-01T00:00:00Z"},
        ]}]);
        let a = read(list.clone(), None).unwrap().bullets;
        let b = read(list, None).unwrap().bullets;
        let ids: Vec<&str> = a[0].feedback_events.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids.len(), 2);
        assert_ne!(ids[0], ids[1], "two events at the same time stay two");
        assert_eq!(b[0].feedback_events[0].id, ids[0]);
        assert!(ids[0].starts_with("fb-"));
    }

    #[test]
    fn unknown_fields_are_reported_once_per_field_with_a_count() {
        let list = json!([
            {"id": "b-1", "content": "x", "embedding": [0.1], "pinnedReason": "why"},
            {"id": "b-2", "content": "y", "pinnedReason": "because",
             "feedbackEvents": [{"type": "harmful", "timestamp": "t", "context": "c"}]},
        ]);
        let doc = json!({"metadata": {"totalReflections": 3}, "extra": 1});
        let d = read(list, doc.as_object()).unwrap();
        let got: Vec<(String, usize, &str)> = d
            .unmapped
            .iter()
            .map(|u| (u.field.clone(), u.count, u.why))
            .collect();
        assert_eq!(
            got,
            vec![
                ("bullets[].embedding".into(), 1, "recomputed by cm"),
                (
                    "bullets[].feedbackEvents[].context".into(),
                    1,
                    "no place in cm"
                ),
                ("bullets[].pinnedReason".into(), 2, "no place in cm"),
                ("extra".into(), 1, "no place in cm"),
                ("metadata.totalReflections".into(), 1, "no place in cm"),
            ]
        );
        assert_eq!(d.unmapped[2].first, "b-1");
    }

    #[test]
    fn deprecated_patterns_become_deprecated_rules() {
        let doc = json!({"deprecatedPatterns": [
            {"pattern": "Use var for declarations", "deprecatedAt": "2025-02-01T00:00:00Z",
             "reason": "ES6", "replacement": "Use const"},
            "Commit straight to main",
        ]});
        let d = read(json!([]), doc.as_object()).unwrap();
        assert_eq!(d.deprecated_patterns, 2);
        let b = &d.bullets[0];
        assert!(b.deprecated && b.id.starts_with("b-dp-"));
        assert_eq!(b.created_at, "2025-02-01T00:00:00Z");
        assert_eq!(
            b.deprecation_reason.as_deref(),
            Some("ES6 (use instead: Use const)")
        );
        assert_eq!(b.tags, [DEPRECATED_PATTERN_TAG]);
        assert_eq!(d.bullets[1].content, "Commit straight to main");
    }
}
