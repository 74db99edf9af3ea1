//! The MCP server: `cm mcp` (stdio) and `cm serve` (Streamable HTTP), the same tools and
//! resources on both, built on the official Rust SDK (`rmcp`).
//!
//! Only these two commands create an async runtime; nothing here runs on a hook's path (the
//! hooks are dispatched in `lib.rs` before the argument parser, and no static here starts
//! anything). The layers: [`tools`] (arguments, schemas, validation), [`calls`] (each tool
//! through the code the command line runs), [`handler`] (the MCP handler: limits, deadlines),
//! [`confine`] (which paths a request may touch), [`errors`] (cm errors as JSON-RPC errors),
//! [`http`] and [`token`] (the HTTP gate and its token).

mod beside;
mod calls;
pub mod confine;
pub mod errors;
mod handler;
mod http;
mod pool;
mod request_log;
mod sessions;
mod stdio_lines;
pub mod token;
mod tools;

pub use handler::Limits;
pub use sessions::Bounds as SessionBounds;

use crate::error::{CmError, Result};
use confine::Roots;
use handler::CmServer;
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

/// What both transports share.
pub struct Settings {
    /// The workspaces requests may name (the first is the default).
    pub roots: Vec<PathBuf>,
    pub limits: Limits,
}

/// `cm serve`'s own options.
pub struct HttpSettings {
    pub host: String,
    pub port: u16,
    /// The environment variable holding the token.
    pub token_env: String,
    pub max_body: usize,
    /// Sessions kept at most, and how long an unused one lives.
    pub sessions: sessions::Bounds,
    /// A line on stderr per request.
    pub verbose: bool,
}

/// Connections served at once; a connection past this is closed at once. Each slow one is
/// dropped when its headers (10 s) or body ([`http::BODY_DEADLINE`]) do not arrive in time.
const MAX_CONNECTIONS: usize = 512;

fn runtime(limits: &Limits) -> Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .max_blocking_threads(limits.workers + 2)
        // Blocking threads are kept a while, so a burst does not start new ones per call.
        .thread_keep_alive(std::time::Duration::from_secs(300))
        .enable_all()
        .build()
        .map_err(|e| CmError::internal(format!("cannot start the server runtime: {e}")))
}

fn server(settings: &Settings) -> Result<CmServer> {
    Ok(CmServer::new(Roots::new(&settings.roots)?, settings.limits))
}

/// Serve MCP on stdin/stdout until the client closes it. Lines that are not JSON are
/// answered with a parse error ([`stdio_lines`]).
pub fn serve_stdio(settings: Settings) -> Result<()> {
    use rmcp::ServiceExt;
    let server = server(&settings)?;
    runtime(&settings.limits)?.block_on(async move {
        tokio::spawn(server.clone().trim_when_idle());
        let wired = stdio_lines::wire(tokio::io::stdin(), tokio::io::stdout());
        let served = async {
            let running = server
                .serve((wired.server_in, wired.server_out))
                .await
                .map_err(|e| CmError::internal(format!("the MCP session did not start: {e}")))?;
            running
                .waiting()
                .await
                .map_err(|e| CmError::internal(format!("the MCP session failed: {e}")))?;
            Ok(())
        };
        let result = served.await;
        // The server's transport is gone: its pipe is closed, so the writer finishes.
        let _ = wired.out.await;
        result
    })
}

/// Serve MCP over HTTP on `http.host:http.port` until interrupted.
pub fn serve_http(settings: Settings, http: HttpSettings) -> Result<()> {
    let ip = bind_address(&http.host)?;
    let token = token::for_bind(ip.is_loopback(), &http.token_env)?;
    let server = server(&settings)?;
    let limits = settings.limits;
    runtime(&limits)?.block_on(async move {
        let addr = SocketAddr::new(ip, http.port);
        let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| {
            CmError::new(
                "BIND_FAILED",
                crate::error::ExitCode::Network,
                format!("cannot listen on {addr}: {e}"),
            )
            .hint("pick another --port, or stop what listens there")
        })?;
        let bound = listener.local_addr().unwrap_or(addr);
        let (hosts, origins) = allowed(ip);
        tokio::spawn(server.clone().trim_when_idle());
        let sessions = http::sessions(http.sessions);
        tokio::spawn(sessions.clone().sweep_forever());
        let mcp = Arc::new(http::service(
            server,
            &sessions,
            hosts,
            origins,
            http.max_body,
        ));
        let gate = Arc::new(http::Gate {
            token: token.as_ref().map(|t| t.value.clone()),
            max_body: http.max_body,
            in_flight: Arc::new(tokio::sync::Semaphore::new(limits.concurrency)),
            limit: limits.concurrency,
            sessions,
            verbose: http.verbose,
        });
        let connections = Arc::new(tokio::sync::Semaphore::new(MAX_CONNECTIONS));
        eprintln!("cm serve: MCP over HTTP at http://{bound}/mcp");
        match &token {
            Some(t) => eprintln!(
                "cm serve: clients must send Authorization: Bearer <token> ({})",
                t.source
            ),
            None => eprintln!("cm serve: loopback only, no token required"),
        }
        loop {
            let (stream, _) = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok(a) => a,
                    Err(e) => {
                        eprintln!("cm serve: accept failed: {e}");
                        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                        continue;
                    }
                },
                _ = tokio::signal::ctrl_c() => break,
            };
            let Ok(held) = connections.clone().try_acquire_owned() else {
                drop(stream);
                continue;
            };
            let _ = stream.set_nodelay(true);
            let (gate, mcp) = (gate.clone(), mcp.clone());
            tokio::spawn(async move {
                let _held = held;
                let svc = hyper::service::service_fn(move |req| {
                    let (gate, mcp) = (gate.clone(), mcp.clone());
                    async move { gate.handle(req, &mcp).await }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .timer(hyper_util::rt::TokioTimer::new())
                    .header_read_timeout(std::time::Duration::from_secs(10))
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), svc)
                    .await;
            });
        }
        eprintln!("cm serve: stopped");
        Ok(())
    })
}

/// `--host` as an address (`localhost` is 127.0.0.1).
pub fn bind_address(host: &str) -> Result<IpAddr> {
    match host {
        "localhost" => Ok(IpAddr::from([127, 0, 0, 1])),
        h => h.parse().map_err(|_| {
            CmError::usage(
                "INVALID_ARGUMENT",
                format!("--host {h} is not an IP address"),
            )
            .hint("give an address to bind, e.g. 127.0.0.1 (the default), ::1 or 0.0.0.0")
        }),
    }
}

/// The `Host` names and browser origins a bind accepts. Loopback: the loopback names. A public
/// address: that address too; a wildcard bind (0.0.0.0, ::) cannot know the names clients use,
/// so it checks no `Host` (its token is what keeps others out). Origins are always checked: a
/// browser page may only call from a loopback origin.
fn allowed(ip: IpAddr) -> (Vec<String>, Vec<String>) {
    let mut hosts: Vec<String> = vec!["localhost".into(), "127.0.0.1".into(), "::1".into()];
    if ip.is_unspecified() {
        hosts.clear();
    } else if !ip.is_loopback() {
        hosts.push(ip.to_string());
    }
    let origins = ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"]
        .map(String::from)
        .to_vec();
    (hosts, origins)
}
