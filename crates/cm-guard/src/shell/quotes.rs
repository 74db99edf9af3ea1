//! Double quotes, `$'...'` with its escapes, and every form that starts with `$`.

use super::Part;
use super::lexer::Lexer;
use super::lift;

impl<'a> Lexer<'a> {
    pub(super) fn double_quoted(&mut self) {
        self.i += 1;
        self.touch_word(true);
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'"' => {
                    self.i += 1;
                    return;
                }
                b'\\' => match self.peek(1) {
                    Some(c @ (b'"' | b'\\' | b'$' | b'`')) => {
                        self.push_char(c as char, true);
                        self.i += 2;
                    }
                    Some(b'\n') => self.i += 2,
                    _ => {
                        self.push_char('\\', true);
                        self.i += 1;
                    }
                },
                b'`' => self.backtick(true),
                b'$' if !matches!(self.peek(1), Some(b'\'' | b'"')) => self.dollar(true),
                _ => {
                    let c = self.current_char();
                    self.push_char(c, true);
                    self.i += c.len_utf8();
                }
            }
        }
    }

    /// At `$`: a parameter, a substitution, arithmetic, `$'..'`, `$".."`, or a plain `$`.
    pub(super) fn dollar(&mut self, dq: bool) {
        let start = self.i;
        match self.peek(1) {
            Some(b'\'') if !dq => self.ansi_c(),
            // `$"..."` (locale translation) is a double-quoted string.
            Some(b'"') if !dq => self.i += 1,
            Some(b'(') if self.peek(2) == Some(b'(') => {
                self.i += 1;
                let inner = self.balanced();
                let expr = inner
                    .strip_prefix('(')
                    .and_then(|s| s.strip_suffix(')'))
                    .unwrap_or(&inner)
                    .to_string();
                // `$(( $(rm -rf ~) ))`: the substitution inside runs.
                self.out.substitutions.extend(lift::substitutions(&expr));
                let raw = self.src[start..self.i].to_string();
                self.push_part(&raw, Part::Arith { text: expr, dq }, dq);
            }
            Some(b'(') => {
                self.i += 1;
                let inner = self.balanced();
                let raw = self.src[start..self.i].to_string();
                self.out.substitutions.push(inner.clone());
                self.push_part(&raw, Part::Sub { text: inner, dq }, dq);
            }
            Some(b'{') => {
                let end = lift::closing_brace(self.s, self.i + 1).unwrap_or(self.s.len());
                let inner = self.src[self.i + 2..end.max(self.i + 2)].to_string();
                self.i = (end + 1).min(self.s.len());
                // `${X:-$(rm -rf ~)}`: so does one in a parameter's word.
                self.out.substitutions.extend(lift::substitutions(&inner));
                let raw = self.src[start..self.i].to_string();
                self.push_part(
                    &raw,
                    Part::Param {
                        expr: format!("{{{inner}"),
                        dq,
                    },
                    dq,
                );
            }
            Some(c) if c == b'_' || c.is_ascii_alphabetic() => {
                let mut end = self.i + 1;
                while end < self.s.len()
                    && (self.s[end] == b'_' || self.s[end].is_ascii_alphanumeric())
                {
                    end += 1;
                }
                let name = self.src[self.i + 1..end].to_string();
                self.i = end;
                let raw = self.src[start..end].to_string();
                self.push_part(&raw, Part::Param { expr: name, dq }, dq);
            }
            Some(c) if c.is_ascii_digit() || b"@*#?$!-".contains(&c) => {
                self.i += 2;
                let raw = self.src[start..self.i].to_string();
                self.push_part(
                    &raw,
                    Part::Param {
                        expr: (c as char).to_string(),
                        dq,
                    },
                    dq,
                );
            }
            _ => {
                self.push_char('$', dq);
                self.i += 1;
            }
        }
    }

    /// `$'...'`: the escapes bash decodes (`\n`, `\x72`, `\162`, `\u0072`, `\cA`, ...).
    fn ansi_c(&mut self) {
        self.i += 2;
        self.touch_word(true);
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\'' => {
                    self.i += 1;
                    return;
                }
                b'\\' if self.i + 1 < self.s.len() => {
                    let (c, len) = ansi_escape(&self.s[self.i + 1..]);
                    self.i += 1 + len;
                    if let Some(c) = c {
                        self.push_char(c, true);
                    }
                }
                _ => {
                    let c = self.current_char();
                    self.push_char(c, true);
                    self.i += c.len_utf8();
                }
            }
        }
    }
}

/// Decode one escape after a backslash in `$'...'`: the character (if any) and the bytes read.
fn ansi_escape(s: &[u8]) -> (Option<char>, usize) {
    let hex = |s: &[u8], max: usize| {
        let n = s
            .iter()
            .take(max)
            .take_while(|b| b.is_ascii_hexdigit())
            .count();
        let v = std::str::from_utf8(&s[..n])
            .ok()
            .and_then(|t| u32::from_str_radix(t, 16).ok());
        (v, n)
    };
    match s[0] {
        b'a' => (Some('\x07'), 1),
        b'b' => (Some('\x08'), 1),
        b'e' | b'E' => (Some('\x1b'), 1),
        b'f' => (Some('\x0c'), 1),
        b'n' => (Some('\n'), 1),
        b'r' => (Some('\r'), 1),
        b't' => (Some('\t'), 1),
        b'v' => (Some('\x0b'), 1),
        b'x' => match hex(&s[1..], 2) {
            (Some(v), n) if n > 0 => (char::from_u32(v), 1 + n),
            _ => (Some('\\'), 0),
        },
        b'u' | b'U' => {
            let max = if s[0] == b'u' { 4 } else { 8 };
            match hex(&s[1..], max) {
                (Some(v), n) if n > 0 => (char::from_u32(v), 1 + n),
                _ => (Some('\\'), 0),
            }
        }
        b'0'..=b'7' => {
            let n = s
                .iter()
                .take(3)
                .take_while(|b| (b'0'..=b'7').contains(b))
                .count();
            let v =
                u32::from_str_radix(std::str::from_utf8(&s[..n]).unwrap_or("0"), 8).unwrap_or(0);
            (char::from_u32(v & 0xff), n)
        }
        b'c' if s.len() > 1 => (Some(((s[1] & 0x1f) as char).to_owned()), 2),
        c @ (b'\\' | b'\'' | b'"' | b'?') => (Some(c as char), 1),
        _ => {
            // Unknown escape: the backslash stays, the next character is read normally.
            (Some('\\'), 0)
        }
    }
}
