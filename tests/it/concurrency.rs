//! Many processes writing one store at once: every mark and every add is stored, and no
//! "database is locked" reaches the user.

use crate::harness::{CM, Env};
use std::process::Stdio;

const WORKERS: usize = 8;
const MARKS_PER_WORKER: usize = 12;
const ADDS_PER_WORKER: usize = 4;

#[test]
fn eight_processes_marking_and_adding_lose_nothing() {
    let env = Env::new();
    let shared = (0..3)
        .map(|i| format!("Shared rule {i}"))
        .collect::<Vec<_>>();
    let ids: Vec<String> = shared.iter().map(|t| env.add(t)).collect();

    let script = |w: usize| {
        // One shell per worker runs its commands back to back, so the workers overlap.
        let mut lines = Vec::new();
        for m in 0..MARKS_PER_WORKER {
            let id = &ids[(w + m) % ids.len()];
            let verdict = if m % 4 == 3 { "--harmful" } else { "--helpful" };
            lines.push(format!(
                "\"$CM\" mark {id} {verdict} --reason 'w{w} m{m}' --json || echo FAILED mark {w} {m} >&2"
            ));
            if m % 3 == 0 {
                let a = m / 3;
                if a < ADDS_PER_WORKER {
                    lines.push(format!(
                        "\"$CM\" playbook add 'Worker {w} rule {a}' --json || echo FAILED add {w} {a} >&2"
                    ));
                }
            }
        }
        lines.join("\n")
    };
    let children: Vec<_> = (0..WORKERS)
        .map(|w| {
            env.command("sh")
                .arg("-c")
                .arg(script(w))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .expect("spawn worker")
        })
        .collect();
    let mut all_stdout = String::new();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            !stderr.contains("FAILED"),
            "a command failed:\n{stderr}\n{stdout}"
        );
        let lower = format!("{stderr}{stdout}").to_lowercase();
        assert!(
            !lower.contains("locked") && !lower.contains("busy"),
            "lock contention reached the user:\n{stderr}\n{stdout}"
        );
        all_stdout.push_str(&stdout);
    }
    for line in all_stdout.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(v["success"], true, "{line}");
    }

    // Every event is stored: per-rule counts match the events and the totals match what ran.
    let list = env.cm(&["ls", "--all"]).json().run().ok().data();
    let bullets = list["bullets"].as_array().unwrap();
    let (mut helpful, mut harmful, mut events) = (0, 0, 0);
    for b in bullets {
        let h = b["helpfulCount"].as_u64().unwrap();
        let x = b["harmfulCount"].as_u64().unwrap();
        let ev = b["feedbackEvents"].as_array().unwrap();
        assert_eq!(
            ev.len() as u64,
            h + x,
            "counts match events for {}",
            b["id"]
        );
        helpful += h;
        harmful += x;
        events += ev.len();
    }
    let expected_harmful = WORKERS * (MARKS_PER_WORKER / 4);
    let expected_marks = WORKERS * MARKS_PER_WORKER;
    assert_eq!(events, expected_marks, "every mark stored");
    assert_eq!(harmful as usize, expected_harmful);
    assert_eq!(helpful as usize, expected_marks - expected_harmful);
    let worker_rules = bullets
        .iter()
        .filter(|b| b["content"].as_str().unwrap().starts_with("Worker "))
        .count();
    assert_eq!(worker_rules, WORKERS * ADDS_PER_WORKER, "every add stored");
    // And every mark left its own reason behind.
    let mut reasons: Vec<String> = bullets
        .iter()
        .flat_map(|b| b["feedbackEvents"].as_array().unwrap().clone())
        .map(|e| e["reason"].as_str().unwrap().to_string())
        .collect();
    reasons.sort();
    reasons.dedup();
    assert_eq!(reasons.len(), expected_marks);
}

#[test]
fn processes_racing_to_create_a_fresh_store_all_succeed() {
    let env = Env::new();
    let children: Vec<_> = (0..WORKERS)
        .map(|w| {
            env.command(CM)
                .args(["playbook", "add", &format!("First rule from {w}"), "--json"])
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}\n{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    assert_eq!(
        env.cm(&["ls"]).json().run().ok().data()["count"],
        WORKERS as u64
    );
}

#[test]
fn concurrent_repo_adds_and_marks_all_land_in_the_repository_file() {
    let env = Env::new();
    env.git_repo();
    let shared = add_repo(&env, "Shared repo rule");
    let children: Vec<_> = (0..WORKERS)
        .map(|w| {
            let script = format!(
                "\"$CM\" add 'Repo rule from worker {w}' --repo --json || echo FAILED >&2\n\
                 \"$CM\" mark {shared} --helpful --json || echo FAILED >&2"
            );
            env.command("sh")
                .arg("-c")
                .arg(script)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("FAILED"), "{stderr}");
    }
    let list = env.cm(&["ls"]).json().run().ok().data();
    let repo: Vec<_> = list["bullets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|b| b["location"] == "repo")
        .collect();
    assert_eq!(repo.len(), WORKERS + 1, "every repo add is in the file");
    let s = repo.iter().find(|b| b["id"] == shared.as_str()).unwrap();
    assert_eq!(
        s["helpfulCount"], WORKERS as u64,
        "every mark is in the file"
    );
}

/// Six rules and `n` outcomes over them, two rules each (one outcome in four a failure),
/// recorded in one shell so it is quick. Six rules are enough that none is inverted.
fn record_outcomes(env: &Env, n: usize) {
    let ids: Vec<String> = (0..6)
        .map(|i| env.add(&format!("Outcome rule {i}")))
        .collect();
    let script: Vec<String> = (0..n)
        .map(|i| {
            let status = if i % 4 == 3 { "failure" } else { "success" };
            let a = &ids[i % ids.len()];
            let b = &ids[(i + 1) % ids.len()];
            format!(
                "\"$CM\" outcome {status} {a},{b} --summary 'run {i}' >/dev/null || echo FAILED >&2"
            )
        })
        .collect();
    let out = env.shell(&script.join("\n")).run();
    assert!(!out.stderr.contains("FAILED"));
}

/// Exactly one feedback event per rule of each of the `n` outcomes, and no other row.
fn assert_each_outcome_applied_once(env: &Env, n: usize) {
    let list = env.cm(&["ls", "--all"]).json().run().ok().data();
    let (mut helpful, mut harmful, mut rows) = (0, 0, 0);
    for b in list["bullets"].as_array().unwrap() {
        for e in b["feedbackEvents"].as_array().unwrap() {
            rows += 1;
            match (e["source"].as_str(), e["type"].as_str()) {
                (Some("outcome"), Some("helpful")) => helpful += 1,
                (Some("outcome"), Some("harmful")) => harmful += 1,
                _ => {}
            }
        }
    }
    assert_eq!(
        (helpful + harmful, rows),
        (2 * n, 2 * n),
        "two rules per outcome"
    );
    assert_eq!(harmful, 2 * (n / 4));
}

fn spawn_apply(env: &Env) -> std::process::Child {
    env.command(CM)
        .args(["outcome-apply", "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn parallel_outcome_applies_apply_each_outcome_once() {
    let env = Env::new();
    let n = 60;
    record_outcomes(&env, n);
    let children: Vec<_> = (0..WORKERS).map(|_| spawn_apply(&env)).collect();
    let mut applied = 0;
    for child in children {
        let out = child.wait_with_output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "{stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
        applied += v["data"]["count"].as_u64().unwrap();
    }
    assert_eq!(
        applied, n as u64,
        "the runs applied {applied} outcomes of {n} between them"
    );
    assert_each_outcome_applied_once(&env, n);
}

#[test]
fn an_outcome_apply_killed_part_way_never_applies_an_outcome_twice() {
    let env = Env::new();
    let n = 80;
    record_outcomes(&env, n);
    for round in 0..8u64 {
        let mut child = spawn_apply(&env);
        std::thread::sleep(std::time::Duration::from_millis(15 + round * 20));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();
    }
    let out = spawn_apply(&env).wait_with_output().unwrap();
    assert!(out.status.success());
    assert_each_outcome_applied_once(&env, n);
    // Nothing is left pending.
    let again = env.cm(&["outcome-apply"]).json().run().ok().data();
    assert_eq!(again["count"], 0);
}

#[test]
fn an_outcome_whose_claim_rolled_back_after_the_repo_file_was_written_is_not_applied_again() {
    let env = Env::new();
    env.git_repo();
    let id = add_repo(&env, "Repo outcome rule");
    env.cm(&["outcome", "success", &id]).run().ok();
    env.cm(&["outcome-apply"]).run().ok();
    // A crash after the repository file was rewritten but before the claim committed leaves the
    // outcome pending with its feedback already in the file.
    let conn = rusqlite::Connection::open(env.db()).unwrap();
    conn.execute("UPDATE outcomes SET applied = 0, applied_at = NULL", [])
        .unwrap();
    drop(conn);
    let again = env.cm(&["outcome-apply"]).json().run().ok().data();
    assert_eq!(again["count"], 1);
    let got = env.cm(&["playbook", "get", &id]).json().run().ok().data();
    assert_eq!(got["bullet"]["helpfulCount"], 1, "{got}");
}

/// Add a rule to the repository's playbook and return its id.
fn add_repo(env: &Env, text: &str) -> String {
    env.cm(&["add", text, "--repo"]).json().run().ok().data()["bullet"]["id"]
        .as_str()
        .unwrap()
        .to_string()
}
