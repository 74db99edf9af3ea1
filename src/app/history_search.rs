//! Full-text search over the indexed sessions, plus configured remote hosts (`cm history
//! search`, the MCP `memory_search` tool's history half).
//!
//! No index yet is not an error: the answer says so in `degraded.history`, as `degraded.remote`
//! names every remote host that could not be searched (the `degraded` shape every command
//! uses). A limit of 0 returns no hits. Titles and snippets reach agents, so they are sanitized
//! here as the context's are.

use crate::config::Loaded;
use crate::degraded::{Degraded, Issue};
use crate::episodic::connectors;
use crate::episodic::model::{Hit, Role, SearchQuery};
use crate::episodic::{remote, search};
use crate::error::{CmError, Result};
use crate::store::Store;
use serde_json::{Value, json};

/// What to look for, where, and how to rank it.
#[derive(Debug, Clone, Default)]
pub struct HistorySearchRequest {
    pub query: String,
    /// Most hits to return (0: none, the search still runs for its degraded notes).
    pub limit: usize,
    /// Only messages from the last N days.
    pub days: Option<u32>,
    /// Only this agent's sessions (a slug cm has a connector for).
    pub agent: Option<String>,
    /// Only sessions in this workspace or a directory under it.
    pub workspace: Option<String>,
    /// Only messages with this role (user, assistant, tool, system).
    pub role: Option<String>,
    /// Search the configured remote hosts too.
    pub remote: bool,
    /// Whether the association layer may widen the query (config `history.associations`).
    pub associations: bool,
    pub options: search::Options,
}

/// The hits, best first, and how they were found.
#[derive(Debug)]
pub struct HistorySearchAnswer {
    pub query: SearchQuery,
    pub hits: Vec<Hit>,
    pub degraded: Degraded,
    pub outcome: search::Outcome,
    explain: bool,
}

impl HistorySearchAnswer {
    /// The JSON `cm history search --json` answers with (its `data`).
    pub fn to_json(&self) -> Value {
        let o = &self.outcome;
        let mut data = json!({
            "query": self.query.query,
            "count": self.hits.len(),
            "hits": self.hits,
            "degraded": self.degraded.to_json(),
            "ranking": {
                "strategy": o.strategy,
                "terms": o.terms,
                "termsDropped": o.terms_dropped,
                "expanded": o.expanded,
                "feedback": o.feedback,
                "scored": o.scored,
            },
        });
        if self.explain {
            data["plans"] = json!(o.plans);
        }
        data
    }
}

/// A validated agent filter for queries: one of the agents cm has a connector for (every
/// machine running this version indexes the same agents), lower-cased; none when empty.
pub fn agent_filter(agent: Option<&str>) -> Result<Option<String>> {
    let Some(want) = agent
        .map(|a| a.trim().to_ascii_lowercase())
        .filter(|a| !a.is_empty())
    else {
        return Ok(None);
    };
    let all = connectors::all();
    let known: Vec<&str> = all.iter().map(|c| c.slug()).collect();
    if !known.contains(&want.as_str()) {
        return Err(CmError::usage(
            "UNKNOWN_AGENT",
            format!("no connector for agent \"{want}\""),
        )
        .hint(format!("known agents: {}", known.join(", "))));
    }
    Ok(Some(want))
}

/// Search `store` (none: no index file yet) and the remote hosts `loaded` configures.
pub fn answer(
    store: Option<&Store>,
    loaded: &Loaded,
    req: &HistorySearchRequest,
) -> Result<HistorySearchAnswer> {
    let role = match req.role.as_deref() {
        None => None,
        Some(r) => Some(Role::parse(r).ok_or_else(|| {
            CmError::usage("INVALID_ROLE", format!("unknown role \"{r}\""))
                .hint("use one of: user, assistant, tool, system")
        })?),
    };
    let q = SearchQuery {
        query: req.query.clone(),
        limit: req.limit.max(1),
        days: req.days,
        agent: agent_filter(req.agent.as_deref())?,
        workspace: req.workspace.clone(),
        role,
    };
    let mut degraded = Degraded::default();
    let mut opts = req.options;
    opts.no_expand = opts.no_expand || !req.associations;
    let outcome = local(&q, opts, store, &mut degraded)?;
    if let Some(stage) = outcome.cut {
        degraded.history = Some(Issue::new(
            "SEARCH_CUT",
            &format!(
                "the search was stopped during its {stage} stage; the hits are those found by then"
            ),
            "search again; if it keeps happening run `cm doctor`",
        ));
    }
    let mut outcome = outcome;
    let mut hits = std::mem::take(&mut outcome.hits);
    if req.remote {
        let cfg: remote::RemoteConfig = loaded.section("remoteCass")?;
        let (remote_hits, failures) = remote::search_all(&cfg, &q);
        hits.extend(remote_hits);
        if !failures.is_empty() {
            let which: Vec<String> = failures
                .iter()
                .map(|f| format!("{}: {}", f.host, f.reason))
                .collect();
            degraded.remote = Some(Issue::new(
                "REMOTE_UNREACHABLE",
                &format!("remote history unavailable from {}", which.join("; ")),
                "check `ssh -o BatchMode=yes HOST cm --version` works, or remove the host from remoteCass.hosts",
            ));
        }
        if cfg.enabled && !cfg.hosts.is_empty() {
            hits.sort_by(|a, b| b.score.total_cmp(&a.score));
            hits.truncate(q.limit);
        }
    }
    // The engine always looks for at least one hit; a limit of 0 asks for none.
    hits.truncate(req.limit);
    for h in &mut hits {
        crate::context::sanitize::hit(h);
    }
    Ok(HistorySearchAnswer {
        query: q,
        hits,
        degraded,
        outcome,
        explain: req.options.explain,
    })
}

fn local(
    q: &SearchQuery,
    opts: search::Options,
    store: Option<&Store>,
    degraded: &mut Degraded,
) -> Result<search::Outcome> {
    let Some(store) = store.filter(|s| crate::episodic::sessions::has_index(s)) else {
        degraded.history = Some(no_index());
        return Ok(search::Outcome::default());
    };
    if !opts.no_expand {
        degraded.associations = associations_issue(store);
    }
    search::run(store, q, opts)
}

/// The association layer not built, or behind the index: searches are not widened (or only
/// with what it learned so far) until `cm history index` catches it up.
fn associations_issue(store: &Store) -> Option<Issue> {
    let status = match crate::episodic::assoc::status(store) {
        Ok(s) => s,
        Err(_) => {
            return Some(Issue::new(
                "ASSOCIATIONS_UNREADABLE",
                "the term associations could not be read; searches are not widened",
                "run `cm history index`; if it persists run `cm doctor`",
            ));
        }
    };
    if !status.built() {
        return Some(Issue::new(
            "ASSOCIATIONS_NOT_BUILT",
            "term associations have not been learned from the index yet; searches are not widened",
            "run `cm history index` (it learns from what is already indexed)",
        ));
    }
    status.behind().then(|| {
        Issue::new(
            "ASSOCIATIONS_BEHIND",
            "term associations have not learned from the newest indexed messages yet",
            "run `cm history index`",
        )
    })
}

fn no_index() -> Issue {
    Issue::new(
        "NO_INDEX",
        "no sessions are indexed yet",
        "run `cm history index`",
    )
}
