//! The situation a learned rule applies in, said in the words a later task uses: "When adding a
//! dependency (a package or library): use pnpm instead of `npm install`." A rule is recalled
//! when a later prompt shares its words, and a later prompt names the goal ("we need a library
//! for dates", "check nothing broke", "a new column"), not the tool the lesson is about. So the
//! rule gets a "when ..." clause for the kind of work the session shows: what the agent was
//! doing when the user spoke (the call), the command that failed, or what the lesson itself
//! names (a migration, a commit message). A rule that already says when it applies keeps its
//! own words, and one that names no kind of work gets nothing.
//!
//! The kinds are kinds of work every project has, not any project's tools: the command shapes
//! that mark them (`* add`, `* install`, a test runner) and the words a lesson about them uses.

use super::gist;

/// One kind of work: the clause, the commands that do it and the words a lesson about it says.
struct Kind {
    clause: &'static str,
    /// A step of the command does this kind of work.
    command: fn(&str, &str) -> bool,
    /// Words (lower case, whole) that tie a lesson's text to this kind of work.
    words: &'static [&'static str],
    /// And one of these with them, when not empty ("deps" alone is no act of adding one).
    with: &'static [&'static str],
}

const TEST_RUNNERS: &[&str] = &[
    "ctest",
    "pytest",
    "jest",
    "vitest",
    "rspec",
    "phpunit",
    "mocha",
    "nextest",
    "molecule",
    "playwright",
];

fn adds_dependency(program: &str, sub: &str) -> bool {
    const MANAGERS: &[&str] = &[
        "npm", "pnpm", "yarn", "bun", "pip", "pip3", "uv", "poetry", "cargo", "go", "gem",
        "bundle", "composer", "pipenv", "dotnet", "flutter", "dart", "mix", "conda", "brew",
        "deno",
    ];
    MANAGERS.contains(&program) && ["add", "install", "i", "get", "require"].contains(&sub)
}

fn runs_tests(program: &str, sub: &str) -> bool {
    TEST_RUNNERS.contains(&program)
        || ["test", "tests", "nextest", "spec", "check"].contains(&sub) && program != "terraform"
        || sub.starts_with("test:")
}

fn builds(program: &str, sub: &str) -> bool {
    [
        "build",
        "compile",
        "typecheck",
        "tsc",
        "assemble",
        "package",
    ]
    .contains(&sub)
        || ["tsc", "goreleaser", "gradle", "mvn", "xcodebuild"].contains(&program)
}

fn migrates(program: &str, sub: &str) -> bool {
    program == "alembic" || sub.contains("migrat") || ["makemigrations", "migrate"].contains(&sub)
}

fn commits(program: &str, sub: &str) -> bool {
    program == "git" && sub == "commit"
}

fn lints(program: &str, sub: &str) -> bool {
    [
        "eslint",
        "prettier",
        "biome",
        "ruff",
        "black",
        "flake8",
        "rubocop",
        "golangci-lint",
        "ansible-lint",
        "tflint",
        "stylelint",
        "hlint",
        "clj-kondo",
        "shellcheck",
        "ktlint",
        "swiftlint",
        "rustfmt",
        "gofmt",
        "clang-format",
        "clang-tidy",
        "alejandra",
        "nixpkgs-fmt",
        "scalafmt",
        "ormolu",
    ]
    .contains(&program)
        || ["lint", "fmt", "format", "clippy", "vet"].contains(&sub)
}

fn deploys(program: &str, sub: &str) -> bool {
    [
        "helm",
        "ansible-playbook",
        "kubectl",
        "flyctl",
        "kamal",
        "atlantis",
        "nixos-rebuild",
    ]
    .contains(&program)
        || ["terraform", "pulumi", "tofu"].contains(&program)
            && ["apply", "plan", "destroy", "up", "preview"].contains(&sub)
        || sub == "deploy"
}

fn never(_: &str, _: &str) -> bool {
    false
}

const KINDS: &[Kind] = &[
    Kind {
        clause: "When adding a dependency (a package or library)",
        command: adds_dependency,
        words: &[
            "dependency",
            "dependencies",
            "deps",
            "dep",
            "package",
            "packages",
        ],
        // "inside a package folder" is no dependency added.
        with: &[
            "add",
            "adding",
            "install",
            "installing",
            "new",
            "library",
            "libraries",
            "bump",
            "upgrade",
            "lockfile",
            "dependency",
            "dependencies",
            "deps",
            "dep",
        ],
    },
    Kind {
        clause: "When setting up the project (installing dependencies)",
        command: never,
        words: &["setup", "clone", "onboarding"],
        with: &[],
    },
    Kind {
        clause: "When changing the database schema (a new column, field or table)",
        command: migrates,
        words: &[
            "migration",
            "migrations",
            "schema",
            "alembic",
            "revision",
            "makemigrations",
            "column",
        ],
        with: &[],
    },
    Kind {
        clause: "When committing work to git",
        command: commits,
        words: &["commit", "commits"],
        // "SharedPreferences blocks when it commits" is no git commit.
        with: &[
            "git",
            "message",
            "messages",
            "branch",
            "push",
            "pr",
            "before",
            "conventional",
            "squash",
            "amend",
            "hook",
            "hooks",
            "sign",
            "signed",
        ],
    },
    Kind {
        clause: "When linting or formatting (code style)",
        command: lints,
        words: &[
            "lint",
            "linter",
            "linting",
            "eslint",
            "prettier",
            "biome",
            "formatter",
            "clippy",
        ],
        with: &[],
    },
    Kind {
        clause: "When deploying or changing infrastructure",
        command: deploys,
        words: &[
            "deploy",
            "deploys",
            "terraform",
            "kubectl",
            "helm",
            "playbook",
        ],
        with: &[],
    },
    Kind {
        clause: "When running the tests (to check nothing broke)",
        command: runs_tests,
        words: &[],
        with: &[],
    },
    Kind {
        clause: "When building or compiling",
        command: builds,
        words: &[],
        with: &[],
    },
    Kind {
        clause: "When handling errors and failures",
        command: never,
        words: &[
            "unwrap",
            "thiserror",
            "anyhow",
            "errorf",
            "exceptions",
            "panic",
        ],
        with: &[],
    },
    Kind {
        clause: "When logging (messages, warnings)",
        command: never,
        words: &["logger", "logging", "slog", "log"],
        with: &[],
    },
];

/// Openings of a rule that already say when it applies.
const SITUATED: &[&str] = &[
    "when ",
    "whenever ",
    "before ",
    "after ",
    "for ",
    "if ",
    "on ",
    "every time",
    "in future",
    "from now on",
    "next time",
    "going forward",
];

/// The kind of work a command does (its first step that does something).
fn kind_of_command(command: &str) -> Option<&'static Kind> {
    gist::doing(command).iter().find_map(|step| {
        let base = gist::base_of(step);
        let mut w = base.split_whitespace();
        let program = w.next().unwrap_or("");
        let program = program.rsplit('/').next().unwrap_or(program);
        let sub = w.next().unwrap_or("");
        // `pnpm install`, `pip install -r requirements.txt`, `uv sync`: the project's own
        // dependencies installed, which is setting the project up, not adding one.
        let at = step.iter().position(|x| x == sub);
        let named = at.is_some_and(|i| {
            step[i + 1..]
                .iter()
                .any(|x| !x.starts_with('-') && !x.contains(['/', '.']))
        }) && !step.iter().any(|x| x == "-r" || x == "--requirement");
        if (adds_dependency(program, sub) && !named)
            || ["sync", "ci", "bootstrap"].contains(&sub) && adds_dependency(program, "install")
            || (program, sub) == ("mix", "deps.get")
            || (program, sub) == ("go", "mod") && step.iter().any(|x| x == "download")
        {
            return KINDS
                .iter()
                .find(|k| k.clause.starts_with("When setting up"));
        }
        KINDS
            .iter()
            .find(|k| (k.command)(program, sub))
            .or_else(|| {
                // `julia test/runtests.jl`, `Rscript -e 'devtools::test()'`, `julia -e
                // 'Pkg.test()'`: a run of the tests named by what it runs.
                let tests = step.iter().skip(1).any(|w| {
                    let w = w.trim_matches(['\'', '"']).to_lowercase();
                    w.starts_with("test/")
                        || w.starts_with("tests/")
                        || w.contains("test()")
                        || w.contains("::test(")
                        || w.contains(".test(")
                });
                tests
                    .then(|| {
                        KINDS
                            .iter()
                            .find(|k| k.clause.starts_with("When running the tests"))
                    })
                    .flatten()
            })
    })
}

/// The kind of work a rule's own words name, when exactly one kind does. Paths are no words
/// ("packages/ui" names no package being added).
fn kind_of_text(rule: &str) -> Option<&'static Kind> {
    let lower = rule.to_lowercase();
    let words: Vec<&str> = lower
        .split_whitespace()
        .filter(|w| !w.contains('/'))
        .flat_map(|w| w.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_')))
        .collect();
    let named: Vec<&'static Kind> = KINDS
        .iter()
        .filter(|k| {
            k.words.iter().any(|w| words.contains(w))
                && (k.with.is_empty() || k.with.iter().any(|w| words.contains(w)))
        })
        .collect();
    match named.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

/// `rule` with the clause of the situation it applies in, when the session shows one and the
/// rule does not already say it. `command`: the agent's call before the lesson; it gives the
/// situation when the lesson is `about` it (the user objected to it, or it is the command that
/// failed) or names what it runs; otherwise the rule's own words do.
pub fn situated(rule: &str, command: Option<&str>, about: bool, max: usize) -> String {
    let Some(clause) = clause(rule, command, about) else {
        return rule.to_string();
    };
    let mut c = rule.chars();
    let first = c.next().unwrap_or(' ');
    let second = c.clone().next().unwrap_or(' ');
    let body = if first.is_uppercase() && !second.is_uppercase() {
        format!("{}{}", first.to_lowercase(), c.as_str())
    } else {
        rule.to_string()
    };
    let out = format!("{clause}: {body}");
    if out.chars().count() <= max {
        out
    } else {
        rule.to_string()
    }
}

/// The clause [`situated`] would put before `rule`, whatever its length.
pub fn clause(rule: &str, command: Option<&str>, about: bool) -> Option<&'static str> {
    let lower = rule.to_lowercase();
    if SITUATED.iter().any(|s| lower.starts_with(s)) {
        return None;
    }
    let from_command = command.and_then(|c| {
        let program = gist::base(c);
        let program = program.split_whitespace().next().unwrap_or("");
        let named = program.len() >= 2
            && lower.contains(&program.rsplit('/').next().unwrap_or(program).to_lowercase());
        kind_of_command(c).filter(|_| named || about)
    });
    let kind = from_command.or_else(|| kind_of_text(rule))?;
    (!lower.contains(&kind.clause.to_lowercase())).then_some(kind.clause)
}

/// `rule` without a clause [`situated`] put before it: what the lesson itself says.
pub fn strip(rule: &str) -> &str {
    KINDS
        .iter()
        .find_map(|k| {
            rule.strip_prefix(k.clause)
                .and_then(|r| r.strip_prefix(": "))
        })
        .unwrap_or(rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rule_gets_the_situation_of_the_call_it_is_about() {
        assert_eq!(
            situated(
                "Use pnpm instead of `npm install`.",
                Some("npm install zod"),
                true,
                200
            ),
            "When adding a dependency (a package or library): use pnpm instead of `npm install`."
        );
        assert_eq!(
            situated(
                "Run `docker compose up -d db` before `pytest`.",
                Some("uv run pytest -q tests/alerts"),
                true,
                200
            ),
            "When running the tests (to check nothing broke): run `docker compose up -d db` before `pytest`."
        );
        assert_eq!(
            situated(
                "Always create reversible migrations, an .up.sql and a .down.sql pair.",
                Some("pytest"),
                false,
                200
            ),
            "When changing the database schema (a new column, field or table): always create reversible migrations, an .up.sql and a .down.sql pair."
        );
        assert_eq!(
            strip("When committing work to git: write conventional commits."),
            "write conventional commits."
        );
    }

    #[test]
    fn a_rule_that_says_when_or_names_no_work_is_left_alone() {
        for (rule, command) in [
            ("Whenever you add a page, add a smoke test.", None),
            ("Constructor injection only; no @Autowired anywhere.", None),
            ("Use the read-only context `orbit-prod-ro`.", Some("ls -la")),
        ] {
            assert_eq!(situated(rule, command, false, 200), rule);
        }
        let long = format!("Use pnpm, {}.", "x".repeat(170));
        assert_eq!(situated(&long, Some("npm i a"), true, 200), long);
    }
}
