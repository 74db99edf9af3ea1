//! Shell commands hidden in interpreter code: `os.system("rm -rf ~")`,
//! `subprocess.run(["git", "reset", "--hard"])`, `execSync('...')`, Ruby/Perl `system "..."`,
//! backticks, `%x(...)`, `qx{...}`.
//!
//! A plain scan, no parser: at each call of a process-spawning function, the string literals of
//! its arguments are joined with spaces (so the list form and the string form read the same) and
//! handed back to be normalised as shell.

use super::normalize::Lang;

/// Function names that run a process. Matched at an identifier boundary, followed by `(` or,
/// for Ruby/Perl, by a space and a string.
const SPAWNERS: &[&str] = &[
    "system",
    "popen",
    "Popen",
    "run",
    "call",
    "check_call",
    "check_output",
    "getoutput",
    "getstatusoutput",
    "execSync",
    "exec",
    "execFile",
    "execFileSync",
    "execv",
    "execvp",
    "spawn",
    "spawnSync",
    "execa",
    "execaSync",
    "capture2",
    "capture2e",
    "capture3",
    "popen3",
    "execute",
    "shell_exec",
    "passthru",
    "proc_open",
    "pcntl_exec",
];

pub fn shell_strings(lang: Lang, code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let b = code.as_bytes();
    for name in SPAWNERS {
        for (pos, _) in code.match_indices(name) {
            let before_ok = pos == 0 || !is_ident(b[pos - 1]);
            let after = pos + name.len();
            if !before_ok || b.get(after).is_some_and(|c| is_ident(*c)) {
                continue;
            }
            let mut k = after;
            while k < b.len() && (b[k] == b' ' || b[k] == b'\t') {
                k += 1;
            }
            let args = if b.get(k) == Some(&b'(') {
                balanced(code, k)
            } else if matches!(lang, Lang::Ruby | Lang::Perl | Lang::Php)
                && k > after
                && matches!(b.get(k), Some(b'"' | b'\''))
            {
                let end = code[k..]
                    .find(['\n', ';'])
                    .map(|e| k + e)
                    .unwrap_or(code.len());
                &code[k..end]
            } else {
                continue;
            };
            let args = home_as_literal(args);
            let mut lits = literals(&args, lang);
            if args.contains("b64decode") || args.contains("atob(") || args.contains("base64") {
                // A literal decoded on the spot is the command it encodes.
                for lit in &mut lits {
                    if let Some(text) = super::opaque::printable_base64(lit) {
                        *lit = text;
                    }
                }
            }
            if !lits.is_empty() {
                out.push(lits.join(" "));
            }
        }
    }
    if matches!(lang, Lang::Ruby | Lang::Perl | Lang::Php) {
        // Backticks run a shell in these languages.
        let mut parts = code.split('`');
        parts.next();
        while let Some(inner) = parts.next() {
            out.push(inner.to_string());
            parts.next();
        }
        for open in ["%x(", "qx(", "qx{", "%x{"] {
            for (pos, _) in code.match_indices(open) {
                let close = if open.ends_with('(') { ')' } else { '}' };
                let start = pos + open.len();
                if let Some(end) = code[start..].find(close) {
                    out.push(code[start..start + end].to_string());
                }
            }
        }
    }
    out
}

/// The code with import aliases spelled out (`from shutil import rmtree as r; r('/')` reads
/// `rmtree('/')`; `const {execSync: x} = require('child_process'); x(...)` reads
/// `execSync(...)`), when it has any.
pub fn unaliased(lang: Lang, code: &str) -> Option<String> {
    let pairs = match lang {
        Lang::Python if code.contains(" as ") => python_aliases(code),
        Lang::Node if code.contains(':') && code.contains('{') => js_aliases(code),
        _ => return None,
    };
    if pairs.is_empty() {
        return None;
    }
    let mut out = code.to_string();
    for (alias, real) in pairs {
        out = rename(&out, &alias, &real);
    }
    (out != code).then_some(out)
}

/// `import a.b as x`, `from m import a as x, b as y`: (alias, name).
fn python_aliases(code: &str) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for stmt in code.split(['\n', ';']) {
        let stmt = stmt.trim();
        let names = if let Some(rest) = stmt.strip_prefix("from ") {
            rest.split_once(" import ").map(|(_, n)| n)
        } else {
            stmt.strip_prefix("import ")
        };
        let Some(names) = names else { continue };
        for item in names.trim_matches(|c| c == '(' || c == ')').split(',') {
            if let Some((name, alias)) = item.split_once(" as ") {
                let (name, alias) = (name.trim(), alias.trim());
                let last = name.rsplit('.').next().unwrap_or(name);
                if is_name(alias) && !last.is_empty() {
                    v.push((alias.to_string(), last.to_string()));
                }
            }
        }
    }
    v
}

/// `{ execSync: run, spawn: s }` destructuring: (alias, name).
fn js_aliases(code: &str) -> Vec<(String, String)> {
    let mut v = Vec::new();
    for (open, _) in code.match_indices('{') {
        let Some(len) = code[open..].find('}') else {
            continue;
        };
        let body = &code[open + 1..open + len];
        if !code[open + len..]
            .trim_start_matches(['}', ' '])
            .starts_with('=')
        {
            continue;
        }
        for item in body.split(',') {
            if let Some((name, alias)) = item.split_once(':') {
                let (name, alias) = (name.trim(), alias.trim());
                if is_name(name) && is_name(alias) {
                    v.push((alias.to_string(), name.to_string()));
                }
            }
        }
    }
    v
}

fn is_name(s: &str) -> bool {
    !s.is_empty() && s.bytes().all(is_ident) && !s.as_bytes()[0].is_ascii_digit()
}

/// `alias(` and `alias.` at an identifier boundary become `real(` / `real.`.
fn rename(code: &str, alias: &str, real: &str) -> String {
    let b = code.as_bytes();
    let mut out = String::with_capacity(code.len());
    let mut last = 0;
    for (pos, _) in code.match_indices(alias) {
        let end = pos + alias.len();
        let before_ok = pos == 0 || (!is_ident(b[pos - 1]) && b[pos - 1] != b'.');
        let mut k = end;
        while k < b.len() && b[k] == b' ' {
            k += 1;
        }
        if pos < last || !before_ok || !matches!(b.get(k), Some(b'(' | b'.')) {
            continue;
        }
        out.push_str(&code[last..pos]);
        out.push_str(real);
        last = end;
    }
    out.push_str(&code[last..]);
    out
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// From the `(` at `open` to its matching `)`, skipping string literals.
fn balanced(code: &str, open: usize) -> &str {
    let b = code.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &code[open + 1..i];
                }
            }
            q @ (b'"' | b'\'' | b'`') => {
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    &code[(open + 1).min(code.len())..]
}

/// The string literals in `args`, with common escapes decoded.
/// Expressions for the home directory, per language: read as the literal `'~'` inside a spawn's
/// arguments, so `spawnSync('rm', ['-rf', os.homedir()])` is `rm -rf ~`.
const HOME_EXPRESSIONS: &[&str] = &[
    "os.path.expanduser('~')",
    "os.path.expanduser(\"~\")",
    "Path.home()",
    "pathlib.Path.home()",
    "os.environ['HOME']",
    "os.environ[\"HOME\"]",
    "os.environ.get('HOME')",
    "os.environ.get(\"HOME\")",
    "os.getenv('HOME')",
    "os.getenv(\"HOME\")",
    "os.homedir()",
    "require('os').homedir()",
    "require(\"os\").homedir()",
    "process.env.HOME",
    "Deno.env.get('HOME')",
    "Deno.env.get(\"HOME\")",
    "Dir.home",
    "ENV['HOME']",
    "ENV[\"HOME\"]",
    "$ENV{HOME}",
    "$ENV{'HOME'}",
];

fn home_as_literal(args: &str) -> std::borrow::Cow<'_, str> {
    if !HOME_EXPRESSIONS.iter().any(|h| args.contains(h)) {
        return std::borrow::Cow::Borrowed(args);
    }
    let mut s = args.to_string();
    for h in HOME_EXPRESSIONS {
        s = s.replace(h, "'~'");
    }
    std::borrow::Cow::Owned(s)
}

/// The string literals in `args`, in order; literals joined by a concatenation operator
/// (`'r' + 'm -rf'`, Perl and PHP `.`, Lua `..`) are one.
fn literals(args: &str, lang: Lang) -> Vec<String> {
    let b = args.as_bytes();
    let mut out: Vec<String> = Vec::new();
    let mut i = 0;
    let mut last_end: Option<usize> = None;
    while i < b.len() {
        let q = b[i];
        let is_quote = q == b'"' || q == b'\'' || (q == b'`' && lang == Lang::Node);
        if !is_quote {
            i += 1;
            continue;
        }
        let glued = last_end.is_some_and(|e| matches!(args[e..i].trim(), "+" | "." | ".."));
        i += 1;
        let mut s = String::new();
        while i < b.len() && b[i] != q {
            if b[i] == b'\\' && i + 1 < b.len() {
                match b[i + 1] {
                    b'n' => s.push('\n'),
                    b't' => s.push('\t'),
                    c => s.push(c as char),
                }
                i += 2;
                continue;
            }
            let c = args[i..].chars().next().unwrap_or(' ');
            s.push(c);
            i += c.len_utf8();
        }
        i += 1;
        last_end = Some(i);
        match out.last_mut() {
            Some(prev) if glued => prev.push_str(&s),
            _ if !s.is_empty() => out.push(s),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_string_and_list_forms() {
        assert_eq!(
            shell_strings(Lang::Python, "import os; os.system('rm -rf ~')"),
            vec!["rm -rf ~"]
        );
        assert_eq!(
            shell_strings(
                Lang::Python,
                r#"subprocess.run(["git", "reset", "--hard"], check=True)"#
            ),
            vec!["git reset --hard"]
        );
        assert_eq!(
            shell_strings(Lang::Node, "require('child_process').execSync(`rm -rf /`)"),
            vec!["rm -rf /"]
        );
        assert_eq!(
            shell_strings(Lang::Ruby, "system \"rm -rf /\"; puts `git reset --hard`"),
            vec!["rm -rf /", "git reset --hard"]
        );
        assert!(shell_strings(Lang::Python, "filesystem('x')").is_empty());
    }

    #[test]
    fn aliases_are_spelled_out() {
        assert_eq!(
            unaliased(Lang::Python, "from shutil import rmtree as r; r('/')").as_deref(),
            Some("from shutil import rmtree as r; rmtree('/')")
        );
        assert_eq!(
            unaliased(
                Lang::Node,
                "const {execSync: x} = require('child_process'); x('rm -rf ~')"
            )
            .as_deref(),
            Some("const {execSync: x} = require('child_process'); execSync('rm -rf ~')")
        );
        assert_eq!(unaliased(Lang::Python, "import os; print(1)"), None);
    }
}
