//! The file forms `cm trauma import` reads, turned into one list of records, each with where it
//! was found (`path:line`) so a bad one can be named:
//!
//! - a plain list: one regex per line, `#` comments;
//! - JSON Lines of trauma records (what the traumas files hold);
//! - JSON: an array of records (or of pattern strings), or an object holding one under
//!   `traumas` or `patterns`;
//! - YAML, the shared-file form: a list of records (`- pattern: "DROP TABLE"` with
//!   `description:`, `severity:`, ...) or of pattern strings, or a mapping holding one under
//!   `traumas` or `patterns`.
//!
//! The format comes from the file name (`.yaml`, `.yml`, `.json`, `.jsonl`), else from the
//! content. A plain list never swallows structured text: a line that reads like YAML or JSON
//! (`- pattern: ...`, `{...}`) is an error naming its line, not a pattern.

use serde_json::Value;

/// One record to import: its location for messages, and the record (a JSON object with at
/// least `pattern`, or a bare pattern string).
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub at: String,
    pub value: Value,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Form {
    Plain,
    JsonLines,
    Json,
    Yaml,
}

fn form(name: &str, text: &str) -> Form {
    let lower = name.to_ascii_lowercase();
    if lower.ends_with(".yaml") || lower.ends_with(".yml") {
        return Form::Yaml;
    }
    if lower.ends_with(".jsonl") {
        return Form::JsonLines;
    }
    if lower.ends_with(".json") {
        return Form::Json;
    }
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap_or("");
    if first.starts_with('[')
        || (first.starts_with('{') && serde_json::from_str::<Value>(text).is_ok())
    {
        Form::Json
    } else if first.starts_with('{') {
        Form::JsonLines
    } else if looks_like_yaml(first) {
        Form::Yaml
    } else {
        Form::Plain
    }
}

/// `- pattern: x`, `pattern: x`, `traumas:`: a YAML key, not a regex.
fn looks_like_yaml(line: &str) -> bool {
    let body = line.strip_prefix("- ").unwrap_or(line).trim_start();
    let key: String = body
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect();
    [
        "pattern",
        "description",
        "message",
        "severity",
        "scope",
        "files",
        "traumas",
        "patterns",
    ]
    .contains(&key.as_str())
        && body[key.len()..].starts_with(':')
}

/// Every record of `text` (from the file `name`), or every problem with its location.
pub fn records(name: &str, text: &str) -> Result<Vec<Record>, Vec<String>> {
    match form(name, text) {
        Form::Plain => plain(name, text),
        Form::JsonLines => json_lines(name, text),
        Form::Json => {
            let v: Value = serde_json::from_str(text).map_err(|e| {
                vec![format!(
                    "{name}:{}: invalid JSON (column {}): {e}",
                    e.line(),
                    e.column()
                )]
            })?;
            list(name, v, &[])
        }
        Form::Yaml => {
            let v: Value = serde_norway::from_str(text).map_err(|e| {
                vec![match e.location() {
                    Some(l) => format!(
                        "{name}:{}: invalid YAML (column {}): {e}",
                        l.line(),
                        l.column()
                    ),
                    None => format!("{name}: invalid YAML: {e}"),
                }]
            })?;
            list(name, v, &item_lines(text))
        }
    }
}

/// One record per line that is neither blank nor a `#` comment, made by `parse`, or every
/// line's problem.
fn per_line(
    name: &str,
    text: &str,
    parse: impl Fn(&str) -> Result<Value, String>,
) -> Result<Vec<Record>, Vec<String>> {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        match parse(t) {
            Ok(value) => out.push(Record {
                at: format!("{name}:{}", i + 1),
                value,
            }),
            Err(e) => errors.push(format!("{name}:{}: {e}", i + 1)),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

fn plain(name: &str, text: &str) -> Result<Vec<Record>, Vec<String>> {
    per_line(name, text, |t| {
        if looks_like_yaml(t) || t.starts_with('{') {
            Err(format!(
                "{t:?} reads like a YAML or JSON record, not a pattern; name the file .yaml or .json"
            ))
        } else {
            Ok(Value::String(t.to_string()))
        }
    })
}

fn json_lines(name: &str, text: &str) -> Result<Vec<Record>, Vec<String>> {
    per_line(name, text, |t| {
        serde_json::from_str::<Value>(t).map_err(|e| e.to_string())
    })
}

/// The records of a parsed document: a list, or a mapping holding one under `traumas` or
/// `patterns`. `lines` are the source lines of the list's items, when known (YAML).
fn list(name: &str, v: Value, lines: &[usize]) -> Result<Vec<Record>, Vec<String>> {
    let items = match v {
        Value::Array(a) => a,
        Value::Object(mut m) => match m.remove("traumas").or_else(|| m.remove("patterns")) {
            Some(Value::Array(a)) => a,
            _ => {
                return Err(vec![format!(
                    "{name}: expected a list of traumas, or a mapping with a \"traumas\" list"
                )]);
            }
        },
        Value::Null => Vec::new(),
        _ => return Err(vec![format!("{name}: expected a list of traumas")]),
    };
    Ok(items
        .into_iter()
        .enumerate()
        .map(|(i, value)| Record {
            at: match lines.get(i) {
                Some(l) => format!("{name}:{l}"),
                None => format!("{name}: item {}", i + 1),
            },
            value,
        })
        .collect())
}

/// Line numbers (1-based) of the items of a YAML document's list: the `- ` lines at the
/// shallowest indentation any `- ` line has.
fn item_lines(text: &str) -> Vec<usize> {
    let dash = |l: &str| {
        let indent = l.len() - l.trim_start().len();
        let t = l.trim_start();
        (t == "-" || t.starts_with("- ")).then_some(indent)
    };
    let Some(min) = text.lines().filter_map(dash).min() else {
        return Vec::new();
    };
    text.lines()
        .enumerate()
        .filter(|(_, l)| dash(l) == Some(min))
        .map(|(i, _)| i + 1)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shared_yaml_list_form_gives_records_with_their_lines() {
        let yaml = "# team traumas\n- pattern: \"DROP TABLE\"\n  description: Database table deletion\n  severity: critical\n- pattern: 'rm -rf /srv'\n";
        let r = records("shared-traumas.yaml", yaml).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].at, "shared-traumas.yaml:2");
        assert_eq!(r[0].value["pattern"], "DROP TABLE");
        assert_eq!(r[0].value["description"], "Database table deletion");
        assert_eq!(r[1].at, "shared-traumas.yaml:5");
        // Sniffed without the extension too, and under a `traumas:` key.
        let nested = "traumas:\n  - pattern: x\n  - y\n";
        let r = records("shared.txt", nested).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].value, Value::String("y".into()));
        assert_eq!(r[1].at, "shared.txt:3");
    }

    #[test]
    fn json_arrays_objects_and_lines() {
        let r = records("t.json", r#"[{"pattern": "a", "description": "d"}, "b"]"#).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].at, "t.json: item 2");
        let r = records("t", "{\"traumas\": [{\"pattern\": \"a\"}]}").unwrap();
        assert_eq!(r[0].value["pattern"], "a");
        let r = records("t", "{\"pattern\": \"a\"}\n{\"pattern\": \"b\"}\n").unwrap();
        assert_eq!(r[1].at, "t:2");
    }

    #[test]
    fn structured_lines_are_never_imported_as_patterns() {
        let e = records("list.txt", "rm -rf /data\n- pattern: \"DROP TABLE\"\n").unwrap_err();
        assert!(e[0].starts_with("list.txt:2:"), "{e:?}");
        let e = records("bad.yaml", "- pattern: [unclosed\n").unwrap_err();
        assert!(e[0].starts_with("bad.yaml:"), "{e:?}");
        let plain = records("list.txt", "git push --force\n# c\n\nDROP TABLE\n").unwrap();
        assert_eq!(plain.len(), 2);
        assert_eq!(plain[1].at, "list.txt:4");
    }
}
