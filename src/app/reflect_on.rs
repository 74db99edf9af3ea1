//! Sessions reflected on as `cm reflect` and the MCP reflect tool ask for it: a named session
//! file is checked and indexed first (or every agent's new sessions, unless told not to), the
//! selection goes to [`super::reflect`], and the answer says what was learned, which reflector
//! ran and, in `degraded`, why there was nothing to learn from.

use super::index_sessions::{self, IndexRequest};
use super::reflect::{self, ReflectRequest, Reflected};
use crate::config::Loaded;
use crate::episodic::connectors::Connector;
use crate::error::{CmError, Result};
use crate::memory::playbook::Playbook;
use crate::store::Store;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// What to reflect on and how.
#[derive(Debug, Default)]
pub struct ReflectOn {
    /// One session's transcript file (indexed first).
    pub session: Option<PathBuf>,
    /// Sessions since this time (RFC 3339); `None` with no session means every one.
    pub since: Option<String>,
    /// Only sessions of this workspace (or under it).
    pub workspace: Option<String>,
    /// At most this many sessions; the rest wait for the next run.
    pub max_sessions: usize,
    /// Say what would be learned, change nothing.
    pub dry_run: bool,
    /// Reflect again on sessions already reflected on.
    pub force: bool,
    /// Do not index agents' new sessions first (only what is indexed already).
    pub no_index: bool,
    /// Do not ask the LLM even when one is configured.
    pub no_llm: bool,
    /// The time to stamp what is learned with (RFC 3339).
    pub now: String,
}

/// What reflecting did, with its JSON `data` and the reason there was nothing to learn from.
pub struct Reflecting {
    /// The reflection itself.
    pub done: Reflected,
    /// Why nothing was reflected on, when nothing was.
    pub nothing: Option<String>,
    /// The answer's JSON: the reflection plus `dryRun`, `reflector` and `degraded`.
    pub data: Value,
}

/// Reflect as `req` asks, on the store `open` gives (opened only once it is needed).
pub fn answer<'s>(
    open: impl Fn() -> Result<&'s Store>,
    loaded: &Loaded,
    cwd: &Path,
    req: &ReflectOn,
) -> Result<Reflecting> {
    let cfg = &loaded.config;
    let session_file = match &req.session {
        Some(path) => {
            // A session is a regular file: a FIFO would block the reader, a device or a
            // directory is not a transcript.
            let meta =
                std::fs::metadata(path).map_err(|e| CmError::io(path, "read session file", &e))?;
            crate::private::refuse_as_transcript(path)?;
            if !meta.is_file() {
                return Err(CmError::usage(
                    "INVALID_ARGUMENT",
                    format!(
                        "{} is not a regular file, so not a session log",
                        path.display()
                    ),
                )
                .hint("pass the transcript file the agent reported (a .jsonl or .json file)"));
            }
            Some(index(Some(path), loaded, &open)?.unwrap_or_default())
        }
        None if !req.no_index => index(None, loaded, &open)?,
        None => None,
    };
    let store = open()?;
    let playbook = Playbook::open(store, cwd);
    let request = ReflectRequest {
        session_file,
        since: req.since.clone(),
        workspace: req.workspace.clone(),
        max_sessions: req.max_sessions,
        dry_run: req.dry_run,
        force: req.force,
        now: req.now.clone(),
        llm: (!req.no_llm).then(|| crate::llm::LlmSettings::from_loaded(loaded)),
        embeddings: if cfg.semantic_search_enabled {
            crate::context::semantic::provider::from_config(loaded)?
        } else {
            None
        },
    };
    let done = reflect::run(store, &playbook, cfg, &request)?;
    let nothing = nothing_to_learn(&done, store, req);
    let mut data = serde_json::to_value(&done).unwrap_or_default();
    data["dryRun"] = json!(req.dry_run);
    data["reflector"] = json!(if done.llm_refined > 0 {
        "deterministic+llm"
    } else {
        "deterministic"
    });
    let mut issues = serde_json::Map::new();
    if let Some(m) = &nothing {
        let issue = if req.session.is_some() && done.empty_sessions > 0 {
            json!({"code": "EMPTY_SESSION", "message": m, "fix": "nothing needed; reflect on it again once the session has messages"})
        } else {
            json!({"code": "NOTHING_TO_REFLECT", "message": m, "fix": "run `cm history index`, or install the post-session hook with `cm hooks install`"})
        };
        issues.insert("reflection".into(), issue);
    }
    if let Some(issue) = &done.llm_unavailable {
        issues.insert("llm".into(), json!(issue));
    }
    data["degraded"] = if issues.is_empty() {
        Value::Null
    } else {
        Value::Object(issues)
    };
    Ok(Reflecting {
        done,
        nothing,
        data,
    })
}

/// Index `path` (or every agent's new sessions) and return the file as the index names it.
fn index<'s>(
    path: Option<&Path>,
    loaded: &Loaded,
    open: &impl Fn() -> Result<&'s Store>,
) -> Result<Option<String>> {
    let connectors = crate::episodic::connectors::all();
    let refs: Vec<&dyn Connector> = connectors.iter().map(|c| c.as_ref()).collect();
    let request = IndexRequest {
        connectors: &refs,
        places: &crate::episodic::connectors::Places::of_process(),
        file: path,
        agent: None,
        full: false,
        threads: if path.is_some() { 1 } else { 0 },
        limits: index_sessions::limits(loaded)?,
        progress: None,
    };
    index_sessions::run(request, open)?;
    Ok(path.map(|p| {
        std::fs::canonicalize(p)
            .unwrap_or_else(|_| p.to_path_buf())
            .display()
            .to_string()
    }))
}

fn nothing_to_learn(done: &Reflected, store: &Store, args: &ReflectOn) -> Option<String> {
    if !done.sessions.is_empty() || done.already_reflected > 0 {
        return None;
    }
    if let (Some(p), true) = (&args.session, done.empty_sessions > 0) {
        return Some(format!(
            "{} is a transcript with no messages yet, so there is nothing to learn from",
            p.display()
        ));
    }
    if !crate::episodic::sessions::has_index(store) {
        return Some("no sessions are indexed yet, so there is nothing to learn from".into());
    }
    Some(match &args.session {
        Some(p) => format!("{} holds no session the index could read", p.display()),
        None => "no indexed session matches (try --days or --since for older ones)".into(),
    })
}
