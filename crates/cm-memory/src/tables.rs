//! The playbook's tables and their SQL: `bullets`, `feedback_events`, `bullet_revisions`
//! (schema in `crates/cm-store/src/sql/001_playbook.sql`), `outcomes` and `repo_rule_feedback`. The memory
//! domain owns them; no other module writes SQL against them ([`cm_store`] only opens, migrates and runs
//! transactions). Functions take a `&Connection`, so they work on a [`cm_store::Store`]
//! (which derefs to its connection) and inside a transaction alike.

pub mod bullets;
pub mod outcomes;
pub mod repo_feedback;
pub mod revisions;
