//! The workspace's shape, checked with Cargo itself: the crates stack in one order (a crate
//! depends only on crates below it), the guard and the base link no database, HTTP client or
//! async runtime, and docs/architecture.md lists exactly the crates and services there are.
//! Cargo already refuses a cycle; these tests refuse an arrow that points up the stack, which a
//! cycle-free graph can still have.

use serde_json::Value;
use std::path::Path;
use std::process::Command;

/// The crates, bottom to top. A crate may depend on crates before it in this list only.
const ORDER: &[&str] = &[
    "cm-base",
    "cm-store",
    "cm-guard",
    "cm-memory",
    "cm-episodic",
    "cm",
];

/// What no crate of the hook's fast path may link.
const HEAVY: &[&str] = &[
    "rusqlite",
    "libsqlite3-sys",
    "reqwest",
    "tokio",
    "hyper",
    "rmcp",
];

fn cargo(args: &[&str]) -> String {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run cargo");
    assert!(
        out.status.success(),
        "cargo {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("cargo prints UTF-8")
}

fn metadata() -> Value {
    serde_json::from_str(&cargo(&[
        "metadata",
        "--format-version",
        "1",
        "--no-deps",
        "--offline",
    ]))
    .expect("cargo metadata is JSON")
}

/// Each workspace crate with the workspace crates it depends on (normal and build edges).
fn edges() -> Vec<(String, Vec<String>)> {
    let meta = metadata();
    let packages = meta["packages"].as_array().expect("packages");
    packages
        .iter()
        .map(|p| {
            let name = p["name"].as_str().unwrap().to_string();
            let deps = p["dependencies"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|d| d["kind"].as_str() != Some("dev"))
                .filter_map(|d| d["name"].as_str())
                .filter(|d| d.starts_with("cm-") || *d == "cm")
                .map(str::to_string)
                .collect();
            (name, deps)
        })
        .collect()
}

#[test]
fn every_crate_is_in_the_stack_and_depends_only_on_crates_below_it() {
    let edges = edges();
    let mut names: Vec<&str> = edges.iter().map(|(n, _)| n.as_str()).collect();
    names.sort();
    let mut listed = ORDER.to_vec();
    listed.sort();
    assert_eq!(names, listed, "the workspace's crates and ORDER differ");
    let rank = |n: &str| ORDER.iter().position(|o| *o == n).unwrap();
    let mut up = Vec::new();
    for (name, deps) in &edges {
        for d in deps {
            if rank(d) >= rank(name) {
                up.push(format!("{name} depends on {d}, which is not below it"));
            }
        }
    }
    assert!(up.is_empty(), "{}", up.join("\n"));
}

#[test]
fn the_guard_and_the_base_link_no_database_http_client_or_runtime() {
    for krate in ["cm-base", "cm-guard"] {
        let tree = cargo(&[
            "tree",
            "-p",
            krate,
            "-e",
            "normal,build",
            "--prefix",
            "none",
            "--format",
            "{p}",
            "--offline",
        ]);
        let linked: Vec<&str> = tree
            .lines()
            .filter_map(|l| l.split_whitespace().next())
            .filter(|name| HEAVY.contains(name))
            .collect();
        assert!(linked.is_empty(), "{krate} links {linked:?}");
        assert!(
            tree.contains(krate),
            "cargo tree did not list {krate}: {tree}"
        );
    }
}

/// The names in the first column of the table under `heading` in docs/architecture.md.
fn table_names(doc: &str, heading: &str) -> Vec<String> {
    let at = doc
        .find(heading)
        .unwrap_or_else(|| panic!("docs/architecture.md has no {heading:?}"));
    doc[at..]
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .filter_map(|l| {
            let cell = l.split('|').nth(1)?.trim();
            Some(cell.trim_matches('`').to_string())
        })
        .collect()
}

#[test]
fn the_architecture_doc_lists_the_crates_and_the_services_there_are() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("docs/architecture.md")).unwrap();
    let mut crates = table_names(&doc, "## Crates");
    crates.sort();
    let mut actual: Vec<String> = ORDER.iter().map(|s| s.to_string()).collect();
    actual.sort();
    assert_eq!(crates, actual, "the crate table and the workspace differ");

    let app = std::fs::read_to_string(root.join("src/app/mod.rs")).unwrap();
    let mut services: Vec<String> = app
        .lines()
        .filter_map(|l| l.strip_prefix("pub mod "))
        .map(|m| m.trim_end_matches(';').to_string())
        .collect();
    services.sort();
    let mut documented = table_names(&doc, "## Use cases");
    documented.sort();
    assert_eq!(
        documented, services,
        "the service table and src/app/mod.rs differ"
    );
}
