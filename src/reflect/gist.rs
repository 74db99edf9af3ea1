//! The gist of a shell command line and of a failure's output, as a rule quotes them: the step
//! that does the work (`go test -tags integration`), not the line that happened to run
//! (`cd x && go test -tags integration -count=1 ./... -v 2>&1 | tail -12`); the error message,
//! not the agent's wrapper ("Exit code 2") or a literal that held once (a temp path, a hash).

/// Programs run through another one: the program that matters comes after them.
const WRAPPERS: &[&[&str]] = &[
    &["uv", "run"],
    &["poetry", "run"],
    &["pipenv", "run"],
    &["bundle", "exec"],
    &["pnpm", "exec"],
    &["npm", "exec"],
    &["yarn", "run"],
    &["python", "-m"],
    &["python3", "-m"],
    &["npx"],
    &["bunx"],
    &["pnpm", "dlx"],
    &["dart", "run"],
    &["dart", "pub", "run"],
    &["flutter", "pub", "run"],
    &["sudo"],
    &["time"],
    &["env"],
    &["fvm"],
    &["nohup"],
];

/// Commands that only look around: they change nothing, so they are never the fix.
const LOOKING: &[&str] = &[
    "which", "type", "env", "printenv", "echo", "cat", "ls", "grep", "rg", "find", "head", "tail",
    "pwd", "wc", "less", "file", "stat", "uname", "id", "whoami", "date", "ps", "df", "du", "cd",
    "sed", "awk", "jq", "sleep", "true", "false", "test", "[", "diff", "tree", "curl", "open",
    "printf", "xxd", "sort", "uniq", "cut", "tr",
];

/// Subcommands that only look, per program.
const LOOKING_SUB: &[(&str, &[&str])] = &[
    (
        "git",
        &[
            "status",
            "log",
            "diff",
            "show",
            "branch",
            "rev-parse",
            "remote",
            "blame",
            "grep",
        ],
    ),
    ("docker", &["ps", "logs", "inspect", "images", "image"]),
    ("kubectl", &["get", "describe", "logs", "top", "explain"]),
    ("helm", &["list", "status", "get", "history"]),
    ("gh", &["run", "pr", "issue"]),
    ("xcrun", &["simctl"]),
    ("aws", &["sts"]),
    ("alembic", &["current", "heads", "history", "show"]),
    ("cargo", &["tree", "metadata"]),
];

/// Flags that only shape the output or defeat a cache: they are not what made a step pass.
const NOISE: &[&str] = &[
    "-q",
    "-qq",
    "--quiet",
    "-v",
    "-vv",
    "--verbose",
    "-count=1",
    "-no-color",
    "--no-color",
    "-input=false",
    "--no-browser",
    "-s",
    "--silent",
    "-lock=false",
    "--reporter=dot",
];

/// Words of a command line, quotes kept together (`-destination 'platform=iOS, name=X'`).
pub fn words(command: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in command.chars() {
        match quote {
            Some(q) if c == q => {
                quote = None;
                cur.push(c);
            }
            Some(_) => cur.push(c),
            None if c == '\'' || c == '"' => {
                quote = Some(c);
                cur.push(c);
            }
            None if c.is_whitespace() => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            None if c == ';' => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
                out.push(";".into());
            }
            None => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The command a remote or a nested shell runs: `ssh lab 'cd x && GKSwstype=100 julia ...'`
/// and `bash -lc "nix build ..."` run what they quote, and that is what a rule names.
pub fn unwrapped(command: &str) -> Option<String> {
    let w = words(command);
    let quoted = |x: &str| {
        let q = x.chars().next()?;
        (x.len() >= 2 && (q == '\'' || q == '"') && x.ends_with(q))
            .then(|| x[1..x.len() - 1].to_string())
    };
    match w.first().map(String::as_str) {
        Some("ssh") => {
            // Options with a value (`-p 22`, `-i key`) and the host come first.
            let mut i = 1;
            while w.get(i).is_some_and(|x| x.starts_with('-')) {
                let takes_value = ["-p", "-i", "-l", "-o", "-J", "-F"].contains(&w[i].as_str());
                i += if takes_value { 2 } else { 1 };
            }
            let rest = w.get(i + 1..)?;
            match rest {
                [one] => quoted(one).or_else(|| Some(one.clone())),
                [] => None,
                more => Some(more.join(" ")),
            }
        }
        Some(sh) if ["sh", "bash", "zsh"].contains(&sh) => match w.get(1..) {
            Some([flag, script]) if flag.starts_with('-') && flag.ends_with('c') => quoted(script),
            _ => None,
        },
        _ => None,
    }
}

/// The steps of a command line (split at `&&`, `||`, `;`), each without what a pipe feeds its
/// output into, redirections and noise flags.
pub fn steps(command: &str) -> Vec<Vec<String>> {
    if let Some(inner) = unwrapped(command) {
        return steps(&inner);
    }
    let mut out: Vec<Vec<String>> = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut piped = false;
    let mut redirect_target = false;
    for w in words(command) {
        if ["&&", "||", ";"].contains(&w.as_str()) {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            piped = false;
            continue;
        }
        if w == "|" || w == "|&" {
            piped = true;
            continue;
        }
        if piped {
            continue;
        }
        if std::mem::take(&mut redirect_target) {
            continue;
        }
        if w == ">" || w == ">>" || w == "2>" || w == "&>" || w == "<" {
            redirect_target = true;
            continue;
        }
        if w.starts_with('>') || w.starts_with("2>") || w.starts_with("&>") || w == "&" {
            continue;
        }
        if NOISE.contains(&w.as_str()) {
            continue;
        }
        cur.push(w);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// The program of a step after `VAR=value` assignments and wrappers, and its position.
fn program_at(step: &[String]) -> usize {
    let mut i = 0;
    while step.get(i).is_some_and(|w| is_assignment(w)) {
        i += 1;
    }
    loop {
        let rest: Vec<&str> = step[i.min(step.len())..]
            .iter()
            .map(String::as_str)
            .collect();
        match WRAPPERS.iter().find(|w| rest.starts_with(w)) {
            Some(w) => i += w.len(),
            None => return i,
        }
    }
}

/// `NAME=value` (`GKSwstype=100` too: a variable's name may hold lower case letters).
fn is_assignment(w: &str) -> bool {
    w.split_once('=').is_some_and(|(k, _)| {
        k.chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
            && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
            && k.chars().any(|c| c.is_ascii_uppercase())
    })
}

/// Whether a step only looks around.
pub fn looks(step: &[String]) -> bool {
    let at = program_at(step);
    let Some(program) = step.get(at).map(String::as_str) else {
        return true;
    };
    let program = program.rsplit('/').next().unwrap_or(program);
    if LOOKING.contains(&program) {
        return true;
    }
    if program == "docker"
        && step[at + 1..]
            .iter()
            .any(|w| ["ps", "logs", "inspect", "images", "config"].contains(&w.as_str()))
    {
        return true;
    }
    let sub = step[at + 1..]
        .iter()
        .find(|w| !w.starts_with('-'))
        .map(String::as_str);
    LOOKING_SUB
        .iter()
        .any(|(p, subs)| *p == program && sub.is_some_and(|s| subs.contains(&s)))
}

/// The program and its subcommand: `TZ=UTC poetry run pytest -x` and `pytest` share `pytest`;
/// `terraform -chdir=envs/x plan` is `terraform plan`.
pub fn base_of(step: &[String]) -> String {
    let at = program_at(step);
    let Some(program) = step.get(at) else {
        return String::new();
    };
    // A quoted word right after a long flag is its value (`--extra-experimental-features 'a
    // b'`); after `-e`/`-c` it is the script run, which says what the step does.
    let rest = &step[at + 1..];
    match rest
        .iter()
        .enumerate()
        .find(|(i, w)| {
            let value = w.starts_with(['\'', '"'])
                && i.checked_sub(1).is_some_and(|j| rest[j].starts_with("--"));
            !w.starts_with('-') && !w.contains('/') && !value
        })
        .map(|(_, w)| w)
    {
        Some(sub) if !sub.contains('=') => format!("{program} {sub}"),
        _ => program.clone(),
    }
}

/// The steps of `command` that do something.
pub fn doing(command: &str) -> Vec<Vec<String>> {
    steps(command).into_iter().filter(|s| !looks(s)).collect()
}

/// The base of the first step of `command` that does something.
pub fn base(command: &str) -> String {
    doing(command)
        .first()
        .map(|s| base_of(s))
        .unwrap_or_else(|| {
            steps(command)
                .first()
                .map(|s| base_of(s))
                .unwrap_or_default()
        })
}

/// A step as a rule quotes it: a long one without its file arguments, at most 70 characters.
pub fn show(step: &[String]) -> String {
    // A variable's long or secret value held once: the name is the lesson.
    let step: Vec<String> = step
        .iter()
        .map(|w| match w.split_once('=') {
            Some((k, v))
                if is_assignment(w)
                    && (v.contains("[REDACTED") || (v.contains("://") && v.contains('@'))) =>
            {
                format!("{k}=…")
            }
            _ => w.clone(),
        })
        .collect();
    let step = step.as_slice();
    let mut kept: Vec<&str> = step.iter().map(String::as_str).collect();
    if kept.join(" ").len() > 50 {
        let at = program_at(step);
        kept = step
            .iter()
            .enumerate()
            .filter(|(i, w)| {
                *i <= at + 1 || w.starts_with('-') || !(w.contains('/') || w.contains('.'))
            })
            .map(|(_, w)| w.as_str())
            .collect();
    }
    let mut out = String::new();
    for w in kept {
        if out.len() + w.len() + 1 > 70 {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// What a rule quotes of a command line: its steps that do something, shown.
pub fn shown(command: &str) -> String {
    let doing = doing(command);
    let all = if doing.is_empty() {
        steps(command)
    } else {
        doing
    };
    all.iter().map(|s| show(s)).collect::<Vec<_>>().join(" && ")
}

/// The line of a failure's output that says what went wrong, made general: no wrapper line
/// ("Exit code 2"), paths cut to their file name, hashes out, at most 90 characters. `None`
/// when the telling line is an assertion (the test's expected value is no lesson to quote).
pub fn error(output: &str) -> Option<String> {
    let line = super::fixes::error_line(output);
    let asserts = |l: &str| {
        let lower = l.to_lowercase();
        lower.starts_with("assert")
            || lower.starts_with("expected")
            || lower.starts_with("received")
            || lower.contains("assertionerror")
            || lower.contains("expect(")
            || lower.starts_with("exit code")
    };
    let trimmed = |l: &str| -> String {
        let l = l.trim_start_matches(['│', '|', '>', ' ']);
        // pytest marks its error lines with "E   ".
        let l = l.strip_prefix("E ").unwrap_or(l).trim();
        // "lib/x.dart:6:6: Error: ...": the message, not where it was raised.
        match l.find(": ") {
            Some(at)
                if !l[..at].contains(' ')
                    && l[..at].contains(['/', '.'])
                    && l[..at].chars().any(|c| c.is_ascii_digit())
                    && l[..at].contains(':') =>
            {
                l[at + 2..].trim().to_string()
            }
            _ => l.to_string(),
        }
    };
    let mut l = trimmed(&line);
    // "Expected version: >=22.11" under "ERR_PNPM_UNSUPPORTED_ENGINE ...": an error code says
    // what went wrong; an assertion's expected value never does.
    if asserts(&l) {
        l = output
            .lines()
            .map(trimmed)
            .find(|x| !asserts(x) && error_code(x))
            .unwrap_or_default();
    }
    if l.is_empty() || asserts(&l) {
        return None;
    }
    let l = l.as_str();
    let mut out: Vec<String> = Vec::new();
    for w in l.split_whitespace() {
        let w = if w.contains('/') && w.len() > 20 {
            let file = w.trim_end_matches(['/', ':', ',', ')', '\'', '"']);
            let name = file.rsplit('/').next().unwrap_or(file);
            name.to_string()
        } else {
            w.to_string()
        };
        let hexish = w.len() >= 7
            && w.chars().all(|c| c.is_ascii_hexdigit())
            && w.chars().any(|c| c.is_ascii_digit())
            && w.chars().any(|c| c.is_ascii_alphabetic());
        if !hexish {
            out.push(w);
        }
    }
    let mut text = String::new();
    for w in out {
        if text.len() + w.len() + 1 > 90 {
            break;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(&w);
    }
    let text = text.replace('`', "'");
    (text.len() >= 8).then_some(text)
}

/// A line holding an error code (`ERR_PNPM_UNSUPPORTED_ENGINE`, `E0425`-like names in capitals
/// with an underscore) or an explicit error mark.
fn error_code(line: &str) -> bool {
    line.contains("Error:")
        || line.contains("error:")
        || line.contains("ERR!")
        || line.contains("FATAL")
        || line.split_whitespace().any(|w| {
            let w = w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_');
            w.len() >= 6
                && w.contains('_')
                && w.chars()
                    .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_')
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_comes_down_to_the_step_that_does_the_work() {
        assert_eq!(
            shown(
                "go test -tags integration -count=1 ./internal/consumer/... -run Integration -v 2>&1 | tail -12"
            ),
            "go test -tags integration -run Integration"
        );
        assert_eq!(shown("make gen && git status --short gen/"), "make gen");
        assert_eq!(
            base("uv run alembic revision --autogenerate -m 'x'"),
            "alembic revision"
        );
        assert_eq!(
            base("uv run alembic current && uv run alembic heads"),
            "alembic current"
        );
        assert_eq!(
            base("terraform -chdir=envs/staging plan -lock=false"),
            "terraform plan"
        );
        assert_eq!(base("TZ=UTC npm test"), "npm test");
        assert!(doing("grep -n profile envs/prod/backend.tf && cat x").is_empty());
    }

    #[test]
    fn errors_lose_the_wrapper_and_one_off_literals() {
        assert_eq!(
            error("Exit code 1\nImportError while loading conftest '/tmp/reflect-dev/work/ledgerly/conftest.py'.").as_deref(),
            Some("ImportError while loading conftest conftest.py'.")
        );
        assert_eq!(error("Exit code 1\n> assert total == 3"), None);
    }
}
