//! What `printf FORMAT ARGS...` writes, worked out without running it, so that a command word or
//! a payload built by printf is judged by what it becomes: `$(printf '\x72\x6d') -rf ~`,
//! `` `printf 'r%s' m` -rf ~ ``, `printf '\x72\x6d -rf ~' | sh`, `eval "$(printf ...)"`.
//!
//! The format's escapes (`\xHH`, `\NNN`, `\n`, `\uHHHH`, ...) are decoded; `%s`, `%b` (its
//! argument's escapes decoded too), `%c`, `%d`/`%i`/`%u` and `%%` are filled, with widths; the
//! format is used again while arguments remain, as printf does. Any other conversion (`%f`,
//! `%x`, a `*` width) makes the output unknown.

/// Longest output worked out; past it the output is unknown.
const MAX: usize = 64 << 10;

/// What `printf format args...` writes, when it can be worked out.
pub fn output(format: &str, args: &[&str]) -> Option<String> {
    let mut out = String::new();
    let mut next = 0;
    loop {
        let used = pass(format, args, &mut next, &mut out)?;
        if out.len() > MAX {
            return None;
        }
        if !used || next >= args.len() {
            return Some(out);
        }
    }
}

/// One pass over the format; whether it consumed any argument.
fn pass(format: &str, args: &[&str], next: &mut usize, out: &mut String) -> Option<bool> {
    let b = format.as_bytes();
    let mut used = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                let (text, len, stop) = escape(&format[i + 1..], false);
                out.push_str(&text);
                if stop {
                    return Some(false);
                }
                i += 1 + len;
            }
            b'%' => {
                let spec_start = i + 1;
                let mut k = spec_start;
                while k < b.len() && b"-+ #0".contains(&b[k]) {
                    k += 1;
                }
                let width_start = k;
                while k < b.len() && b[k].is_ascii_digit() {
                    k += 1;
                }
                let width: usize = format[width_start..k].parse().unwrap_or(0);
                let left = format[spec_start..width_start].contains('-');
                let mut precision = None;
                if b.get(k) == Some(&b'.') {
                    let p = k + 1;
                    k = p;
                    while k < b.len() && b[k].is_ascii_digit() {
                        k += 1;
                    }
                    precision = Some(format[p..k].parse().unwrap_or(0));
                }
                let conv = *b.get(k)?;
                let text = match conv {
                    b'%' => "%".to_string(),
                    b's' | b'b' | b'c' | b'd' | b'i' | b'u' => {
                        let arg = args.get(*next).copied().unwrap_or("");
                        if *next < args.len() {
                            *next += 1;
                            used = true;
                        }
                        match conv {
                            b's' => match precision {
                                Some(p) => arg.chars().take(p).collect(),
                                None => arg.to_string(),
                            },
                            b'b' => {
                                let (text, stop) = unescape(arg);
                                if stop {
                                    out.push_str(&text);
                                    return Some(false);
                                }
                                text
                            }
                            b'c' => arg.chars().next().map(String::from).unwrap_or_default(),
                            _ if arg.is_empty() => "0".into(),
                            _ => arg.trim().parse::<i64>().ok()?.to_string(),
                        }
                    }
                    _ => return None,
                };
                let pad = width.saturating_sub(text.chars().count());
                if left {
                    out.push_str(&text);
                    out.extend(std::iter::repeat_n(' ', pad));
                } else {
                    out.extend(std::iter::repeat_n(' ', pad));
                    out.push_str(&text);
                }
                i = k + 1;
            }
            _ => {
                let end = format[i..].find(['\\', '%']).map_or(b.len(), |e| i + e);
                out.push_str(&format[i..end]);
                i = end;
            }
        }
    }
    Some(used)
}

/// A `%b` argument with its escapes decoded, and whether a `\c` stopped the output.
fn unescape(arg: &str) -> (String, bool) {
    let mut out = String::new();
    let mut rest = arg;
    while let Some(at) = rest.find('\\') {
        out.push_str(&rest[..at]);
        let (text, len, stop) = escape(&rest[at + 1..], true);
        out.push_str(&text);
        if stop {
            return (out, true);
        }
        rest = &rest[at + 1 + len..];
    }
    out.push_str(rest);
    (out, false)
}

/// The escape after a backslash: its text, how many bytes it took, and whether it is `\c`
/// (stop all output). In `%b` arguments an octal escape is `\0NNN`; in the format, `\NNN`.
fn escape(s: &str, in_b: bool) -> (String, usize, bool) {
    let b = s.as_bytes();
    let Some(&c) = b.first() else {
        return ("\\".into(), 0, false);
    };
    let simple = |ch: char| (ch.to_string(), 1, false);
    match c {
        b'\\' => simple('\\'),
        b'a' => simple('\x07'),
        b'b' => simple('\x08'),
        b'e' | b'E' => simple('\x1b'),
        b'f' => simple('\x0c'),
        b'n' => simple('\n'),
        b'r' => simple('\r'),
        b't' => simple('\t'),
        b'v' => simple('\x0b'),
        b'"' => simple('"'),
        b'\'' => simple('\''),
        b'c' => (String::new(), 1, true),
        b'x' => digits(&s[1..], 16, 2)
            .map(|(v, n)| (byte_char(v), 1 + n, false))
            .unwrap_or_else(|| ("\\x".into(), 1, false)),
        b'u' | b'U' => {
            let max = if c == b'u' { 4 } else { 8 };
            digits(&s[1..], 16, max)
                .and_then(|(v, n)| Some((char::from_u32(v)?.to_string(), 1 + n, false)))
                .unwrap_or_else(|| (format!("\\{}", c as char), 1, false))
        }
        b'0'..=b'7' => {
            let (skip, max) = if in_b && c == b'0' { (1, 3) } else { (0, 3) };
            match digits(&s[skip..], 8, max) {
                Some((v, n)) => (byte_char(v & 0xff), skip + n, false),
                None => ("\0".into(), skip, false),
            }
        }
        _ => (format!("\\{}", c as char), 1, false),
    }
}

fn digits(s: &str, radix: u32, max: usize) -> Option<(u32, usize)> {
    let n = s
        .bytes()
        .take(max)
        .take_while(|c| (*c as char).is_digit(radix))
        .count();
    (n > 0).then(|| (u32::from_str_radix(&s[..n], radix).unwrap_or(0), n))
}

/// A byte as text: ASCII as itself, anything else as the Latin-1 character (the guard reads
/// commands, which are ASCII where it matters).
fn byte_char(v: u32) -> String {
    char::from_u32(v).map(String::from).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::output;

    #[test]
    fn escapes_and_conversions() {
        assert_eq!(output(r"\x72\x6d -rf ~", &[]).unwrap(), "rm -rf ~");
        assert_eq!(output(r"\162\155", &[]).unwrap(), "rm");
        assert_eq!(output("r%s", &["m"]).unwrap(), "rm");
        assert_eq!(output("%s%s", &["r", "m"]).unwrap(), "rm");
        assert_eq!(output("%s ", &["a", "b", "c"]).unwrap(), "a b c ");
        assert_eq!(output("%b", &[r"\x72\0155"]).unwrap(), "rm");
        assert_eq!(output("%c%c", &["rx", "my"]).unwrap(), "rm");
        assert_eq!(output("%3s|%-3s|", &["a", "b"]).unwrap(), "  a|b  |");
        assert_eq!(output("%d%%\\n", &["42"]).unwrap(), "42%\n");
        assert_eq!(output("%.1s", &["rm"]).unwrap(), "r");
        assert_eq!(output("a\\cb", &[]).unwrap(), "a");
    }

    #[test]
    fn unknown_conversions_are_unknown() {
        assert_eq!(output("%f", &["1"]), None);
        assert_eq!(output("%x", &["255"]), None);
        assert_eq!(output("%d", &["abc"]), None);
        assert_eq!(output("%*s", &["3", "a"]), None);
    }
}
