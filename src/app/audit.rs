//! `cm audit`: recent sessions that went against a rule of the playbook, or ran a command the
//! guard blocks (a destructive command, or one a trauma lists). Read-only: it reports, and
//! `cm mark ID --harmful` is the user's to give.

use crate::episodic::sessions::{self, Session};
use crate::error::Result;
use crate::guard;
use crate::memory::playbook::Playbook;
use crate::reflect::audit as checks;
use crate::reflect::transcript::Transcript;
use crate::store::Store;
use serde::Serialize;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Breach {
    pub rule: String,
    pub content: String,
    pub line: i64,
    pub command: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Blocked {
    pub line: i64,
    pub command: String,
    pub reason: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub agent: String,
    pub session_id: String,
    pub source_path: Option<String>,
    pub workspace: Option<String>,
    pub ended_at: Option<String>,
    pub against_rules: Vec<Breach>,
    pub guarded_commands: Vec<Blocked>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Audit {
    pub sessions_checked: usize,
    /// Live rules a command can show broken.
    pub rules_checked: usize,
    pub findings: Vec<Finding>,
}

/// A live rule a command can show broken, and where it holds.
struct Checked {
    id: String,
    content: String,
    check: checks::Check,
    /// A workspace rule holds only there.
    workspace: Option<String>,
    /// The sessions it was learned from: what happened there is why the rule exists.
    sources: Vec<String>,
}

impl Checked {
    fn applies_to(&self, s: &Session) -> bool {
        let in_scope = match (&self.workspace, &s.workspace) {
            (None, _) => true,
            (Some(k), Some(w)) => crate::workspace::contains(k, w),
            (Some(_), None) => false,
        };
        let learned_here = self
            .sources
            .iter()
            .any(|src| *src == s.session_id || s.source_path.as_deref() == Some(src.as_str()));
        in_scope && !learned_here
    }
}

/// Audit the sessions that ended since `since`.
pub fn run(store: &Store, playbook: &Playbook, since: &str, limit: usize) -> Result<Audit> {
    let rules: Vec<Checked> = playbook
        .load_all()?
        .into_iter()
        .map(|e| e.bullet)
        .filter(|b| b.is_live() && !b.is_anti_pattern())
        .filter_map(|b| {
            let check = checks::check_of(&b.content)?;
            Some(Checked {
                workspace: (b.scope == crate::memory::bullet::Scope::Workspace)
                    .then(|| b.scope_key.clone())
                    .flatten(),
                sources: b.source_sessions,
                id: b.id,
                content: b.content,
                check,
            })
        })
        .collect();
    let list: Vec<Session> = sessions::list(
        store,
        &sessions::Filter {
            ended_since: Some(since.to_string()),
            limit,
            ..Default::default()
        },
    )?;
    let mut policies: Vec<(Option<String>, guard::Policy)> = Vec::new();
    let mut findings = Vec::new();
    for s in &list {
        let messages = sessions::messages(store, &s.agent, &s.session_id, 0, i64::MAX)?;
        let t = Transcript::from_messages(&messages);
        let against_rules: Vec<Breach> = rules
            .iter()
            .filter(|r| r.applies_to(s))
            .flat_map(|r| {
                checks::breaches(&t, &r.check)
                    .into_iter()
                    .map(move |(line, command)| Breach {
                        rule: r.id.clone(),
                        content: r.content.clone(),
                        line,
                        command,
                    })
            })
            .collect();
        // The guard as it stands for that workspace (its repository's policy can only tighten).
        let ws = s.workspace.clone();
        if !policies.iter().any(|(w, _)| *w == ws) {
            let dir = ws
                .as_deref()
                .map(std::path::PathBuf::from)
                .unwrap_or_default();
            policies.push((ws.clone(), guard::policy_file::load(&dir).0));
        }
        let policy = &policies
            .iter()
            .find(|(w, _)| *w == ws)
            .expect("just added")
            .1;
        let at = guard::expand::Context::from_env(ws.as_deref().map(std::path::Path::new));
        let guarded_commands: Vec<Blocked> = t
            .tool_runs()
            .filter_map(|r| r.command.as_deref().map(|c| (r.line, c)))
            .filter_map(|(line, command)| {
                let d = guard::evaluate_at(command, policy, &at);
                d.is_deny().then(|| Blocked {
                    line,
                    command: command.to_string(),
                    reason: guard::reason::deny_reason(&d),
                })
            })
            .collect();
        if against_rules.is_empty() && guarded_commands.is_empty() {
            continue;
        }
        findings.push(Finding {
            agent: s.agent.clone(),
            session_id: s.session_id.clone(),
            source_path: s.source_path.clone(),
            workspace: s.workspace.clone(),
            ended_at: s.ended_at.clone(),
            against_rules,
            guarded_commands,
        });
    }
    Ok(Audit {
        sessions_checked: list.len(),
        rules_checked: rules.len(),
        findings,
    })
}
