//! Deep merge of JSON objects: later values win key by key; arrays and scalars are replaced.

use serde_json::Value;

pub(crate) fn deep_merge(base: &mut Value, over: Value) {
    match (base, over) {
        (Value::Object(b), Value::Object(o)) => {
            for (k, v) in o {
                match b.get_mut(&k) {
                    Some(slot) if slot.is_object() && v.is_object() => deep_merge(slot, v),
                    _ => {
                        b.insert(k, v);
                    }
                }
            }
        }
        (slot, v) => *slot = v,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nested_keys_merge_and_scalars_replace() {
        let mut a = json!({"scoring": {"decayHalfLifeDays": 90, "harmfulMultiplier": 4}, "x": [1]});
        deep_merge(
            &mut a,
            json!({"scoring": {"harmfulMultiplier": 2}, "x": [2, 3]}),
        );
        assert_eq!(
            a,
            json!({"scoring": {"decayHalfLifeDays": 90, "harmfulMultiplier": 2}, "x": [2, 3]})
        );
    }
}
