//! Which agents' sessions reflection may read: `cm privacy`. Kept in `<data dir>/privacy.json`
//! (`{"reflection": true, "deny": ["cursor"]}`), written atomically; a malformed file is
//! reported with its path and never overwritten. Reflection is on for every agent until the user
//! says otherwise.

use crate::error::{CmError, ExitCode, Result};
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Privacy {
    /// Reflection runs at all.
    #[serde(default = "yes")]
    pub reflection: bool,
    /// Agents whose sessions are never reflected on.
    #[serde(default)]
    pub deny: Vec<String>,
}

fn yes() -> bool {
    true
}

impl Default for Privacy {
    fn default() -> Self {
        Privacy {
            reflection: true,
            deny: Vec::new(),
        }
    }
}

impl Privacy {
    pub fn path() -> PathBuf {
        crate::paths::data_dir().join("privacy.json")
    }

    pub fn load() -> Result<Privacy> {
        let path = Self::path();
        // Only a regular file is read (a FIFO would block every reflection).
        if let Ok(m) = std::fs::metadata(&path)
            && !m.is_file()
        {
            return Err(CmError::new(
                "INVALID_PRIVACY_FILE",
                ExitCode::Config,
                format!("{} is not a regular file", path.display()),
            )
            .hint("remove it; `cm privacy status` shows the settings"));
        }
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Privacy::default()),
            Err(e) => return Err(CmError::io(&path, "read", &e)),
        };
        serde_json::from_str(&text).map_err(|e| {
            CmError::new(
                "INVALID_PRIVACY_FILE",
                ExitCode::Config,
                format!("{}: not a privacy settings file: {e}", path.display()),
            )
            .hint("fix or remove the file (cm never overwrites it); `cm privacy status` shows the settings")
        })
    }

    pub fn save(&self) -> Result<()> {
        let mut text = serde_json::to_string_pretty(self).unwrap_or_default();
        text.push('\n');
        crate::fsutil::write_atomic(&Self::path(), text.as_bytes())
    }

    /// Whether `agent`'s sessions may be reflected on.
    pub fn allows(&self, agent: &str) -> bool {
        self.reflection && !self.deny.iter().any(|a| a == agent)
    }
}
