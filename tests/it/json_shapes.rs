//! The JSON contract, pinned: every command runs once with `--json` against one realistic
//! world (rules, feedback, a repository rule, traumas, an indexed session, installed hooks),
//! and the shape of each answer (its keys, and the type of every value; no values, so ids,
//! paths and times are masked by construction) is compared with `docs/json-output.md`. That
//! file is the documentation of the shapes: a change to any command's JSON shows up there, in
//! review. `UPDATE_GOLDEN=1 cargo test --test it json_shapes` rewrites it.
//!
//! Every command the parser knows must appear, so a new command cannot skip the contract.

use crate::harness::{Env, copy_fixture, fixture_path, golden, repo_path};
use clap::CommandFactory;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;

const NOW: &str = "2026-12-01T12:00:00Z";

/// The type of every value, keys kept in order; array elements merged into one shape.
fn shape(v: &Value) -> Value {
    match v {
        Value::Null => json!("null"),
        Value::Bool(_) => json!("bool"),
        Value::Number(_) => json!("number"),
        Value::String(_) => json!("string"),
        Value::Array(items) => match items.iter().map(shape).reduce(merge) {
            // The elements' order may vary from run to run (ids break ties), so a merged
            // element's keys are sorted.
            Some(one) => json!([sorted(one)]),
            None => json!([]),
        },
        Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), shape(v))).collect()),
    }
}

fn sorted(v: Value) -> Value {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<_> = m.into_iter().collect();
            keys.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(keys.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        other => other,
    }
}

/// One shape covering both: objects merge key by key; differing types become `a|b`.
fn merge(a: Value, b: Value) -> Value {
    match (a, b) {
        (Value::Object(mut x), Value::Object(y)) => {
            for (k, v) in y {
                let merged = match x.remove(&k) {
                    Some(old) => merge(old, v),
                    None => v,
                };
                x.insert(k, merged);
            }
            Value::Object(x)
        }
        (Value::Array(x), Value::Array(y)) => match (x.into_iter().next(), y.into_iter().next()) {
            (Some(p), Some(q)) => json!([merge(p, q)]),
            (p, q) => json!(p.or(q).into_iter().collect::<Vec<_>>()),
        },
        (x, y) if x == y => x,
        (x, y) => {
            let mut names: BTreeSet<String> = BTreeSet::new();
            for v in [&x, &y] {
                match v {
                    Value::String(s) => names.extend(s.split('|').map(str::to_string)),
                    Value::Object(_) => {
                        names.insert("object".into());
                    }
                    _ => {
                        names.insert("array".into());
                    }
                }
            }
            // A shape with keys wins over "null": the keys are what the contract pins.
            match (x, y) {
                (o @ (Value::Object(_) | Value::Array(_)), Value::String(s))
                | (Value::String(s), o @ (Value::Object(_) | Value::Array(_)))
                    if s == "null" =>
                {
                    o
                }
                _ => json!(names.into_iter().collect::<Vec<_>>().join("|")),
            }
        }
    }
}

struct World {
    env: Env,
    doc: String,
    commands: BTreeSet<String>,
}

impl World {
    /// Run `cm ARGS --json` (stdin optional), record its shape under `label`, return the data.
    fn record(&mut self, label: &str, args: &[&str], stdin: Option<&str>) -> Value {
        self.record_as(crate::harness::CM.as_ref(), label, args, stdin)
    }

    /// [`World::record`] run as `program` (a copy of cm, where what lies beside the binary shows).
    fn record_as(
        &mut self,
        program: &std::path::Path,
        label: &str,
        args: &[&str],
        stdin: Option<&str>,
    ) -> Value {
        // A plain PATH, so what this machine has installed (`cass`, ...) does not change a shape.
        let mut run = self
            .env
            .run_program(program, args)
            .now(NOW)
            .env("PATH", "/usr/bin:/bin");
        if let Some(s) = stdin {
            run = run.stdin(s.to_string());
        }
        let out = run.json().run();
        let v = out.json();
        let command = v["command"].as_str().unwrap_or("").to_string();
        assert!(!command.is_empty(), "{label}: {v}");
        self.commands.insert(command.clone());
        let body = if v["success"] == true {
            assert!(
                out.code == 0 || command == "doctor",
                "{label}: exit {} {v}",
                out.code
            );
            shape(&v["data"])
        } else {
            shape(&v["error"])
        };
        let what = if v["success"] == true {
            "data"
        } else {
            "error"
        };
        self.doc.push_str(&format!(
            "### `cm {label}`\n\n`command`: `{command}`; `{what}`:\n\n```json\n{}\n```\n\n",
            serde_json::to_string_pretty(&body).unwrap()
        ));
        v["data"].clone()
    }

    /// Run without recording (setting the world up).
    fn quietly(&self, args: &[&str]) -> Value {
        self.env.cm(args).now(NOW).json().run().ok().data()
    }
}

fn id(v: &Value) -> String {
    v["bullet"]["id"].as_str().unwrap().to_string()
}

/// The envelope names of every command the parser has (`hook` is the hooks' entry point).
fn every_command_name() -> BTreeSet<String> {
    let root = cm::cli::Cli::command();
    let mut names = BTreeSet::new();
    for sub in root.get_subcommands() {
        let name = sub.get_name();
        if ["help", "hook"].contains(&name) {
            continue;
        }
        let mapped = match name {
            "ls" => "playbook list",
            "add" => "playbook add",
            "rm" => "playbook remove",
            n => n,
        };
        let children: Vec<_> = sub
            .get_subcommands()
            .filter(|c| c.get_name() != "help")
            .collect();
        if children.is_empty() || !sub.is_subcommand_required_set() {
            names.insert(mapped.to_string());
        }
        for c in children {
            names.insert(format!("{name} {}", c.get_name()));
        }
    }
    names
}

#[test]
fn every_command_has_its_json_shape_documented() {
    let env = Env::new();
    env.run_program("git", &["init", "-q"]).run().ok();
    let project = env.home.join(".claude/projects/-home-u-shop");
    std::fs::create_dir_all(&project).unwrap();
    copy_fixture(
        "trauma/claude_rm_distress.jsonl",
        &project.join("7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f.jsonl"),
    );
    let mut w = World {
        env,
        doc: String::new(),
        commands: BTreeSet::new(),
    };
    w.doc.push_str(HEADER);

    w.doc.push_str("## Setting up and the playbook\n\n");
    w.record("init", &["init"], None);
    w.record("init --repo", &["init", "--repo"], None);
    w.record(
        "init --repo --force --yes",
        &["init", "--repo", "--force", "--yes"],
        None,
    );
    w.record("starters", &["starters"], None);
    w.record("quickstart", &["quickstart"], None);
    let a = id(&w.record(
        r#"playbook add "Always refresh auth tokens before they expire" --category security --tags auth"#,
        &["playbook", "add", "Always refresh auth tokens before they expire", "--category", "security", "--tags", "auth"],
        None,
    ));
    w.record(
        r#"add "Never refresh auth tokens before they expire" (a contradiction)"#,
        &["add", "Never refresh auth tokens before they expire"],
        None,
    );
    w.record(
        r#"add "always refresh auth tokens before they expire." (a duplicate)"#,
        &["add", "always refresh auth tokens before they expire."],
        None,
    );
    w.record(
        "playbook add --file - (a batch on stdin)",
        &["playbook", "add", "--file", "-"],
        Some(r#"[{"content": "Use global state for configuration", "category": "architecture"}, {"content": "Cache build outputs in the repository"}, {"content": "Keep the changelog in the repository root"}]"#),
    );
    w.record(
        r#"playbook add "Run cargo fmt before every commit" --repo"#,
        &[
            "playbook",
            "add",
            "Run cargo fmt before every commit",
            "--repo",
        ],
        None,
    );
    let list = w.quietly(&["ls"]);
    let by_text = |t: &str| -> String {
        list["bullets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["content"] == t)
            .unwrap()["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let (global, cache, changelog) = (
        by_text("Use global state for configuration"),
        by_text("Cache build outputs in the repository"),
        by_text("Keep the changelog in the repository root"),
    );
    w.record("playbook get ID", &["playbook", "get", &a], None);
    w.record("playbook list --all", &["playbook", "list", "--all"], None);
    w.record("ls", &["ls"], None);
    w.record(
        "project --output AGENTS.md --scores",
        &["project", "--output", "AGENTS.md", "--scores"],
        None,
    );
    w.record(
        "playbook export --format json",
        &["playbook", "export", "--format", "json"],
        None,
    );
    let export = w.env.root.join("export.json");
    std::fs::write(
        &export,
        w.quietly(&["playbook", "export", "--format", "json"])["document"]
            .as_str()
            .unwrap(),
    )
    .unwrap();
    w.record(
        "playbook import FILE --validate",
        &["playbook", "import", export.to_str().unwrap(), "--validate"],
        None,
    );
    w.record(
        "playbook import FILE",
        &["playbook", "import", export.to_str().unwrap()],
        None,
    );
    w.record(
        "playbook import FILE --replace --yes",
        &[
            "playbook",
            "import",
            export.to_str().unwrap(),
            "--replace",
            "--yes",
        ],
        None,
    );

    w.doc.push_str("## Feedback and curation\n\n");
    w.record(
        "mark ID --helpful",
        &["mark", &a, "--helpful", "--reason", "saved a retry loop"],
        None,
    );
    w.quietly(&["mark", &global, "--harmful"]);
    w.quietly(&["mark", &global, "--harmful"]);
    w.record(
        "mark ID --harmful (the third: inverted)",
        &["mark", &global, "--harmful"],
        None,
    );
    w.record("undo ID", &["undo", &a], None);
    w.record(
        "forget ID --invert --reason R",
        &["forget", &cache, "--invert", "--reason", "the cache moved"],
        None,
    );
    w.record("playbook revive ID", &["playbook", "revive", &cache], None);
    w.record("playbook pin ID", &["playbook", "pin", &a], None);
    w.record("playbook unpin ID", &["playbook", "unpin", &a], None);
    w.record(
        "playbook remove ID --reason R",
        &["playbook", "remove", &changelog, "--reason", "moved"],
        None,
    );
    w.record("rm ID --dry-run", &["rm", &changelog, "--dry-run"], None);
    w.record("rm ID --hard", &["rm", &changelog, "--hard"], None);
    w.record(
        "rm ID --hard --yes",
        &["rm", &changelog, "--hard", "--yes"],
        None,
    );
    w.record(
        "outcome success IDS --summary S",
        &["outcome", "success", &a, "--summary", "fixed the login"],
        None,
    );
    w.record(
        "outcome success IDS --duration SECS --errors N --retries --text T",
        &[
            "outcome",
            "success",
            &a,
            "--duration",
            "300",
            "--errors",
            "1",
            "--retries",
            "--text",
            "perfect, thanks",
        ],
        None,
    );
    w.record("outcome-apply", &["outcome-apply"], None);
    w.record("outcome partial IDS", &["outcome", "partial", &a], None);
    w.record("outcome-clear", &["outcome-clear"], None);

    w.doc.push_str("## Learning from sessions\n\n");
    w.record("reflect --dry-run", &["reflect", "--dry-run"], None);
    w.record("reflect", &["reflect"], None);
    w.record("diary list", &["diary", "list"], None);
    w.record("audit --days 7", &["audit", "--days", "7"], None);
    w.record("audit --since 24h", &["audit", "--since", "24h"], None);
    w.record(
        "validate RULE",
        &["validate", "Always run make lint before pushing"],
        None,
    );
    w.record("privacy", &["privacy"], None);
    w.record("privacy status", &["privacy", "status"], None);
    w.record("privacy deny claude", &["privacy", "deny", "claude"], None);
    w.record(
        "privacy allow claude",
        &["privacy", "allow", "claude"],
        None,
    );
    w.record("privacy disable", &["privacy", "disable"], None);
    w.record("privacy enable", &["privacy", "enable"], None);
    w.record("diary show ID (none yet)", &["diary", "show", "d-0"], None);

    w.doc.push_str("## Views\n\n");
    w.record("top --debug", &["top", "--debug"], None);
    w.record(
        "stale --days 0 --project",
        &["stale", "--days", "0", "--project"],
        None,
    );
    w.record("why ID", &["why", &a], None);
    w.record("stats --trace-decay", &["stats", "--trace-decay"], None);
    w.record("playbook stats", &["playbook", "stats"], None);
    // From a copy of cm with no hook links beside it, so `fixable` lists them on every machine
    // (beside the build's binary, links may or may not exist).
    let exe = w.env.copy_of_cm();
    w.record_as(&exe, "doctor", &["doctor"], None);
    w.record(
        "import --from-original (no original store)",
        &["import", "--from-original"],
        None,
    );
    // The original's store, for a dry run only (so nothing after changes), then gone again.
    let original = w.env.home.join(".cass-memory");
    copy_fixture("original/store", &original);
    w.record(
        "import --from-original --dry-run",
        &["import", "--from-original", "--dry-run"],
        None,
    );
    std::fs::remove_dir_all(&original).unwrap();
    seed_llm_usage(&w.env);
    w.record("usage --days 7", &["usage", "--days", "7"], None);

    w.doc.push_str("## Episodic memory\n\n");
    w.record(
        "history index --agent claude",
        &["history", "index", "--agent", "claude"],
        None,
    );
    w.record(
        r#"history search "fixtures""#,
        &["history", "search", "fixtures"],
        None,
    );
    w.record("history sessions", &["history", "sessions"], None);
    w.record(
        "history show SESSION --around 2",
        &["history", "show", "7d1e2f30", "--around", "2"],
        None,
    );
    w.record("history stats", &["history", "stats"], None);
    w.record("history sources", &["history", "sources"], None);

    w.doc.push_str("## Onboarding\n\n");
    w.record("onboard", &["onboard"], None);
    w.record("onboard status", &["onboard", "status"], None);
    w.record("onboard gaps", &["onboard", "gaps"], None);
    w.record(
        "onboard sample --fill-gaps",
        &["onboard", "sample", "--fill-gaps"],
        None,
    );
    w.record(
        "onboard read SESSION --template",
        &["onboard", "read", "7d1e2f30", "--template"],
        None,
    );
    w.record(
        "onboard mark-done SESSION",
        &["onboard", "mark-done", "7d1e2f30"],
        None,
    );
    w.record("onboard reset --yes", &["onboard", "reset", "--yes"], None);

    w.doc.push_str("## Context\n\n");
    w.quietly(&[
        "add",
        "Ask before deleting a fixtures folder",
        "--category",
        "testing",
    ]);
    w.record(
        r#"context "tidy the fixtures folder; global state for configuration" --gaps"#,
        &[
            "context",
            "tidy the fixtures folder; global state for configuration",
            "--gaps",
        ],
        None,
    );
    w.record(
        r#"context "refresh auth tokens" --explain --no-history"#,
        &[
            "context",
            "refresh auth tokens",
            "--explain",
            "--no-history",
        ],
        None,
    );
    w.record(
        r#"similar "refresh auth tokens""#,
        &["similar", "refresh auth tokens"],
        None,
    );

    w.doc.push_str("## The guard\n\n");
    let t = w.record(
        r#"trauma add 'kubectl .* prod' --message M"#,
        &[
            "trauma",
            "add",
            "kubectl .* prod",
            "--message",
            "never touch prod from an agent",
        ],
        None,
    );
    let trauma = t["trauma"]["id"].as_str().unwrap().to_string();
    w.record("trauma list", &["trauma", "list"], None);
    w.record(
        "trauma heal ID --for 2h",
        &["trauma", "heal", &trauma, "--for", "2h"],
        None,
    );
    w.record("trauma unheal ID", &["trauma", "unheal", &trauma], None);
    let shared = fixture_path("guard_install/shared-traumas.yaml");
    w.record(
        "trauma import shared-traumas.yaml",
        &["trauma", "import", shared.to_str().unwrap()],
        None,
    );
    w.record("trauma scan", &["trauma", "scan"], None);
    w.record("trauma remove ID", &["trauma", "remove", &trauma], None);
    w.record(
        r#"guard check "git reset --hard""#,
        &["guard", "check", "git reset --hard"],
        None,
    );
    w.record(
        "guard allow git:reset-hard",
        &["guard", "allow", "git:reset-hard"],
        None,
    );
    w.record("guard packs", &["guard", "packs"], None);
    w.record(
        "guard packs enable backup",
        &["guard", "packs", "enable", "backup"],
        None,
    );
    w.record("guard --install", &["guard", "--install"], None);
    w.record("guard --status", &["guard", "--status"], None);
    w.record("guard --uninstall", &["guard", "--uninstall"], None);
    w.record(
        "hooks install --agent all",
        &["hooks", "install", "--agent", "all"],
        None,
    );
    w.record("hooks status", &["hooks", "status"], None);
    w.record("mcp --check", &["mcp", "--check"], None);
    w.record("serve --check", &["serve", "--check"], None);
    w.record("hooks uninstall", &["hooks", "uninstall"], None);

    w.doc
        .push_str("## Errors\n\nEvery failure has this shape, argument errors included.\n\n");
    w.record(
        "mark b-nosuch --helpful",
        &["mark", "b-nosuch", "--helpful"],
        None,
    );

    let missing: Vec<_> = every_command_name()
        .difference(&w.commands)
        .cloned()
        .collect();
    assert!(
        missing.is_empty(),
        "commands without a documented JSON shape: {missing:?}"
    );

    golden(&repo_path("docs/json-output.md"), &w.doc);
}

#[test]
fn shapes_merge_array_elements_and_mask_every_value() {
    let v = json!({"id": "b-123", "n": 2, "list": [{"a": 1}, {"a": "x", "b": null}], "none": [], "d": null});
    assert_eq!(
        shape(&v),
        json!({"id": "string", "n": "number", "list": [{"a": "number|string", "b": "null"}], "none": [], "d": "null"})
    );
    let flipped = json!([{"z": 1}, {"a": 1, "z": 2}]);
    let other = json!([{"a": 1, "z": 2}, {"z": 1}]);
    assert_eq!(
        serde_json::to_string(&shape(&flipped)).unwrap(),
        serde_json::to_string(&shape(&other)).unwrap(),
        "element order does not change the shape"
    );
    assert_eq!(
        merge(json!("null"), json!({"k": "string"})),
        json!({"k": "string"})
    );
    let _ = Map::<String, Value>::new();
}

const HEADER: &str = "# The JSON output of every command

Every command prints exactly one object with `--json`: `{\"success\": true, \"command\", \"data\",
\"metadata\": {\"version\", \"executionMs\"}}`, or `{\"success\": false, \"command\", \"error\": {\"code\",
\"message\", \"hint\", \"retryable\", \"exitCode\"}}` (README, Output contract). This file shows the
shape of `data` (or `error`) for each command: every key, in order, with the type of its value
(`string`, `number`, `bool`, `null`, `[element]`; `a|b` when it varies; the elements of a list are
merged into one, its keys sorted). Optional keys appear when the example answer has them. `degraded` is `null` or `{area: {code, message, fix}}` everywhere.

It is generated: `tests/it/json_shapes.rs` runs each command against one realistic world and fails
when an answer's shape differs from this file, so the contract cannot drift from its
documentation. `UPDATE_GOLDEN=1 cargo test --test it json_shapes` rewrites it after a deliberate
change.

";

/// Two calls in the LLM ledger at the world's pinned time, written through its own API (what the
/// client leaves behind).
fn seed_llm_usage(env: &Env) {
    use cm::llm::ledger::{self, Ended, Pending};
    let store = cm::store::Store::open(&env.db()).unwrap();
    for ended in [Ended::Ok, Ended::Error("HTTP 529")] {
        let id = ledger::reserve(
            &store,
            &Pending {
                // The world's pinned clock, not the real one: `usage --days 7` runs at NOW.
                at: cm::clock::parse(NOW).unwrap(),
                purpose: "reflect",
                provider: "anthropic",
                model: "claude-sonnet-4-20250514",
                session: None,
                estimate: 0.001,
            },
            &cm::llm::Budget::default(),
        )
        .unwrap();
        let tokens = cm::llm::Tokens {
            input: 120,
            output: 30,
        };
        ledger::finish(&store, id, tokens, 0.0008, ended).unwrap();
    }
}
