//! The caller's schema rewritten for what each provider's structured-output mode accepts. The
//! answer is still checked against the original (`super::super::validate`), so a keyword moved
//! into a description here is still enforced.

use serde_json::{Map, Value, json};

/// `maxLength` moved into the description ("at most N characters"): OpenAI's strict mode and
/// Gemini's schema refuse or ignore it, and the model should still know the limit.
fn lengths_as_words(map: &mut Map<String, Value>) {
    if let Some(max) = map.remove("maxLength").and_then(|m| m.as_u64()) {
        let note = format!("At most {max} characters.");
        let text = match map.get("description").and_then(Value::as_str) {
            Some(d) => format!("{d} {note}"),
            None => note,
        };
        map.insert("description".into(), Value::String(text));
    }
}

fn each_subschema(map: &mut Map<String, Value>, f: &dyn Fn(&Value) -> Value) {
    if let Some(Value::Object(props)) = map.get_mut("properties") {
        for v in props.values_mut() {
            *v = f(v);
        }
    }
    if let Some(items) = map.get_mut("items") {
        *items = f(items);
    }
}

/// For OpenAI's `json_schema` response format.
pub fn for_openai(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut map = map.clone();
    lengths_as_words(&mut map);
    each_subschema(&mut map, &for_openai);
    Value::Object(map)
}

/// Whether OpenAI's strict mode takes the schema: an object at the root, and every object
/// closed (`additionalProperties: false`) with all its properties required.
pub fn strict_ready(schema: &Value) -> bool {
    fn closed(s: &Value) -> bool {
        let is_object = s.get("type") == Some(&json!("object"));
        if is_object {
            let props = s.get("properties").and_then(Value::as_object);
            let required: Vec<&str> = s
                .get("required")
                .and_then(Value::as_array)
                .map(|r| r.iter().filter_map(Value::as_str).collect())
                .unwrap_or_default();
            let all_required =
                props.is_none_or(|p| p.keys().all(|k| required.contains(&k.as_str())));
            if s.get("additionalProperties") != Some(&json!(false)) || !all_required {
                return false;
            }
        }
        let props_ok = s
            .get("properties")
            .and_then(Value::as_object)
            .is_none_or(|p| p.values().all(closed));
        props_ok && s.get("items").is_none_or(closed)
    }
    schema.get("type") == Some(&json!("object")) && closed(schema)
}

/// For Gemini's `responseSchema` (an OpenAPI subset): upper-case type names, `nullable` for a
/// type list with `null`, `propertyOrdering` in the schema's order, and no keywords it lacks.
pub fn for_gemini(schema: &Value) -> Value {
    let Value::Object(map) = schema else {
        return schema.clone();
    };
    let mut map = map.clone();
    lengths_as_words(&mut map);
    map.remove("additionalProperties");
    map.remove("title");
    let names: Vec<String> = match map.remove("type") {
        Some(Value::String(t)) => vec![t],
        Some(Value::Array(list)) => list
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    };
    if names.iter().any(|n| n == "null") {
        map.insert("nullable".into(), Value::Bool(true));
    }
    let main = names.iter().find(|n| *n != "null").cloned().or_else(|| {
        // An enum without a type: Gemini's enums are strings.
        map.get("enum")
            .and_then(Value::as_array)
            .filter(|e| e.iter().all(Value::is_string))
            .map(|_| "string".to_string())
    });
    if let Some(t) = main {
        map.insert("type".into(), Value::String(t.to_ascii_uppercase()));
    }
    if let Some(order) = map
        .get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().map(Value::String).collect::<Vec<_>>())
    {
        map.insert("propertyOrdering".into(), Value::Array(order));
    }
    each_subschema(&mut map, &for_gemini);
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rewrites() {
        let s = json!({"type": "object", "additionalProperties": false, "required": ["a", "b"],
            "properties": {"a": {"type": "string", "maxLength": 80, "description": "A rule."},
                           "b": {"type": ["integer", "null"]},
                           "c": {"type": "array", "items": {"enum": ["x", "y"]}}}});
        let o = for_openai(&s);
        assert_eq!(
            o["properties"]["a"],
            json!({"type": "string", "description": "A rule. At most 80 characters."})
        );
        assert!(!strict_ready(&s), "c is not required");
        let mut closed = s.clone();
        closed["required"] = json!(["a", "b", "c"]);
        assert!(strict_ready(&closed));
        let g = for_gemini(&s);
        assert_eq!(g["type"], "OBJECT");
        assert_eq!(g["propertyOrdering"], json!(["a", "b", "c"]));
        assert!(g.get("additionalProperties").is_none());
        assert_eq!(
            g["properties"]["b"],
            json!({"nullable": true, "type": "INTEGER"})
        );
        assert_eq!(
            g["properties"]["c"]["items"],
            json!({"enum": ["x", "y"], "type": "STRING"})
        );
    }
}
