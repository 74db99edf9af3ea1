//! Playbook documents in and out: YAML (the original cass-memory `playbook.yaml` layout), our
//! JSON export, and Markdown bullet lists. Pure text <-> bullets; no I/O.

use super::bullet::{Bullet, BulletType, CATEGORIES, maturity_name, type_name};
use super::original_doc::{self, Document};
use serde::{Deserialize, Serialize};

/// The document layout of `playbook.yaml` and of our JSON export.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlaybookDoc {
    #[serde(
        default = "schema_version",
        rename = "schema_version",
        alias = "schemaVersion"
    )]
    pub schema_version: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default)]
    pub bullets: Vec<Bullet>,
}

fn schema_version() -> u32 {
    2
}

impl PlaybookDoc {
    pub fn new(name: &str, bullets: Vec<Bullet>) -> Self {
        PlaybookDoc {
            schema_version: 2,
            name: Some(name.to_string()),
            description: None,
            bullets,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Yaml,
    Json,
    Markdown,
}

impl Format {
    pub fn parse(s: &str) -> Option<Format> {
        match s.to_ascii_lowercase().as_str() {
            "yaml" | "yml" => Some(Format::Yaml),
            "json" => Some(Format::Json),
            "md" | "markdown" => Some(Format::Markdown),
            _ => None,
        }
    }

    /// Guess from a file name, then from the content.
    pub fn detect(name: &str, text: &str) -> Format {
        let lower = name.to_ascii_lowercase();
        if lower.ends_with(".json") || lower.ends_with(".jsonl") {
            return Format::Json;
        }
        if lower.ends_with(".md") || lower.ends_with(".markdown") {
            return Format::Markdown;
        }
        if lower.ends_with(".yaml") || lower.ends_with(".yml") {
            return Format::Yaml;
        }
        let t = text.trim_start();
        if t.starts_with('{') || t.starts_with('[') {
            Format::Json
        } else if t.starts_with('#') || t.starts_with("- ") && !t.contains(": ") {
            Format::Markdown
        } else {
            Format::Yaml
        }
    }
}

/// Parse a document into bullets. Errors carry the position when the parser gives one.
pub fn parse(text: &str, format: Format) -> Result<Vec<Bullet>, String> {
    parse_document(text, format).map(|d| d.bullets)
}

/// Parse a document into bullets, with what it held that cm does not keep (the original's
/// feedback events without ids get stable ones; see [`original_doc`]).
pub fn parse_document(text: &str, format: Format) -> Result<Document, String> {
    match format {
        Format::Json => parse_json(text),
        Format::Yaml => parse_yaml(text),
        Format::Markdown => Ok(Document {
            bullets: parse_markdown(text),
            ..Document::default()
        }),
    }
}

fn parse_json(text: &str) -> Result<Document, String> {
    let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
        format!(
            "invalid JSON at line {}, column {}: {e}",
            e.line(),
            e.column()
        )
    })?;
    // Accept a bare array, a document, or a `cm ... --json` envelope holding one.
    if v.is_array() {
        original_doc::read(v, None)
    } else if let Some(b) = v.get("bullets") {
        original_doc::read(b.clone(), v.as_object())
    } else if let Some(b) = v.get("data").and_then(|d| d.get("bullets")) {
        original_doc::read(b.clone(), None)
    } else {
        Err("expected a JSON array of bullets or an object with \"bullets\"".into())
    }
}

fn parse_yaml(text: &str) -> Result<Document, String> {
    let v: serde_json::Value = serde_norway::from_str(text).map_err(|e| match e.location() {
        Some(l) => format!(
            "invalid YAML at line {}, column {}: {e}",
            l.line(),
            l.column()
        ),
        None => format!("invalid YAML: {e}"),
    })?;
    match &v {
        serde_json::Value::Array(_) => original_doc::read(v, None),
        serde_json::Value::Object(m) => original_doc::read(
            m.get("bullets")
                .cloned()
                .unwrap_or(serde_json::Value::Array(vec![])),
            Some(m),
        ),
        serde_json::Value::Null => Ok(Document::default()),
        _ => Err("expected a YAML mapping with \"bullets\" or a list of bullets".into()),
    }
}

/// Markdown: `- rule` / `* rule` / `1. rule` lines; a `## heading` naming a known category sets
/// the category of the bullets under it; `- [testing] rule` sets it for one bullet.
fn parse_markdown(text: &str) -> Vec<Bullet> {
    let mut category = "general".to_string();
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim();
        if let Some(h) = t.strip_prefix('#') {
            let h = h.trim_start_matches('#').trim().to_ascii_lowercase();
            if CATEGORIES.contains(&h.as_str()) {
                category = h;
            }
            continue;
        }
        let item = t
            .strip_prefix("- ")
            .or_else(|| t.strip_prefix("* "))
            .or_else(|| {
                t.split_once(". ")
                    .filter(|(n, _)| n.chars().all(|c| c.is_ascii_digit()) && !n.is_empty())
                    .map(|(_, r)| r)
            });
        let Some(mut item) = item.map(str::trim) else {
            continue;
        };
        // Drop task-list boxes and our own export's trailing metadata.
        for prefix in ["[ ] ", "[x] ", "[X] "] {
            if let Some(r) = item.strip_prefix(prefix) {
                item = r.trim();
            }
        }
        let mut cat = category.clone();
        if let Some(rest) = item.strip_prefix('[')
            && let Some((c, r)) = rest.split_once(']')
            && CATEGORIES.contains(&c.trim().to_ascii_lowercase().as_str())
        {
            cat = c.trim().to_ascii_lowercase();
            item = r.trim();
        }
        let item = item.split(" <!-- ").next().unwrap_or(item).trim();
        if item.is_empty() {
            continue;
        }
        let is_anti = item.starts_with("PITFALL:") || item.starts_with("AVOID:");
        out.push(Bullet {
            content: item.to_string(),
            category: cat,
            bullet_type: if is_anti {
                BulletType::AntiPattern
            } else {
                BulletType::Rule
            },
            is_negative: is_anti,
            ..Bullet::default()
        });
    }
    out
}

pub fn render(bullets: &[Bullet], format: Format) -> String {
    match format {
        Format::Json => {
            let doc = PlaybookDoc::new("cm export", bullets.to_vec());
            let mut s = serde_json::to_string_pretty(&doc).unwrap_or_default();
            s.push('\n');
            s
        }
        Format::Yaml => {
            let doc = PlaybookDoc::new("cm export", bullets.to_vec());
            serde_norway::to_string(&doc).unwrap_or_default()
        }
        Format::Markdown => render_markdown(bullets),
    }
}

fn render_markdown(bullets: &[Bullet]) -> String {
    let mut cats: Vec<&str> = bullets.iter().map(|b| b.category.as_str()).collect();
    cats.sort();
    cats.dedup();
    let mut s = String::from("# Playbook\n");
    for cat in cats {
        s.push_str(&format!("\n## {cat}\n\n"));
        for b in bullets.iter().filter(|b| b.category == cat) {
            s.push_str(&format!(
                "- {} <!-- {} {} {} -->\n",
                b.content.replace('\n', " "),
                b.id,
                type_name(b.bullet_type),
                maturity_name(b.maturity)
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn original_yaml_layout_imports() {
        let yaml = r#"
schema_version: 2
name: default
description: Auto-generated
metadata:
  createdAt: "2025-01-01T00:00:00.000Z"
deprecatedPatterns: []
bullets:
  - id: b-abc
    content: Always check token expiry
    category: debugging
    scope: global
    type: rule
    kind: workflow_rule
    state: active
    maturity: established
    helpfulCount: 4
    harmfulCount: 0
    feedbackEvents:
      - id: fb-1
        type: helpful
        timestamp: "2025-01-02T00:00:00.000Z"
        source: manual
    sourceSessions: []
    sourceAgents: [claude]
    tags: [auth]
    pinned: false
    deprecated: false
    createdAt: "2025-01-01T00:00:00.000Z"
    updatedAt: "2025-01-02T00:00:00.000Z"
"#;
        let bullets = parse(yaml, Format::Yaml).unwrap();
        assert_eq!(bullets.len(), 1);
        assert_eq!(bullets[0].helpful_count, 4);
        assert_eq!(bullets[0].feedback_events.len(), 1);
        assert_eq!(bullets[0].tags, vec!["auth"]);
    }

    #[test]
    fn json_round_trip() {
        let b = Bullet {
            id: "b-1".into(),
            content: "Use x".into(),
            ..Bullet::default()
        };
        let text = render(std::slice::from_ref(&b), Format::Json);
        assert_eq!(parse(&text, Format::Json).unwrap(), vec![b]);
    }

    #[test]
    fn markdown_lists_with_categories() {
        let md = "# Rules\n\n## testing\n- Run tests first\n* [git] Never force push\n1. Numbered rule\n\nprose line\n";
        let b = parse(md, Format::Markdown).unwrap();
        assert_eq!(b.len(), 3);
        assert_eq!(b[0].category, "testing");
        assert_eq!(b[1].category, "git");
        assert_eq!(b[1].content, "Never force push");
    }

    #[test]
    fn markdown_export_reimports() {
        let b = Bullet {
            id: "b-1".into(),
            content: "Use x".into(),
            category: "testing".into(),
            ..Bullet::default()
        };
        let back = parse(&render(&[b], Format::Markdown), Format::Markdown).unwrap();
        assert_eq!(back[0].content, "Use x");
        assert_eq!(back[0].category, "testing");
    }

    #[test]
    fn malformed_json_names_the_position() {
        let err = parse("[{\"content\": }]", Format::Json).unwrap_err();
        assert!(err.contains("line 1"), "{err}");
    }
}
