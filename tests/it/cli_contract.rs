//! The output contract and the bad-input promises, through the real binary: one JSON object on
//! stdout with `--json` (success and failure, argument errors included), `--quiet` ids, exit
//! codes, configuration precedence and its errors, and a store that is corrupt, foreign,
//! read-only or on a full disk.

use crate::harness::{CM, Env, Out, bytes, is_root};
use serde_json::Value;
use std::path::Path;
use std::process::Command;

fn assert_success_envelope(v: &Value, command: &str) {
    assert_eq!(v["success"], true, "{v}");
    assert_eq!(v["command"], command, "{v}");
    assert!(v["data"].is_object(), "{v}");
    assert!(v["metadata"]["version"].is_string(), "{v}");
    assert!(v["metadata"]["executionMs"].is_u64(), "{v}");
    assert_eq!(
        v.as_object().unwrap().len(),
        4,
        "no extra top-level keys: {v}"
    );
}

fn assert_error_envelope(v: &Value, code: &str, exit: i64) {
    assert_eq!(v["success"], false, "{v}");
    assert!(v["command"].is_string(), "{v}");
    let e = &v["error"];
    assert_eq!(e["code"], code, "{v}");
    assert!(!e["message"].as_str().unwrap().is_empty(), "{v}");
    assert!(e["hint"].is_string(), "every error has a hint: {v}");
    assert!(e["retryable"].is_boolean(), "{v}");
    assert_eq!(e["exitCode"], exit, "{v}");
}

#[test]
fn every_command_prints_one_success_envelope() {
    let env = Env::new();
    let id = env.add("Always check the envelope");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["init"], "init"),
        (vec!["playbook", "list"], "playbook list"),
        (vec!["ls"], "playbook list"),
        (vec!["playbook", "get", &id], "playbook get"),
        (vec!["add", "Another rule"], "playbook add"),
        (vec!["mark", &id, "--helpful"], "mark"),
        (vec!["undo", &id], "undo"),
        (vec!["outcome", "success", &id], "outcome"),
        (vec!["outcome-apply"], "outcome-apply"),
        (vec!["outcome-clear"], "outcome-clear"),
        (vec!["top"], "top"),
        (vec!["stale"], "stale"),
        (vec!["why", &id], "why"),
        (vec!["stats"], "stats"),
        (vec!["playbook", "export"], "playbook export"),
        (vec!["starters"], "starters"),
        (vec!["forget", &id, "--reason", "done"], "forget"),
    ];
    for (args, command) in cases {
        let out = env.cm(&args).json().run().ok();
        assert_success_envelope(&out.json(), command);
        assert!(
            out.stderr.is_empty(),
            "{args:?} wrote to stderr: {}",
            out.stderr
        );
    }
    // --json is accepted anywhere on the line.
    let out = env.cm(&["--json", "ls"]).run().ok();
    assert_success_envelope(&out.json(), "playbook list");
}

#[test]
fn errors_are_one_json_object_with_code_hint_and_exit_code() {
    let env = Env::new();
    env.add("Some rule");
    env.add("Another rule");
    let long = "x".repeat(2001);
    let cases: Vec<(Vec<&str>, &str, i32)> = vec![
        (vec!["playbook", "get", "b-"], "AMBIGUOUS_ID", 3),
        (vec!["add", &long], "RULE_TOO_LONG", 3),
        (vec!["add", "x", "--tags", "two words"], "INVALID_TAG", 3),
        (vec!["playbook", "get", "b-nope"], "RULE_NOT_FOUND", 3),
        (vec!["mark", "b-nope", "--harmful"], "RULE_NOT_FOUND", 3),
        (vec!["why", "b-nope"], "RULE_NOT_FOUND", 3),
        (
            vec!["forget", "b-nope", "--reason", "x"],
            "RULE_NOT_FOUND",
            3,
        ),
        (vec!["undo", "b-nope"], "RULE_NOT_FOUND", 3),
        (vec!["add", ""], "EMPTY_RULE", 3),
        (vec!["add", "   \t "], "EMPTY_RULE", 3),
        (vec!["add"], "EMPTY_RULE", 3),
        (
            vec!["add", "x", "--category", "tesitng"],
            "INVALID_CATEGORY",
            3,
        ),
        (vec!["add", "x", "--scope", "planet"], "INVALID_SCOPE", 3),
        (vec!["add", "x", "--scope", "language:"], "INVALID_SCOPE", 3),
        (vec!["top", "--category", "nope"], "INVALID_CATEGORY", 3),
        (
            vec!["playbook", "import", "/no/such.yaml"],
            "FILE_NOT_FOUND",
            3,
        ),
        // Argument errors from the parser are JSON too.
        (vec!["mark"], "INVALID_ARGUMENT", 3),
        (vec!["playbook", "get"], "INVALID_ARGUMENT", 3),
        (vec!["playbook"], "INVALID_ARGUMENT", 3),
        (vec!["playbook", "frobnicate"], "INVALID_ARGUMENT", 3),
        (vec!["no-such-command"], "INVALID_ARGUMENT", 3),
        (vec!["ls", "--limit", "many"], "INVALID_ARGUMENT", 3),
        (vec!["stale", "--bogus-flag"], "INVALID_ARGUMENT", 3),
    ];
    for (args, code, exit) in cases {
        let out = env.cm(&args).json().run().code(exit);
        assert_error_envelope(&out.json(), code, exit as i64);
    }
    // Without --json: nothing on stdout, the message and hint on stderr.
    let out = env.cm(&["playbook", "get", "b-nope"]).run().code(3);
    assert!(out.stdout.is_empty());
    assert!(out.stderr.contains("b-nope") && out.stderr.contains("hint:"));
    assert!(!out.stderr.contains('\x1b'));
}

#[test]
fn quiet_prints_only_ids() {
    let env = Env::new();
    let out = env.cm(&["add", "Quiet rule", "--quiet"]).run().ok();
    let id = out.stdout.trim().to_string();
    assert!(
        id.starts_with("b-") && !id.contains(' '),
        "{:?}",
        out.stdout
    );
    let out = env.cm(&["-q", "mark", &id, "--helpful"]).run().ok();
    assert_eq!(out.stdout.trim(), id);
    let out = env.cm(&["top", "--quiet"]).run().ok();
    assert_eq!(out.stdout.trim(), id);
    let out = env.cm(&["playbook", "get", &id, "--quiet"]).run().ok();
    assert_eq!(out.stdout.trim(), id);
    // Errors under --quiet still go to stderr with the exit code.
    let out = env.cm(&["mark", "b-nope", "--helpful", "-q"]).run().code(3);
    assert!(out.stdout.is_empty() && !out.stderr.is_empty());
}

#[test]
fn help_and_version_exit_zero() {
    let env = Env::new();
    let out = env.cm(&["--version"]).run().ok();
    assert!(out.stdout.starts_with("cm "), "{}", out.stdout);
    let out = env.cm(&["--help"]).run().ok();
    assert!(out.stdout.contains("playbook"));
    let out = env.cm(&["playbook", "add", "--help"]).run().ok();
    assert!(out.stdout.contains("--repo"));
    // A bare `cm` shows usage and fails.
    env.cm(&[]).run().code(3);
}

#[test]
fn malformed_config_is_exit_2_names_file_and_position_and_is_never_rewritten() {
    let env = Env::new();
    env.cm(&["init"]).run().ok();
    let cfg = env.data.join("config.json");
    let broken = "{\n  \"scoring\": {\n    \"harmfulMultiplier\": 4,,\n  }\n}\n";
    std::fs::write(&cfg, broken).unwrap();
    for args in [
        vec!["ls"],
        vec!["add", "x"],
        vec!["init"],
        vec!["init", "--force"],
    ] {
        let out = env.cm(&args).json().run().code(2);
        let v = out.json();
        assert_error_envelope(&v, "CONFIG_INVALID", 2);
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(msg.contains("config.json"), "{msg}");
        assert!(msg.contains("line 3"), "{msg}");
        assert_eq!(std::fs::read_to_string(&cfg).unwrap(), broken, "{args:?}");
    }
    // A wrong type names the file too.
    std::fs::write(&cfg, r#"{"scoring": {"decayHalfLifeDays": "ninety"}}"#).unwrap();
    let v = env.cm(&["ls"]).json().run().code(2).json();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("config.json")
    );
    // The repository's file is held to the same rules.
    std::fs::write(&cfg, "{}").unwrap();
    env.git_repo();
    std::fs::create_dir_all(env.cwd.join(".cass")).unwrap();
    let repo_cfg = env.cwd.join(".cass/config.json");
    std::fs::write(&repo_cfg, "{ nope }").unwrap();
    let v = env.cm(&["ls"]).json().run().code(2).json();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains(".cass/config.json"),
        "{v}"
    );
    assert_eq!(std::fs::read_to_string(&repo_cfg).unwrap(), "{ nope }");
}

#[test]
fn config_precedence_flags_over_repo_over_global_over_defaults() {
    let env = Env::new();
    env.git_repo();
    let t0 = "2026-01-01T00:00:00Z";
    let id = env.cm(&["add", "Rule"]).now(t0).json().run().ok().data()["bullet"]["id"]
        .as_str()
        .unwrap()
        .to_string();
    env.cm(&["mark", &id, "--harmful"]).now(t0).run().ok();
    let at = |now: &str| {
        env.cm(&["playbook", "get", &id])
            .now(now)
            .json()
            .run()
            .ok()
            .data()["bullet"]["effectiveScore"]
            .as_f64()
            .unwrap()
    };
    let stale_days = |extra: &[&str]| {
        let mut args = vec!["stale"];
        args.extend_from_slice(extra);
        env.cm(&args)
            .now("2026-01-21T00:00:00Z")
            .json()
            .run()
            .ok()
            .data()["days"]
            .as_u64()
            .unwrap()
    };
    // Defaults.
    assert_eq!(at(t0), -4.0);
    assert_eq!(stale_days(&[]), 90);
    // Global.
    std::fs::create_dir_all(&env.data).unwrap();
    std::fs::write(
        env.data.join("config.json"),
        r#"{"scoring": {"harmfulMultiplier": 2}, "staleDays": 10}"#,
    )
    .unwrap();
    assert_eq!(at(t0), -2.0);
    assert_eq!(stale_days(&[]), 10);
    // Repo over global; keys it does not set still come from the global file.
    std::fs::create_dir_all(env.cwd.join(".cass")).unwrap();
    std::fs::write(
        env.cwd.join(".cass/config.json"),
        r#"{"scoring": {"decayHalfLifeDays": 10}, "staleDays": 15}"#,
    )
    .unwrap();
    assert!((at("2026-01-11T00:00:00Z") - (-1.0)).abs() < 1e-9);
    assert_eq!(stale_days(&[]), 15);
    // Flags over everything.
    assert_eq!(stale_days(&["--days", "3"]), 3);
}

#[test]
fn repo_config_cannot_move_data_or_change_consent() {
    let env = Env::new();
    env.git_repo();
    std::fs::create_dir_all(env.cwd.join(".cass")).unwrap();
    let elsewhere = env.root.join("stolen");
    std::fs::write(
        env.cwd.join(".cass/config.json"),
        format!(
            r#"{{"dataDir": "{}", "crossAgent": {{"enabled": true, "consentGiven": true}}, "staleDays": 5}}"#,
            elsewhere.display()
        ),
    )
    .unwrap();
    let out = env.cm(&["add", "Rule"]).run().ok();
    assert!(
        out.stderr.contains("ignoring \"dataDir\""),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("ignoring \"crossAgent\""),
        "{}",
        out.stderr
    );
    assert!(env.db().is_file());
    assert!(!elsewhere.exists());
    // The allowed key still applies.
    let d = env.cm(&["stale"]).json().run().ok().data();
    assert_eq!(d["days"], 5);
}

#[test]
fn a_corrupt_database_file_is_refused_and_left_untouched() {
    let env = Env::new();
    std::fs::create_dir_all(&env.data).unwrap();
    let mut junk = b"this is not a database at all\n".repeat(300);
    junk.extend((0..4096u32).map(|i| (i * 7 % 251) as u8));
    std::fs::write(env.db(), &junk).unwrap();
    for args in [vec!["ls"], vec!["add", "x"], vec!["init"]] {
        let out = env.cm(&args).json().run().code(1);
        let v = out.json();
        assert_error_envelope(&v, "STORE_CORRUPT", 1);
        assert!(
            v["error"]["message"]
                .as_str()
                .unwrap()
                .contains(env.db().to_str().unwrap())
        );
    }
    assert_eq!(bytes(&env.db()), junk);
    // A database whose pages are damaged behind a valid header is refused too.
    let env2 = Env::new();
    for i in 0..30 {
        env2.add(&format!("rule number {i} with some text to fill pages"));
    }
    // Fold the WAL into the file, then damage everything after the header.
    let db = env2.db();
    let conn = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('PRAGMA wal_checkpoint(TRUNCATE)'); c.close()",
            db.to_str().unwrap(),
        ])
        .status();
    if conn.map(|s| s.success()).unwrap_or(false) {
        let mut data = bytes(&db);
        for b in data.iter_mut().skip(100) {
            *b ^= 0x5a;
        }
        std::fs::write(&db, &data).unwrap();
        let _ = std::fs::remove_file(db.with_extension("db-wal"));
        let _ = std::fs::remove_file(db.with_extension("db-shm"));
        let out = env2.cm(&["ls"]).json().run();
        assert_ne!(out.code, 0);
        let e = out.error();
        assert!(
            ["STORE_CORRUPT", "STORE_FOREIGN"].contains(&e["code"].as_str().unwrap()),
            "{e}"
        );
        assert_eq!(bytes(&db), data);
    }
}

#[test]
fn a_foreign_sqlite_database_is_refused_byte_for_byte_untouched() {
    let env = Env::new();
    std::fs::create_dir_all(&env.data).unwrap();
    let made = Command::new("python3")
        .args([
            "-c",
            "import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute('create table notes(x)'); c.execute(\"insert into notes values('mine')\"); c.commit(); c.close()",
            env.db().to_str().unwrap(),
        ])
        .status()
        .expect("python3 runs");
    assert!(made.success());
    let before = bytes(&env.db());
    for args in [vec!["ls"], vec!["add", "x"], vec!["init"], vec!["stats"]] {
        let v = env.cm(&args).json().run().code(1).json();
        assert_error_envelope(&v, "STORE_FOREIGN", 1);
    }
    assert_eq!(bytes(&env.db()), before);
    let leftovers: Vec<_> = std::fs::read_dir(&env.data)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    assert_eq!(leftovers, vec!["cm.db".to_string()], "no WAL or lock files");
}

/// Runs `cm` as an unprivileged user when the test runs as root (permissions do not bind for
/// root), or as the current user otherwise.
fn run_unprivileged(env: &Env, args: &[&str]) -> Option<Out> {
    if !is_root() {
        return Some(env.cm(args).json().run());
    }
    let setpriv = ["/usr/bin/setpriv", "/bin/setpriv"]
        .into_iter()
        .find(|p| Path::new(p).exists())?;
    // The binary must be reachable by that user: copy it into the (world-readable) temp dir.
    let bin = env.root.join("cm-copy");
    if !bin.exists() {
        std::fs::copy(CM, &bin).ok()?;
    }
    let mut full = vec![
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        bin.to_str().unwrap(),
        "--json",
    ];
    full.extend_from_slice(args);
    Some(env.run_program(setpriv, &full).run())
}

#[test]
fn a_read_only_data_dir_gives_a_clear_error_and_loses_nothing() {
    use std::os::unix::fs::PermissionsExt;
    let env = Env::new();
    let id = env.add("Rule that must survive");
    // Make everything world-readable (for the unprivileged user) but not writable.
    for dir in [env.root.as_path(), env.home.as_path(), env.cwd.as_path()] {
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    for entry in std::fs::read_dir(&env.data).unwrap() {
        let p = entry.unwrap().path();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o444)).unwrap();
    }
    std::fs::set_permissions(&env.data, std::fs::Permissions::from_mode(0o555)).unwrap();
    let before = bytes(&env.db());
    let Some(out) = run_unprivileged(&env, &["add", "New rule"]) else {
        eprintln!("skipped: running as root without setpriv, permissions cannot be tested");
        return;
    };
    assert_eq!(out.code, 1, "{out:?}");
    let v = out.json();
    assert_error_envelope(&v, "PERMISSION_DENIED", 1);
    assert!(
        v["error"]["hint"]
            .as_str()
            .unwrap()
            .contains("CASS_MEMORY_HOME")
    );
    let out = run_unprivileged(&env, &["mark", &id, "--helpful"]).unwrap();
    assert_eq!(out.code, 1, "{out:?}");
    // Reading still works: the store's WAL and shared-memory files are already there.
    let out = run_unprivileged(&env, &["playbook", "get", &id]).unwrap();
    assert_eq!(out.code, 0, "{out:?}");
    assert_eq!(out.data()["bullet"]["content"], "Rule that must survive");
    std::fs::set_permissions(&env.data, std::fs::Permissions::from_mode(0o755)).unwrap();
    assert_eq!(bytes(&env.db()), before);
    for entry in std::fs::read_dir(&env.data).unwrap() {
        let p = entry.unwrap().path();
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o644)).unwrap();
    }
    let got = env.cm(&["playbook", "get", &id]).json().run().ok().data();
    assert_eq!(got["bullet"]["content"], "Rule that must survive");
}

/// A small tmpfs, unmounted on drop. Only root can mount; elsewhere the test is skipped.
struct SmallDisk(std::path::PathBuf);

impl SmallDisk {
    fn mount(at: &Path, size: &str) -> Option<SmallDisk> {
        if !is_root() {
            return None;
        }
        std::fs::create_dir_all(at).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .status()
            .map(|s| s.success())
            .unwrap_or(false);
        ok.then(|| SmallDisk(at.to_path_buf()))
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

#[test]
fn a_full_disk_is_reported_as_such_and_loses_nothing() {
    let env = Env::new();
    let disk = env.root.join("small");
    let Some(_mounted) = SmallDisk::mount(&disk, "1m") else {
        eprintln!("skipped: cannot mount a small tmpfs (needs root)");
        return;
    };
    let data = disk.join("data");
    let cm = |args: &[&str]| env.cm(args).env("CASS_MEMORY_HOME", &data).json().run();
    cm(&["init"]).ok();
    let mut ids = Vec::new();
    for i in 0..5 {
        ids.push(
            cm(&["add", &format!("Rule {i} kept across a full disk")])
                .ok()
                .data()["bullet"]["id"]
                .as_str()
                .unwrap()
                .to_string(),
        );
    }
    // Fill the disk, then try to write a big batch.
    let filler = disk.join("filler");
    let _ = std::fs::write(&filler, vec![0u8; 2 << 20]);
    let batch: Vec<_> = (0..200)
        .map(|i| serde_json::json!({"content": format!("bulk {i} {}", "x".repeat(1500))}))
        .collect();
    let out = env
        .cm(&["add", "--file", "-"])
        .env("CASS_MEMORY_HOME", &data)
        .stdin(serde_json::to_string(&batch).unwrap())
        .json()
        .run()
        .code(1);
    let v = out.json();
    assert_error_envelope(&v, "DISK_FULL", 1);
    assert_eq!(v["error"]["retryable"], true);
    std::fs::remove_file(&filler).unwrap();
    let list = cm(&["ls"]).ok().data();
    assert_eq!(
        list["count"], 5,
        "the five rules survive, the batch is absent"
    );
    let mark = cm(&["mark", &ids[0], "--helpful"]).ok().data();
    assert_eq!(mark["bullet"]["helpfulCount"], 1);
}

#[test]
fn an_unparseable_cm_now_is_ignored_with_a_warning() {
    let env = Env::new();
    let out = env.cm(&["add", "Rule"]).now("yesterday").json().run().ok();
    assert!(out.stderr.contains("CM_NOW"), "{}", out.stderr);
    let created = out.data()["bullet"]["createdAt"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(created.starts_with("20"), "{created}");
    let out = env
        .cm(&["add", "Pinned rule"])
        .now("2031-05-06T07:08:09Z")
        .json()
        .run()
        .ok();
    assert_eq!(
        out.data()["bullet"]["createdAt"],
        "2031-05-06T07:08:09.000Z"
    );
}

/// Argument bytes that are not UTF-8 (`printf 'Bad \xff rule'`): a clear usage error naming the
/// argument, never the panic (exit 134) that reading them as `String`s gave; the guard decides
/// on the lossy text instead, and the hook link ignores its arguments.
#[test]
fn arguments_that_are_not_utf8_are_a_clear_error_not_a_crash() {
    use std::os::unix::ffi::OsStrExt;
    let env = Env::new();
    let id = env.add("Always run the tests");
    let bad = std::ffi::OsStr::from_bytes(b"Bad \xff rule");
    let cases: [&[&str]; 5] = [
        &["add"],
        &["context"],
        &["mark", "--helpful"],
        &["trauma", "add"],
        &["forget", "--reason", "x"],
    ];
    for words in cases {
        let out = env.cm(words).arg_os(bad).json().run().code(3);
        let e = out.error_code("INVALID_UTF8");
        assert!(
            e["message"].as_str().unwrap().contains("Bad \\xFF rule"),
            "{e}"
        );
        assert!(out.stderr.is_empty(), "{}", out.stderr);
        // Without --json: the same message on stderr, nothing on stdout.
        let human = env.cm(words).arg_os(bad).run().code(3);
        assert!(human.stdout.is_empty());
        assert!(human.stderr.contains("not valid UTF-8"), "{}", human.stderr);
    }
    let list = env.cm(&["ls"]).json().run().ok().data();
    assert_eq!(list["count"], 1, "nothing was added");
    assert_eq!(
        env.cm(&["playbook", "get", &id]).json().run().ok().data()["bullet"]["helpfulCount"],
        0
    );

    // The guard checks the lossy text: still a hard reset.
    let cmd = std::ffi::OsStr::from_bytes(b"git reset --hard \xff");
    let out = env.cm(&["guard", "check"]).arg_os(cmd).json().run().ok();
    let d = out.data();
    assert_eq!(d["decision"], "deny", "{d}");
    assert_eq!(d["lossy"], true);
    assert!(
        d["warnings"][0]
            .as_str()
            .unwrap()
            .contains("not valid UTF-8"),
        "{d}"
    );

    // The hook link: arguments are ignored, never a crash.
    let link = env.link("cm-pretool");
    let out = env.run_program(&link, &[]).arg_os(bad).run();
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(out.stdout.is_empty());
}

/// `{"scoring":{"harmfulMultiplier":-5}}` once made a harmful mark raise the score, and typos
/// were ignored without a word: a value out of range or of the wrong type is exit 2 naming the
/// key's path and the file; an unknown key is a warning naming the closest known key.
#[test]
fn config_values_are_validated_and_unknown_keys_warned() {
    let env = Env::new();
    let id = env.add("Always run the tests");
    let config = env.data.join("config.json");
    for (text, key) in [
        (
            r#"{"scoring": {"harmfulMultiplier": -5}}"#,
            "scoring.harmfulMultiplier",
        ),
        (r#"{"maxBulletsInContext": "lots"}"#, "maxBulletsInContext"),
        (
            r#"{"dedupSimilarityThreshold": 2}"#,
            "dedupSimilarityThreshold",
        ),
        (r#"{"guard": {"failClosed": "yes"}}"#, "guard.failClosed"),
    ] {
        std::fs::write(&config, text).unwrap();
        let out = env.cm(&["mark", &id, "--harmful"]).json().run().code(2);
        let e = out.error_code("CONFIG_INVALID");
        let msg = e["message"].as_str().unwrap();
        assert!(msg.contains(&format!("\"{key}\"")), "{msg}");
        assert!(msg.contains(config.to_str().unwrap()), "{msg}");
        assert_eq!(
            std::fs::read_to_string(&config).unwrap(),
            text,
            "never rewritten"
        );
    }
    let b = env.cm(&["playbook", "get", &id]).json().run();
    assert_eq!(b.code, 2, "the bad config still stands");
    std::fs::write(
        &config,
        r#"{"scoring": {"harmfulMultipler": 2}, "maxBulletsInContxt": 5}"#,
    )
    .unwrap();
    let out = env.cm(&["mark", &id, "--harmful"]).json().run().ok();
    assert_eq!(
        out.data()["bullet"]["harmfulCount"],
        1,
        "nothing was marked before"
    );
    assert!(
        out.stderr.contains("unknown key \"scoring.harmfulMultipler\" is ignored (did you mean \"scoring.harmfulMultiplier\"?)"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr.contains("did you mean \"maxBulletsInContext\""),
        "{}",
        out.stderr
    );
    // The typo changed nothing: the default multiplier (4) applied.
    assert_eq!(out.data()["bullet"]["effectiveScore"], -4.0);
}

/// A config file cm refuses to read says why in its hint: too large, not a regular file, not
/// UTF-8 (the hint once blamed permissions for all of them).
#[test]
fn an_unreadable_config_file_gets_the_hint_for_its_cause() {
    let env = Env::new();
    let id = env.add("Always run the tests");
    let config = env.data.join("config.json");
    for (make, hint) in [
        (
            Box::new(|p: &std::path::Path| std::fs::write(p, " ".repeat(5 << 20)).unwrap())
                as Box<dyn Fn(&std::path::Path)>,
            "a few settings",
        ),
        (
            Box::new(|p: &std::path::Path| std::fs::create_dir(p).unwrap()),
            "regular JSON file",
        ),
        (
            Box::new(|p: &std::path::Path| std::fs::write(p, [0xff, 0xfe, b'{']).unwrap()),
            "UTF-8",
        ),
    ] {
        let _ = std::fs::remove_file(&config);
        let _ = std::fs::remove_dir(&config);
        make(&config);
        let out = env.cm(&["mark", &id, "--harmful"]).json().run().code(2);
        let e = out.error_code("CONFIG_UNREADABLE");
        let h = e["hint"].as_str().unwrap();
        assert!(h.contains(hint), "{h}");
    }
}
