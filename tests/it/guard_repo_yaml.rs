//! The guard hook reads a repository's `.cass/config.yaml` as it reads `.cass/config.json`
//! (issue 26 item 8): through the real cm-pretool, its protected paths are denied, and it may
//! only tighten the guard (its allow entries are ignored, with a warning). With both files the
//! JSON one is the repository's config, as for the CLI.

use crate::harness::{Env, claude_bash, claude_write};

fn denies(out: &crate::harness::Out) -> bool {
    out.stdout.contains("\"permissionDecision\":\"deny\"")
}

#[test]
fn a_repository_config_yaml_tightens_the_guard_in_the_hook() {
    let env = Env::for_guard();
    let cwd = env.cwd.clone();
    let write = claude_write("secrets/prod.key", &cwd);
    assert!(!denies(&env.pretool(&write)), "nothing protects it yet");
    env.write(
        "project/.cass/config.yaml",
        "# kept from the original tool\nguard:\n  protectedPaths:\n    - secrets/**\n  allow:\n    - command: git clean -fdx\n      scope: global\n",
    );
    let out = env.pretool(&write);
    assert!(denies(&out), "{}\n{}", out.stdout, out.stderr);
    assert!(
        out.stdout.contains("guard.protectedPaths"),
        "{}",
        out.stdout
    );
    // A repository cannot allow what the guard blocks, in YAML either.
    let out = env.pretool(&claude_bash("git clean -fdx", &cwd));
    assert!(denies(&out), "{}", out.stdout);
    assert!(
        out.stderr.contains("ignoring") && out.stderr.contains("repository config"),
        "{}",
        out.stderr
    );
    // `.yml` too.
    std::fs::rename(cwd.join(".cass/config.yaml"), cwd.join(".cass/config.yml")).unwrap();
    assert!(denies(&env.pretool(&write)));
    // With a config.json beside it, the JSON file is the repository's config.
    env.write("project/.cass/config.json", "{}");
    assert!(!denies(&env.pretool(&write)));
}

#[test]
fn a_malformed_repository_yaml_is_named_and_ignored() {
    let env = Env::for_guard();
    let cwd = env.cwd.clone();
    env.write("project/.cass/config.yaml", "guard: [protectedPaths\n");
    let out = env.pretool(&claude_bash("git clean -fdx", &cwd));
    assert!(
        denies(&out),
        "the built-in rules still hold: {}",
        out.stdout
    );
    assert!(
        out.stderr
            .contains("config.yaml is not valid guard configuration"),
        "{}",
        out.stderr
    );
}
