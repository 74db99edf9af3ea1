//! The store's files: private to the user, never silently rebuilt when emptied, and refused as
//! corrupt (not an internal error) when a row was damaged, by readers and writers alike. Real
//! binary, real SQLite files changed on disk as a failing disk or a stray command would.

use crate::harness::Env;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

fn mode(p: &Path) -> u32 {
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

fn beside(db: &Path, suffix: &str) -> std::path::PathBuf {
    db.with_file_name(format!("cm.db{suffix}"))
}

/// Fold the WAL into `cm.db`, so the rows are in the main file.
fn checkpoint(db: &Path) {
    let conn = rusqlite::Connection::open(db).unwrap();
    conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))
        .unwrap();
}

#[test]
fn the_data_dir_and_the_store_are_private_to_the_user() {
    let env = Env::new();
    env.add("Run the migrations before the seed script");
    assert_eq!(mode(&env.data), 0o700);
    assert_eq!(mode(&env.db()), 0o600);
    for suffix in ["-wal", "-shm"] {
        let p = beside(&env.db(), suffix);
        if p.exists() {
            assert_eq!(mode(&p), 0o600, "{}", p.display());
        }
    }
    // A store an older cm left world-readable is tightened on the next run.
    let set = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    set(&env.data, 0o755).unwrap();
    set(&env.db(), 0o644).unwrap();
    env.cm(&["playbook", "list"]).json().run().ok();
    assert_eq!(mode(&env.data), 0o700);
    assert_eq!(mode(&env.db()), 0o600);
}

#[test]
fn an_emptied_store_is_refused_not_rebuilt() {
    let env = Env::new();
    env.add("Pin the toolchain in rust-toolchain.toml");
    std::fs::File::create(env.db()).unwrap(); // truncates, as `> cm.db` would
    for args in [
        &["playbook", "list"][..],
        &["playbook", "add", "A rule written into nothing"][..],
    ] {
        let out = env.cm(args).json().run().code(1);
        let e = out.error_code("STORE_CORRUPT");
        assert!(e["message"].as_str().unwrap().contains("truncated"), "{e}");
        assert!(e["hint"].as_str().unwrap().contains("backup"), "{e}");
    }
    assert_eq!(
        std::fs::metadata(env.db()).unwrap().len(),
        0,
        "left untouched"
    );
    // With the files beside it removed, the empty file is a new store, as `cm init` makes one.
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(beside(&env.db(), suffix));
    }
    let _ = std::fs::remove_file(env.data.join(".cm.db.verified"));
    env.cm(&["playbook", "list"]).json().run().ok();
}

#[test]
fn a_damaged_row_is_store_corrupt_for_readers_and_writers() {
    let env = Env::new();
    let keep = env.add("Keep the changelog in Keep a Changelog form");
    env.add("Quarantine the zebracornish flaky test before the release");
    checkpoint(&env.db());
    let mut bytes = std::fs::read(env.db()).unwrap();
    let word = b"zebracornish";
    let places: Vec<usize> = (0..bytes.len() - word.len())
        .filter(|&i| &bytes[i..i + word.len()] == word)
        .collect();
    assert!(!places.is_empty(), "the rule is in the main file");
    // One flipped bit in each copy of the word (the row's columns, its index entries): no
    // longer UTF-8, while the pages themselves stay sound.
    for at in places {
        bytes[at + 3] |= 0x80;
    }
    std::fs::write(env.db(), &bytes).unwrap();
    let out = env.cm(&["playbook", "list"]).json().run().code(1);
    let e = out.error_code("STORE_CORRUPT");
    assert!(e["hint"].as_str().is_some_and(|h| !h.is_empty()), "{e}");
    // A writer that would touch only the sound row refuses too: it would be writing into a
    // store the playbook cannot be read from.
    let out = env.cm(&["mark", &keep, "--helpful"]).json().run().code(1);
    out.error_code("STORE_CORRUPT");
    assert_eq!(std::fs::read(env.db()).unwrap(), bytes, "nothing written");
}
