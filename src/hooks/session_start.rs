//! `cm hook session-start` (SessionStart; Codex and Gemini CLI session-start payloads): reads the
//! payload, asks [`crate::app::session_start`] what the session should know, prints it in the
//! agent's protocol, and names on stderr what its deadline cut. Never fails the agent.

use crate::app::session_start::{self, SessionStartRequest};
use crate::context::inject;
use std::time::Instant;

pub fn run(_args: &[String]) -> i32 {
    let start = Instant::now();
    let payload = super::read_stdin();
    let answer = inject::parse_payload(&payload.bytes).and_then(|p| {
        session_start::inject(&SessionStartRequest {
            cwd: p.cwd.unwrap_or_else(crate::paths::cwd),
            deadline: super::deadline(start),
        })
    });
    super::print_answer("session-start", start, answer);
    0
}
