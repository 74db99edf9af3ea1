//! Wrapper stripping: `sudo -u x env A=1 nohup nice -n 5 time rm ...` runs `rm ...`.
//!
//! A table of programs that run their arguments as a command, with the options of each that
//! take a value (so `sudo -u root rm` strips `-u root`, not just `-u`). Shell keywords and
//! grouping words that can start a simple command (`if`, `then`, `do`, `!`, `{`) are stripped
//! too, as are leading `NAME=value` assignments.

use super::shell::Word;

/// The command that really runs, and shell strings a wrapper carried (`env -S '...'`).
pub struct Stripped {
    pub words: Vec<Word>,
    pub inner_shell: Vec<String>,
    /// The command runs under `xargs` (with `-I STR`: `Some(STR)`), which adds its input as
    /// arguments.
    pub fed_by_xargs: Option<Option<String>>,
}

/// (wrapper, its subcommand, short options that take a value, long options that take a value
/// when not written `--opt=value`, number of positional words before the command). With a
/// subcommand (`uv run`, `docker exec`, `docker compose exec`) the wrapper is that subcommand of
/// the program; with a marker starting with `--` (`gdb --args`) the command follows the marker.
const WRAPPERS: &[(&str, &str, &str, &[&str], usize)] = &[
    (
        "sudo",
        "",
        "ugpChDrtTUR",
        &[
            "--user",
            "--group",
            "--prompt",
            "--chdir",
            "--host",
            "--role",
            "--type",
            "--other-user",
            "--close-from",
            "--command-timeout",
        ],
        0,
    ),
    ("doas", "", "uC", &[], 0),
    (
        "run0",
        "",
        "ugD",
        &[
            "--user",
            "--group",
            "--chdir",
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--nice",
            "--setenv",
        ],
        0,
    ),
    ("pkexec", "", "", &["--user"], 0),
    (
        "env",
        "",
        "uCS",
        &["--unset", "--chdir", "--split-string"],
        0,
    ),
    ("nohup", "", "", &[], 0),
    ("time", "", "fo", &["--format", "--output"], 0),
    ("nice", "", "n", &["--adjustment"], 0),
    (
        "ionice",
        "",
        "cnpPu",
        &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        0,
    ),
    ("command", "", "", &[], 0),
    ("builtin", "", "", &[], 0),
    ("exec", "", "a", &[], 0),
    (
        "xargs",
        "",
        "adEeIiLlnPs",
        &[
            "--arg-file",
            "--delimiter",
            "--eof",
            "--replace",
            "--max-lines",
            "--max-args",
            "--max-procs",
            "--max-chars",
            "--process-slot-var",
        ],
        0,
    ),
    ("timeout", "", "sk", &["--signal", "--kill-after"], 1),
    ("stdbuf", "", "ioe", &["--input", "--output", "--error"], 0),
    ("setsid", "", "", &[], 0),
    ("chronic", "", "", &[], 0),
    ("unbuffer", "", "", &[], 0),
    ("caffeinate", "", "t", &[], 0),
    (
        "systemd-run",
        "",
        "pEu",
        &[
            "--unit",
            "--property",
            "--description",
            "--slice",
            "--setenv",
            "--uid",
            "--gid",
            "--working-directory",
        ],
        0,
    ),
    (
        "flock",
        "",
        "wEc",
        &["--timeout", "--conflict-exit-code", "--command"],
        1,
    ),
    ("chroot", "", "", &["--userspec", "--groups"], 1),
    ("busybox", "", "", &[], 0),
    ("toybox", "", "", &[], 0),
    (
        "strace",
        "",
        "eoOpPsSuXU",
        &["--output", "--trace", "--signal", "--attach", "--user"],
        0,
    ),
    ("ltrace", "", "eoOpsSuXAaLn", &["--output"], 0),
    ("taskset", "", "", &["--cpu-list"], 1),
    (
        "unshare",
        "",
        "SGRwt",
        &["--setuid", "--setgid", "--root", "--wd", "--time"],
        0,
    ),
    (
        "nsenter",
        "",
        "tSGWrwuUmnipC",
        &["--target", "--setuid", "--setgid", "--root", "--wd"],
        0,
    ),
    ("chrt", "", "T", &[], 1),
    (
        "numactl",
        "",
        "CNmlpiP",
        &[
            "--physcpubind",
            "--cpunodebind",
            "--membind",
            "--interleave",
            "--preferred",
        ],
        0,
    ),
    (
        "fakeroot",
        "",
        "lsib",
        &["--lib", "--faked", "--save-file", "--load-file"],
        0,
    ),
    ("fakechroot", "", "lsde", &[], 0),
    ("eatmydata", "", "", &[], 0),
    ("nocache", "", "n", &[], 0),
    ("valgrind", "", "", &[], 0),
    ("gdb", "--args", "", &[], 0),
    ("lldb", "--", "", &[], 0),
    ("catchsegv", "", "", &[], 0),
    ("firejail", "", "", &[], 0),
    ("torsocks", "", "aPu", &[], 0),
    ("proxychains", "", "f", &[], 0),
    ("proxychains4", "", "f", &[], 0),
    (
        "xvfb-run",
        "",
        "nsfe",
        &[
            "--server-num",
            "--server-args",
            "--auth-file",
            "--error-file",
        ],
        0,
    ),
    (
        "dbus-run-session",
        "",
        "",
        &["--config-file", "--dbus-daemon"],
        0,
    ),
    ("dbus-launch", "", "", &[], 0),
    ("tini", "", "slgep", &[], 0),
    ("dumb-init", "", "r", &["--rewrite"], 0),
    ("gosu", "", "", &[], 1),
    ("su-exec", "", "", &[], 1),
    (
        "setpriv",
        "",
        "",
        &[
            "--reuid",
            "--regid",
            "--groups",
            "--inh-caps",
            "--bounding-set",
        ],
        0,
    ),
    ("chpst", "", "ugUeL", &[], 0),
    ("faketime", "", "f", &[], 1),
    ("cgexec", "", "g", &[], 0),
    (
        "systemd-inhibit",
        "",
        "",
        &["--what", "--who", "--why", "--mode"],
        0,
    ),
    ("entr", "", "", &[], 0),
    (
        "perf",
        "stat",
        "eopr",
        &["--event", "--output", "--pid", "--repeat"],
        0,
    ),
    (
        "perf",
        "record",
        "eofpc",
        &["--event", "--output", "--freq", "--pid", "--count"],
        0,
    ),
    (
        "uv",
        "run",
        "pw",
        &[
            "--with",
            "--python",
            "--project",
            "--directory",
            "--package",
            "--extra",
            "--group",
            "--env-file",
            "--index",
            "--with-requirements",
            "--with-editable",
        ],
        0,
    ),
    (
        "uvx",
        "",
        "p",
        &["--with", "--python", "--from", "--index"],
        0,
    ),
    ("pipx", "run", "", &["--spec", "--python", "--pip-args"], 0),
    ("poetry", "run", "C", &["--directory", "--project"], 0),
    ("pipenv", "run", "", &[], 0),
    ("pdm", "run", "p", &["--project"], 0),
    ("hatch", "run", "", &[], 0),
    ("bundle", "exec", "", &["--gemfile"], 0),
    ("npx", "", "pc", &["--package", "--call"], 0),
    ("bunx", "", "p", &["--package"], 0),
    (
        "npm",
        "exec",
        "pwc",
        &["--package", "--workspace", "--call"],
        0,
    ),
    ("pnpm", "exec", "C", &["--dir", "--filter"], 0),
    ("pnpm", "dlx", "C", &["--package"], 0),
    ("yarn", "dlx", "p", &["--package"], 0),
    ("yarn", "exec", "", &[], 0),
    ("conda", "run", "np", &["--name", "--prefix", "--cwd"], 0),
    ("mamba", "run", "np", &["--name", "--prefix", "--cwd"], 0),
    (
        "micromamba",
        "run",
        "np",
        &["--name", "--prefix", "--cwd"],
        0,
    ),
    ("mise", "exec", "C", &["--cd"], 0),
    ("mise", "x", "C", &["--cd"], 0),
    ("asdf", "exec", "", &[], 0),
    ("direnv", "exec", "", &[], 1),
    ("op", "run", "", &["--env-file"], 0),
    (
        "doppler",
        "run",
        "pc",
        &["--project", "--config", "--command"],
        0,
    ),
    ("aws-vault", "exec", "", &["--region", "--duration"], 1),
    ("dotenv", "", "ecv", &[], 0),
    (
        "docker",
        "exec",
        "euwD",
        &[
            "--env",
            "--user",
            "--workdir",
            "--env-file",
            "--detach-keys",
        ],
        1,
    ),
    (
        "podman",
        "exec",
        "euwD",
        &[
            "--env",
            "--user",
            "--workdir",
            "--env-file",
            "--detach-keys",
        ],
        1,
    ),
    (
        "docker",
        "compose exec",
        "euwD",
        &["--env", "--user", "--workdir", "--index"],
        1,
    ),
    (
        "docker-compose",
        "exec",
        "euw",
        &["--env", "--user", "--workdir", "--index"],
        1,
    ),
    (
        "kubectl",
        "exec",
        "nc",
        &[
            "--namespace",
            "--container",
            "--context",
            "--kubeconfig",
            "--pod-running-timeout",
        ],
        1,
    ),
    ("oc", "exec", "nc", &["--namespace", "--container"], 1),
    (
        "lxc",
        "exec",
        "",
        &["--env", "--cwd", "--user", "--group"],
        1,
    ),
];

/// Words that may precede a command without being it.
const KEYWORDS: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "do", "while", "until", "coproc", "fi", "done",
];

pub fn strip(words: &[Word]) -> Stripped {
    let mut inner_shell = Vec::new();
    let mut fed_by_xargs = None;
    let mut i = 0;
    // Each pass strips one layer; the bound keeps a pathological line cheap.
    for _ in 0..64 {
        let Some(w) = words.get(i) else { break };
        if w.op {
            // `> out cmd`: a redirection before the command; skip the operator and its target.
            i += 2;
            continue;
        }
        if !w.quoted && KEYWORDS.contains(&w.text.as_str()) {
            i += 1;
            continue;
        }
        if is_assignment(w) {
            i += 1;
            continue;
        }
        let prog = super::normalize::base_name(&w.text);
        let Some(&(_, sub, short, long, positional)) = WRAPPERS
            .iter()
            .find(|(n, sub, ..)| *n == prog && is_wrapper(sub, &words[i + 1..]))
        else {
            break;
        };
        if prog == "xargs" {
            fed_by_xargs = Some(xargs_replace(&words[i + 1..]));
        }
        let mut sub = sub.split(' ').filter(|w| !w.is_empty());
        match (sub.next(), sub.next()) {
            (Some(marker), None) if marker.starts_with("--") => {
                // `gdb -q --args CMD`: the command follows the marker.
                i += 1 + words[i + 1..]
                    .iter()
                    .position(|a| a.text == marker)
                    .unwrap_or(0);
            }
            (Some(_), Some(_)) => i += 2,
            (Some(_), None) => i += 1,
            _ => {}
        }
        // `command -v rm` / `command -V` only look a name up.
        if prog == "command"
            && words
                .get(i + 1)
                .is_some_and(|a| a.text == "-v" || a.text == "-V")
        {
            return Stripped {
                words: Vec::new(),
                inner_shell,
                fed_by_xargs,
            };
        }
        i += 1;
        let mut positional_left = positional;
        while let Some(a) = words.get(i) {
            let t = a.text.as_str();
            if a.op {
                i += 2;
                continue;
            }
            if t == "--" {
                i += 1;
                break;
            }
            if prog == "env" && (is_assignment(a) || t == "-") {
                i += 1;
                continue;
            }
            if let Some(long_opt) = t.strip_prefix("--") {
                let name = format!("--{}", long_opt.split('=').next().unwrap_or(""));
                let takes = long.contains(&name.as_str()) && !long_opt.contains('=');
                if prog == "env" && name == "--split-string" {
                    if let Some((_, v)) = long_opt.split_once('=') {
                        inner_shell.push(v.to_string());
                    } else if let Some(v) = words.get(i + 1) {
                        inner_shell.push(v.text.clone());
                    }
                }
                if prog == "flock"
                    && name == "--command"
                    && let Some(v) = words.get(i + 1)
                {
                    inner_shell.push(v.text.clone());
                }
                i += if takes { 2 } else { 1 };
                continue;
            }
            if t.len() > 1
                && t.starts_with('-')
                && !(prog == "nice" && t[1..].bytes().all(|b| b.is_ascii_digit()))
            {
                // A cluster like `-Eu root` or `-n5`: the first letter that takes a value
                // consumes the rest of the word, or the next word.
                let body = &t[1..];
                let mut consumed_next = false;
                for (k, c) in body.char_indices() {
                    if short.contains(c) {
                        let attached = &body[k + c.len_utf8()..];
                        let value = if attached.is_empty() {
                            consumed_next = true;
                            words.get(i + 1).map(|v| v.text.clone())
                        } else {
                            Some(attached.to_string())
                        };
                        if (prog == "env" && c == 'S') || (prog == "flock" && c == 'c') {
                            inner_shell.extend(value);
                        }
                        break;
                    }
                }
                i += if consumed_next { 2 } else { 1 };
                continue;
            }
            if prog == "nice" && t.starts_with('-') {
                i += 1;
                continue;
            }
            if positional_left > 0 {
                positional_left -= 1;
                i += 1;
                continue;
            }
            break;
        }
    }
    Stripped {
        words: words.get(i..).unwrap_or(&[]).to_vec(),
        inner_shell,
        fed_by_xargs,
    }
}

/// Do the words after the program make it the wrapper with subcommand `sub` (`""`: none)?
fn is_wrapper(sub: &str, rest: &[Word]) -> bool {
    if sub.is_empty() {
        return true;
    }
    let mut parts = sub.split(' ');
    match (parts.next(), parts.next()) {
        (Some(marker), None) if marker.starts_with("--") => rest.iter().any(|w| w.text == marker),
        (Some(sub), None) => rest.first().is_some_and(|w| w.text == sub),
        (Some(a), Some(b)) => {
            rest.first().is_some_and(|w| w.text == a) && rest.get(1).is_some_and(|w| w.text == b)
        }
        _ => false,
    }
}

/// The replace string of `xargs -I STR` / `-iSTR` / `--replace[=STR]`, if any.
fn xargs_replace(args: &[Word]) -> Option<String> {
    for (k, a) in args.iter().enumerate() {
        let t = a.text.as_str();
        if t == "-I" {
            return args.get(k + 1).map(|v| v.text.clone());
        }
        if let Some(r) = t
            .strip_prefix("-I")
            .or_else(|| t.strip_prefix("--replace="))
        {
            return Some(r.to_string());
        }
        if t == "-i" || t == "--replace" {
            return Some("{}".into());
        }
        if !t.starts_with('-') {
            break;
        }
    }
    None
}

/// `NAME=value` (unquoted name).
fn is_assignment(w: &Word) -> bool {
    if w.op {
        return false;
    }
    let Some((name, _)) = w.text.split_once('=') else {
        return false;
    };
    let name = name.strip_suffix('+').unwrap_or(name);
    !name.is_empty()
        && name
            .bytes()
            .enumerate()
            .all(|(k, b)| b == b'_' || b.is_ascii_alphabetic() || (k > 0 && b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shell;

    fn stripped(src: &str) -> String {
        let p = shell::parse(src);
        strip(&p.commands[0].words)
            .words
            .iter()
            .map(|w| w.text.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn strips_each_kind_of_wrapper() {
        for (input, want) in [
            ("sudo -u root -E rm -rf /", "rm -rf /"),
            ("sudo -- rm x", "rm x"),
            ("env -i A=1 B=2 git reset --hard", "git reset --hard"),
            ("A=1 B=2 git reset --hard", "git reset --hard"),
            ("nohup nice -n 10 ionice -c3 rm x", "rm x"),
            ("nice -5 rm x", "rm x"),
            ("time -p rm x", "rm x"),
            ("timeout -s KILL 10 rm x", "rm x"),
            ("timeout 5s rm x", "rm x"),
            ("xargs -0 -n 1 -I{} rm -rf {}", "rm -rf {}"),
            ("xargs -I {} rm {}", "rm {}"),
            ("exec /bin/rm x", "/bin/rm x"),
            ("if rm x", "rm x"),
            ("! git push -f", "git push -f"),
            ("stdbuf -oL rm x", "rm x"),
            ("doas rm x", "rm x"),
        ] {
            assert_eq!(stripped(input), want, "{input}");
        }
    }

    #[test]
    fn command_lookup_is_not_a_command() {
        assert_eq!(stripped("command -v rm"), "");
    }

    #[test]
    fn env_split_string_is_examined() {
        let p = shell::parse("env -S 'rm -rf /' true");
        let s = strip(&p.commands[0].words);
        assert_eq!(s.inner_shell, vec!["rm -rf /"]);
    }
}
