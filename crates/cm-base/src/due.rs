//! When the work this thread does for a request is due.
//!
//! `cm serve` answers a request that runs past `--request-timeout` with `TIMEOUT`, but the
//! thread doing it went on: its SQL statements stop at the deadline (`cm::store::deadline`),
//! the rest did not. A workspace whose `.cass/playbook.yaml` holds 4 MiB of rules full of
//! commands kept a worker checking them for a minute after the client had its answer, and a few
//! such requests held every worker. So the server marks each call's thread with its deadline
//! ([`until`]), and loops whose length a repository or a request decides ask [`at`] and stop
//! there (the answer is discarded anyway). Nothing sets it outside the server, so the command
//! line and the hooks (which pass their own deadlines) are unchanged.

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    static DUE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// The deadline of the current request on this thread, if it has one.
pub fn at() -> Option<Instant> {
    DUE.with(Cell::get)
}

/// Whether the current request's deadline has passed.
pub fn passed() -> bool {
    at().is_some_and(|d| Instant::now() >= d)
}

/// The earlier of `deadline` and the request's.
pub fn earliest(deadline: Option<Instant>) -> Option<Instant> {
    match (deadline, at()) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// Held while this thread works for a request due at `when`; the earlier deadline returns
/// when it is dropped.
pub struct Scope(Option<Instant>);

/// Mark this thread's work as due at `when` until the returned scope is dropped.
pub fn until(when: Instant) -> Scope {
    Scope(DUE.with(|d| d.replace(Some(when))))
}

impl Drop for Scope {
    fn drop(&mut self) {
        DUE.with(|d| d.set(self.0));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_scope_sets_and_restores_the_deadline() {
        assert_eq!(at(), None);
        let past = Instant::now() - Duration::from_millis(1);
        {
            let _s = until(past);
            assert!(passed());
            let later = Instant::now() + Duration::from_secs(60);
            assert_eq!(earliest(Some(later)), Some(past));
        }
        assert_eq!(at(), None);
        assert!(!passed());
    }
}
