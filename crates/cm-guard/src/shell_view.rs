//! The quick reject's view of a command line: roughly what the shell will run, computed in one
//! pass with no parser, so the keyword scan sees `rm` in `r''m`, `r$()m`, `r${EMPTY}m`,
//! ``r``m``, `r$@m`, `$'\x72\x6d'` and `/bin/[r]m`.
//!
//! The view over-approximates: quotes, backslashes, braces and commas go (quote removal, brace
//! expansion); substitutions that are blank and every variable reference go (an unset variable
//! is empty); ANSI-C strings are decoded; a one-character bracket glob is its character. A word
//! that looks like a keyword only in the view costs a parse, never a wrong deny: the
//! normaliser and the rules decide.
//!
//! What cannot be expanded statically in command position (`$a$b -rf ~`, `$(rev <<< mr) -rf
//! ~`, `/bin/r?`) is found by [`computed_program`]: such a command passes the quick reject, and
//! the guard judges the rest of it as if each program its rules name were in its place.

/// The command with quotes, backslashes, line continuations, braces and commas removed, blank
/// substitutions and variable references dropped, ANSI-C strings decoded and one-character
/// bracket globs resolved.
pub fn dequote(command: &str) -> Vec<u8> {
    let b = command.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    // A newline after a backslash is a line continuation, also when quotes separate them
    // (`'ch\'` + `'<newline>mod'` handed to `sh -c` runs `chmod`), and each backslash of a run
    // can continue a later newline: `'ch\'\<newline>'<newline>mod'` is one continuation for the
    // outer shell and one for the inner.
    let mut backslashes = 0usize;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        i += 1;
        match c {
            // Quotes go; so do braces and commas, which brace expansion removes (`r{m,}`), and
            // backticks (``r``m`` is `rm`; a non-blank one leaves its command in the view).
            b'\'' | b'"' | b'{' | b'}' | b',' | b'`' => {}
            b'$' => i = dollar(b, i, &mut out),
            b'[' if b.get(i + 1) == Some(&b']') && !matches!(b.get(i), Some(b'!' | b'^')) => {
                backslashes = 0;
                out.push(b[i]);
                i += 2;
            }
            b'\\' => backslashes += 1,
            b'\n' if backslashes > 0 => backslashes -= 1,
            c => {
                backslashes = 0;
                out.push(c);
            }
        }
    }
    out
}

/// After a `$` at `b[i - 1]`: what the view keeps, and where to go on.
fn dollar(b: &[u8], i: usize, out: &mut Vec<u8>) -> usize {
    match b.get(i) {
        Some(b'\'') => ansi_c(b, i + 1, out),
        // `$"..."`: a translated string, its text as written.
        Some(b'"') => i + 1,
        Some(b'(') => {
            // `$()` / `$( )`: empty. Otherwise the command inside stays in the view.
            let close = b[i + 1..]
                .iter()
                .position(|c| !c.is_ascii_whitespace())
                .map(|k| i + 1 + k);
            match close {
                Some(k) if b[k] == b')' => k + 1,
                _ => i,
            }
        }
        // `${NAME...}`: the name goes (unset is empty); a default value after it stays.
        Some(b'{') => {
            let mut k = i + 1;
            while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_') {
                k += 1;
            }
            if k == i + 1 && matches!(b.get(k), Some(b'@' | b'*' | b'#' | b'!')) {
                k += 1;
            }
            while k < b.len() && matches!(b[k], b':' | b'-' | b'=' | b'+' | b'?') {
                k += 1;
            }
            k
        }
        Some(c) if c.is_ascii_alphabetic() || *c == b'_' => {
            let mut k = i;
            while k < b.len() && (b[k].is_ascii_alphanumeric() || b[k] == b'_') {
                k += 1;
            }
            k
        }
        Some(c) if c.is_ascii_digit() || b"@*#?!$-".contains(c) => i + 1,
        _ => {
            out.push(b'$');
            i
        }
    }
}

/// Decode `$'...'` from `b[i]` (after the opening quote) into `out`; returns where it ends.
fn ansi_c(b: &[u8], mut i: usize, out: &mut Vec<u8>) -> usize {
    while i < b.len() {
        let c = b[i];
        i += 1;
        if c == b'\'' {
            return i;
        }
        if c != b'\\' || i >= b.len() {
            out.push(c);
            continue;
        }
        let e = b[i];
        i += 1;
        let (radix, max) = match e {
            b'x' => (16, 2),
            b'u' => (16, 4),
            b'U' => (16, 8),
            b'0'..=b'7' => {
                i -= 1;
                (8, 3)
            }
            b'c' => {
                if let Some(&x) = b.get(i) {
                    out.push(x & 0x1f);
                    i += 1;
                }
                continue;
            }
            _ => {
                out.push(match e {
                    b'a' => 7,
                    b'b' => 8,
                    b'e' | b'E' => 27,
                    b'f' => 12,
                    b'n' => b'\n',
                    b'r' => b'\r',
                    b't' => b'\t',
                    b'v' => 11,
                    other => other,
                });
                continue;
            }
        };
        let mut value: u32 = 0;
        let mut n = 0;
        while n < max
            && let Some(d) = b.get(i).and_then(|d| (*d as char).to_digit(radix))
        {
            value = value * radix + d;
            i += 1;
            n += 1;
        }
        if n == 0 {
            out.push(b'\\');
            out.push(e);
            continue;
        }
        match char::from_u32(value) {
            Some(ch) if radix == 16 && e != b'x' => {
                let mut buf = [0u8; 4];
                out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
            }
            _ => out.push(value as u8),
        }
    }
    i
}

/// Words that may stand before the command word without being it.
const PREFIXES: &[&[u8]] = &[
    b"!", b"if", b"then", b"else", b"elif", b"do", b"while", b"until", b"time", b"exec",
    b"command", b"builtin", b"sudo", b"doas", b"env", b"nohup", b"nice", b"xargs", b"eval",
];

/// Does some command word of the line (the first word of a simple command, past assignments
/// and the usual prefixes) hold text the shell computes: an expansion, a substitution or a
/// glob? One pass over the bytes, no parser; quoted text counts as part of its word.
pub fn computed_program(command: &str) -> bool {
    let b = command.as_bytes();
    let mut i = 0;
    let mut at_command = true;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() && c != b'\n' {
            i += 1;
            continue;
        }
        if c == b'`' && at_command {
            // A backquoted command's output is the command word.
            return true;
        }
        if matches!(
            c,
            b';' | b'|' | b'&' | b'(' | b')' | b'\n' | b'{' | b'}' | b'`'
        ) {
            at_command = !matches!(c, b')' | b'}');
            i += 1;
            continue;
        }
        // One word, quotes kept together.
        let start = i;
        let mut quote = 0u8;
        while i < b.len() {
            let d = b[i];
            if quote != 0 {
                if d == quote {
                    quote = 0;
                } else if d == b'\\' && quote == b'"' {
                    i += 1;
                }
            } else if d == b'\'' || d == b'"' {
                quote = d;
            } else if d == b'\\' {
                i += 1;
            } else if d == b'$' && b.get(i + 1) == Some(&b'(') {
                // A substitution inside the word: the word goes on past its parenthesis.
                let mut depth = 0;
                while i < b.len() {
                    match b[i] {
                        b'(' => depth += 1,
                        b')' => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    i += 1;
                }
            } else if d.is_ascii_whitespace() || b";|&()<>`".contains(&d) {
                break;
            }
            i += 1;
        }
        if i == start {
            // A redirection operator: the word after it is its target, not a command.
            i += 1;
            while i < b.len() && matches!(b[i], b'<' | b'>' | b'&' | b'|' | b'0'..=b'9') {
                i += 1;
            }
            continue;
        }
        let word = &b[start..i.min(b.len())];
        if !at_command {
            continue;
        }
        let assignment = word.iter().position(|&x| x == b'=').is_some_and(|eq| {
            eq > 0
                && word[..eq]
                    .iter()
                    .all(|x| x.is_ascii_alphanumeric() || *x == b'_')
        });
        if assignment || PREFIXES.contains(&word) || word.starts_with(b"-") {
            continue;
        }
        if word != b"[" && word != b"[[" && word.iter().any(|x| b"$`*?[".contains(x)) {
            return true;
        }
        at_command = false;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(s: &str) -> String {
        String::from_utf8_lossy(&dequote(s)).into_owned()
    }

    #[test]
    fn the_view_is_what_the_shell_runs() {
        for (cmd, want) in [
            ("r''m -rf ~", "rm -rf ~"),
            ("r$()m -rf ~", "rm -rf ~"),
            ("r${EMPTY}m -rf ~", "rm -rf ~"),
            ("r``m -rf ~", "rm -rf ~"),
            ("r$@m -rf ~", "rm -rf ~"),
            (r"$'\x72\x6d' -rf ~", "rm -rf ~"),
            (r"$'\162\155' -rf ~", "rm -rf ~"),
            (r"$'\u0072m' -rf ~", "rm -rf ~"),
            ("/bin/[r]m -rf ~", "/bin/rm -rf ~"),
            ("gi$()t reset --hard", "git reset --hard"),
            ("kube$()ctl delete ns prod", "kubectl delete ns prod"),
            (r"psql -c $'DR\x4fP DATABASE x'", "psql -c DROP DATABASE x"),
            ("${X:-r}m -rf ~", "rm -rf ~"),
            ("echo $HOME", "echo "),
            ("echo $ 5", "echo $ 5"),
        ] {
            assert_eq!(view(cmd), want, "{cmd}");
        }
    }

    #[test]
    fn computed_command_words_are_found() {
        for cmd in [
            "$a$b -rf ~",
            "a=r; b=m; $a$b -rf ~",
            "$(rev <<< mr) -rf ~",
            "/bin/r? -rf ~",
            "/bin/[r]m -rf ~",
            "sudo $X -rf /",
            "ls && `echo rm` -rf ~",
            "FOO=1 \"$CMD\" x",
            "echo x > y; $X -rf ~",
        ] {
            assert!(computed_program(cmd), "{cmd}");
        }
        for cmd in [
            "echo $HOME",
            "ls *.rs",
            "[ -f x ] && cat x",
            "cargo test -- --nocapture",
            "X=$(pwd) make",
            "git commit -m \"$(cat <<'EOF'\nfix\nEOF\n)\"",
            "for f in *.rs; do wc -l \"$f\"; done",
            "echo $X > out.txt 2>&1 < in.txt",
        ] {
            assert!(!computed_program(cmd), "{cmd}");
        }
    }
}
