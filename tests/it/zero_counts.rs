//! A count of zero answers nothing as if it were a result: `top 0`, `similar --limit 0`,
//! `context --limit 0` and `context --days 0` are refused (INVALID_ARGUMENT, exit 3, the
//! validation exit code) and say why.

use crate::harness::Env;

#[test]
fn zero_counts_are_refused_with_the_validation_exit_code() {
    let env = Env::new();
    env.add("Run cargo fmt before every commit");
    for args in [
        &["top", "0"][..],
        &["top", "--limit", "0"],
        &["similar", "cargo fmt", "--limit", "0"],
        &["context", "cargo fmt", "--limit", "0"],
        &["context", "cargo fmt", "--days", "0"],
    ] {
        let out = env.cm(args).json().run().code(3);
        let e = out.error_code("INVALID_ARGUMENT");
        assert!(
            e["message"].as_str().unwrap().contains('0'),
            "{args:?}: {e}"
        );
    }
    // One is fine.
    let d = env.cm(&["top", "1"]).json().run().ok().data();
    assert_eq!(d["count"], 1);
    env.cm(&["context", "cargo fmt", "--limit", "1", "--days", "1"])
        .json()
        .run()
        .ok();
}
