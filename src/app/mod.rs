//! Application services: one per use case, called alike by the CLI, the hooks and (later) the
//! MCP server. Each takes a request type and returns an answer type; adapters parse their input
//! into the request and render the answer, and never assemble the pipeline themselves.
//!
//! - [`task_context`]: what to know for a task (`cm context`).
//! - [`session_start`]: what a new session should know about its workspace (the session-start
//!   hook).
//! - [`prompt_flashback`]: related past records for a prompt (the prompt hook).
//! - [`add_rules`]: rules added, one or a batch, curated against the playbook.
//! - [`import_rules`]: a file of rules imported, optionally replacing the personal ones.
//! - [`history_search`]: the indexed sessions searched, with remote hosts (`cm history search`).
//! - [`index_sessions`]: agents' sessions indexed, with the upkeep the hooks rely on.
//! - [`diary`]: one diary entry by its id, its session's id or a prefix (`cm diary show`).
//! - [`guard_check`]: the guard's decision on a command, as the hook makes it (`cm guard check`).
//! - [`audit`]: recent sessions that went against a rule or ran a guarded command.
//! - [`repair`]: the safe repairs of `cm doctor --fix`.
//! - [`reflect`]: sessions reflected on: diary, learned rules, feedback.
//! - [`reflect_on`]: `cm reflect` and the MCP reflect tool: index, reflect, say why not.
//! - [`onboard`]: onboarding from past sessions: progress, gaps, sampling, reading.
//! - [`mark`]: feedback on one rule (`cm mark`, the MCP feedback tool).
//! - [`record_outcome`]: a session's outcome recorded with its implicit signals.
//! - [`outcomes`]: recorded outcomes turned into feedback (`cm outcome-apply`).
//! - [`project`]: the rules that belong in a repository's documentation (`cm project`).
//! - [`quickstart`]: what this machine has set up, for `cm quickstart`.
//! - [`playbook_list`]: the playbook as JSON (`cm playbook list --json`, `cm://playbook`).
//! - [`stats`]: playbook health in numbers (`cm stats`).
//! - [`similar`]: rules ranked by how alike they are to a text (`cm similar`).

pub mod add_rules;
pub mod audit;
pub mod diary;
mod feedback_once;
pub mod from_original;
pub mod guard_check;
pub mod history_search;
pub mod import_rules;
pub mod index_sessions;
pub mod inject;
mod list_json;
pub mod mark;
pub mod onboard;
pub mod outcomes;
pub mod playbook_list;
pub mod project;
pub mod prompt_flashback;
pub mod quickstart;
pub mod record_outcome;
pub mod reflect;
pub mod reflect_on;
pub mod repair;
pub mod session_start;
pub mod similar;
pub mod stats;
pub mod task_context;
