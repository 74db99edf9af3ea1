//! Interactive shells and REPLs started by an agent whose later keystrokes no hook sees: under
//! Codex, `exec_command {"cmd": "bash", "tty": true}` opens a terminal, and what the agent then
//! types into it with `write_stdin` fires no PreToolUse hook. So under Codex the guard refuses
//! to open one; a script, a `-c` command or input given up front is not interactive.

use super::normalize::base_name;
use super::shell;
use super::wrappers;

/// Shells and interpreters: interactive with no script operand and no code flag.
const SHELLS: &[&str] = &[
    "bash",
    "sh",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "fish",
    "tcsh",
    "csh",
    "ash",
    "busybox",
    "python",
    "python2",
    "python3",
    "ipython",
    "ipython3",
    "pypy",
    "pypy3",
    "node",
    "nodejs",
    "deno",
    "bun",
    "irb",
    "pry",
    "ruby",
    "perl",
    "php",
    "lua",
    "luajit",
    "R",
    "julia",
    "ghci",
    "scala",
    "jshell",
    "clojure",
    "sbcl",
    "guile",
    "tclsh",
    "wish",
    "erl",
    "iex",
    "ocaml",
    "powershell",
    "pwsh",
];
/// Clients interactive unless given a command or a file.
const CLIENTS: &[&str] = &[
    "psql",
    "mysql",
    "mariadb",
    "sqlite3",
    "mongo",
    "mongosh",
    "redis-cli",
    "ssh",
    "telnet",
    "ftp",
    "sftp",
    "nc",
    "ncat",
    "socat",
    "screen",
    "tmux",
    "vim",
    "vi",
    "nvim",
    "emacs",
    "nano",
    "less",
    "more",
    "top",
    "htop",
];
/// Flags that make an interpreter or client run given code or a file and exit.
const RUNS_GIVEN: &[&str] = &[
    "-c",
    "-e",
    "-m",
    "-p",
    "-f",
    "-E",
    "-x",
    "--command",
    "--eval",
    "--print",
    "--file",
    "--execute",
    "-execute",
    "run",
    "eval",
    "exec",
    "-r",
];
/// Flags that keep a session interactive after any script.
const STAYS_INTERACTIVE: &[&str] = &["-i", "--interactive", "repl"];

/// The interactive program `command` opens at its top level, if any.
pub fn bare_interactive(command: &str) -> Option<String> {
    for cmd in shell::parse(command).commands {
        if cmd.piped
            || !cmd.stdin_text.is_empty()
            || cmd.words.iter().any(|w| w.op && w.text.contains('<'))
        {
            continue;
        }
        let words = wrappers::strip(&cmd.words).words;
        let Some((first, rest)) = words.split_first() else {
            continue;
        };
        let prog = base_name(&first.text);
        let args: Vec<&str> = rest
            .iter()
            .filter(|w| !w.op)
            .map(|w| w.text.as_str())
            .collect();
        let flags_only = args.iter().all(|a| a.starts_with('-'));
        let gives_code = args.iter().any(|a| {
            RUNS_GIVEN.contains(a)
                || (a.starts_with('-')
                    && !a.starts_with("--")
                    && a.len() > 2
                    && a[1..].contains(['c', 'e']))
        });
        let stays = args.iter().any(|a| STAYS_INTERACTIVE.contains(a));
        let interactive = if SHELLS.contains(&prog) {
            stays || (flags_only && !gives_code)
        } else if CLIENTS.contains(&prog) {
            let operands = args.iter().filter(|a| !a.starts_with('-')).count();
            match prog {
                // `ssh host` opens a login shell; `ssh host cmd` runs cmd.
                "ssh" => operands <= 1 && !gives_code,
                "screen" | "tmux" => !args.iter().any(|a| {
                    matches!(
                        *a,
                        "ls" | "list-sessions" | "-ls" | "kill-server" | "kill-session"
                    )
                }),
                "redis-cli" => operands == 0,
                "psql" | "mysql" | "mariadb" | "sqlite3" | "mongo" | "mongosh" => {
                    operands <= 1 && !gives_code && !args.iter().any(|a| a.starts_with("-f"))
                }
                // Editors, pagers, terminals and network sessions read keystrokes whatever
                // their operands.
                _ => true,
            }
        } else {
            false
        };
        if interactive {
            return Some(prog.to_string());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bare_shells_and_repls_are_found() {
        for cmd in [
            "bash",
            "bash -i",
            "sh",
            "zsh -l",
            "python3",
            "python3 -i x.py",
            "node",
            "psql prod",
            "ssh host",
            "sudo bash",
            "irb",
            "sqlite3 app.db",
        ] {
            assert!(bare_interactive(cmd).is_some(), "{cmd}");
        }
        for cmd in [
            "bash -lc 'ls'",
            "bash script.sh",
            "python3 -m pytest",
            "python3 app.py",
            "node server.js",
            "psql -c 'select 1'",
            "psql -f q.sql db",
            "ssh host uptime",
            "python3 < x.py",
            "echo 1 | python3",
            "npm test",
            "redis-cli ping",
            "sqlite3 app.db 'select 1'",
            "cat <<EOF | sh\nls\nEOF",
        ] {
            assert!(bare_interactive(cmd).is_none(), "{cmd}");
        }
    }
}
