//! Commands whose program name is computed when they run: `$a$b -rf ~`, `$(rev <<< mr) -rf ~`,
//! `/bin/r? -rf ~`. The guard cannot know what runs, so it judges the rest of the command as if
//! another program were in its place: for a glob, each program of the shell rules the glob
//! matches; for an expansion, each of [`STAND_INS`], programs whose rules read the arguments'
//! targets (`-rf ~`, `reset --hard`, `delete ns prod`). Rules that fire on short generic flags
//! (`wipefs -a`, `crontab -r`) would refuse `$CC -o app main.c` or `$TOOL -a`, so they are not
//! stand-ins; nor is a rule that fires on a program whatever its arguments (`shutdown`).

use super::normalize::{Lang, Segment, base_name};
use super::packs::{Mask, On, PACKS};
use super::{Hit, matcher};

/// The programs the enabled packs' shell rules name (a prefix rule, `mkfs*`, by its prefix).
fn programs(mask: Mask) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for (i, pack) in PACKS.iter().enumerate() {
        for rule in pack
            .rules
            .iter()
            .filter(|r| r.on == On::Lang(Lang::Shell) && mask.rule_on(i, r))
        {
            for p in rule.programs {
                let p = p.trim_end_matches('*');
                if !out.contains(&p) {
                    out.push(p);
                }
            }
        }
    }
    out
}

/// The programs put in place of a computed (expanded) program name.
const STAND_INS: &[&str] = &[
    "rm",
    "git",
    "chmod",
    "chown",
    "chgrp",
    "find",
    "mv",
    "dd",
    "shred",
    "kubectl",
    "terraform",
    "docker",
    "rsync",
];

/// Could the computed program `written` be `candidate`? An expansion, one of [`STAND_INS`]; a
/// glob, what it matches (`$(npm bin)/eslint` is `eslint`).
fn could_be(written: &str, candidate: &str) -> bool {
    let base = base_name(written);
    if base.contains(['$', '`']) || written.ends_with(')') {
        return STAND_INS.contains(&candidate);
    }
    globset::GlobBuilder::new(base)
        .literal_separator(true)
        .build()
        .map(|g| g.compile_matcher().is_match(candidate))
        .unwrap_or(true)
}

/// Rule matches for the computed commands `(program as written, arguments)`.
pub fn hits(computed: &[(String, String)], mask: Mask, first_only: bool) -> Vec<Hit> {
    if computed.is_empty() {
        return Vec::new();
    }
    let candidates = programs(mask);
    let mut hits = Vec::new();
    for (written, args) in computed {
        for cand in candidates.iter().filter(|c| could_be(written, c)) {
            let seg = Segment {
                lang: Lang::Shell,
                program: cand.to_string(),
                text: format!("{cand} {args}").trim_end().to_string(),
            };
            // A rule that fires on the program whatever its arguments (`shutdown`, `dropdb`)
            // says nothing about these arguments.
            let bare = Segment {
                text: format!("{cand} x"),
                ..seg.clone()
            };
            let by_name: Vec<String> =
                matcher::pack_hits(std::slice::from_ref(&bare), mask, true, false)
                    .into_iter()
                    .map(|h| h.rule)
                    .collect();
            let found = matcher::pack_hits(std::slice::from_ref(&seg), mask, true, false);
            for mut hit in found.into_iter().filter(|h| !by_name.contains(&h.rule)) {
                hit.explanation = format!(
                    "the program `{written}` is computed when the command runs, so the guard cannot see what it is; with `{cand}` in its place it {}",
                    hit.explanation
                );
                hit.alternative = format!(
                    "write the program name out (`{cand} ...`) so it can be checked, and {}",
                    hit.alternative
                );
                hits.push(hit);
                if first_only {
                    return hits;
                }
            }
        }
    }
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn denied(program: &str, args: &str) -> bool {
        !hits(&[(program.into(), args.into())], Mask::ALL, true).is_empty()
    }

    #[test]
    fn destructive_arguments_are_refused_whatever_runs_them() {
        assert!(denied("$a$b", "-rf ~"));
        assert!(denied("$(rev <<< mr)", "-rf ~"));
        assert!(denied("/bin/r?", "-rf ~"));
        assert!(denied("$X", "reset --hard"));
    }

    #[test]
    fn everyday_arguments_and_narrow_globs_pass() {
        assert!(!denied("$CC", "-o app main.c"));
        assert!(!denied("$EDITOR", "notes.txt"));
        assert!(!denied("$X", ""));
        // `l?` cannot be `rm`.
        assert!(!denied("/bin/l?", "-rf ~"));
    }
}
