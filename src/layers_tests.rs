//! The layering rule, checked: the adapters (`cli/`, `hooks/`) hold no SQL and reach the store
//! only as a handle. Tables and their statements belong to the domain that owns them
//! (`memory/`, `episodic/`, `context/`), and use cases are assembled in `app/`; see
//! docs/architecture.md. A line that breaks the rule fails this test with its file and number.

use std::path::{Path, PathBuf};

/// What an adapter must not contain, and why.
const FORBIDDEN: &[(&str, &str)] = &[
    ("rusqlite", "the SQLite driver"),
    (".conn", "the raw connection"),
    ("prepare(", "a prepared statement"),
    ("prepare_cached(", "a prepared statement"),
    ("query_row(", "a query"),
    ("query_map(", "a query"),
    ("execute(", "a statement"),
    ("execute_batch(", "a statement"),
    ("\"SELECT ", "SQL text"),
    ("\"INSERT ", "SQL text"),
    ("\"UPDATE ", "SQL text"),
    ("\"DELETE FROM", "SQL text"),
    ("\"PRAGMA ", "SQL text"),
];

pub(crate) fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("read source dir").flatten() {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Every place in `layer` (a directory under src/) that breaks the rule.
fn breaches(layer: &str) -> Vec<String> {
    breaches_in(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("src")
            .join(layer),
    )
}

fn breaches_in(root: &Path) -> Vec<String> {
    let mut files = Vec::new();
    rust_files(root, &mut files);
    assert!(!files.is_empty(), "no sources under {}", root.display());
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read source");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for (needle, what) in FORBIDDEN {
                if code.contains(needle) {
                    found.push(format!("{}:{}: {what} ({needle})", file.display(), n + 1));
                }
            }
            // The store is a handle to them: `crate::store::Store`, nothing inside it.
            if let Some(at) = code.find("crate::store::") {
                let rest = &code[at + "crate::store::".len()..];
                let handle = rest.strip_prefix("Store").is_some_and(|after| {
                    !after.starts_with(|c: char| c.is_alphanumeric() || c == '_')
                });
                if !handle {
                    found.push(format!("{}:{}: store internals", file.display(), n + 1));
                }
            }
        }
    }
    found
}

#[test]
fn the_cli_holds_no_sql_and_no_store_internals() {
    let found = breaches("cli");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_hooks_hold_no_sql_and_no_store_internals() {
    let found = breaches("hooks");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

#[test]
fn the_check_sees_each_kind_of_breach_and_allows_the_handle() {
    let dir = std::env::temp_dir().join(format!("cm-layers-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("nested")).unwrap();
    std::fs::write(
        dir.join("ok.rs"),
        "use crate::store::Store;\nfn f(s: &crate::store::Store) {} // s.conn is fine in a comment\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("nested/bad.rs"),
        "use rusqlite::Connection;\nlet n = crate::store::integrity::check(s);\nlet x: crate::store::StoreGuts;\nconn.query_row(\"SELECT 1\", [], f);\n",
    )
    .unwrap();
    let found = breaches_in(&dir);
    std::fs::remove_dir_all(&dir).ok();
    let lines: Vec<&str> = found
        .iter()
        .map(|f| f.rsplit_once(".rs:").unwrap().1)
        .collect();
    assert_eq!(
        lines,
        [
            "1: the SQLite driver (rusqlite)",
            "2: store internals",
            "3: store internals",
            "4: a query (query_row()",
            "4: SQL text (\"SELECT )",
        ],
        "{found:?}"
    );
}

/// The async runtime and the MCP SDK live in `src/mcp/` alone, so no hook (and no command but
/// `cm mcp` and `cm serve`) can start a runtime or pay for one.
#[test]
fn only_the_mcp_server_names_the_async_runtime_or_the_sdk() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mcp = src.join("mcp");
    let mut found = Vec::new();
    let this = src.join("layers_tests.rs");
    for file in files.iter().filter(|f| !f.starts_with(&mcp) && **f != this) {
        let text = std::fs::read_to_string(file).expect("read source");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for needle in [
                "tokio::",
                "rmcp::",
                "hyper::",
                "hyper_util::",
                "http_body_util::",
            ] {
                if code.contains(needle) {
                    found.push(format!("{}:{}: {needle}", file.display(), n + 1));
                }
            }
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// Code lines (comments and docs aside) under `layer` that name one of `needles`.
fn naming(layer: &str, needles: &[&str]) -> Vec<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("src")
        .join(layer);
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut found = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("read source");
        for (n, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or_default();
            for needle in needles {
                if code.contains(needle) {
                    found.push(format!("{}:{}: {needle}", file.display(), n + 1));
                }
            }
        }
    }
    found
}

/// Installers and services name hooks through [`crate::hook_kind`], never by importing the
/// hooks themselves (the hooks are an adapter, above them).
#[test]
fn installers_and_services_do_not_import_the_hooks() {
    let mut found = naming("install", &["crate::hooks"]);
    found.extend(naming("app", &["crate::hooks"]));
    assert!(found.is_empty(), "{}", found.join("\n"));
}
