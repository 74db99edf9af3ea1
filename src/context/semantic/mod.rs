//! Optional semantic search: bullet embeddings from an Ollama or OpenAI-compatible endpoint,
//! fused with the lexical ranking.
//!
//! Off unless `semanticSearchEnabled` is true. Embeddings are stored in `bullet_embeddings` as
//! little-endian f32 blobs keyed by the bullet's content hash and the model, so only bullets whose
//! text changed are sent again. Any failure (no provider configured, unreachable, bad answer)
//! returns the lexical result with `degraded.semantic` explaining what happened; it is never an
//! error. Fusion: `relevance = (1 - w) x lexical + w x max(0, cosine)` with `w = semanticWeight`
//! (0.6 by default). Hooks never call the network: they stay lexical.

pub mod http;
pub mod provider;
pub mod unavailable;

use super::degraded::Issue;
use crate::error::Result;
use crate::memory::bullet::Bullet;
use crate::store::{Store, map_err};
use provider::Provider;
use rusqlite::params;
use std::collections::HashMap;
use unavailable::Unavailable;

/// Bullets embedded per request.
const BATCH: usize = 32;

pub fn to_blob(v: &[f32]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

pub fn from_blob(b: &[u8]) -> Vec<f32> {
    b.chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

pub fn cosine(a: &[f32], b: &[f32]) -> f64 {
    if a.len() != b.len() || a.is_empty() {
        return 0.0;
    }
    let (mut dot, mut na, mut nb) = (0f64, 0f64, 0f64);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (*x as f64, *y as f64);
        dot += x * y;
        na += x * x;
        nb += y * y;
    }
    if na == 0.0 || nb == 0.0 {
        0.0
    } else {
        dot / (na.sqrt() * nb.sqrt())
    }
}

pub fn fuse(lexical: f64, cosine: f64, weight: f64) -> f64 {
    let w = weight.clamp(0.0, 1.0);
    (1.0 - w) * lexical + w * cosine.max(0.0)
}

/// The text a bullet is embedded by.
pub fn embed_text(b: &Bullet) -> String {
    if b.tags.is_empty() {
        format!("{} ({})", b.content, b.category)
    } else {
        format!("{} ({}; {})", b.content, b.category, b.tags.join(", "))
    }
}

/// The result of a semantic pass: cosine per bullet id, and what went wrong if anything.
#[derive(Debug, Default)]
pub struct Outcome {
    pub similarity: HashMap<String, f64>,
    pub embedded: usize,
    pub issue: Option<Issue>,
}

fn unavailable(msg: &str) -> Outcome {
    Outcome {
        issue: Some(Issue::new(
            "SEMANTIC_UNAVAILABLE",
            &format!("semantic search unavailable, lexical ranking only: {msg}"),
            "start the embedding server named in embeddingProvider (e.g. `ollama serve`), fix embeddingProvider in the config, or set semanticSearchEnabled to false",
        )),
        ..Outcome::default()
    }
}

/// Embed what is missing, then the query, and return cosines for every current bullet (the
/// personal ones in the term index and the given repository ones).
pub fn similarities(
    store: &Store,
    provider: Option<&Provider>,
    query: &str,
    repo: &[Bullet],
) -> Outcome {
    let Some(p) = provider else {
        return unavailable("no embeddingProvider is configured");
    };
    match run(store, p, query, repo) {
        Ok(o) => o,
        Err(why) => unavailable(&why.to_string()),
    }
}

fn run(
    store: &Store,
    p: &Provider,
    query: &str,
    repo: &[Bullet],
) -> std::result::Result<Outcome, Unavailable> {
    let conn = &store.conn;
    let model = p.model_key();
    // Personal bullets whose stored embedding is missing or out of date.
    let missing: Vec<(String, String)> = {
        let mut stmt = conn.prepare(
            "SELECT d.bullet_id, d.content_hash FROM context_docs d
                 LEFT JOIN bullet_embeddings e ON e.bullet_id = d.bullet_id
                   AND e.content_hash = d.content_hash AND e.model = ?1
                 WHERE e.bullet_id IS NULL",
        )?;
        stmt.query_map([&model], |r| Ok((r.get(0)?, r.get(1)?)))?
            .filter_map(|r| r.ok())
            .collect()
    };
    let mut todo: Vec<(String, String, String)> = Vec::new();
    for (id, hash) in missing {
        if let Ok(Some(b)) = crate::memory::tables::bullets::get(conn, &id) {
            todo.push((id, hash, embed_text(&b)));
        }
    }
    let mut repo_hash: HashMap<String, String> = HashMap::new();
    for b in repo {
        let h = super::index::content_hash(b);
        let stored: Option<String> = conn
            .query_row(
                "SELECT content_hash FROM bullet_embeddings WHERE bullet_id = ?1 AND model = ?2",
                params![b.id, model],
                |r| r.get(0),
            )
            .ok();
        if stored.as_deref() != Some(h.as_str()) {
            todo.push((b.id.clone(), h.clone(), embed_text(b)));
        }
        repo_hash.insert(b.id.clone(), h);
    }
    let qv = p
        .embed(&[query.to_string()])?
        .pop()
        .ok_or_else(|| Unavailable::Endpoint("empty answer for the query".into()))?;
    let mut embedded = 0;
    for chunk in todo.chunks(BATCH) {
        let texts: Vec<String> = chunk.iter().map(|t| t.2.clone()).collect();
        let vecs = p.embed(&texts)?;
        if vecs.len() != chunk.len() {
            return Err(Unavailable::Endpoint(format!(
                "asked for {} embeddings, got {}",
                chunk.len(),
                vecs.len()
            )));
        }
        let now = crate::clock::now_rfc3339();
        store
            .write(|tx| {
                let mut ins = tx
                    .prepare_cached(
                        "INSERT OR REPLACE INTO bullet_embeddings (bullet_id, content_hash, model, dim, vector, updated_at)
                         VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                    )
                    .map_err(|e| map_err(e, &store.path))?;
                for ((id, hash, _), v) in chunk.iter().zip(&vecs) {
                    ins.execute(params![id, hash, model, v.len() as i64, to_blob(v), now])
                        .map_err(|e| map_err(e, &store.path))?;
                }
                Ok(())
            })?;
        embedded += chunk.len();
    }
    let mut similarity = HashMap::new();
    let mut stmt = conn.prepare(
        "SELECT e.bullet_id, e.content_hash, e.vector, d.content_hash FROM bullet_embeddings e
             LEFT JOIN context_docs d ON d.bullet_id = e.bullet_id WHERE e.model = ?1",
    )?;
    let rows = stmt.query_map([&model], |r| {
        Ok((
            r.get::<_, String>(0)?,
            r.get::<_, String>(1)?,
            r.get::<_, Vec<u8>>(2)?,
            r.get::<_, Option<String>>(3)?,
        ))
    })?;
    for row in rows.flatten() {
        let (id, hash, blob, personal_hash) = row;
        let current = personal_hash.as_deref() == Some(hash.as_str())
            || repo_hash.get(&id).map(String::as_str) == Some(hash.as_str());
        if current {
            similarity.insert(id, cosine(&qv, &from_blob(&blob)));
        }
    }
    Ok(Outcome {
        similarity,
        embedded,
        issue: None,
    })
}

/// Convenience for callers that hold a config: the provider when semantic search is on.
pub fn configured(loaded: &crate::config::Loaded) -> Result<Option<Provider>> {
    provider::from_config(loaded)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blobs_round_trip_and_cosine() {
        let v = vec![0.5f32, -1.0, 2.25];
        assert_eq!(from_blob(&to_blob(&v)), v);
        assert!((cosine(&v, &v) - 1.0).abs() < 1e-9);
        assert!((cosine(&[1.0, 0.0], &[0.0, 1.0])).abs() < 1e-12);
        assert_eq!(cosine(&[1.0], &[1.0, 2.0]), 0.0);
    }

    #[test]
    fn fusion_weights() {
        assert!((fuse(0.5, 1.0, 0.6) - 0.8).abs() < 1e-12);
        assert!((fuse(0.5, -0.3, 0.6) - 0.2).abs() < 1e-12);
    }
}
