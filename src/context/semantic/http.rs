//! The semantic pass's side of [`crate::http`]: an embedding endpoint's URL checked before any
//! connection, and failures as [`Unavailable`] reasons for `degraded.semantic`.

use super::unavailable::Unavailable;
use std::time::Duration;

/// Check that `url` is an absolute http(s) URL with a host, before any connection is tried.
pub fn check_url(url: &str) -> Result<(), Unavailable> {
    crate::http::host_of(url)
        .map(|_| ())
        .map_err(Unavailable::BadUrl)
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
    let headers: Vec<(&str, String)> = bearer
        .map(|t| ("Authorization", format!("Bearer {t}")))
        .into_iter()
        .collect();
    crate::http::post_json(url, &headers, body, timeout).map_err(Unavailable::Endpoint)
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
