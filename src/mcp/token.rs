//! The bearer token `cm serve` requires. From the environment variable `--token-env` names
//! (`MCP_HTTP_TOKEN` by default) when it is set, on any bind. Otherwise a loopback bind needs
//! none, and a non-loopback bind uses the token file `mcp-token` in the data directory,
//! generated on first use (32 random bytes, hex) and created with mode 0600; a token file that
//! others can read, or that is not a regular file, is refused rather than used.

use crate::error::{CmError, Result};
use std::io::{Read, Write};
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

pub struct Token {
    pub value: String,
    /// Where it came from, for the start-up message (never the token itself).
    pub source: String,
}

pub fn file_path() -> PathBuf {
    crate::paths::data_dir().join("mcp-token")
}

/// The token a bind requires, if any.
pub fn for_bind(loopback: bool, env_var: &str) -> Result<Option<Token>> {
    if let Some(v) = std::env::var_os(env_var) {
        let v = v.to_string_lossy().trim().to_string();
        if v.len() < 16 {
            return Err(CmError::config(
                "WEAK_TOKEN",
                format!("${env_var} holds a token shorter than 16 characters"),
            )
            .hint("use a long random token, e.g. `openssl rand -hex 32`"));
        }
        return Ok(Some(Token {
            value: v,
            source: format!("the token is ${env_var}"),
        }));
    }
    if loopback {
        return Ok(None);
    }
    let path = file_path();
    let value = read_or_create(&path)?;
    Ok(Some(Token {
        value,
        source: format!("the token is in {} (mode 0600)", path.display()),
    }))
}

fn read_or_create(path: &Path) -> Result<String> {
    match std::fs::symlink_metadata(path) {
        Ok(meta) => {
            if !meta.file_type().is_file() {
                return Err(CmError::config(
                    "TOKEN_FILE_INVALID",
                    format!("{} is not a regular file", path.display()),
                )
                .hint("remove it; cm serve writes a new token there"));
            }
            if meta.permissions().mode() & 0o077 != 0 {
                return Err(CmError::config(
                    "TOKEN_FILE_EXPOSED",
                    format!("{} can be read by other users", path.display()),
                )
                .hint(format!("chmod 600 {}", path.display())));
            }
            let mut s = String::new();
            std::fs::File::open(path)
                .and_then(|mut f| f.read_to_string(&mut s))
                .map_err(|e| CmError::io(path, "read the token file", &e))?;
            let s = s.trim().to_string();
            if s.len() < 16 {
                return Err(CmError::config(
                    "TOKEN_FILE_INVALID",
                    format!("{} holds no usable token", path.display()),
                )
                .hint("remove it; cm serve writes a new token there"));
            }
            Ok(s)
        }
        Err(_) => {
            if let Some(dir) = path.parent() {
                crate::private::create_dir_all(dir)
                    .map_err(|e| CmError::io(dir, "create the data directory", &e))?;
            }
            let value = random_hex(32)?;
            let mut f = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .mode(0o600)
                .open(path)
                .map_err(|e| CmError::io(path, "create the token file", &e))?;
            f.write_all(format!("{value}\n").as_bytes())
                .and_then(|_| f.sync_all())
                .map_err(|e| CmError::io(path, "write the token file", &e))?;
            Ok(value)
        }
    }
}

fn random_hex(bytes: usize) -> Result<String> {
    let mut buf = vec![0u8; bytes];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut buf))
        .map_err(|e| CmError::internal(format!("cannot read /dev/urandom: {e}")))?;
    Ok(buf.iter().map(|b| format!("{b:02x}")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_file_is_created_private_reused_and_refused_when_exposed() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp-token");
        let first = read_or_create(&path).unwrap();
        assert_eq!(first.len(), 64);
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(read_or_create(&path).unwrap(), first);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        assert_eq!(
            read_or_create(&path).unwrap_err().code,
            "TOKEN_FILE_EXPOSED"
        );
    }
}
