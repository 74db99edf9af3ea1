//! The store when the disk is against it: a file-size limit, a full disk, pages corrupted where
//! no query of the run reads. Each must give a clear error (exit 1), keep what was committed,
//! and leave no dead WAL frames behind. Real binary, real SQLite, real session files.

use crate::harness::Env;
use serde_json::Value;
use std::path::Path;

/// A few Claude Code sessions with enough text to need several megabytes of store.
fn write_sessions(env: &Env, files: usize, lines: usize) {
    let dir = env.home.join(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&dir).unwrap();
    for f in 0..files {
        let session = format!("5e55{f:04}-0000-4000-8000-000000000000");
        let mut text = String::new();
        for i in 0..lines {
            let body = format!(
                "step {i} of session {f}: the parser keeps the offset of line {i} and the index resumes from it; {}",
                "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod ".repeat(6)
            );
            let line = serde_json::json!({"parentUuid": null, "isSidechain": false, "userType": "external",
                "cwd": "/home/u/app", "sessionId": session, "type": "user",
                "message": {"role": "user", "content": body},
                "uuid": format!("u{f}-{i}"), "timestamp": "2026-08-10T12:00:00.000Z"});
            text.push_str(&line.to_string());
            text.push('\n');
        }
        std::fs::write(dir.join(format!("{session}.jsonl")), text).unwrap();
    }
}

/// `cm history index --json` through `sh -c`, with `prefix` run first (a `ulimit`).
fn index_with(env: &Env, prefix: &str) -> (i32, Value) {
    let out = env
        .shell(&format!("{prefix} exec \"$CM\" history index --json"))
        .run();
    let text = &out.stdout;
    let v: Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!(
            "not one JSON object ({e}), exit {}: {text}\nstderr: {}",
            out.code, out.stderr
        )
    });
    (out.code, v)
}

fn wal_len(db: &Path) -> u64 {
    std::fs::metadata(db.with_file_name("cm.db-wal"))
        .map(|m| m.len())
        .unwrap_or(0)
}

#[test]
fn a_file_size_limit_is_a_clear_error_and_leaves_no_dead_wal() {
    let env = Env::new();
    write_sessions(&env, 6, 1500);
    // 2 MiB (ulimit -f counts 512-byte blocks): the store cannot hold these sessions.
    let (code, v) = index_with(&env, "ulimit -f 4096;");
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["code"], "FILE_TOO_LARGE", "{v}");
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains("ulimit -f"),
        "{v}"
    );
    // What is left in the WAL is the last small committed transaction, never the dead frames
    // of the one that failed (the store can hold no more, so it cannot be folded back).
    let wal = wal_len(&env.db());
    assert!(wal < 1 << 20, "the WAL holds {wal} bytes");
    // Without the limit everything is indexed, nothing twice.
    let (code, v) = index_with(&env, "");
    assert_eq!(code, 0, "{v}");
    let stats = env.cm(&["history", "stats"]).json().run().ok().data();
    assert_eq!(stats["messages"], 6 * 1500, "{stats}");
}

#[test]
fn a_full_disk_is_a_clear_error_and_gives_the_space_back() {
    let env = Env::new();
    write_sessions(&env, 6, 1500);
    // A 3 MiB file system for the data dir, in a private mount namespace.
    if !env
        .command("unshare")
        .args(["-rm", "true"])
        .status()
        .is_ok_and(|s| s.success())
    {
        eprintln!("SKIPPED: this machine cannot create a private mount namespace (unshare -rm)");
        return;
    }
    std::fs::create_dir_all(&env.data).unwrap();
    // Fill a 3 MiB file system, then give it room and index again.
    let script = format!(
        "mount -t tmpfs -o size=3m tmpfs {data} && \"$CM\" history index --json; echo \"exit=$?\"; \
         stat -c %s {data}/cm.db-wal 2>/dev/null || echo 0; \
         mount -o remount,size=64m {data} && \"$CM\" history index --json >/dev/null; echo \"exit=$?\"; \
         \"$CM\" history stats --json",
        data = env.data.display()
    );
    let out = env
        .run_program("unshare", &["-rm", "sh", "-c", &script])
        .run();
    let text = &out.stdout;
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 5, "{text}\n{}", out.stderr);
    let v: Value = serde_json::from_str(lines[0]).unwrap();
    assert_eq!(
        (lines[1], &v["error"]["code"]),
        ("exit=1", &Value::from("DISK_FULL")),
        "{text}"
    );
    let wal: u64 = lines[2].trim().parse().unwrap();
    assert!(
        wal < 1 << 20,
        "the WAL keeps no dead frames, only the last small commit: {wal} bytes"
    );
    // With room again the index picks up where the last commit stopped: nothing lost, nothing twice.
    assert_eq!(lines[3], "exit=0", "{text}");
    let stats: Value = serde_json::from_str(lines[4]).unwrap();
    assert_eq!(stats["data"]["messages"], 6 * 1500, "{stats}");
}

#[test]
fn pages_corrupted_where_the_run_does_not_read_still_fail_the_index() {
    let env = Env::new();
    write_sessions(&env, 4, 1500);
    let (code, v) = index_with(&env, "");
    assert_eq!(code, 0, "{v}");
    let (code, _) = index_with(&env, "");
    assert_eq!(code, 0, "nothing new, nothing wrong");
    // Overwrite forty pages in the middle of the file, as a failing disk or a stray write would.
    let db = env.db();
    let mut bytes = std::fs::read(&db).unwrap();
    let start = bytes.len() / 3 / 4096 * 4096;
    for (i, b) in bytes[start..start + 40 * 4096].iter_mut().enumerate() {
        *b = (i * 7919 % 251) as u8;
    }
    std::fs::write(&db, &bytes).unwrap();
    let (code, v) = index_with(&env, "");
    assert_eq!(code, 1, "{v}");
    assert_eq!(v["error"]["code"], "STORE_CORRUPT", "{v}");
    assert_eq!(
        std::fs::read(&db).unwrap(),
        bytes,
        "the corrupt file is left untouched"
    );
    // A search that reads the damaged pages says so too (it used to be an INTERNAL error).
    let out = env
        .cm(&[
            "history",
            "search",
            "parser offset lorem",
            "--exhaustive",
            "--json",
        ])
        .run();
    let v: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    assert_eq!(v["error"]["code"], "STORE_CORRUPT", "{v}");
    let out = env.cm(&["doctor", "--json"]).run();
    let d: Value = serde_json::from_str(out.stdout.trim()).unwrap();
    let store = d["data"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "store")
        .unwrap()
        .clone();
    assert_eq!(store["status"], "fail", "{store}");
}
