//! cm's section of a document someone else owns (`AGENTS.md`, `CLAUDE.md`, `docs/PATTERNS.md`):
//! marked by comment lines, replaced in place on the next run, appended when absent; every line
//! outside the markers is kept byte for byte. Written atomically; a target that is a symlink,
//! a directory or a device is refused before anything is read or written.

use crate::error::{CmError, Result};
use std::path::Path;

pub const BEGIN: &str = "<!-- cm:begin";
pub const END: &str = "<!-- cm:end -->";
/// The opening marker as written (only its `BEGIN` prefix is matched).
pub const BEGIN_LINE: &str =
    "<!-- cm:begin (written by `cm project`: this section is replaced on the next run) -->";

/// The largest existing document cm will edit.
const CAP: u64 = 16 << 20;

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Action {
    Created,
    Replaced,
    Appended,
    Unchanged,
}

/// `existing` with its marked section replaced by `section` (itself marked), or `section`
/// appended after a blank line when there is none.
pub fn splice(existing: &str, section: &str) -> std::result::Result<(String, Action), String> {
    let lines: Vec<&str> = existing.split_inclusive('\n').collect();
    let begins: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim_start().starts_with(BEGIN))
        .collect();
    let ends: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].trim().starts_with(END))
        .collect();
    match (begins.as_slice(), ends.as_slice()) {
        ([], []) => {
            let mut out = existing.to_string();
            if !out.is_empty() {
                if !out.ends_with('\n') {
                    out.push('\n');
                }
                out.push('\n');
            }
            out.push_str(section);
            Ok((out, Action::Appended))
        }
        ([b], [e]) if b < e => {
            let mut out: String = lines[..*b].concat();
            out.push_str(section);
            let rest = lines[e + 1..].concat();
            if !rest.is_empty() && !section.ends_with('\n') {
                out.push('\n');
            }
            out.push_str(&rest);
            Ok((out, Action::Replaced))
        }
        _ => Err(format!(
            "{} opening and {} closing cm marker line(s), not one of each in order",
            begins.len(),
            ends.len()
        )),
    }
}

/// Write `section` into `path`: spliced when `whole` is false, the whole file otherwise.
pub fn write(path: &Path, section: &str, whole: bool) -> Result<Action> {
    let existing = match std::fs::symlink_metadata(path) {
        Ok(meta) if meta.file_type().is_symlink() || !meta.is_file() => {
            return Err(refused(
                path,
                if meta.file_type().is_symlink() {
                    "a symlink"
                } else if meta.is_dir() {
                    "a directory"
                } else {
                    "not a regular file"
                },
            ));
        }
        Ok(_) => match crate::untrusted::read_text(path, CAP) {
            Ok(Some(text)) => Some(text),
            Ok(None) => None,
            Err(e) => return Err(CmError::io(path, "read", &e)),
        },
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(CmError::io(path, "inspect", &e)),
    };
    let (text, action) = match existing {
        None => (section.to_string(), Action::Created),
        Some(old) => {
            let (new, action) = if whole {
                (section.to_string(), Action::Replaced)
            } else {
                splice(&old, section).map_err(|why| {
                    CmError::usage("MARKERS_MALFORMED", format!("{}: {why}; nothing was written", path.display()))
                        .hint(format!("leave exactly one `{BEGIN_LINE}` line and one `{END}` line after it (or none), then run again"))
                })?
            };
            if new == old {
                return Ok(Action::Unchanged);
            }
            (new, action)
        }
    };
    crate::fsutil::write_atomic(path, text.as_bytes())?;
    Ok(action)
}

fn refused(path: &Path, what: &str) -> CmError {
    CmError::fs(
        "OUTPUT_NOT_REGULAR_FILE",
        format!(
            "{} is {what}; cm writes only regular files, nothing was written",
            path.display()
        ),
    )
    .hint("pass --output the path of a regular file (or of one to create)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(body: &str) -> String {
        format!("{BEGIN_LINE}\n{body}\n{END}\n")
    }

    #[test]
    fn appends_then_replaces_only_the_marked_lines() {
        let doc = "# Project\n\nHand-written.";
        let (once, a) = splice(doc, &section("v1")).unwrap();
        assert_eq!(a, Action::Appended);
        assert!(once.starts_with("# Project\n\nHand-written.\n\n<!-- cm:begin"));
        let edited = format!("{once}\n## After\nkept\n");
        let (twice, a) = splice(&edited, &section("v2")).unwrap();
        assert_eq!(a, Action::Replaced);
        assert_eq!(twice, edited.replace("v1", "v2"));
    }

    #[test]
    fn broken_markers_are_refused() {
        assert!(splice(&format!("{BEGIN_LINE}\nx\n"), &section("v")).is_err());
        assert!(splice(&format!("{END}\n{BEGIN_LINE}\n"), &section("v")).is_err());
        assert!(splice(&format!("{}{}", section("a"), section("b")), &section("v")).is_err());
    }

    #[test]
    fn an_empty_file_gets_the_section_alone() {
        assert_eq!(splice("", &section("v")).unwrap().0, section("v"));
    }
}
