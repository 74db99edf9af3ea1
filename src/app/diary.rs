//! One diary entry found by what a user or an agent remembers of it: its id, its session's id,
//! or a unique prefix of either (`cm diary show`, the MCP `cm://diary/{id}` resource).

use crate::error::{CmError, Result};
use crate::reflect::diary::DiaryEntry;
use crate::reflect::tables;
use crate::store::Store;

/// The one entry `id` names; a clear error when none or several do.
pub fn entry(store: &Store, id: &str) -> Result<DiaryEntry> {
    let found = tables::entry(store, id.trim())?;
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(
            CmError::usage("DIARY_NOT_FOUND", format!("no diary entry \"{id}\""))
                .hint("`cm diary list` shows the entries"),
        ),
        many => {
            let ids: Vec<&str> = many.iter().map(|e| e.id.as_str()).collect();
            Err(CmError::usage(
                "AMBIGUOUS_ID",
                format!("\"{id}\" matches {}", ids.join(", ")),
            )
            .hint("give more of the id"))
        }
    }
}
