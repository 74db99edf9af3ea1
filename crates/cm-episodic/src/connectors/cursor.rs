//! Cursor chats, read-only from its `state.vscdb` SQLite files under Cursor's User directory
//! (`~/.config/Cursor/User`, `~/Library/Application Support/Cursor/User`, `%APPDATA%\Cursor\User`):
//! - `globalStorage/state.vscdb`, table `cursorDiskKV`: `composerData:<composerId>` (the
//!   composer: name, times, and either an inline `conversation` or `fullConversationHeadersOnly`
//!   naming its bubbles) and `bubbleId:<composerId>:<bubbleId>` (one message each);
//! - `workspaceStorage/<hash>/state.vscdb`, table `ItemTable`: the older chat panel
//!   (`workbench.panel.aichat.view.aichat.chatdata`, tabs of bubbles), the composers opened in
//!   that workspace (`composer.composerData`), and beside it `workspace.json` naming the folder.
//!
//! A composer's workspace comes from its own `workspaceProjectDir`/`workspaceUris` when present,
//! else from the workspace whose `composer.composerData` lists it. A message's "line" is its
//! position in its conversation (1-based).

use super::Places;
use super::common;
use super::{Connector, Discovery, ParseOutput, ResumePoint, SourceFile, SourceKind};
use std::path::{Path, PathBuf};

pub const SLUG: &str = cm_base::agent::Agent::Cursor.slug();
pub const DB_FILE: &str = "state.vscdb";

pub struct Cursor;

impl Connector for Cursor {
    fn slug(&self) -> &'static str {
        SLUG
    }

    fn discover(&self, at: &Places) -> Discovery {
        discover_in(&super::editors::user_dirs(at, &["Cursor"]))
    }

    fn parse_limited(
        &self,
        file: &SourceFile,
        _from: &ResumePoint,
        _max_bytes: u64,
    ) -> std::io::Result<ParseOutput> {
        let in_global =
            file.path.parent().and_then(Path::file_name) == Some("globalStorage".as_ref());
        if in_global {
            super::cursor_db::parse_global(file)
        } else {
            super::cursor_db::parse_workspace(file)
        }
    }
}

/// The global database and every workspace database under Cursor User directories.
pub fn discover_in(user_dirs: &[PathBuf]) -> Discovery {
    let mut d = Discovery::default();
    let push = |path: PathBuf, d: &mut Discovery| {
        d.files.push(SourceFile {
            agent: SLUG,
            path,
            kind: SourceKind::Document,
            parent_session_id: None,
        })
    };
    for user in user_dirs {
        let global = user.join("globalStorage").join(DB_FILE);
        if global.is_file() {
            push(global.clone(), &mut d);
        }
        d.looked_in.push(global);
        let workspaces = user.join("workspaceStorage");
        for ws in super::walk::subdirs(&workspaces, &mut d.errors) {
            let db = ws.join(DB_FILE);
            if db.is_file() {
                push(db, &mut d);
            }
        }
        d.looked_in.push(workspaces);
    }
    d
}

/// `file:///home/u/my%20proj` -> `/home/u/my proj`; other strings are returned as they are.
pub fn uri_to_path(uri: &str) -> String {
    let Some(rest) = uri.strip_prefix("file://") else {
        return uri.to_owned();
    };
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let Ok(hex) = std::str::from_utf8(&bytes[i + 1..i + 3])
            && let Ok(b) = u8::from_str_radix(hex, 16)
        {
            out.push(b);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    let path = String::from_utf8_lossy(&out).into_owned();
    // Windows: file:///c%3A/Users/u -> c:/Users/u
    match path.as_bytes() {
        [b'/', drive, b':', ..] if drive.is_ascii_alphabetic() => path[1..].to_owned(),
        _ => path,
    }
}

/// The folder a workspace storage directory belongs to (`workspace.json`'s `folder`).
pub fn workspace_folder(ws_dir: &Path) -> Option<String> {
    let v: serde_json::Value =
        serde_json::from_slice(&std::fs::read(ws_dir.join("workspace.json")).ok()?).ok()?;
    v.get("folder")
        .or_else(|| v.get("workspace"))
        .and_then(|f| f.as_str())
        .map(uri_to_path)
}

pub(super) fn time_of(v: Option<&serde_json::Value>) -> Option<String> {
    v.and_then(common::json_time)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_uris_become_paths() {
        assert_eq!(uri_to_path("file:///home/u/my%20proj"), "/home/u/my proj");
        assert_eq!(uri_to_path("file:///c%3A/Users/u"), "c:/Users/u");
        assert_eq!(uri_to_path("/already/a/path"), "/already/a/path");
        assert_eq!(uri_to_path("file:///bad%zzend%"), "/bad%zzend%");
    }
}
