//! `cm hook prompt` (UserPromptSubmit; Gemini CLI's BeforeAgent): reads the payload, asks
//! [`crate::app::prompt_flashback`] for related past records, prints them in the agent's
//! protocol, and names on stderr what its deadline cut. Never fails the agent: any problem is one
//! line on stderr and no output.

use crate::app::prompt_flashback::{self, PromptRequest};
use crate::context::inject;
use std::time::Instant;

pub fn run(_args: &[String]) -> i32 {
    let start = Instant::now();
    let payload = super::read_stdin();
    let answer = inject::parse_payload(&payload.bytes).and_then(|p| {
        prompt_flashback::flashback(&PromptRequest {
            prompt: p.prompt.unwrap_or_default(),
            cwd: p.cwd.unwrap_or_else(crate::paths::cwd),
            event: p.event,
            deadline: super::deadline(start),
        })
    });
    super::print_answer("prompt", start, answer);
    0
}
