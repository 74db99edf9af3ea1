//! The files a shell command writes, replaces or deletes, read from its normalised segments:
//! redirection targets (`>`, `>>`, `&>`, `>|`), `tee`, `sed -i`, the destination of `cp`/`mv`/
//! `install`/`ln`, `dd of=`, `truncate`, `rm`/`shred`/`unlink` operands, and files opened for
//! writing in interpreter one-liners (`open('.env','w')`, `fs.writeFileSync('.env', ...)`).
//!
//! Used to hold Bash to the same protected paths as the Write tool, and to keep the agent off
//! the files that configure the guard itself. A cheap byte test ([`may_write`]) runs first: a
//! command with no `>` and none of these programs or calls is never read further.

use super::normalize::{Lang, Segment};
use super::shell;

/// Programs whose operands are written or removed.
const PROGRAMS: &[&str] = &[
    "tee", "sed", "gsed", "cp", "mv", "install", "ln", "dd", "truncate", "rm", "shred", "unlink",
    "rsync",
];

/// Could `command` write a file at all? (No parse: a byte scan for `>` and the program names
/// and calls [`targets`] looks at.)
pub fn may_write(command: &str) -> bool {
    let b = command.as_bytes();
    if b.contains(&b'>') {
        return true;
    }
    let lower = command.to_ascii_lowercase();
    PROGRAMS.iter().any(|p| lower.contains(p))
        || [
            "open(",
            "writefile",
            "appendfile",
            "createwritestream",
            "file.write",
            "write_text",
            "write_bytes",
        ]
        .iter()
        .any(|c| lower.contains(c))
}

/// Every path the segments write or remove, as written (deduplicated, in order).
pub fn targets(segments: &[Segment]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for seg in segments {
        match seg.lang {
            Lang::Shell => {
                for cmd in shell::parse(&seg.text).commands {
                    let words: Vec<(&str, bool)> =
                        cmd.words.iter().map(|w| (w.text.as_str(), w.op)).collect();
                    shell_targets(&words, &mut out);
                }
            }
            Lang::Python | Lang::Node | Lang::Ruby | Lang::Perl => {
                code_targets(&seg.text, &mut out)
            }
            _ => {}
        }
    }
    // A hash set: a command can name tens of thousands of files.
    let mut seen = std::collections::HashSet::new();
    out.retain(|p| !p.is_empty() && !is_stream(p) && seen.insert(p.clone()));
    out
}

/// Not a file: `/dev/null`, the standard streams, a descriptor.
fn is_stream(p: &str) -> bool {
    matches!(
        p,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "-"
    ) || p.starts_with("/dev/fd/")
        || p.starts_with('&')
        || p.bytes().all(|b| b.is_ascii_digit())
}

fn shell_targets(words: &[(&str, bool)], out: &mut Vec<String>) {
    // Redirections, wherever they stand.
    let mut args: Vec<&str> = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let (w, op) = words[k];
        if op {
            if w.contains('>')
                && !w.ends_with('&')
                && let Some((t, false)) = words.get(k + 1)
            {
                out.push(t.to_string());
            }
            k += 2;
            continue;
        }
        args.push(w);
        k += 1;
    }
    let Some((&prog, rest)) = args.split_first() else {
        return;
    };
    let prog = super::normalize::base_name(prog);
    let operands = |skip_values: &[&str]| -> Vec<&str> {
        let mut v = Vec::new();
        let mut i = 0;
        let mut after_dashes = false;
        while i < rest.len() {
            let a = rest[i];
            if !after_dashes && a == "--" {
                after_dashes = true;
            } else if !after_dashes && a.starts_with('-') && a.len() > 1 {
                if skip_values.contains(&a) {
                    i += 1;
                }
            } else {
                v.push(a);
            }
            i += 1;
        }
        v
    };
    match prog {
        "tee" | "rm" | "shred" | "unlink" => {
            out.extend(operands(&[]).iter().map(|s| s.to_string()))
        }
        "truncate" => out.extend(
            operands(&["-s", "--size", "-r", "--reference"])
                .iter()
                .map(|s| s.to_string()),
        ),
        "sed" | "gsed" => {
            let in_place = rest.iter().any(|a| {
                a.starts_with("--in-place")
                    || (a.starts_with('-') && !a.starts_with("--") && a.contains('i'))
            });
            if !in_place {
                return;
            }
            let script_by_flag = rest.iter().any(|a| {
                matches!(*a, "-e" | "-f" | "--expression" | "--file")
                    || a.starts_with("--expression=")
            });
            let ops = operands(&["-e", "-f", "--expression", "--file", "-l"]);
            let files = if script_by_flag {
                &ops[..]
            } else {
                ops.get(1..).unwrap_or(&[])
            };
            out.extend(files.iter().map(|s| s.to_string()));
        }
        "cp" | "mv" | "install" | "ln" | "rsync" => {
            if let Some(dir) = rest.iter().enumerate().find_map(|(i, a)| {
                a.strip_prefix("--target-directory=")
                    .or_else(|| (*a == "-t").then(|| rest.get(i + 1).copied()).flatten())
            }) {
                out.push(dir.to_string());
                return;
            }
            let ops = operands(&[
                "-t", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group", "-e",
            ]);
            if let Some((dest, sources)) = ops.split_last().filter(|(_, s)| !s.is_empty()) {
                out.push(dest.to_string());
                // Into a directory (`cp key.pem secrets/`): each source by its name there.
                for src in sources {
                    let name = super::normalize::base_name(src.trim_end_matches('/'));
                    out.push(format!("{}/{name}", dest.trim_end_matches('/')));
                }
            }
            if prog == "mv" {
                // Moving a file away changes it as much as writing it.
                out.extend(
                    ops[..ops.len().saturating_sub(1)]
                        .iter()
                        .map(|s| s.to_string()),
                );
            }
        }
        "dd" => out.extend(
            rest.iter()
                .filter_map(|a| a.strip_prefix("of="))
                .map(str::to_string),
        ),
        _ => {}
    }
}

/// Files opened for writing in interpreter code: the first string literal of a write call.
fn code_targets(code: &str, out: &mut Vec<String>) {
    const CALLS: &[&str] = &[
        "open(",
        "writeFileSync(",
        "writeFile(",
        "appendFileSync(",
        "appendFile(",
        "createWriteStream(",
        "File.write(",
        "File.open(",
        "write_text(",
        "write_bytes(",
    ];
    for call in CALLS {
        let mut from = 0;
        while let Some(at) = code[from..].find(call) {
            let start = from + at + call.len();
            from = start;
            let rest = &code[start..];
            // `Path('.env').write_text(...)`: the path is before the call.
            if call.starts_with("write_") {
                if let Some(p) = literal_before(&code[..from - call.len()]) {
                    out.push(p);
                }
                continue;
            }
            let Some((path, after)) = literal(rest) else {
                continue;
            };
            let writes = match *call {
                "open(" | "File.open(" => {
                    // Perl: `open(F, '>x')`; Python/Ruby: a mode with w, a, x or +.
                    let mode = after
                        .trim_start()
                        .strip_prefix(',')
                        .and_then(|m| literal(m.trim_start()).map(|(m, _)| m));
                    match mode {
                        Some(m) => m.contains(['w', 'a', 'x', '+', '>']),
                        None => path.starts_with('>'),
                    }
                }
                _ => true,
            };
            if writes {
                out.push(path.trim_start_matches(['>', '+', ' ']).to_string());
            }
        }
    }
}

/// A quoted string at the start of `s` (after blanks): its text and what follows it.
fn literal(s: &str) -> Option<(String, &str)> {
    let s = s.trim_start();
    let q = s.chars().next().filter(|c| matches!(c, '\'' | '"' | '`'))?;
    let end = s[1..].find(q)? + 1;
    Some((s[1..end].to_string(), &s[end + 1..]))
}

/// The string literal in `Path('x')` / `Path("x")` just before `.write_text(`.
fn literal_before(s: &str) -> Option<String> {
    let s = s.strip_suffix('.')?.strip_suffix(')')?;
    let q = s.chars().last().filter(|c| matches!(c, '\'' | '"'))?;
    let body = &s[..s.len() - 1];
    let open = body.rfind(q)?;
    Some(body[open + 1..].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::segments;

    fn written(cmd: &str) -> Vec<String> {
        targets(&segments(cmd))
    }

    #[test]
    fn shell_writes_name_their_files() {
        for (cmd, want) in [
            ("echo KEY=x > .env", vec![".env"]),
            (
                "echo k >> ~/.ssh/authorized_keys",
                vec!["~/.ssh/authorized_keys"],
            ),
            ("sed -i 's/a/b/' .env", vec![".env"]),
            ("sed -i.bak -e 's/a/b/' .env x.txt", vec![".env", "x.txt"]),
            ("cp key.pem secrets/", vec!["secrets/", "secrets/key.pem"]),
            (
                "mv a.txt secrets/a.txt",
                vec!["secrets/a.txt", "secrets/a.txt/a.txt", "a.txt"],
            ),
            ("cp -t secrets a b", vec!["secrets"]),
            ("cp /dev/null ~/.zshrc", vec!["~/.zshrc", "~/.zshrc/null"]),
            ("printf x | tee -a .env", vec![".env"]),
            ("dd if=/dev/zero of=disk.img bs=1M", vec!["disk.img"]),
            ("truncate -s 0 .env", vec![".env"]),
            ("> ~/.bashrc", vec!["~/.bashrc"]),
            ("bash -c 'echo x > .env'", vec![".env"]),
            ("cargo build 2>&1 > /dev/null", vec![]),
            ("npm test", vec![]),
            ("sed 's/a/b/' .env", vec![]),
        ] {
            assert_eq!(written(cmd), want, "{cmd}");
        }
    }

    #[test]
    fn code_writes_name_their_files() {
        for (cmd, want) in [
            (r#"python3 -c "open('.env','w').write('x')""#, vec![".env"]),
            (r#"python3 -c "print(open('.env').read())""#, vec![]),
            (
                r#"node -e "require('fs').writeFileSync('.env', 'x')""#,
                vec![".env"],
            ),
            (
                r#"python3 -c "from pathlib import Path; Path('.env').write_text('x')""#,
                vec![".env"],
            ),
            (r#"ruby -e "File.write('.env', 'x')""#, vec![".env"]),
        ] {
            assert_eq!(written(cmd), want, "{cmd}");
        }
    }

    #[test]
    fn the_byte_test_lets_plain_commands_go() {
        assert!(!may_write("npm test"));
        assert!(!may_write("git status"));
        assert!(may_write("echo x > y"));
        assert!(may_write("cp a b"));
    }
}
