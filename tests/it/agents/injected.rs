//! Context cm injected into a conversation is indexed as nobody's words: Gemini CLI keeps it
//! inside the user's message (`<hook_context>…</hook_context>`), other agents as a message of
//! its own. Neither may become a session's title, a search hit, or a "recent session" quoted back.

use crate::harness::Env;
use serde_json::json;

#[test]
fn injected_context_is_not_indexed_as_the_users_words() {
    let env = Env::new();
    env.cm(&["init"]).run().ok();
    let chats = env.home.join(".gemini/tmp/5d41402abc4b2a76/chats");
    std::fs::create_dir_all(&chats).unwrap();
    let doc = json!({
        "sessionId": "7a1b2c3d-4c5d-4e6f-8a9b-0c1d2e3f4a5b",
        "projectHash": "5d41402abc4b2a76",
        "startTime": "2026-11-20T11:00:00.000Z", "lastUpdated": "2026-11-20T11:02:00.000Z",
        "messages": [
            {"id": "m1", "type": "user", "timestamp": "2026-11-20T11:00:00.000Z",
             "content": [{"text": "please tidy the zanzibarite folder\n\n<hook_context>Related past records (cm):\n- rule [b-1] never delete the quokkaplex cache</hook_context>"}]},
            {"id": "m2", "type": "gemini", "timestamp": "2026-11-20T11:01:00.000Z", "content": "Tidied."}
        ]
    });
    std::fs::write(
        chats.join("session-2026-11-20T11-00-7a1b2c3d.json"),
        doc.to_string(),
    )
    .unwrap();
    // A Claude Code session whose only "user" line is cm's session-start context.
    let claude = env.home.join(".claude/projects/-home-u-app");
    std::fs::create_dir_all(&claude).unwrap();
    let lines = [
        json!({"parentUuid": null, "isSidechain": false, "userType": "external", "cwd": "/home/u/app", "sessionId": "3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f", "version": "2.1.197", "type": "user", "isMeta": true, "message": {"role": "user", "content": "cm memory for /home/u/app (branch main):\nRules that applied to similar work:\n- [b-2] keep the quokkaplex cache"}, "uuid": "u1", "timestamp": "2026-08-10T12:00:00.000Z"}),
        json!({"parentUuid": "u1", "isSidechain": false, "userType": "external", "cwd": "/home/u/app", "sessionId": "3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f", "version": "2.1.197", "type": "user", "message": {"role": "user", "content": "rename the zanzibarite module"}, "uuid": "u2", "timestamp": "2026-08-10T12:00:01.000Z"}),
    ];
    std::fs::write(
        claude.join("3f2a6b1c-0c1e-4f8a-9d2b-1a2b3c4d5e6f.jsonl"),
        lines.iter().map(|l| format!("{l}\n")).collect::<String>(),
    )
    .unwrap();
    env.cm(&["history", "index"]).run().ok();

    let hits = |q: &str| {
        env.cm(&["history", "search", q]).json().run().ok().data()["hits"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    };
    assert_eq!(hits("zanzibarite").len(), 2, "the users' own words stay");
    assert!(
        hits("quokkaplex").is_empty(),
        "cm's injected context is nobody's words"
    );
    let sessions = env.cm(&["history", "sessions"]).json().run().ok().data();
    let text = sessions.to_string();
    assert!(!text.contains("hook_context"), "{text}");
    assert!(!text.contains("Related past records"), "{text}");
    assert!(!text.contains("cm memory for"), "{text}");
}
