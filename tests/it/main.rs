//! Every integration test, in one binary: one link step for the whole suite, one harness
//! (`harness`) that gives each test its own HOME, data dir and working dir and runs the real
//! binary there, and one module per area. Run one area with `cargo test --test it AREA::`.

mod harness;

mod agents;
mod anti_patterns;
mod assoc;
mod cli_contract;
mod concurrency;
mod connectors;
mod context;
mod diary_quality;
mod dispatch;
mod docs_match;
mod doctor_fix;
mod episodic;
mod evidence;
mod feedback;
mod fuzz;
mod guard;
mod guard_evasion;
mod guard_hostile;
mod guard_install;
mod guard_trust;
mod install;
mod json_shapes;
mod learning;
mod llm_usage;
mod mcp;
mod mcp_kept;
mod messages;
mod onboard;
mod original;
mod paraphrase_fixtures;
mod playbook;
mod poison;
mod precommit_text;
mod project;
mod quickstart;
mod ranking;
mod reflect;
mod reflect_fixtures;
mod reflect_input;
mod repo_config_yaml;
mod rule_health;
mod rule_signals;
mod secrets;
mod secrets_planted;
mod serve_hostile;
mod starters;
mod store_faults;
mod store_files;
mod store_history;
mod workspaces;
mod zero_counts;
