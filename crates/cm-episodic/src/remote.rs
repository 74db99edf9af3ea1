//! Searching other machines' session indexes over the user's own ssh.
//!
//! Opt-in (`remoteCass.enabled` with `remoteCass.hosts`, global config only: a repository cannot
//! make cm contact hosts). Each host runs `cm history search --json --no-remote ...` through
//! `ssh -o BatchMode=yes -o ConnectTimeout=N`, all hosts in parallel, each bounded by a timeout.
//! Hits come back tagged `origin.kind = "remote"`, `origin.host`. A host that is unreachable,
//! slow, or answers with something that is not our JSON is reported, never fatal.

use super::model::{Hit, Origin, SearchQuery};
use serde::Deserialize;
use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[derive(Debug, Clone, Deserialize, Default, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct RemoteConfig {
    pub enabled: bool,
    pub hosts: Vec<RemoteHost>,
    /// Whole-call limit per host (connect + search).
    pub timeout_seconds: Option<u64>,
    /// The cm program on the remote machines (default `cm`).
    pub command: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Default, PartialEq)]
#[serde(default)]
pub struct RemoteHost {
    pub host: String,
    pub label: Option<String>,
}

/// A host that could not be searched, and why.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RemoteFailure {
    pub host: String,
    pub reason: String,
}

const DEFAULT_TIMEOUT: u64 = 10;

/// Search every configured host in parallel. Returns the hits (tagged) and the failures.
pub fn search_all(cfg: &RemoteConfig, q: &SearchQuery) -> (Vec<Hit>, Vec<RemoteFailure>) {
    if !cfg.enabled || cfg.hosts.is_empty() {
        return (Vec::new(), Vec::new());
    }
    let timeout = Duration::from_secs(cfg.timeout_seconds.unwrap_or(DEFAULT_TIMEOUT).max(1));
    let program = cfg.command.as_deref().unwrap_or("cm");
    let results: Vec<(String, Result<Vec<Hit>, String>)> = std::thread::scope(|s| {
        let handles: Vec<_> = cfg
            .hosts
            .iter()
            .filter(|h| !h.host.trim().is_empty())
            .map(|h| {
                let name = h.label.clone().unwrap_or_else(|| h.host.clone());
                (name, s.spawn(|| search_host(&h.host, program, q, timeout)))
            })
            .collect();
        handles
            .into_iter()
            .map(|(name, j)| {
                let r = j
                    .join()
                    .unwrap_or_else(|_| Err("remote search panicked".into()));
                (name, r)
            })
            .collect()
    });
    let mut hits = Vec::new();
    let mut failures = Vec::new();
    for (host, r) in results {
        match r {
            Ok(mut h) => {
                for hit in &mut h {
                    hit.origin = Origin {
                        kind: "remote".into(),
                        host: Some(host.clone()),
                    };
                }
                hits.extend(h);
            }
            Err(reason) => failures.push(RemoteFailure { host, reason }),
        }
    }
    (hits, failures)
}

/// The remote command line, each word quoted for the remote shell.
pub fn remote_words(program: &str, q: &SearchQuery) -> Vec<String> {
    let mut w: Vec<String> = vec![
        program.into(),
        "history".into(),
        "search".into(),
        "--json".into(),
        "--no-remote".into(),
        "--limit".into(),
        q.limit.max(1).to_string(),
    ];
    if let Some(d) = q.days {
        w.extend(["--days".into(), d.to_string()]);
    }
    if let Some(a) = &q.agent {
        w.extend(["--agent".into(), a.clone()]);
    }
    if let Some(ws) = &q.workspace {
        w.extend(["--workspace".into(), ws.clone()]);
    }
    if let Some(r) = q.role {
        w.extend(["--role".into(), r.as_str().into()]);
    }
    w.push("--".into());
    w.push(q.query.clone());
    w.iter().map(|s| shell_quote(s)).collect()
}

/// Single-quote `s` for a POSIX shell.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./=:@".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

fn search_host(
    host: &str,
    program: &str,
    q: &SearchQuery,
    timeout: Duration,
) -> Result<Vec<Hit>, String> {
    let connect = timeout.as_secs().clamp(1, 10);
    let mut child = Command::new("ssh")
        .args([
            "-o",
            "BatchMode=yes",
            "-o",
            &format!("ConnectTimeout={connect}"),
            "--",
            host,
        ])
        .args(remote_words(program, q))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run ssh: {e}"))?;
    let mut stdout = child.stdout.take().expect("piped");
    let mut stderr = child.stderr.take().expect("piped");
    // Read both pipes on their own threads so a chatty host cannot block on a full pipe.
    let out_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stdout.by_ref().take(32 << 20).read_to_end(&mut b);
        b
    });
    let err_reader = std::thread::spawn(move || {
        let mut b = Vec::new();
        let _ = stderr.by_ref().take(64 << 10).read_to_end(&mut b);
        b
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("timed out after {}s", timeout.as_secs()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => return Err(format!("waiting for ssh: {e}")),
        }
    };
    let out = out_reader.join().unwrap_or_default();
    let err = err_reader.join().unwrap_or_default();
    parse_reply(&out).map_err(|why| {
        let stderr = String::from_utf8_lossy(&err);
        let last = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("");
        match (status.code(), last.is_empty()) {
            (Some(255), _) => format!("ssh failed: {}", last.trim()),
            (_, false) => format!("{why} (exit {:?}: {})", status.code(), last.trim()),
            _ => format!("{why} (exit {:?})", status.code()),
        }
    })
}

/// Read a `cm history search --json` envelope.
pub fn parse_reply(out: &[u8]) -> Result<Vec<Hit>, String> {
    #[derive(Deserialize)]
    struct Envelope {
        success: bool,
        data: Option<Data>,
        error: Option<serde_json::Value>,
    }
    #[derive(Deserialize)]
    struct Data {
        hits: Vec<Hit>,
    }
    let text = String::from_utf8_lossy(out);
    let line = text
        .lines()
        .rev()
        .find(|l| l.trim_start().starts_with('{'))
        .ok_or("no JSON reply from the remote cm")?;
    let env: Envelope = serde_json::from_str(line)
        .map_err(|e| format!("unreadable reply from the remote cm: {e}"))?;
    if !env.success {
        let msg = env
            .error
            .as_ref()
            .and_then(|e| e.get("message"))
            .and_then(|m| m.as_str())
            .unwrap_or("unknown error")
            .to_string();
        return Err(format!("remote cm failed: {msg}"));
    }
    Ok(env.data.map(|d| d.hits).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoting_survives_hostile_queries() {
        assert_eq!(shell_quote("abc-1"), "abc-1");
        assert_eq!(shell_quote("it's $(rm -rf /)"), r#"'it'\''s $(rm -rf /)'"#);
        assert_eq!(shell_quote(""), "''");
        let w = remote_words(
            "cm",
            &SearchQuery {
                query: "a;b".into(),
                limit: 5,
                days: Some(3),
                ..SearchQuery::default()
            },
        );
        assert_eq!(
            w.join(" "),
            "cm history search --json --no-remote --limit 5 --days 3 -- 'a;b'"
        );
    }

    #[test]
    fn replies_are_checked() {
        let ok = br#"{"success":true,"command":"history search","data":{"hits":[]}}"#;
        assert_eq!(parse_reply(ok).unwrap().len(), 0);
        let bad = br#"{"success":false,"command":"x","error":{"message":"boom"}}"#;
        assert!(parse_reply(bad).unwrap_err().contains("boom"));
        assert!(parse_reply(b"bash: cm: command not found").is_err());
    }
}
