//! Moving over from the original tool: its playbooks (feedback events without ids, deprecated
//! patterns, fields cm has no place for) import with every rule, event and date, report what
//! they could not keep, and a second import changes nothing.

use crate::harness::{Env, fixture_path};
use serde_json::Value;

const NOW: &str = "2025-11-21T12:00:00Z";

fn import(env: &Env, fixture: &str) -> crate::harness::Out {
    let path = fixture_path(fixture).display().to_string();
    env.cm(&["playbook", "import", &path])
        .json()
        .now(NOW)
        .run()
        .ok()
}

fn get(env: &Env, id: &str) -> Value {
    env.cm(&["playbook", "get", id])
        .json()
        .now(NOW)
        .run()
        .ok()
        .data()["bullet"]
        .clone()
}

fn fields(d: &Value) -> Vec<String> {
    d["unknownFields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|u| u["field"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_minimal_playbook_imports_with_its_event_and_reports_what_it_drops() {
    let env = Env::new();
    let out = import(&env, "original/minimal.yaml");
    let d = out.data();
    assert_eq!(d["added"], 1, "{d}");
    let b = get(&env, "b-mg1a2b3c-x7k9p1");
    let events = b["feedbackEvents"].as_array().unwrap();
    assert_eq!(events.len(), 1, "{b}");
    assert_eq!(events[0]["timestamp"], "2025-10-02T09:30:00.000Z");
    assert!(events[0]["id"].as_str().unwrap().starts_with("fb-"));
    let f = fields(&d);
    for want in [
        "bullets[].confidenceDecayHalfLifeDays",
        "metadata.totalReflections",
    ] {
        assert!(f.contains(&want.to_string()), "{want} in {f:?}");
    }
    assert!(
        out.stderr
            .contains("not imported: bullets[].confidenceDecayHalfLifeDays in 1 entry"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_complex_playbook_keeps_every_rule_event_date_and_deprecated_pattern() {
    let env = Env::new();
    let d = import(&env, "original/complex.yaml").data();
    assert_eq!(d["added"], 8, "six rules and two deprecated patterns: {d}");
    assert_eq!(d["deprecatedPatterns"], 2, "{d}");
    assert_eq!(d["skipped"].as_array().unwrap().len(), 0, "{d}");

    // Every event of the file, with its date, type, source and reason; two identical events
    // stay two.
    let text = std::fs::read_to_string(fixture_path("original/complex.yaml")).unwrap();
    let file: Value = serde_norway::from_str(&text).unwrap();
    let mut all_ids = Vec::new();
    for rule in file["bullets"].as_array().unwrap() {
        let b = get(&env, rule["id"].as_str().unwrap());
        let want = rule["feedbackEvents"].as_array().unwrap();
        let got = b["feedbackEvents"].as_array().unwrap();
        assert_eq!(got.len(), want.len(), "{}", rule["id"]);
        for (g, w) in got.iter().zip(want) {
            for key in ["type", "timestamp", "source", "reason", "sessionPath"] {
                if !w[key].is_null() {
                    assert_eq!(g[key], w[key], "{}: {key}", rule["id"]);
                }
            }
            all_ids.push(g["id"].as_str().unwrap().to_string());
        }
        assert_eq!(b["createdAt"], rule["createdAt"]);
        assert_eq!(b["kind"], rule["kind"]);
        assert_eq!(b["type"], rule["type"]);
    }
    let n = all_ids.len();
    all_ids.sort();
    all_ids.dedup();
    assert_eq!(all_ids.len(), n, "event ids are unique");
    assert_eq!(n, 24);

    let proven = get(&env, "b-mc0001-proven");
    assert_eq!(proven["maturity"], "proven", "{proven}");
    assert_eq!(proven["pinned"], true);
    assert!(
        proven["sourceSessions"]
            .as_array()
            .unwrap()
            .contains(&Value::from("/home/dev/.claude/projects/api/a0.jsonl"))
    );
    let draft = get(&env, "b-mc0003-candidate");
    assert_eq!(draft["state"], "draft");
    assert!(
        draft["sourceSessions"]
            .as_array()
            .unwrap()
            .contains(&Value::from("reflection-2025-11-15")),
        "sourceSession joins the list: {draft}"
    );
    assert_eq!(get(&env, "b-mc0004-deprecated")["deprecated"], true);
    assert_eq!(get(&env, "b-mc0006-negative")["isNegative"], true);

    // The deprecated patterns are deprecated rules: text, date, reason and replacement kept.
    let all = env.cm(&["ls", "--all"]).json().now(NOW).run().ok().data();
    let moment = all["bullets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|b| b["content"] == "Use moment.js for date arithmetic")
        .expect("the deprecated pattern is kept")
        .clone();
    let moment = get(&env, moment["id"].as_str().unwrap());
    assert_eq!(moment["deprecated"], true, "{moment}");
    assert_eq!(moment["createdAt"], "2025-08-14T12:00:00.000Z");
    assert_eq!(
        moment["deprecationReason"],
        "the project moved to date-fns (use instead: Use date-fns for date arithmetic)"
    );
    assert_eq!(moment["tags"], serde_json::json!(["deprecated-pattern"]));

    // What cm has no place for is named, with how many entries had it.
    let f = fields(&d);
    for want in [
        "bullets[].pinnedReason",
        "bullets[].lastValidatedAt",
        "bullets[].replacedBy",
        "bullets[].embedding",
        "bullets[].effectiveScore",
        "bullets[].feedbackEvents[].context",
        "bullets[].feedbackEvents[].decayedValue",
        "metadata.lastReflection",
    ] {
        assert!(f.contains(&want.to_string()), "{want} in {f:?}");
    }

    // A second import changes nothing.
    let again = import(&env, "original/complex.yaml").data();
    assert_eq!(again["added"], 0, "{again}");
    assert_eq!(again["skipped"].as_array().unwrap().len(), 8, "{again}");
    let b = get(&env, "b-mc0001-proven");
    assert_eq!(b["feedbackEvents"].as_array().unwrap().len(), 11);
}

/// `cm import --from-original ARGS --json`, asserting success.
fn from_original(env: &Env, args: &[&str]) -> crate::harness::Out {
    let mut all = vec!["import", "--from-original"];
    all.extend_from_slice(args);
    env.cm(&all).json().now(NOW).run().ok()
}

fn count_all(env: &Env) -> Value {
    env.cm(&["ls", "--all"]).json().now(NOW).run().ok().data()["count"].clone()
}

/// The original's store (its playbook, diary and config) in `~/.cass-memory`.
fn plant_original(env: &Env) -> std::path::PathBuf {
    let dir = env.home.join(".cass-memory");
    crate::harness::copy_fixture("original/store", &dir);
    dir
}

fn doctor_check(env: &Env, name: &str) -> Option<Value> {
    let v = env.cm(&["doctor"]).json().now(NOW).run().json();
    v["data"]["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .cloned()
}

fn snapshot(env: &Env) -> (Value, Value, Vec<u8>) {
    let rules = env
        .cm(&["playbook", "export", "--format", "json"])
        .now(NOW)
        .run()
        .ok()
        .stdout;
    let diary = env.cm(&["diary", "list"]).json().now(NOW).run().ok().data();
    let config = std::fs::read(env.data.join("config.json")).unwrap_or_default();
    (serde_json::from_str(&rules).unwrap(), diary, config)
}

#[test]
fn the_original_store_is_reported_then_imported_once_with_rules_feedback_diary_and_config() {
    let env = Env::new();
    plant_original(&env);
    let check = doctor_check(&env, "original store").expect("doctor reports the original store");
    assert_eq!(check["status"], "warn", "{check}");
    assert!(
        check["message"].as_str().unwrap().contains("8 rule(s)"),
        "{check}"
    );
    assert!(
        check["hint"]
            .as_str()
            .unwrap()
            .contains("cm import --from-original")
    );

    // A dry run says what it would bring and changes nothing.
    let dry = from_original(&env, &["--dry-run"]).data();
    assert_eq!(
        (
            dry["rules"]["added"].as_u64(),
            dry["diary"]["added"].as_u64()
        ),
        (Some(8), Some(2)),
        "{dry}"
    );
    assert_eq!(count_all(&env), 0);
    assert!(!env.data.join("config.json").exists());

    let out = from_original(&env, &[]);
    let d = out.data();
    assert_eq!(d["rules"]["added"], 8, "{d}");
    assert_eq!(d["rules"]["feedbackEvents"], 24, "{d}");
    assert_eq!(d["rules"]["deprecatedPatterns"], 2, "{d}");
    assert_eq!(d["diary"]["added"], 2, "{d}");
    assert!(
        d["diary"]["unreadable"][0]
            .as_str()
            .unwrap()
            .ends_with("notes.json"),
        "{d}"
    );
    assert_eq!(d["changed"], true);
    let f = fields(&d);
    assert!(f.contains(&"diary.searchAnchors".to_string()), "{f:?}");
    let mapped: Vec<&str> = d["config"]["mapped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| k.as_str().unwrap())
        .collect();
    assert!(mapped.contains(&"scoring.decayHalfLifeDays"), "{mapped:?}");
    assert!(mapped.contains(&"maxBulletsInContext"), "{mapped:?}");
    let unmapped: Vec<(String, String)> = d["config"]["unmapped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|k| {
            (
                k["key"].as_str().unwrap().to_string(),
                k["why"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert!(
        unmapped.contains(&("crossAgent".into(), "cm does not use it".into())),
        "{unmapped:?}"
    );
    assert!(
        unmapped.contains(&("telemetry".into(), "unknown to cm".into())),
        "{unmapped:?}"
    );
    assert!(
        out.stderr.contains("config key telemetry not imported"),
        "{}",
        out.stderr
    );

    // The rules with their events, the diary, the config cm now reads.
    let b = get(&env, "b-mc0001-proven");
    assert_eq!(b["feedbackEvents"].as_array().unwrap().len(), 11);
    let diary = env.cm(&["diary", "list"]).json().now(NOW).run().ok().data();
    let text = diary.to_string();
    assert!(
        text.contains("diary-5f2a9c1e") && text.contains("diary-8b3d0e47"),
        "{diary}"
    );
    let shown = env
        .cm(&["diary", "show", "diary-5f2a9c1e"])
        .json()
        .now(NOW)
        .run()
        .ok()
        .data()
        .to_string();
    for want in [
        "Fixed the login redirect loop",
        "Check token expiry before other auth debugging",
        "same expired token",
    ] {
        assert!(shown.contains(want), "{want} in {shown}");
    }
    let config: Value =
        serde_json::from_slice(&std::fs::read(env.data.join("config.json")).unwrap()).unwrap();
    assert_eq!(config["scoring"]["decayHalfLifeDays"], 60);
    assert!(config.get("crossAgent").is_none());

    // A second run changes nothing, and doctor says it is done.
    let before = snapshot(&env);
    let again = from_original(&env, &[]).data();
    assert_eq!(again["changed"], false, "{again}");
    assert_eq!(again["rules"]["added"], 0);
    assert_eq!(again["diary"]["added"], 0);
    assert_eq!(again["config"]["mapped"], serde_json::json!([]));
    assert_eq!(snapshot(&env), before);
    let check = doctor_check(&env, "original store").unwrap();
    assert_eq!(check["status"], "ok", "{check}");
}

/// Our data directory may be the original's own: its files are told apart by their format,
/// and its config.json is already the one cm reads.
#[test]
fn init_offers_the_import_when_the_data_dir_is_the_original_dir() {
    let env = Env::new();
    let dir = plant_original(&env);
    let env = env.with_env("CASS_MEMORY_HOME", &dir);
    let init = env.cm(&["init"]).json().now(NOW).run().ok().data();
    assert_eq!(init["original"]["rules"], 8, "{init}");
    assert_eq!(init["original"]["command"], "cm import --from-original");
    let human = env.cm(&["init"]).now(NOW).run().ok().stdout;
    assert!(human.contains("cm import --from-original"), "{human}");
    let d = from_original(&env, &[]).data();
    assert_eq!(d["rules"]["added"], 8, "{d}");
    assert!(d["config"]["file"].is_null(), "its config is cm's: {d}");
    assert_eq!(count_all(&env), 8);
    let again = from_original(&env, &[]).data();
    assert_eq!(again["changed"], false, "{again}");
    let init = env.cm(&["init"]).json().now(NOW).run().ok().data();
    assert!(init["original"].is_null(), "nothing left to offer: {init}");
}

#[test]
fn doctor_fix_imports_the_original_store_and_its_dry_run_says_so() {
    let env = Env::new();
    plant_original(&env);
    env.cm(&["init"]).now(NOW).run().ok();
    // From a copy: `--fix` also links the hooks beside the binary it runs as.
    let exe = env.copy_of_cm();
    let dry = env
        .run_program(&exe, &["doctor", "--fix", "--dry-run"])
        .json()
        .now(NOW)
        .run()
        .json();
    let repair = |v: &Value| {
        v["data"]["repairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["check"] == "original store")
            .cloned()
    };
    assert_eq!(repair(&dry).expect("listed")["outcome"], "would", "{dry}");
    assert_eq!(count_all(&env), 0);
    let fixed = env
        .run_program(&exe, &["doctor", "--fix"])
        .json()
        .now(NOW)
        .run()
        .json();
    assert_eq!(repair(&fixed).expect("done")["outcome"], "done", "{fixed}");
    assert_eq!(count_all(&env), 8);
    let again = env
        .run_program(&exe, &["doctor", "--fix"])
        .json()
        .now(NOW)
        .run()
        .json();
    assert!(repair(&again).is_none(), "{again}");
}

#[test]
fn without_an_original_store_the_import_says_there_is_no_data() {
    let env = Env::new();
    // cm's own data dir in the original's place is not the original's store.
    let own = env.home.join(".cass-memory");
    let env = env.with_env("CASS_MEMORY_HOME", own);
    env.cm(&["add", "A rule of cm's own"]).run().ok();
    env.cm(&["import", "--from-original"])
        .json()
        .run()
        .code(5)
        .error_code("ORIGINAL_NOT_FOUND");
    assert!(doctor_check(&env, "original store").is_none());
}
