//! What every command gets: the output mode, the working directory, and the config and store,
//! each loaded at most once and only when a command asks for it.

use crate::config::{self, Config, Loaded};
use crate::error::{CmError, ExitCode, Result};
use crate::output::Mode;
use crate::store::Store;
use once_cell::unsync::OnceCell;
use std::path::PathBuf;

pub struct Ctx {
    pub mode: Mode,
    pub cwd: PathBuf,
    loaded: OnceCell<Loaded>,
    store: OnceCell<Store>,
}

impl Ctx {
    pub fn new(mode: Mode) -> Self {
        Ctx {
            mode,
            cwd: crate::paths::cwd(),
            loaded: OnceCell::new(),
            store: OnceCell::new(),
        }
    }

    /// A context for one request of the MCP server: the workspace it names as the working
    /// directory, and a store the server keeps open between requests.
    pub fn at(mode: Mode, cwd: PathBuf, store: Option<Store>) -> Self {
        let cell = OnceCell::new();
        if let Some(s) = store {
            let _ = cell.set(s);
        }
        Ctx {
            mode,
            cwd,
            loaded: OnceCell::new(),
            store: cell,
        }
    }

    /// The store, when a command opened one (handed back to the server for the next request).
    pub fn into_store(self) -> Option<Store> {
        self.store.into_inner()
    }

    pub fn json(&self) -> bool {
        self.mode == Mode::Json
    }

    /// The merged configuration (warnings are printed to stderr on first load).
    pub fn loaded(&self) -> Result<&Loaded> {
        self.loaded.get_or_try_init(|| config::load(&self.cwd))
    }

    pub fn config(&self) -> Result<&Config> {
        Ok(&self.loaded()?.config)
    }

    /// The store, opened and migrated on first use.
    pub fn store(&self) -> Result<&Store> {
        self.store.get_or_try_init(Store::open_default)
    }

    /// The store when one exists; a command that reads indexed sessions must not create an
    /// empty store just to say that nothing is indexed (`NO_STORE`, exit 5).
    pub fn existing_store(&self) -> Result<&Store> {
        if self.store.get().is_none() && !crate::paths::db_path().exists() {
            return Err(CmError::new(
                "NO_STORE",
                ExitCode::SessionIndex,
                format!(
                    "no cm store yet ({} does not exist), so no session is indexed",
                    crate::paths::db_path().display()
                ),
            )
            .hint("run `cm init`, then `cm history index`; nothing was created"));
        }
        self.store()
    }
}
