//! The built-in pattern packs, as tables.
//!
//! A pack is a named group of rules with the keywords that any of its rules needs; the quick
//! reject scans a command for every pack's keywords at once, and only packs whose keywords
//! appear are examined further. Each rule is gated twice before its regex is compiled or run:
//! by the program that starts the segment (`programs`, for shell rules) and by literal text the
//! segment must contain (`needles`, lowercase). A test checks that every program and needle
//! contains one of its pack's keywords, which is what makes the quick reject sound.
//!
//! Regex sources may use the placeholders in [`PLACEHOLDERS`] (shared path and flag shapes);
//! they are expanded when the regex is first compiled.

mod api;
mod backup;
mod cdn;
mod ci;
mod cloud;
mod containers;
mod database;
mod disk;
mod dns;
mod filesystem;
mod git;
mod messaging;
mod opaque;
mod platform;
mod registry;
mod remote;
mod search;
mod secrets;
mod storage;
mod system;
mod volumes;

use super::Severity;
use super::normalize::Lang;

/// Where a rule looks: segments of one language. [`Lang::Line`] segments are whole command
/// lines with quoted text blanked, for shapes that splitting would destroy (a fork bomb).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// Segments in this language.
    Lang(Lang),
}

/// One built-in rule: which segments it looks at, what it matches, and what to say.
#[derive(Debug)]
pub struct Rule {
    /// Stable id, unique within the pack (`reset-hard`); reported as `pack:id`.
    pub id: &'static str,
    /// How bad a match is.
    pub severity: Severity,
    /// Which segments it is matched against.
    pub on: On,
    /// Shell rules: the segment's program must be one of these (`mkfs*` matches a prefix).
    pub programs: &'static [&'static str],
    /// Lowercase text the segment must contain (any one). Empty: no requirement.
    pub needles: &'static [&'static str],
    /// The pattern (with the pack placeholders, expanded at build time).
    pub regex: &'static str,
    /// The rule does not fire when this also matches the segment (a dry-run flag, ...).
    pub unless: Option<&'static str>,
    /// The rule fires only when this matches the segment too (flags and targets that may
    /// come in any order are two small regexes rather than one large one).
    pub and: Option<&'static str>,
    /// Why it is dangerous.
    pub why: &'static str,
    /// What to do instead.
    pub instead: &'static str,
}

/// A shell rule on `programs` with neither `unless` nor `and`: the common shape of the estate's
/// packs (`Rule { unless: Some(..), ..shell(..) }` adds one).
pub const fn shell(
    id: &'static str,
    severity: Severity,
    programs: &'static [&'static str],
    needles: &'static [&'static str],
    regex: &'static str,
    why: &'static str,
    instead: &'static str,
) -> Rule {
    Rule {
        id,
        severity,
        on: On::Lang(Lang::Shell),
        programs,
        needles,
        regex,
        unless: None,
        and: None,
        why,
        instead,
    }
}

/// A named set of rules for one kind of estate (filesystem, git, cloud, ...).
#[derive(Debug)]
pub struct Pack {
    /// The pack's name (`core.git`, `database`, ...).
    pub name: &'static str,
    /// What it covers, for `cm guard packs`.
    pub description: &'static str,
    /// On by default. A pack that ships off still runs its critical rules (irreversible data
    /// loss); enabling it (`enabledPacks`, `cm guard packs enable`) adds the rest.
    pub default_on: bool,
    /// Lowercase; the quick reject looks for these anywhere in the command.
    pub keywords: &'static [&'static str],
    /// Its rules.
    pub rules: &'static [Rule],
}

/// Every built-in pack, in evaluation order.
pub static PACKS: &[&Pack] = &[
    &filesystem::PACK,
    &git::PACK,
    &database::PACK,
    &disk::PACK,
    &containers::PACK,
    &cloud::PACK,
    &system::PACK,
    &opaque::PACK,
    &backup::PACK,
    &secrets::PACK,
    &messaging::PACK,
    &search::PACK,
    &storage::PACK,
    &volumes::PACK,
    &dns::PACK,
    &cdn::PACK,
    &ci::PACK,
    &platform::PACK,
    &registry::PACK,
    &remote::PACK,
    &api::PACK,
];

/// Which rules of which packs run: bit i of `full` = every rule of `PACKS[i]`, of `critical`
/// = only its critical rules (a pack that ships off, not enabled).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Mask {
    /// Packs whose every rule applies (a bit per pack).
    pub full: u32,
    /// Packs whose critical rules alone apply.
    pub critical: u32,
}

impl Mask {
    /// Every rule of every pack.
    pub const ALL: Mask = Mask {
        full: u32::MAX,
        critical: u32::MAX,
    };

    /// Packs with at least one rule on.
    pub fn any(self) -> u32 {
        self.full | self.critical
    }

    /// The same, restricted to the packs in `packs`.
    pub fn only(self, packs: u32) -> Mask {
        Mask {
            full: self.full & packs,
            critical: self.critical & packs,
        }
    }

    /// Does rule `rule` of pack `pack_i` run?
    pub fn rule_on(self, pack_i: usize, rule: &Rule) -> bool {
        let bit = 1u32 << pack_i;
        self.full & bit != 0
            || (self.critical & bit != 0
                && matches!(
                    rule.severity,
                    super::Severity::Critical | super::Severity::Fatal
                ))
    }
}

/// The pack named `name` and its position in [`PACKS`].
pub fn by_name(name: &str) -> Option<(usize, &'static Pack)> {
    PACKS
        .iter()
        .enumerate()
        .find(|(_, p)| p.name == name)
        .map(|(i, p)| (i, *p))
}

/// Placeholders usable in rule regexes.
pub const PLACEHOLDERS: &[(&str, &str)] = &[
    // A recursive flag of rm/chmod/chown/cp.
    ("@R@", r"(?:-[a-zA-Z]*[rR][a-zA-Z]*|--recursive)"),
    // A Node package runner before a tool (`npx`, `pnpm exec`, `yarn dlx`, `npm run x --`).
    (
        "@NODERUN@",
        r"(?:(?:npx|pnpm|yarn|bunx|bun|npm)\s+(?:-\S+\s+)*(?:exec\s+|dlx\s+|x\s+|run\s+|run-script\s+)?(?:-\S+\s+)*)?",
    ),
    // Root, system directories (and a few of their direct children), a home directory.
    (
        "@ROOTS@",
        r"(?:/+\.?|/+\*|/+(?:bin|boot|dev|etc|home|lib|lib32|lib64|libx32|media|mnt|opt|proc|root|run|sbin|snap|srv|sys|usr|var|Applications|Library|System|Users|Volumes|private)(?:/+\*?)?|/+usr/+(?:bin|lib|lib64|local|sbin|share|include)/*\*?|/+var/+(?:lib|log|www|mail|spool|backups|db)/*\*?|/+(?:home|Users)/+[^/\s']+/*\*?|~[\w.-]*/*\*?|(?:\$HOME|\$\{HOME\})/*\*?)",
    ),
    // A top-level dot-directory or dot-file of the home directory.
    ("@HOMEDOT@", r"(?:(?:~|\$HOME|\$\{HOME\})/+\.[^/\s']*/*\*?)"),
    // A direct child of the home directory (`~/Documents`, `~/projects`).
    // (Also spelled from /home or /Users: `/home/dev/code`.)
    (
        "@HOMETOP@",
        r"(?:(?:~|\$HOME|\$\{HOME\})/+[^/\s']+/*|/+(?:home|Users)/+[^/\s']+/+[^/\s'.][^/\s']*/*)",
    ),
    // A folder at least two levels below the home directory (`~/code/app`, `~/.local/share/x`);
    // a last part with a dot in it is taken for a file (`~/Documents/report.pdf`).
    (
        "@HOMEDEEP@",
        r"(?:(?:~|\$HOME|\$\{HOME\})/+|/+(?:home|Users)/+[^/\s']+/+)[^/\s']+/+(?:[^/\s']+/+)*[^/\s'.*][^/\s'.*]*/*",
    ),
    // The parent directory and its ancestors.
    ("@PARENT@", r"(?:\.\.(?:/+\.\.)*/*\*?)"),
    // Everything in the working directory.
    ("@CWD@", r"(?:\./*\*?|\*)"),
    // A variable followed by a slash: `$DIR/` is `/` when DIR is empty.
    ("@VARROOT@", r"(?:\$\{?[A-Za-z_]\w*\}?/+\*?)"),
    // `git` and its global options (and redirections: `git >/dev/null reset`), up to the
    // subcommand.
    (
        "@GIT@",
        r"^git(?:\s+(?:-[Cc]\s+\S+|--(?:git-dir|work-tree|namespace|exec-path|config-env)\s+\S+|-\S+|\d*[<>]{1,2}&?\s*\S+))*\s+",
    ),
    // A block device.
    (
        "@BLOCKDEV@",
        r"/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|rdisk|md|dm-|mapper/|nbd|loop)\S*",
    ),
    // In interpreter code: a string literal naming a dangerous path: the root or any top-level
    // directory, the home directory or one of its dot-directories, the working or parent
    // directory, a user's home, anything under a system directory (`/var/www`, `/srv/app/data`,
    // as `rm -r` in the shell). (Any top-level directory rather than a list of system ones: the
    // list's alternation cost a hook ~25 us to compile, and no project lives at `/name`.)
    (
        "@LITDANGER@",
        r#"['"`](?:/+[^/'"`]*/*|~(?:/+\*?)?|~/+\.[^'"`/]*/*|\.\.?/*|/+(?:home|Users)/+[^/'"`]+/*|/+(?:etc|usr|srv|opt|boot|root|var/+(?:lib|www|log|mail|spool|backups|db|opt))(?:/+[^'"`]*)?)['"`]"#,
    ),
    // ...or an expression for the home directory, per language.
    (
        "@PYHOME@",
        r"os\.path\.expanduser\(|os\.environ|os\.getenv\(|Path\.home\(",
    ),
    (
        "@JSHOME@",
        r"os\.homedir\(|homedir\(\)|process\.env\.HOME|Deno\.env\.get\(.HOME|Deno\.homeDir\(",
    ),
    ("@RBHOME@", r"Dir\.home|ENV\[|File\.expand_path\("),
    ("@PLHOME@", r"\$ENV\{HOME\}"),
];

/// A rule's regex source with placeholders expanded.
pub fn expand(src: &str) -> String {
    let mut s = src.to_string();
    for (name, value) in PLACEHOLDERS {
        if s.contains(name) {
            s = s.replace(name, value);
        }
    }
    s
}

/// Total number of rules (the compiled-regex cache is indexed by position).
pub fn rule_count() -> usize {
    PACKS.iter().map(|p| p.rules.len()).sum()
}

/// The cache index of the first rule of pack `i`.
pub fn offset(i: usize) -> usize {
    PACKS[..i].iter().map(|p| p.rules.len()).sum()
}

/// Does the segment's program pass the rule's program gate?
pub fn program_matches(rule: &Rule, program: &str) -> bool {
    rule.programs.is_empty()
        || rule.programs.iter().any(|p| match p.strip_suffix('*') {
            Some(prefix) => program.starts_with(prefix),
            None => *p == program,
        })
}

/// The table of every pack and rule that docs/guard.md carries between its `packs:begin` and
/// `packs:end` markers (a test keeps the two equal; `UPDATE_DOCS=1` rewrites the doc's copy).
#[cfg(test)]
pub fn doc_table() -> String {
    let mut s = String::from(
        "| pack | ships | rule | severity | answer | why |\n|---|---|---|---|---|---|\n",
    );
    for pack in PACKS {
        for r in pack.rules {
            let critical = matches!(r.severity, Severity::Critical | Severity::Fatal);
            let ships = match (pack.default_on, critical) {
                (true, _) => "on",
                (false, true) => "on (critical)",
                (false, false) => "off",
            };
            let (severity, answer) = if critical {
                ("critical", "deny")
            } else {
                ("high", "ask")
            };
            s.push_str(&format!(
                "| {} | {ships} | `{}` | {severity} | {answer} | {} |\n",
                pack.name,
                r.id,
                r.why.replace('|', "\\|")
            ));
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_doc_lists_every_pack_and_rule() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../docs/guard.md");
        let doc = std::fs::read_to_string(path).unwrap();
        let (begin, end) = ("<!-- packs:begin -->\n", "<!-- packs:end -->");
        let start = doc
            .find(begin)
            .expect("docs/guard.md has a packs:begin marker")
            + begin.len();
        let stop = doc.find(end).expect("docs/guard.md has a packs:end marker");
        let want = doc_table();
        if std::env::var_os("UPDATE_DOCS").is_some() {
            std::fs::write(path, format!("{}{want}{}", &doc[..start], &doc[stop..])).unwrap();
            return;
        }
        assert!(
            doc[start..stop] == want,
            "docs/guard.md's rule table is out of date: run `UPDATE_DOCS=1 cargo test --lib the_doc_lists_every_pack_and_rule`"
        );
    }

    #[test]
    fn every_rule_compiles_and_ids_are_unique() {
        for pack in PACKS {
            let mut ids = std::collections::HashSet::new();
            for r in pack.rules {
                assert!(ids.insert(r.id), "duplicate id {}:{}", pack.name, r.id);
                crate::matcher::build(r.regex)
                    .unwrap_or_else(|e| panic!("{}:{}: {e}", pack.name, r.id));
                for extra in [r.unless, r.and].into_iter().flatten() {
                    crate::matcher::build(extra).unwrap();
                }
                assert!(
                    !expand(r.regex).contains('@'),
                    "{}:{} unknown placeholder",
                    pack.name,
                    r.id
                );
                assert!(!r.why.is_empty() && !r.instead.is_empty());
            }
        }
        assert!(rule_count() <= super::super::matcher::MAX_RULES);
    }

    /// The quick reject only finds packs by keyword; a rule is only reachable through its
    /// program or needle gate; so every gate must contain a keyword of the pack.
    #[test]
    fn every_gate_contains_a_pack_keyword() {
        for pack in PACKS {
            for r in pack.rules {
                let gates: Vec<&str> = if r.programs.is_empty() {
                    r.needles.to_vec()
                } else {
                    r.programs.iter().map(|p| p.trim_end_matches('*')).collect()
                };
                assert!(!gates.is_empty(), "{}:{} has no gate", pack.name, r.id);
                for g in gates {
                    assert!(
                        pack.keywords
                            .iter()
                            .any(|k| g.to_ascii_lowercase().contains(k)),
                        "{}:{} gate {g:?} holds no keyword of the pack",
                        pack.name,
                        r.id
                    );
                }
                for n in r.needles {
                    assert_eq!(*n, n.to_ascii_lowercase(), "needles are lowercase");
                }
            }
        }
    }
}
