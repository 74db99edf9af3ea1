//! The guard against a hostile repository and hostile payloads: a cloned repository's `.cass/`
//! files can only tighten the guard and never hang it; protected paths hold against path
//! tricks; a broken global config keeps its last good guard settings; the hook decides on every
//! command a payload could make the agent run.

use crate::harness::*;

fn denies(out: &Out) -> bool {
    out.stdout.contains("\"deny\"")
}

mod repository_config {
    use super::*;

    #[test]
    fn a_repository_cannot_allow_any_command() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        env.write(
            "project/.cass/config.json",
            r#"{"guard":{"allow":[{"command":"rm -rf ~"},{"command":"git push --force origin main"},{"command":"terraform destroy -auto-approve"}]}}"#,
        );
        for cmd in [
            "rm -rf ~",
            "git push --force origin main",
            "terraform destroy -auto-approve",
        ] {
            let out = env.pretool(&claude_bash(cmd, &cwd));
            assert!(denies(&out), "{cmd}: {}", out.stdout);
            assert!(
                out.stderr.contains("ignoring allow-list")
                    && out.stderr.contains("from the repository config"),
                "{cmd}: the hook says what it ignored: {}",
                out.stderr
            );
        }
        // The user's own project-scoped entry still works there.
        let out = env
            .cm(&[
                "guard",
                "allow",
                "git push --force origin main",
                "--project",
            ])
            .run();
        assert_eq!(out.code, 0, "{}", out.stderr);
        let out = env.pretool(&claude_bash("git push --force origin main", &cwd));
        assert_eq!(out.stdout, "", "{}", out.stderr);
    }
}

fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success());
}

fn trauma_line(id: &str, pattern: &str) -> String {
    format!(
        r#"{{"id":"{id}","pattern":{},"severity":"critical","scope":"project","source":"user","createdAt":"2026-04-01T00:00:00Z"}}"#,
        json_str(pattern)
    )
}

mod repository_files {
    use super::*;

    #[test]
    fn links_to_devices_and_fifos_never_hang_the_hook() {
        for name in ["traumas.jsonl", "config.json"] {
            for target in ["/dev/zero", "/dev/urandom", "fifo"] {
                let env = Env::for_guard();
                let cwd = env.cwd.clone();
                let cass = cwd.join(".cass");
                std::fs::create_dir_all(&cass).unwrap();
                let file = cass.join(name);
                if target == "fifo" {
                    mkfifo(&file);
                } else {
                    std::os::unix::fs::symlink(target, &file).unwrap();
                }
                // Both the common allow path and a deny (which reads the config files).
                let out = env.pretool_within(&claude_bash("npm test", &cwd), 10);
                assert_eq!(
                    (out.code, out.stdout.as_str()),
                    (0, ""),
                    "{name} -> {target}"
                );
                let out = env.pretool_within(&claude_bash("git reset --hard", &cwd), 10);
                assert!(denies(&out), "{name} -> {target}: {}", out.stdout);
                assert!(
                    out.stderr.contains("not a regular file"),
                    "{name} -> {target}: the hook says why it skipped the file: {}",
                    out.stderr
                );
                // The CLI never hangs on them either.
                let out = env.cm(&["guard", "check", "ls", "--json"]).run();
                assert!(
                    out.code == 0 || out.code == 2,
                    "{name} -> {target}: {}",
                    out.stderr
                );
            }
        }
    }

    /// Thousands of junk lines once printed a warning each on every tool call (800 KB of
    /// stderr for `ls`): the hook prints a few and counts the rest; `cm guard check` lists all.
    #[test]
    fn junk_lines_in_a_repository_traumas_file_are_warned_about_briefly() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        env.write(
            "project/.cass/traumas.jsonl",
            &"not a trauma line\n".repeat(2_000),
        );
        let out = env.pretool_within(&claude_bash("rm -rf /", &cwd), 10);
        assert!(out.stdout.contains("deny"), "{}", out.stdout);
        let warnings = out.stderr.lines().filter(|l| l.contains("warning")).count();
        assert!(warnings <= 6, "{warnings} lines: {}", out.stderr);
        assert!(out.stderr.contains("more like these"), "{}", out.stderr);
        let all = env.cm(&["guard", "check", "ls", "--json"]).run();
        let v: serde_json::Value = serde_json::from_str(&all.stdout).unwrap();
        assert!(v["data"]["warnings"].as_array().unwrap().len() > 6, "{v}");
    }

    #[test]
    fn a_huge_traumas_file_is_read_up_to_a_cap_and_indexed_once() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        std::fs::create_dir_all(&env.data).unwrap();
        let mut text = String::new();
        text.push_str(&trauma_line("t-00000001", r"\bseed-db\s+--reset\b"));
        text.push('\n');
        let filler = trauma_line("t-0000ffff", r"\bfiller-[0-9]+\.sh\b");
        while text.len() < 49 << 20 {
            text.push_str(&filler);
            text.push('\n');
        }
        text.push_str(&trauma_line("t-00000002", r"\bbeyond-the-cap\b"));
        text.push('\n');
        env.write("project/.cass/traumas.jsonl", &text);
        for _ in 0..2 {
            let out = env.pretool_within(&claude_bash("bin/seed-db --reset", &cwd), 20);
            assert!(out.stdout.contains("t-00000001"), "{}", out.stdout);
            assert!(
                out.stderr.contains("larger than 256 KiB"),
                "the hook says what it cut: {}",
                out.stderr
            );
            let out = env.pretool_within(&claude_bash("beyond-the-cap", &cwd), 20);
            assert_eq!(out.stdout, "", "a trauma past the cap is not read");
        }
        let cached: Vec<_> = std::fs::read_dir(env.data.join("cache"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            cached
                .iter()
                .any(|n| n.starts_with("traumas-") && n.ends_with(".idx")),
            "{cached:?}"
        );
    }

    #[test]
    fn a_repository_gets_only_a_few_traumas_without_keywords() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        let lines: Vec<String> = (0..100)
            .map(|i| trauma_line(&format!("t-{i:08x}"), &format!("^[a-z]{{{}}}$", i + 3)))
            .collect();
        env.write("project/.cass/traumas.jsonl", &(lines.join("\n") + "\n"));
        // The first 16 apply (a 3-letter command is t-00000000) to what a pack's keyword
        // touches ...
        let out = env.pretool_within(&claude_bash("git", &cwd), 10);
        assert!(out.stdout.contains("t-00000000"), "{}", out.stdout);
        // ... and cost nothing on the rest: a repository's keyword-less pattern is no regex on
        // every call.
        let out = env.pretool_within(&claude_bash("abc", &cwd), 10);
        assert_eq!(out.stdout, "", "{}", out.stderr);
        // ... the 17th and later are reported and not used.
        let out = env.pretool_within(&claude_bash(&"a".repeat(3 + 50), &cwd), 10);
        assert_eq!(out.stdout, "");
        assert!(out.stderr.contains("at most 16 patterns"), "{}", out.stderr);
    }

    /// Patterns that cannot compile within the size limit (`rm\w{20000}`) each cost 3-7 ms of
    /// compiling before the compiler gave up, on every call: 300 of them spent the whole time
    /// budget. They are now left out of the index, said once, and never compiled; the packs
    /// and the repository's other traumas still apply.
    #[test]
    fn patterns_too_large_to_compile_are_left_out_and_named() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        let mut lines: Vec<String> = (0..300)
            .map(|i| trauma_line(&format!("t-{i:08x}"), &format!(r"rm\w{{{}}}", 20_000 + i)))
            .collect();
        lines.push(trauma_line("t-0000beef", r"\bseed-db\s+--reset\b"));
        env.write("project/.cass/traumas.jsonl", &(lines.join("\n") + "\n"));
        let out = env.pretool_within(&claude_bash("rm -rf ~", &cwd), 20);
        assert!(out.stdout.contains("filesystem:"), "{}", out.stdout);
        assert!(
            out.stderr
                .contains("t-00000000 ignored: its pattern compiles to more than 256 KiB"),
            "{}",
            out.stderr
        );
        let out = env.pretool_within(&claude_bash("bin/seed-db --reset", &cwd), 20);
        assert!(out.stdout.contains("t-0000beef"), "{}", out.stdout);
        let out = env.pretool_within(&claude_bash("npm run format", &cwd), 20);
        assert_eq!(out.stdout, "", "{}", out.stderr);
        let all = env.cm(&["guard", "check", "ls", "--json"]).run();
        let v: serde_json::Value = serde_json::from_str(&all.stdout).unwrap();
        let warnings = v["data"]["warnings"].to_string();
        assert!(warnings.contains("t-0000012b ignored"), "{v}");
    }

    /// A pattern just under the size floor (`rm\w{10}`) still fails to compile, after about
    /// 3 ms of compiling: 300 of them spent the whole time budget on every call that named
    /// `rm`. The first call that compiles one remembers the verdict in the index, so later
    /// calls never compile it again, and say so.
    #[test]
    fn a_pattern_that_failed_to_compile_is_not_compiled_again() {
        // Time enough for the first call to compile them all, however loaded the machine.
        let env = Env::for_guard().with_env("CM_GUARD_BUDGET_MS", "600000");
        std::fs::create_dir_all(&env.data).unwrap();
        let cwd = env.cwd.clone();
        let mut lines: Vec<String> = (0..20)
            .map(|i| trauma_line(&format!("t-{i:08x}"), &format!(r"rm\w{{{}}}", 10 + i % 3)))
            .collect();
        lines.push(trauma_line("t-0000beef", r"\bseed-db\s+--reset\b"));
        lines.push(trauma_line("t-0000bad0", r"rm (unclosed"));
        env.write("project/.cass/traumas.jsonl", &(lines.join("\n") + "\n"));
        let first = env.pretool_within(&claude_bash("rm -rf build", &cwd), 20);
        assert!(
            !first.stderr.contains("does not compile"),
            "{}",
            first.stderr
        );
        assert_eq!(first.stdout, "");
        for cmd in ["rm -rf ~", "rm -rf build", "bin/seed-db --reset"] {
            let out = env.pretool_within(&claude_bash(cmd, &cwd), 20);
            assert!(
                out.stderr
                    .contains("t-00000000 ignored: its pattern does not compile")
                    && out.stderr.contains("more like these"),
                "{cmd}: {}",
                out.stderr
            );
            let denied = out.stdout.contains("\"deny\"");
            assert_eq!(denied, cmd != "rm -rf build", "{cmd}: {}", out.stdout);
        }
        let out = env.pretool(&claude_bash("bin/seed-db --reset", &cwd));
        assert!(out.stdout.contains("t-0000beef"), "{}", out.stdout);
        // A change to the file is a new index: compiled (and remembered) again.
        lines.pop();
        env.write("project/.cass/traumas.jsonl", &(lines.join("\n") + "\n"));
        let out = env.pretool(&claude_bash("ls", &cwd));
        assert!(!out.stderr.contains("does not compile"), "{}", out.stderr);
    }
}

mod protected_paths {
    use super::*;

    #[test]
    fn path_tricks_and_symlinks_do_not_get_past_protected_paths() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        env.write(
            "data/config.json",
            r#"{"guard": {"protectedPaths": ["~/.ssh/*", ".env"]}}"#,
        );
        std::fs::create_dir_all(env.home.join(".ssh")).unwrap();
        env.write("project/.env", "SECRET=1\n");
        std::os::unix::fs::symlink(".env", cwd.join("notes.txt")).unwrap();
        std::os::unix::fs::symlink(env.home.join(".ssh"), cwd.join("keys")).unwrap();
        let home = env.home.display().to_string();
        for path in [
            format!("{home}//.ssh/authorized_keys"),
            format!("{home}/.ssh/./authorized_keys"),
            format!("{home}/x/../.ssh/authorized_keys"),
            "../home/.ssh/authorized_keys".to_string(),
            "notes.txt".to_string(),
            "keys/authorized_keys".to_string(),
        ] {
            let out = env.pretool(&claude_write(&path, &cwd));
            assert!(
                denies(&out) && out.stdout.contains("guard.protectedPaths"),
                "{path}: {}{}",
                out.stdout,
                out.stderr
            );
        }
        assert_eq!(env.pretool(&claude_write("src/lib.rs", &cwd)).stdout, "");
    }

    fn repository_protects(env: &Env, globs: &[String]) {
        let config = serde_json::json!({"guard": {"protectedPaths": globs}});
        env.write("project/.cass/config.json", &config.to_string());
    }

    #[test]
    fn a_repository_with_thousands_of_globs_cannot_time_the_guard_out() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        // 25,000 plain paths: looked up, never compiled; each still protects its file.
        let literal: Vec<String> = (0..25_000).map(|i| format!("dir{i}/f{i}.txt")).collect();
        repository_protects(&env, &literal);
        assert_eq!(
            env.pretool_within(&claude_write("src/main.rs", &cwd), 10)
                .stdout,
            ""
        );
        let out = env.pretool_within(&claude_write("dir24999/f24999.txt", &cwd), 10);
        assert!(denies(&out) && out.stdout.contains("`dir24999/f24999.txt`"));
        // 25,000 wildcard globs took seconds to compile, past the agent's hook timeout (the
        // write then went through): past the bound the guard refuses, naming the file.
        let wild: Vec<String> = (0..25_000).map(|i| format!("dir{i}/*.txt")).collect();
        repository_protects(&env, &wild);
        for payload in [
            claude_write("src/main.rs", &cwd),
            claude_bash("echo x > src/main.rs", &cwd),
        ] {
            let out = env.pretool_within(&payload, 10);
            assert!(
                denies(&out)
                    && out.stdout.contains("25000 globs with wildcards")
                    && out.stdout.contains(".cass/config.json"),
                "{}{}",
                out.stdout,
                out.stderr
            );
        }
        // Within the bound, a wildcard glob protects what it names and nothing else.
        let few: Vec<String> = (0..100).map(|i| format!("dir{i}/*.txt")).collect();
        repository_protects(&env, &few);
        let out = env.pretool_within(&claude_write("a/dir99/x.txt", &cwd), 10);
        assert!(denies(&out) && out.stdout.contains("`dir99/*.txt`"));
        assert_eq!(
            env.pretool_within(&claude_write("src/main.rs", &cwd), 10)
                .stdout,
            ""
        );
    }

    #[test]
    fn a_patch_naming_tens_of_thousands_of_files_is_decided_at_once() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        env.write(
            "data/config.json",
            r#"{"guard": {"protectedPaths": [".env"]}}"#,
        );
        // Each file was compared with every one before it (the square of their number: 4.7 s
        // for 20,000 files in a release build), then each was resolved on disk (0.9 s); now a
        // call naming more than 1,024 files is refused for its size, and one under the bound
        // is checked file by file. bench/hostile_pretool.py times both.
        let patch_of = |files: usize| {
            let mut patch = String::from("*** Begin Patch\n");
            for i in 0..files {
                patch.push_str(&format!("*** Add File: src/f{i}.txt\n+x\n"));
            }
            patch.push_str("*** Update File: .env\n@@\n-A\n+B\n*** End Patch\n");
            serde_json::json!({
                "session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse",
                "turn_id": "t", "model": "gpt-5-codex", "tool_name": "apply_patch",
                "tool_input": {"input": patch}, "tool_use_id": "c",
            })
        };
        let out = env.pretool(&patch_of(20_000).to_string());
        assert!(
            denies(&out) && out.stdout.contains("names 20001 files"),
            "{}{}",
            out.stdout,
            out.stderr
        );
        let out = env.pretool(&patch_of(1_000).to_string());
        assert!(
            denies(&out) && out.stdout.contains("`.env`"),
            "{}{}",
            out.stdout,
            out.stderr
        );
        let mut ok = patch_of(1_000);
        let text = ok["tool_input"]["input"]
            .as_str()
            .unwrap()
            .replace(".env", "notes.txt");
        ok["tool_input"]["input"] = serde_json::Value::String(text);
        let out = env.pretool(&ok.to_string());
        assert!(!denies(&out), "{}{}", out.stdout, out.stderr);
    }

    #[test]
    fn a_path_longer_than_the_kernel_resolves_is_refused_at_once() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        // A 400 KB working directory: walking it took seconds per call (past the agent's hook
        // timeout, so `echo x > foo` ran unchecked).
        let deep = std::path::PathBuf::from(format!("/{}", "a/".repeat(200_000)));
        for payload in [
            claude_bash("rm -rf ~", &deep),
            claude_bash("echo x > foo", &deep),
            claude_bash("ls", &deep),
            claude_write("foo", &deep),
        ] {
            let out = env.pretool_within(&payload, 10);
            assert!(
                denies(&out)
                    && out
                        .stdout
                        .contains("working directory (cwd) is 400001 bytes"),
                "{}{}",
                out.stdout,
                out.stderr
            );
        }
        let long = format!("{}x", "a/".repeat(200_000));
        for payload in [
            claude_write(&long, &cwd),
            claude_bash(&format!("echo x > {long}"), &cwd),
        ] {
            let out = env.pretool_within(&payload, 10);
            assert!(
                denies(&out) && out.stdout.contains("the path it writes is 400001 bytes"),
                "{}{}",
                out.stdout,
                out.stderr
            );
        }
        // Under the bound, as before.
        assert_eq!(env.pretool(&claude_bash("ls", &cwd)).stdout, "");
    }
}

mod global_config {
    use super::*;

    #[test]
    fn a_broken_global_config_keeps_the_last_guard_settings_that_parsed() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        env.write(
            "data/config.json",
            r#"{"guard": {"protectedPaths": [".env"], "failClosed": true}}"#,
        );
        // Read once while it parses (any call that reads the config keeps a copy).
        assert!(denies(&env.pretool(&claude_write(".env", &cwd))));
        // A typo: a trailing comma, then a wrong type.
        for broken in [
            r#"{"guard": {"protectedPaths": [".env"], "failClosed": true,}}"#,
            r#"{"guard": {"protectedPaths": ".env"}}"#,
        ] {
            env.write("data/config.json", broken);
            let out = env.pretool(&claude_write(".env", &cwd));
            assert!(
                denies(&out),
                "{broken}: protectedPaths kept: {}",
                out.stdout
            );
            assert!(
                out.stderr
                    .contains("config.json is not valid guard configuration")
                    && out.stderr.contains("as they last parsed"),
                "{}",
                out.stderr
            );
            // failClosed kept too: unreadable input is refused.
            let out = env.pretool_raw(b"not json");
            assert_eq!(out.code, 2, "{broken}: {}", out.stderr);
            // `cm doctor` names the file.
            let out = env.cm(&["doctor", "--json"]).run();
            let v: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
            let checks = v["data"]["checks"].as_array().unwrap();
            let guard = checks
                .iter()
                .find(|c| c["name"] == "guard config")
                .expect("a guard config check");
            assert_eq!(guard["status"], "fail", "{guard}");
            assert!(
                guard["message"]
                    .as_str()
                    .unwrap()
                    .contains(&env.data.join("config.json").display().to_string()),
                "{guard}"
            );
        }
        // Fixed: the new settings apply (and are kept in turn).
        env.write("data/config.json", r#"{"guard": {"protectedPaths": []}}"#);
        let out = env.pretool(&claude_write(".env", &cwd));
        assert_eq!(out.stdout, "", "{}", out.stderr);
    }
}

mod payloads {
    use super::*;

    fn claude(tool_input: &str, cwd: &str) -> String {
        format!(
            r#"{{"session_id":"abc123","transcript_path":"/t.jsonl","cwd":{cwd},"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{tool_input},"tool_use_id":"toolu_01ABC"}}"#
        )
    }

    #[test]
    fn every_value_of_a_duplicated_key_is_decided_on() {
        let env = Env::for_guard();
        let cwd = json_str(&env.cwd.display().to_string());
        for payload in [
            claude(r#"{"command":"ls","command":"rm -rf ~"}"#, &cwd),
            claude(r#"{"command":"rm -rf ~","command":"ls"}"#, &cwd),
            claude(
                r#"{"command":"ls"},"tool_input":{"command":"git reset --hard"}"#,
                &cwd,
            ),
            format!(
                r#"{{"hook_event_name":"PreToolUse","tool_name":"Read","tool_name":"Bash","cwd":{cwd},"tool_input":{{"command":"rm -rf ~"}}}}"#
            ),
            format!(
                r#"{{"hook_event_name":"beforeShellExecution","conversation_id":"c","command":"ls","command":"rm -rf ~","cwd":{cwd}}}"#
            ),
        ] {
            let out = env.pretool(&payload);
            assert!(denies(&out), "{payload}\n{}{}", out.stdout, out.stderr);
        }
    }

    #[test]
    fn a_command_past_one_mebibyte_is_read_whole() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        let mut cmd = String::from("cat > notes.txt <<'EOF'\n");
        while cmd.len() < 1 << 20 {
            cmd.push_str("lorem ipsum dolor sit amet, consectetur adipiscing elit\n");
        }
        cmd.push_str("EOF\nrm -rf ~\n");
        let out = env.pretool(&claude_bash(&cmd, &cwd));
        assert!(denies(&out), "{}", out.stderr);
        let cmd = cmd.replace("rm -rf ~", "ls");
        let out = env.pretool(&claude_bash(&cmd, &cwd));
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
    }

    #[test]
    fn a_payload_past_the_cap_is_denied_with_a_reason() {
        let env = Env::for_guard();
        let cwd = env.cwd.clone();
        let body = "x".repeat((64 << 20) + 10);
        let out = env.pretool(&claude_bash(&format!("echo {body}"), &cwd));
        assert!(denies(&out), "{}", out.stderr);
        assert!(
            out.stdout.contains("larger than 64 MiB"),
            "{}",
            &out.stdout[..200.min(out.stdout.len())]
        );
    }

    #[test]
    fn odd_values_do_not_hide_the_command() {
        let env = Env::for_guard();
        let cwd = json_str(&env.cwd.display().to_string());
        let payloads: Vec<Vec<u8>> = vec![
            // A cwd of the wrong type.
            claude(r#"{"command":"rm -rf ~"}"#, "5").into_bytes(),
            claude(r#"{"command":"rm -rf ~"}"#, r#"["/x"]"#).into_bytes(),
            // A lone surrogate.
            claude(r#"{"command":"rm -rf ~ # \ud800"}"#, &cwd).into_bytes(),
            // A NUL: escaped, raw inside the string, after the object.
            claude(r#"{"command":"rm -rf ~\u0000"}"#, &cwd).into_bytes(),
            claude("{\"command\":\"rm -rf ~\0\"}", &cwd).into_bytes(),
            [claude(r#"{"command":"rm -rf ~"}"#, &cwd).as_bytes(), b"\0"].concat(),
            // An escaped key name, an argv list.
            claude(r#"{"comm\u0061nd":"rm -rf ~"}"#, &cwd).into_bytes(),
            claude(r#"{"command":["bash","-lc","rm -rf ~"]}"#, &cwd).into_bytes(),
            // No agent shape at all: exit 2 blocks in every agent's protocol.
            br#"{"tool_input":{"command":"rm -rf ~"}}"#.to_vec(),
        ];
        for p in payloads {
            let out = env.pretool_raw(&p);
            assert!(
                denies(&out) || (out.code == 2 && out.stderr.contains("rm-root-home")),
                "{}\n{}{}",
                String::from_utf8_lossy(&p),
                out.stdout,
                out.stderr
            );
        }
        // The same shapes with a harmless command are allowed.
        let out = env.pretool_raw(claude(r#"{"command":"ls # \ud800"}"#, "5").as_bytes());
        assert_eq!((out.code, out.stdout.as_str()), (0, ""), "{}", out.stderr);
        assert!(out.stderr.contains("ignored \"cwd\""), "{}", out.stderr);
    }

    #[test]
    fn a_shell_call_without_a_readable_command_follows_fail_closed() {
        let env = Env::for_guard();
        let cwd = json_str(&env.cwd.display().to_string());
        let p = claude(r#"{"command":7}"#, &cwd);
        let out = env.pretool(&p);
        assert_eq!((out.code, out.stdout.as_str()), (0, ""));
        assert!(out.stderr.contains("without a command"), "{}", out.stderr);
        env.write("data/config.json", r#"{"guard": {"failClosed": true}}"#);
        assert_eq!(env.pretool(&p).code, 2);
    }
}
