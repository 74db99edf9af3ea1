//! Finding the ends of nested constructs, and the command substitutions inside text that the
//! shell expands without tokenizing it as a command line: arithmetic (`$(( $(cmd) ))`), the
//! word of a parameter expansion (`${X:-$(cmd)}`) and an unquoted heredoc's body.

/// Index of the `)` matching the `(` at `open`, skipping quoted text and nested parentheses.
pub fn closing_paren(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 1,
            b'\'' => i = skip_until(s, i + 1, b'\''),
            b'"' => i = skip_dq(s, i + 1),
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// Index of the `}` closing the `${` whose `{` is at `open`.
pub fn closing_brace(s: &[u8], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut i = open;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 1,
            b'\'' if depth > 0 && i > open => i = skip_until(s, i + 1, b'\''),
            b'"' => i = skip_dq(s, i + 1),
            b'$' if s.get(i + 1) == Some(&b'(') => i = closing_paren(s, i + 1)?,
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

/// The index of the closing `q` (or the end).
fn skip_until(s: &[u8], mut i: usize, q: u8) -> usize {
    while i < s.len() && s[i] != q {
        i += 1;
    }
    i
}

/// The index of the `"` closing a double-quoted string that starts at `i`.
fn skip_dq(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i] != b'"' {
        if s[i] == b'\\' {
            i += 1;
        } else if s[i] == b'$' && s.get(i + 1) == Some(&b'(') {
            match closing_paren(s, i + 1) {
                Some(end) => i = end,
                None => return s.len(),
            }
        }
        i += 1;
    }
    i
}

/// Command substitutions (`$(...)`, backticks) in `text`, also inside arithmetic, outermost
/// first. Quotes are not special here (a heredoc body's apostrophes are literal).
pub fn substitutions(text: &str) -> Vec<String> {
    let s = text.as_bytes();
    let mut out = Vec::new();
    if !s.iter().any(|b| matches!(b, b'$' | b'`')) {
        return out;
    }
    let mut i = 0;
    while i < s.len() {
        match s[i] {
            b'\\' => i += 1,
            b'`' => {
                let mut inner = Vec::new();
                let mut k = i + 1;
                while k < s.len() && s[k] != b'`' {
                    if s[k] == b'\\' && matches!(s.get(k + 1), Some(b'`' | b'\\' | b'$')) {
                        k += 1;
                    }
                    inner.push(s[k]);
                    k += 1;
                }
                out.push(String::from_utf8_lossy(&inner).into_owned());
                i = k;
            }
            b'$' if s.get(i + 1) == Some(&b'(') => {
                let Some(end) = closing_paren(s, i + 1) else {
                    out.push(text[i + 2..].to_string());
                    break;
                };
                let inner = &text[i + 2..end];
                if s.get(i + 2) == Some(&b'(') {
                    let expr = inner
                        .strip_prefix('(')
                        .and_then(|x| x.strip_suffix(')'))
                        .unwrap_or(inner);
                    out.extend(substitutions(expr));
                } else {
                    out.push(inner.to_string());
                }
                i = end;
            }
            _ => {}
        }
        i += 1;
    }
    out
}
