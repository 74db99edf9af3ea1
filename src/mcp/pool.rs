//! The store connections the server keeps open between calls, which is what makes a warm server
//! answer in milliseconds (schema read, statements prepared, the file mapped in).
//!
//! A call takes a connection left idle by an earlier one (or opens one) and puts it back when it
//! is done. At most `--workers` calls run at once, so at most that many connections exist. They
//! live here rather than in thread-locals so an idle server can make them give back their memory
//! ([`release_idle`]); the next call maps the file in again.
//!
//! `cm_context` searches history on the same connection after ranking the rules. Running the two
//! at once (history on a second connection, in a thread spawned per call) was measured slower on
//! a busy two-core machine: 1.48x the p50 of doing them in turn at load 5 (the new thread waits
//! for a core; bench/mcp.py).

use crate::error::Result;
use crate::store::Store;
use std::sync::Mutex;

/// One call's connection.
#[derive(Default)]
pub struct Conns {
    /// The store; `None` until opened (and while a command holds it).
    pub store: Option<Store>,
    /// The memory was given back while idle: map the file in again before use.
    released: bool,
}

impl Conns {
    /// The store, opened on first use.
    pub fn store(&mut self) -> Result<&Store> {
        if self.store.is_none() {
            self.store = Some(Store::open_default()?);
        }
        Ok(self.store.as_ref().expect("opened above"))
    }
}

static IDLE: Mutex<Vec<Conns>> = Mutex::new(Vec::new());

/// Run `f` with a connection, and keep it for the next call.
pub fn with<T>(f: impl FnOnce(&mut Conns) -> T) -> T {
    let mut conns = IDLE
        .lock()
        .map(|mut idle| idle.pop())
        .unwrap_or_default()
        .unwrap_or_default();
    if conns.released {
        if let Some(s) = &conns.store {
            let _ = s.map_file(true);
        }
        conns.released = false;
    }
    let out = f(&mut conns);
    if let Ok(mut idle) = IDLE.lock() {
        idle.push(conns);
    }
    out
}

/// Make every idle connection unmap the file and drop its page cache (what a server idle for a
/// while calls).
pub fn release_idle() {
    let Ok(mut idle) = IDLE.lock() else { return };
    for conns in idle.iter_mut().filter(|c| !c.released) {
        if let Some(s) = &conns.store {
            s.release_memory();
        }
        conns.released = true;
    }
}
