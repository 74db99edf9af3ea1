//! Command normalisation: from one command line to the list of things that would really run.
//!
//! Each simple command becomes a shell [`Segment`] whose text starts with the program actually
//! executed: wrappers (`sudo`, `env VAR=x`, `nohup`, `time`, `nice`, `xargs`, ...) are stripped,
//! `/usr/bin/rm` becomes `rm`, quoting is resolved and words are re-joined with single spaces
//! (a word holding spaces or shell metacharacters is re-quoted, so text that was one quoted
//! argument can never look like a command of its own). Code handed to another interpreter
//! becomes more segments: `bash -c` / `eval` / heredocs fed to a shell are parsed again;
//! `python -c`, `node -e`, `perl -e`, `ruby -e`, SQL given to `psql`/`mysql`/`sqlite3` (by flag,
//! heredoc, here-string or pipe) become segments in that language, and shell strings found in
//! that code (`os.system("...")`, `execSync('...')`, backticks) are parsed as shell again.

use super::expand::{self, Context, State};
use super::limits::{Limit, Notes};
use super::opaque;
use super::shell::{self, Command, Word};
use super::wrappers;

pub use super::lang::Lang;

/// One thing that would run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Segment {
    /// The language its text is in.
    pub lang: Lang,
    /// Shell: the program's base name. Other languages: empty.
    pub program: String,
    /// The text that would run, normalised.
    pub text: String,
}

/// Nesting limit for `bash -c "bash -c ..."` and code within code. Deeper is noted as a cut.
const MAX_DEPTH: usize = 6;
/// A command line that expands into more segments than this is cut short (the rest is not
/// examined, and the cut noted); nothing legitimate comes close.
const MAX_SEGMENTS: usize = 4096;

/// A command line read: its segments, and what could not be examined ([`Notes`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Analysis {
    /// What would run, in order.
    pub segments: Vec<Segment>,
    /// What could not be examined, and why.
    pub notes: Notes,
}

/// Normalise a command line into segments, in order of appearance, knowing nothing of where
/// it runs (`~` stays `~`, `$(pwd)` is `.`).
pub fn segments(command: &str) -> Vec<Segment> {
    segments_at(command, &Context::default())
}

/// Normalise a command line run with the home and working directory of `ctx`.
pub fn segments_at(command: &str, ctx: &Context) -> Vec<Segment> {
    analyse_at(command, ctx).segments
}

/// Normalise a command line, noting every bound reached and every computed program name.
pub fn analyse_at(command: &str, ctx: &Context) -> Analysis {
    let mut out = Vec::new();
    let mut st = State::new(ctx);
    walk_shell(command, 0, &mut st, &mut out);
    Analysis {
        segments: out,
        notes: st.notes.take(),
    }
}

/// Is there room for one more segment at `depth`? Notes the bound when there is not.
fn room(depth: usize, st: &State, out: &[Segment]) -> bool {
    if depth > MAX_DEPTH {
        st.notes.cut(Limit::Nesting);
        return false;
    }
    if out.len() >= MAX_SEGMENTS {
        st.notes.cut(Limit::Segments);
        return false;
    }
    true
}

fn walk_shell(src: &str, depth: usize, st: &mut State, out: &mut Vec<Segment>) {
    if !room(depth, st, out) {
        return;
    }
    out.push(Segment {
        lang: Lang::Line,
        program: String::new(),
        text: shell::blank_quoted(src),
    });
    let parsed = shell::parse(src);
    let mut produced: Option<String> = None;
    // The previous pipeline stage: its program, and whether it decoded something the guard
    // could not (its output is code nobody can read here).
    let mut before: Option<String> = None;
    let mut undecoded = false;
    for cmd in &parsed.commands {
        let expanded = expand::expand_command(&cmd.words, st);
        let producer = if cmd.piped { produced.take() } else { None };
        let from = if cmd.piped { before.take() } else { None };
        let from_undecoded = cmd.piped && undecoded;
        produced = None;
        before = None;
        undecoded = false;
        let mut seen: Vec<&Vec<Word>> = Vec::new();
        for world in &expanded.worlds {
            if seen.contains(&world) || !room(depth, st, out) {
                continue;
            }
            seen.push(world);
            let one = Command {
                words: world.clone(),
                stdin_text: cmd.stdin_text.clone(),
                piped: cmd.piped,
            };
            let run = wrappers::strip(&one.words).words;
            if cmd.piped && producer.is_none() && opaque::runs_stdin(&run) {
                let kind = if from_undecoded {
                    Some("decoded-to-shell")
                } else if from.as_deref().is_some_and(opaque::is_downloader) {
                    Some("download-to-shell")
                } else {
                    None
                };
                if let Some(kind) = kind {
                    out.push(opaque::mark(kind, src));
                }
            }
            opaque_arguments(&run, src, depth, st, out);
            if before.is_none() {
                before = run.first().map(|w| base_name(&w.text).to_string());
            }
            if produced.is_none() {
                let input = producer
                    .clone()
                    .or_else(|| (!one.stdin_text.is_empty()).then(|| one.stdin_text.join("\n")));
                match input.as_deref().map(|i| opaque::decode(&run, i)) {
                    Some(Some(decoded)) => {
                        undecoded |= decoded.is_none();
                        produced = decoded;
                    }
                    // A decoder with no visible input (`base64 -d blob`, `curl .. | base64 -d`).
                    None if opaque::decode(&run, "").is_some() => undecoded = true,
                    _ => produced = produced_text(&one),
                }
            }
            // A filter between a decoder and the shell (`base64 -d | gunzip | sh`) passes the
            // decoded code on, still unread.
            if (from_undecoded || producer.is_some()) && opaque::passes_code_on(&run) {
                undecoded = true;
            }
            walk_command(&one, producer.clone(), depth, st, out);
        }
    }
    for sub in &parsed.substitutions {
        let mut inner = st.clone();
        walk_shell(sub, depth + 1, &mut inner, out);
    }
}

/// `eval`, `source` or a shell given the output of another command as its code (`eval "$(tool
/// init)"`, `bash <(curl URL)`, `bash -c "$(curl URL)"`): output that can be worked out (a
/// decoded literal) is read as code; any other is judged by what produces it ([`opaque`]).
fn opaque_arguments(words: &[Word], src: &str, depth: usize, st: &State, out: &mut Vec<Segment>) {
    let Some(first) = words.first() else { return };
    if !opaque::evaluates_arguments(base_name(&first.text)) {
        return;
    }
    for w in words[1..].iter().filter(|w| !w.op && w.file.is_none()) {
        let Some(inner) = opaque::substituted(w) else {
            continue;
        };
        if let Some(code) = static_output(inner) {
            shell_string(&code, depth + 1, st, out);
        } else if let Some(kind) = opaque::kind_of_output(inner) {
            out.push(opaque::mark(kind, src));
        }
    }
}

/// The output of a pipeline whose first stage writes plain text and whose later stages decode
/// it (`echo cm0g... | base64 -d`), when it can be worked out.
fn static_output(src: &str) -> Option<String> {
    let parsed = shell::parse(src);
    let mut text: Option<String> = None;
    for (i, cmd) in parsed.commands.iter().enumerate() {
        if i > 0 && !cmd.piped {
            return None;
        }
        let run = wrappers::strip(&cmd.words).words;
        text = match text {
            None if i == 0 => produced_text(cmd),
            Some(input) => opaque::decode(&run, &input)??.into(),
            None => return None,
        };
        text.as_ref()?;
    }
    // Plain `echo` output is already known to the expansion; only decoded text is new here.
    (parsed.commands.len() > 1).then_some(text).flatten()
}

/// What a pipeline stage writes that is plainly visible: `echo`/`printf` arguments, or a
/// heredoc given to `cat`.
fn produced_text(cmd: &Command) -> Option<String> {
    let words = wrappers::strip(&cmd.words).words;
    let prog = words.first().map(|w| base_name(&w.text))?;
    match prog {
        "echo" | "printf" => {
            let all: Vec<&str> = words[1..]
                .iter()
                .filter(|w| !w.op)
                .map(|w| w.text.as_str())
                .collect();
            let flags = all
                .iter()
                .take_while(|a| a.starts_with('-') && a.len() > 1)
                .count();
            let args = &all[flags..];
            if prog == "echo" && all[..flags].iter().any(|f| f.contains('e')) {
                // `echo -e '\x72\x6d'` writes what the escapes stand for.
                return super::expand::printf::output("%b", &[&args.join(" ")]);
            }
            if prog == "printf" {
                // What printf writes (`printf '\x72\x6d -rf ~'`, `printf '%s' ARGS`); with a
                // format it cannot work out, its arguments stand for its output.
                let (fmt, rest) = args.split_first()?;
                return super::expand::printf::output(fmt, rest).or_else(|| Some(rest.join(" ")));
            }
            Some(args.join(" "))
        }
        "cat" if !cmd.stdin_text.is_empty() => Some(cmd.stdin_text.join("\n")),
        "find" => find_prints(&words[1..]),
        "ls" => ls_prints(&words[1..]),
        _ => None,
    }
}

/// What `find` prints when no test selects among the files (`find ~ -mindepth 1 -print0`):
/// everything under its start paths, which stand for it (`... | xargs rm -rf` deletes them).
fn find_prints(args: &[Word]) -> Option<String> {
    let args = word_texts(args);
    let mut starts: Vec<&str> = Vec::new();
    let mut k = 0;
    while k < args.len() {
        let a = args[k];
        match a {
            "-H" | "-L" | "-P" if starts.is_empty() => {}
            "-mindepth" | "-maxdepth" => k += 1,
            "-print"
            | "-print0"
            | "-depth"
            | "-xdev"
            | "-mount"
            | "-follow"
            | "-noleaf"
            | "-ignore_readdir_race" => {}
            _ if a.starts_with('-') || a == "(" || a == "!" => return None,
            _ => starts.push(a),
        }
        k += 1;
    }
    (!starts.is_empty()).then(|| starts.join(" "))
}

/// The texts of the words that are not operators.
fn word_texts(words: &[Word]) -> Vec<&str> {
    words
        .iter()
        .filter(|w| !w.op)
        .map(|w| w.text.as_str())
        .collect()
}

/// What `ls -d PATHS` prints: the paths themselves (`ls -d ~/*/ | xargs rm -rf` deletes
/// them). Without `-d` it prints the names inside directories, relative to them: unknown.
fn ls_prints(args: &[Word]) -> Option<String> {
    let args = word_texts(args);
    let (flags, paths): (Vec<&str>, Vec<&str>) =
        args.iter().partition(|a| a.starts_with('-') && a.len() > 1);
    let directory = flags
        .iter()
        .any(|f| *f == "--directory" || (!f.starts_with("--") && f.contains('d')));
    (directory && !paths.is_empty()).then(|| paths.join(" "))
}

/// A command run inside a container or pod (`kubectl exec POD -- rm -rf /app/storage`) is
/// judged as the command it runs, and also whole: there no path is the agent's own checkout,
/// so the remote pack asks about deletions that would pass on the agent's machine.
fn container_exec(cmd: &Command, kept: usize, out: &mut Vec<Segment>) {
    let Some(first) = cmd.words.first() else {
        return;
    };
    let program = base_name(&first.text);
    if kept < cmd.words.len()
        && kept > 0
        && matches!(program, "docker" | "podman" | "kubectl" | "oc" | "nerdctl")
    {
        out.push(Segment {
            lang: Lang::Shell,
            program: program.to_string(),
            text: join(program, &cmd.words[1..]),
        });
    }
}

fn walk_command(
    cmd: &Command,
    producer: Option<String>,
    depth: usize,
    st: &State,
    out: &mut Vec<Segment>,
) {
    let stripped = wrappers::strip(&cmd.words);
    for inner in &stripped.inner_shell {
        shell_string(inner, depth, st, out);
    }
    container_exec(cmd, stripped.words.len(), out);
    let words = stripped.words;
    let Some(first) = words.first() else {
        // Only redirections (`> /etc/passwd`, `exec 3>/dev/sda`): they still write.
        if cmd.words.iter().any(|w| w.op) {
            let mut text = String::new();
            for w in &cmd.words {
                if !text.is_empty() {
                    text.push(' ');
                }
                push_word(&mut text, &w.text, w.op);
            }
            out.push(Segment {
                lang: Lang::Shell,
                program: String::new(),
                text,
            });
        }
        return;
    };
    let program = base_name(&first.text).to_string();
    if is_computed(first) {
        // What runs is decided at run time (`$a$b`, `$(rev <<< mr)`): judged by the rest.
        let mut args = String::new();
        for w in &words[1..] {
            if !args.is_empty() {
                args.push(' ');
            }
            push_word(&mut args, &w.text, w.op);
        }
        // A command word that is a substitution whose output can be worked out (`$(echo
        // cm0g... | base64 -d)`, `$(echo 'fr- mr' | rev) ~`) is read as that command.
        if let Some(code) = opaque::substituted(first).and_then(static_output) {
            let mut line = code.trim().to_string();
            if !args.is_empty() {
                line.push(' ');
                line.push_str(&args);
            }
            shell_string(&line, depth + 1, st, out);
        }
        st.notes.computed(&first.text, args);
    }
    let mut text = if program == "git" {
        super::git_options::canonical(&words)
    } else {
        join(&program, &words[1..])
    };
    for extra in env_args(&program, &cmd.words, st) {
        text.push(' ');
        text.push_str(&extra);
    }
    out.push(Segment {
        lang: Lang::Shell,
        program: program.clone(),
        text,
    });
    // Text fed to the program's standard input.
    let mut stdin: Vec<String> = cmd.stdin_text.clone();
    if let Some(p) = producer {
        stdin.push(p);
    }
    if let Some(replace) = &stripped.fed_by_xargs {
        // `echo / | xargs rm -rf`: the command with its input as arguments.
        if stdin.len() > 4 || stdin.iter().any(|i| i.split_whitespace().nth(64).is_some()) {
            st.notes.cut(Limit::Inputs);
        }
        for input in stdin.iter().take(4) {
            let line = fed_command(&words, replace.as_deref(), input);
            shell_string(&line, depth, st, out);
        }
        return;
    }
    let args = &words[1..];
    super::interpreters::expand(&program, args, &stdin, depth, st, out);
}

/// Variables that add arguments to a program's command line (`TF_CLI_ARGS=-destroy terraform
/// apply` is `terraform apply -destroy`): (program, variable name, or a prefix ending in `_`).
const ENV_ARGS: &[(&str, &str)] = &[
    ("terraform", "TF_CLI_ARGS"),
    ("terraform", "TF_CLI_ARGS_"),
    ("tofu", "TF_CLI_ARGS"),
    ("tofu", "TF_CLI_ARGS_"),
];

/// The arguments such variables add: set before the command or earlier in the line.
fn env_args(program: &str, words: &[Word], st: &State) -> Vec<String> {
    let mut found = Vec::new();
    for (_, var) in ENV_ARGS.iter().filter(|(p, _)| *p == program) {
        let takes = |name: &str| {
            name == *var || (var.ends_with('_') && name.starts_with(var) && name.len() > var.len())
        };
        for w in words {
            if let Some((name, value)) = w.text.split_once('=')
                && takes(name)
            {
                found.push(value.to_string());
            }
        }
        if !var.ends_with('_')
            && let expand::Value::Known(v) = st.get(var)
            && let Some(t) = v.first()
        {
            found.push(expand::word::plain(t));
        }
    }
    found.retain(|v| !v.is_empty());
    found
}

/// The command `xargs` builds from `words` and its input (`-I STR` replaces `STR`).
fn fed_command(words: &[Word], replace: Option<&str>, input: &str) -> String {
    let items: Vec<&str> = input.split_whitespace().take(64).collect();
    let mut line = String::new();
    let mut replaced = false;
    for w in words {
        if !line.is_empty() {
            line.push(' ');
        }
        match replace.filter(|r| w.text.contains(*r)) {
            Some(r) => {
                replaced = true;
                push_word(
                    &mut line,
                    &w.text.replace(r, items.first().copied().unwrap_or("")),
                    w.op,
                );
            }
            None => push_word(&mut line, &w.text, w.op),
        }
    }
    if !replaced {
        for i in items {
            line.push(' ');
            push_word(&mut line, i, false);
        }
    }
    line
}

/// Recurse into a shell string found somewhere (used by the interpreter module): a shell of
/// its own, seeing the variables set so far.
pub(super) fn shell_string(src: &str, depth: usize, st: &State, out: &mut Vec<Segment>) {
    let mut inner = st.child(None);
    walk_shell(src, depth + 1, &mut inner, out);
}

/// `bash -c SCRIPT NAME ARGS...`: the script with its positional parameters.
pub(super) fn shell_script(
    src: &str,
    positional: &[&str],
    depth: usize,
    st: &State,
    out: &mut Vec<Segment>,
) {
    let mut p: Vec<expand::word::Text> = Vec::with_capacity(positional.len() + 1);
    if positional.is_empty() {
        p.push(expand::word::text("bash", 0));
    }
    p.extend(positional.iter().map(|a| expand::word::text(a, 0)));
    let mut inner = st.child(Some(p));
    walk_shell(src, depth + 1, &mut inner, out);
}

pub(super) fn code(lang: Lang, text: &str, depth: usize, st: &State, out: &mut Vec<Segment>) {
    if text.trim().is_empty() || !room(depth, st, out) {
        return;
    }
    out.push(Segment {
        lang,
        program: String::new(),
        text: if lang == Lang::Sql {
            super::sql_text::clean(text)
        } else {
            text.to_string()
        },
    });
    if let Some(resolved) = super::code_shell::unaliased(lang, text) {
        code(lang, &resolved, depth + 1, st, out);
        return;
    }
    if lang != Lang::Sql {
        for s in super::code_shell::shell_strings(lang, text) {
            shell_string(&s, depth, st, out);
        }
    }
}

/// A program word whose text the shell computes and the guard could not: an expansion kept as
/// written, or a glob (`/bin/r?`).
fn is_computed(w: &Word) -> bool {
    w.text != "[" && w.text != "[[" && w.text.contains(['$', '`', '*', '?', '['])
}

/// `/usr/bin/rm` -> `rm`; a Windows-style `git.exe` (Git Bash, WSL calling Windows tools) is
/// `git`.
pub fn base_name(program: &str) -> &str {
    let base = program.rsplit('/').next().unwrap_or(program);
    match base.len().checked_sub(4) {
        Some(cut)
            if cut > 0
                && base.is_char_boundary(cut)
                && base[cut..].eq_ignore_ascii_case(".exe") =>
        {
            &base[..cut]
        }
        _ => base,
    }
}

/// Words joined by single spaces; a word that holds whitespace or shell metacharacters is
/// single-quoted so it stays one visible word.
fn join(program: &str, args: &[Word]) -> String {
    let mut s =
        String::with_capacity(program.len() + args.iter().map(|w| w.text.len() + 3).sum::<usize>());
    push_word(&mut s, program, false);
    for w in args {
        s.push(' ');
        push_word(&mut s, &w.text, w.op);
    }
    s
}

pub(super) fn push_word(s: &mut String, text: &str, op: bool) {
    if !op && needs_quotes(text) {
        s.push('\'');
        s.push_str(&text.replace('\'', "'\\''"));
        s.push('\'');
    } else {
        s.push_str(text);
    }
}

fn needs_quotes(t: &str) -> bool {
    t.is_empty()
        || t.bytes().any(|b| {
            matches!(
                b,
                b' ' | b'\t'
                    | b'\n'
                    | b'\r'
                    | b';'
                    | b'&'
                    | b'|'
                    | b'<'
                    | b'>'
                    | b'\''
                    | b'"'
                    | b'`'
                    | b'('
                    | b')'
            )
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shell_texts(cmd: &str) -> Vec<String> {
        segments(cmd)
            .into_iter()
            .filter(|s| s.lang == Lang::Shell)
            .map(|s| s.text)
            .collect()
    }

    #[test]
    fn wrappers_and_paths_are_stripped() {
        assert_eq!(
            shell_texts("sudo -u root env FOO=1 nohup nice -n 5 /usr/bin/rm -rf /"),
            vec!["rm -rf /"]
        );
        assert_eq!(shell_texts("time command \\rm -rf ~"), vec!["rm -rf ~"]);
        // `find` with no test prints everything under its start path, which xargs deletes.
        assert_eq!(
            shell_texts("find . | xargs -0 rm -rf"),
            vec!["find .", "rm -rf", "rm -rf ."]
        );
        assert_eq!(
            shell_texts("find . -name '*.pyc' | xargs rm"),
            vec!["find . -name *.pyc", "rm"]
        );
    }

    #[test]
    fn quoted_mentions_stay_arguments() {
        assert_eq!(
            shell_texts(r#"git commit -m "stop running rm -rf / please""#),
            vec!["git commit -m 'stop running rm -rf / please'"]
        );
    }

    #[test]
    fn nested_shells_and_eval_are_opened() {
        assert_eq!(
            shell_texts(r#"bash -c "cd /x && git reset --hard""#),
            vec![
                "bash -c 'cd /x && git reset --hard'",
                "cd /x",
                "git reset --hard"
            ]
        );
        assert!(shell_texts("eval 'rm -rf ~'").contains(&"rm -rf ~".to_string()));
        assert!(shell_texts("sh <<EOF\nrm -rf /\nEOF").contains(&"rm -rf /".to_string()));
        assert!(shell_texts("echo 'rm -rf /' | sh").contains(&"rm -rf /".to_string()));
    }

    #[test]
    fn interpreter_code_becomes_code_segments() {
        let segs = segments(r#"python3 -c "import os; os.system('rm -rf ~')""#);
        assert!(
            segs.iter()
                .any(|s| s.lang == Lang::Python && s.text.contains("os.system"))
        );
        assert!(
            segs.iter()
                .any(|s| s.lang == Lang::Shell && s.text == "rm -rf ~")
        );
        let segs = segments("psql -c 'DROP DATABASE prod'");
        assert!(
            segs.iter()
                .any(|s| s.lang == Lang::Sql && s.text == "DROP DATABASE prod")
        );
        let segs = segments("echo 'DROP TABLE users;' | mysql app");
        assert!(
            segs.iter()
                .any(|s| s.lang == Lang::Sql && s.text == "DROP TABLE users;")
        );
    }
}
