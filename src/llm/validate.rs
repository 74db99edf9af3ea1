//! A JSON Schema validator for the subset cm's own schemas use: `type` (a name or a list),
//! `properties`, `required`, `additionalProperties: false`, `items`, `enum`, `maxLength`,
//! `minItems`, `maxItems`, `minimum`, `maximum`, with `description` and `title` as annotations.
//!
//! Providers' structured-output modes constrain the model but are not a guarantee (some ignore
//! keywords, an OpenAI-compatible server may ignore the schema altogether), so every answer is
//! checked here before the caller sees it. A schema using any other keyword is refused up front
//! ([`check_schema`]): a keyword silently ignored would let through what the caller meant to
//! forbid. About 150 lines against a general validator crate with its own regex engine and
//! remote-reference machinery that cm has no use for.

use serde_json::Value;

const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "maxLength",
    "minItems",
    "maxItems",
    "minimum",
    "maximum",
    "description",
    "title",
];

const TYPES: &[&str] = &[
    "object", "array", "string", "number", "integer", "boolean", "null",
];

/// At most this many problems are reported (enough for the model to fix its answer).
const MAX_PROBLEMS: usize = 8;

/// Refuse a schema that uses anything the validator does not check.
pub fn check_schema(schema: &Value) -> Result<(), String> {
    check_at(schema, "$")
}

fn check_at(schema: &Value, at: &str) -> Result<(), String> {
    let Some(map) = schema.as_object() else {
        return Err(format!("{at}: a schema must be an object"));
    };
    for (k, v) in map {
        if !KEYWORDS.contains(&k.as_str()) {
            return Err(format!("{at}: the keyword \"{k}\" is not supported"));
        }
        match k.as_str() {
            "type" => {
                let names: Vec<&Value> = match v {
                    Value::Array(list) => list.iter().collect(),
                    one => vec![one],
                };
                if names.is_empty()
                    || !names
                        .iter()
                        .all(|n| n.as_str().is_some_and(|n| TYPES.contains(&n)))
                {
                    return Err(format!("{at}: \"type\" must name JSON types, not {v}"));
                }
            }
            "properties" => {
                let Some(props) = v.as_object() else {
                    return Err(format!("{at}: \"properties\" must be an object"));
                };
                for (name, sub) in props {
                    check_at(sub, &format!("{at}.{name}"))?;
                }
            }
            "items" => check_at(v, &format!("{at}[]"))?,
            "required" | "enum" if !v.is_array() => {
                return Err(format!("{at}: \"{k}\" must be a list"));
            }
            "additionalProperties" if !v.is_boolean() => {
                return Err(format!(
                    "{at}: \"additionalProperties\" must be true or false"
                ));
            }
            "maxLength" | "minItems" | "maxItems" if v.as_u64().is_none() => {
                return Err(format!("{at}: \"{k}\" must be a whole number"));
            }
            "minimum" | "maximum" if !v.is_number() => {
                return Err(format!("{at}: \"{k}\" must be a number"));
            }
            _ => {}
        }
    }
    Ok(())
}

/// Every way `value` breaks `schema` (at most [`MAX_PROBLEMS`]), each naming where: `$.rules[2].content`.
pub fn validate(schema: &Value, value: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    walk(schema, value, "$", &mut problems);
    problems.truncate(MAX_PROBLEMS);
    problems
}

fn type_matches(name: &str, value: &Value) -> bool {
    match name {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        _ => false,
    }
}

fn walk(schema: &Value, value: &Value, at: &str, out: &mut Vec<String>) {
    if out.len() >= MAX_PROBLEMS {
        return;
    }
    if let Some(t) = schema.get("type") {
        let names: Vec<&str> = match t {
            Value::Array(list) => list.iter().filter_map(Value::as_str).collect(),
            one => one.as_str().into_iter().collect(),
        };
        if !names.iter().any(|n| type_matches(n, value)) {
            out.push(format!(
                "{at}: expected {}, found {}",
                names.join(" or "),
                kind(value)
            ));
            return;
        }
    }
    if let Some(Value::Array(allowed)) = schema.get("enum")
        && !allowed.contains(value)
    {
        let list: Vec<String> = allowed.iter().map(Value::to_string).collect();
        out.push(format!(
            "{at}: {} is not one of {}",
            short(value),
            list.join(", ")
        ));
    }
    match value {
        Value::String(s) => {
            if let Some(max) = schema.get("maxLength").and_then(Value::as_u64) {
                let n = s.chars().count() as u64;
                if n > max {
                    out.push(format!("{at}: {n} characters, at most {max} allowed"));
                }
            }
        }
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(f64::NAN);
            if let Some(min) = schema.get("minimum").and_then(Value::as_f64)
                && x < min
            {
                out.push(format!("{at}: {n} is below the minimum {min}"));
            }
            if let Some(max) = schema.get("maximum").and_then(Value::as_f64)
                && x > max
            {
                out.push(format!("{at}: {n} is above the maximum {max}"));
            }
        }
        Value::Array(items) => {
            let n = items.len() as u64;
            if let Some(min) = schema.get("minItems").and_then(Value::as_u64)
                && n < min
            {
                out.push(format!("{at}: {n} items, at least {min} required"));
            }
            if let Some(max) = schema.get("maxItems").and_then(Value::as_u64)
                && n > max
            {
                out.push(format!("{at}: {n} items, at most {max} allowed"));
            }
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    walk(item_schema, item, &format!("{at}[{i}]"), out);
                }
            }
        }
        Value::Object(map) => {
            let props = schema.get("properties").and_then(Value::as_object);
            if let Some(Value::Array(required)) = schema.get("required") {
                for name in required.iter().filter_map(Value::as_str) {
                    if !map.contains_key(name) {
                        out.push(format!("{at}: the required property \"{name}\" is missing"));
                    }
                }
            }
            for (k, v) in map {
                match props.and_then(|p| p.get(k)) {
                    Some(sub) => walk(sub, v, &format!("{at}.{k}"), out),
                    None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                        out.push(format!("{at}: the property \"{k}\" is not allowed"));
                    }
                    None => {}
                }
            }
        }
        _ => {}
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn short(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() <= 60 {
        s
    } else {
        format!("{}...", s.chars().take(57).collect::<String>())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules_schema() -> Value {
        json!({
            "type": "object",
            "required": ["rules"],
            "additionalProperties": false,
            "properties": {
                "rules": {
                    "type": "array",
                    "maxItems": 3,
                    "items": {
                        "type": "object",
                        "required": ["content", "kind"],
                        "properties": {
                            "content": {"type": "string", "maxLength": 20},
                            "kind": {"enum": ["rule", "anti-pattern"]},
                            "confidence": {"type": "number", "minimum": 0, "maximum": 1},
                            "count": {"type": ["integer", "null"]}
                        }
                    }
                }
            }
        })
    }

    #[test]
    fn a_good_answer_passes() {
        let v = json!({"rules": [{"content": "Run cargo fmt", "kind": "rule", "confidence": 0.5, "count": 3}, {"content": "x", "kind": "anti-pattern", "count": null}]});
        assert_eq!(validate(&rules_schema(), &v), Vec::<String>::new());
        assert!(check_schema(&rules_schema()).is_ok());
    }

    #[test]
    fn each_problem_names_its_place() {
        let v = json!({
            "rules": [
                {"content": "a rule far longer than twenty characters", "kind": "rule"},
                {"content": 5, "kind": "tip"},
                {"kind": "rule", "confidence": 2, "count": 1.5}
            ],
            "extra": true
        });
        let p = validate(&rules_schema(), &v);
        assert_eq!(
            p,
            [
                "$.rules[0].content: 40 characters, at most 20 allowed",
                "$.rules[1].content: expected string, found a number",
                "$.rules[1].kind: \"tip\" is not one of \"rule\", \"anti-pattern\"",
                "$.rules[2]: the required property \"content\" is missing",
                "$.rules[2].confidence: 2 is above the maximum 1",
                "$.rules[2].count: expected integer or null, found a number",
                "$: the property \"extra\" is not allowed",
            ],
            "{p:#?}"
        );
        let four = json!({"rules": [{"content": "a", "kind": "rule"}, {"content": "a", "kind": "rule"}, {"content": "a", "kind": "rule"}, {"content": "a", "kind": "rule"}]});
        assert_eq!(
            validate(&rules_schema(), &four),
            ["$.rules: 4 items, at most 3 allowed"]
        );
        assert_eq!(
            validate(&rules_schema(), &json!([])),
            ["$: expected object, found an array"]
        );
    }

    #[test]
    fn unsupported_keywords_are_refused() {
        assert!(
            check_schema(&json!({"type": "object", "properties": {"a": {"oneOf": []}}}))
                .unwrap_err()
                .contains("$.a: the keyword \"oneOf\"")
        );
        assert!(check_schema(&json!({"type": "strung"})).is_err());
        assert!(check_schema(&json!({"maxLength": -1})).is_err());
        assert!(check_schema(&json!("object")).is_err());
    }
}
