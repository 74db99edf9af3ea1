//! The guard, end to end: the command corpus, the hook's output for each agent (golden files),
//! quick-reject soundness (property test), and the real binary as `cm-pretool` and
//! `cm hook pretool` with documented payloads.

mod corpus {
    use crate::harness::*;
    use cm::guard::{self, Policy};

    #[test]
    fn every_dangerous_command_is_blocked() {
        let policy = Policy::default();
        let cmds = corpus("dangerous.txt");
        assert!(
            cmds.len() >= 300,
            "corpus has {} dangerous commands",
            cmds.len()
        );
        let missed: Vec<&String> = cmds
            .iter()
            .filter(|c| !guard::evaluate(c, &policy).is_deny())
            .collect();
        assert!(
            missed.is_empty(),
            "{} not blocked:\n{}",
            missed.len(),
            missed
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join("\n")
        );
    }

    #[test]
    fn at_most_one_percent_of_safe_commands_are_blocked() {
        let policy = Policy::default();
        let cmds = corpus("safe.txt");
        assert!(cmds.len() >= 300, "corpus has {} safe commands", cmds.len());
        let blocked: Vec<String> = cmds
            .iter()
            .filter_map(|c| {
                let d = guard::evaluate(c, &policy);
                let deny = d.is_deny();
                d.hit
                    .filter(|_| deny)
                    .map(|h| format!("{c}  => {} on `{}`", h.rule, h.segment))
            })
            .collect();
        let limit = cmds.len() / 100;
        assert!(
            blocked.len() <= limit,
            "{} of {} safe commands blocked (limit {limit}):\n{}",
            blocked.len(),
            cmds.len(),
            blocked.join("\n")
        );
    }
}

/// The quick reject (keyword scan + program/needle gates) must never skip a command that the
/// exhaustive matcher (every rule's regex on every segment) would block.
mod quick_reject {
    use crate::harness::*;
    use cm::guard::user_traumas::Trauma;
    use cm::guard::{self, Policy};
    use proptest::prelude::*;

    const TOKENS: &[&str] = &[
        "rm",
        "-rf",
        "-r",
        "-f",
        "/",
        "/*",
        "~",
        "~/",
        "$HOME",
        "..",
        ".",
        "*",
        "/etc",
        "/usr",
        "git",
        "reset",
        "--hard",
        "clean",
        "-fd",
        "push",
        "--force",
        "+main",
        "checkout",
        "--",
        "stash",
        "clear",
        "branch",
        "-D",
        "bash",
        "sh",
        "-c",
        "eval",
        "sudo",
        "env",
        "X=1",
        "nohup",
        "time",
        "xargs",
        "command",
        "python3",
        "node",
        "-e",
        "ruby",
        "perl",
        "shutil.rmtree('/')",
        "os.system('rm -rf ~')",
        "FileUtils.rm_rf('/')",
        "fs.rmSync('/', {recursive: true})",
        "psql",
        "mysql",
        "sqlite3",
        "a.db",
        "DROP",
        "TABLE",
        "drop",
        "table",
        "users",
        "TRUNCATE",
        "DELETE",
        "FROM",
        "WHERE",
        "redis-cli",
        "FLUSHALL",
        "mongosh",
        "--eval",
        "db.dropDatabase()",
        "mkfs.ext4",
        "/dev/sda",
        "dd",
        "of=/dev/sda",
        "if=/dev/zero",
        ">",
        ">>",
        "wipefs",
        "-a",
        "shred",
        "kubectl",
        "delete",
        "ns",
        "--all",
        "docker",
        "system",
        "prune",
        "volume",
        "terraform",
        "destroy",
        "apply",
        "-destroy",
        "aws",
        "s3",
        "--recursive",
        "gcloud",
        "projects",
        "gsutil",
        "az",
        "group",
        "gh",
        "repo",
        ":(){",
        ":|:&",
        "};:",
        "kill",
        "-9",
        "-1",
        "shutdown",
        "reboot",
        "init",
        "0",
        "crontab",
        "find",
        "-delete",
        "-exec",
        "mv",
        "chmod",
        "-R",
        "777",
        "chown",
        "rsync",
        "--delete",
        "echo",
        "printf",
        "cat",
        "grep",
        "'",
        "\"",
        "\\",
        "$(",
        ")",
        "`",
        "|",
        "&&",
        "||",
        ";",
        "\n",
        "<<EOF\n",
        "\nEOF\n",
        "<<<",
        "ls",
        "cargo",
        "npm",
        "test",
    ];

    static ALL: std::sync::LazyLock<Vec<String>> = std::sync::LazyLock::new(|| {
        corpus("dangerous.txt")
            .into_iter()
            .chain(corpus("safe.txt"))
            .collect()
    });

    fn mutate(cmd: &str, ops: &[(u8, usize)]) -> String {
        let mut s: Vec<char> = cmd.chars().collect();
        for &(op, pos) in ops {
            if s.is_empty() {
                break;
            }
            let p = pos % (s.len() + 1);
            match op % 7 {
                0 => s.splice(p..p, "''".chars()).for_each(drop),
                1 => s.splice(p..p, "\"\"".chars()).for_each(drop),
                2 => s.insert(p, '\\'),
                3 => s.splice(p..p, "\\\n".chars()).for_each(drop),
                4 => {
                    if p < s.len() {
                        s[p] = s[p].to_ascii_uppercase();
                    }
                }
                5 => s.splice(p..p, "  ".chars()).for_each(drop),
                _ => s.splice(p..p, "$''".chars()).for_each(drop),
            }
        }
        s.into_iter().collect()
    }

    fn check(cmd: &str, policy: &Policy) -> Result<(), TestCaseError> {
        let full = guard::evaluate_exhaustive(cmd, policy);
        if full.is_deny() {
            let fast = guard::evaluate(cmd, policy);
            prop_assert!(
                fast.is_deny(),
                "quick path allowed {cmd:?}, exhaustive matcher blocks it with {:?}",
                full.hit.map(|h| (h.rule, h.segment))
            );
        }
        Ok(())
    }

    /// 800 by default; `PROPTEST_CASES=20000` for a longer hunt.
    fn cases() -> u32 {
        std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(800)
    }

    fn trauma_policy() -> Policy {
        let mut p = Policy::default();
        let traumas = [
            r"deploy\.sh\s+prod",
            r"(?i)drop\s+table\s+audit",
            r"kubectl\s+(delete|drain)\s+node",
            r"make\s+release",
            r".*nuke.*",
            r"\bterraform\s+apply\b",
        ]
        .iter()
        .enumerate()
        .map(|(i, pat)| Trauma {
            id: format!("t-{i:04x}"),
            pattern: pat.to_string(),
            severity: Default::default(),
            scope: Default::default(),
            message: None,
            files: None,
            source: "user".into(),
            created_at: "2026-01-01T00:00:00Z".into(),
            healed: None,
        })
        .collect();
        p.set_traumas(traumas, "2026-06-01T00:00:00Z");
        p
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn random_token_soup(tokens in proptest::collection::vec(proptest::sample::select(TOKENS), 1..14),
                             seps in proptest::collection::vec(proptest::sample::select(&[" ", " ", " ", "", "\t"][..]), 14)) {
            let mut cmd = String::new();
            for (i, t) in tokens.iter().enumerate() {
                cmd.push_str(t);
                cmd.push_str(seps[i % seps.len()]);
            }
            check(&cmd, &Policy::default())?;
            check(&cmd, &trauma_policy())?;
        }

        #[test]
        fn mutated_corpus_commands(pick in 0usize..10_000, ops in proptest::collection::vec((any::<u8>(), any::<usize>()), 0..4)) {
            let all = &*ALL;
            let cmd = mutate(&all[pick % all.len()], &ops);
            check(&cmd, &Policy::default())?;
            check(&cmd, &trauma_policy())?;
        }
    }

    #[test]
    fn every_corpus_command_agrees_with_the_exhaustive_matcher() {
        let policy = trauma_policy();
        for cmd in corpus("dangerous.txt")
            .iter()
            .chain(corpus("safe.txt").iter())
        {
            let full = guard::evaluate_exhaustive(cmd, &policy).is_deny();
            let fast = guard::evaluate(cmd, &policy).is_deny();
            assert_eq!(full, fast, "{cmd:?}");
        }
    }
}

/// The real binary, as `cm-pretool` and as `cm hook pretool`, with documented payloads.
mod hook {
    use crate::harness::*;
    use std::path::Path;

    #[test]
    fn deny_output_per_agent_matches_golden_files() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        let cases: [(&str, String); 4] = [
            ("claude-deny.json", claude_bash("git reset --hard", &cwd)),
            ("codex-deny.json", codex_bash("git reset --hard", &cwd)),
            (
                "gemini-deny.json",
                gemini_shell("python3 -c \"import shutil; shutil.rmtree('/')\"", &cwd),
            ),
            ("cursor-deny.json", cursor_shell("sudo rm -rf ~", &cwd)),
        ];
        for (name, payload) in &cases {
            let out = env.pretool(payload);
            assert_eq!(out.code, 0, "{name}: {}", out.stderr);
            golden(&fixture_path(&format!("guard/golden/{name}")), &out.stdout);
            // The same through `cm hook pretool`.
            let via = env.hook("pretool", payload.as_str()).run();
            assert_eq!(
                (via.code, via.stdout.as_str()),
                (0, out.stdout.as_str()),
                "{name}"
            );
        }
    }

    #[test]
    fn deny_objects_have_exactly_the_documented_shape() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        let keys = |s: &str| -> Vec<String> {
            let v: serde_json::Value = serde_json::from_str(s).unwrap();
            v.as_object().unwrap().keys().cloned().collect()
        };
        for payload in [
            claude_bash("git push --force", &cwd),
            codex_bash("git push --force", &cwd),
        ] {
            let out = env.pretool(&payload);
            let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
            assert_eq!(keys(&out.stdout), vec!["hookSpecificOutput"]);
            let inner = v["hookSpecificOutput"].as_object().unwrap();
            let inner_keys: Vec<&str> = inner.keys().map(String::as_str).collect();
            assert_eq!(
                inner_keys,
                vec![
                    "hookEventName",
                    "permissionDecision",
                    "permissionDecisionReason"
                ]
            );
            assert_eq!(inner["hookEventName"], "PreToolUse");
            assert_eq!(inner["permissionDecision"], "deny");
            let reason = inner["permissionDecisionReason"].as_str().unwrap();
            for part in [
                "git:push-force",
                "Why it is blocked",
                "Instead",
                "--force-with-lease",
                "cm guard allow",
            ] {
                assert!(reason.contains(part), "reason lacks {part:?}: {reason}");
            }
        }
        let out = env.pretool(&gemini_shell("terraform destroy -auto-approve", &cwd));
        assert_eq!(keys(&out.stdout), vec!["decision", "reason"]);
        let out = env.pretool(&cursor_shell("kubectl delete namespace prod", &cwd));
        assert_eq!(
            keys(&out.stdout),
            vec!["permission", "user_message", "agent_message"]
        );
    }

    #[test]
    fn allow_prints_nothing() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        for payload in [
            claude_bash("npm test", &cwd),
            claude_bash("git status", &cwd),
            claude_bash("rm -rf target node_modules dist/", &cwd),
            claude_bash("git commit -m \"never run rm -rf / or git reset --hard\"", &cwd),
            codex_bash("git push origin main", &cwd),
            gemini_shell("kubectl get pods", &cwd),
            cursor_shell("terraform plan", &cwd),
            claude_write("src/main.rs", &cwd),
            r#"{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse","tool_name":"Read","tool_input":{"file_path":"/etc/passwd"}}"#.to_string(),
            r#"{"hook_event_name":"beforeReadFile","conversation_id":"c","workspace_roots":["/"],"file_path":"/x"}"#.to_string(),
        ] {
            let out = env.pretool(&payload);
            assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{payload}\n{}", out.stderr);
        }
    }

    #[test]
    fn protected_paths_block_writes_only_there() {
        let env = Env::for_guard();
        env.write(
            "data/config.json",
            r#"{"guard": {"protectedPaths": [".env", "secrets/**"]}}"#,
        );
        let cwd = env.cwd.clone();
        let out = env.pretool(&claude_write(".env", &cwd));
        assert!(
            out.stdout.contains("\"permissionDecision\":\"deny\""),
            "{}",
            out.stdout
        );
        assert!(out.stdout.contains("guard.protectedPaths"));
        let out = env.pretool(&claude_write(
            &cwd.join("secrets/prod.key").display().to_string(),
            &cwd,
        ));
        assert!(out.stdout.contains("deny"));
        let gemini = format!(
            r#"{{"hook_event_name":"BeforeTool","cwd":{},"tool_name":"write_file","tool_input":{{"file_path":".env","content":"x"}}}}"#,
            json_str(&cwd.display().to_string())
        );
        let out = env.pretool(&gemini);
        assert!(
            out.stdout.starts_with(r#"{"decision":"deny","reason":"#),
            "{}",
            out.stdout
        );
        assert_eq!(env.pretool(&claude_write("README.md", &cwd)).stdout, "");
    }

    #[test]
    fn allow_list_entries_let_commands_through() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        assert!(
            env.pretool(&claude_bash("git reset --hard", &cwd))
                .stdout
                .contains("deny")
        );
        // An exact command, added through the CLI (global config).
        let out = env
            .cm(&["guard", "allow", "git reset --hard", "--json"])
            .run();
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        assert_eq!(
            env.pretool(&claude_bash("git reset --hard", &cwd)).stdout,
            ""
        );
        // Only that command: others of the same rule stay blocked, and chaining does not
        // smuggle another command through.
        assert!(
            env.pretool(&claude_bash("git reset --hard HEAD~3", &cwd))
                .stdout
                .contains("deny")
        );
        assert!(
            env.pretool(&claude_bash("git reset --hard && rm -rf ~", &cwd))
                .stdout
                .contains("deny")
        );
        // A whole rule, project-scoped: kept in the user's own config with the repository as its
        // scope (a repository's committed config may not relax the guard).
        let out = env
            .cm(&["guard", "allow", "git:branch-force-delete", "--project"])
            .run();
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        assert!(!env.cwd.join(".cass/config.json").exists());
        let global = std::fs::read_to_string(env.root.join("data/config.json")).unwrap();
        assert!(global.contains("\"scope\": \"project\""), "{global}");
        assert_eq!(
            env.pretool(&claude_bash("git branch -D old", &cwd)).stdout,
            ""
        );
        // ...which does not apply in another directory.
        let elsewhere = env.root.join("home");
        assert!(
            env.pretool(&claude_bash("git branch -D old", &elsewhere))
                .stdout
                .contains("deny")
        );
        // A pattern.
        let out = env
            .cm(&["guard", "allow", "--pattern", r"^rm -rf \./build-cache/\*$"])
            .run();
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        assert!(
            env.pretool(&claude_bash("rm -rf ./*", &cwd))
                .stdout
                .contains("deny")
        );
    }

    #[test]
    fn a_repository_config_cannot_relax_the_guard() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        std::fs::create_dir_all(cwd.join(".cass")).unwrap();
        std::fs::write(
            cwd.join(".cass/config.json"),
            r#"{"guard": {"disabledPacks": ["git", "filesystem"],
                          "allow": [{"pattern": ".*"}, {"rule": "git:reset-hard"}, {"command": "git clean -fdx"}]}}"#,
        )
        .unwrap();
        // Disabled packs and pattern/rule allow entries from the repository are ignored...
        assert!(
            env.pretool(&claude_bash("git reset --hard", &cwd))
                .stdout
                .contains("deny")
        );
        assert!(
            env.pretool(&claude_bash("rm -rf ~", &cwd))
                .stdout
                .contains("deny")
        );
        // ...so is an exact command it allows, and `guard check` says what was ignored.
        assert!(
            env.pretool(&claude_bash("git clean -fdx", &cwd))
                .stdout
                .contains("deny")
        );
        let out = env
            .cm(&["guard", "check", "git reset --hard", "--json"])
            .run();
        assert!(
            out.stdout
                .contains("only your own config can disable a pack"),
            "{}{}",
            out.stdout,
            out.stderr
        );
    }

    #[test]
    fn disabled_packs_are_not_enforced_and_enabled_packs_win() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        env.write(
            "data/config.json",
            r#"{"guard": {"disabledPacks": ["containers", "cloud"]}}"#,
        );
        assert_eq!(
            env.pretool(&claude_bash("docker system prune -af", &cwd))
                .stdout,
            ""
        );
        assert!(
            env.pretool(&claude_bash("git clean -fdx", &cwd))
                .stdout
                .contains("deny")
        );
        env.write(
            "project/.cass/config.json",
            r#"{"guard": {"enabledPacks": ["containers"]}}"#,
        );
        assert!(
            env.pretool(&claude_bash("docker system prune -af", &cwd))
                .stdout
                .contains("deny")
        );
        assert_eq!(
            env.pretool(&claude_bash("terraform destroy", &cwd)).stdout,
            ""
        );
    }

    fn trauma_line(id: &str, pattern: &str, severity: &str, healed: bool) -> String {
        let healed = if healed {
            r#","healed":{"at":"2026-05-01T00:00:00Z"}"#
        } else {
            ""
        };
        format!(
            r#"{{"id":"{id}","pattern":{},"severity":"{severity}","scope":"global","message":"this wiped the staging data in May","source":"user","createdAt":"2026-04-01T00:00:00Z"{healed}}}"#,
            json_str(pattern)
        )
    }

    #[test]
    fn user_traumas_are_checked_even_without_keywords_and_healed_ones_are_skipped() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        let lines = [
            trauma_line("t-0001", r"deploy\.sh\s+--prod", "critical", false),
            trauma_line("t-0002", r"^make\s+(nuke|wipe)", "fatal", false),
            trauma_line("t-0003", r"^npm\s+publish", "critical", true),
            // No literal at all: must be checked on every command.
            trauma_line("t-0004", r"^[a-z]+\s+--yes-really$", "critical", false),
        ];
        env.write("data/traumas.jsonl", &(lines.join("\n") + "\n"));
        let out = env.pretool(&claude_bash("./deploy.sh --prod", &cwd));
        assert!(
            out.stdout.contains("t-0001") && out.stdout.contains("wiped the staging data"),
            "{}",
            out.stdout
        );
        assert!(
            env.pretool(&claude_bash("cd x && make nuke", &cwd))
                .stdout
                .contains("t-0002")
        );
        assert_eq!(
            env.pretool(&claude_bash("npm publish", &cwd)).stdout,
            "",
            "healed trauma"
        );
        assert!(
            env.pretool(&claude_bash("frobnicate --yes-really", &cwd))
                .stdout
                .contains("t-0004")
        );
        assert_eq!(env.pretool(&claude_bash("make build", &cwd)).stdout, "");
        // Fatal ignores the allow-list; critical does not.
        env.cm(&["guard", "allow", "make nuke"]).run();
        env.cm(&["guard", "allow", "./deploy.sh --prod"]).run();
        assert!(
            env.pretool(&claude_bash("make nuke", &cwd))
                .stdout
                .contains("t-0002")
        );
        assert_eq!(
            env.pretool(&claude_bash("./deploy.sh --prod", &cwd)).stdout,
            ""
        );
        // An invalid pattern is skipped by the hook and reported by `cm guard check`.
        let mut text = std::fs::read_to_string(env.data.join("traumas.jsonl")).unwrap();
        text.push_str(&trauma_line("t-0006", "deploy(", "critical", false));
        text.push('\n');
        env.write("data/traumas.jsonl", &text);
        let out = env.pretool(&claude_bash("./deploy.sh --prod", &cwd));
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
        let out = env.cm(&["guard", "check", "ls", "--json"]).run();
        assert!(
            out.stdout.contains("t-0006 has an invalid pattern"),
            "{}",
            out.stdout
        );
        // Project traumas.
        env.write(
            "project/.cass/traumas.jsonl",
            &trauma_line("t-0005", r"seed-db", "critical", false),
        );
        assert!(
            env.pretool(&claude_bash("bin/seed-db --reset", &cwd))
                .stdout
                .contains("t-0005")
        );
    }

    #[test]
    fn malformed_input_allows_with_a_note_or_blocks_when_fail_closed() {
        let env = Env::for_guard();
        for bad in [&b"not json"[..], b"", b"{\"tool_name\":", b"[1,2]"] {
            let out = env.pretool_raw(bad);
            assert_eq!(
                (out.code, out.stdout.as_str()),
                (0, ""),
                "{:?}",
                String::from_utf8_lossy(bad)
            );
            assert!(out.stderr.contains("cm-pretool"), "{}", out.stderr);
        }
        // Over 1 MiB is read and decided like any other payload (the guard's limit is 64 MiB).
        let mut big = claude_bash("echo hi", &env.cwd).into_bytes();
        big.extend(std::iter::repeat_n(b' ', 1 << 20));
        let out = env.pretool_raw(&big);
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
        env.write("data/config.json", r#"{"guard": {"failClosed": true}}"#);
        let out = env.pretool_raw(b"not json");
        assert_eq!(out.code, 2);
        assert_eq!(out.stdout, "");
        assert!(out.stderr.contains("failClosed"), "{}", out.stderr);
    }

    #[test]
    fn guard_check_reports_what_the_hook_decides() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        for cmd in [
            "git reset --hard",
            "npm test",
            "bash -c 'psql -c \"DROP TABLE users\"'",
            "echo 'rm -rf /'",
        ] {
            let out = env.cm(&["guard", "check", cmd, "--json"]).run();
            assert_eq!(out.code, 0, "{}", out.stderr);
            let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
            let data = &v["data"];
            let hook = env.pretool(&claude_bash(cmd, &cwd));
            let hook_denies = hook.stdout.contains("\"deny\"");
            assert_eq!(
                data["decision"] == "deny",
                hook_denies,
                "{cmd}: {}",
                out.stdout
            );
            if hook_denies {
                let reason = data["reason"].as_str().unwrap();
                assert!(
                    hook.stdout
                        .contains(&json_str(reason)[1..json_str(reason).len() - 1]),
                    "{cmd}"
                );
                assert!(data["hit"]["rule"].is_string() && data["hit"]["segment"].is_string());
            }
        }
        let out = env
            .cm(&[
                "guard",
                "check",
                "bash -c 'psql -c \"DROP TABLE users\"'",
                "--json",
            ])
            .run();
        let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
        assert_eq!(v["data"]["hit"]["rule"], "database:sql-drop");
        assert_eq!(v["data"]["hit"]["segment"], "DROP TABLE users");
        assert_eq!(v["data"]["hit"]["lang"], "sql");
        let human = env.cm(&["guard", "check", "git reset --hard"]).run();
        assert!(
            human.stdout.contains("DENY") && human.stdout.contains("git:reset-hard"),
            "{}",
            human.stdout
        );
        let _ = Path::new("");
    }
}
