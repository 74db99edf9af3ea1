//! Application services: one per use case, called alike by the CLI, the hooks and (later) the
//! MCP server. Each takes a request type and returns an answer type; adapters parse their input
//! into the request and render the answer, and never assemble the pipeline themselves.
//!
//! - [`task_context`]: what to know for a task (`cm context`).
//! - [`session_start`]: what a new session should know about its workspace (the session-start
//!   hook).
//! - [`prompt_flashback`]: related past records for a prompt (the prompt hook).

pub mod inject;
pub mod prompt_flashback;
pub mod session_start;
pub mod task_context;
