//! Programs that run code they are handed: shells (`bash -c`, `eval`, `su -c`, `watch`, `ssh
//! host CMD`, `find -exec`), language interpreters (`python -c`, `node -e`, `perl -e`,
//! `ruby -e`) and database clients (`psql -c`, `mysql -e`, `sqlite3 db SQL`, `mongosh --eval`,
//! `redis-cli`). The code may arrive as an argument, a heredoc, a here-string or through a pipe
//! (`echo 'DROP TABLE t' | psql`); each becomes a segment in its language.

use super::normalize::{Lang, Segment, code, shell_string};
use super::shell::Word;

pub fn expand(
    program: &str,
    args: &[Word],
    stdin: &[String],
    depth: usize,
    out: &mut Vec<Segment>,
) {
    // Redirections and their targets are not arguments.
    let mut plain: Vec<&str> = Vec::with_capacity(args.len());
    let mut skip_next = false;
    for w in args {
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if w.op {
            skip_next = true;
            continue;
        }
        plain.push(w.text.as_str());
    }
    let args = plain;
    let args = args.as_slice();
    match program {
        "bash" | "sh" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish" | "rbash" => {
            match shell_script(args) {
                Script::Inline(s) => shell_string(s, depth, out),
                Script::File => {}
                Script::Stdin => stdin.iter().for_each(|s| shell_string(s, depth, out)),
            }
        }
        "eval" => shell_string(&args.join(" "), depth, out),
        "su" => {
            for v in values(args, &["-c"], &["--command"]) {
                shell_string(v, depth, out);
            }
        }
        "watch" => {
            let rest = skip_options(args, "nqd", &["--interval", "--differences"]);
            if !rest.is_empty() {
                shell_string(&rest.join(" "), depth, out);
            }
        }
        "ssh" => {
            let rest = skip_options(args, "BbcDEeFIiJLlmOopQRSWw", &[]);
            if rest.len() > 1 {
                shell_string(&rest[1..].join(" "), depth, out);
            }
        }
        "find" => {
            let mut i = 0;
            while i < args.len() {
                if matches!(args[i], "-exec" | "-execdir" | "-ok" | "-okdir") {
                    let start = i + 1;
                    let mut end = start;
                    while end < args.len() && args[end] != ";" && args[end] != "+" {
                        end += 1;
                    }
                    if start < end {
                        shell_string(&args[start..end].join(" "), depth, out);
                    }
                    i = end;
                }
                i += 1;
            }
        }
        "perl" | "ruby" => {
            let lang = if program == "perl" {
                Lang::Perl
            } else {
                Lang::Ruby
            };
            let mut codes = Vec::new();
            let mut i = 0;
            let mut script = false;
            while i < args.len() {
                let a = args[i];
                if a.starts_with('-') && a.len() > 1 && !a.starts_with("--") {
                    // `-e`, `-le`, `-ne`, `-E`: a cluster of letters ending in e takes the code.
                    let letters = a[1..].bytes().all(|b| b.is_ascii_alphabetic());
                    if letters && (a.ends_with('e') || a.ends_with('E')) {
                        if let Some(c) = args.get(i + 1) {
                            codes.push(*c);
                        }
                        i += 2;
                        continue;
                    }
                    i += 1;
                    continue;
                }
                if a != "-" {
                    script = true;
                }
                break;
            }
            if codes.is_empty() && !script {
                stdin.iter().for_each(|s| code(lang, s, depth, out));
            }
            codes.iter().for_each(|c| code(lang, c, depth, out));
        }
        _ => {
            if let Some(lang) = python_or_node(program) {
                inline_or_stdin(lang, program, args, stdin, depth, out);
            } else {
                database(program, args, stdin, depth, out);
            }
        }
    }
}

fn python_or_node(program: &str) -> Option<Lang> {
    let p = program.trim_end_matches(|c: char| c.is_ascii_digit() || c == '.');
    match p {
        "python" | "pypy" => Some(Lang::Python),
        "node" | "nodejs" | "bun" | "deno" => Some(Lang::Node),
        _ => None,
    }
}

fn inline_or_stdin(
    lang: Lang,
    program: &str,
    args: &[&str],
    stdin: &[String],
    depth: usize,
    out: &mut Vec<Segment>,
) {
    let (shorts, longs): (&[&str], &[&str]) = match lang {
        Lang::Python => (&["-c"], &[]),
        _ => (&["-e", "-p", "-pe"], &["--eval", "--print"]),
    };
    let mut inline: Vec<&str> = values(args, shorts, longs);
    if program == "deno" && args.first() == Some(&"eval") {
        inline.extend(
            args.get(1..)
                .unwrap_or(&[])
                .iter()
                .filter(|a| !a.starts_with('-'))
                .take(1),
        );
    }
    if !inline.is_empty() {
        inline.iter().for_each(|c| code(lang, c, depth, out));
        return;
    }
    let has_script = args.iter().any(|a| !a.starts_with('-'));
    if !has_script {
        stdin.iter().for_each(|s| code(lang, s, depth, out));
    }
}

fn database(program: &str, args: &[&str], stdin: &[String], depth: usize, out: &mut Vec<Segment>) {
    let sql: Vec<&str> = match program {
        "psql" => values(args, &["-c"], &["--command"]),
        "mysql" | "mariadb" => values(args, &["-e"], &["--execute"]),
        "clickhouse-client" | "clickhouse" => values(args, &["-q"], &["--query"]),
        "cockroach" => values(args, &["-e"], &["--execute"]),
        "duckdb" | "sqlite3" | "sqlite" => {
            let mut v = values(args, &["-cmd", "-c"], &[]);
            let positional: Vec<&str> = positional_after_options(
                args,
                &[
                    "-cmd",
                    "-c",
                    "-init",
                    "-separator",
                    "-newline",
                    "-nullvalue",
                    "-cmd",
                ],
            );
            v.extend(positional.iter().skip(1));
            v
        }
        "mongo" | "mongosh" => {
            for c in values(args, &[], &["--eval"]) {
                code(Lang::Node, c, depth, out);
            }
            if !args
                .iter()
                .any(|a| *a == "--eval" || a.starts_with("--eval=") || a.ends_with(".js"))
            {
                stdin.iter().for_each(|s| code(Lang::Node, s, depth, out));
            }
            return;
        }
        "redis-cli" => {
            for s in stdin {
                out.push(Segment {
                    lang: Lang::Shell,
                    program: "redis-cli".into(),
                    text: format!(
                        "redis-cli {}",
                        s.split_whitespace().collect::<Vec<_>>().join(" ")
                    ),
                });
            }
            return;
        }
        _ => return,
    };
    let from_stdin = sql.is_empty();
    sql.iter().for_each(|s| code(Lang::Sql, s, depth, out));
    if from_stdin {
        stdin.iter().for_each(|s| code(Lang::Sql, s, depth, out));
    }
}

enum Script<'a> {
    Inline(&'a str),
    File,
    Stdin,
}

/// How a shell gets its script: `-c STRING`, a file argument, or standard input.
fn shell_script<'a>(args: &[&'a str]) -> Script<'a> {
    let mut has_c = false;
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if a == "--" {
            i += 1;
            break;
        }
        if a.starts_with("--") {
            i += if matches!(a, "--rcfile" | "--init-file") {
                2
            } else {
                1
            };
            continue;
        }
        if (a.starts_with('-') || a.starts_with('+')) && a.len() > 1 {
            if a[1..].contains('c') {
                has_c = true;
            }
            // `-o pipefail` / `+O extglob` take a value.
            i += if a.ends_with('o') || a.ends_with('O') {
                2
            } else {
                1
            };
            continue;
        }
        break;
    }
    match args.get(i) {
        Some(s) if has_c => Script::Inline(s),
        Some(_) => Script::File,
        None => Script::Stdin,
    }
}

/// Values of the given flags: `-c VALUE`, `-cVALUE` (single-letter shorts), `--long VALUE`,
/// `--long=VALUE`.
fn values<'a>(args: &[&'a str], shorts: &[&str], longs: &[&str]) -> Vec<&'a str> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if shorts.contains(&a) || longs.contains(&a) {
            if let Some(val) = args.get(i + 1) {
                v.push(*val);
            }
            i += 2;
            continue;
        }
        if let Some(val) = longs
            .iter()
            .find_map(|l| a.strip_prefix(l).and_then(|r| r.strip_prefix('=')))
        {
            v.push(val);
        } else if let Some(val) = shorts
            .iter()
            .filter(|s| s.len() == 2)
            .find_map(|s| a.strip_prefix(*s).filter(|r| !r.is_empty()))
        {
            v.push(val);
        }
        i += 1;
    }
    v
}

/// Arguments after leading options (single-letter options with values listed in `short`).
fn skip_options<'a>(args: &[&'a str], short: &str, long: &[&str]) -> Vec<&'a str> {
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if a == "--" {
            i += 1;
            break;
        }
        if a.starts_with("--") {
            i += if long.contains(&a) { 2 } else { 1 };
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            let last = a.chars().last().unwrap_or(' ');
            i += if a.len() == 2 && short.contains(last) {
                2
            } else {
                1
            };
            continue;
        }
        break;
    }
    args.get(i..).unwrap_or(&[]).to_vec()
}

/// Non-option arguments, where `with_value` options consume the following word.
fn positional_after_options<'a>(args: &[&'a str], with_value: &[&str]) -> Vec<&'a str> {
    let mut v = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = args[i];
        if with_value.contains(&a) {
            i += 2;
            continue;
        }
        if a.starts_with('-') && a.len() > 1 {
            i += 1;
            continue;
        }
        v.push(a);
        i += 1;
    }
    v
}
