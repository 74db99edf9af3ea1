//! The embedding endpoint named by config `embeddingProvider`:
//! `{"kind": "ollama"|"openai", "url": "...", "model": "...", "apiKeyEnv": "..."}`.
//!
//! Ollama: POST `{"model", "input": [texts]}` to `/api/embed` (default
//! `http://localhost:11434/api/embed`), answer `{"embeddings": [[...]]}`; the older
//! `/api/embeddings` answer `{"embedding": [...]}` is accepted too. OpenAI-compatible: POST
//! `{"model", "input": [texts]}` to `.../v1/embeddings`, answer `{"data": [{"index", "embedding"}]}`,
//! with `Authorization: Bearer $<apiKeyEnv>` when that variable is set.

use super::http;
use super::unavailable::Unavailable;
use crate::error::Result;
use serde::Deserialize;
use serde_json::{Value, json};
use std::time::Duration;

#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Provider {
    pub kind: String,
    #[serde(default)]
    pub url: Option<String>,
    #[serde(default)]
    pub model: Option<String>,
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// Seconds per request.
    #[serde(default)]
    pub timeout_secs: Option<f64>,
}

impl Provider {
    pub fn url(&self) -> String {
        self.url
            .clone()
            .unwrap_or_else(|| match self.kind.as_str() {
                "openai" => "http://localhost:8080/v1/embeddings".into(),
                _ => "http://localhost:11434/api/embed".into(),
            })
    }

    pub fn model(&self) -> String {
        self.model
            .clone()
            .unwrap_or_else(|| match self.kind.as_str() {
                "openai" => "text-embedding-3-small".into(),
                _ => "nomic-embed-text".into(),
            })
    }

    /// Embeddings from different providers or models never mix: they are stored under this key.
    pub fn model_key(&self) -> String {
        format!("{}:{}", self.kind, self.model())
    }

    /// One vector per text, in order.
    pub fn embed(&self, texts: &[String]) -> std::result::Result<Vec<Vec<f32>>, Unavailable> {
        let body = json!({"model": self.model(), "input": texts}).to_string();
        let key = self
            .api_key_env
            .as_deref()
            .and_then(|v| std::env::var(v).ok())
            .filter(|k| !k.is_empty());
        let timeout = Duration::from_secs_f64(self.timeout_secs.unwrap_or(5.0).clamp(0.1, 120.0));
        let url = self.url();
        let (status, text) = http::post_json(&url, &body, key.as_deref(), timeout)?;
        if !(200..300).contains(&status) {
            let mut msg: String = text.chars().take(200).collect();
            msg = crate::redact::redact(&msg).0;
            return Err(Unavailable::Endpoint(format!(
                "{url} answered HTTP {status}: {msg}"
            )));
        }
        parse_answer(&text)
            .ok_or_else(|| Unavailable::Endpoint(format!("{url} answered without embeddings")))
    }
}

pub fn parse_answer(text: &str) -> Option<Vec<Vec<f32>>> {
    let v: Value = serde_json::from_str(text).ok()?;
    let vector = |x: &Value| -> Option<Vec<f32>> {
        x.as_array()?
            .iter()
            .map(|n| n.as_f64().map(|f| f as f32))
            .collect()
    };
    if let Some(list) = v.get("embeddings").and_then(Value::as_array) {
        return list.iter().map(vector).collect();
    }
    if let Some(one) = v.get("embedding") {
        return Some(vec![vector(one)?]);
    }
    if let Some(data) = v.get("data").and_then(Value::as_array) {
        let mut items: Vec<(u64, Vec<f32>)> = data
            .iter()
            .enumerate()
            .map(|(i, d)| {
                Some((
                    d.get("index").and_then(Value::as_u64).unwrap_or(i as u64),
                    vector(d.get("embedding")?)?,
                ))
            })
            .collect::<Option<_>>()?;
        items.sort_by_key(|(i, _)| *i);
        return Some(items.into_iter().map(|(_, v)| v).collect());
    }
    None
}

/// The provider when semantic search is enabled; `Ok(None)` when it is on but none is configured.
pub fn from_config(loaded: &crate::config::Loaded) -> Result<Option<Provider>> {
    match loaded.raw.get("embeddingProvider") {
        None | Some(Value::Null) => Ok(None),
        Some(_) => loaded.section::<Option<Provider>>("embeddingProvider"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_of_both_shapes() {
        assert_eq!(
            parse_answer(r#"{"embeddings":[[1,2],[3,4]]}"#).unwrap(),
            vec![vec![1.0, 2.0], vec![3.0, 4.0]]
        );
        assert_eq!(
            parse_answer(r#"{"embedding":[0.5]}"#).unwrap(),
            vec![vec![0.5]]
        );
        assert_eq!(
            parse_answer(r#"{"data":[{"index":1,"embedding":[2]},{"index":0,"embedding":[1]}]}"#)
                .unwrap(),
            vec![vec![1.0], vec![2.0]]
        );
        assert!(parse_answer(r#"{"error":"x"}"#).is_none());
    }
}
