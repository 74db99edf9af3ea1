//! What the two context-injection use cases share ([`super::prompt_flashback`] and
//! [`super::session_start`]): their answer, and how they open the store under a deadline.

use crate::error::Result;
use crate::store::Store;
use std::time::Instant;

/// What a context hook prints (nothing when `None`), and what its deadline cut.
#[derive(Debug, Default)]
pub struct HookAnswer {
    pub stdout: Option<String>,
    pub cut: Vec<&'static str>,
}

/// The store for a context hook, opened under its deadline. `Ok(Err(answer))` when there is
/// nothing to read: no store yet, or one locked past the deadline (the answer names it as cut).
pub fn open_store(deadline: Instant) -> Result<std::result::Result<Store, HookAnswer>> {
    match Store::open_readonly_until(&crate::paths::db_path(), deadline) {
        Ok(Some(store)) => Ok(Ok(store)),
        Ok(None) => Ok(Err(HookAnswer::default())),
        Err(e) if e.code == crate::store::INTERRUPTED || e.code == "STORE_BUSY" => {
            Ok(Err(HookAnswer {
                stdout: None,
                cut: vec!["store (locked)"],
            }))
        }
        Err(e) => Err(e),
    }
}
