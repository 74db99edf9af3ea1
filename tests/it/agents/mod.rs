//! The hooks as each agent really runs them. `install`: what `cm hooks install` writes for Claude
//! Code, Codex and Gemini CLI and how the hooks behave under each (matchers the agents honour,
//! Codex's hook trust, Gemini's stderr, the per-turn indexer). `clis`: the agents' real CLIs,
//! installed by `tests/agents/install-clis.sh`, run headless against a fake model server
//! (`tests/agents/fake_model.py`) with the HOME cm's installer wrote.

mod clis;
mod injected;
mod install;
