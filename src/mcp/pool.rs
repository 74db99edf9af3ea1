//! The store connections the server keeps open between calls, which is what makes a warm server
//! answer in milliseconds (schema read, statements prepared, the file mapped in).
//!
//! A call takes a connection left idle by an earlier one (or opens one) and puts it back when it
//! is done. At most `--workers` calls run at once, so at most that many connections exist. They
//! live here rather than in thread-locals so an idle server can make them give back their memory
//! ([`release_idle`]); the next call maps the file in again.
//!
//! `cm_context` hands its history search to a thread the server keeps ([`super::beside`]),
//! which takes a pooled connection of its own, while the call's thread ranks the rules; unless
//! the server's other calls already use every core ([`core_free`]): then both halves run in turn
//! on the call's connection. So a call may hold two connections, and at most twice `--workers`
//! exist.

use crate::error::Result;
use crate::store::Store;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

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
    let counted = InUse::enter();
    let out = f(&mut conns);
    drop(counted);
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
    crate::context::kept::forget();
}

/// Calls holding a connection now (the caller among them).
static IN_USE: AtomicUsize = AtomicUsize::new(0);

/// One call counted in [`IN_USE`] until dropped (also when the call panics).
struct InUse;

impl InUse {
    fn enter() -> InUse {
        IN_USE.fetch_add(1, Ordering::Relaxed);
        InUse
    }
}

impl Drop for InUse {
    fn drop(&mut self) {
        IN_USE.fetch_sub(1, Ordering::Relaxed);
    }
}

/// Whether this call may take a second connection and a second core: the server's other calls
/// leave a core free (fewer calls in progress, this one among them, than cores). Under the
/// server's own load the calls do their halves in turn (as many calls as cores already use them
/// all, and the kept threads are fewer than the calls); other processes' load is not asked
/// about.
pub fn core_free() -> bool {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    IN_USE.load(Ordering::Relaxed) < cores
}
