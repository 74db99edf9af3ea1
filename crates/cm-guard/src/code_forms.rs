//! Programs whose code hides in their own syntax: `find -exec CMD ;`, `parallel CMD ::: ARGS`,
//! `su -c CMD`, `runuser -u U -- CMD`, `git -c alias.x='...' x`, `git -c core.pager=CMD`,
//! `git submodule foreach CMD`, `git rebase --exec CMD`, `sed '1e CMD'` and `s/x/CMD/e`,
//! `sqlite3 DB SQL`, `deno eval CODE`, `nix-shell --run CMD`, `salt TARGET cmd.run CMD`. Each becomes the segments it
//! would run, through [`super::normalize`].

use super::expand::State;
use super::interpreters::Args;
use super::normalize::{Lang, Segment, code, shell_string};
use super::shell::Word;

pub fn expand(
    program: &str,
    a: &Args,
    args: &[Word],
    stdin: &[String],
    depth: usize,
    st: &State,
    out: &mut Vec<Segment>,
) {
    let words: Vec<&str> = args
        .iter()
        .filter(|w| !w.op)
        .map(|w| w.text.as_str())
        .collect();
    let sh = |s: &str, out: &mut Vec<Segment>| shell_string(s, depth, st, out);
    match program {
        "ansible" => a.code.iter().for_each(|c| sh(c, out)),
        "salt" | "salt-ssh" | "salt-call" => {
            // `salt TARGET cmd.run 'CMD'`: the command after the execution function.
            for (k, w) in words.iter().enumerate() {
                if matches!(
                    *w,
                    "cmd.run" | "cmd.shell" | "cmd.run_all" | "cmd.run_stdout"
                ) {
                    let cmd: Vec<&str> = words[k + 1..]
                        .iter()
                        .copied()
                        .filter(|x| !x.starts_with('-') && !x.contains('='))
                        .take(1)
                        .collect();
                    cmd.iter().for_each(|c| sh(c, out));
                }
            }
        }
        "vim" | "vi" | "nvim" | "ex" | "view" | "gvim" | "vimdiff" => {
            // `-c '!rm -rf ~'`, `+'!cmd'`, `--cmd ':!cmd'`: an Ex `!` runs a shell command.
            let plus = words.iter().filter_map(|w| w.strip_prefix('+'));
            for ex in a.code.iter().copied().chain(plus) {
                let ex = ex.trim_start_matches([':', ' ']);
                // `:silent !cmd`, `:sil! !cmd`: the modifier runs the same command quietly.
                let ex = ex
                    .strip_prefix("silent")
                    .or_else(|| ex.strip_prefix("sil"))
                    .map_or(ex, |r| r.trim_start_matches('!').trim_start());
                if let Some(cmd) = ex.strip_prefix('!') {
                    sh(cmd, out);
                } else if let Some(cmd) = ex.strip_prefix("call system(") {
                    sh(cmd.trim_end_matches(')').trim_matches(['\'', '"']), out);
                }
            }
        }
        "tar" | "gtar" | "bsdtar" => {
            for (k, w) in words.iter().enumerate() {
                let cmd = w
                    .strip_prefix("--checkpoint-action=exec=")
                    .or_else(|| w.strip_prefix("--to-command="))
                    .or_else(|| w.strip_prefix("--use-compress-program="))
                    .or_else(|| w.strip_prefix("--info-script="))
                    .or_else(|| w.strip_prefix("--new-volume-script="))
                    .or_else(|| (*w == "-I").then(|| words.get(k + 1).copied()).flatten());
                if let Some(cmd) = cmd {
                    sh(cmd, out);
                }
            }
        }
        "su" | "runuser" | "sg" | "script" | "nix-shell" => {
            if !a.code.is_empty() {
                a.code.iter().for_each(|c| sh(c, out));
                return;
            }
            // `runuser -u U -- CMD ARGS`, `sg GROUP CMD`: the command as words.
            let skip = usize::from(program == "sg");
            let rest: Vec<&str> = a
                .operands
                .iter()
                .skip(skip)
                .map(|w| w.text.as_str())
                .collect();
            if program != "script" && program != "nix-shell" && !rest.is_empty() {
                let direct = program == "runuser" && words.contains(&"--");
                if direct || program == "sg" {
                    sh(&rest.join(" "), out);
                }
            }
        }
        "find" => find_exec(&words, depth, st, out),
        "parallel" | "sem" => parallel(&words, stdin, depth, st, out),
        "git" => git(&words, depth, st, out),
        "sed" | "gsed" => sed(&words, depth, st, out),
        "deno" => {
            if words.first() == Some(&"eval")
                && let Some(c) = words[1..].iter().find(|w| !w.starts_with('-'))
            {
                code(Lang::Node, c, depth, st, out);
            }
        }
        "sqlite3" | "sqlite" | "duckdb" | "litecli" => {
            let mut sql: Vec<&str> = Vec::new();
            let mut operands = Vec::new();
            let mut k = 0;
            while k < words.len() {
                let w = words[k];
                if matches!(w, "-cmd" | "-c" | "-s") {
                    sql.extend(words.get(k + 1));
                    k += 2;
                    continue;
                }
                if matches!(w, "-init" | "-separator" | "-newline" | "-nullvalue") {
                    k += 2;
                    continue;
                }
                if !w.starts_with('-') {
                    operands.push(w);
                }
                k += 1;
            }
            sql.extend(operands.iter().skip(1));
            if sql.is_empty() {
                stdin
                    .iter()
                    .for_each(|s| code(Lang::Sql, s, depth, st, out));
            }
            sql.iter().for_each(|s| code(Lang::Sql, s, depth, st, out));
        }
        _ => {}
    }
}

/// `find ... -exec CMD {} ;` / `+`, `-execdir`, `-ok`, `-okdir`.
fn find_exec(words: &[&str], depth: usize, st: &State, out: &mut Vec<Segment>) {
    let mut k = 0;
    while k < words.len() {
        if matches!(words[k], "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = k + 1;
            let mut end = start;
            while end < words.len() && words[end] != ";" && words[end] != "+" {
                end += 1;
            }
            if start < end {
                let cmd = words[start..end].join(" ");
                shell_string(&cmd, depth, st, out);
                // With no test before the action, `{}` is each start path itself (and all
                // below it): `find ~ -exec rm -rf {} +` is `rm -rf ~`.
                let starts: Vec<&str> = words[..k]
                    .iter()
                    .copied()
                    .take_while(|w| !w.starts_with('-') && *w != "(" && *w != "!")
                    .collect();
                let tests = words[starts.len()..k]
                    .iter()
                    .any(|w| !FIND_GLOBAL.contains(w));
                if !tests && cmd.contains("{}") {
                    if starts.len() > 8 {
                        st.notes.cut(crate::limits::Limit::Inputs);
                    }
                    for p in starts.iter().take(8) {
                        shell_string(&cmd.replace("{}", p), depth, st, out);
                    }
                }
            }
            k = end;
        }
        k += 1;
    }
}

/// `find` options that select nothing (every file below the start paths still matches).
const FIND_GLOBAL: &[&str] = &[
    "-H",
    "-L",
    "-P",
    "-depth",
    "-xdev",
    "-mount",
    "-maxdepth",
    "-mindepth",
    "-follow",
    "-noleaf",
    "-ignore_readdir_race",
    "0",
    "1",
    "2",
    "3",
    "-d",
];

/// Options of `parallel` that take a value.
const PARALLEL_VALUES: &[&str] = &[
    "-j",
    "--jobs",
    "-S",
    "--sshlogin",
    "--joblog",
    "--results",
    "--delay",
    "--timeout",
    "-n",
    "--max-args",
    "-N",
    "--colsep",
    "-d",
    "--delimiter",
    "-a",
    "--arg-file",
    "-I",
    "--tmpdir",
    "--workdir",
    "--env",
    "--retries",
    "--halt",
    "--memfree",
    "--load",
];

/// `parallel CMD ::: A B`, `parallel 'CMD {}' ::: A`, `echo A | parallel CMD`: each command
/// it would run.
fn parallel(words: &[&str], stdin: &[String], depth: usize, st: &State, out: &mut Vec<Segment>) {
    let mut k = 0;
    while k < words.len() && words[k].starts_with('-') && !words[k].starts_with(":::") {
        k += if PARALLEL_VALUES.contains(&words[k]) {
            2
        } else {
            1
        };
    }
    let rest = &words[k.min(words.len())..];
    let split = rest
        .iter()
        .position(|w| w.starts_with(":::"))
        .unwrap_or(rest.len());
    let template = rest[..split].join(" ");
    let mut inputs: Vec<String> = rest[split..]
        .iter()
        .filter(|w| !w.starts_with(":::"))
        .map(|w| w.to_string())
        .collect();
    if split == rest.len() {
        inputs.extend(stdin.iter().flat_map(|s| s.lines().map(str::to_string)));
    }
    if template.is_empty() {
        // No command: each input is a command line.
        inputs.iter().for_each(|i| shell_string(i, depth, st, out));
        return;
    }
    if inputs.is_empty() {
        shell_string(&template, depth, st, out);
    }
    if inputs.len() > 16 {
        st.notes.cut(crate::limits::Limit::Inputs);
    }
    for input in inputs.iter().take(16) {
        let line = if template.contains("{}") {
            template.replace("{}", input)
        } else {
            format!("{template} {input}")
        };
        shell_string(&line, depth, st, out);
    }
}

/// Configuration keys whose value git runs as a shell command.
const GIT_COMMAND_KEYS: &[&str] = &[
    "core.pager",
    "core.editor",
    "core.sshcommand",
    "core.fsmonitor",
    "core.askpass",
    "sequence.editor",
    "diff.external",
    "gpg.program",
    "credential.helper",
];

/// `git -c KEY=VALUE ...`, aliases, and the subcommands that run commands.
fn git(words: &[&str], depth: usize, st: &State, out: &mut Vec<Segment>) {
    let mut aliases: Vec<(&str, &str)> = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let w = words[k];
        if w == "-c" {
            if let Some((key, value)) = words.get(k + 1).and_then(|kv| kv.split_once('=')) {
                let key_lower = key.to_ascii_lowercase();
                if let Some(name) = key_lower.strip_prefix("alias.") {
                    let name = &key[key.len() - name.len()..];
                    aliases.push((name, value));
                } else if GIT_COMMAND_KEYS.contains(&key_lower.as_str())
                    || key_lower.starts_with("pager.")
                    || key_lower.ends_with(".textconv")
                {
                    shell_string(value.trim_start_matches('!'), depth, st, out);
                }
            }
            k += 2;
            continue;
        }
        if matches!(
            w,
            "-C" | "--git-dir" | "--work-tree" | "--namespace" | "--config-env"
        ) {
            k += 2;
            continue;
        }
        if w.starts_with('-') {
            k += 1;
            continue;
        }
        break;
    }
    let Some(&sub) = words.get(k) else { return };
    let rest = &words[k + 1..];
    if let Some((_, value)) = aliases.iter().find(|(n, _)| *n == sub) {
        match value.strip_prefix('!') {
            Some(cmd) => shell_string(&format!("{cmd} {}", rest.join(" ")), depth, st, out),
            None => shell_string(&format!("git {value} {}", rest.join(" ")), depth, st, out),
        }
        return;
    }
    match sub {
        "submodule" if rest.contains(&"foreach") => {
            let at = rest.iter().position(|w| *w == "foreach").unwrap_or(0);
            let cmd: Vec<&str> = rest[at + 1..]
                .iter()
                .copied()
                .skip_while(|w| w.starts_with("--"))
                .collect();
            shell_string(&cmd.join(" "), depth, st, out);
        }
        "rebase" => {
            for (j, w) in rest.iter().enumerate() {
                if (*w == "-x" || *w == "--exec")
                    && let Some(cmd) = rest.get(j + 1)
                {
                    shell_string(cmd, depth, st, out);
                } else if let Some(cmd) = w.strip_prefix("--exec=") {
                    shell_string(cmd, depth, st, out);
                }
            }
        }
        "bisect" if rest.first() == Some(&"run") => {
            shell_string(&rest[1..].join(" "), depth, st, out);
        }
        _ => {}
    }
}

/// `sed`'s `e` command and the `e` flag of `s`, which run shell commands (GNU sed).
fn sed(words: &[&str], depth: usize, st: &State, out: &mut Vec<Segment>) {
    let mut scripts: Vec<&str> = Vec::new();
    let mut k = 0;
    let mut first_operand = None;
    while k < words.len() {
        let w = words[k];
        if w == "-e" || w == "--expression" {
            scripts.extend(words.get(k + 1));
            k += 2;
            continue;
        }
        if let Some(s) = w.strip_prefix("--expression=") {
            scripts.push(s);
        } else if w.starts_with('-') && w.len() > 1 {
            if w.ends_with('e') && !w.starts_with("--") && w.len() > 2 {
                scripts.extend(words.get(k + 1));
                k += 2;
                continue;
            }
            if w == "-f" || w == "--file" || w == "-l" {
                k += 1;
            }
        } else if first_operand.is_none() {
            first_operand = Some(w);
        }
        k += 1;
    }
    if scripts.is_empty() {
        scripts.extend(first_operand);
    }
    for script in scripts {
        for cmd in sed_commands(script) {
            shell_string(&cmd, depth, st, out);
        }
    }
}

/// The shell commands a sed script runs.
pub fn sed_commands(script: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in script.split(['\n', ';']) {
        let cmd = line
            .trim_start()
            .trim_start_matches(|c: char| c.is_ascii_digit() || "$,!~ +".contains(c));
        let cmd = match cmd.strip_prefix('/') {
            Some(rest) => rest.split_once('/').map_or("", |(_, r)| r).trim_start(),
            None => cmd,
        };
        if let Some(rest) = cmd.strip_prefix('e')
            && (rest.is_empty() || rest.starts_with(' '))
        {
            found.push(rest.trim().to_string());
        } else if let Some(rest) = cmd.strip_prefix('s')
            && let Some(delim) = rest.chars().next()
            && !delim.is_alphanumeric()
        {
            let pieces: Vec<&str> = rest[delim.len_utf8()..].splitn(3, delim).collect();
            if let [_, replacement, flags] = pieces.as_slice()
                && flags.contains('e')
            {
                found.push(replacement.to_string());
            }
        }
    }
    found.retain(|c| !c.is_empty());
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sed_runs_e_commands_and_the_e_flag() {
        assert_eq!(sed_commands("1e rm -rf ~"), vec!["rm -rf ~"]);
        assert_eq!(sed_commands("s/.*/rm -rf ~/e"), vec!["rm -rf ~"]);
        assert_eq!(
            sed_commands("/x/e git reset --hard"),
            vec!["git reset --hard"]
        );
        assert!(sed_commands("s/e/E/g").is_empty());
        assert!(sed_commands("1d; $e").is_empty());
        assert!(sed_commands("s/foo/bar/").is_empty());
    }
}
