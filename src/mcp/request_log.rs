//! `cm serve --verbose`: one line on stderr per request, written once its answer has been sent
//! (a tool call's answer may stream, so the time is to its last byte): the HTTP method, the
//! JSON-RPC method, the tool or resource it names, the HTTP status and the time taken. Nothing
//! else of the request is written: no arguments, no headers, no token; the names are cut short
//! and stripped of control characters, since a client chose them.

use bytes::Bytes;
use http_body_util::combinators::BoxBody;
use hyper::Response;
use hyper::body::{Body, Frame, SizeHint};
use serde::Deserialize;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

/// What is known of one request.
#[derive(Debug, Default)]
pub struct Seen {
    pub http: String,
    pub rpc: Option<String>,
    pub target: Option<String>,
}

impl Seen {
    /// Read the JSON-RPC method and the tool (`params.name`) or resource (`params.uri`) from a
    /// request body; a body that is not one JSON-RPC message leaves them unknown.
    pub fn read_body(&mut self, body: &[u8]) {
        #[derive(Deserialize)]
        struct Message {
            method: Option<String>,
            params: Option<Params>,
        }
        #[derive(Deserialize)]
        struct Params {
            name: Option<serde_json::Value>,
            uri: Option<serde_json::Value>,
        }
        let Ok(m) = serde_json::from_slice::<Message>(body) else {
            return;
        };
        self.rpc = m.method.as_deref().map(clean);
        self.target = m
            .params
            .and_then(|p| p.name.or(p.uri))
            .and_then(|v| v.as_str().map(clean));
    }

    fn line(&self, status: u16, ms: f64) -> String {
        let mut out = format!("cm serve: {}", self.http);
        for part in [&self.rpc, &self.target].into_iter().flatten() {
            out.push(' ');
            out.push_str(part);
        }
        out.push_str(&format!(" -> {status} in {ms:.1} ms"));
        out
    }
}

/// At most 64 characters, control characters replaced.
fn clean(s: &str) -> String {
    s.chars()
        .take(64)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

type Boxed = BoxBody<Bytes, Infallible>;

/// The response, whose body writes the request's line when it has been sent (or dropped).
pub fn attach(resp: Response<Boxed>, seen: Seen, start: Instant) -> Response<Boxed> {
    let status = resp.status().as_u16();
    resp.map(|inner| {
        BoxBody::new(Logged {
            inner,
            line: Some((seen, status, start)),
        })
    })
}

struct Logged {
    inner: Boxed,
    line: Option<(Seen, u16, Instant)>,
}

impl Body for Logged {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.inner).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

impl Drop for Logged {
    fn drop(&mut self) {
        if let Some((seen, status, start)) = self.line.take() {
            eprintln!(
                "{}",
                seen.line(status, start.elapsed().as_secs_f64() * 1000.0)
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_the_method_and_tool_and_nothing_of_the_arguments() {
        let mut seen = Seen {
            http: "POST".into(),
            ..Seen::default()
        };
        seen.read_body(br#"{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"cm_context","arguments":{"task":"secret task"}}}"#);
        let line = seen.line(200, 12.34);
        assert_eq!(
            line,
            "cm serve: POST tools/call cm_context -> 200 in 12.3 ms"
        );
        let mut odd = Seen::default();
        odd.read_body(b"{\"method\":\"x\\u001b[2J\"}");
        assert_eq!(odd.rpc.as_deref(), Some("x?[2J"));
    }
}
