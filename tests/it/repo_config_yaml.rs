//! A repository's `.cass/config.yaml` (the original tool's users may keep one) is read like
//! `.cass/config.json`: same keys, same limits, a malformed one named with its position; with
//! both files the YAML one is named as ignored instead of ignored silently.

use crate::harness::Env;

#[test]
fn a_repository_config_yaml_is_read() {
    let env = Env::new();
    env.git_repo();
    env.cm(&[
        "add",
        "Keep the cluster at three nodes",
        "--category",
        "infra",
    ])
    .json()
    .run()
    .code(3)
    .error_code("INVALID_CATEGORY");
    env.write("work/.cass/config.yaml", "customCategories:\n  - infra\n");
    env.cm(&[
        "add",
        "Keep the cluster at three nodes",
        "--category",
        "infra",
    ])
    .json()
    .run()
    .ok();

    // Same limits as JSON, and the file named with its position.
    env.write("work/.cass/config.yaml", "maxBulletsInContext: [1\n");
    let e = env
        .cm(&["ls"])
        .json()
        .run()
        .code(2)
        .error_code("CONFIG_INVALID");
    assert!(
        e["message"].as_str().unwrap().contains("config.yaml")
            && e["message"].as_str().unwrap().contains("line"),
        "{e}"
    );

    // With config.json beside it, the YAML file is named as ignored.
    env.write("work/.cass/config.yaml", "customCategories: [infra]\n");
    env.write("work/.cass/config.json", "{}");
    let out = env.cm(&["ls"]).run().ok();
    assert!(
        out.stderr.contains("config.yaml: ignored"),
        "{}",
        out.stderr
    );
}
