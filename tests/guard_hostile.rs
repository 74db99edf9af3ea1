//! The guard against a hostile repository and hostile payloads: a cloned repository's `.cass/`
//! files can only tighten the guard and never hang it; protected paths hold against path
//! tricks; a broken global config keeps its last good guard settings; the hook decides on every
//! command a payload could make the agent run.

mod guard_support;

use guard_support::*;

fn denies(out: &Out) -> bool {
    out.stdout.contains("\"deny\"")
}

mod repository_config {
    use super::*;

    #[test]
    fn a_repository_cannot_allow_any_command() {
        let env = Env::new();
        let cwd = env.project();
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
        let out = env.cm(&[
            "guard",
            "allow",
            "git push --force origin main",
            "--project",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let out = env.pretool(&claude_bash("git push --force origin main", &cwd));
        assert_eq!(out.stdout, "", "{}", out.stderr);
    }
}
