//! The pre-commit scan sees every staged file as text, whatever git thinks of it: files marked
//! `binary` or `-diff` in `.gitattributes`, files with a NUL byte, UTF-16 files. And a
//! repository's own config cannot wave secrets through with a pattern: only the user's config
//! can. Real git repositories, the real hook binary.

use crate::harness::{CM, Env};
use std::process::Output;

const GH: &str = "ghp_Pr3c0mmitB1naryT0ken0123456789abcdEF";
const AWS: &str = "AKIAPRECOMMIT7DIFF2X";
const SLACK: &str = "xoxb-1234567890-Nul1ByteF1leT0ken";
const ANT: &str = "sk-ant-api03-Utf16Enc0dedK3yAbCdEfGh";

fn repo() -> Env {
    let env = Env::builder().workdir("repo").build();
    std::fs::create_dir_all(&env.data).unwrap();
    for args in [
        &["init", "-q", "."][..],
        &["config", "user.name", "Test"],
        &["config", "user.email", "test@example.invalid"],
    ] {
        git(&env, args);
    }
    env
}

fn git(env: &Env, args: &[&str]) -> Output {
    let out = env.command("git").args(args).output().unwrap();
    assert!(out.status.success(), "git {args:?}: {out:?}");
    out
}

fn precommit(env: &Env) -> (i32, String) {
    let out = env
        .command(CM)
        .args(["hook", "precommit"])
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn utf16le(text: &str) -> Vec<u8> {
    let mut out = vec![0xff, 0xfe];
    for u in text.encode_utf16() {
        out.extend(u.to_le_bytes());
    }
    out
}

fn stage_hidden_secrets(env: &Env) {
    let w = |rel: &str, bytes: &[u8]| std::fs::write(env.cwd.join(rel), bytes).unwrap();
    w(".gitattributes", b"*.bin binary\n*.cfg -diff\n");
    w(
        "creds.bin",
        format!("header\nGITHUB_TOKEN={GH}\n").as_bytes(),
    );
    w("app.cfg", format!("region=eu\naws_key={AWS}\n").as_bytes());
    let mut dump = b"\x00\x01\x02binary head\n".to_vec();
    dump.extend(format!("slack {SLACK}\n").as_bytes());
    w("dump.dat", &dump);
    w(
        "notes.txt",
        &utf16le(&format!("release notes\r\nkey: {ANT}\r\n")),
    );
    git(env, &["add", "-A"]);
}

#[test]
fn secrets_in_files_git_treats_as_binary_are_found() {
    let env = repo();
    stage_hidden_secrets(&env);
    let (code, err) = precommit(&env);
    assert_eq!(code, 1, "{err}");
    for want in [
        "creds.bin:2: possible secret (github-token)",
        "app.cfg:2: possible secret (aws-access-key)",
        "dump.dat:2: possible secret (slack-token)",
        "notes.txt:2: possible secret (anthropic-key)",
    ] {
        assert!(err.contains(want), "missing {want:?} in:\n{err}");
    }
    for secret in [GH, AWS, SLACK, ANT] {
        assert!(!err.contains(secret), "echoed a secret:\n{err}");
    }
}

#[test]
fn a_repository_allow_list_may_name_a_value_but_never_a_pattern() {
    let env = repo();
    stage_hidden_secrets(&env);
    let (_, err) = precommit(&env);
    let fp = err
        .lines()
        .find(|l| l.starts_with("app.cfg:2:"))
        .and_then(|l| l.split("[fingerprint ").nth(1))
        .map(|s| s.trim_end_matches(']').to_string())
        .unwrap();
    std::fs::create_dir_all(env.cwd.join(".cass")).unwrap();
    let repo_config = |entries: serde_json::Value| {
        std::fs::write(
            env.cwd.join(".cass/config.json"),
            serde_json::json!({"guard": {"allowSecrets": entries}}).to_string(),
        )
        .unwrap();
    };
    // A repository's "*" (or any glob) is ignored, and says so.
    repo_config(serde_json::json!(["*", "**/*.bin"]));
    let (code, err) = precommit(&env);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("ignoring guard.allowSecrets \"*\""), "{err}");
    assert!(!err.contains("allowed by config"), "{err}");
    // A fingerprint names one known value: that one passes, still printed.
    repo_config(serde_json::json!([fp]));
    let (code, err) = precommit(&env);
    assert_eq!(code, 1, "{err}");
    assert_eq!(err.matches("allowed by config").count(), 1, "{err}");
    // The user's own config may allow a pattern.
    std::fs::write(
        env.data.join("config.json"),
        serde_json::json!({"guard": {"allowSecrets": ["*"]}}).to_string(),
    )
    .unwrap();
    let (code, err) = precommit(&env);
    assert_eq!(code, 0, "{err}");
}
