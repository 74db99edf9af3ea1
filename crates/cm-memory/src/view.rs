//! A rule as JSON in answers: its stored fields plus `effectiveScore` and `location` (and
//! `locationPath` for repository rules). The command line, the MCP server and the services all
//! answer with this one shape, so it lives beside the rule itself.

use crate::bullet::Bullet;
use crate::playbook::{Entry, Location};
use crate::scoring::{effective_score, round3};
use chrono::{DateTime, Utc};
use cm_base::config::Scoring;
use serde::Serialize;
use serde_json::{Value, json};

/// The bullet as it appears in list output: its stored fields plus `effectiveScore` and
/// `location` (and `locationPath` for repository rules). Serializes without building a
/// `serde_json::Value`, which matters for lists of thousands of rules.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BulletView<'a> {
    #[serde(flatten)]
    pub bullet: &'a Bullet,
    pub effective_score: f64,
    pub location: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub location_path: Option<String>,
}

impl<'a> BulletView<'a> {
    pub fn new(e: &'a Entry, cfg: &Scoring, now: DateTime<Utc>) -> Self {
        BulletView {
            bullet: &e.bullet,
            effective_score: round3(effective_score(&e.bullet, cfg, now)),
            location: e.location.name(),
            location_path: match &e.location {
                Location::Repo(p) => Some(p.display().to_string()),
                Location::Personal => None,
            },
        }
    }
}

/// The bullet as JSON with its score and where it lives.
pub fn bullet_json(b: &Bullet, location: &Location, cfg: &Scoring, now: DateTime<Utc>) -> Value {
    let mut v = serde_json::to_value(b).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut v {
        map.insert(
            "effectiveScore".into(),
            json!(round3(effective_score(b, cfg, now))),
        );
        map.insert("location".into(), json!(location.name()));
        if let Location::Repo(path) = location {
            map.insert("locationPath".into(), json!(path.display().to_string()));
        }
    }
    v
}

/// [`bullet_json`] of a playbook entry.
pub fn entry_json(e: &Entry, cfg: &Scoring, now: DateTime<Utc>) -> Value {
    bullet_json(&e.bullet, &e.location, cfg, now)
}
