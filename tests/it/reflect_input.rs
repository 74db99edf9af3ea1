//! Reflection and validation given hostile or thin input, through the real binary: a file that
//! is no transcript, a transcript with no messages, rule text `playbook add` would refuse,
//! rules made of the words every session uses, and a dry run with an LLM configured.

use crate::harness::Env;
use crate::reflect::{NOW, Transcript, reflect};
use serde_json::{Value, json};

const PASSWD: &str = "root:x:0:0:root:/root:/bin/bash\n\
daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n\
bin:x:2:2:bin:/bin:/usr/sbin/nologin\n\
sys:x:3:3:sys:/dev:/usr/sbin/nologin\n";

#[test]
fn a_file_that_is_no_transcript_is_refused_and_nothing_is_written() {
    let env = Env::builder().now(NOW).build();
    // Outside every agent's directory, and inside Claude Code's: refused either way.
    let loose = env.write("etc/passwd", PASSWD);
    let dir = env.home.join(".claude/projects/-home-dev-shop");
    std::fs::create_dir_all(&dir).unwrap();
    let planted = dir.join("passwd.jsonl");
    std::fs::write(&planted, PASSWD).unwrap();
    for path in [&loose, &planted] {
        let e = env
            .cm(&["reflect", "--session", path.to_str().unwrap()])
            .json()
            .run()
            .code(3)
            .error_code("NOT_A_TRANSCRIPT");
        let message = e["message"].as_str().unwrap();
        assert!(message.contains(path.to_str().unwrap()), "{e}");
        assert!(message.contains("line 1"), "{e}");
        assert!(
            e["hint"].as_str().unwrap().contains("nothing was indexed"),
            "{e}"
        );
        assert!(!env.db().exists(), "a refused file created the store");
    }
    // `cm history index --file` refuses it the same way; the index holds nothing of it.
    env.cm(&["init"]).run().ok();
    env.cm(&["history", "index", "--file", loose.to_str().unwrap()])
        .json()
        .run()
        .code(3)
        .error_code("NOT_A_TRANSCRIPT");
    let sessions = env.data_of(&["history", "sessions"]);
    assert_eq!(sessions["count"], 0, "{sessions}");
    // A path that is not there is bad input too (exit 3, as the README's table says).
    env.cm(&["reflect", "--session", "/no/such/session.jsonl"])
        .json()
        .run()
        .code(3)
        .error_code("FILE_NOT_FOUND");
}

#[test]
fn a_transcript_with_no_messages_is_not_reflected_and_says_so() {
    let env = Env::builder().now(NOW).build();
    let dir = env.home.join(".claude/projects/-home-dev-shop");
    std::fs::create_dir_all(&dir).unwrap();
    // Just begun (empty), and one holding only a title record and bookkeeping.
    let empty = dir.join("0a0a0a0a-1111-4222-8333-444455556666.jsonl");
    std::fs::write(&empty, "").unwrap();
    let titled = dir.join("0b0b0b0b-1111-4222-8333-444455556666.jsonl");
    std::fs::write(
        &titled,
        json!({"type": "summary", "summary": "Shop checkout", "leafUuid": "x"}).to_string() + "\n",
    )
    .unwrap();
    for path in [&empty, &titled] {
        let d = reflect(&env, &[path.to_str().unwrap()]);
        assert_eq!(d["sessions"], json!([]), "{d}");
        assert_eq!(d["emptySessions"], 1, "{d}");
        assert_eq!(d["degraded"]["reflection"]["code"], "EMPTY_SESSION", "{d}");
        assert!(
            d["degraded"]["reflection"]["message"]
                .as_str()
                .unwrap()
                .contains("no messages yet"),
            "{d}"
        );
    }
    assert_eq!(env.data_of(&["diary", "list"])["count"], 0);
}

#[test]
fn validate_holds_rule_text_to_the_checks_of_playbook_add() {
    let env = Env::builder().now(NOW).build();
    let long = "Always pin the timezone. ".repeat(420);
    for (text, code) in [
        ("", "EMPTY_RULE"),
        (" \t\n ", "EMPTY_RULE"),
        (long.as_str(), "RULE_TOO_LONG"),
    ] {
        let add = env
            .cm(&["playbook", "add", text])
            .json()
            .run()
            .code(3)
            .error();
        let validate = env.cm(&["validate", text]).json().run().code(3).error();
        assert_eq!(add["code"], code);
        assert_eq!(validate["code"], code, "{validate}");
        assert_eq!(validate["message"], add["message"]);
    }
    // A secret in the text is never repeated, and the rule is refused for carrying it.
    let d = env.data_of(&[
        "validate",
        "Use the token ghp_abcdefghijklmnopqrstuvwxyz0123456789 for the registry",
    ]);
    assert!(!d.to_string().contains("ghp_abcdefghij"), "{d}");
    assert_eq!(d["verdict"], "reject", "{d}");
}

/// A short session of the workspace whose user message is `said`.
fn session(n: usize, cwd: &str, said: &str) -> Transcript {
    let id = format!("{n:08x}-1111-4222-8333-444455556666");
    let mut t = Transcript::new(&id, cwd);
    t.user(said)
        .bash("npm test", "Tests: 12 passed, 0 failed", false)
        .agent("I ran the tests before pushing; they all pass. Pushing the branch now.");
    t
}

fn index(env: &Env) {
    env.cm(&["history", "index"]).run().ok();
}

#[test]
fn generic_words_are_no_evidence_and_distinctive_ones_are() {
    let env = Env::builder().now(NOW).build();
    for n in 0..3 {
        session(
            n,
            "/home/dev/shop",
            "Run the tests before pushing, as always.",
        )
        .write_to(&env);
    }
    session(
        9,
        "/home/dev/shop",
        "The jest config needs a timezone pin for the date suite.",
    )
    .write_to(&env);
    index(&env);
    // Every session ran tests before pushing: a rule of those words has no evidence.
    let d = env.data_of(&["validate", "Always run the tests before pushing"]);
    assert_eq!(d["evidence"]["sessions"], 0, "{d}");
    assert_eq!(d["sessions"], json!([]), "{d}");
    assert_ne!(d["verdict"], "accept", "{d}");
    // The one session about the jest timezone is evidence for a rule about it.
    let d = env.data_of(&[
        "validate",
        "Pin the timezone in the jest config before date tests",
    ]);
    assert_eq!(d["verdict"], "accept", "{d}");
    assert_eq!(d["evidence"]["sessions"], 1, "{d}");
}

#[test]
fn a_word_in_most_sessions_of_a_large_history_is_no_evidence() {
    let env = Env::builder().now(NOW).build();
    for n in 0..12 {
        session(
            n,
            "/home/dev/api",
            "Bring the docker container up for the api suite.",
        )
        .write_to(&env);
    }
    index(&env);
    // "docker" and "container" are in every session: they tell none apart.
    let d = env.data_of(&[
        "validate",
        "Restart the docker container after a schema migration",
    ]);
    assert_eq!(d["evidence"]["sessions"], 0, "{d}");
}

#[test]
fn a_dry_run_says_it_skipped_the_configured_llm_pass() {
    let env = Env::builder().now(NOW).build();
    // Nothing listens there: a dry run must not call it, and says it did not.
    env.write_config(&json!({"llm": {"provider": "openai-compatible", "baseUrl": "http://127.0.0.1:9", "model": "test-model"}}));
    let path = session(
        1,
        "/home/dev/shop",
        "no, don't use moment here, we use date-fns in this repo",
    )
    .write_to(&env);
    let d = env
        .cm(&["reflect", "--dry-run", "--session", path.to_str().unwrap()])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["degraded"]["llm"]["code"], "LLM_SKIPPED_DRY_RUN", "{d}");
    assert!(d.get("llmUnavailable").is_none(), "{d}");
    assert_eq!(d["reflector"], "deterministic");
    // Without an LLM the dry run says what a real run says; with --no-llm, nothing.
    let env = Env::builder().now(NOW).build();
    let path = session(
        1,
        "/home/dev/shop",
        "no, don't use moment here, we use date-fns in this repo",
    )
    .write_to(&env);
    let p = path.to_str().unwrap();
    let d = env
        .cm(&["reflect", "--dry-run", "--session", p])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["degraded"]["llm"]["code"], "LLM_NOT_CONFIGURED", "{d}");
    assert!(d.get("llmUnavailable").is_none(), "{d}");
    let d = env
        .cm(&["reflect", "--dry-run", "--no-llm", "--session", p])
        .json()
        .run()
        .ok()
        .data();
    assert_eq!(d["degraded"], Value::Null, "{d}");
}
