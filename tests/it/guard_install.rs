//! Integration tests for the trauma CLI, the hook installers and the pre-commit scan. Every test
//! drives the real binary with HOME and CASS_MEMORY_HOME in a temp dir, and the git tests use a
//! real temporary repository.

use crate::harness::{CM, Env, fixture_path, repo_path};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Output;

/// The world these tests share: the working dir `repo` (a git repository once `init_repo`
/// runs) and an existing data dir.
fn world() -> Env {
    let env = Env::builder().workdir("repo").build();
    std::fs::create_dir_all(&env.data).unwrap();
    env
}

/// What these tests ask of a world: the raw output of cm, git and the pre-commit hook run in
/// the repository, and files written there.
impl Env {
    /// Run `cm ARGS` in `cwd`.
    fn cm_in(&self, cwd: &Path, args: &[&str]) -> Output {
        self.command(CM)
            .current_dir(cwd)
            .args(args)
            .output()
            .unwrap()
    }

    /// Run `cm ARGS` in the repository.
    fn cm_output(&self, args: &[&str]) -> Output {
        self.cm_in(&self.cwd, args)
    }

    /// `cm ARGS --json` in the repository, asserting success, returning `data`.
    fn data_ok(&self, args: &[&str]) -> Value {
        let mut a = args.to_vec();
        a.push("--json");
        let out = self.cm_output(&a);
        let v: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", String::from_utf8_lossy(&out.stdout)));
        assert_eq!(v["success"], true, "{args:?}: {v}");
        assert_eq!(out.status.code(), Some(0));
        v["data"].clone()
    }

    fn git(&self, args: &[&str]) -> Output {
        let out = self.command("git").args(args).output().unwrap();
        assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
        out
    }

    fn init_repo(&self) {
        self.git(&["init", "-q", "."]);
        self.git(&["config", "user.name", "Test"]);
        self.git(&["config", "user.email", "test@example.invalid"]);
        self.git(&["config", "commit.gpgsign", "false"]);
    }

    /// Write `text` to `rel` in the repository (parents created); returns the path.
    fn write_repo(&self, rel: &str, text: &str) -> PathBuf {
        self.write(&format!("repo/{rel}"), text)
    }

    /// The binary linked as `cm-precommit` (as install.sh lays it out), run in the repository.
    fn precommit(&self) -> Output {
        self.command(self.link("cm-precommit")).output().unwrap()
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read_json(p: &Path) -> Value {
    serde_json::from_slice(&std::fs::read(p).unwrap()).unwrap()
}

/// The bytes of `tests/fixtures/guard_install/NAME`.
fn fixture(name: &str) -> Vec<u8> {
    crate::harness::fixture(&format!("guard_install/{name}"))
}

/// The backups of `p`: under the data dir (`backups/<path, `/` as `%`>.cm-backup-<stamp>`),
/// never beside the file.
fn backups(env: &Env, p: &Path) -> Vec<PathBuf> {
    let flat = p
        .strip_prefix("/")
        .unwrap()
        .to_string_lossy()
        .replace('/', "%");
    assert!(
        std::fs::read_dir(p.parent().unwrap())
            .unwrap()
            .flatten()
            .all(|e| !e.file_name().to_string_lossy().contains(".cm-backup-")),
        "a backup beside {}",
        p.display()
    );
    let mut v: Vec<PathBuf> = std::fs::read_dir(env.data.join("backups"))
        .map(|rd| rd.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    v.retain(|q| {
        q.file_name()
            .unwrap()
            .to_string_lossy()
            .starts_with(&format!("{flat}.cm-backup-"))
    });
    v.sort();
    v
}

/// Every handler command in a settings document, by event.
fn commands(v: &Value, event: &str) -> Vec<String> {
    v["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().cloned().unwrap_or_default())
        .filter_map(|h| h["command"].as_str().map(str::to_string))
        .collect()
}

// ---------------------------------------------------------------- trauma CLI

#[test]
fn trauma_add_list_heal_unheal_remove_round_trip() {
    let env = world();
    env.init_repo();
    let added = env.data_ok(&[
        "trauma",
        "add",
        r"rm\s+-rf\s+fixtures",
        "--message",
        "fixtures are hand-made",
        "--severity",
        "fatal",
    ]);
    assert_eq!(added["created"], true);
    let id = added["trauma"]["id"].as_str().unwrap().to_string();
    assert!(id.starts_with("t-"));
    assert_eq!(added["trauma"]["severity"], "fatal");
    let global = env.data.join("traumas.jsonl");
    assert!(std::fs::read_to_string(&global).unwrap().contains(&id));

    // Same pattern again: nothing duplicated.
    let again = env.data_ok(&["trauma", "add", r"rm\s+-rf\s+fixtures"]);
    assert_eq!(again["created"], false);
    assert_eq!(again["trauma"]["id"], id.as_str());

    let project = env.data_ok(&[
        "trauma",
        "add",
        "(?i)drop table",
        "--scope",
        "project",
        "--files",
        "*.sql",
    ]);
    let pid = project["trauma"]["id"].as_str().unwrap().to_string();
    assert_eq!(
        project["trauma"]["path"],
        env.cwd.join(".cass/traumas.jsonl").to_str().unwrap()
    );

    let list = env.data_ok(&["trauma", "list"]);
    assert_eq!(list["count"], 2);
    assert_eq!(list["active"], 2);

    let healed = env.data_ok(&["trauma", "heal", &id, "--for", "2h", "--reason", "cleanup"]);
    assert_eq!(healed["trauma"]["active"], false);
    assert_eq!(healed["trauma"]["healed"]["reason"], "cleanup");
    assert!(healed["trauma"]["healed"]["until"].is_string());
    assert_eq!(env.data_ok(&["trauma", "list"])["active"], 1);

    // The heal expires: three hours later it is active again.
    let later = env
        .command(CM)
        .env(
            "CM_NOW",
            chrono::Utc::now()
                .checked_add_signed(chrono::Duration::hours(3))
                .unwrap()
                .to_rfc3339(),
        )
        .args(["trauma", "list", "--json"])
        .output()
        .unwrap();
    let later: Value = serde_json::from_slice(&later.stdout).unwrap();
    assert_eq!(later["data"]["active"], 2);

    assert_eq!(env.data_ok(&["trauma", "unheal", &id])["changed"], true);
    assert_eq!(env.data_ok(&["trauma", "list"])["active"], 2);
    env.data_ok(&["trauma", "remove", &id]);
    env.data_ok(&["trauma", "remove", &pid]);
    assert_eq!(env.data_ok(&["trauma", "list"])["count"], 0);

    let quiet = env.cm_output(&["trauma", "remove", &id, "--json"]);
    assert_eq!(quiet.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&quiet.stdout).unwrap();
    assert_eq!(v["error"]["code"], "TRAUMA_NOT_FOUND");
}

#[test]
fn trauma_errors_are_clear_and_write_nothing() {
    let env = world();
    let out = env.cm_output(&["trauma", "add", "rm -rf (", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["error"]["code"], "INVALID_PATTERN");
    assert!(v["error"]["hint"].is_string());
    assert!(!env.data.join("traumas.jsonl").exists());

    let out = env.cm_output(&["trauma", "add", "x", "--files", "a/{b", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let out = env.cm_output(&["trauma", "heal", "t-00000000", "--for", "5y", "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let out = env.cm_output(&["trauma", "add", "x", "--severity", "mild"]);
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn a_malformed_trauma_line_is_reported_and_kept() {
    let env = world();
    let file = env.data.join("traumas.jsonl");
    std::fs::write(
        &file,
        "{\"id\":\"t-11111111\",\"pattern\":\"a\",\"createdAt\":\"2026-01-01T00:00:00Z\"}\nthis is not json\n",
    )
    .unwrap();
    let list = env.cm_output(&["trauma", "list", "--json"]);
    assert_eq!(list.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&list.stdout).unwrap();
    assert_eq!(v["data"]["count"], 1);
    assert_eq!(v["data"]["warnings"][0]["line"], 2);
    assert!(stderr(&list).contains(&format!("{}:2:", file.display())));

    env.data_ok(&["trauma", "add", "b"]);
    env.data_ok(&["trauma", "heal", "t-11111111"]);
    env.data_ok(&["trauma", "remove", "t-11111111"]);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.contains("this is not json\n"), "{text}");
    assert!(!text.contains("t-11111111"));
    assert_eq!(text.lines().count(), 2);
}

#[test]
fn trauma_import_plain_and_jsonl_all_or_nothing() {
    let env = world();
    env.init_repo();
    let plain = fixture_path("guard_install/patterns.txt");
    let first = env.data_ok(&["trauma", "import", plain.to_str().unwrap()]);
    assert_eq!(first["imported"], 2);
    let again = env.data_ok(&["trauma", "import", plain.to_str().unwrap()]);
    assert_eq!(again["imported"], 0);
    assert_eq!(again["skipped"], 2);

    let jsonl = fixture_path("guard_install/traumas.jsonl");
    let imported = env.data_ok(&["trauma", "import", jsonl.to_str().unwrap()]);
    assert_eq!(imported["imported"], 2);
    // Records keep their scope and id; the project one went to .cass/traumas.jsonl.
    let project = std::fs::read_to_string(env.cwd.join(".cass/traumas.jsonl")).unwrap();
    assert!(project.contains("t-0badc0de"));
    let list = env.data_ok(&["trauma", "list"]);
    assert_eq!(list["count"], 4);
    let fatal = list["traumas"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["severity"] == "fatal")
        .unwrap();
    assert_eq!(fatal["source"], "import");

    let bad = env.root.join("bad.txt");
    std::fs::write(&bad, "fine\n(unclosed\n").unwrap();
    let out = env.cm_output(&["trauma", "import", bad.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        v["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("{}:2:", bad.display()))
    );
    assert_eq!(env.data_ok(&["trauma", "list"])["count"], 4);
}

/// The shared YAML list form (`- pattern: "DROP TABLE"` / `description: x`) imports records,
/// never its literal lines as patterns; a broken one names its file and line.
#[test]
fn trauma_import_reads_the_shared_yaml_and_json_forms() {
    let env = world();
    let yaml = fixture_path("guard_install/shared-traumas.yaml");
    let v = env.data_ok(&["trauma", "import", yaml.to_str().unwrap()]);
    assert_eq!(v["imported"], 3, "{v}");
    let patterns: Vec<&str> = v["traumas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["pattern"].as_str().unwrap())
        .collect();
    assert_eq!(
        patterns,
        [
            "DROP TABLE",
            "kubectl .* --context prod",
            "terraform apply -auto-approve"
        ]
    );
    assert_eq!(v["traumas"][0]["message"], "Database table deletion");
    assert_eq!(v["traumas"][1]["severity"], "fatal");
    // The guard now blocks what the file names, with its description.
    let check = env.data_ok(&["guard", "check", "psql -c 'DROP TABLE users'"]);
    assert_eq!(check["decision"], "deny", "{check}");

    // A JSON array of records, and the same records again: nothing duplicated.
    let json = env.root.join("shared.json");
    std::fs::write(
        &json,
        r#"[{"pattern": "DROP TABLE", "description": "x"}, {"pattern": "git push --force origin main"}]"#,
    )
    .unwrap();
    let v = env.data_ok(&["trauma", "import", json.to_str().unwrap()]);
    assert_eq!(
        (v["imported"].as_u64(), v["skipped"].as_u64()),
        (Some(1), Some(1))
    );

    // A record without a pattern, and YAML that does not parse: path and line, nothing imported.
    let bad = env.root.join("bad.yaml");
    std::fs::write(
        &bad,
        "- pattern: \"rm -rf /srv\"\n- description: no pattern here\n",
    )
    .unwrap();
    let out = env.cm_output(&["trauma", "import", bad.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let e: Value = serde_json::from_slice(&out.stdout).unwrap();
    let msg = e["error"]["message"].as_str().unwrap();
    assert!(msg.contains(&format!("{}:2:", bad.display())), "{msg}");
    std::fs::write(&bad, "- pattern: [unclosed\n").unwrap();
    let out = env.cm_output(&["trauma", "import", bad.to_str().unwrap(), "--json"]);
    assert_eq!(out.status.code(), Some(3));
    let e: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap()
            .contains(&format!("{}:", bad.display())),
        "{e}"
    );
    // YAML in a file named like a plain list is still read as YAML, not as patterns.
    let txt = env.root.join("list.txt");
    std::fs::write(
        &txt,
        "- pattern: \"docker system prune\"\n  description: y\n",
    )
    .unwrap();
    let v = env.data_ok(&["trauma", "import", txt.to_str().unwrap()]);
    assert_eq!(v["traumas"][0]["pattern"], "docker system prune", "{v}");
    assert_eq!(env.data_ok(&["trauma", "list"])["count"], 5);
}

#[test]
fn trauma_scan_without_an_index_is_degraded_not_failed() {
    let env = world();
    let v = env.data_ok(&["trauma", "scan", "--days", "30"]);
    assert_eq!(v["proposals"], Value::Array(vec![]));
    assert_eq!(v["degraded"]["history"]["code"], "NO_INDEX", "{v}");
    // A store with the index tables but no session in them is degraded the same way.
    env.data_ok(&["init"]);
    let v = env.data_ok(&["trauma", "scan"]);
    assert_eq!(v["degraded"]["history"]["code"], "NO_INDEX", "{v}");
}

/// Real session logs, indexed by `cm history index` into the real index tables: the scan reads
/// what the index holds (it once read a `messages` table that only its own tests created, and
/// said "no session index" after every real indexing).
#[test]
fn trauma_scan_proposes_from_indexed_sessions() {
    let env = world();
    let project = env.home.join(".claude/projects/-home-u-shop");
    std::fs::create_dir_all(&project).unwrap();
    let fixtures = fixture_path("trauma");
    for (file, session) in [
        (
            "claude_rm_distress.jsonl",
            "7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f",
        ),
        (
            "claude_reset_reflog.jsonl",
            "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d",
        ),
    ] {
        std::fs::copy(
            fixtures.join(file),
            project.join(format!("{session}.jsonl")),
        )
        .unwrap();
    }
    let indexed = env.data_ok(&["history", "index", "--agent", "claude"]);
    assert!(indexed["messagesAdded"].as_u64().unwrap() > 10, "{indexed}");
    let v = env.data_ok(&["trauma", "scan"]);
    assert!(v["degraded"].is_null(), "{v}");
    // rm -rf (distress), git reset --hard thanked for, git reset --hard then reflog (recovery).
    assert_eq!(v["examined"], 3, "{v}");
    let proposals = v["proposals"].as_array().unwrap();
    assert_eq!(proposals.len(), 2, "{v}");
    // New protection first; the reset is already blocked by a built-in rule, and says so.
    assert_eq!(
        proposals[1]["sessions"][0],
        "9a8b7c6d-5e4f-4a3b-9c2d-1e0f9a8b7c6d"
    );
    assert_eq!(proposals[1]["signals"][0], "recovery");
    assert!(proposals[1]["coveredBy"].is_string(), "{v}");
    let p = &proposals[0];
    assert!(p["coveredBy"].is_null());
    assert_eq!(p["sessions"][0], "7d1e2f30-4a5b-4c6d-8e9f-0a1b2c3d4e5f");
    assert_eq!(p["signals"][0], "distress");
    assert_eq!(p["example"], "rm -rf fixtures/");
    assert!(
        p["suggestedCommand"]
            .as_str()
            .unwrap()
            .starts_with("cm trauma add ")
    );
    let re = regex::Regex::new(p["pattern"].as_str().unwrap()).unwrap();
    assert!(re.is_match("rm -rf fixtures"));
    assert!(!re.is_match("rm -rf target"));
    // Adding it removes the proposal; --days leaves out older sessions.
    env.data_ok(&["trauma", "add", p["pattern"].as_str().unwrap()]);
    let left = env.data_ok(&["trauma", "scan"]);
    assert_eq!(left["proposals"].as_array().unwrap().len(), 1);
    let recent = env.data_ok(&["trauma", "scan", "--days", "1"]);
    assert_eq!(recent["examined"], 0, "{recent}");
}

// ---------------------------------------------------------------- installers

#[test]
fn claude_install_preserves_everything_and_uninstall_is_exact() {
    let env = world();
    let settings = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let original_bytes = fixture("claude_settings.json");
    std::fs::write(&settings, &original_bytes).unwrap();
    let original: Value = serde_json::from_slice(&original_bytes).unwrap();

    let d = env.data_ok(&["guard", "--install"]);
    assert_eq!(d["targets"][0]["changes"][0]["action"], "added");
    let after = read_json(&settings);
    for key in original.as_object().unwrap().keys() {
        if key != "hooks" {
            assert_eq!(after[key], original[key], "{key} changed");
        }
    }
    let pre = commands(&after, "PreToolUse");
    assert_eq!(pre.len(), 3, "{pre:?}");
    assert!(pre.contains(&"$CLAUDE_PROJECT_DIR/.claude/hooks/lint-bash.sh".to_string()));
    assert!(
        pre.last().unwrap().ends_with("hook pretool")
            || pre.last().unwrap().ends_with("cm-pretool")
    );
    let group = after["hooks"]["PreToolUse"]
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        group["matcher"],
        "^(Bash|Edit|Write|MultiEdit|NotebookEdit|mcp__.*)$"
    );
    assert_eq!(group["hooks"][0]["type"], "command");
    assert_eq!(commands(&after, "Stop"), vec!["notify-send done"]);
    let b = backups(&env, &settings);
    assert_eq!(b.len(), 1);
    assert_eq!(std::fs::read(&b[0]).unwrap(), original_bytes);

    // Idempotent: nothing added, nothing written, no new backup.
    let d = env.data_ok(&["guard", "--install", "--user"]);
    assert_eq!(d["targets"][0]["changes"][0]["action"], "present");
    assert_eq!(d["targets"][0]["written"], false);
    assert_eq!(commands(&read_json(&settings), "PreToolUse").len(), 3);
    assert_eq!(backups(&env, &settings).len(), 1);

    // Every hook at once; the guard is not duplicated.
    let d = env.data_ok(&["hooks", "install"]);
    let actions: Vec<&str> = d["targets"][0]["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["added", "added", "present", "added", "added"]);
    let all = read_json(&settings);
    assert_eq!(commands(&all, "SessionStart").len(), 2);
    assert_eq!(commands(&all, "PreToolUse").len(), 3);
    let ss = all["hooks"]["SessionStart"]
        .as_array()
        .unwrap()
        .last()
        .unwrap();
    assert_eq!(ss["matcher"], "startup|resume|clear|compact|fork");
    assert!(
        ss["hooks"][0]["command"]
            .as_str()
            .unwrap()
            .ends_with("hook session-start")
    );
    assert!(commands(&all, "UserPromptSubmit")[0].ends_with("hook prompt"));
    assert_eq!(commands(&all, "SessionEnd").len(), 1);

    let st = env.data_ok(&["hooks", "status", "--agent", "claude", "--user"]);
    assert_eq!(st["targets"][0]["handlers"].as_array().unwrap().len(), 5);
    assert_eq!(st["targets"][0]["handlers"][0]["programFound"], true);

    // The guard's uninstall removes only the guard; the rest goes with hooks uninstall.
    let d = env.data_ok(&["guard", "--uninstall", "--claude", "--user"]);
    assert_eq!(d["targets"][0]["changes"].as_array().unwrap().len(), 1);
    assert_eq!(commands(&read_json(&settings), "SessionEnd").len(), 1);
    env.data_ok(&["hooks", "uninstall", "--agent", "claude"]);
    assert_eq!(read_json(&settings), original);
    let st = env.data_ok(&["guard", "--status", "--claude", "--user"]);
    assert_eq!(st["targets"][0]["handlers"], Value::Array(vec![]));
}

#[test]
fn codex_and_gemini_install_merge_and_uninstall_exactly() {
    let env = world();
    env.init_repo();
    let codex = env.cwd.join(".codex/hooks.json");
    let gemini = env.home.join(".gemini/settings.json");
    std::fs::create_dir_all(codex.parent().unwrap()).unwrap();
    std::fs::create_dir_all(gemini.parent().unwrap()).unwrap();
    std::fs::write(&codex, fixture("codex_hooks.json")).unwrap();
    std::fs::write(&gemini, fixture("gemini_settings.json")).unwrap();
    let codex_before = read_json(&codex);
    let gemini_before = read_json(&gemini);

    env.data_ok(&["guard", "--install", "--codex", "--project"]);
    let c = read_json(&codex);
    assert_eq!(c["x-team-note"], codex_before["x-team-note"]);
    assert_eq!(commands(&c, "PreToolUse").len(), 2);
    assert_eq!(commands(&c, "PreToolUse")[0], "/usr/local/bin/audit-shell");

    env.data_ok(&["hooks", "install", "--agent", "gemini"]);
    env.data_ok(&["hooks", "install", "--agent", "gemini"]);
    let g = read_json(&gemini);
    assert_eq!(g["mcpServers"], gemini_before["mcpServers"]);
    assert_eq!(g["general"], gemini_before["general"]);
    let bt = g["hooks"]["BeforeTool"].as_array().unwrap();
    assert_eq!(bt.len(), 2);
    assert_eq!(
        bt[1]["matcher"],
        "^(run_shell_command|write_file|replace|mcp_.*)$"
    );
    assert_eq!(bt[1]["hooks"][0]["name"], "cm-guard");
    assert_eq!(bt[1]["hooks"][0]["timeout"], 5000);
    assert_eq!(commands(&g, "BeforeAgent").len(), 1);
    assert_eq!(commands(&g, "SessionStart").len(), 1);
    assert_eq!(commands(&g, "SessionEnd").len(), 1);
    assert_eq!(commands(&g, "AfterTool"), vec!["log-shell"]);

    env.data_ok(&["hooks", "install", "--agent", "codex", "--project"]);
    let c = read_json(&codex);
    assert_eq!(commands(&c, "Stop").len(), 2);
    assert_eq!(commands(&c, "PreToolUse").len(), 2);

    // Without target flags, uninstall covers every agent and scope.
    let d = env.data_ok(&["hooks", "uninstall"]);
    assert_eq!(d["targets"].as_array().unwrap().len(), 6);
    assert_eq!(read_json(&codex), codex_before);
    assert_eq!(read_json(&gemini), gemini_before);
    assert!(!backups(&env, &codex).is_empty() && !backups(&env, &gemini).is_empty());
}

#[test]
fn malformed_settings_are_refused_and_untouched() {
    let env = world();
    let settings = env.home.join(".claude/settings.json");
    std::fs::create_dir_all(settings.parent().unwrap()).unwrap();
    let bytes = fixture("malformed.json");
    std::fs::write(&settings, &bytes).unwrap();
    for args in [
        &["guard", "--install", "--json"][..],
        &["hooks", "install", "--json"][..],
        &["guard", "--uninstall", "--json"][..],
    ] {
        let out = env.cm_output(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let v: Value = serde_json::from_slice(&out.stdout).unwrap();
        let msg = v["error"]["message"].as_str().unwrap();
        assert!(msg.contains(settings.to_str().unwrap()), "{msg}");
        assert!(msg.contains("line 5"), "{msg}");
        assert_eq!(std::fs::read(&settings).unwrap(), bytes);
        assert!(backups(&env, &settings).is_empty());
    }
    // A malformed file for one agent stops a multi-agent install before anything is written.
    let out = env.cm_output(&["guard", "--install", "--codex", "--claude"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(!env.home.join(".codex/hooks.json").exists());
    // Status reports it instead of failing.
    let st = env.data_ok(&["guard", "--status", "--claude", "--user"]);
    assert!(
        st["targets"][0]["error"]
            .as_str()
            .unwrap()
            .contains("malformed")
    );
    // A wrong layout is refused the same way.
    std::fs::write(&settings, r#"{"hooks": ["not", "groups"]}"#).unwrap();
    assert_eq!(
        env.cm_output(&["guard", "--install"]).status.code(),
        Some(2)
    );
}

// ---------------------------------------------------------------- pre-commit

const AWS: &str = "AKIAIOSFODNN7QWERTYU";
const GH: &str = "ghp_abcdefghijklmnopqrstuvwxyz0123456789";

fn plant(env: &Env) {
    env.write_repo(
        "config/prod.env",
        &format!("REGION=eu-west-1\nAWS_ACCESS_KEY_ID={AWS}\nDB_PASSWORD=Xk9mQ2vL8pRt7w\n"),
    );
    env.write_repo(
        "scripts/deploy.sh",
        &format!("#!/bin/sh\nexport GITHUB_TOKEN={GH}\n"),
    );
    env.write_repo(
        "keys/id_rsa",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\n-----END OPENSSH PRIVATE KEY-----\n",
    );
    env.write_repo("db/002_cleanup.sql", "SELECT 1;\nDROP TABLE ledger;\n");
    env.write_repo("docs/notes.md", "Never run DROP TABLE ledger by hand.\n");
}

#[test]
fn precommit_reports_secrets_and_file_scoped_traumas_with_file_and_line() {
    let env = world();
    env.init_repo();
    env.data_ok(&[
        "trauma",
        "add",
        r"(?i)drop\s+table",
        "--files",
        "*.sql",
        "--scope",
        "project",
        "--message",
        "migrations never drop tables",
    ]);
    plant(&env);
    env.git(&["add", "-A"]);
    let out = env.precommit();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(1), "{err}");
    for want in [
        "config/prod.env:2: possible secret (aws-access-key)",
        "config/prod.env:3: possible secret (password-assignment)",
        "scripts/deploy.sh:2: possible secret (github-token)",
        "keys/id_rsa:1: possible secret (private-key)",
        "db/002_cleanup.sql:2: trauma ",
        "migrations never drop tables",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    assert!(!err.contains("docs/notes.md"), "{err}");
    assert!(!err.contains("config/prod.env:1:"), "{err}");
    assert!(
        !err.contains(AWS) && !err.contains(GH),
        "secrets must not be echoed:\n{err}"
    );
    // The same through `cm hook precommit`.
    let out = env.cm_output(&["hook", "precommit"]);
    assert_eq!(out.status.code(), Some(1));

    // Healing the trauma lets the SQL through; the secrets still block.
    let id = env.data_ok(&["trauma", "list"])["traumas"][0]["id"]
        .as_str()
        .unwrap()
        .to_string();
    env.data_ok(&["trauma", "heal", &id, "--for", "1h"]);
    let err = stderr(&env.precommit());
    assert!(!err.contains("db/002_cleanup.sql"), "{err}");
    assert!(err.contains("scripts/deploy.sh:2:"));
}

#[test]
fn precommit_is_silent_on_clean_changes_and_outside_a_repository() {
    let env = world();
    env.init_repo();
    env.write_repo(
        "src/auth.py",
        "def refresh(token_store):\n    token = token_store.get()\n    password = os.environ['DB_PASSWORD']\n    return token\n",
    );
    env.git(&["add", "-A"]);
    let out = env.precommit();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(stderr(&out), "");
    assert!(out.stdout.is_empty());

    let outside = env.root.join("not-a-repo");
    std::fs::create_dir_all(&outside).unwrap();
    let out = env
        .command(env.link("cm-precommit"))
        .current_dir(&outside)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("not inside a git repository"));
}

#[test]
fn precommit_allow_list_is_never_silent() {
    let env = world();
    env.init_repo();
    env.write_repo(
        "test/fixtures/fake.env",
        &format!("AWS_ACCESS_KEY_ID={AWS}\n"),
    );
    env.write_repo("deploy.sh", &format!("export GITHUB_TOKEN={GH}\n"));
    env.git(&["add", "-A"]);
    let err = stderr(&env.precommit());
    let fp = err
        .lines()
        .find(|l| l.starts_with("deploy.sh:1:"))
        .and_then(|l| l.split("[fingerprint ").nth(1))
        .map(|s| s.trim_end_matches(']').to_string())
        .unwrap();
    std::fs::write(
        env.data.join("config.json"),
        serde_json::json!({"guard": {"allowSecrets": ["test/fixtures/**", fp]}}).to_string(),
    )
    .unwrap();
    let out = env.precommit();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("test/fixtures/fake.env:1: possible secret (aws-access-key)"));
    assert_eq!(err.matches("allowed by config").count(), 2, "{err}");
}

#[test]
fn git_hook_install_chains_to_an_existing_hook_and_uninstall_restores_it() {
    let env = world();
    env.init_repo();
    let hooks = env.cwd.join(".git/hooks");
    std::fs::create_dir_all(&hooks).unwrap();
    let existing = hooks.join("pre-commit");
    let marker = env.root.join("existing-hook-ran");
    let original = format!(
        "#!/bin/sh\necho ran >> '{}'\n[ -f \"$(git rev-parse --show-toplevel)/BLOCK\" ] && exit 1\nexit 0\n",
        marker.display()
    );
    std::fs::write(&existing, &original).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&existing, std::fs::Permissions::from_mode(0o755)).unwrap();

    let d = env.data_ok(&["guard", "--git"]);
    assert_eq!(d["git"]["action"], "added");
    assert!(
        d["git"]["chained"]
            .as_str()
            .unwrap()
            .ends_with("pre-commit.cm-chained")
    );
    assert!(
        d["targets"].as_array().unwrap().is_empty(),
        "--git alone installs only git"
    );
    let b = backups(&env, &existing);
    assert_eq!(b.len(), 1);
    assert_eq!(std::fs::read_to_string(&b[0]).unwrap(), original);
    assert_eq!(env.data_ok(&["guard", "--git"])["git"]["action"], "present");
    let st = env.data_ok(&["guard", "--status", "--git"]);
    assert_eq!(st["git"]["installed"], true);

    // A clean commit runs both hooks and succeeds.
    env.write_repo("README.md", "hello\n");
    env.git(&["add", "-A"]);
    env.git(&["commit", "-q", "-m", "clean"]);
    assert_eq!(std::fs::read_to_string(&marker).unwrap(), "ran\n");

    // A secret blocks the commit, with file:line in git's output.
    env.write_repo("app.env", &format!("KEY={AWS}\n"));
    env.git(&["add", "-A"]);
    let out = env
        .command("git")
        .args(["commit", "-q", "-m", "leak"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(stderr(&out).contains("app.env:1: possible secret (aws-access-key)"));

    // The existing hook still has its say: when it fails, the commit stops before cm runs.
    env.write_repo("app.env", "KEY=from-vault\n");
    env.write_repo("BLOCK", "");
    env.git(&["add", "-A"]);
    let out = env
        .command("git")
        .args(["commit", "-q", "-m", "blocked by the old hook"])
        .output()
        .unwrap();
    assert!(!out.status.success());

    let d = env.data_ok(&["guard", "--uninstall", "--git"]);
    assert_eq!(d["git"]["action"], "removed");
    assert_eq!(std::fs::read_to_string(&existing).unwrap(), original);
    assert!(!hooks.join("pre-commit.cm-chained").exists());
    assert_eq!(
        std::fs::metadata(&existing).unwrap().permissions().mode() & 0o777,
        0o755
    );
}

#[test]
fn git_hook_without_an_existing_one_installs_and_removes_cleanly() {
    let env = world();
    env.init_repo();
    // core.hooksPath is honoured.
    env.git(&["config", "core.hooksPath", ".githooks"]);
    let d = env.data_ok(&["guard", "--install", "--git"]);
    assert_eq!(d["git"]["action"], "added");
    assert_eq!(
        d["targets"][0]["agent"], "claude",
        "--install --git installs both"
    );
    let hook = env.cwd.join(".githooks/pre-commit");
    assert!(
        std::fs::read_to_string(&hook)
            .unwrap()
            .contains("cm-managed")
    );
    env.write_repo("k.txt", &format!("{GH}\n"));
    env.git(&["add", "-A"]);
    let out = env
        .command("git")
        .args(["commit", "-q", "-m", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    // A hook whose binary has gone says so and lets the commit through.
    let script = std::fs::read_to_string(&hook).unwrap();
    let broken: String = script
        .lines()
        .map(|l| {
            if l.starts_with("cm_bin=") {
                "cm_bin=/nonexistent/cm-precommit".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(&hook, broken + "\n").unwrap();
    let out = env
        .command("git")
        .args(["commit", "-q", "-m", "x"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(stderr(&out).contains("NOT scanned"));
    env.data_ok(&["guard", "--uninstall"]);
    assert!(!hook.exists());
    let outside = env.root.join("elsewhere");
    std::fs::create_dir_all(&outside).unwrap();
    let out = env.cm_in(&outside, &["guard", "--git", "--json"]);
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn project_settings_get_portable_commands_when_cm_is_on_path() {
    let env = world();
    env.init_repo();
    let bin = env.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::os::unix::fs::symlink(CM, bin.join("cm")).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |args: &[&str]| {
        let out = env
            .command(CM)
            .env("PATH", &path)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    };
    run(&["hooks", "install", "--project"]);
    let settings = env.cwd.join(".claude/settings.json");
    let v = read_json(&settings);
    assert_eq!(commands(&v, "PreToolUse"), vec!["cm hook pretool"]);
    assert_eq!(commands(&v, "SessionStart"), vec!["cm hook session-start"]);
    // The user's file keeps absolute commands (agents may run hooks with another PATH).
    run(&["guard", "--install", "--user"]);
    let user = read_json(&env.home.join(".claude/settings.json"));
    assert!(commands(&user, "PreToolUse")[0].starts_with('/'));
    run(&["hooks", "uninstall", "--project"]);
    assert!(!settings.exists(), "the file cm created is gone again");
}

#[test]
fn concurrent_trauma_adds_lose_nothing() {
    let env = world();
    let children: Vec<_> = (0..8)
        .map(|i| {
            env.command(CM)
                .args(["trauma", "add", &format!("danger-{i}"), "--json"])
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let list = env.data_ok(&["trauma", "list"]);
    assert_eq!(list["count"], 8);
    assert_eq!(list["warnings"], Value::Array(vec![]));
}

#[test]
fn concurrent_installs_add_each_handler_once() {
    let env = world();
    let children: Vec<_> = (0..6)
        .map(|i| {
            let args: &[&str] = if i % 2 == 0 {
                &["guard", "--install"]
            } else {
                &["hooks", "install"]
            };
            env.command(CM)
                .args(args)
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    let v = read_json(&env.home.join(".claude/settings.json"));
    for event in [
        "SessionStart",
        "UserPromptSubmit",
        "PreToolUse",
        "SessionEnd",
    ] {
        assert_eq!(commands(&v, event).len(), 1, "{event}: {v}");
    }
}

#[test]
fn hook_snippets_match_what_the_installer_writes() {
    // The files in hooks/ are documentation of the installer's output: keep them in step.
    let env = world();
    let bin = env.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::copy(CM, bin.join("cm")).unwrap();
    for link in ["cm-pretool", "cm-postsession", "cm-precommit"] {
        std::os::unix::fs::symlink("cm", bin.join(link)).unwrap();
    }
    let path = format!("{}:/usr/bin:/bin", bin.display());
    // Every agent is on this machine (`--agent all` installs only for those).
    for dir in [".claude", ".codex", ".gemini"] {
        std::fs::create_dir_all(env.home.join(dir)).unwrap();
    }
    // A binary copied a moment ago can be "busy" while another test thread forks with the copy's
    // descriptor still open (ETXTBSY, until that child execs): retry briefly.
    let out = (0..50)
        .find_map(|_| {
            match env
                .command(bin.join("cm"))
                .env("PATH", &path)
                .args(["hooks", "install", "--project", "--agent", "all"])
                .output()
            {
                Err(e) if e.raw_os_error() == Some(26) => {
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    None
                }
                other => Some(other.unwrap()),
            }
        })
        .expect("the copied binary stayed busy");
    assert!(out.status.success(), "{}", stderr(&out));
    let snippets = repo_path("hooks");
    for (written, snippet) in [
        (".claude/settings.json", "claude-settings.json"),
        (".codex/hooks.json", "codex-hooks.json"),
        (".gemini/settings.json", "gemini-settings.json"),
    ] {
        assert_eq!(
            read_json(&env.cwd.join(written)),
            read_json(&snippets.join(snippet)),
            "hooks/{snippet} differs from what `cm hooks install --project` writes"
        );
    }
}
