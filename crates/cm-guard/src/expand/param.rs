//! Parameter expansion: `$X`, `${X}`, `${X:-word}`, `${X:?}`, `${X%/}`, `${X#*/}`, `${X/a/b}`,
//! `${X:0:3}`, `${X^^}`, `${#X}`, `${!X}`, positional and special parameters.
//!
//! A known value is transformed as the shell would. An unknown one stays as written, and the
//! operators that supply a value when it is unset give a second alternative (`${X:-/}` is `$X`
//! or `/`): the guard decides on both.

use super::word::{self, A, EChar, O, Q, S, Text, U};
use super::{State, Value, glob};
use crate::shell;

/// The alternatives `$expr` (`expr` as the lexer gave it) expands to.
pub fn expand(expr: &str, dq: bool, st: &State) -> Vec<Text> {
    let raw = match expr.strip_prefix('{') {
        Some(inner) => format!("${{{inner}}}"),
        None => format!("${expr}"),
    };
    let Some(inner) = expr.strip_prefix('{') else {
        return from_value(lookup(expr, st), &raw, dq, true);
    };
    if let Some(name) = inner.strip_prefix('#').filter(|n| !n.is_empty()) {
        return match lookup(name, st) {
            Value::Known(v) => v
                .iter()
                .map(|t| word::known(&t.len().to_string(), dq))
                .collect(),
            Value::Unknown => vec![word::unknown(&raw, dq, false)],
        };
    }
    if let Some(name) = inner.strip_prefix('!') {
        let target = match lookup(name, st) {
            Value::Known(v) => v.first().map(|t| word::plain(t)),
            Value::Unknown => None,
        };
        return match target {
            Some(t) => from_value(lookup(&t, st), &raw, dq, true),
            None => vec![word::unknown(&raw, dq, true)],
        };
    }
    let name_len = name_length(inner);
    if name_len == 0 {
        return vec![word::unknown(&raw, dq, true)];
    }
    let (name, op) = inner.split_at(name_len);
    if op.starts_with('[') {
        // Arrays are not followed.
        return vec![word::unknown(&raw, dq, true)];
    }
    let value = lookup(name, st);
    let unknown = |may_be_empty| vec![word::unknown(&raw, dq, may_be_empty)];
    let word_of = |w: &str| operand(w, dq, st);
    let values = match &value {
        Value::Known(v) => Some(v.clone()),
        Value::Unknown => None,
    };
    let is_empty = |v: &Vec<Text>| v.iter().all(|t| t.is_empty());
    match op {
        "" => from_value(value, &raw, dq, true),
        _ if op.starts_with(":-") || op.starts_with(":=") => match values {
            Some(v) if !is_empty(&v) => in_context(v, dq),
            Some(_) => word_of(&op[2..]),
            None => [unknown(true), word_of(&op[2..])].concat(),
        },
        _ if op.starts_with('-') || op.starts_with('=') => match values {
            Some(v) => in_context(v, dq),
            None => [unknown(true), word_of(&op[1..])].concat(),
        },
        _ if op.starts_with(":?") => values.map_or_else(|| unknown(false), |v| in_context(v, dq)),
        _ if op.starts_with('?') => values.map_or_else(|| unknown(true), |v| in_context(v, dq)),
        _ if op.starts_with(":+") => match values {
            Some(v) if !is_empty(&v) => word_of(&op[2..]),
            Some(_) => vec![Vec::new()],
            None => [vec![Vec::new()], word_of(&op[2..])].concat(),
        },
        _ if op.starts_with('+') => match values {
            Some(_) => word_of(&op[1..]),
            None => [vec![Vec::new()], word_of(&op[1..])].concat(),
        },
        _ => match values {
            Some(v) => {
                let pattern = |p: &str| plain_operand(p, st);
                let changed: Option<Vec<Text>> =
                    v.iter().map(|t| transform(t, op, &pattern)).collect();
                match changed {
                    Some(c) => in_context(c, dq),
                    None => unknown(true),
                }
            }
            None => unknown(true),
        },
    }
}

fn name_length(s: &str) -> usize {
    let b = s.as_bytes();
    match b.first() {
        Some(c) if c.is_ascii_digit() => b.iter().take_while(|c| c.is_ascii_digit()).count(),
        Some(c) if b"@*#?$!-".contains(c) => 1,
        Some(c) if *c == b'_' || c.is_ascii_alphabetic() => b
            .iter()
            .take_while(|c| **c == b'_' || c.is_ascii_alphanumeric())
            .count(),
        _ => 0,
    }
}

/// A variable, a positional or a special parameter.
fn lookup(name: &str, st: &State) -> Value {
    let positional = |from: usize| -> Value {
        match &st.positional {
            Some(p) => {
                let mut t = Text::new();
                let sep = if name == "@" { word::F } else { 0 };
                for (k, arg) in p.iter().skip(from).enumerate() {
                    if k > 0 {
                        t.extend(word::text(" ", sep));
                    }
                    t.extend(arg.iter().copied());
                }
                Value::Known(vec![t])
            }
            None => Value::Unknown,
        }
    };
    match name {
        "@" | "*" => positional(1),
        "#" => match &st.positional {
            Some(p) => Value::known(&p.len().saturating_sub(1).to_string()),
            None => Value::Unknown,
        },
        "?" | "$" | "!" | "-" => Value::Unknown,
        _ if name.bytes().all(|c| c.is_ascii_digit()) => {
            let n: usize = name.parse().unwrap_or(usize::MAX);
            match &st.positional {
                Some(p) => Value::Known(vec![p.get(n).cloned().unwrap_or_default()]),
                None if n == 0 => Value::known("bash"),
                None => Value::Unknown,
            }
        }
        _ => st.get(name),
    }
}

fn from_value(v: Value, raw: &str, dq: bool, may_be_empty: bool) -> Vec<Text> {
    match v {
        Value::Known(v) => in_context(v, dq),
        Value::Unknown => {
            // `$?`, `$$`, `$!`, `$#` always have a value.
            let always = matches!(raw, "$?" | "$$" | "$!" | "$#" | "${#}");
            vec![word::unknown(raw, dq, may_be_empty && !always)]
        }
    }
}

/// A stored value where it is expanded: quoted inside double quotes, split and globbed if not.
pub fn in_context(values: Vec<Text>, dq: bool) -> Vec<Text> {
    values
        .into_iter()
        .map(|t| {
            t.into_iter()
                .map(|e| EChar {
                    c: e.c,
                    f: if e.f & word::F != 0 {
                        word::F
                    } else if e.f & O != 0 {
                        (e.f & (O | U)) | if dq { Q } else { 0 }
                    } else if dq {
                        // A stored value keeps no quoting: unquoted, it is split and globbed.
                        Q
                    } else {
                        A | S
                    },
                })
                .collect()
        })
        .collect()
}

/// The word of `${X:-word}`: expanded, then in the context of the whole expansion.
fn operand(w: &str, dq: bool, st: &State) -> Vec<Text> {
    let parsed = shell::parse_word(w);
    in_context(word::texts(&parsed, st), dq)
}

fn plain_operand(p: &str, st: &State) -> String {
    let parsed = shell::parse_word(p);
    word::texts(&parsed, st)
        .first()
        .map(|t| word::plain(t))
        .unwrap_or_default()
}

/// Apply a pattern, replacement, case or substring operator to a known value.
fn transform(t: &Text, op: &str, pattern: &dyn Fn(&str) -> String) -> Option<Text> {
    let s: Vec<char> = t.iter().map(|e| e.c).collect();
    let n = s.len();
    if n > 1024 {
        // Pattern operators try every split of the value: too long to follow.
        return None;
    }
    let matches = |p: &str, from: usize, to: usize| {
        let piece: String = s[from..to].iter().collect();
        glob::matches(p, &piece)
    };
    let slice = |from: usize, to: usize| -> Text { t[from..to].to_vec() };
    if let Some(p) = op.strip_prefix("##") {
        let p = pattern(p);
        return Some(
            (0..=n)
                .rev()
                .find(|&k| matches(&p, 0, k))
                .map_or(t.clone(), |k| slice(k, n)),
        );
    }
    if let Some(p) = op.strip_prefix('#') {
        let p = pattern(p);
        return Some(
            (0..=n)
                .find(|&k| matches(&p, 0, k))
                .map_or(t.clone(), |k| slice(k, n)),
        );
    }
    if let Some(p) = op.strip_prefix("%%") {
        let p = pattern(p);
        return Some(
            (0..=n)
                .find(|&k| matches(&p, k, n))
                .map_or(t.clone(), |k| slice(0, k)),
        );
    }
    if let Some(p) = op.strip_prefix('%') {
        let p = pattern(p);
        return Some(
            (0..=n)
                .rev()
                .find(|&k| matches(&p, k, n))
                .map_or(t.clone(), |k| slice(0, k)),
        );
    }
    if let Some(rest) = op.strip_prefix('/') {
        let (all, anchor, rest) = match rest.as_bytes().first() {
            Some(b'/') => (true, None, &rest[1..]),
            Some(b'#') => (false, Some('#'), &rest[1..]),
            Some(b'%') => (false, Some('%'), &rest[1..]),
            _ => (false, None, rest),
        };
        let (p, r) = rest.split_once('/').unwrap_or((rest, ""));
        let (p, r) = (pattern(p), word::text(&pattern(r), 0));
        return Some(replace(t, &p, &r, all, anchor));
    }
    if let Some(rest) = op.strip_prefix(':')
        && rest
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_digit() || b == b' ' || b == b'-')
    {
        let (off, len) = rest.split_once(':').unwrap_or((rest, ""));
        let off: i64 = off.trim().parse().ok()?;
        let start = if off < 0 { n as i64 + off } else { off }.clamp(0, n as i64) as usize;
        let end = if len.trim().is_empty() {
            n
        } else {
            let l: i64 = len.trim().parse().ok()?;
            if l < 0 {
                (n as i64 + l).max(start as i64) as usize
            } else {
                (start + l as usize).min(n)
            }
        };
        return Some(slice(start, end));
    }
    let case = |upper: bool, first: bool| -> Text {
        t.iter()
            .enumerate()
            .map(|(k, e)| EChar {
                c: if first && k > 0 {
                    e.c
                } else if upper {
                    e.c.to_ascii_uppercase()
                } else {
                    e.c.to_ascii_lowercase()
                },
                f: e.f,
            })
            .collect()
    };
    match op {
        "^^" | "@U" => Some(case(true, false)),
        "^" | "@u" => Some(case(true, true)),
        ",," | "@L" => Some(case(false, false)),
        "," => Some(case(false, true)),
        "@Q" | "@E" | "@P" | "@K" | "@a" => Some(t.clone()),
        _ => None,
    }
}

fn replace(t: &Text, p: &str, r: &Text, all: bool, anchor: Option<char>) -> Text {
    let s: Vec<char> = t.iter().map(|e| e.c).collect();
    let n = s.len();
    let piece = |a: usize, b: usize| s[a..b].iter().collect::<String>();
    let mut out = Text::new();
    let mut i = 0;
    while i <= n {
        let ends: Vec<usize> = match anchor {
            Some('#') if i > 0 => Vec::new(),
            Some('%') => vec![n],
            _ => (i..=n).rev().collect(),
        };
        if let Some(end) = ends
            .into_iter()
            .find(|&e| e > i && glob::matches(p, &piece(i, e)))
        {
            out.extend(r.iter().copied());
            if !all || end == n {
                out.extend(t[end..].iter().copied());
                return out;
            }
            i = if end > i { end } else { i + 1 };
            continue;
        }
        if i < n {
            out.push(t[i]);
        }
        i += 1;
    }
    out
}
