//! `cm serve`'s MCP sessions, bounded: each `initialize` makes a session (a worker task and its
//! channels) that the SDK keeps until the client deletes it, and its idle timeout stops the
//! worker but leaves the session in the manager's map. A client that never says goodbye (or one
//! that sends `initialize` in a loop: 5,000 of them took the server from 45 to 308 MB) would
//! grow the server without bound. So the gate notes when each session was last used, a sweeper
//! closes sessions idle longer than `--session-idle`, and a new session past `--max-sessions`
//! first closes the least recently used one. After closing sessions the freed memory is handed
//! back to the system, so an idle server returns to its resting size.

use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::session::{SessionId, SessionManager};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How many sessions and for how long.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    pub max: usize,
    pub idle: Duration,
}

pub struct Sessions {
    pub manager: Arc<LocalSessionManager>,
    last_used: Mutex<HashMap<String, Instant>>,
    bounds: Bounds,
}

impl Sessions {
    pub fn new(mut manager: LocalSessionManager, bounds: Bounds) -> Arc<Sessions> {
        manager.session_config.keep_alive = Some(bounds.idle);
        Arc::new(Sessions {
            manager: Arc::new(manager),
            last_used: Mutex::new(HashMap::new()),
            bounds,
        })
    }

    /// A request named (or a response created) session `id`.
    pub fn touch(&self, id: &str) {
        if let Ok(mut m) = self.last_used.lock() {
            m.insert(id.to_string(), Instant::now());
        }
    }

    /// Before a request that may create a session: make room for it.
    pub async fn make_room(&self) {
        let count = self.manager.sessions.read().await.len();
        if count < self.bounds.max {
            return;
        }
        let ids: Vec<SessionId> = self.manager.sessions.read().await.keys().cloned().collect();
        let mut by_age: Vec<(Option<Instant>, SessionId)> = {
            let Ok(used) = self.last_used.lock() else {
                return;
            };
            ids.into_iter()
                .map(|id| (used.get(id.as_ref()).copied(), id))
                .collect()
        };
        by_age.sort_by_key(|(at, _)| *at);
        let excess = count + 1 - self.bounds.max;
        let oldest: Vec<SessionId> = by_age.into_iter().take(excess).map(|(_, id)| id).collect();
        self.close(&oldest).await;
    }

    /// Close sessions idle past the bound; forget what the manager no longer holds.
    pub async fn sweep(&self) -> usize {
        let ids: Vec<SessionId> = self.manager.sessions.read().await.keys().cloned().collect();
        let stale: Vec<SessionId> = {
            let Ok(mut used) = self.last_used.lock() else {
                return 0;
            };
            let live: std::collections::HashSet<&str> = ids.iter().map(|i| i.as_ref()).collect();
            used.retain(|id, _| live.contains(id.as_str()));
            // A session the gate has not seen yet was created a moment ago: its clock starts.
            for id in &ids {
                used.entry(id.to_string()).or_insert_with(Instant::now);
            }
            ids.iter()
                .filter(|id| {
                    used.get(id.as_ref())
                        .is_some_and(|at| at.elapsed() > self.bounds.idle)
                })
                .cloned()
                .collect()
        };
        self.close(&stale).await;
        stale.len()
    }

    async fn close(&self, ids: &[SessionId]) {
        for id in ids {
            let _ = self.manager.close_session(id).await;
            if let Ok(mut used) = self.last_used.lock() {
                used.remove(id.as_ref());
            }
        }
    }

    /// Sweep every little while, for as long as the runtime runs; give memory back after
    /// closing any.
    pub async fn sweep_forever(self: Arc<Self>) {
        let every =
            (self.bounds.idle / 4).clamp(Duration::from_millis(250), Duration::from_secs(30));
        loop {
            tokio::time::sleep(every).await;
            if self.sweep().await > 0 {
                let _ = tokio::task::spawn_blocking(super::handler::trim_heap).await;
            }
        }
    }
}
