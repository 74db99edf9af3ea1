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
