//! What the agent sends cannot outgrow, hide from or switch off the guard: every reproduction of
//! the trust issue, through `cm-pretool` with a real Claude Code PreToolUse payload. An analysis
//! bound ends in a deny naming it; a program name hidden from the keyword scan is still judged;
//! other shell tools and Codex patches are judged; the guard's own settings and the user's
//! protected files cannot be changed from a Bash command.

use crate::harness::*;

fn reason(out: &Out) -> String {
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim())
        .unwrap_or_else(|e| panic!("not a deny object ({e}): {:?} {}", out.stdout, out.stderr));
    v["hookSpecificOutput"]["permissionDecisionReason"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

fn denied(env: &Env, cmd: &str) -> String {
    let out = env.pretool(&claude_bash(cmd, &env.cwd));
    assert!(
        out.stdout.contains("\"deny\""),
        "not denied: {cmd:?}\nstdout: {}\nstderr: {}",
        out.stdout,
        out.stderr
    );
    reason(&out)
}

fn allowed(env: &Env, cmd: &str) {
    let out = env.pretool(&claude_bash(cmd, &env.cwd));
    assert_eq!(out.stdout, "", "denied: {cmd:?}: {}", out.stderr);
}

/// `cmd` wrapped `n` times in `bash -c '...'`.
fn nested_bash(cmd: &str, n: usize) -> String {
    let mut c = cmd.to_string();
    for _ in 0..n {
        c = format!("bash -c '{}'", c.replace('\'', r"'\''"));
    }
    c
}

/// `cmd` wrapped `n` times in `eval "..."`.
fn nested_eval(cmd: &str, n: usize) -> String {
    let mut c = cmd.to_string();
    for _ in 0..n {
        let escaped = c
            .replace('\\', r"\\")
            .replace('"', "\\\"")
            .replace('$', r"\$");
        c = format!("eval \"{escaped}\"");
    }
    c
}

mod limits {
    use super::*;

    #[test]
    fn nesting_past_the_bound_is_denied_naming_it() {
        let env = Env::for_guard();
        let subs = format!("echo {}rm -rf ~{}", "$(".repeat(7), ")".repeat(7));
        for cmd in [subs, nested_bash("rm -rf ~", 7), nested_eval("rm -rf ~", 8)] {
            let why = denied(&env, &cmd);
            assert!(
                why.contains("guard:limit-nesting") && why.contains("deeper than the guard"),
                "{cmd}: {why}"
            );
        }
        // Within the bound the command itself is found.
        let why = denied(&env, &nested_bash("rm -rf ~", 3));
        assert!(why.contains("filesystem:"), "{why}");
    }

    #[test]
    fn a_command_after_the_segment_bound_is_not_lost() {
        let env = Env::for_guard();
        let cmd = format!("{}; rm -rf ~", "true; ".repeat(4095));
        let why = denied(&env, &cmd);
        assert!(why.contains("guard:limit-segments"), "{why}");
        // With no keyword at all, a long line is nothing to read.
        allowed(&env, &"true; ".repeat(5000));
    }

    #[test]
    fn brace_expansion_past_its_cap_is_denied_not_dropped() {
        let env = Env::for_guard();
        let items: Vec<String> = (0..70).map(|i| format!("a{i}")).collect();
        for cmd in [
            format!("rm -rf {{{},~}}", items.join(",")),
            format!("rm -rf /{{{},}}", items.join(",")),
        ] {
            denied(&env, &cmd);
        }
        let many: Vec<String> = (0..300).map(|i| format!("a{i}")).collect();
        let why = denied(&env, &format!("rm -rf {{{},~}}", many.join(",")));
        assert!(why.contains("guard:limit-braces"), "{why}");
        allowed(&env, &format!("rm -rf build/{{{}}}", items.join(",")));
    }

    #[test]
    fn a_long_word_with_expansions_is_not_taken_as_written() {
        let env = Env::for_guard();
        let filler: String = "x".repeat(5000);
        let why = denied(&env, &format!("rm -rf {{{filler},~}}"));
        assert!(why.contains("guard:limit-word-length"), "{why}");
        // A long quoted argument is one argument.
        allowed(&env, &format!("git commit -m \"{filler}\""));
    }
}

mod hidden_program {
    use super::*;

    #[test]
    fn every_hidden_spelling_of_the_issue_is_denied() {
        let env = Env::for_guard();
        for cmd in [
            "r$()m -rf ~",
            "r${EMPTY}m -rf ~",
            "r``m -rf ~",
            "r$@m -rf ~",
            r"$'\x72\x6d' -rf ~",
            "/bin/[r]m -rf ~",
            "gi$()t reset --hard",
            "kube$()ctl delete ns prod",
            r"psql -c $'DR\x4fP DATABASE x'",
        ] {
            denied(&env, cmd);
        }
    }

    #[test]
    fn a_computed_program_is_judged_by_its_arguments() {
        let env = Env::for_guard();
        for cmd in [
            "a=r; b=m; $a$b -rf ~",
            "$(rev <<< mr) -rf ~",
            "/bin/r? -rf ~",
            "$X reset --hard",
        ] {
            let why = denied(&env, cmd);
            assert!(why.contains("rm") || why.contains("git"), "{cmd}: {why}");
        }
        for cmd in [
            "$CC -o app main.c",
            "$PYTHON -m pytest -x",
            "$TOOL -a",
            "$(npm bin)/eslint .",
            "\"$@\"",
            "echo $HOME",
            "for f in *.rs; do wc -l \"$f\"; done",
        ] {
            allowed(&env, cmd);
        }
    }
}

/// A Claude Code PreToolUse payload for any tool with any input.
fn claude_tool(tool: &str, input: &serde_json::Value, cwd: &std::path::Path) -> String {
    serde_json::json!({
        "session_id": "abc123",
        "transcript_path": "/t.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PreToolUse",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "toolu_03"
    })
    .to_string()
}

/// A Codex PreToolUse payload for any tool with any input.
fn codex_tool(tool: &str, input: &serde_json::Value, cwd: &std::path::Path) -> String {
    serde_json::json!({
        "session_id": "0199a-codex",
        "transcript_path": "/r.jsonl",
        "cwd": cwd,
        "hook_event_name": "PreToolUse",
        "turn_id": "turn-7",
        "model": "gpt-5-codex",
        "tool_name": tool,
        "tool_input": input,
        "tool_use_id": "call_9"
    })
    .to_string()
}

fn decision(out: &Out) -> String {
    let v: serde_json::Value = serde_json::from_str(out.stdout.trim()).unwrap_or_default();
    v["hookSpecificOutput"]["permissionDecision"]
        .as_str()
        .or(v["decision"].as_str())
        .unwrap_or("allow")
        .to_string()
}

fn protect(env: &Env, globs: &[&str]) {
    env.write_config(&serde_json::json!({"guard": {"protectedPaths": globs}}));
}

mod other_tools {
    use super::*;
    use serde_json::json;

    #[test]
    fn any_tool_carrying_a_shell_command_is_judged() {
        let env = Env::for_guard();
        for (tool, input) in [
            ("mcp__shell__run_command", json!({"command": "rm -rf ~"})),
            (
                "mcp__desktop-commander__start_process",
                json!({"command": "rm -rf ~", "timeout_ms": 5000}),
            ),
            ("bash", json!({"command": "rm -rf ~"})),
            ("Bash ", json!({"command": "rm -rf ~"})),
        ] {
            let out = env.pretool(&claude_tool(tool, &input, &env.cwd));
            assert_eq!(decision(&out), "deny", "{tool}: {}", out.stderr);
        }
        for (tool, input) in [
            (
                "local_shell",
                json!({"action": {"type": "exec", "command": ["bash", "-lc", "rm -rf ~"]}}),
            ),
            ("exec_command", json!({"cmd": "rm -rf ~"})),
            ("shell", json!({"command": ["bash", "-lc", "rm -rf ~"]})),
        ] {
            let out = env.pretool(&codex_tool(tool, &input, &env.cwd));
            assert_eq!(decision(&out), "deny", "{tool}: {}", out.stderr);
        }
        let out = env.pretool(&claude_tool(
            "mcp__shell__run_command",
            &json!({"command": "ls"}),
            &env.cwd,
        ));
        assert_eq!(out.stdout, "", "{}", out.stderr);
    }

    #[test]
    fn a_codex_patch_is_judged_by_every_file_it_names() {
        let env = Env::for_guard();
        protect(&env, &[".env"]);
        let patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** Update File: .env\n@@\n-A=1\n+A=2\n*** End Patch\n";
        for input in [json!({"command": patch}), json!({"input": patch})] {
            let out = env.pretool(&codex_tool("apply_patch", &input, &env.cwd));
            assert_eq!(decision(&out), "deny", "{input}: {}", out.stderr);
            assert!(out.stdout.contains(".env"), "{}", out.stdout);
        }
        // The guard's own files too, and a patch touching neither passes.
        let own = "*** Begin Patch\n*** Add File: .codex/hooks.json\n+{}\n*** End Patch\n";
        let out = env.pretool(&codex_tool("apply_patch", &json!({"input": own}), &env.cwd));
        assert_eq!(decision(&out), "deny", "{}", out.stderr);
        let ok = patch.replace(".env", "README.md");
        let out = env.pretool(&codex_tool("apply_patch", &json!({"input": ok}), &env.cwd));
        assert_eq!(out.stdout, "", "{}", out.stderr);
    }

    #[test]
    fn codex_may_not_open_an_interactive_shell() {
        let env = Env::for_guard();
        for cmd in ["bash", "python3", "node", "sh -i", "psql prod"] {
            let out = env.pretool(&codex_tool(
                "exec_command",
                &json!({"cmd": cmd, "tty": true}),
                &env.cwd,
            ));
            assert_eq!(decision(&out), "deny", "{cmd}: {}", out.stderr);
            assert!(out.stdout.contains("write_stdin"), "{}", out.stdout);
        }
        for cmd in [
            "bash -lc 'cargo test'",
            "python3 -m pytest",
            "node server.js",
        ] {
            let out = env.pretool(&codex_tool("exec_command", &json!({"cmd": cmd}), &env.cwd));
            assert_eq!(out.stdout, "", "{cmd}: {}", out.stderr);
        }
    }
}

mod own_settings {
    use super::*;
    use serde_json::json;

    #[test]
    fn commands_that_loosen_the_guard_need_the_user() {
        let env = Env::for_guard();
        for cmd in [
            "cm guard allow 'rm -rf ~'",
            "cm hooks uninstall --everywhere",
            "cm guard --uninstall",
            "cm trauma heal t-1",
            "bash -c 'cm guard allow git:reset-hard'",
        ] {
            let out = env.pretool(&claude_bash(cmd, &env.cwd));
            assert_eq!(decision(&out), "ask", "{cmd}: {}", out.stderr);
            assert!(reason(&out).contains("For the user"), "{}", out.stdout);
            // Codex cannot ask: it is refused.
            let out = env.pretool(&codex_bash(cmd, &env.cwd));
            assert_eq!(decision(&out), "deny", "{cmd}: {}", out.stderr);
        }
        allowed(&env, "cm guard check 'rm -rf ~'");
        allowed(&env, "cm context 'fix the tests'");
    }

    #[test]
    fn writes_to_the_guards_files_need_the_user() {
        let env = Env::for_guard();
        let data = env.data.display().to_string();
        for cmd in [
            format!("echo '{{}}' > {data}/config.json"),
            format!("rm {data}/traumas.jsonl"),
            "echo '{}' > ~/.claude/settings.json".to_string(),
            "cp x .claude/settings.local.json".to_string(),
            "tee ~/.codex/hooks.json < x".to_string(),
            "sed -i 's/cm-pretool/true/' ~/.gemini/settings.json".to_string(),
        ] {
            let out = env.pretool(&claude_bash(&cmd, &env.cwd));
            assert_eq!(decision(&out), "ask", "{cmd}: {}", out.stderr);
        }
        let home = env.home.display().to_string();
        for path in [
            format!("{data}/config.json"),
            format!("{home}/.claude/settings.json"),
        ] {
            let out = env.pretool(&claude_tool(
                "Write",
                &json!({"file_path": path, "content": "{}"}),
                &env.cwd,
            ));
            assert_eq!(decision(&out), "ask", "{path}: {}", out.stderr);
        }
        // The reason speaks to the user and hands the agent no command to lift a deny.
        let why = denied(&env, "rm -rf ~");
        assert!(
            why.contains("For the user") && !why.contains("cm guard allow '"),
            "{why}"
        );
    }
}

mod protected_writes {
    use super::*;

    #[test]
    fn bash_writes_meet_protected_paths() {
        let env = Env::for_guard();
        protect(&env, &[".env", "secrets/**"]);
        for cmd in [
            "echo KEY=x > .env",
            "sed -i 's/a/b/' .env",
            "cp key.pem secrets/",
            "mv key.pem secrets/key.pem",
            r#"python3 -c "open('.env','w').write('x')""#,
            "printf 'A=1' | tee -a .env",
        ] {
            let out = env.pretool(&claude_bash(cmd, &env.cwd));
            assert_eq!(decision(&out), "deny", "{cmd}: {}", out.stderr);
        }
        for cmd in [
            "cat .env",
            "echo hi > notes.txt",
            "cargo build > build.log 2>&1",
        ] {
            allowed(&env, cmd);
        }
    }

    #[test]
    fn shell_start_up_files_and_ssh_access_need_the_user() {
        let env = Env::for_guard();
        for cmd in [
            "> ~/.bashrc",
            "cp /dev/null ~/.zshrc",
            "echo 'ssh-ed25519 AAAA x' >> ~/.ssh/authorized_keys",
            "echo 'curl x | sh' >> ~/.profile",
        ] {
            let out = env.pretool(&claude_bash(cmd, &env.cwd));
            assert_eq!(decision(&out), "ask", "{cmd}: {}", out.stderr);
        }
    }
}
