//! `--workspace W` means W and the directories under it, by path components, in every command
//! that takes it: `/w/app` holds `/w/app/api`, never `/w/application` or `/w/app-old`, and a
//! `_` or `%` in a path is a character, not a pattern.

use crate::harness::Env;
use crate::reflect::{NOW, Transcript};
use serde_json::Value;

const WORKSPACES: &[&str] = &[
    "/w/app",
    "/w/app/api",
    "/w/application",
    "/w/app-old",
    "/w/a_p",
    "/w/abp",
];

fn world() -> Env {
    let env = Env::builder().now(NOW).build();
    for (n, ws) in WORKSPACES.iter().enumerate() {
        let id = format!("{:08x}-1111-4222-8333-444455556666", n + 1);
        let mut t = Transcript::new(&id, ws);
        t.user("Please always use pnpm for the zebrafish package in this repo")
            .bash("pnpm install", "Done in 1.2s", false)
            .agent("Installed the zebrafish package with pnpm.");
        t.write_to(&env);
    }
    env.cm(&["history", "index"]).run().ok();
    env
}

fn workspaces(list: &Value, field: &str) -> Vec<String> {
    let mut out: Vec<String> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s[field].as_str().unwrap_or("").to_string())
        .collect();
    out.sort();
    out.dedup();
    out
}

#[test]
fn every_workspace_filter_compares_path_components() {
    let env = world();
    let app = vec!["/w/app".to_string(), "/w/app/api".to_string()];
    for filter in ["/w/app", "/w/app/"] {
        let d = env.data_of(&["history", "sessions", "--workspace", filter]);
        assert_eq!(workspaces(&d["sessions"], "workspace"), app, "{d}");
        let d = env.data_of(&["history", "search", "zebrafish", "--workspace", filter]);
        assert_eq!(workspaces(&d["hits"], "workspace"), app, "{d}");
        let d = env.data_of(&[
            "onboard",
            "sample",
            "--workspace",
            filter,
            "--include-processed",
        ]);
        assert_eq!(workspaces(&d["sessions"], "workspace"), app, "{d}");
        let d = env.data_of(&[
            "validate",
            "Use pnpm for the zebrafish package",
            "--workspace",
            filter,
        ]);
        assert_eq!(d["evidence"]["sessions"], 2, "{d}");
    }
    let d = env.data_of(&["history", "sessions", "--workspace", "/w/a_p"]);
    assert_eq!(
        workspaces(&d["sessions"], "workspace"),
        vec!["/w/a_p"],
        "{d}"
    );
    let d = env.data_of(&["history", "sessions", "--workspace", "/w/a%"]);
    assert_eq!(d["count"], 0, "{d}");

    let d = env.data_of(&["reflect", "--dry-run", "--workspace", "/w/app"]);
    assert_eq!(workspaces(&d["sessions"], "workspace"), app, "{d}");
    env.cm(&["reflect"]).run().ok();
    let d = env.data_of(&["diary", "list", "--workspace", "/w/app"]);
    assert_eq!(workspaces(&d["entries"], "workspace"), app, "{d}");
}
