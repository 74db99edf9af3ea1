//! `cm project`: the repository's rules as a document, and cm's section of AGENTS.md /
//! CLAUDE.md rewritten in place without touching the rest of the file.

use crate::harness::Env;
use serde_json::Value;

/// A repository with one rule of its own, one of this workspace, one global, one of another
/// workspace, one deprecated and one anti-pattern.
fn world() -> (Env, Vec<String>) {
    let env = Env::new();
    env.git_repo();
    std::fs::write(env.cwd.join("Cargo.toml"), "[package]\n").unwrap();
    env.cm(&["init"]).run().ok();
    let add = |args: &[&str]| -> String {
        let mut all = vec!["playbook", "add"];
        all.extend_from_slice(args);
        env.cm(&all).json().run().ok().data()["bullet"]["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let repo = add(&[
        "Keep migrations in sql/ append-only",
        "--category",
        "architecture",
        "--repo",
    ]);
    let ws = add(&[
        "Use the staging cluster for load tests",
        "--category",
        "testing",
        "--scope",
        "workspace",
    ]);
    let global = add(&[
        "Run cargo clippy --all-targets before pushing",
        "--category",
        "workflow",
    ]);
    let rust = add(&[
        "Prefer thiserror for library error enums",
        "--category",
        "architecture",
        "--scope",
        "language:rust",
    ]);
    let gone = add(&["Vendor every dependency by hand", "--category", "workflow"]);
    env.cm(&["forget", &gone, "--invert", "--reason", "slow"])
        .run()
        .ok();
    let other = env.cwd.join("../elsewhere");
    std::fs::create_dir_all(&other).unwrap();
    env.cm(&[
        "playbook",
        "add",
        "Deploy elsewhere with make ship",
        "--scope",
        "workspace",
    ])
    .cwd(&other)
    .run()
    .ok();
    (env, vec![repo, ws, global, rust, gone])
}

fn all_ids(data: &Value) -> Vec<String> {
    data["categories"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|g| g["rules"].as_array().unwrap().iter())
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn repository_rules_come_first_and_out_of_scope_ones_are_left_out() {
    let (env, ids) = world();
    let data = env.cm(&["project"]).json().run().ok().data();
    let got = all_ids(&data);
    assert_eq!(got[0], ids[0], "the repository's rule leads: {data}");
    for id in &ids[..4] {
        assert!(got.contains(id), "{id} missing: {data}");
    }
    assert!(!got.contains(&ids[4]), "deprecated rule shown");
    assert_eq!(data["counts"]["deprecated"], 1);
    assert_eq!(data["counts"]["outOfScope"], 1, "{data}");
    assert_eq!(data["counts"]["antiPatterns"], 1);
    assert_eq!(data["stack"][0], "rust");
    let doc = data["document"].as_str().unwrap();
    assert!(doc.contains("- **Warning:** "), "{doc}");
    assert!(!doc.contains("make ship"));
    assert!(doc.starts_with("<!-- cm:begin"));
    assert!(doc.trim_end().ends_with("<!-- cm:end -->"));
}

#[test]
fn scores_mature_only_and_per_category() {
    let (env, ids) = world();
    for _ in 0..3 {
        env.cm(&["mark", &ids[2], "--helpful"]).run().ok();
    }
    let doc = env.cm(&["project", "--scores"]).run().ok().stdout;
    assert!(doc.contains("established"), "{doc}");
    let mature = env
        .cm(&["project", "--mature-only"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(all_ids(&mature), [ids[2].clone()]);
    let capped = env
        .cm(&["project", "--per-category", "1"])
        .json()
        .run()
        .ok()
        .data();
    for g in capped["categories"].as_array().unwrap() {
        assert_eq!(g["rules"].as_array().unwrap().len(), 1, "{g}");
    }
    assert!(capped["counts"]["filtered"].as_u64().unwrap() >= 1);
}

#[test]
fn output_replaces_only_cms_section_of_agents_md() {
    let (env, ids) = world();
    let path = env.cwd.join("AGENTS.md");
    std::fs::write(&path, "# Team notes\n\nKeep this.\n").unwrap();
    let out = env
        .cm(&["project", "--output", "AGENTS.md"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(out["format"], "agents.md");
    assert_eq!(out["output"]["action"], "appended");
    let first = std::fs::read_to_string(&path).unwrap();
    assert!(first.starts_with("# Team notes\n\nKeep this.\n\n<!-- cm:begin"));
    assert!(
        first.contains("cm context"),
        "the protocol is in the section"
    );
    assert!(first.contains(&ids[0]));
    // Text added after the section by hand survives a rerun that changes the section.
    std::fs::write(&path, format!("{first}\n## Later\nmine\n")).unwrap();
    env.cm(&[
        "playbook",
        "add",
        "Tag releases with git tag -s",
        "--category",
        "git",
    ])
    .run()
    .ok();
    let again = env
        .cm(&["project", "--output", "AGENTS.md"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(again["output"]["action"], "replaced");
    let second = std::fs::read_to_string(&path).unwrap();
    assert!(second.starts_with("# Team notes\n\nKeep this.\n\n"));
    assert!(
        second.ends_with("<!-- cm:end -->\n\n## Later\nmine\n"),
        "{second}"
    );
    assert!(second.contains("git tag -s"));
    assert_eq!(second.matches("<!-- cm:begin").count(), 1);
    let same = env
        .cm(&["project", "--output", "AGENTS.md"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(same["output"]["action"], "unchanged");
}

#[test]
fn unsafe_targets_and_broken_markers_are_refused_untouched() {
    let (env, _) = world();
    let real = env.cwd.join("real.md");
    std::fs::write(&real, "mine\n").unwrap();
    std::os::unix::fs::symlink(&real, env.cwd.join("link.md")).unwrap();
    let err = env
        .cm(&["project", "--output", "link.md"])
        .json()
        .run()
        .code(1)
        .error_code("OUTPUT_NOT_REGULAR_FILE");
    assert!(err["message"].as_str().unwrap().contains("symlink"));
    std::fs::create_dir(env.cwd.join("dir.md")).unwrap();
    env.cm(&["project", "--output", "dir.md"])
        .json()
        .run()
        .code(1)
        .error_code("OUTPUT_NOT_REGULAR_FILE");
    let broken = "<!-- cm:begin -->\nold\n";
    std::fs::write(&real, broken).unwrap();
    env.cm(&["project", "--output", "real.md"])
        .json()
        .run()
        .code(3)
        .error_code("MARKERS_MALFORMED");
    assert_eq!(std::fs::read_to_string(&real).unwrap(), broken);
}

#[test]
fn data_formats_and_claude_md() {
    let (env, ids) = world();
    let json_text = env.cm(&["project", "--format", "json"]).run().ok().stdout;
    let v: Value = serde_json::from_str(&json_text).unwrap();
    assert!(all_ids(&v).contains(&ids[0]));
    let yaml = env.cm(&["project", "--format", "yaml"]).run().ok().stdout;
    assert!(yaml.contains(&format!("id: {}", ids[0])), "{yaml}");
    env.cm(&["project", "--output", "CLAUDE.md"]).run().ok();
    let claude = std::fs::read_to_string(env.cwd.join("CLAUDE.md")).unwrap();
    assert!(claude.contains("### Protocol") && claude.contains(&ids[1]));
}
