//! Hooks hygiene: cm's hooks never run twice without a word (a project install on top of the
//! user's is refused, `cm doctor` fails on any duplicate, whatever command runs the hook),
//! uninstall takes away what install created (a settings file that held only cm's hooks, the
//! directory made for it) and backups live under the data dir, never in a working tree, and
//! `--agent all` touches only the agents this machine has.

use crate::harness::Env;
use serde_json::{Value, json};
use std::path::Path;

/// The `hooks` check of `cm doctor --json`.
fn doctor_hooks(env: &Env) -> Value {
    let d = env.cm(&["doctor"]).json().run().json()["data"].clone();
    d["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "hooks")
        .cloned()
        .unwrap()
}

fn backups_in(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".cm-backup-"))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn project_hooks_on_top_of_user_hooks_are_refused_and_doctor_fails_on_duplicates() {
    let env = Env::new();
    let repo = env.git_repo().to_path_buf();
    let project = repo.join(".claude/settings.json");
    env.cm(&["hooks", "install"]).run().ok();
    let e = env
        .cm(&["hooks", "install", "--project"])
        .json()
        .run()
        .error_code("HOOKS_DUPLICATE");
    assert!(
        e["message"].as_str().unwrap().contains("settings.json"),
        "{e}"
    );
    assert!(!project.exists(), "nothing written");
    assert_eq!(doctor_hooks(&env)["status"], "ok");

    // A project file that runs cm's hook through another name for the binary (a link).
    let alias = env.link("memory-tool");
    let doc = json!({"hooks": {"SessionStart": [{"hooks": [
        {"type": "command", "command": format!("{} hook session-start", alias.display())}
    ]}]}});
    std::fs::create_dir_all(project.parent().unwrap()).unwrap();
    std::fs::write(&project, doc.to_string()).unwrap();
    let check = doctor_hooks(&env);
    assert_eq!(check["status"], "fail", "{check}");
    let msg = check["message"].as_str().unwrap();
    assert!(
        msg.contains("twice") && msg.contains("session-start"),
        "{msg}"
    );

    // The other way round: a user install over a project's hooks goes ahead, with a warning.
    std::fs::remove_file(&project).unwrap();
    env.cm(&["hooks", "uninstall", "--user"]).run().ok();
    env.cm(&["hooks", "install", "--project"]).run().ok();
    let d = env.cm(&["hooks", "install"]).json().run().ok().data();
    let warnings = d["warnings"].as_array().unwrap();
    assert!(!warnings.is_empty(), "{d}");
    assert_eq!(doctor_hooks(&env)["status"], "fail");
}

#[test]
fn agent_all_installs_only_for_agents_on_this_machine() {
    let env = Env::new();
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    let d = env
        .cm(&["hooks", "install", "--agent", "all"])
        .env("PATH", "/usr/bin:/bin")
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["skippedAgents"], json!(["codex", "gemini"]), "{d}");
    assert!(!env.home.join(".codex").exists());
    assert!(!env.home.join(".gemini").exists());
    assert!(env.home.join(".claude/settings.json").is_file());
    // Named explicitly, an agent is installed even where absent.
    env.cm(&["hooks", "install", "--agent", "codex"])
        .env("PATH", "/usr/bin:/bin")
        .run()
        .ok();
    assert!(env.home.join(".codex/hooks.json").is_file());
}

#[test]
fn uninstall_removes_what_install_created_and_backups_stay_out_of_working_trees() {
    let env = Env::new();
    let repo = env.git_repo().to_path_buf();

    // A project without agent settings: install creates .claude/settings.json (and .claude);
    // uninstall deletes both.
    env.cm(&["hooks", "install", "--project"]).run().ok();
    assert!(repo.join(".claude/settings.json").is_file());
    let d = env.data_of(&["hooks", "uninstall", "--project"]);
    assert!(!repo.join(".claude").exists(), "{d}");
    // The user's settings file cm created goes too; the directory the user had stays.
    std::fs::create_dir_all(env.home.join(".claude")).unwrap();
    env.cm(&["hooks", "install"]).run().ok();
    env.cm(&["hooks", "uninstall"]).run().ok();
    assert!(!env.home.join(".claude/settings.json").exists());
    assert!(env.home.join(".claude").is_dir());

    // A settings file the user had: kept, and its backup is under the data dir, not in the tree.
    let settings = repo.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    std::fs::write(&settings, r#"{"model": "x"}"#).unwrap();
    // A backup an older cm left in the working tree.
    std::fs::write(
        repo.join(".claude/settings.json.cm-backup-20250101T000000Z"),
        "{}",
    )
    .unwrap();
    env.cm(&["hooks", "install", "--project"]).run().ok();
    let d = env.data_of(&["hooks", "uninstall", "--project"]);
    let kept: Value = serde_json::from_str(&std::fs::read_to_string(&settings).unwrap()).unwrap();
    assert_eq!(kept, json!({"model": "x"}), "{d}");
    assert!(
        backups_in(&repo.join(".claude")).is_empty(),
        "no backup in the working tree: {d}"
    );
    let kept_backups = backups_in(&env.data.join("backups"));
    assert!(
        kept_backups
            .iter()
            .any(|n| n.ends_with("%.claude%settings.json.cm-backup-20250101T000000Z")),
        "the old backup was moved under the data dir: {kept_backups:?}"
    );
}
