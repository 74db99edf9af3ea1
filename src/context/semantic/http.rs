//! The one HTTP exchange semantic search needs: POST a JSON body to an embedding endpoint and
//! read the JSON answer, over `http://` (a local Ollama or OpenAI-compatible server) or
//! `https://` (a hosted one), with a whole-call timeout.
//!
//! Built on reqwest's blocking client with rustls, so TLS needs no system library. Only
//! `cm context` / `cm similar` with `semanticSearchEnabled` reach this code; the hooks never do.

use super::unavailable::Unavailable;
use std::time::Duration;

/// Check that `url` is an absolute http(s) URL with a host, before any connection is tried.
pub fn check_url(url: &str) -> Result<(), Unavailable> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| {
            Unavailable::BadUrl(format!("{url}: expected an http:// or https:// URL"))
        })?;
    let authority = rest.split('/').next().unwrap_or("");
    if authority.is_empty() || authority.starts_with(':') {
        return Err(Unavailable::BadUrl(format!("{url}: no host")));
    }
    Ok(())
}

/// POST `body` as JSON; returns the status and the body. Every failure (no route, refused,
/// timeout, TLS) comes back as a message for `degraded.semantic`.
pub fn post_json(
    url: &str,
    body: &str,
    bearer: Option<&str>,
    timeout: Duration,
) -> Result<(u16, String), Unavailable> {
    check_url(url)?;
    let client = reqwest::blocking::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .user_agent(concat!("cm/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| Unavailable::Endpoint(format!("cannot set up the HTTP client: {e}")))?;
    let mut req = client
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .body(body.to_string());
    if let Some(token) = bearer {
        req = req.bearer_auth(token);
    }
    let resp = req
        .send()
        .map_err(|e| Unavailable::Endpoint(describe(url, &e)))?;
    let status = resp.status().as_u16();
    let text = resp
        .text()
        .map_err(|e| Unavailable::Endpoint(format!("no complete answer from {url}: {e}")))?;
    Ok((status, text))
}

fn describe(url: &str, e: &reqwest::Error) -> String {
    // The error's source chain says what actually failed (refused, DNS, TLS certificate).
    let mut msg = format!("cannot reach {url}: {e}");
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        msg.push_str(&format!(": {s}"));
        source = s.source();
    }
    if e.is_timeout() {
        msg.push_str(" (timed out)");
    }
    msg
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        assert!(check_url("http://localhost:11434/api/embed").is_ok());
        assert!(check_url("https://api.example.com/v1/embeddings").is_ok());
        assert!(matches!(check_url("ftp://x"), Err(Unavailable::BadUrl(_))));
        assert!(check_url("http://").is_err());
        assert!(check_url("localhost:11434").is_err());
    }

    #[test]
    fn refused_connection_is_a_message_not_a_panic() {
        // Bind then drop a listener: the port is (almost certainly) closed now.
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let err = post_json(
            &format!("http://127.0.0.1:{port}/api/embed"),
            "{}",
            None,
            Duration::from_secs(2),
        )
        .unwrap_err();
        assert!(
            matches!(&err, Unavailable::Endpoint(m) if m.contains("cannot reach")),
            "{err}"
        );
    }
}
