//! Place: how where a rule was learned relates to where the task runs. Pure.
//!
//! `place` multiplies a rule's final score (docs/context.md, "Place"):
//! - 1.5 for a rule of the current repository's `.cass/playbook.yaml`, or scoped by hand to this
//!   workspace; a rule scoped by hand to another workspace weighs 0.5 and is shown only when its
//!   relevance is at least [`STRONG_EVIDENCE`];
//! - inferred from the rule's sessions: [`HERE`] when it was learned or helped in this workspace
//!   (or a directory inside it), shown only when its support reaches [`PLACE_FLOOR`] (the
//!   relevance floor: a rule shares its project's words with any task of that project by
//!   chance, so a weak match there is no sign it applies, and it must not crowd an unrelated
//!   task; its support is its relevance with its text's coverage counted at a quarter,
//!   [`crate::context::rank::Candidate::situation_support`]); [`ELSEWHERE`] when it was learned only in
//!   other workspaces, and then only with support at least [`STRONG_EVIDENCE`] (another
//!   project's rules share a task's everyday words by chance, and a project's rules hold the
//!   words of its own sessions: a weak match from elsewhere crowded out this workspace's rules,
//!   issue 25); [`OTHER_STACK`] when, in addition, none of the language or tool stacks its
//!   sessions touched is one this workspace uses;
//! - 1 for a rule with no known place, or when the task's workspace is unknown.

use crate::memory::bullet::{Bullet, Scope};

pub const SCOPE_BOOST: f64 = 1.5;
pub const OTHER_WORKSPACE: f64 = 0.5;
pub const HERE: f64 = 1.5;
pub const ELSEWHERE: f64 = 0.5;
pub const OTHER_STACK: f64 = 0.4;
/// Support a rule learned or helped in this workspace needs to be shown (the relevance floor).
/// 0.22: on the recall suites the steps from 0.2 to 0.22 drop about two unrelated tasks for each
/// follow-up; past it, about one for one (docs/context.md, "Round 4").
pub const PLACE_FLOOR: f64 = 0.22;
/// Relevance a rule of another workspace's scope needs to be shown, and support a rule learned
/// only in other workspaces needs.
pub const STRONG_EVIDENCE: f64 = 0.45;

/// How well a rule's signals support showing it: `here` is what the relevance floor of a rule
/// learned in this workspace reads (its text counted at a quarter,
/// [`crate::context::rank::Candidate::situation_support`]), `elsewhere` what a rule learned only
/// in other workspaces needs to reach [`STRONG_EVIDENCE`]. Each is at most the relevance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Support {
    pub here: f64,
    pub elsewhere: f64,
}

impl Support {
    /// The same support for both.
    pub fn both(x: f64) -> Support {
        Support {
            here: x,
            elsewhere: x,
        }
    }
}

/// Where a rule was learned or helped (from its sessions).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Places {
    pub workspaces: Vec<String>,
    pub stacks: Vec<String>,
}

/// Where the task runs.
#[derive(Debug, Clone, Copy)]
pub struct Here<'a> {
    pub workspace: Option<&'a str>,
    /// The stacks the workspace uses (its files, and its rules' sessions); empty when unknown.
    pub stacks: &'a [String],
}

/// A rule's place factor, why, and whether it may be shown at all.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub factor: f64,
    pub note: Option<String>,
    pub admitted: bool,
}

impl Verdict {
    fn plain() -> Verdict {
        Verdict {
            factor: 1.0,
            note: None,
            admitted: true,
        }
    }
    fn of(factor: f64, note: impl Into<String>, admitted: bool) -> Verdict {
        Verdict {
            factor,
            note: Some(note.into()),
            admitted,
        }
    }
}

/// Whether two workspace paths are the same place: equal, or one inside the other (by path
/// components).
pub fn related(a: &str, b: &str) -> bool {
    crate::workspace::contains(a, b) || crate::workspace::contains(b, a)
}

/// The place verdict for rule `b` of relevance `relevance` and support `support` (each at most
/// its relevance).
pub fn verdict(
    b: &Bullet,
    from_repo: bool,
    places: &Places,
    here: Here,
    relevance: f64,
    support: Support,
) -> Verdict {
    if from_repo {
        return Verdict::of(SCOPE_BOOST, "rule of this repository", true);
    }
    if b.scope == Scope::Workspace {
        let same = match (b.scope_key.as_deref(), here.workspace) {
            (Some(k), Some(w)) => crate::context::rank::same_workspace(k, w),
            _ => false,
        };
        return if same {
            Verdict::of(SCOPE_BOOST, "rule of this workspace", true)
        } else {
            Verdict::of(
                OTHER_WORKSPACE,
                "rule of another workspace",
                relevance >= STRONG_EVIDENCE,
            )
        };
    }
    let Some(w) = here.workspace else {
        return Verdict::plain();
    };
    if places.workspaces.is_empty() {
        return Verdict::plain();
    }
    if places.workspaces.iter().any(|p| related(p, w)) {
        return if support.here >= PLACE_FLOOR {
            Verdict::of(HERE, "learned or helped in this workspace", true)
        } else {
            Verdict::of(
                1.0,
                format!(
                    "learned or helped in this workspace, below its relevance floor ({PLACE_FLOOR})"
                ),
                false,
            )
        };
    }
    let shared_stack = places.stacks.iter().any(|s| here.stacks.contains(s));
    if !places.stacks.is_empty() && !here.stacks.is_empty() && !shared_stack {
        return Verdict::of(
            OTHER_STACK,
            format!(
                "learned in another workspace, for {}",
                places.stacks.join(", ")
            ),
            support.elsewhere >= STRONG_EVIDENCE,
        );
    }
    Verdict::of(
        ELSEWHERE,
        "learned in another workspace",
        support.elsewhere >= STRONG_EVIDENCE,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A task in /home/dev/cli, which uses `stacks`.
    fn cli(stacks: &[String]) -> Here<'_> {
        Here {
            workspace: Some("/home/dev/cli"),
            stacks,
        }
    }

    fn placed(ws: &[&str], stacks: &[&str]) -> Places {
        Places {
            workspaces: ws.iter().map(|s| s.to_string()).collect(),
            stacks: stacks.iter().map(|s| s.to_string()).collect(),
        }
    }

    #[test]
    fn this_workspace_shows_only_what_reaches_the_floor() {
        let b = Bullet::default();
        let rust = vec!["rust".to_string()];
        let here = cli(&rust);
        let p = placed(&["/home/dev/cli/crates/core"], &["rust"]);
        assert_eq!(
            verdict(&b, false, &p, here, 0.3, Support::both(0.3)).factor,
            HERE
        );
        let weak = verdict(&b, false, &p, here, 0.25, Support::both(0.15));
        assert_eq!((weak.factor, weak.admitted), (1.0, false));
    }

    #[test]
    fn another_stack_needs_strong_evidence() {
        let b = Bullet::default();
        let rust = vec!["rust".to_string()];
        let here = cli(&rust);
        let tf = placed(&["/home/dev/infra"], &["terraform"]);
        let v = verdict(&b, false, &tf, here, 0.3, Support::both(0.3));
        assert_eq!((v.factor, v.admitted), (OTHER_STACK, false));
        assert!(verdict(&b, false, &tf, here, 0.5, Support::both(0.5)).admitted);
        // A relevance that rests on one shared word (support below it) is not enough.
        assert!(!verdict(&b, false, &tf, here, 0.5, Support::both(0.3)).admitted);
        let rs = placed(&["/home/dev/other-cli"], &["rust"]);
        let v = verdict(&b, false, &rs, here, 0.5, Support::both(0.5));
        assert_eq!((v.factor, v.admitted), (ELSEWHERE, true));
        let unplaced = Places::default();
        assert_eq!(
            verdict(&b, false, &unplaced, here, 0.3, Support::both(0.3)),
            Verdict::plain()
        );
    }

    #[test]
    fn a_rule_learned_only_elsewhere_needs_strong_support_whatever_its_stack() {
        let b = Bullet::default();
        let rust = vec!["rust".to_string()];
        let here = cli(&rust);
        // The same stack, or stacks unknown on either side: still another project's rule.
        for p in [
            placed(&["/home/dev/other-cli"], &["rust"]),
            placed(&["/home/dev/other-cli"], &[]),
        ] {
            let weak = verdict(&b, false, &p, here, 0.3, Support::both(0.3));
            assert_eq!((weak.factor, weak.admitted), (ELSEWHERE, false));
            assert!(
                verdict(
                    &b,
                    false,
                    &p,
                    here,
                    STRONG_EVIDENCE,
                    Support::both(STRONG_EVIDENCE)
                )
                .admitted
            );
        }
        // A rule of this workspace at the same support is shown, and weighs more.
        let mine = verdict(
            &b,
            false,
            &placed(&["/home/dev/cli"], &[]),
            here,
            0.3,
            Support::both(0.3),
        );
        assert!(mine.admitted && mine.factor > ELSEWHERE);
    }

    #[test]
    fn related_is_by_components() {
        assert!(related("/w/app", "/w/app/"));
        assert!(related("/w/app/sub", "/w/app"));
        assert!(!related("/w/application", "/w/app"));
    }
}
