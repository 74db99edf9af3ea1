//! The `stop` hook (Claude Code and Codex `Stop`, Gemini CLI `AfterAgent`): at the end of every
//! turn, index the transcript so far.
//!
//! The session's end is not always reported: an agent killed, a terminal closed, or a
//! session-end budget spent on other hooks leaves the post-session job unrun. Indexing each
//! turn keeps the session searchable anyway (the indexer reads from where it stopped, so a turn
//! costs only its new lines). Like `postsession`, the hook reads `transcript_path`, starts
//! `cm history index --quiet --file PATH` detached, and exits 0 at once with nothing on stdout
//! (an empty answer lets the agent stop; this hook never keeps it working). Reflection stays
//! with the post-session job: a turn is not a finished session.
//!
//! Opt-in (`CM_STOP_REFLECT=1` or `--reflect`), the hook can also ask the agent itself to
//! record what the session taught, once per session ([`super::stop_reflect`]).

use std::path::PathBuf;

pub fn run(args: &[String]) -> i32 {
    let payload = super::read_stdin();
    let path = args
        .iter()
        .find(|a| !a.starts_with('-'))
        .map(PathBuf::from)
        .or_else(|| super::postsession::transcript_path(&payload.bytes));
    let Some(path) = path.filter(|p| p.is_file()) else {
        return 0;
    };
    if let Err(e) = super::postsession::spawn_job(
        &["history", "index", "--quiet", "--file"],
        &path,
        "stop.log",
    ) {
        eprintln!(
            "cm hook stop: could not start indexing {}: {e}",
            path.display()
        );
    }
    if super::stop_reflect::enabled(args)
        && let Some(out) = super::stop_reflect::answer(&payload.bytes, &path)
    {
        println!("{out}");
    }
    0
}
