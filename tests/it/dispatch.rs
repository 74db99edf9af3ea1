//! Multi-call dispatch: the binary linked as `cm-pretool`, `cm-postsession` and `cm-precommit`
//! runs the hook entry points (as `cm hook NAME` does), without the CLI parser and without
//! touching the data directory.

use crate::harness::{CM, Env, copy_fixture};
use std::path::PathBuf;

const LINKS: [&str; 3] = ["cm-pretool", "cm-postsession", "cm-precommit"];
const HOOKS: [&str; 5] = [
    "pretool",
    "postsession",
    "precommit",
    "session-start",
    "prompt",
];

fn links(env: &Env) -> Vec<PathBuf> {
    LINKS.iter().map(|name| env.link(name)).collect()
}

#[test]
fn links_dispatch_to_hooks_silently_on_an_empty_payload() {
    let env = Env::new();
    for link in links(&env) {
        let out = env.run_program(&link, &[]).run().ok();
        assert!(
            out.stdout.is_empty(),
            "{}: {:?}",
            link.display(),
            out.stdout
        );
        // Each hook reports on stderr (never stdout) what it made of the input, which also
        // proves the link reached that hook: the guard allows a payload it cannot parse, the
        // pre-commit scan finds no repository here, the post-session hook stays silent.
        let name = link.file_name().unwrap().to_str().unwrap();
        match name {
            "cm-pretool" => assert!(
                out.stderr.contains("cm-pretool: malformed payload"),
                "{:?}",
                out.stderr
            ),
            "cm-precommit" => assert!(
                out.stderr.contains("not inside a git repository"),
                "{:?}",
                out.stderr
            ),
            _ => assert!(
                out.stderr.is_empty(),
                "{}: {:?}",
                link.display(),
                out.stderr
            ),
        }
        // Also with an explicitly empty stdin pipe.
        let out = env.run_program(&link, &[]).stdin("").run().ok();
        assert!(out.stdout.is_empty());
    }
    // The hook path never creates the data directory (no config parse, no database open).
    assert!(!env.data.exists(), "a hook touched {}", env.data.display());
}

#[test]
fn links_do_not_parse_cli_arguments() {
    // Were these links reaching the clap parser, `--version` would print a version and
    // `--definitely-not-a-flag` would be an argument error.
    let env = Env::new();
    for link in links(&env) {
        for arg in ["--version", "--definitely-not-a-flag", "playbook"] {
            let out = env.run_program(&link, &[arg]).run().ok();
            assert!(
                out.stdout.is_empty(),
                "{} {arg}: {}",
                link.display(),
                out.stdout
            );
        }
    }
}

#[test]
fn cm_hook_name_reaches_the_same_entry_points() {
    let env = Env::new();
    for name in HOOKS {
        let out = env.cm(&["hook", name]).run().ok();
        assert!(out.stdout.is_empty(), "hook {name}: {}", out.stdout);
        let out = env.cm(&["hook", name]).stdin("").run().ok();
        assert!(out.stdout.is_empty(), "hook {name}: {}", out.stdout);
    }
    // Global flags before `hook` do not divert it to the CLI.
    for flags in [vec!["--json"], vec!["-q"], vec!["--json", "--quiet"]] {
        let mut args = flags.clone();
        args.extend(["hook", "pretool"]);
        let out = env.cm(&args).run().ok();
        assert!(out.stdout.is_empty(), "{args:?}: {}", out.stdout);
    }
    assert!(!env.data.exists(), "`cm hook` touched the data directory");
    // An unknown name is refused by the hook dispatcher with the list of names (exit 2, the
    // hooks' protocol); a missing one is a CLI usage error (exit 3, validation).
    let out = env.cm(&["hook", "nope"]).run().code(2);
    assert!(out.stderr.contains("pretool"), "{}", out.stderr);
    let out = env.cm(&["hook"]).json().run().code(3);
    assert_eq!(out.error()["code"], "INVALID_ARGUMENT");
}

#[test]
fn a_copy_under_another_name_is_the_cli() {
    let env = Env::new();
    let other = env.link("my-cm");
    let out = env.run_program(&other, &["--version"]).run().ok();
    assert!(out.stdout.starts_with("cm "), "{}", out.stdout);
}

#[test]
fn doctor_finds_links_beside_the_binary() {
    let env = Env::new();
    let bin = env.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let cm = bin.join("cm");
    std::fs::copy(CM, &cm).unwrap();
    let doctor = |env: &Env| env.run_program(&cm, &["doctor", "--json"]).run();
    env.run_program(&cm, &["init"]).run().ok();
    // Links missing: a warning, not a failure.
    let out = doctor(&env).ok();
    let checks = out.data()["checks"].clone();
    let pretool = checks
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "cm-pretool")
        .unwrap()
        .clone();
    assert_eq!(pretool["status"], "warn");
    for name in LINKS {
        std::os::unix::fs::symlink("cm", bin.join(name)).unwrap();
    }
    // No session indexed and no agent hooked up yet: warnings that say what to run.
    let d = doctor(&env).ok().data();
    let status_of = |d: &serde_json::Value, name: &str| {
        d["checks"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["name"] == name)
            .unwrap()["status"]
            .clone()
    };
    assert_eq!(status_of(&d, "session index"), "warn", "{d}");
    assert_eq!(status_of(&d, "hooks"), "warn", "{d}");
    assert_eq!(d["healthy"], true);
    // Index one session and install the hooks: everything is ok.
    let session = env
        .home
        .join(".claude/projects/-home-u-proj/3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f.jsonl");
    std::fs::create_dir_all(session.parent().unwrap()).unwrap();
    copy_fixture("episodic/index/claude_session.jsonl", &session);
    env.run_program(&cm, &["history", "index"]).run().ok();
    env.run_program(&cm, &["hooks", "install"]).run().ok();
    let out = doctor(&env).ok();
    let d = out.data();
    assert_eq!(d["healthy"], true);
    assert!(
        d["checks"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c["status"] == "ok"),
        "{d}"
    );
    // A broken store fails doctor with exit 1.
    for leftover in ["cm.db-wal", "cm.db-shm"] {
        let _ = std::fs::remove_file(env.data.join(leftover));
    }
    std::fs::write(env.data.join("cm.db"), b"garbage garbage garbage").unwrap();
    let out = doctor(&env).code(1);
    assert_eq!(out.data()["healthy"], false);
}
