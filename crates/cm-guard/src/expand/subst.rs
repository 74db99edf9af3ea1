//! Command substitutions whose output can be known without running anything: `$(echo ~)`,
//! `$(printf '%s' "$HOME")`, `$(pwd)`, `$(realpath ~)`, `$(readlink -f ..)`, `$(dirname
//! "$PWD")`, `$(cat <<EOF ... EOF)`. Anything else (`$(ls)`, `$(git rev-parse ...)`) is
//! unknown, and the caller keeps it as written.

use super::{State, command, path};
use crate::shell;

/// The output of the command line `src`, when it is plain to see.
pub fn output(src: &str, st: &State) -> Option<String> {
    if src.trim().is_empty() {
        // `$()`, ``` `` ```: nothing.
        return Some(String::new());
    }
    if !st.can_nest() || src.len() > 4096 {
        return None;
    }
    let parsed = shell::parse(src);
    let mut inner = st.clone();
    inner.depth += 1;
    let mut out = None;
    // `cd ~ && pwd`: earlier commands may only change the state.
    for (k, cmd) in parsed.commands.iter().enumerate() {
        let exp = command::expand_command(&cmd.words, &mut inner);
        if k + 1 < parsed.commands.len() {
            let prog = exp.worlds[0].first().map(|w| w.text.as_str());
            if !matches!(prog, Some("cd" | "pushd" | "set" | "export")) && !assignment_only(cmd) {
                return None;
            }
            continue;
        }
        if exp.opaque {
            return None;
        }
        let words: Vec<&str> = exp.worlds[0]
            .iter()
            .filter(|w| !w.op)
            .map(|w| w.text.as_str())
            .collect();
        out = run(&words, &cmd.stdin_text, &inner);
    }
    out
}

fn assignment_only(cmd: &shell::Command) -> bool {
    cmd.words.iter().all(command::is_assignment)
}

/// The output of one simple command (its words already expanded), when it is known.
fn run(words: &[&str], stdin: &[String], st: &State) -> Option<String> {
    let (&prog, args) = words.split_first()?;
    match crate::normalize::base_name(prog) {
        "echo" => {
            let rest: Vec<&str> = args
                .iter()
                .copied()
                .skip_while(|a| {
                    a.len() > 1 && a.starts_with('-') && a[1..].bytes().all(|b| b"neE".contains(&b))
                })
                .collect();
            Some(rest.join(" "))
        }
        "printf" => {
            let args = args.strip_prefix(&["--"]).unwrap_or(args);
            if args.first() == Some(&"-v") {
                // `printf -v NAME ...` assigns instead of writing.
                return Some(String::new());
            }
            let (fmt, rest) = args.split_first()?;
            super::printf::output(fmt, rest)
        }
        "pwd" => Some(st.cwd.clone().unwrap_or_else(|| ".".into())),
        "realpath" | "readlink" | "grealpath" | "greadlink" => {
            let operands: Vec<&str> = args
                .iter()
                .copied()
                .filter(|a| !a.starts_with('-'))
                .collect();
            if prog.ends_with("readlink") && !args.iter().any(|a| a.starts_with('-')) {
                return None;
            }
            let [one] = operands.as_slice() else {
                return None;
            };
            Some(absolute(one, st))
        }
        "dirname" => {
            let [one] = args else { return None };
            let abs = absolute(one, st);
            Some(match abs.rsplit_once('/') {
                Some(("", _)) => "/".into(),
                Some((dir, _)) => dir.into(),
                None => ".".into(),
            })
        }
        // The repository's top level holds the working directory.
        "git" if args.contains(&"--show-toplevel") => Some(".".into()),
        "cat" if args.is_empty() && !stdin.is_empty() => Some(stdin.join("")),
        "whoami" | "id" | "hostname" | "date" | "uname" => None,
        _ => None,
    }
}

/// `t` as a normalised absolute path (an expanded field's text: `~`, `.`, `..` or a path).
fn absolute(t: &str, st: &State) -> String {
    let joined = path::rooted(t, st).unwrap_or_else(|| match &st.cwd {
        Some(c) => format!("{c}/{t}"),
        None => t.to_string(),
    });
    if joined.starts_with('/') || joined.starts_with('~') {
        path::normalise(&joined)
    } else {
        joined
    }
}
