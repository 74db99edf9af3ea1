//! `cm init --repo [--force --yes] [--starter NAME]` and `cm init --yes`, through the binary, in
//! temporary git repositories.

use crate::harness::Env;
use serde_json::{Value, json};

fn init_repo(env: &Env, extra: &[&str]) -> crate::harness::Out {
    let mut args = vec!["init", "--repo"];
    args.extend_from_slice(extra);
    env.cm(&args).json().run()
}

#[test]
fn a_git_repository_gets_an_empty_playbook_and_traumas_file_cm_reads() {
    let env = Env::new();
    env.git_repo();
    let sub = env.cwd.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    // From a subdirectory: the files go to the repository root.
    let d = env
        .cm(&["init", "--repo"])
        .cwd(&sub)
        .json()
        .run()
        .ok()
        .data();
    let cass = env.cwd.join(".cass");
    assert_eq!(d["cassDir"], cass.display().to_string());
    assert_eq!(d["created"], json!(["playbook.yaml", "traumas.jsonl"]));
    assert_eq!(d["existed"], json!([]));
    assert_eq!(d["overwritten"], json!([]));
    assert_eq!(d["backups"], json!([]));
    assert!(cass.join("playbook.yaml").is_file());
    assert_eq!(
        std::fs::read_to_string(cass.join("traumas.jsonl")).unwrap(),
        ""
    );
    assert!(!cass.join("blocked.log").exists());
    assert!(!sub.join(".cass").exists());

    // cm reads both: the playbook is valid and empty, the traumas file holds none.
    let list = env
        .cm(&["playbook", "list", "--all"])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(
        list["count"].as_u64().or(list["total"].as_u64()),
        Some(0),
        "{list}"
    );
    let doctor = env.cm(&["doctor"]).json().run().stdout;
    assert!(!doctor.contains("REPO_PLAYBOOK_INVALID"), "{doctor}");
    env.cm(&["playbook", "add", "Run the linter before pushing", "--repo"])
        .run()
        .ok();
    let got = env.cm(&["playbook", "list"]).json().run().ok().stdout;
    assert!(got.contains("Run the linter before pushing"), "{got}");
    env.cm(&["trauma", "add", "rm -rf /srv", "--scope", "project"])
        .run()
        .ok();
    let text = std::fs::read_to_string(cass.join("traumas.jsonl")).unwrap();
    assert!(text.contains("rm -rf /srv"), "{text}");
}

#[test]
fn outside_a_git_repository_it_refuses_and_creates_nothing() {
    let env = Env::new();
    let out = init_repo(&env, &[]);
    let err = out.code(3).error_code("NOT_A_GIT_REPOSITORY");
    assert!(err["hint"].as_str().unwrap().contains("git init"), "{err}");
    assert!(!env.cwd.join(".cass").exists());
}

#[test]
fn twice_is_already_exists_and_one_missing_file_is_created() {
    let env = Env::new();
    env.git_repo();
    init_repo(&env, &[]).ok();
    let err = init_repo(&env, &[])
        .code(3)
        .error_code("ALREADY_EXISTS")
        .clone();
    assert!(err["hint"].as_str().unwrap().contains("--force"), "{err}");
    // One file gone: only it is made again.
    std::fs::remove_file(env.cwd.join(".cass/traumas.jsonl")).unwrap();
    let d = init_repo(&env, &[]).ok().data();
    assert_eq!(d["created"], json!(["traumas.jsonl"]));
    assert_eq!(d["existed"], json!(["playbook.yaml"]));
}

#[test]
fn force_needs_yes_then_backs_up_the_playbook_outside_the_tree_and_keeps_traumas() {
    let env = Env::new();
    env.git_repo();
    init_repo(&env, &[]).ok();
    env.cm(&["playbook", "add", "Keep migrations reversible", "--repo"])
        .run()
        .ok();
    env.cm(&["trauma", "add", "drop database", "--scope", "project"])
        .run()
        .ok();
    let cass = env.cwd.join(".cass");
    let playbook_before = std::fs::read_to_string(cass.join("playbook.yaml")).unwrap();
    let traumas_before = std::fs::read_to_string(cass.join("traumas.jsonl")).unwrap();
    assert!(playbook_before.contains("Keep migrations reversible"));

    let err = init_repo(&env, &["--force"])
        .code(3)
        .error_code("CONFIRMATION_REQUIRED")
        .clone();
    assert!(err["hint"].as_str().unwrap().contains("--yes"), "{err}");
    assert_eq!(
        std::fs::read_to_string(cass.join("playbook.yaml")).unwrap(),
        playbook_before,
        "nothing changed without --yes"
    );

    let d = init_repo(&env, &["--force", "--yes"]).ok().data();
    assert_eq!(d["overwritten"], json!(["playbook.yaml"]));
    assert_eq!(d["existed"], json!(["traumas.jsonl"]));
    assert_eq!(d["created"], json!([]));
    let backups = d["backups"].as_array().unwrap();
    assert_eq!(backups.len(), 1, "{d}");
    assert_eq!(
        backups[0]["file"],
        cass.join("playbook.yaml").display().to_string()
    );
    let backup = std::path::PathBuf::from(backups[0]["backup"].as_str().unwrap());
    assert!(backup.starts_with(&env.data), "{}", backup.display());
    assert_eq!(std::fs::read_to_string(&backup).unwrap(), playbook_before);
    // The playbook is empty again; the repository's traumas are untouched.
    let now = std::fs::read_to_string(cass.join("playbook.yaml")).unwrap();
    assert!(!now.contains("Keep migrations reversible"), "{now}");
    assert_eq!(
        std::fs::read_to_string(cass.join("traumas.jsonl")).unwrap(),
        traumas_before
    );
    // No backup or stray file inside the working tree (the lock files are git-ignored).
    let mut inside: Vec<String> = std::fs::read_dir(&cass)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| !(n.starts_with('.') && n.ends_with(".lock")) && n != ".gitignore")
        .collect();
    inside.sort();
    assert_eq!(inside, vec!["playbook.yaml", "traumas.jsonl"]);
}

#[test]
fn a_starter_seeds_the_repository_playbook_once() {
    let env = Env::new();
    env.git_repo();
    let d = init_repo(&env, &["--starter", "rust"]).ok().data();
    let added = d["starter"]["added"].as_u64().unwrap();
    assert!(added > 0, "{d}");
    assert_eq!(d["starter"]["name"], "rust");
    // Initialised already, but a starter is something to do: nothing is added twice.
    let again = init_repo(&env, &["--starter", "rust"]).ok().data();
    assert_eq!(again["starter"]["added"], 0);
    assert_eq!(again["starter"]["alreadyPresent"], added);
    assert_eq!(again["existed"], json!(["playbook.yaml", "traumas.jsonl"]));
    let list = env.cm(&["playbook", "list", "--json"]).run().ok().stdout;
    assert!(list.matches("\"repo:").count() as u64 >= added, "{list}");
    // The personal playbook got none of them.
    let stats = env.cm(&["stats"]).json().run().ok().data();
    assert_eq!(stats["byLocation"]["personal"], Value::Null, "{stats}");
    let unknown = init_repo(&env, &["--starter", "cobol"]);
    unknown.code(3).error_code("STARTER_NOT_FOUND");
}

#[test]
fn plain_init_takes_yes_and_asks_nothing() {
    let env = Env::new();
    let d = env.cm(&["init", "--yes"]).json().run().ok().data();
    assert!(
        d["created"].as_array().is_some_and(|c| !c.is_empty()),
        "{d}"
    );
    env.cm(&["init", "-y"]).json().run().ok();
}
