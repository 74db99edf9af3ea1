//! cm-guard, the trauma guard: recognising destructive commands before an agent runs them.
//!
//! Pure functions, no I/O (except [`policy_file`], the one place that reads the user's guard
//! settings and traumas, [`trauma_cache`], its index of trauma files, [`config_cache`], the last guard settings
//! that parsed, and
//! [`user_traumas::load`]). The entry point is [`evaluate`]:
//!
//! 1. Quick reject ([`quick`]): one keyword scan for every pack's keywords (and the user's
//!    trauma keywords). No keyword, no further work: allow, with no regex ever compiled.
//! 2. Normalisation ([`normalize`]): the command line becomes the segments that would really
//!    run (wrappers stripped, nested shells, heredocs and interpreter code opened).
//! 3. Matching ([`matcher`]): only the packs whose keywords appeared, only the rules whose
//!    program/needle gates pass; each rule's regex is compiled on first use.
//! 4. Policy ([`policy`]): disabled packs, allow-list entries, healed traumas.

#![deny(missing_docs)]

mod code_forms;
mod code_shell;
mod computed;
pub mod config_cache;
pub mod expand;
mod git_options;
mod inert;
pub mod interactive;
mod interpreters;
mod lang;
mod limits;
mod literals;
mod made_here;
pub mod matcher;
pub mod normalize;
mod opaque;
pub mod packs;
mod pattern_size;
mod policy;
pub mod policy_file;
pub mod protected;
pub mod quick;
pub mod reason;
pub mod scan;
pub mod self_protect;
mod shell;
mod shell_view;
mod sql_text;
pub mod trauma_cache;
pub mod user_traumas;
mod wrappers;
pub mod writes;

pub use policy::{AllowEntry, AllowScope, Policy};

use serde::Serialize;

/// How bad a match is. Every severity blocks; `fatal` (user traumas only) also ignores the
/// allow-list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Destroys work that is hard but not impossible to get back.
    High,
    /// Irreversible loss.
    Critical,
    /// A user trauma the allow-list cannot override.
    Fatal,
}

impl Severity {
    /// The severity's name in answers (`high`, `critical`, `fatal`).
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::High => "high",
            Severity::Critical => "critical",
            Severity::Fatal => "fatal",
        }
    }
}

/// What matched.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Hit {
    /// Built-in pack name, or `user` for a user trauma.
    pub pack: String,
    /// `pack:rule` for built-ins, the trauma id for user traumas.
    pub rule: String,
    /// The normalised segment that matched.
    pub segment: String,
    /// The segment's language (`shell`, `python`, `sql`, ...).
    pub lang: &'static str,
    /// How bad running it would be.
    pub severity: Severity,
    /// What it would destroy, for the agent and the user.
    pub explanation: String,
    /// What to do instead.
    pub alternative: String,
    /// The regex source that matched (user traumas: the user's pattern).
    pub pattern: String,
}

/// Whether a command may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// It may run.
    Allow,
    /// It must not run.
    Deny,
}

/// The three answers a hook can give: run it, ask the user, refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Answer {
    /// Run it.
    Allow,
    /// Ask the user first.
    Ask,
    /// Refuse it.
    Deny,
}

impl Answer {
    /// The answer's name in hook output (`allow`, `ask`, `deny`).
    pub fn as_str(self) -> &'static str {
        match self {
            Answer::Allow => "allow",
            Answer::Ask => "ask",
            Answer::Deny => "deny",
        }
    }
}

/// The guard's answer for one command.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    /// Run it or not.
    pub verdict: Verdict,
    /// Deny: the blocking match. Allow: the first match an allow-list entry let through, if any.
    pub hit: Option<Hit>,
    /// Allow: which allow-list entry let `hit` through.
    pub allowed_by: Option<String>,
    /// The quick reject found no keyword; nothing was normalised or matched.
    pub quick_rejected: bool,
}

impl Decision {
    /// Whether the command is refused.
    pub fn is_deny(&self) -> bool {
        self.verdict == Verdict::Deny
    }

    /// What the agent is told where it can ask its user: a refused command whose rule is
    /// `high` (hard to undo, often intended) is asked about, a `critical` one denied.
    pub fn answer(&self) -> Answer {
        match (&self.verdict, &self.hit) {
            (Verdict::Allow, _) => Answer::Allow,
            (Verdict::Deny, Some(h)) if h.severity == Severity::High => Answer::Ask,
            (Verdict::Deny, _) => Answer::Deny,
        }
    }

    fn allow(quick_rejected: bool) -> Self {
        Decision {
            verdict: Verdict::Allow,
            hit: None,
            allowed_by: None,
            quick_rejected,
        }
    }
}

/// Decide whether `command` may run under `policy`, knowing nothing of where it runs.
pub fn evaluate(command: &str, policy: &Policy) -> Decision {
    evaluate_at(command, policy, &expand::Context::default())
}

/// Decide whether `command` may run under `policy`, run in the home and working directory of
/// `ctx` (so `$(pwd)`, `~+` and `cd ..; rm -rf *` name the places they do).
pub fn evaluate_at(command: &str, policy: &Policy, ctx: &expand::Context) -> Decision {
    let mask = policy.pack_mask();
    let scan = policy.scanner().scan(command);
    let packs = scan.packs & mask.any();
    let touched = packs != 0 || scan.computed;
    let traumas = policy.traumas_to_check(&scan, touched);
    if !touched && traumas.is_empty() {
        return Decision::allow(true);
    }
    let analysis = normalize::analyse_at(command, ctx);
    let segments = &analysis.segments;
    let (mut hits, late) = policy.trauma_hits_in_time(&traumas, segments);
    // A computed command word hides its keyword from the scan (`a=r; b=m; $a$b`): every
    // enabled pack then looks at what the line was read as.
    // What the line turned out to run (decoded payloads, joined string literals) may name
    // programs the raw line did not spell: each segment's text is scanned too.
    let packs = if scan.computed {
        mask.any()
    } else {
        segments.iter().fold(packs, |m, seg| {
            m | (quick::builtin().scan(&seg.text).packs & mask.any())
        })
    };
    let computed = &analysis.notes.computed;
    let rule_hits = |first_only: bool| {
        let mut found = matcher::pack_hits(segments, mask.only(packs), true, first_only);
        if !first_only || found.is_empty() {
            found.extend(computed::hits(computed, mask, first_only));
        }
        found
    };
    // Without allow-list entries the first critical hit decides; finding more costs regex
    // compiles. A first hit that is only high (asked, not refused) must not hide a critical one
    // later in the line, so then every hit is looked for.
    let first_only = policy.allow.is_empty();
    if !first_only || hits.is_empty() {
        let mut found = rule_hits(first_only);
        if first_only && found.iter().all(|h| h.severity < Severity::Critical) && !found.is_empty()
        {
            found = rule_hits(false);
        }
        hits.extend(found);
    }
    // A bound reached on a command worth reading leaves part of it unread: refused. So does
    // running out of time on traumas, on a command a pack's keyword touches.
    if let Some(limit) = analysis.notes.cut
        && (packs != 0 || !traumas.is_empty() || !computed.is_empty())
    {
        hits.push(limits::hit(limit, command));
    }
    if late && touched && hits.is_empty() {
        hits.push(limits::hit(limits::Limit::Time, command));
    }
    decide(command, hits, policy)
}

/// [`evaluate`] without the quick reject or any gate: every enabled rule's regex against every
/// segment. Slow; for tests that check the fast path never misses what this finds.
pub fn evaluate_exhaustive(command: &str, policy: &Policy) -> Decision {
    let segments = normalize::segments(command);
    let all = policy.all_active_traumas();
    let mut hits = policy.trauma_hits(&all, &segments);
    hits.extend(matcher::pack_hits(
        &segments,
        policy.pack_mask(),
        false,
        false,
    ));
    decide(command, hits, policy)
}

/// The most severe hit no allow-list entry lets through refuses the command (the first of
/// equals); with none, the first one an entry let through is reported.
fn decide(command: &str, hits: Vec<Hit>, policy: &Policy) -> Decision {
    let mut allowed: Option<(Hit, String)> = None;
    let mut refused: Option<Hit> = None;
    for hit in hits {
        match policy.allowed(command, &hit) {
            Some(by) => {
                allowed.get_or_insert((hit, by));
            }
            None if refused.as_ref().is_none_or(|r| hit.severity > r.severity) => {
                refused = Some(hit);
            }
            None => {}
        }
    }
    if let Some(hit) = refused {
        return Decision {
            verdict: Verdict::Deny,
            hit: Some(hit),
            allowed_by: None,
            quick_rejected: false,
        };
    }
    match allowed {
        Some((hit, by)) => Decision {
            verdict: Verdict::Allow,
            hit: Some(hit),
            allowed_by: Some(by),
            quick_rejected: false,
        },
        None => Decision::allow(false),
    }
}
