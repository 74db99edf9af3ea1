//! `install.sh` for real: install into a temp dir (with the test's binary as the prebuilt one,
//! so no second cargo build), check the links dispatch and `--verify` passes, then uninstall; and
//! refuse cleanly, touching nothing, when cargo is missing.

mod common;

use common::{CM, Env};
use std::path::{Path, PathBuf};

const SCRIPT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/install.sh");
const LINKS: [&str; 3] = ["cm-pretool", "cm-postsession", "cm-precommit"];

fn bash() -> &'static str {
    if Path::new("/bin/bash").exists() {
        "/bin/bash"
    } else {
        "/usr/bin/bash"
    }
}

fn install(env: &Env, dest: &Path, extra: &[&str]) -> common::Out {
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
    let dest = env.tmp.path().join("prefix/bin");
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
    let dest = env.tmp.path().join("bin");
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

#[test]
fn refuses_without_cargo_and_creates_nothing() {
    let env = Env::new();
    // A PATH with the basic tools the script needs, and no cargo or compiler.
    let tools = env.tmp.path().join("tools");
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
    let dest = env.tmp.path().join("dest");
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
