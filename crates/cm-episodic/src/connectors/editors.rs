//! Where VS Code-family editors keep per-user data, for the connectors that read editor
//! extensions' storage (Cline and its forks, Cursor).
//!
//! Linux: `$XDG_CONFIG_HOME` (else `~/.config`)`/<App>/User`; macOS: `~/Library/Application
//! Support/<App>/User`; Windows: `%APPDATA%\<App>\User`. All candidates are returned; callers
//! list the ones that exist.

use super::Places;
use std::path::PathBuf;

/// Editor application directory names, VS Code and its relatives.
pub const VSCODE_FAMILY: &[&str] = &["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"];

/// `<config>/<app>/User` for every platform location (existing or not), without duplicates.
pub fn user_dirs(at: &Places, apps: &[&str]) -> Vec<PathBuf> {
    let home = &at.home;
    let mut bases = vec![
        at.var("XDG_CONFIG_HOME")
            .unwrap_or_else(|| home.join(".config")),
        home.join("Library/Application Support"),
    ];
    bases.extend(at.var("APPDATA"));
    let mut out = Vec::new();
    for base in &bases {
        for app in apps {
            let dir = base.join(app).join("User");
            if !out.contains(&dir) {
                out.push(dir);
            }
        }
    }
    out
}
