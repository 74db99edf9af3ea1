//! What reflection learns from how people really talk to an agent, through the real binary:
//! chatter gives no rule, each correction gives one, the same correction in other words from
//! other sessions stays one rule, the diary keeps every correction, and a rule the post-session
//! hook learned is in the very next prompt hook's and session start's answer.

use crate::harness::Env;
use crate::reflect::{NOW, Transcript, reflect};
use serde_json::{Value, json};
use std::time::{Duration, Instant};

const CWD: &str = "/home/dev/shop";

fn session(n: u32) -> String {
    format!("{n:08x}-2222-4333-8444-555566667777")
}

/// A session where the agent writes a file, runs a command, and the user says `said`.
fn saying(n: u32, said: &[&str]) -> Transcript {
    let mut t = Transcript::new(&session(n), CWD);
    t.user("add zod validation to the contact form server action");
    t.bash("npm install zod", "added 1 package", false);
    t.tool(
        "Write",
        json!({"file_path": format!("{CWD}/src/gen/contact_pb.ts"), "content": "export const x = 1;\n"}),
        "File created",
        false,
    );
    for s in said {
        t.user(s);
        t.agent("Understood.");
    }
    t
}

/// The chatter the issue quotes gives no rule at all.
#[test]
fn chatter_gives_no_rule() {
    let env = Env::builder().now(NOW).build();
    let path = saying(
        1,
        &[
            "Always nice working with you.",
            "Don't push yet.",
            "Use the second option you mentioned, the one with the map.",
            "Always the same story with this checkout code lol.",
            "Don't forget the tests.",
            "Use the same approach as in cart.ts but keep the discount logic.",
            "no, the other file",
            "let's do the map version this time",
            "not now, thanks",
        ],
    )
    .write_to(&env);
    let d = reflect(&env, &[path.to_str().unwrap()]);
    assert_eq!(d["added"], json!([]), "{d:#}");
    assert_eq!(env.rule_contents(), Vec::<String>::new());
}

/// Each correction the issue quotes gives a rule that keeps its subject and drops the mood;
/// the same correction in other words from other sessions ends as one rule, whose later
/// sessions are its sources and helpful marks.
#[test]
fn corrections_give_one_rule_each_and_restatements_no_more() {
    let env = Env::builder().now(NOW).build();
    for (n, said, words) in [
        (1, "why did you use npm? we're a pnpm shop", &["pnpm"][..]),
        (
            2,
            "that file is generated, regenerate it with make proto instead of editing it",
            &["generated", "make proto", "src/gen/contact_pb.ts"],
        ),
    ] {
        let path = saying(n, &[said]).write_to(&env);
        let d = reflect(&env, &[path.to_str().unwrap()]);
        assert_eq!(d["added"].as_array().unwrap().len(), 1, "{said}: {d:#}");
        let rule = env
            .rule_contents()
            .into_iter()
            .find(|r| r.contains(words[0]))
            .unwrap_or_else(|| panic!("{said}: {:?}", env.rule_contents()));
        for w in words {
            assert!(rule.contains(w), "{said}: {rule}");
        }
    }
    let before = env.rule_contents().len();
    for (n, said) in [
        (3, "wrong package manager - it's pnpm here, not npm"),
        (4, "Use pnpm here, not npm, I told you last week."),
        (5, "no npm in this repo please, pnpm only"),
    ] {
        let path = saying(n, &[said]).write_to(&env);
        reflect(&env, &[path.to_str().unwrap()]);
    }
    let all = env.rule_contents();
    let pnpm: Vec<&String> = all.iter().filter(|r| r.contains("pnpm")).collect();
    assert!(pnpm.len() <= 2, "{pnpm:#?}");
    assert!(all.len() <= before + 1, "{all:#?}");
    assert!(
        all.iter().all(|r| !r.to_lowercase().contains("told you")),
        "{all:#?}"
    );
}

/// The diary keeps every correction with its line, even one that gives no rule.
#[test]
fn the_diary_keeps_every_correction() {
    let env = Env::builder().now(NOW).build();
    let path = saying(
        6,
        &[
            "no, the other file",
            "why are you adding the provider package? we're on riverpod here",
        ],
    )
    .write_to(&env);
    let d = reflect(&env, &[path.to_str().unwrap()]);
    let corrections = d["sessions"][0]["diary"]["corrections"]
        .as_array()
        .unwrap()
        .clone();
    let texts: Vec<&str> = corrections
        .iter()
        .map(|c| c["text"].as_str().unwrap())
        .collect();
    assert_eq!(texts.len(), 2, "{corrections:#?}");
    assert!(texts[0].contains("the other file"), "{texts:?}");
    assert!(corrections.iter().all(|c| c["line"].as_i64().unwrap() > 0));
    let shown = env.data_of(&["diary", "show", &session(6)[..8]]);
    assert_eq!(shown["entry"]["corrections"], Value::Array(corrections));
}

/// A rule the post-session hook learns is in the very next prompt hook's and session start's
/// answer, with no other command run in between that could rebuild what the hooks read. The
/// prompt shares no word with the rule, only with the session it was learned in (its evidence,
/// which the hooks read as stored).
#[test]
fn a_rule_learned_after_a_session_is_in_the_next_hooks_answer() {
    let env = Env::builder().now(NOW).build();
    env.git_repo();
    let cwd = env.cwd.display().to_string();
    env.cm(&["init"]).run().ok();
    let mut t = Transcript::new(&session(7), &cwd);
    t.user("format the invoice dates in the billing table")
        .tool(
            "Edit",
            json!({"file_path": format!("{cwd}/src/dates.ts"), "old_string": "x", "new_string": "import moment from 'moment';"}),
            "ok",
            false,
        )
        .user("no, don't use moment here, we use date-fns in this repo for every date formatting")
        .agent("Switching to date-fns.");
    let path = t.write_to(&env);
    let payload = json!({"session_id": session(7), "transcript_path": path, "cwd": cwd, "hook_event_name": "SessionEnd", "reason": "exit"});
    let out = env.hook("postsession", payload.to_string()).run().ok();
    assert!(out.stdout.is_empty());
    // Wait for the detached job by reading its diary entry (a read that rebuilds nothing).
    let deadline = Instant::now() + Duration::from_secs(30);
    while env.data_of(&["diary", "list"])["count"] != 1 {
        assert!(Instant::now() < deadline, "never reflected");
        std::thread::sleep(Duration::from_millis(200));
    }
    let prompt = env
        .hook(
            "prompt",
            json!({"session_id": "s2", "cwd": cwd, "hook_event_name": "UserPromptSubmit", "prompt": "the invoice billing table"}).to_string(),
        )
        .run();
    assert!(
        prompt.stdout.contains("date-fns"),
        "{}\n{}",
        prompt.stdout,
        prompt.stderr
    );
    let start = env
        .hook(
            "session-start",
            json!({"session_id": "s2", "transcript_path": "/t/s2.jsonl", "cwd": cwd, "hook_event_name": "SessionStart", "source": "startup"}).to_string(),
        )
        .run();
    assert!(
        start.stdout.contains("date-fns"),
        "{}\n{}",
        start.stdout,
        start.stderr
    );
}

/// A session where the agent ran `command` (or wrote `file`) and the user answered `said`.
fn after(n: u32, command: Option<&str>, file: Option<&str>, said: &str) -> Transcript {
    let mut t = Transcript::new(&session(n), CWD);
    t.user("add a date picker to the booking form");
    if let Some(c) = command {
        t.bash(c, "ok", false);
    }
    if let Some(f) = file {
        t.tool(
            "Write",
            json!({"file_path": format!("{CWD}/{f}"), "content": "export const x = 1;\n"}),
            "File created",
            false,
        );
    }
    t.user(said).agent("Got it.");
    t
}

/// Corrections written in ways the reflector was not tuned on (terse, a question, polite,
/// misspelt, a statement about the file the agent just wrote): each gives a rule with the
/// right way in it, and the same correction in five wordings ends as at most two rules.
#[test]
fn corrections_in_other_words_give_a_rule_and_stay_one_lesson() {
    let env = Env::builder().now(NOW).build();
    for (n, said) in [
        (20, "no. bun."),
        (21, "hm, we don't use npm in this repo — bun add dayjs"),
        (22, "could you use `bun add` instead?"),
        (23, "why npm?? its bun here"),
        (24, "pls dont use npm, this project runs on bun"),
    ] {
        let path = after(n, Some("npm install dayjs"), None, said).write_to(&env);
        reflect(&env, &[path.to_str().unwrap()]);
        let rules = env.rule_contents();
        assert!(
            rules.iter().any(|r| r.contains("bun")),
            "{said}: {rules:#?}"
        );
    }
    let bun = env.rule_contents();
    assert!(bun.len() <= 2, "{bun:#?}");
    for (n, command, file, said, word) in [
        (
            30,
            Some("python manage.py test"),
            None,
            "not like that — tests run through `make test` here, it sets the settings module",
            "make test",
        ),
        (
            31,
            Some("go build -o /tmp/api ./cmd/api"),
            None,
            "would you mind using `mage build` instead? it stamps the version",
            "mage build",
        ),
        (
            32,
            None,
            Some("src/api/client.gen.ts"),
            "that file is generated by openapi-generator, run `make client` instead of editing it",
            "make client",
        ),
    ] {
        let path = after(n, command, file, said).write_to(&env);
        let d = reflect(&env, &[path.to_str().unwrap()]);
        let added = d["added"].as_array().cloned().unwrap_or_default();
        assert_eq!(added.len(), 1, "{said}: {d:#}");
        assert!(
            env.rule_contents().iter().any(|r| r.contains(word)),
            "{said}: {:#?}",
            env.rule_contents()
        );
    }
}

/// A session of ordinary talk in wordings the reflector was not tuned on gives no rule.
#[test]
fn chatter_in_other_words_gives_no_rule() {
    let env = Env::builder().now(NOW).build();
    let mut t = after(
        40,
        Some("npm test"),
        Some("src/booking/form.tsx"),
        "lol that's a lot of yaml",
    );
    for said in [
        "ok do it, but don't open the PR until Friday",
        "go with option 2",
        "i'm wiped, let's stop here today",
        "nice!! thanks a ton",
        "hmm, use the shorter name for this one",
        "let's not touch auth today",
        "revert the last commit please",
        "don't ship it tonight, the release train left",
        "the 2nd one reads better",
    ] {
        t.user(said).agent("Sure.");
    }
    let path = t.write_to(&env);
    let d = reflect(&env, &[path.to_str().unwrap()]);
    assert_eq!(d["added"], json!([]), "{d:#}");
}

/// A Claude Code `Stop` payload for the session at `path`.
fn stop_payload(n: u32, path: &std::path::Path, active: bool) -> String {
    json!({"session_id": session(n), "transcript_path": path, "cwd": CWD, "permission_mode": "default",
           "hook_event_name": "Stop", "stop_hook_active": active,
           "last_assistant_message": "Done."})
    .to_string()
}

/// The reflector mode of the `Stop` hook is off unless asked for; on, it blocks the stop of a
/// session that held a correction once, with an instruction naming the session, and never
/// again in that session (not on the continued stop, not on a later turn).
#[test]
fn the_stop_hook_asks_the_agent_to_reflect_once_when_asked_to() {
    let env = Env::builder().now(NOW).build();
    env.cm(&["init"]).run().ok();
    let path = after(50, Some("npm install dayjs"), None, "no. yarn.").write_to(&env);
    let off = env.hook("stop", stop_payload(50, &path, false)).run().ok();
    assert_eq!(off.stdout, "", "{}", off.stderr);
    let on = || {
        env.hook("stop", stop_payload(50, &path, false))
            .env("CM_STOP_REFLECT", "1")
    };
    let first = on().run().ok();
    let answer: Value = serde_json::from_str(first.stdout.trim()).expect(&first.stdout);
    assert_eq!(answer["decision"], "block", "{answer}");
    let reason = answer["reason"].as_str().unwrap();
    assert!(
        reason.contains(&format!("cm playbook add --session {}", path.display())),
        "{reason}"
    );
    assert!(reason.contains("no. yarn."), "{reason}");
    let continued = env
        .hook("stop", stop_payload(50, &path, true))
        .env("CM_STOP_REFLECT", "1")
        .run()
        .ok();
    assert_eq!(continued.stdout, "");
    assert_eq!(on().run().ok().stdout, "", "once per session");
}

/// A session with no correction and no failure streak lets the agent stop; a streak of one
/// failing step does not; with an LLM key configured the post-session pass reflects instead.
#[test]
fn the_stop_hook_reflector_needs_a_correction_or_a_streak_and_no_llm() {
    let env = Env::builder().now(NOW).build();
    env.cm(&["init"]).run().ok();
    let calm = after(51, Some("npm test"), None, "great, thanks!").write_to(&env);
    let out = env
        .hook("stop", stop_payload(51, &calm, false))
        .arg_os("--reflect")
        .run()
        .ok();
    assert_eq!(out.stdout, "", "{}", out.stderr);
    let mut t = Transcript::new(&session(52), CWD);
    t.user("make the booking tests pass");
    for _ in 0..3 {
        t.bash(
            "go test ./booking/...",
            "--- FAIL: TestBook (0.00s)\nFAIL",
            true,
        );
    }
    let streak = t.write_to(&env);
    let out = env
        .hook("stop", stop_payload(52, &streak, false))
        .arg_os("--reflect")
        .run()
        .ok();
    assert!(out.stdout.contains("\"block\""), "{}", out.stdout);
    assert!(out.stdout.contains("go test"), "{}", out.stdout);
    env.write_config(&json!({"llm": {"provider": "anthropic"}}));
    let corrected = after(53, Some("npm install dayjs"), None, "no. yarn.").write_to(&env);
    let out = env
        .hook("stop", stop_payload(53, &corrected, false))
        .arg_os("--reflect")
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .run()
        .ok();
    assert_eq!(out.stdout, "", "{}", out.stderr);
}

/// Corrections that name no program the agent ran, through the real binary: an objection to
/// what the last edit brought in, a terse reaction finished by the answer to the agent's
/// question, the call's program asked back, two bare names. Each gives one rule that names
/// both the wrong and the right way; a question with "always" in it gives none.
#[test]
fn corrections_by_mechanism_give_a_rule_naming_both_ways() {
    let env = Env::builder().now(NOW).build();
    let mut edit = Transcript::new(&session(40), CWD);
    edit.user("reservations should expire after 30 minutes").tool(
        "Edit",
        json!({"file_path": format!("{CWD}/src/Reservation.cs"), "old_string": "    public DateTimeOffset CreatedAt { get; init; }",
               "new_string": "    public DateTimeOffset CreatedAt { get; init; }\n    public bool IsExpired => DateTime.Now - CreatedAt > TimeSpan.FromMinutes(30);"}),
        "The file has been updated.",
        false,
    );
    edit.user("ugh, DateTime.Now again. inject TimeProvider and use GetUtcNow(), otherwise nobody can test expiry")
        .agent("Switching to an injected TimeProvider.");
    let mut asked = Transcript::new(&session(41), CWD);
    asked
        .user("add recharts and draw the weekly active users")
        .bash(
            "yarn add recharts",
            "success Saved 1 new dependency.",
            false,
        )
        .user("wrong package manager")
        .agent("Which one should I use?")
        .user("pnpm, the lockfile is pnpm-lock.yaml. and delete that yarn.lock it just made")
        .bash("rm yarn.lock && pnpm add recharts", "Done in 2.1s", false);
    let mut echoed = Transcript::new(&session(42), CWD);
    echoed
        .user("validate all the charts")
        .bash("kubeval --strict charts/*/templates/*.yaml", "PASS", false)
        .user("kubeval? that thing's been dead for years. `make lint` does helm lint + kubeconform with our CRD schemas")
        .bash("make lint", "57 resources valid", false);
    let mut contrast = Transcript::new(&session(43), CWD);
    contrast
        .user("run the stock service tests")
        .bash("mvn -q test -Dtest=StockServiceTest", "Tests run: 4", false)
        .user("gradle, not maven")
        .bash(
            "./gradlew test --tests '*StockServiceTest'",
            "BUILD SUCCESSFUL",
            false,
        );
    let mut question = Transcript::new(&session(44), CWD);
    question
        .user("why does the dev plan always show the lambda as changed?")
        .agent("Its source hash is computed from a zip with timestamps.");
    for (t, words) in [
        (&edit, &["DateTime.Now", "TimeProvider"][..]),
        (&asked, &["pnpm", "`yarn add`"]),
        (&echoed, &["kubeval", "`make lint`"]),
        (&contrast, &["`./gradlew test`", "`mvn test`"]),
    ] {
        let path = t.write_to(&env);
        let d = reflect(&env, &[path.to_str().unwrap()]);
        let added = d["added"].as_array().unwrap();
        assert_eq!(added.len(), 1, "{words:?}: {d:#}");
        let rule = env
            .rule_contents()
            .into_iter()
            .find(|r| r.contains(words[0]))
            .unwrap_or_else(|| panic!("{words:?}: {:?}", env.rule_contents()));
        for w in words {
            assert!(rule.contains(w), "{rule}");
        }
        assert!(!rule.contains("package manager"), "{rule}");
    }
    let before = env.rule_contents().len();
    let path = question.write_to(&env);
    let d = reflect(&env, &[path.to_str().unwrap()]);
    assert_eq!(d["added"], json!([]), "{d:#}");
    assert_eq!(env.rule_contents().len(), before);
}
