//! Programs that run code they are handed, as a table: shells (`bash -c`, `eval`, `su -c`,
//! `trap`, `watch`, `ssh host CMD`, `find -exec`, `parallel`), language interpreters (`python
//! -c`, `node -e`, `perl -e`, `php -r`, `lua -e`, `awk`, `sed`'s `e`) and database clients
//! (`psql -c`, `mysql -e`, `sqlite3 db SQL`, `mongosh --eval`, `redis-cli`). The code may
//! arrive in an option (also at the end of a cluster: `psql -tAc`, `perl -le`), as an operand,
//! in a file whose contents are known (`bash <(echo ...)`), a heredoc, a here-string or
//! through a pipe (`echo 'DROP TABLE t' | psql`); each becomes a segment in its language.
//!
//! The few programs whose code hides in their own syntax (`find -exec ... ;`, `parallel ...
//! ::: args`, `git -c alias.x=...`, `sed 's/x/cmd/e'`) have a function each in
//! [`super::code_forms`].

use super::code_forms;
use super::expand::State;
use super::normalize::{Lang, Segment, code, shell_script, shell_string};
use super::shell::Word;

/// How a program takes the code it runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Takes {
    /// A shell: `-c SCRIPT [NAME ARGS...]`, a script file operand, or standard input.
    Shell,
    /// The code option's value, or every operand joined, is a shell command line.
    Joined,
    /// The code option's value, or the first operand, is a shell command line (`trap`).
    First,
    /// Each operand is a shell command line (`hyperfine 'a' 'b'`).
    Each,
    /// After a host operand (`ssh HOST CMD...`), or standard input without one.
    Remote,
    /// Code in a language: the code option's value, else the first operand when
    /// `first_operand`, else standard input when there is no script operand.
    Code { lang: Lang, first_operand: bool },
    /// Its own syntax, read by a function of [`code_forms`].
    Special,
}

struct Interpreter {
    names: &'static [&'static str],
    takes: Takes,
    /// Option letters whose value is the code (at the end of a cluster too).
    code_short: &'static str,
    code_long: &'static [&'static str],
    /// Option letters and long options that take a (non-code) value.
    value_short: &'static str,
    value_long: &'static [&'static str],
}

const fn i(
    names: &'static [&'static str],
    takes: Takes,
    code_short: &'static str,
    code_long: &'static [&'static str],
    value_short: &'static str,
    value_long: &'static [&'static str],
) -> Interpreter {
    Interpreter {
        names,
        takes,
        code_short,
        code_long,
        value_short,
        value_long,
    }
}

const fn lang(l: Lang) -> Takes {
    Takes::Code {
        lang: l,
        first_operand: false,
    }
}

const SQL: Takes = lang(Lang::Sql);

static TABLE: &[Interpreter] = &[
    i(
        &[
            "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash", "fish", "rbash", "yash", "posh",
            "csh", "tcsh", "source", ".",
        ],
        Takes::Shell,
        "",
        &[],
        "oO",
        &["--rcfile", "--init-file"],
    ),
    i(&["eval"], Takes::Joined, "", &[], "", &[]),
    i(&["trap"], Takes::First, "", &[], "", &[]),
    i(
        &["su", "runuser", "sg"],
        Takes::Special,
        "c",
        &["--command", "--session-command"],
        "gGsuw",
        &[
            "--group",
            "--supp-group",
            "--shell",
            "--user",
            "--whitelist-environment",
        ],
    ),
    i(
        &["script"],
        Takes::Special,
        "c",
        &["--command"],
        "EIOTBm",
        &[
            "--echo",
            "--log-in",
            "--log-out",
            "--log-timing",
            "--log-io",
            "--logging-format",
        ],
    ),
    i(
        &["watch"],
        Takes::Joined,
        "",
        &[],
        "nqd",
        &["--interval", "--differences", "--errexit"],
    ),
    i(
        &["hyperfine"],
        Takes::Each,
        "",
        &[],
        "wrmMpcsSuLn",
        &[
            "--warmup",
            "--runs",
            "--min-runs",
            "--max-runs",
            "--prepare",
            "--cleanup",
            "--setup",
            "--shell",
            "--time-unit",
            "--parameter-scan",
            "--parameter-list",
            "--export-json",
            "--export-markdown",
            "--command-name",
            "--conclude",
        ],
    ),
    i(
        &["nix-shell"],
        Takes::Special,
        "",
        &["--run", "--command"],
        "pAIE",
        &["--packages", "--attr", "--arg", "--argstr", "--expr"],
    ),
    // Ansible's ad-hoc `-a` is the command the shell, command and raw modules run on the hosts
    // (for other modules it is `key=value` arguments, harmless read as a command line).
    i(
        &["ansible"],
        Takes::Special,
        "a",
        &["--args"],
        "imeflMtTBPuc",
        &[
            "--inventory",
            "--module-name",
            "--extra-vars",
            "--forks",
            "--limit",
            "--user",
            "--become-user",
            "--connection",
            "--private-key",
            "--vault-password-file",
            "--timeout",
            "--module-path",
            "--tree",
        ],
    ),
    // Parallel shells run their operands as one command line on every host they are given.
    i(
        &["parallel-ssh", "pssh", "pdsh", "clush"],
        Takes::Joined,
        "",
        &[],
        "hHlpoeOtxXwgRuf",
        &[
            "--hosts",
            "--host",
            "--user",
            "--par",
            "--outdir",
            "--errdir",
            "--option",
            "--timeout",
            "--extra-args",
            "--extra-arg",
            "--nodes",
            "--exclude",
            "--group",
        ],
    ),
    i(
        &["ssh"],
        Takes::Remote,
        "",
        &[],
        "BbcDEeFIiJLlmOopQRSWw",
        &[],
    ),
    // Editors run `!cmd` Ex commands given with -c/--cmd/+cmd; tar runs checkpoint actions,
    // `--to-command` and compress programs.
    i(
        &["vim", "vi", "nvim", "ex", "view", "gvim", "vimdiff"],
        Takes::Special,
        "c",
        &["--cmd"],
        "STuUiWwsq",
        &[],
    ),
    i(&["tar", "gtar", "bsdtar"], Takes::Special, "", &[], "", &[]),
    i(
        &["salt", "salt-ssh", "salt-call"],
        Takes::Special,
        "",
        &[],
        "",
        &[],
    ),
    i(
        &["find", "parallel", "sem", "git", "sed", "gsed", "entr"],
        Takes::Special,
        "",
        &[],
        "",
        &[],
    ),
    i(
        &["python", "python2", "python3", "pypy", "pypy3"],
        lang(Lang::Python),
        "c",
        &[],
        "WXQm",
        &[],
    ),
    i(
        &["node", "nodejs", "bun"],
        lang(Lang::Node),
        "ep",
        &["--eval", "--print"],
        "r",
        &["--require", "--import", "--loader"],
    ),
    i(&["deno"], Takes::Special, "", &[], "", &[]),
    i(&["perl"], lang(Lang::Perl), "eE", &[], "", &[]),
    i(&["ruby", "jruby"], lang(Lang::Ruby), "e", &[], "rIC", &[]),
    i(&["php"], lang(Lang::Php), "rR", &[], "cdz", &[]),
    i(
        &["lua", "luajit", "lua5.1", "lua5.3", "lua5.4"],
        lang(Lang::Lua),
        "e",
        &[],
        "l",
        &[],
    ),
    i(
        &["awk", "gawk", "mawk", "nawk", "busybox-awk"],
        Takes::Code {
            lang: Lang::Awk,
            first_operand: true,
        },
        "",
        &["--source"],
        "vFf",
        &["--assign", "--field-separator", "--file"],
    ),
    i(&["Rscript", "R"], lang(Lang::Python), "e", &[], "", &[]),
    i(
        &["psql"],
        SQL,
        "c",
        &["--command"],
        "dhpUfvoTFRPLLS",
        &[
            "--dbname",
            "--host",
            "--port",
            "--username",
            "--file",
            "--set",
            "--variable",
            "--output",
        ],
    ),
    i(
        &["mysql", "mariadb"],
        SQL,
        "e",
        &["--execute"],
        "hPuDSpO",
        &[
            "--host",
            "--port",
            "--user",
            "--database",
            "--socket",
            "--password",
        ],
    ),
    i(
        &["clickhouse-client", "clickhouse"],
        SQL,
        "q",
        &["--query"],
        "hdu",
        &["--host", "--database", "--user", "--password"],
    ),
    i(
        &["cockroach"],
        SQL,
        "e",
        &["--execute"],
        "",
        &["--url", "--database"],
    ),
    i(&["sqlcmd"], SQL, "Qq", &["--query"], "SdUPi", &[]),
    // Other SQL shells that take a statement in an option (Cassandra, Snowflake, Trino, Spark,
    // Hive, Impala, Vertica, a universal client, Cloudflare D1).
    i(
        &["cqlsh"],
        SQL,
        "e",
        &["--execute"],
        "ukf",
        &["--username", "--password", "--keyspace", "--file"],
    ),
    i(
        &["snowsql"],
        SQL,
        "q",
        &["--query"],
        "cadusrwf",
        &[
            "--connection",
            "--accountname",
            "--dbname",
            "--username",
            "--schemaname",
            "--rolename",
            "--warehouse",
            "--filename",
        ],
    ),
    i(
        &["trino", "presto", "trino-cli", "presto-cli"],
        SQL,
        "",
        &["--execute"],
        "f",
        &["--server", "--catalog", "--schema", "--user", "--file"],
    ),
    i(
        &["spark-sql", "hive", "beeline"],
        SQL,
        "e",
        &[],
        "funpd",
        &["--database", "--hiveconf", "--hivevar"],
    ),
    i(&["impala-shell"], SQL, "q", &["--query"], "idf", &[]),
    i(&["vsql", "usql"], SQL, "c", &["--command"], "hdUpwf", &[]),
    i(
        &["wrangler"],
        SQL,
        "",
        &["--command"],
        "c",
        &["--config", "--env"],
    ),
    i(
        &["sqlite3", "sqlite", "duckdb", "litecli"],
        Takes::Special,
        "",
        &[],
        "",
        &[],
    ),
    i(
        &["mongo", "mongosh"],
        lang(Lang::Node),
        "",
        &["--eval"],
        "uph",
        &["--host", "--port", "--username", "--password", "--file"],
    ),
];

fn find(program: &str) -> Option<&'static Interpreter> {
    TABLE.iter().find(|t| t.names.contains(&program))
}

/// What a command line's words give an interpreter: options read, code values, operands.
pub struct Args<'a> {
    pub code: Vec<&'a str>,
    pub operands: Vec<&'a Word>,
    /// `-c` was given without a value of its own (shells: the first operand is the script).
    pub flag_only: bool,
}

fn read_args<'a>(t: &Interpreter, args: &'a [Word]) -> Args<'a> {
    let mut out = Args {
        code: Vec::new(),
        operands: Vec::new(),
        flag_only: false,
    };
    let mut k = 0;
    let mut options = true;
    while k < args.len() {
        let w = &args[k];
        let a = w.text.as_str();
        k += 1;
        if w.op {
            // A redirection and its target are not arguments.
            k += 1;
            continue;
        }
        let plus_option = t.takes == Takes::Shell && a.starts_with('+') && a.len() > 1;
        if !options || a == "-" || (!a.starts_with('-') && !plus_option) {
            out.operands.push(w);
            // Options end at the first operand (the script, the host, the code); database
            // clients read options after the database name too.
            let anywhere = matches!(
                t.takes,
                Takes::Code {
                    lang: Lang::Sql,
                    ..
                } | Takes::Special
            ) || t.names[0] == "mongo";
            if !anywhere {
                options = false;
            }
            continue;
        }
        if a == "--" {
            options = false;
            continue;
        }
        if let Some(long) = a.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v)),
                None => (long, None),
            };
            let name_full = &a[..2 + name.len()];
            if t.code_long.contains(&name_full) {
                match value {
                    Some(v) => out.code.push(v),
                    None => {
                        if let Some(v) = args.get(k) {
                            out.code.push(&v.text);
                        }
                        k += 1;
                    }
                }
            } else if value.is_none() && t.value_long.contains(&name_full) {
                k += 1;
            }
            continue;
        }
        // A cluster (`-tAc`, `-le`, `-uroot`): the first letter that takes a value takes the
        // rest of the word, or the next word.
        let body = &a[1..];
        for (pos, c) in body.char_indices() {
            let rest = &body[pos + c.len_utf8()..];
            if t.code_short.contains(c) {
                if !rest.is_empty() {
                    out.code.push(rest);
                } else if let Some(v) = args.get(k).filter(|v| !v.op) {
                    if t.takes == Takes::Shell {
                        // `bash -c SCRIPT`: the script is the first operand.
                        out.flag_only = true;
                    } else {
                        out.code.push(&v.text);
                        k += 1;
                    }
                } else {
                    out.flag_only = true;
                }
                break;
            }
            if t.value_short.contains(c) {
                if rest.is_empty() && args.get(k).is_some_and(|v| !v.text.starts_with('-')) {
                    k += 1;
                }
                break;
            }
        }
        if t.takes == Takes::Shell && body.contains('c') {
            out.flag_only = true;
        }
    }
    out
}

pub fn expand(
    program: &str,
    args: &[Word],
    stdin: &[String],
    depth: usize,
    st: &State,
    out: &mut Vec<Segment>,
) {
    let Some(t) = find(program) else {
        if program == "redis-cli" {
            redis(stdin, out);
        } else if FILE_CLIENTS.contains(&program) {
            file_client(program, args, stdin, out);
        } else if program == "make" || program == "gmake" {
            make_recipes(args, stdin, depth, st, out);
        } else if (program == "at" || program == "batch")
            && !args
                .iter()
                .any(|w| !w.op && matches!(w.text.as_str(), "-f" | "-l" | "-r" | "-d" | "-c"))
        {
            // A job for later: `at` runs what it reads through a shell.
            stdin.iter().for_each(|s| shell_string(s, depth, st, out));
        }
        return;
    };
    let a = read_args(t, args);
    let sh = |s: &str, out: &mut Vec<Segment>| shell_string(s, depth, st, out);
    match t.takes {
        Takes::Shell => {
            if a.flag_only {
                if let Some((script, rest)) = a.operands.split_first() {
                    let positional: Vec<&str> = rest.iter().map(|w| w.text.as_str()).collect();
                    shell_script(&script.text, &positional, depth, st, out);
                }
            } else if let Some(script) = a.operands.first().filter(|w| {
                // `source /dev/stdin <<< CMD`: the script file is standard input.
                !matches!(
                    w.text.as_str(),
                    "-" | "/dev/stdin" | "/dev/fd/0" | "/proc/self/fd/0"
                )
            }) {
                // A script file: examined when its contents are known (`bash <(echo ...)`).
                if let Some(text) = &script.file {
                    sh(text, out);
                }
            } else {
                // No script, or `-` for one (`... | sh -`): the script is standard input.
                stdin.iter().for_each(|s| sh(s, out));
            }
        }
        Takes::Joined => {
            let joined = texts(&a.operands).join(" ");
            if !joined.is_empty() {
                sh(&joined, out);
            }
        }
        Takes::First => {
            if let Some(first) = a.operands.first() {
                sh(&first.text, out);
            }
        }
        Takes::Each => a.operands.iter().for_each(|w| sh(&w.text, out)),
        Takes::Remote => match a.operands.split_first() {
            Some((_, cmd)) if !cmd.is_empty() => {
                // `ssh HOST -- CMD`: options are read again after the host.
                let cmd = if cmd[0].text == "--" { &cmd[1..] } else { cmd };
                sh(&texts(cmd).join(" "), out)
            }
            _ => stdin.iter().for_each(|s| sh(s, out)),
        },
        Takes::Code {
            lang,
            first_operand,
        } => {
            let mut codes: Vec<&str> = a.code.clone();
            if codes.is_empty()
                && first_operand
                && let Some(first) = a.operands.first()
            {
                codes.push(&first.text);
            }
            if codes.is_empty() {
                // No inline code: a script file operand, or the code on standard input.
                // A database client's operand is the database, never a script.
                let script = a
                    .operands
                    .first()
                    .filter(|w| w.text != "-" && lang != Lang::Sql && t.names[0] != "mongo");
                match script.and_then(|w| w.file.as_deref()) {
                    Some(text) => code(lang, text, depth, st, out),
                    None if script.is_none() => {
                        stdin.iter().for_each(|s| code(lang, s, depth, st, out))
                    }
                    None => {}
                }
            }
            codes.iter().for_each(|c| code(lang, c, depth, st, out));
        }
        Takes::Special => code_forms::expand(program, &a, args, stdin, depth, st, out),
    }
}

fn texts<'a>(words: &[&'a Word]) -> Vec<&'a str> {
    words.iter().map(|w| w.text.as_str()).collect()
}

/// Clients of remote file servers that read their own commands (`rm`, `rmdir`, `del`) from a
/// batch file or standard input: `echo 'rm /upload/*' | sftp -b - host`.
/// (Also a DNS update client and a backup console, whose batches delete records and volumes.)
const FILE_CLIENTS: &[&str] = &[
    "sftp",
    "ftp",
    "lftp",
    "smbclient",
    "ncftp",
    "nsupdate",
    "bconsole",
];

/// `make -f /dev/stdin <<< $'x:\n\trm -rf ~'` (or `-f -`, `-f <(...)`): a makefile the line
/// spells out; its recipe lines (after a tab) are shell commands make runs.
fn make_recipes(args: &[Word], stdin: &[String], depth: usize, st: &State, out: &mut Vec<Segment>) {
    let mut texts: Vec<&str> = Vec::new();
    for (k, w) in args.iter().enumerate() {
        let file = match w.text.as_str() {
            "-f" | "--file" | "--makefile" => args.get(k + 1),
            _ => None,
        };
        match file {
            Some(f) if matches!(f.text.as_str(), "/dev/stdin" | "-") => {
                texts.extend(stdin.iter().map(String::as_str))
            }
            Some(f) => texts.extend(f.file.as_deref()),
            None => {}
        }
    }
    for t in texts {
        for line in t.lines().filter_map(|l| l.strip_prefix('\t')) {
            shell_string(line.trim_start_matches(['@', '-', '+']), depth, st, out);
        }
    }
}

/// The client's batch commands as one segment of the client (`sftp rm /upload/* ; quit`), for
/// the remote pack's rules; the batch comes from standard input or a file whose contents are
/// known (`sftp -b <(printf ...)`).
fn file_client(program: &str, args: &[Word], stdin: &[String], out: &mut Vec<Segment>) {
    let batches = stdin
        .iter()
        .map(String::as_str)
        .chain(args.iter().filter_map(|w| w.file.as_deref()));
    for b in batches {
        let cmds: Vec<String> = b
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|l| !l.is_empty())
            .collect();
        out.push(Segment {
            lang: Lang::Shell,
            program: program.into(),
            text: format!("{program} {}", cmds.join(" ; ")),
        });
    }
}

fn redis(stdin: &[String], out: &mut Vec<Segment>) {
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
}
