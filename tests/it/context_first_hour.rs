//! A new user's `cm context` says what is actually missing for the association layer (issue 26
//! item 14): no sessions yet and no hook to index them, or nothing at all once the post-session
//! hook is installed and simply has not seen many sessions yet. With the hooks installed no
//! hint sends the user to install them.

use crate::evidence::{REPORTD, place};
use crate::harness::Env;
use serde_json::Value;

fn associations(env: &Env) -> Value {
    let d = env.data_of(&["context", "the nightly export got slow", "--no-history"]);
    d["degraded"]["associations"].clone()
}

fn says_install(issue: &Value) -> bool {
    issue.to_string().contains("hooks install")
}

#[test]
fn without_hooks_it_names_the_missing_sessions_and_the_hook_that_would_index_them() {
    let env = Env::new();
    env.data_of(&["init"]);
    env.add("Set the fetch size on export queries");
    let a = associations(&env);
    assert_eq!(a["code"], "ASSOCIATIONS_NO_SESSIONS", "{a:#}");
    assert!(
        a["message"]
            .as_str()
            .unwrap()
            .contains("no sessions indexed yet"),
        "{a:#}"
    );
    assert!(says_install(&a), "{a:#}");
    // A few sessions indexed by hand: still thin, and nothing keeps it growing.
    place(&env, "reportd", REPORTD, "s1-nightly-export.jsonl");
    env.data_of(&["history", "index"]);
    let a = associations(&env);
    assert_eq!(a["code"], "ASSOCIATIONS_SPARSE", "{a:#}");
    assert!(says_install(&a), "{a:#}");
}

#[test]
fn with_hooks_installed_nothing_tells_the_user_to_install_them() {
    let env = Env::new();
    env.data_of(&["init"]);
    env.add("Set the fetch size on export queries");
    env.cm(&["hooks", "install"]).run().ok();
    let a = associations(&env);
    assert_eq!(a["code"], "ASSOCIATIONS_NO_SESSIONS", "{a:#}");
    assert!(!says_install(&a), "the hooks are installed: {a:#}");
    assert!(
        a["fix"].as_str().unwrap().contains("post-session hook"),
        "{a:#}"
    );
    // Sessions indexed and learned from: young, but nothing is missing.
    place(&env, "reportd", REPORTD, "s1-nightly-export.jsonl");
    env.data_of(&["history", "index"]);
    let a = associations(&env);
    assert!(a.is_null(), "nothing is missing: {a:#}");
    let d = env.data_of(&["context", "the nightly export got slow"]);
    assert!(!says_install(&d["degraded"]), "{:#}", d["degraded"]);
}
