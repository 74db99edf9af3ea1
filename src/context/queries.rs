//! Suggested history searches for a task: ready-to-run `cm history search ...` lines built from
//! the task's topic words, quoted for a POSIX shell.

use super::engine::Request;
use super::tokenize;

/// Ready-to-run searches of the session history for this task.
pub fn suggested_queries(req: &Request) -> Vec<String> {
    let words = keywords(req.task);
    if words.is_empty() {
        return Vec::new();
    }
    let days = req.days.unwrap_or(30);
    let mut out = vec![format!(
        "cm history search {} --days {days} --limit 10 --json",
        shell_quote(&words.join(" "))
    )];
    if words.len() > 2 {
        out.push(format!(
            "cm history search {} --limit 10 --json",
            shell_quote(&words[..2].join(" "))
        ));
    }
    if let Some(ws) = req.workspace.as_deref() {
        out.push(format!(
            "cm history search {} --workspace {} --limit 10 --json",
            shell_quote(&words.join(" ")),
            shell_quote(ws)
        ));
    }
    out
}

/// The task's topic words in their original form (no stop words, no duplicates), at most six.
pub fn keywords(task: &str) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    task.split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-' || c == '.'))
        .map(|w| w.trim_matches(|c| c == '.' || c == '-'))
        .filter(|w| w.len() > 1 && !tokenize::is_stop_word(&w.to_lowercase()))
        .filter(|w| seen.insert(w.to_lowercase()))
        .take(6)
        .map(str::to_string)
        .collect()
}

/// Quote for a POSIX shell: bare when safe, else single quotes.
pub fn shell_quote(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:@%+=".contains(c))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keywords_and_quoting() {
        assert_eq!(
            keywords("Fix the auth token refresh timeout in the API"),
            ["Fix", "auth", "token", "refresh", "timeout", "API"]
        );
        assert_eq!(shell_quote("auth token"), "'auth token'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("/w/app"), "/w/app");
    }
}
