//! Schema migrations, applied in order by the CLI when it opens the store.
//!
//! Each entry is (version, SQL). Append new ones; never edit one that has shipped. The version is
//! kept in `PRAGMA user_version`; migrations run inside one `BEGIN IMMEDIATE` transaction, so two
//! processes opening a fresh store at once cannot both apply them.

use super::Store;
use cm_base::error::{CmError, ExitCode, Result};

const MIGRATIONS: &[(i64, &str)] = &[
    (1, include_str!("sql/001_playbook.sql")),
    (2, include_str!("sql/002_episodic.sql")),
    (3, include_str!("sql/003_context.sql")),
    (4, include_str!("sql/004_hot_paths.sql")),
    (5, include_str!("sql/005_reflection.sql")),
    (6, include_str!("sql/006_llm_usage.sql")),
    (7, include_str!("sql/007_onboarding.sql")),
    (8, include_str!("sql/008_assoc.sql")),
    (9, include_str!("sql/009_rule_evidence.sql")),
    (10, include_str!("sql/010_repo_rule_feedback.sql")),
    (13, include_str!("sql/013_feedback_weight.sql")),
    (14, include_str!("sql/014_session_vocab_weights.sql")),
];

/// The schema version the newest migration brings the store to.
pub fn latest_version() -> i64 {
    MIGRATIONS.last().map(|m| m.0).unwrap_or(0)
}

/// Apply pending migrations. Returns whether the store was new (this call created its schema).
pub fn migrate(store: &Store) -> Result<bool> {
    let current: i64 = store
        .conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .map_err(|e| store.map_err(e))?;
    if current == latest_version() {
        return Ok(false);
    }
    if current > latest_version() {
        return Err(CmError::new(
            "STORE_TOO_NEW",
            ExitCode::Filesystem,
            format!(
                "{} has schema version {current}, newer than this cm understands ({})",
                store.path.display(),
                latest_version()
            ),
        )
        .hint("upgrade cm (./install.sh) before using this store"));
    }
    store.write(|tx| {
        let current: i64 = tx
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(|e| store.map_err(e))?;
        for (version, sql) in MIGRATIONS.iter().filter(|(v, _)| *v > current) {
            tx.execute_batch(sql).map_err(|e| store.map_err(e))?;
            tx.execute_batch(&format!("PRAGMA user_version={version}"))
                .map_err(|e| store.map_err(e))?;
        }
        Ok(current == 0)
    })
}
