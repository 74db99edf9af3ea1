//! `cm serve`: the handler over Streamable HTTP, one endpoint at `/mcp`. The SDK's service does
//! the protocol (sessions, SSE streams, the `Host` and `Origin` checks against DNS rebinding,
//! the body limit); this gate stands in front of it and answers, before any MCP work:
//!
//! - another path: 404;
//! - a token is required (always on a non-loopback bind) and `Authorization: Bearer TOKEN` (or
//!   `X-MCP-Token: TOKEN`) is missing or wrong: 401 with `WWW-Authenticate: Bearer`, compared in
//!   constant time;
//! - a declared `Content-Length` over the body limit: 413 (a body that grows past it while
//!   streaming gets the SDK's 413);
//! - more POSTs in flight than the limit: 503 with `Retry-After: 1` and a JSON-RPC error whose
//!   `data.code` is `OVERLOADED` (the same error the stdio transport gives).
//!
//! - a body that has not fully arrived within [`BODY_DEADLINE`]: 408, and the connection is
//!   closed. The body is read here, before the request takes one of the in-flight places, so
//!   clients trickling bodies in hold no place a working client needs;
//! - sessions are bounded ([`super::sessions`]).
//!
//! Each body carries a JSON-RPC error object so a client library can show it.

use super::errors;
use super::handler::CmServer;
use super::request_log::Seen;
use super::sessions::{Bounds, Sessions};
use bytes::Bytes;
use http_body_util::{BodyExt, Full, combinators::BoxBody};
use hyper::{Request, Response, StatusCode, body::Incoming};
use rmcp::transport::streamable_http_server::{
    StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
};
use serde_json::json;
use std::convert::Infallible;
use std::sync::Arc;
use tokio::sync::Semaphore;

type Body = BoxBody<Bytes, Infallible>;

/// An oversized body up to this size is read and dropped before the 413 is sent.
const DRAIN_LIMIT: u64 = 16 * 1024 * 1024;
/// A request's whole body must arrive within this (headers have their own 10 s).
pub const BODY_DEADLINE: std::time::Duration = std::time::Duration::from_secs(10);

/// What the gate enforces.
pub struct Gate {
    pub token: Option<String>,
    pub max_body: usize,
    pub in_flight: Arc<Semaphore>,
    pub limit: usize,
    pub sessions: Arc<Sessions>,
    /// `cm serve --verbose`: a line on stderr per request ([`super::request_log`]).
    pub verbose: bool,
}

/// The session manager for a bound: a finished request's answer is kept for a client resuming
/// its stream for 10 s (not the SDK's 60 s), enough for that, and keeps a burst's answers from
/// sitting in memory.
pub fn sessions(bounds: Bounds) -> Arc<Sessions> {
    let mut sessions = LocalSessionManager::default();
    sessions.session_config.completed_cache_ttl = std::time::Duration::from_secs(10);
    Sessions::new(sessions, bounds)
}

/// The SDK's service configured for a bind: hosts and origins allowed, the body limit.
pub fn service(
    server: CmServer,
    sessions: &Sessions,
    allowed_hosts: Vec<String>,
    allowed_origins: Vec<String>,
    max_body: usize,
) -> StreamableHttpService<CmServer, LocalSessionManager> {
    let mut config = StreamableHttpServerConfig::default()
        .with_max_request_body_bytes(max_body)
        .with_allowed_origins(allowed_origins)
        .enforce_origin_validation();
    config = if allowed_hosts.is_empty() {
        config.disable_allowed_hosts()
    } else {
        config.with_allowed_hosts(allowed_hosts)
    };
    StreamableHttpService::new(move || Ok(server.clone()), sessions.manager.clone(), config)
}

impl Gate {
    pub async fn handle(
        &self,
        req: Request<Incoming>,
        mcp: &StreamableHttpService<CmServer, LocalSessionManager>,
    ) -> Result<Response<Body>, Infallible> {
        if !self.verbose {
            return self.answer(req, mcp, None).await;
        }
        let start = std::time::Instant::now();
        let mut seen = Seen {
            http: req.method().to_string(),
            ..Seen::default()
        };
        let resp = self.answer(req, mcp, Some(&mut seen)).await?;
        Ok(super::request_log::attach(resp, seen, start))
    }

    async fn answer(
        &self,
        req: Request<Incoming>,
        mcp: &StreamableHttpService<CmServer, LocalSessionManager>,
        seen: Option<&mut Seen>,
    ) -> Result<Response<Body>, Infallible> {
        if req.uri().path() != "/mcp" {
            drain(req).await;
            return Ok(refuse(
                StatusCode::NOT_FOUND,
                "NOT_FOUND",
                "the MCP endpoint is /mcp",
            ));
        }
        if let Some(token) = &self.token
            && !authorized(&req, token)
        {
            drain(req).await;
            let mut r = refuse(
                StatusCode::UNAUTHORIZED,
                "UNAUTHORIZED",
                "a bearer token is required: send Authorization: Bearer TOKEN",
            );
            r.headers_mut()
                .insert("www-authenticate", "Bearer".parse().expect("header"));
            return Ok(r);
        }
        let declared = req
            .headers()
            .get(hyper::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok());
        if let Some(n) = declared.filter(|n| *n > self.max_body as u64) {
            if n <= DRAIN_LIMIT {
                drain(req).await;
            }
            return Ok(self.too_large());
        }
        let (parts, body) = req.into_parts();
        let limited = http_body_util::Limited::new(body, self.max_body);
        let bytes = match tokio::time::timeout(BODY_DEADLINE, limited.collect()).await {
            Ok(Ok(collected)) => collected.to_bytes(),
            Ok(Err(_)) => return Ok(self.too_large()),
            Err(_) => {
                return Ok(closing(refuse(
                    StatusCode::REQUEST_TIMEOUT,
                    "BODY_TIMEOUT",
                    &format!(
                        "the request body did not arrive within {} s",
                        BODY_DEADLINE.as_secs()
                    ),
                )));
            }
        };
        if let Some(seen) = seen {
            seen.read_body(&bytes);
        }
        let post = parts.method == hyper::Method::POST;
        let _permit = if post {
            match self.in_flight.clone().try_acquire_owned() {
                Ok(p) => Some(p),
                Err(_) => {
                    let e = errors::overloaded(self.limit);
                    let mut r = json_response(
                        StatusCode::SERVICE_UNAVAILABLE,
                        rpc_error(errors::OVERLOADED, &e.message, errors::data(&e)),
                    );
                    r.headers_mut()
                        .insert("retry-after", "1".parse().expect("header"));
                    return Ok(r);
                }
            }
        } else {
            None
        };
        let named = parts
            .headers
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        match &named {
            Some(id) => self.sessions.touch(id),
            None if post => self.sessions.make_room().await,
            None => {}
        }
        let resp = mcp
            .handle(Request::from_parts(parts, Full::new(bytes)))
            .await;
        if let Some(id) = resp
            .headers()
            .get(SESSION_HEADER)
            .and_then(|v| v.to_str().ok())
        {
            self.sessions.touch(id);
        }
        Ok(resp)
    }
}

impl Gate {
    /// 413, and the connection closed (the rest of the body is not read).
    fn too_large(&self) -> Response<Body> {
        closing(refuse(
            StatusCode::PAYLOAD_TOO_LARGE,
            "BODY_TOO_LARGE",
            &format!("the request body is over {} bytes", self.max_body),
        ))
    }
}

fn closing(mut r: Response<Body>) -> Response<Body> {
    r.headers_mut()
        .insert("connection", "close".parse().expect("header"));
    r
}

/// The header naming a client's MCP session.
const SESSION_HEADER: &str = "mcp-session-id";

/// Read a refused request's body (up to [`DRAIN_LIMIT`]) so the client gets the answer and the
/// connection stays usable, instead of a reset mid-upload.
async fn drain(req: Request<Incoming>) {
    let mut body = req.into_body();
    let mut read = 0u64;
    while let Some(Ok(frame)) = body.frame().await {
        read += frame.data_ref().map_or(0, |d| d.len() as u64);
        if read > DRAIN_LIMIT {
            break;
        }
    }
}

fn authorized(req: &Request<Incoming>, token: &str) -> bool {
    let h = req.headers();
    let bearer = h
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        });
    let other = h.get("x-mcp-token").and_then(|v| v.to_str().ok());
    [bearer, other]
        .into_iter()
        .flatten()
        .any(|given| same(given.trim().as_bytes(), token.as_bytes()))
}

/// Constant-time comparison (for equal lengths), so the token cannot be guessed byte by byte.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

fn rpc_error(code: i32, message: &str, data: serde_json::Value) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": null, "error": {"code": code, "message": message, "data": data}})
}

fn refuse(status: StatusCode, code: &str, message: &str) -> Response<Body> {
    let exit = crate::error::ExitCode::Usage.number();
    let data = json!({"code": code, "message": message, "hint": null, "retryable": false, "exitCode": exit});
    json_response(status, rpc_error(-32600, message, data))
}

fn json_response(status: StatusCode, body: serde_json::Value) -> Response<Body> {
    Response::builder()
        .status(status)
        .header(hyper::header::CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body.to_string())).boxed())
        .expect("a valid response")
}

#[cfg(test)]
mod tests {
    #[test]
    fn tokens_compare_whole() {
        assert!(super::same(b"abc", b"abc"));
        assert!(!super::same(b"abc", b"abd"));
        assert!(!super::same(b"ab", b"abc"));
        assert!(!super::same(b"", b"abc"));
    }
}
