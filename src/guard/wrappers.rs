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
}

/// (wrapper, short options that take a value, long options that take a value when not
/// written `--opt=value`, number of positional words before the command)
const WRAPPERS: &[(&str, &str, &[&str], usize)] = &[
    (
        "sudo",
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
    ("doas", "uC", &[], 0),
    (
        "run0",
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
    ("pkexec", "", &["--user"], 0),
    ("env", "uCS", &["--unset", "--chdir", "--split-string"], 0),
    ("nohup", "", &[], 0),
    ("time", "fo", &["--format", "--output"], 0),
    ("nice", "n", &["--adjustment"], 0),
    (
        "ionice",
        "cnpPu",
        &["--class", "--classdata", "--pid", "--pgid", "--uid"],
        0,
    ),
    ("command", "", &[], 0),
    ("builtin", "", &[], 0),
    ("exec", "a", &[], 0),
    (
        "xargs",
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
    ("timeout", "sk", &["--signal", "--kill-after"], 1),
    ("stdbuf", "ioe", &["--input", "--output", "--error"], 0),
    ("setsid", "", &[], 0),
    ("chronic", "", &[], 0),
    ("unbuffer", "", &[], 0),
    ("caffeinate", "t", &[], 0),
    (
        "systemd-run",
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
        "wEc",
        &["--timeout", "--conflict-exit-code", "--command"],
        1,
    ),
    ("chroot", "", &["--userspec", "--groups"], 1),
    ("busybox", "", &[], 0),
    (
        "strace",
        "eoOpPsSuXU",
        &["--output", "--trace", "--signal", "--attach", "--user"],
        0,
    ),
];

/// Words that may precede a command without being it.
const KEYWORDS: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "do", "while", "until", "coproc", "fi", "done",
];

pub fn strip(words: &[Word]) -> Stripped {
    let mut inner_shell = Vec::new();
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
        let Some(&(_, short, long, positional)) = WRAPPERS.iter().find(|(n, ..)| *n == prog) else {
            break;
        };
        // `command -v rm` / `command -V` only look a name up.
        if prog == "command"
            && words
                .get(i + 1)
                .is_some_and(|a| a.text == "-v" || a.text == "-V")
        {
            return Stripped {
                words: Vec::new(),
                inner_shell,
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
            if prog == "env" && is_assignment(a) {
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
    }
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
    use crate::guard::shell;

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
