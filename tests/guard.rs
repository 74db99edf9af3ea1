//! The guard, end to end: the command corpus, the hook's output for each agent (golden files),
//! quick-reject soundness (property test), and the real binary as `cm-pretool` and
//! `cm hook pretool` with documented payloads.

mod guard_support;

mod corpus {
    use super::guard_support::*;
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
            join(&missed)
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
    use super::guard_support::*;
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
