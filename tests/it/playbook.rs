//! The playbook through the real binary: init, add (text, file, stdin, repo), list, get, remove,
//! export and import. Feedback, scoring and the views are in `feedback.rs`.

use crate::harness::{Env, bytes, fixture_path, ids};
use serde_json::Value;

#[test]
fn init_creates_store_and_config_and_is_idempotent() {
    let env = Env::new();
    let d = env.cm(&["init"]).json().run().ok().data();
    assert!(env.db().is_file());
    assert!(env.data.join("config.json").is_file());
    assert_eq!(d["ruleCount"], 0);
    assert!(!d["created"].as_array().unwrap().is_empty());
    // Again: nothing new created, nothing lost.
    env.add("Always keep this rule");
    let d = env.cm(&["init"]).json().run().ok().data();
    assert_eq!(d["created"].as_array().unwrap().len(), 0);
    assert_eq!(d["ruleCount"], 1);
    // --force rewrites the config but keeps a backup and the rules.
    std::fs::write(env.data.join("config.json"), r#"{"staleDays": 7}"#).unwrap();
    env.cm(&["init", "--force"]).run().ok();
    assert_eq!(
        std::fs::read_to_string(env.data.join("config.json.bak")).unwrap(),
        r#"{"staleDays": 7}"#
    );
    let d = env.cm(&["playbook", "list"]).json().run().ok().data();
    assert_eq!(d["count"], 1);
}

#[test]
fn init_with_a_starter_seeds_rules_once() {
    let env = Env::new();
    let d = env
        .cm(&["init", "--starter", "rust"])
        .json()
        .run()
        .ok()
        .data();
    let added = d["starter"]["added"].as_u64().unwrap();
    assert!(added > 3, "{d}");
    let again = env
        .cm(&["init", "--starter", "rust"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(again["starter"]["added"], 0);
    assert_eq!(again["ruleCount"].as_u64().unwrap(), added);
    env.cm(&["init", "--starter", "cobol"])
        .json()
        .run()
        .code(3)
        .error_code("STARTER_NOT_FOUND");
    let s = env.cm(&["starters"]).json().run().ok().data();
    assert!(s["starters"].as_array().unwrap().len() >= 6);
}

#[test]
fn add_returns_the_bullet_and_list_get_show_it() {
    let env = Env::new();
    let d = env
        .cm(&[
            "playbook",
            "add",
            "Always   run the tests\tbefore committing",
            "--category",
            "Testing",
            "--tags",
            "ci,Tests",
            "--scope",
            "language:rust",
        ])
        .json()
        .run()
        .ok()
        .data();
    let b = &d["bullet"];
    let id = b["id"].as_str().unwrap();
    assert!(id.starts_with("b-"));
    assert_eq!(b["content"], "Always run the tests before committing");
    assert_eq!(b["category"], "testing");
    assert_eq!(b["tags"], serde_json::json!(["ci", "tests"]));
    assert_eq!(b["scope"], "language");
    assert_eq!(b["scopeKey"], "rust");
    assert_eq!(b["type"], "rule");
    assert_eq!(b["maturity"], "candidate");
    assert_eq!(b["state"], "active");
    assert_eq!(b["helpfulCount"], 0);
    assert_eq!(b["effectiveScore"], 0.0);
    assert_eq!(b["location"], "personal");
    for key in [
        "kind",
        "feedbackEvents",
        "sourceSessions",
        "sourceAgents",
        "pinned",
        "deprecated",
        "createdAt",
        "updatedAt",
    ] {
        assert!(b.get(key).is_some(), "missing {key} in {b}");
    }

    let got = env.cm(&["playbook", "get", id]).json().run().ok().data();
    assert_eq!(got["bullet"]["id"], id);
    assert!(got["bullet"]["effectiveScore"].is_number());
    // A unique prefix is enough.
    let got = env
        .cm(&["playbook", "get", &id[..6]])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(got["bullet"]["id"], id);

    // The alias, the human table, --quiet ids.
    let human = env.cm(&["ls"]).run().ok().stdout;
    assert!(human.contains(id) && human.contains("Always run the tests"));
    assert!(!human.contains('\x1b'), "no colour off a terminal");
    let quiet = env.cm(&["ls", "--quiet"]).run().ok().stdout;
    assert_eq!(quiet.trim(), id);
}

#[test]
fn duplicate_text_is_not_added_twice() {
    let env = Env::new();
    let id = env.add("Prefer small pull requests");
    let d = env
        .cm(&["add", "prefer  SMALL pull requests"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["duplicate"], true);
    assert_eq!(d["bullet"]["id"], id.as_str());
    assert_eq!(
        env.cm(&["ls"]).json().run().ok().data()["count"],
        1,
        "still one rule"
    );
}

/// A new user adds the same rule four ways and its opposite: one rule, one contradiction
/// flagged on both (it once took all five, and context recommended them all).
#[test]
fn near_duplicates_are_not_added_and_contradictions_are_flagged() {
    let env = Env::new();
    let base = env.add("Always run the tests before committing");
    for variant in [
        "Always run the tests before committing.",
        "Always run the tests before committing!!",
        "always run the tests before committing",
    ] {
        let d = env.cm(&["add", variant]).json().run().ok().data();
        assert_eq!(d["duplicate"], true, "{variant}: {d}");
        assert_eq!(d["match"], "same");
        assert_eq!(d["bullet"]["id"], base.as_str());
    }
    let d = env
        .cm(&["add", "Run the tests before every commit"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(
        (d["match"].as_str(), d["bullet"]["id"].as_str()),
        (Some("similar"), Some(base.as_str())),
        "{d}"
    );
    let d = env
        .cm(&["add", "Never run the tests before committing"])
        .json()
        .run()
        .ok()
        .data();
    let never = d["bullet"]["id"].as_str().unwrap().to_string();
    assert_eq!(d["bullet"]["contradicts"], serde_json::json!([base]), "{d}");
    let get =
        |id: &str| env.cm(&["playbook", "get", id]).json().run().ok().data()["bullet"].clone();
    assert_eq!(get(&base)["contradicts"], serde_json::json!([never]));
    assert_eq!(env.cm(&["ls"]).json().run().ok().data()["count"], 2);
    // Context recommends both (a person decides) but says they conflict.
    let c = env
        .cm(&["context", "run the tests before committing", "--no-history"])
        .json()
        .run()
        .ok()
        .data();
    let rules = c["relevantBullets"].as_array().unwrap();
    assert_eq!(rules.len(), 2, "{c}");
    for r in rules {
        assert_eq!(r["contradicts"].as_array().unwrap().len(), 1, "{r}");
    }
    let human = env
        .cm(&["context", "run the tests before committing", "--no-history"])
        .run()
        .ok()
        .stdout;
    assert!(human.contains(&format!("contradicts {base}")), "{human}");
    // --force adds a near-duplicate, never the same rule; a batch is curated the same way.
    env.cm(&["add", "Run the tests before every commit", "--force"])
        .json()
        .run()
        .ok();
    let d = env
        .cm(&["add", "--file", "-"])
        .stdin(r#"[{"content": "ALWAYS run the tests before committing."}, {"content": "Pin the toolchain version"}, {"content": "Pin the toolchain version!"}]"#)
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["added"], 1, "{d}");
    assert_eq!(d["skipped"].as_array().unwrap().len(), 2);
    // Deleting the contradicting rule takes its flag off the other rule.
    env.cm(&["rm", &never, "--hard", "--yes"]).json().run().ok();
    assert!(get(&base).get("contradicts").is_none(), "{}", get(&base));
    // The threshold is the config's dedupSimilarityThreshold.
    env.add("Run the linter before committing");
    std::fs::write(
        env.data.join("config.json"),
        r#"{"dedupSimilarityThreshold": 0.2}"#,
    )
    .unwrap();
    let d = env
        .cm(&["add", "Run the formatter before committing"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["duplicate"], true, "{d}");
}

#[test]
fn list_filters_by_category_hides_deprecated_and_honours_limit() {
    let env = Env::new();
    let a = env.add("Rule a");
    env.cm(&["add", "Rule b", "--category", "git"]).run().ok();
    env.cm(&["add", "Rule c", "--category", "git"]).run().ok();
    env.cm(&["rm", &a, "--reason", "obsolete"]).run().ok();

    let all = env.cm(&["ls"]).json().run().ok().data();
    assert_eq!(all["count"], 2);
    assert_eq!(all["total"], 2);
    let with_deprecated = env.cm(&["ls", "--all"]).json().run().ok().data();
    assert_eq!(with_deprecated["count"], 3);
    let git = env
        .cm(&["ls", "--category", "git"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(git["count"], 2);
    let limited = env.cm(&["ls", "--limit", "1"]).json().run().ok().data();
    assert_eq!(limited["count"], 1);
    assert_eq!(limited["total"], 2);
    assert_eq!(limited["bullets"].as_array().unwrap().len(), 1);
    env.cm(&["ls", "--category", "nope"])
        .json()
        .run()
        .code(3)
        .error_code("INVALID_CATEGORY");
}

#[test]
fn add_from_a_file_and_from_stdin_with_session_provenance() {
    let env = Env::new();
    let file = env.root.join("rules.json");
    std::fs::write(
        &file,
        r#"[{"content": "Rule from a file", "category": "workflow", "tags": ["a", "b"]},
            {"content": "Second rule from a file"}]"#,
    )
    .unwrap();
    let d = env
        .cm(&[
            "playbook",
            "add",
            "--file",
            file.to_str().unwrap(),
            "--session",
            "/sessions/s-1.jsonl",
        ])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["added"], 2);
    assert_eq!(d["bullets"][0]["tags"], serde_json::json!(["a", "b"]));
    assert_eq!(d["bullets"][1]["category"], "general");
    assert_eq!(
        d["bullets"][0]["sourceSessions"],
        serde_json::json!(["/sessions/s-1.jsonl"])
    );

    let d = env
        .cm(&["playbook", "add", "--file", "-"])
        .stdin(r#"[{"content": "Rule from stdin", "category": "git"}, {"content": "Rule from a file"}]"#)
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["added"], 1);
    assert_eq!(
        d["skipped"].as_array().unwrap().len(),
        1,
        "duplicate skipped"
    );
    let why = env
        .cm(&[
            "why",
            ids(&env.cm(&["ls"]).json().run().ok().data())[0].as_str(),
        ])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(
        why["provenance"]["sourceSessions"],
        serde_json::json!(["/sessions/s-1.jsonl"])
    );
}

#[test]
fn bad_batches_add_nothing() {
    let env = Env::new();
    env.add("Existing rule");
    let cases: &[(&str, &str)] = &[
        (r#"[{"content": }]"#, "INVALID_INPUT"),
        (r#"{"content": "not an array"}"#, "INVALID_INPUT"),
        (r#"[{"text": "wrong field"}]"#, "INVALID_INPUT"),
        (r#"[{"content": "ok"}, {"content": "   "}]"#, "EMPTY_RULE"),
        (
            r#"[{"content": "ok"}, {"content": "x", "category": "cooking"}]"#,
            "INVALID_CATEGORY",
        ),
    ];
    for (input, code) in cases {
        let out = env
            .cm(&["playbook", "add", "--file", "-"])
            .stdin(*input)
            .json()
            .run()
            .code(3);
        let e = out.error_code(code);
        assert!(e["hint"].is_string(), "{e}");
    }
    // Malformed JSON names the position.
    let e = env
        .cm(&["playbook", "add", "--file", "-"])
        .stdin("[\n  {\"content\": }\n]")
        .json()
        .run()
        .error();
    assert!(e["message"].as_str().unwrap().contains("line 2"), "{e}");
    assert_eq!(env.cm(&["ls"]).json().run().ok().data()["count"], 1);
    env.cm(&["add", "--file", "/no/such/file.json"])
        .json()
        .run()
        .code(3)
        .error_code("FILE_NOT_FOUND");
}

#[test]
fn secrets_never_reach_the_playbook() {
    let env = Env::new();
    // A rule that would need redaction is refused whole, not stored redacted.
    let out = env
        .cm(&[
            "add",
            "Deploy with token ghp_abcdefghijklmnopqrstuvwxyz0123456789AB",
        ])
        .json()
        .run()
        .code(3);
    out.error_code("RULE_REFUSED");
    assert!(!out.stdout.contains("ghp_abcdef"), "{}", out.stdout);
    let list = env.stdout_of(&["playbook", "list", "--json"]);
    assert!(
        !list.contains("ghp_abcdef") && !list.contains("REDACTED"),
        "{list}"
    );
}

#[test]
fn remove_deprecates_hard_deletes_and_undo_restores() {
    let env = Env::new();
    let id = env.add("Rule to remove");
    let d = env
        .cm(&["rm", &id, "--reason", "superseded"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["hard"], false);
    assert_eq!(d["bullet"]["deprecated"], true);
    assert_eq!(d["bullet"]["maturity"], "deprecated");
    let d = env.cm(&["undo", &id]).json().run().ok().data();
    assert_eq!(d["undone"], "remove");
    assert_eq!(d["bullet"]["deprecated"], false);

    env.cm(&["playbook", "remove", &id, "--hard", "--yes"])
        .run()
        .ok();
    env.cm(&["playbook", "get", &id])
        .json()
        .run()
        .code(3)
        .error_code("RULE_NOT_FOUND");
    let d = env.cm(&["undo", &id]).json().run().ok().data();
    assert_eq!(d["undone"], "remove --hard");
    env.cm(&["playbook", "get", &id]).run().ok();
    // Both removals are undone; undoing once more takes back the add itself.
    let d = env.cm(&["undo", &id]).json().run().ok().data();
    assert_eq!(d["undone"], "add");
    assert!(d["bullet"].is_null());
    env.cm(&["playbook", "get", &id]).run().code(3);
    env.cm(&["undo", &id])
        .json()
        .run()
        .code(3)
        .error_code("RULE_NOT_FOUND");
}

#[test]
fn export_and_reimport_round_trip_in_every_format() {
    let env = Env::new();
    let a = env.add("Always rule one");
    env.cm(&["add", "Rule two", "--category", "git", "--tags", "x"])
        .run()
        .ok();
    env.cm(&["mark", &a, "--helpful"]).run().ok();

    let json_doc = env
        .cm(&["playbook", "export", "--format", "json"])
        .run()
        .ok()
        .stdout;
    let yaml_doc = env.cm(&["playbook", "export"]).run().ok().stdout;
    let md_doc = env
        .cm(&["playbook", "export", "--format", "md"])
        .run()
        .ok()
        .stdout;
    assert!(yaml_doc.starts_with("schema_version: 2"), "{yaml_doc}");
    assert!(md_doc.contains("## git") && md_doc.contains("- Rule two"));

    for (name, doc) in [
        ("p.json", &json_doc),
        ("p.yaml", &yaml_doc),
        ("p.md", &md_doc),
    ] {
        let other = Env::new();
        let path = other.root.join(name);
        std::fs::write(&path, doc).unwrap();
        let d = other
            .cm(&["playbook", "import", path.to_str().unwrap()])
            .json()
            .run()
            .ok()
            .data();
        assert_eq!(d["added"], 2, "{name}: {d}");
        let list = other.cm(&["ls"]).json().run().ok().data();
        let contents: Vec<&str> = list["bullets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["content"].as_str().unwrap())
            .collect();
        assert!(contents.contains(&"Rule two"), "{name}: {contents:?}");
        if name != "p.md" {
            // Structured formats keep ids and feedback.
            let got = other.cm(&["playbook", "get", &a]).json().run().ok().data();
            assert_eq!(got["bullet"]["helpfulCount"], 1, "{name}");
            assert_eq!(got["bullet"]["feedbackEvents"].as_array().unwrap().len(), 1);
        }
    }
    env.cm(&["playbook", "export", "--format", "xml"])
        .json()
        .run()
        .code(3)
        .error_code("INVALID_FORMAT");
}

#[test]
fn import_the_original_playbook_yaml() {
    let env = Env::new();
    let path = fixture_path("playbook/original-playbook.yaml")
        .display()
        .to_string();
    let d = env
        .cm(&["playbook", "import", &path])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["added"], 4, "three rules and a deprecated pattern: {d}");
    let b = env
        .cm(&["playbook", "get", "b-m3x9k2-a1b2c3"])
        .json()
        .run()
        .ok()
        .data()["bullet"]
        .clone();
    assert_eq!(b["helpfulCount"], 4);
    assert_eq!(b["maturity"], "established");
    assert_eq!(b["sourceAgents"], serde_json::json!(["claude", "cursor"]));
    assert_eq!(b["feedbackEvents"].as_array().unwrap().len(), 4);
    assert_eq!(
        b["feedbackEvents"][0]["sessionPath"],
        "/home/dev/.claude/projects/app/s1.jsonl"
    );
    let anti = env
        .cm(&["playbook", "get", "b-anti-1726000000000"])
        .json()
        .run()
        .ok()
        .data()["bullet"]
        .clone();
    assert_eq!(anti["type"], "anti-pattern");
    assert_eq!(anti["pinned"], true);
    // The deprecated one is kept, hidden from the default list.
    assert_eq!(env.cm(&["ls"]).json().run().ok().data()["count"], 2);
    assert_eq!(
        env.cm(&["ls", "--all"]).json().run().ok().data()["count"],
        4
    );
    // Importing again adds nothing; --replace swaps the personal playbook.
    let again = env
        .cm(&["playbook", "import", &path])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(again["added"], 0);
    let dropped = env.add("A rule that --replace drops");
    env.cm(&["mark", &dropped, "--helpful"]).run().ok();
    // Removing rules needs --yes; --validate says what would happen and writes nothing.
    let e = env
        .cm(&["playbook", "import", &path, "--replace"])
        .json()
        .run()
        .code(3)
        .error_code("CONFIRMATION_REQUIRED");
    assert!(
        e["message"]
            .as_str()
            .unwrap()
            .contains("remove all 5 rule(s)"),
        "{e}"
    );
    let v = env
        .cm(&["playbook", "import", &path, "--replace", "--validate"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(
        (v["dryRun"].as_bool(), v["added"].as_u64()),
        (Some(true), Some(4)),
        "{v}"
    );
    assert_eq!(v["removed"].as_array().unwrap().len(), 5);
    assert_eq!(
        env.cm(&["ls", "--all"]).json().run().ok().data()["count"],
        5
    );
    let d = env
        .cm(&["playbook", "import", &path, "--replace", "--yes"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["added"], 4);
    let removed: Vec<&str> = d["removed"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(removed.len(), 5);
    assert!(removed.contains(&dropped.as_str()));
    // The backup is an export that holds every removed rule, feedback included.
    let backup = std::path::PathBuf::from(d["backup"].as_str().unwrap());
    assert!(backup.starts_with(&env.data), "{}", backup.display());
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&backup).unwrap()).unwrap();
    let saved = saved["bullets"].as_array().unwrap();
    assert_eq!(saved.len(), 5);
    let kept = saved.iter().find(|b| b["id"] == dropped.as_str()).unwrap();
    assert_eq!(kept["helpfulCount"], 1);
    let human = env
        .cm(&["playbook", "import", &path, "--replace", "--yes"])
        .run()
        .ok()
        .stdout;
    assert!(
        human.contains("Removed 4 rule(s) from the personal playbook (backup: "),
        "{human}"
    );
    assert_eq!(
        env.cm(&["ls", "--all"]).json().run().ok().data()["count"],
        4
    );
    // A replaced rule comes back, feedback and all, with `cm undo`.
    let d = env.cm(&["undo", &dropped]).json().run().ok().data();
    assert_eq!(d["undone"], "import --replace");
    assert_eq!(d["bullet"]["helpfulCount"], 1);
    assert_eq!(
        env.cm(&["ls", "--all"]).json().run().ok().data()["count"],
        5
    );
}

#[test]
fn import_markdown_lists_and_reject_bad_files() {
    let env = Env::new();
    let d = env
        .cm(&[
            "playbook",
            "import",
            fixture_path("playbook/rules.md").to_str().unwrap(),
        ])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["added"], 4, "{d}");
    let list = env.cm(&["ls"]).json().run().ok().data();
    let by_content = |c: &str| {
        list["bullets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["content"] == c)
            .unwrap_or_else(|| panic!("{c} not imported: {list}"))
            .clone()
    };
    assert_eq!(
        by_content("Run the full test suite before pushing")["category"],
        "testing"
    );
    assert_eq!(
        by_content("Add a regression test for every bug fix")["category"],
        "testing"
    );
    assert_eq!(
        by_content("Never rewrite published history")["category"],
        "git"
    );
    assert_eq!(
        by_content("Keep secrets out of commit messages")["category"],
        "security"
    );

    let bad = env.root.join("bad.yaml");
    std::fs::write(&bad, "bullets:\n  - content: [unclosed\n").unwrap();
    let e = env
        .cm(&["playbook", "import", bad.to_str().unwrap()])
        .json()
        .run()
        .code(3)
        .error_code("INVALID_INPUT");
    assert!(e["message"].as_str().unwrap().contains("line"), "{e}");
    // stdin works too.
    let d = env
        .cm(&["playbook", "import", "-"])
        .stdin("- One more rule from stdin\n")
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["added"], 1);
}

#[test]
fn repo_rules_live_in_the_repository_and_merge_into_list() {
    let env = Env::new();
    env.git_repo();
    let sub = env.cwd.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let personal = env.add("Personal rule");
    let d = env
        .cm(&["playbook", "add", "Run make lint before pushing", "--repo"])
        .cwd(&sub)
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["location"], "repo");
    let repo_id = d["bullet"]["id"].as_str().unwrap().to_string();
    let file = env.cwd.join(".cass/playbook.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("Run make lint before pushing"), "{text}");
    // The lock file beside it is kept out of git.
    let ignore = std::fs::read_to_string(env.cwd.join(".cass/.gitignore")).unwrap();
    assert!(ignore.contains(".*.lock"), "{ignore}");

    let list = env.cm(&["ls"]).cwd(&sub).json().run().ok().data();
    let find = |id: &str| {
        list["bullets"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["id"] == id)
            .cloned()
            .unwrap()
    };
    assert_eq!(find(&repo_id)["location"], "repo");
    assert!(
        find(&repo_id)["locationPath"]
            .as_str()
            .unwrap()
            .ends_with(".cass/playbook.yaml")
    );
    assert_eq!(find(&personal)["location"], "personal");
    let human = env.cm(&["ls"]).cwd(&sub).run().ok().stdout;
    assert!(human.contains(&format!("{repo_id} (repo)")), "{human}");

    // Outside the repository only the personal rule shows.
    let elsewhere = env.root.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    assert_eq!(
        ids(&env.cm(&["ls"]).cwd(&elsewhere).json().run().ok().data()),
        vec![personal]
    );

    // Feedback on a repo rule is this user's: kept in the personal store, never written into
    // the repository file, and undone there.
    let before = std::fs::read_to_string(&file).unwrap();
    env.cm(&["mark", &repo_id, "--helpful"])
        .cwd(&sub)
        .run()
        .ok();
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    let count = |env: &Env| {
        env.cm(&["playbook", "get", &repo_id])
            .cwd(&sub)
            .json()
            .run()
            .ok()
            .data()["bullet"]["helpfulCount"]
            .clone()
    };
    assert_eq!(count(&env), 1);
    env.cm(&["undo", &repo_id]).cwd(&sub).run().ok();
    assert_eq!(count(&env), 0);
    assert_eq!(std::fs::read_to_string(&file).unwrap(), before);
    env.cm(&["rm", &repo_id, "--hard", "--yes"])
        .cwd(&sub)
        .run()
        .ok();
    assert!(
        !std::fs::read_to_string(&file)
            .unwrap()
            .contains("make lint")
    );
    env.cm(&["undo", &repo_id]).cwd(&sub).run().ok();
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .contains("make lint")
    );
}

#[test]
fn a_broken_repo_playbook_is_reported_and_never_rewritten() {
    let env = Env::new();
    env.git_repo();
    let personal = env.add("Always run the tests before committing");
    std::fs::create_dir_all(env.cwd.join(".cass")).unwrap();
    let file = env.cwd.join(".cass/playbook.yaml");
    std::fs::write(&file, "bullets: [ {content: \"unclosed\"\n").unwrap();
    let before = bytes(&file);
    // Reads serve the personal rules and name the broken file in `degraded`.
    let out = env.cm(&["ls"]).json().run().ok();
    let d = out.data();
    assert_eq!(d["count"], 1, "{d}");
    assert_eq!(
        d["degraded"]["repoPlaybook"]["code"], "REPO_PLAYBOOK_INVALID",
        "{d}"
    );
    assert!(
        d["degraded"]["repoPlaybook"]["message"]
            .as_str()
            .unwrap()
            .contains(file.to_str().unwrap())
    );
    assert!(out.stderr.contains("playbook.yaml"), "{}", out.stderr);
    let human = env.cm(&["ls"]).run().ok().stdout;
    assert!(human.starts_with("note: "), "{human}");
    assert!(human.contains(&personal), "{human}");
    // Feedback on a personal rule still works; an id only the broken file could hold says why.
    env.cm(&["mark", &personal, "--helpful"]).json().run().ok();
    env.cm(&["mark", "b-0000feedbeef", "--helpful"])
        .json()
        .run()
        .code(2)
        .error_code("REPO_PLAYBOOK_INVALID");
    // Writes to the file refuse, and it is never rewritten.
    env.cm(&["add", "x", "--repo"]).json().run().code(2);
    assert_eq!(bytes(&file), before);
}

#[test]
fn list_json_matches_get_for_every_rule_and_survives_a_damaged_event_copy() {
    let env = Env::new();
    env.git_repo();
    let t0 = "2026-01-01T00:00:00Z";
    let mut ids_added = Vec::new();
    for i in 0..6 {
        let id = env
            .cm(&["add", &format!("Always rule {i}"), "--tags", "a,b"])
            .now(t0)
            .json()
            .run()
            .ok()
            .data()["bullet"]["id"]
            .as_str()
            .unwrap()
            .to_string();
        for m in 0..i {
            let verdict = if m % 3 == 2 { "--harmful" } else { "--helpful" };
            env.cm(&["mark", &id, verdict, "--reason", "r"])
                .now(t0)
                .run()
                .ok();
        }
        ids_added.push(id);
    }
    env.cm(&["forget", &ids_added[1], "--reason", "old", "--invert"])
        .run()
        .ok();
    env.cm(&["add", "Repo rule", "--repo"]).run().ok();
    let later = "2026-03-01T00:00:00Z";
    let list = env.cm(&["ls", "--all"]).now(later).json().run().ok().data();
    assert_eq!(list["count"], 8);
    assert_eq!(list["bullets"][0]["location"], "repo");
    for b in list["bullets"].as_array().unwrap() {
        let got = env
            .cm(&["playbook", "get", b["id"].as_str().unwrap()])
            .now(later)
            .json()
            .run()
            .ok()
            .data();
        assert_eq!(&got["bullet"], b, "list and get disagree");
    }
    // Filters and --limit apply the same way on every path.
    // Live: rules 0, 2, 4 and 5, the anti-pattern and the repo rule (1 was forgotten; 3 has 1
    // harmful mark in 3; 4 and 5 passed 25% harmful at their third mark and came back as
    // helpful marks followed: a deprecation by feedback is not sticky).
    let live = env.cm(&["ls"]).now(later).json().run().ok().data();
    assert_eq!(live["count"], 6, "{live}");
    let limited = env
        .cm(&["ls", "--limit", "2"])
        .now(later)
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(limited["count"], 2);
    assert_eq!(limited["total"], 6);

    // Remove one event behind cm's back: the list follows the event table, not the copy.
    let status = std::process::Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('DELETE FROM feedback_events WHERE seq = (SELECT max(seq) FROM feedback_events)'); c.commit(); c.close()",
            env.db().to_str().unwrap(),
        ])
        .status()
        .expect("python3");
    assert!(status.success());
    let after = env.cm(&["ls", "--all"]).now(later).json().run().ok().data();
    let events = |v: &Value| -> usize {
        v["bullets"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["feedbackEvents"].as_array().unwrap().len())
            .sum()
    };
    assert_eq!(events(&after), events(&list) - 1);
}

#[test]
fn relative_session_paths_are_recorded_absolute_and_markdown_exports_live_rules() {
    let env = Env::new();
    std::fs::write(env.cwd.join("s1.jsonl"), "{}\n").unwrap();
    let abs = env.cwd.join("s1.jsonl").display().to_string();
    let d = env
        .cm(&["add", "Rule with provenance", "--session", "s1.jsonl"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["bullet"]["sourceSessions"], serde_json::json!([abs]));
    let id = d["bullet"]["id"].as_str().unwrap().to_string();
    let m = env
        .cm(&["mark", &id, "--helpful", "--session", "s1.jsonl"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(m["event"]["sessionPath"], abs.as_str());
    // A session id that is not a file is kept as given.
    let m = env
        .cm(&["mark", &id, "--helpful", "--session", "session-42"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(m["event"]["sessionPath"], "session-42");

    let gone = env.add("Deprecated rule");
    env.cm(&["rm", &gone]).run().ok();
    let md = env
        .cm(&["playbook", "export", "--format", "md"])
        .run()
        .ok()
        .stdout;
    assert!(
        md.contains("Rule with provenance") && !md.contains("Deprecated rule"),
        "{md}"
    );
    let yaml = env.cm(&["playbook", "export"]).run().ok().stdout;
    assert!(yaml.contains("Deprecated rule"), "backups keep everything");
}

/// A batch larger than the neighbour lookup handles (here 60 rules) is curated through one
/// index over the whole playbook and the batch: the same answers, duplicates and contradictions
/// found against stored rules and earlier rules of the batch alike.
#[test]
fn large_batches_are_curated_like_single_adds() {
    let env = Env::new();
    let stored = env.add("Always run the tests before committing");
    let mut rules: Vec<serde_json::Value> = (0..56)
        .map(|i| serde_json::json!({"content": format!("Pin dependency number {i} in the lockfile of service {i}")}))
        .collect();
    rules.push(serde_json::json!({"content": "always run the tests before committing!!"}));
    rules.push(serde_json::json!({"content": "Never run the tests before committing"}));
    rules.push(serde_json::json!({"content": "Rotate the staging database password every month"}));
    rules.push(serde_json::json!({"content": "Rotate the staging database password every month."}));
    let d = env
        .cm(&["add", "--file", "-"])
        .stdin(serde_json::Value::Array(rules).to_string())
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["added"], 58, "{d}");
    let skipped = d["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{d}");
    assert!(
        skipped.iter().any(|s| s["duplicateOf"] == stored.as_str()),
        "{d}"
    );
    let get =
        |id: &str| env.cm(&["playbook", "get", id]).json().run().ok().data()["bullet"].clone();
    assert_eq!(get(&stored)["contradicts"].as_array().unwrap().len(), 1);
}
