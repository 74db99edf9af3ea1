//! `install.sh` for real: install into a temp dir (with the test's binary as the prebuilt one,
//! so no second cargo build), check the links dispatch and `--verify` passes, then uninstall; and
//! refuse cleanly, touching nothing, when cargo is missing.

use crate::harness::{CM, Env, Out};
use std::path::{Path, PathBuf};

pub const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/install.sh");
const LINKS: [&str; 3] = ["cm-pretool", "cm-postsession", "cm-precommit"];

pub fn bash() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/usr/bin/bash"
    }
}

fn install(env: &Env, dest: &Path, extra: &[&str]) -> Out {
    let mut args = vec![SCRIPT, "--dest", dest.to_str().unwrap()];
    args.extend_from_slice(extra);
    env.run_program(bash(), &args)
        .env("CM_INSTALL_PREBUILT", CM)
        .env("SHELL", "/bin/bash")
        .run()
}

#[test]
fn install_verify_and_uninstall() {
    let env = Env::new();
    let dest = env.root.join("prefix/bin");
    let out = install(&env, &dest, &["--verify", "--easy-mode"]).ok();
    assert!(out.stdout.contains("installed"), "{}", out.stdout);
    assert!(out.stdout.contains("verified"), "{}", out.stdout);

    let cm = dest.join("cm");
    assert!(cm.is_file());
    for link in LINKS {
        let p = dest.join(link);
        assert_eq!(std::fs::read_link(&p).unwrap(), PathBuf::from("cm"));
        let run = env.run_program(&p, &[]).run().ok();
        assert!(run.stdout.is_empty(), "{link}: {}", run.stdout);
    }
    // cm init ran; doctor is healthy with the links in place.
    assert!(env.data.join("cm.db").is_file());
    let doctor = env.run_program(&cm, &["doctor", "--json"]).run().ok();
    assert_eq!(doctor.data()["healthy"], true);
    // --easy-mode put the directory on PATH, once, even when run twice.
    install(&env, &dest, &["--easy-mode", "--quiet"]).ok();
    let rc = std::fs::read_to_string(env.home.join(".bashrc")).unwrap();
    assert_eq!(rc.matches(dest.to_str().unwrap()).count(), 1, "{rc}");

    // A rule survives uninstall (the data dir is kept); the installed files do not.
    env.run_program(&cm, &["add", "Survives uninstall"])
        .run()
        .ok();
    let out = env
        .run_program(
            bash(),
            &[SCRIPT, "--dest", dest.to_str().unwrap(), "--uninstall"],
        )
        .run()
        .ok();
    assert!(
        out.stdout.contains("kept the data directory"),
        "{}",
        out.stdout
    );
    assert!(!cm.exists());
    for link in LINKS {
        assert!(
            std::fs::symlink_metadata(dest.join(link)).is_err(),
            "{link} left behind"
        );
    }
    assert!(
        !dest.exists(),
        "the directories the install created are gone"
    );
    assert!(
        !env.home.join(".bashrc").exists(),
        "the rc file the install created is gone"
    );
    assert!(env.data.join("cm.db").is_file());
    let list = env.cm(&["ls"]).json().run().ok().data();
    assert_eq!(list["count"], 1);

    // --purge removes the data dir as well.
    install(&env, &dest, &["--quiet", "--no-init"]).ok();
    env.run_program(
        bash(),
        &[
            SCRIPT,
            "--dest",
            dest.to_str().unwrap(),
            "--uninstall",
            "--purge",
        ],
    )
    .run()
    .ok();
    assert!(!env.data.exists());
}

#[test]
fn uninstall_keeps_foreign_files_and_existing_rc_lines() {
    let env = Env::new();
    let dest = env.root.join("bin");
    std::fs::create_dir_all(&dest).unwrap();
    std::fs::write(dest.join("other-tool"), "#!/bin/sh\n").unwrap();
    std::fs::write(env.home.join(".bashrc"), "alias ll='ls -l'\n").unwrap();
    install(&env, &dest, &["--easy-mode", "--quiet", "--no-init"]).ok();
    env.run_program(
        bash(),
        &[
            SCRIPT,
            "--dest",
            dest.to_str().unwrap(),
            "--uninstall",
            "--quiet",
        ],
    )
    .run()
    .ok();
    assert!(dest.join("other-tool").is_file());
    assert_eq!(
        std::fs::read_to_string(env.home.join(".bashrc")).unwrap(),
        "alias ll='ls -l'\n"
    );
}

/// `install.sh --dest DEST --uninstall`, agents' settings at their default places.
fn uninstall(env: &Env, dest: &Path) -> Out {
    env.run_program(
        bash(),
        &[SCRIPT, "--dest", dest.to_str().unwrap(), "--uninstall"],
    )
    .env_remove("CLAUDE_CONFIG_DIR")
    .env_remove("CODEX_HOME")
    .run()
}

/// `--uninstall` once removed the binary and links but left every agent's settings pointing at
/// them: it takes cm's hooks out of every agent's user settings and every project cm installed
/// into, keeps everything else in those files, and refuses (removing nothing) when it cannot.
#[test]
fn uninstall_removes_cm_hooks_from_every_agent_and_keeps_the_rest() {
    let env = Env::new();
    let dest = env.root.join("bin");
    install(&env, &dest, &["--quiet", "--no-init"]).ok();
    let cm = dest.join("cm");
    let claude = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(claude.parent().unwrap()).unwrap();
    std::fs::write(
        &claude,
        r#"{"model": "opus", "hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "/usr/local/bin/other-guard"}]}]}}"#,
    )
    .unwrap();
    // A project install too (settings in the repository, and its git pre-commit hook), made
    // first: a project install on top of the user's hooks is refused.
    let repo = env.root.join("repo");
    std::fs::create_dir_all(&repo).unwrap();
    env.run_program("git", &["init", "-q"])
        .cwd(&repo)
        .run()
        .ok();
    env.run_program(&cm, &["hooks", "install", "--project"])
        .cwd(&repo)
        .run()
        .ok();
    env.run_program(&cm, &["guard", "--install", "--git"])
        .cwd(&repo)
        .run()
        .ok();
    // Every agent is on this machine (`--agent all` installs only for those).
    std::fs::create_dir_all(env.home.join(".codex")).unwrap();
    std::fs::create_dir_all(env.home.join(".gemini")).unwrap();
    env.run_program(&cm, &["hooks", "install", "--agent", "all"])
        .env_remove("CLAUDE_CONFIG_DIR")
        .env_remove("CODEX_HOME")
        .run()
        .ok();
    // A file cm created is deleted again by the uninstall: it runs nothing.
    let runs_cm = |p: &Path| {
        std::fs::read_to_string(p)
            .unwrap_or_default()
            .contains(dest.to_str().unwrap())
    };
    let project = repo.join(".claude/settings.json");
    for f in [
        &claude,
        &env.home.join(".codex/hooks.json"),
        &env.home.join(".gemini/settings.json"),
        &project,
    ] {
        assert!(runs_cm(f), "{} has no cm hook", f.display());
    }
    assert!(repo.join(".git/hooks/pre-commit").is_file());

    // A malformed settings file: refuse, remove nothing.
    let gemini = env.home.join(".gemini/settings.json");
    let good = std::fs::read(&gemini).unwrap();
    std::fs::write(&gemini, "{ not json").unwrap();
    let out = uninstall(&env, &dest);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("nothing was uninstalled"),
        "{}",
        out.stderr
    );
    assert!(cm.is_file() && runs_cm(&claude), "nothing removed");
    std::fs::write(&gemini, good).unwrap();

    let out = uninstall(&env, &dest).ok();
    assert!(!cm.exists(), "{}", out.stdout);
    for f in [
        &claude,
        &env.home.join(".codex/hooks.json"),
        &gemini,
        &project,
    ] {
        assert!(!runs_cm(f), "{} still runs cm", f.display());
    }
    for created in [&env.home.join(".codex/hooks.json"), &project] {
        assert!(!created.exists(), "{} was cm's alone", created.display());
    }
    assert!(
        !repo.join(".git/hooks/pre-commit").exists(),
        "git hook removed"
    );
    let kept: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&claude).unwrap()).unwrap();
    assert_eq!(kept["model"], "opus");
    assert_eq!(
        kept["hooks"]["PreToolUse"][0]["hooks"][0]["command"], "/usr/local/bin/other-guard",
        "only cm's entries are removed: {kept}"
    );

    // Without a cm binary, settings that still run cm stop the uninstall.
    install(&env, &dest, &["--quiet", "--no-init"]).ok();
    env.run_program(dest.join("cm"), &["hooks", "install"])
        .env_remove("CLAUDE_CONFIG_DIR")
        .run()
        .ok();
    std::fs::remove_file(dest.join("cm")).unwrap();
    let out = uninstall(&env, &dest);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr.contains("still runs cm's hooks"),
        "{}",
        out.stderr
    );
}

#[test]
fn refuses_without_cargo_and_creates_nothing() {
    let env = Env::new();
    // A PATH with the basic tools the script needs, and no cargo or compiler.
    let tools = env.root.join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    for tool in [
        "dirname", "basename", "mkdir", "rm", "cp", "mv", "chmod", "ln", "grep", "sed", "cat",
        "tail", "mktemp", "touch", "readlink", "rmdir", "env", "id",
    ] {
        for dir in ["/usr/bin", "/bin"] {
            let p = Path::new(dir).join(tool);
            if p.exists() {
                std::os::unix::fs::symlink(&p, tools.join(tool)).unwrap();
                break;
            }
        }
    }
    let dest = env.root.join("dest");
    let out = env
        .run_program(
            bash(),
            &[SCRIPT, "--dest", dest.to_str().unwrap(), "--easy-mode"],
        )
        .env("PATH", &tools)
        .env_remove("CM_INSTALL_PREBUILT")
        .run()
        .code(1);
    assert!(out.stderr.contains("cargo was not found"), "{}", out.stderr);
    assert!(
        out.stderr.contains("nothing was installed"),
        "{}",
        out.stderr
    );
    assert!(!dest.exists());
    assert!(!env.data.exists());
    assert_eq!(std::fs::read_dir(&env.home).unwrap().count(), 0);
}

#[test]
fn rejects_bad_options_before_doing_anything() {
    let env = Env::new();
    let out = env
        .run_program(bash(), &[SCRIPT, "--frobnicate"])
        .run()
        .code(1);
    assert!(out.stderr.contains("unknown option"), "{}", out.stderr);
    let out = env
        .run_program(bash(), &[SCRIPT, "--system", "--dest", "/tmp/x"])
        .run()
        .code(1);
    assert!(out.stderr.contains("exclusive"), "{}", out.stderr);
    let out = env.run_program(bash(), &[SCRIPT, "--help"]).run().ok();
    assert!(out.stdout.contains("--uninstall"));
    assert!(!env.data.exists());
}
