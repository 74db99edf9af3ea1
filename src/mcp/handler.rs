//! The MCP server handler both transports share: the tools and resources, each call run on a
//! blocking thread (SQLite work never stalls the async workers) under two limits and a
//! deadline. At most `workers` calls run at once (each on one of at most `workers` store
//! connections kept open between calls, [`super::pool`], so memory stays bounded), up to
//! `concurrency` more wait their turn, and a call beyond that is
//! refused at once with the retryable `OVERLOADED` error, so a burst of clients gets an answer
//! to retry rather than a queue that grows without bound. The deadline covers the wait.

use super::calls;
use super::confine::Roots;
use super::errors;
use super::tools;
use crate::error::{CmError, Result};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ErrorData, Implementation,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{RoleServer, ServerHandler};
use serde_json::Value;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::sync::Semaphore;

/// How much a server takes on.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Calls running or waiting at once; more are refused with `OVERLOADED`.
    pub concurrency: usize,
    /// Calls running at once (blocking threads, each with its store).
    pub workers: usize,
    /// A request running longer is abandoned with `TIMEOUT`.
    pub timeout: Duration,
}

#[derive(Clone)]
pub struct CmServer {
    roots: Arc<Roots>,
    limits: Limits,
    permits: Arc<Semaphore>,
    workers: Arc<Semaphore>,
    /// Calls finished so far (what [`trim_when_idle`] watches).
    finished: Arc<AtomicU64>,
}

impl CmServer {
    pub fn new(roots: Roots, limits: Limits) -> Self {
        CmServer {
            roots: Arc::new(roots),
            limits,
            permits: Arc::new(Semaphore::new(limits.concurrency)),
            workers: Arc::new(Semaphore::new(limits.workers)),
            finished: Arc::new(AtomicU64::new(0)),
        }
    }

    /// Hand freed memory back to the system once the server has been idle for a few seconds
    /// after some calls (glibc keeps what a burst freed in per-thread arenas otherwise), so an
    /// idle server returns to its resting size. Runs for as long as the runtime does.
    pub async fn trim_when_idle(self) {
        let mut seen = 0;
        loop {
            tokio::time::sleep(Duration::from_secs(3)).await;
            let now = self.finished.load(Ordering::Relaxed);
            let idle = self.permits.available_permits() == self.limits.concurrency;
            if now != seen && idle {
                seen = now;
                let _ = tokio::task::spawn_blocking(|| {
                    super::pool::release_idle();
                    trim_heap();
                })
                .await;
            }
        }
    }

    /// Run `work` on a blocking thread, within the limit and the deadline.
    ///
    /// The work is given its deadline: the tokio timeout below answers the client, and the
    /// work stops there too (statements are interrupted, the context is cut), so a request
    /// nobody waits for any more does not go on burning a worker.
    async fn blocking(
        &self,
        work: impl FnOnce(&Roots, std::time::Instant) -> Result<Value> + Send + 'static,
    ) -> std::result::Result<Value, ErrorData> {
        let due = std::time::Instant::now() + self.limits.timeout;
        let permit = self
            .permits
            .clone()
            .try_acquire_owned()
            .map_err(|_| errors::to_rpc(&errors::overloaded(self.limits.concurrency)))?;
        let roots = self.roots.clone();
        let workers = self.workers.clone();
        let finished = self.finished.clone();
        let run = async move {
            let worker = workers
                .acquire_owned()
                .await
                .expect("the semaphore stays open");
            tokio::task::spawn_blocking(move || {
                let _held = (permit, worker);
                // Loops a repository or request sizes stop here too (`crate::due`).
                let _due = crate::due::until(due);
                // Last line of defence: whatever a call read (a session's title, a snippet, a
                // diary entry) leaves with no secret in any field.
                let out = work(&roots, due).map(|mut v| {
                    crate::redact::redact_json(&mut v);
                    v
                });
                finished.fetch_add(1, Ordering::Relaxed);
                out
            })
            .await
        };
        match tokio::time::timeout(self.limits.timeout, run).await {
            Ok(Ok(Ok(v))) => Ok(v),
            Ok(Ok(Err(e))) => Err(errors::to_rpc(&e)),
            Ok(Err(join)) => Err(errors::to_rpc(&CmError::internal(format!(
                "the request failed: {join}"
            )))),
            Err(_) => Err(errors::to_rpc(&errors::timed_out(
                self.limits.timeout.as_secs().max(1),
            ))),
        }
    }
}

/// Return the allocator's free memory to the system (glibc keeps it per thread otherwise).
pub(super) fn trim_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it has no preconditions.
    unsafe {
        libc::malloc_trim(0);
    }
}

const INSTRUCTIONS: &str = "cm is procedural memory for coding agents. Call cm_context with the task before non-trivial work; \
cite the rule ids you follow; record cm_feedback when a rule helped or hurt and cm_outcome when the session ends. \
guard_check tells whether a shell command would be blocked. Resources: cm://playbook, cm://stats, cm://diary/{id}.";

impl ServerHandler for CmServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .build(),
        )
        .with_server_info(
            Implementation::new("cm", crate::output::VERSION).with_title("cm procedural memory"),
        )
        .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(tools::all().to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<CallToolResponse, ErrorData> {
        let call =
            tools::parse_call(&request.name, request.arguments).map_err(|e| errors::to_rpc(&e))?;
        let value = self
            .blocking(move |roots, due| calls::run(call, roots, due))
            .await?;
        Ok(CallToolResult::structured(value).into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourcesResult, ErrorData> {
        let json = "application/json";
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new("cm://playbook", "playbook")
                .with_title("The playbook")
                .with_description("Every rule, as `cm playbook list --json` gives it")
                .with_mime_type(json),
            Resource::new("cm://stats", "stats")
                .with_title("Playbook health")
                .with_description("Counts, scores and staleness, as `cm stats --json` gives them")
                .with_mime_type(json),
        ]))
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ListResourceTemplatesResult, ErrorData> {
        Ok(ListResourceTemplatesResult::with_all_items(vec![
            ResourceTemplate::new("cm://diary/{id}", "diary")
                .with_title("A diary entry")
                .with_description(
                    "One reflected session (by entry id d-..., session id, or a unique prefix), as `cm diary show ID --json` gives it",
                )
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> std::result::Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.clone();
        let value = self
            .blocking(move |roots, due| calls::resource(&uri, roots, due))
            .await?;
        let text = serde_json::to_string(&value).unwrap_or_default();
        Ok(ReadResourceResult::new(vec![
            ResourceContents::text(text, request.uri).with_mime_type("application/json"),
        ])
        .into())
    }
}
