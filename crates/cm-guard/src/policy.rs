//! The user's side of a decision: which packs are on, what is allow-listed, which traumas
//! apply. Plain data plus the pure checks [`crate::evaluate`] needs; reading it from
//! disk is [`super::policy_file`]'s job.

use super::normalize::{Lang, Segment};
use super::packs::{self, PACKS};
use super::quick::{self, Scan, Scanner};
use super::user_traumas::{self, Trauma};
use super::{Hit, Severity};
use once_cell::sync::OnceCell;
use regex::Regex;
use serde::{Deserialize, Serialize};

/// Where an allow-list entry applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum AllowScope {
    /// Everywhere.
    #[default]
    Global,
    /// In one project only.
    Project,
}

/// One allow-list entry: an exact command, a regex matched against the normalised segment, or
/// a rule id (`git:branch-force-delete`) or pack name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
pub struct AllowEntry {
    /// The exact command it allows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// A regex of commands it allows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// The rule (`pack:rule`) it lets through.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rule: Option<String>,
    /// Where it applies.
    pub scope: AllowScope,
    /// For a global-file entry with `scope: project`: the project directory it applies to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
    /// Why it was allowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl AllowEntry {
    /// The entry in a few words, for answers.
    pub fn describe(&self) -> String {
        let what = if let Some(c) = &self.command {
            format!("command {c:?}")
        } else if let Some(p) = &self.pattern {
            format!("pattern {p:?}")
        } else if let Some(r) = &self.rule {
            format!("rule {r}")
        } else {
            "empty entry".into()
        };
        let scope = match self.scope {
            AllowScope::Global => "global",
            AllowScope::Project => "project",
        };
        format!("allow-list ({scope}): {what}")
    }
}

/// A user trauma prepared for matching.
#[derive(Debug)]
pub struct PreparedTrauma {
    pub trauma: Trauma,
    /// Keywords for the quick reject; `None` = check every command.
    pub keywords: Option<Vec<String>>,
    regex: OnceCell<Option<Regex>>,
}

impl PreparedTrauma {
    pub fn new(trauma: Trauma) -> Self {
        PreparedTrauma {
            keywords: super::literals::required(&trauma.pattern),
            trauma,
            regex: OnceCell::new(),
        }
    }

    /// The compiled pattern; `None` when it is not a valid regex or outgrows the size limits
    /// (reported by the loader, [`compile`]).
    fn regex(&self) -> Option<&Regex> {
        self.regex
            .get_or_init(|| compile(&self.trauma.pattern).ok())
            .as_ref()
    }

    /// Whether its pattern was compiled on this call and failed (too large, or invalid).
    pub fn failed_to_compile(&self) -> bool {
        matches!(self.regex.get(), Some(None))
    }

    /// A keyword-less trauma from a repository's file: checked only on commands the packs'
    /// quick reject let through, so a cloned repository cannot add a regex to every call.
    fn gated(&self) -> bool {
        self.keywords.is_none() && self.trauma.scope == user_traumas::TraumaScope::Project
    }
}

/// Compiled size a trauma pattern may reach (`rm\w{20000}` compiles to megabytes and took 30 ms
/// each; over this it fails in well under a millisecond).
pub const TRAUMA_SIZE_LIMIT: usize = 256 << 10;

/// Compile a trauma pattern within [`TRAUMA_SIZE_LIMIT`] (program and lazy DFA cache alike).
/// A pattern whose parse alone shows it cannot fit is refused without compiling
/// ([`super::pattern_size`]).
pub fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    if let Ok(hir) = regex_syntax::parse(pattern)
        && super::pattern_size::surely_over(&hir, TRAUMA_SIZE_LIMIT)
    {
        return Err(regex::Error::CompiledTooBig(TRAUMA_SIZE_LIMIT));
    }
    regex::RegexBuilder::new(pattern)
        .size_limit(TRAUMA_SIZE_LIMIT)
        .dfa_size_limit(TRAUMA_SIZE_LIMIT)
        .build()
}

/// Everything that decides what the rules' matches mean for one call: packs on or off, the allow-list, traumas, fail-closed, protected paths.
#[derive(Debug, Default)]
pub struct Policy {
    /// Packs turned off.
    pub disabled_packs: Vec<String>,
    /// Named packs are on even when `disabled_packs` names them too.
    pub enabled_packs: Vec<String>,
    /// Entries that let a command or rule through.
    pub allow: Vec<AllowEntry>,
    /// Active traumas only (healed ones are dropped by [`Policy::set_traumas`]).
    traumas: Vec<PreparedTrauma>,
    /// Refuse a command the guard could not finish reading, instead of allowing it.
    pub fail_closed: bool,
    /// Globs of paths an agent's writes may not touch.
    pub protected_paths: Vec<String>,
    /// When trauma matching must stop (the hook's budget, counted from the start of the call
    /// so that reading the trauma files counts too); `None`: no limit.
    pub trauma_deadline: Option<std::time::Instant>,
    scanner: OnceCell<Scanner>,
    allow_regex: OnceCell<Vec<Option<Regex>>>,
}

impl Policy {
    /// Replace the traumas, keeping only those active at `now` (RFC 3339).
    pub fn set_traumas(&mut self, traumas: Vec<Trauma>, now: &str) {
        self.traumas = traumas
            .into_iter()
            .filter(|t| t.is_active(now))
            .map(PreparedTrauma::new)
            .collect();
        self.scanner = OnceCell::new();
    }

    /// The active traumas, prepared for matching.
    pub fn traumas(&self) -> &[PreparedTrauma] {
        &self.traumas
    }

    /// The quick-reject scanner: the shared built-in one unless traumas add keywords.
    pub fn scanner(&self) -> &Scanner {
        if self.traumas.iter().all(|t| t.keywords.is_none()) {
            return quick::builtin();
        }
        self.scanner.get_or_init(|| {
            let kws: Vec<Vec<String>> = self
                .traumas
                .iter()
                .map(|t| t.keywords.clone().unwrap_or_default())
                .collect();
            Scanner::with_traumas(&kws)
        })
    }

    /// Which rules of which packs run. A pack named in `enabled_packs` (or every pack, for
    /// `*`/`all` there) runs all its rules, even when `disabled_packs` names it; one named in
    /// `disabled_packs` alone runs none; otherwise a pack that ships on runs all its rules and
    /// one that ships off only its critical ones.
    pub fn pack_mask(&self) -> packs::Mask {
        let every = self.enabled_packs.iter().any(|e| e == "*" || e == "all");
        let mut mask = packs::Mask::default();
        for (i, p) in PACKS.iter().enumerate() {
            let named = self.enabled_packs.iter().any(|e| e == p.name);
            if self.disabled_packs.iter().any(|d| d == p.name) && !named {
                continue;
            }
            if p.default_on || named || every {
                mask.full |= 1 << i;
            } else {
                mask.critical |= 1 << i;
            }
        }
        mask
    }

    /// Does the rule behind `hit` run under this policy? (User traumas and the guard's own
    /// limits always do.)
    pub fn runs(&self, hit: &Hit) -> bool {
        let Some((i, pack)) = packs::by_name(&hit.pack) else {
            return true;
        };
        let id = hit.rule.split_once(':').map_or("", |(_, r)| r);
        pack.rules
            .iter()
            .find(|r| r.id == id)
            .is_none_or(|r| self.pack_mask().rule_on(i, r))
    }

    /// Traumas to check for this scan: those whose keyword appeared, and those without one
    /// (a repository's only when `packs_touched`: the packs' quick reject let the command
    /// through).
    pub fn traumas_to_check(&self, scan: &Scan, packs_touched: bool) -> Vec<usize> {
        let mut v: Vec<usize> = scan.traumas.clone();
        for (i, t) in self.traumas.iter().enumerate() {
            if t.keywords.is_none() && (packs_touched || !t.gated()) {
                v.push(i);
            }
        }
        v.sort_unstable();
        v.dedup();
        v
    }

    /// Every active trauma's position in [`Policy::traumas`].
    pub fn all_active_traumas(&self) -> Vec<usize> {
        (0..self.traumas.len()).collect()
    }

    /// Matches of the given traumas against the segments.
    pub fn trauma_hits(&self, which: &[usize], segments: &[Segment]) -> Vec<Hit> {
        self.trauma_hits_in_time(which, segments).0
    }

    /// [`Policy::trauma_hits`], stopping at [`Policy::trauma_deadline`] (at least one is always
    /// checked); also says whether it stopped before checking them all.
    pub fn trauma_hits_in_time(&self, which: &[usize], segments: &[Segment]) -> (Vec<Hit>, bool) {
        let mut hits = Vec::new();
        for (k, &i) in which.iter().enumerate() {
            if k > 0
                && self
                    .trauma_deadline
                    .is_some_and(|d| std::time::Instant::now() >= d)
            {
                return (hits, true);
            }
            let t = &self.traumas[i];
            let Some(re) = t.regex() else { continue };
            if let Some(seg) = segments
                .iter()
                .find(|s| s.lang != Lang::Line && re.is_match(&s.text))
            {
                let tr = &t.trauma;
                hits.push(Hit {
                    pack: "user".into(),
                    rule: tr.id.clone(),
                    segment: seg.text.clone(),
                    lang: seg.lang.name(),
                    severity: match tr.severity {
                        user_traumas::Severity::Critical => Severity::Critical,
                        user_traumas::Severity::Fatal => Severity::Fatal,
                    },
                    explanation: tr.message.clone().unwrap_or_else(|| {
                        "the user marked this command as one that hurt them before".into()
                    }),
                    alternative: "ask the user how they want this done".into(),
                    pattern: tr.pattern.clone(),
                });
            }
        }
        (hits, false)
    }

    /// The allow-list entry that lets `hit` through, described; `None` when it stays blocked.
    /// Fatal traumas ignore the allow-list.
    pub fn allowed(&self, command: &str, hit: &Hit) -> Option<String> {
        if hit.severity == Severity::Fatal || self.allow.is_empty() {
            return None;
        }
        let regexes = self.allow_regex.get_or_init(|| {
            self.allow
                .iter()
                .map(|a| a.pattern.as_ref().and_then(|p| Regex::new(p).ok()))
                .collect()
        });
        let whole = collapse(command);
        for (entry, re) in self.allow.iter().zip(regexes) {
            let by_command = entry
                .command
                .as_ref()
                .is_some_and(|c| collapse(c) == whole || collapse(c) == collapse(&hit.segment));
            let by_pattern = re.as_ref().is_some_and(|r| r.is_match(&hit.segment));
            let by_rule = entry
                .rule
                .as_ref()
                .is_some_and(|r| *r == hit.rule || *r == hit.pack);
            if by_command || by_pattern || by_rule {
                return Some(entry.describe());
            }
        }
        None
    }

    /// Every built-in pack with its state under this policy: `on` (every rule), `critical`
    /// (a pack that ships off: its critical rules only) or `off`.
    pub fn packs_state(&self) -> Vec<(&'static str, &'static str)> {
        let mask = self.pack_mask();
        PACKS
            .iter()
            .enumerate()
            .map(|(i, p)| {
                let state = if mask.full & (1 << i) != 0 {
                    "on"
                } else if mask.critical & (1 << i) != 0 {
                    "critical"
                } else {
                    "off"
                };
                (p.name, state)
            })
            .collect()
    }

    /// Is `name` a built-in pack?
    pub fn is_pack(name: &str) -> bool {
        packs::by_name(name).is_some()
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
