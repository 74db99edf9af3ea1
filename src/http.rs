//! The one HTTP exchange cm makes (an embedding endpoint for semantic search, an LLM for
//! reflection): POST a JSON body with the endpoint's headers and read the answer, with a
//! whole-call timeout and a cap on the answer's size (a hostile or broken endpoint cannot make
//! cm read forever). Failures come back as words for a `degraded` field, never with a header
//! value in them.
//!
//! Built on reqwest's blocking client with rustls, so TLS needs no system library. Only
//! commands reach this code; the hooks never do. [`may_carry_a_key`] is the rule for API keys:
//! https anywhere, plain http only to this machine (a key sent in clear text to another host
//! could be read by anyone on the way).

use std::io::Read;
use std::time::Duration;

/// Answers larger than this are cut and reported as such.
const MAX_ANSWER_BYTES: u64 = 32 << 20;

/// Why the exchange failed, in words.
pub type Failure = String;

/// Whether the URL is https, and its host (lower case); or why it names no endpoint.
pub fn host_of(url: &str) -> Result<(bool, String), Failure> {
    let (secure, rest) = if let Some(r) = url.strip_prefix("https://") {
        (true, r)
    } else if let Some(r) = url.strip_prefix("http://") {
        (false, r)
    } else {
        return Err(format!("{url}: expected an http:// or https:// URL"));
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let authority = authority.rsplit('@').next().unwrap_or(authority);
    let host = if let Some(v6) = authority.strip_prefix('[') {
        v6.split(']').next().unwrap_or("").to_string()
    } else {
        authority.split(':').next().unwrap_or("").to_string()
    };
    if host.is_empty() {
        return Err(format!("{url}: no host"));
    }
    Ok((secure, host.to_ascii_lowercase()))
}

/// Whether a key may be sent to `url`: https anywhere, http only to this machine.
pub fn may_carry_a_key(url: &str) -> Result<bool, Failure> {
    let (secure, host) = host_of(url)?;
    let local = host == "localhost"
        || host == "::1"
        || host.starts_with("127.")
        || host.ends_with(".localhost");
    Ok(secure || local)
}

/// POST `body` to `url` with `headers`; the status and the answer's text.
pub fn post_json(
    url: &str,
    headers: &[(&str, String)],
    body: &str,
    timeout: Duration,
) -> Result<(u16, String), Failure> {
    host_of(url)?;
    let client = reqwest::blocking::Client::builder()
        .timeout(timeout)
        .connect_timeout(timeout)
        .user_agent(concat!("cm/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
    let mut req = client
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json")
        .body(body.to_string());
    for (name, value) in headers {
        req = req.header(*name, value);
    }
    let resp = req.send().map_err(|e| describe(url, &e))?;
    let status = resp.status().as_u16();
    let mut bytes = Vec::new();
    resp.take(MAX_ANSWER_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| {
            let timed_out = e
                .get_ref()
                .and_then(|inner| inner.downcast_ref::<reqwest::Error>())
                .is_some_and(reqwest::Error::is_timeout);
            format!(
                "no complete answer from {url}: {e}{}",
                if timed_out { " (timed out)" } else { "" }
            )
        })?;
    if bytes.len() as u64 > MAX_ANSWER_BYTES {
        return Err(format!(
            "{url} answered with more than {} MiB",
            MAX_ANSWER_BYTES >> 20
        ));
    }
    Ok((status, String::from_utf8_lossy(&bytes).into_owned()))
}

fn describe(url: &str, e: &reqwest::Error) -> Failure {
    // The source chain says what actually failed (refused, DNS, TLS certificate).
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
    fn keys_travel_only_over_https_or_to_this_machine() {
        assert!(may_carry_a_key("https://api.anthropic.com/v1/messages").unwrap());
        assert!(may_carry_a_key("http://127.0.0.1:8080/v1").unwrap());
        assert!(may_carry_a_key("http://localhost:11434").unwrap());
        assert!(may_carry_a_key("http://[::1]:8080/v1").unwrap());
        assert!(!may_carry_a_key("http://gpu-box.lan:8000/v1").unwrap());
        assert!(!may_carry_a_key("http://localhost.evil.com/v1").unwrap());
        assert!(!may_carry_a_key("http://127.0.0.1@evil.com/v1").unwrap());
        assert!(may_carry_a_key("ftp://x").is_err());
        assert!(may_carry_a_key("http://").is_err());
    }
}
