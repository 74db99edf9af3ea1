//! Starter playbooks: the ones shipped in the binary and the user's own, from the data
//! directory's `starters/` (`NAME.yaml`, `NAME.yml` or `NAME.json`). A user starter with a
//! built-in's name replaces it, so a team can ship its own `rust` starter. A user file that
//! cannot be read or parsed is listed with its error and never used.

use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::formats::{self, Format};
use std::path::PathBuf;

/// Starter playbooks shipped in the binary: (name, YAML).
pub const BUILTIN: &[(&str, &str)] = &[
    ("general", include_str!("../../starters/general.yaml")),
    ("go", include_str!("../../starters/go.yaml")),
    ("python", include_str!("../../starters/python.yaml")),
    ("react", include_str!("../../starters/react.yaml")),
    ("rust", include_str!("../../starters/rust.yaml")),
    ("typescript", include_str!("../../starters/typescript.yaml")),
];

/// The largest user starter read.
const CAP: u64 = 4 << 20;

pub struct Starter {
    pub name: String,
    /// None for a built-in.
    pub path: Option<PathBuf>,
    pub description: String,
    /// The rules, or why the file cannot be used.
    pub rules: std::result::Result<Vec<Bullet>, String>,
}

pub fn dir() -> PathBuf {
    crate::paths::data_dir().join("starters")
}

fn parse(text: &str, format: Format) -> (String, std::result::Result<Vec<Bullet>, String>) {
    let description = match format {
        Format::Json => serde_json::from_str::<serde_json::Value>(text).ok(),
        _ => serde_norway::from_str::<serde_json::Value>(text).ok(),
    }
    .and_then(|v| v["description"].as_str().map(str::to_string))
    .unwrap_or_default();
    (description, formats::parse(text, format))
}

/// Every starter: the built-ins (less those a user starter replaces), then the user's, by name.
pub fn all() -> Vec<Starter> {
    let user = user();
    let mut out: Vec<Starter> = BUILTIN
        .iter()
        .filter(|(n, _)| !user.iter().any(|u| u.name.eq_ignore_ascii_case(n)))
        .map(|(name, yaml)| {
            let (description, rules) = parse(yaml, Format::Yaml);
            Starter {
                name: name.to_string(),
                path: None,
                description,
                rules,
            }
        })
        .collect();
    out.extend(user);
    out
}

fn user() -> Vec<Starter> {
    let Ok(entries) = std::fs::read_dir(dir()) else {
        return Vec::new();
    };
    let mut out: Vec<Starter> = entries
        .flatten()
        .filter_map(|e| {
            let path = e.path();
            let format = match path.extension()?.to_str()? {
                "yaml" | "yml" => Format::Yaml,
                "json" => Format::Json,
                _ => return None,
            };
            let name = path.file_stem()?.to_str()?.to_string();
            let (description, rules) = match crate::untrusted::read_text(&path, CAP) {
                Ok(Some(text)) => parse(&text, format),
                Ok(None) => (String::new(), Err("not a regular file".to_string())),
                Err(e) => (String::new(), Err(e.to_string())),
            };
            Some(Starter {
                name,
                path: Some(path),
                description,
                rules,
            })
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

/// The starter `cm init --starter NAME` asks for, with its rules.
pub fn find(name: &str) -> Result<(String, Vec<Bullet>)> {
    let all = all();
    let Some(s) = all
        .iter()
        .find(|s| s.name.eq_ignore_ascii_case(name.trim()))
    else {
        return Err(CmError::usage(
            "STARTER_NOT_FOUND",
            format!("no starter playbook named \"{name}\""),
        )
        .hint(format!(
            "available: {} (add your own as {}/NAME.yaml)",
            all.iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>()
                .join(", "),
            dir().display()
        )));
    };
    match &s.rules {
        Ok(rules) => Ok((s.name.clone(), rules.clone())),
        Err(why) => Err(CmError::config(
            "STARTER_INVALID",
            format!(
                "the starter {} cannot be used: {why}",
                s.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default()
            ),
        )
        .hint("fix the file (a playbook in YAML or JSON, like `cm playbook export` writes); nothing was changed")),
    }
}

/// Whether the starter `name`'s rule `b` may be added: a user starter is a file anyone could
/// have handed over, so its rules pass the playbook's safety check like every other way in (a
/// refused one is named on stderr).
pub fn admissible(name: &str, b: &Bullet) -> bool {
    let Some(why) = crate::memory::safety::refusal(&b.content) else {
        return true;
    };
    eprintln!(
        "cm: warning: starter {name}: rule \"{}\" skipped: {why}",
        crate::context::sanitize::clip(&crate::context::sanitize::clean(&b.content), 80)
    );
    false
}

/// Make the starter `name`'s rule `b` a new rule of this playbook, added at `now`.
pub fn adopt(b: &mut Bullet, name: &str, now: &str) {
    b.id = crate::memory::bullet::new_bullet_id();
    b.created_at = now.to_string();
    b.updated_at = now.to_string();
    b.source_agents = vec![format!("starter:{name}")];
    b.reasoning = Some(format!("From the {name} starter playbook"));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a senior engineer would sign: every shipped rule parses, names something specific,
    /// and carries a category and tags.
    #[test]
    fn every_builtin_starter_is_specific_and_complete() {
        for (name, yaml) in BUILTIN {
            let rules =
                formats::parse(yaml, Format::Yaml).unwrap_or_else(|e| panic!("{name}: {e}"));
            assert!(rules.len() >= 12, "{name}: {} rules", rules.len());
            for r in &rules {
                assert!(
                    crate::memory::bullet::CATEGORIES.contains(&r.category.as_str()),
                    "{name}: {:?} has category {:?}",
                    r.content,
                    r.category
                );
                assert!(!r.tags.is_empty(), "{name}: {:?} has no tags", r.content);
                assert_eq!(
                    crate::memory::safety::refusal(&r.content),
                    None,
                    "{name}: {:?} fails the safety check",
                    r.content
                );
                assert!(
                    crate::reflect::phrasing::specific(&r.content),
                    "{name}: {:?} is not specific",
                    r.content
                );
            }
            let mut seen = std::collections::HashSet::new();
            assert!(
                rules.iter().all(|r| seen.insert(r.content.to_lowercase())),
                "{name}: duplicate rule"
            );
        }
    }
}
