//! The tokenizer's main loop: operators, words, redirections, heredocs. Quoted text and `$`
//! forms are read by [`super::quotes`].

use super::lift;
use super::{Command, Parsed, Part, Word};

struct PendingHeredoc {
    cmd: usize,
    delimiter: String,
    strip_tabs: bool,
    /// The delimiter was quoted: the body is literal (no substitutions run in it).
    quoted: bool,
}

pub(super) struct Lexer<'a> {
    pub(super) s: &'a [u8],
    pub(super) src: &'a str,
    pub(super) i: usize,
    pub(super) out: Parsed,
    cur: Command,
    word: Option<Word>,
    heredocs: Vec<PendingHeredoc>,
    /// The next word is a heredoc delimiter (`Some(strip_tabs)`) or a here-string.
    expect_delim: Option<bool>,
    expect_herestring: bool,
    next_piped: bool,
    /// Read the whole text as one word: blanks and operators are literal characters (the word
    /// of `${X:-a b}`, the value part of an assignment).
    word_only: bool,
}

pub(super) fn parse(src: &str) -> Parsed {
    lexer(src, false).out
}

/// `src` read as a single word.
pub(super) fn parse_word(src: &str) -> super::Word {
    let mut lx = lexer(src, true);
    lx.out
        .commands
        .pop()
        .and_then(|mut c| c.words.pop())
        .unwrap_or_default()
}

fn lexer(src: &str, word_only: bool) -> Lexer<'_> {
    let mut lx = Lexer {
        s: src.as_bytes(),
        src,
        i: 0,
        out: Parsed::default(),
        cur: Command::default(),
        word: None,
        heredocs: Vec::new(),
        expect_delim: None,
        expect_herestring: false,
        next_piped: false,
        word_only,
    };
    lx.run();
    lx
}

impl<'a> Lexer<'a> {
    pub(super) fn peek(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }

    fn word_mut(&mut self) -> &mut Word {
        self.word.get_or_insert_with(Word::default)
    }

    /// Literal text: into the word's text and its last literal part of the same quoting.
    pub(super) fn push_lit(&mut self, s: &str, quoted: bool) {
        let w = self.word_mut();
        w.text.push_str(s);
        w.quoted |= quoted;
        match w.parts.last_mut() {
            Some(Part::Lit { text, quoted: q }) if *q == quoted => text.push_str(s),
            _ => w.parts.push(Part::Lit {
                text: s.to_string(),
                quoted,
            }),
        }
    }

    pub(super) fn push_char(&mut self, c: char, quoted: bool) {
        let mut buf = [0u8; 4];
        self.push_lit(c.encode_utf8(&mut buf), quoted);
    }

    /// An expansion: `raw` goes into the text as written, `part` into the parts.
    pub(super) fn push_part(&mut self, raw: &str, part: Part, quoted: bool) {
        let w = self.word_mut();
        w.text.push_str(raw);
        w.quoted |= quoted;
        w.parts.push(part);
    }

    /// Mark that a word exists even if empty (`''`).
    pub(super) fn touch_word(&mut self, quoted: bool) {
        self.word_mut().quoted |= quoted;
    }

    fn finish_word(&mut self) {
        if let Some(w) = self.word.take() {
            if let Some(strip) = self.expect_delim.take() {
                self.heredocs.push(PendingHeredoc {
                    cmd: self.out.commands.len(),
                    delimiter: w.text.clone(),
                    strip_tabs: strip,
                    quoted: w.quoted,
                });
            } else if self.expect_herestring {
                self.expect_herestring = false;
                self.cur.stdin_text.push(w.text.clone());
            }
            self.cur.words.push(w);
        }
    }

    fn finish_command(&mut self, piped_next: bool) {
        self.finish_word();
        let mut cmd = std::mem::take(&mut self.cur);
        cmd.piped = self.next_piped;
        self.next_piped = piped_next;
        // A heredoc registered against an empty command keeps its index: nothing is pushed.
        if !cmd.words.is_empty() || !cmd.stdin_text.is_empty() {
            self.out.commands.push(cmd);
        }
    }

    fn push_op(&mut self, op: &str) {
        self.finish_word();
        self.cur.words.push(Word {
            text: op.to_string(),
            op: true,
            ..Word::default()
        });
    }

    pub(super) fn current_char(&self) -> char {
        self.src[self.i..].chars().next().unwrap_or('\0')
    }

    fn run(&mut self) {
        while self.i < self.s.len() {
            let b = self.s[self.i];
            if self.word_only && b" \t\r\n;&|()<>#".contains(&b) {
                self.push_char(b as char, false);
                self.i += 1;
                continue;
            }
            match b {
                b' ' | b'\t' | b'\r' => {
                    self.finish_word();
                    self.i += 1;
                }
                b'\n' => {
                    self.finish_command(false);
                    self.i += 1;
                    self.read_heredoc_bodies();
                }
                b';' => {
                    self.finish_command(false);
                    self.i += 1;
                    while self.peek(0) == Some(b';') || self.peek(0) == Some(b'&') {
                        self.i += 1;
                    }
                }
                b'&' => {
                    if self.peek(1) == Some(b'&') {
                        self.finish_command(false);
                        self.i += 2;
                    } else if self.peek(1) == Some(b'>') {
                        let op = if self.peek(2) == Some(b'>') {
                            "&>>"
                        } else {
                            "&>"
                        };
                        self.i += op.len();
                        self.push_op(op);
                    } else {
                        self.finish_command(false);
                        self.i += 1;
                    }
                }
                b'|' => {
                    if self.peek(1) == Some(b'|') {
                        self.finish_command(false);
                        self.i += 2;
                    } else {
                        self.finish_command(true);
                        self.i += if self.peek(1) == Some(b'&') { 2 } else { 1 };
                    }
                }
                b'(' | b')' => {
                    self.finish_command(false);
                    self.i += 1;
                }
                b'<' | b'>' => self.redirect(),
                b'\'' => {
                    self.i += 1;
                    let start = self.i;
                    while self.i < self.s.len() && self.s[self.i] != b'\'' {
                        self.i += 1;
                    }
                    let text = &self.src[start..self.i];
                    self.push_lit(text, true);
                    self.touch_word(true);
                    self.i += 1;
                }
                b'"' => self.double_quoted(),
                b'\\' => {
                    if self.peek(1) == Some(b'\n') {
                        self.i += 2;
                    } else if self.i + 1 < self.s.len() {
                        self.i += 1;
                        let c = self.current_char();
                        self.push_char(c, true);
                        self.i += c.len_utf8();
                    } else {
                        self.i += 1;
                    }
                }
                b'`' => self.backtick(false),
                b'$' => self.dollar(false),
                b'#' if self.word.is_none() => {
                    while self.i < self.s.len() && self.s[self.i] != b'\n' {
                        self.i += 1;
                    }
                }
                _ => {
                    let c = self.current_char();
                    self.push_char(c, false);
                    self.i += c.len_utf8();
                }
            }
        }
        self.finish_command(false);
    }

    fn redirect(&mut self) {
        let b = self.s[self.i];
        // Process substitution: `<(cmd)` / `>(cmd)`, a word naming the command's output.
        if self.peek(1) == Some(b'(') && self.word.is_none() {
            let raw_start = self.i;
            self.i += 1;
            let inner = self.balanced();
            let raw = self.src[raw_start..self.i].to_string();
            self.out.substitutions.push(inner.clone());
            self.push_part(&raw, Part::ProcSub { text: inner }, false);
            self.finish_word();
            return;
        }
        // A word made only of digits directly before the operator is its file descriptor.
        let mut op = String::new();
        if let Some(w) = &self.word
            && !w.quoted
            && !w.text.is_empty()
            && w.text.bytes().all(|c| c.is_ascii_digit())
        {
            op = self.word.take().map(|w| w.text).unwrap_or_default();
        }
        self.finish_word();
        if b == b'<' {
            for (form, delim) in [("<<<", None), ("<<-", Some(true)), ("<<", Some(false))] {
                if self.src[self.i..].starts_with(form) {
                    op.push_str(form);
                    self.i += form.len();
                    self.push_op(&op);
                    match delim {
                        None => self.expect_herestring = true,
                        Some(strip) => self.expect_delim = Some(strip),
                    }
                    return;
                }
            }
        }
        op.push(b as char);
        self.i += 1;
        while let Some(c) = self.peek(0) {
            if c == b'>' || c == b'&' || c == b'|' {
                op.push(c as char);
                self.i += 1;
                if c != b'>' {
                    break;
                }
            } else {
                break;
            }
        }
        self.push_op(&op);
    }

    /// At `(`: return the text up to the matching `)` and move past it.
    pub(super) fn balanced(&mut self) -> String {
        debug_assert_eq!(self.s.get(self.i), Some(&b'('));
        let start = self.i + 1;
        match lift::closing_paren(self.s, self.i) {
            Some(end) => {
                self.i = end + 1;
                self.src[start..end].to_string()
            }
            None => {
                self.i = self.s.len();
                self.src[start.min(self.s.len())..].to_string()
            }
        }
    }

    /// At a backtick: a command substitution up to the next unescaped backtick.
    pub(super) fn backtick(&mut self, dq: bool) {
        self.i += 1;
        let mut inner = String::new();
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'`' => {
                    self.i += 1;
                    break;
                }
                b'\\' if matches!(self.peek(1), Some(b'`' | b'\\' | b'$')) => {
                    inner.push(self.s[self.i + 1] as char);
                    self.i += 2;
                }
                _ => {
                    let c = self.current_char();
                    inner.push(c);
                    self.i += c.len_utf8();
                }
            }
        }
        let raw = format!("`{inner}`");
        self.out.substitutions.push(inner.clone());
        self.push_part(&raw, Part::Sub { text: inner, dq }, dq);
    }

    /// After a newline: read the bodies of heredocs opened on the previous line(s).
    fn read_heredoc_bodies(&mut self) {
        let pending = std::mem::take(&mut self.heredocs);
        for h in pending {
            let mut body = String::new();
            while self.i < self.s.len() {
                let end = self.src[self.i..]
                    .find('\n')
                    .map(|p| self.i + p)
                    .unwrap_or(self.s.len());
                let line = &self.src[self.i..end];
                self.i = (end + 1).min(self.s.len());
                let cmp = if h.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line
                };
                if cmp.trim_end_matches('\r') == h.delimiter {
                    break;
                }
                body.push_str(cmp);
                body.push('\n');
            }
            if !h.quoted {
                // An unquoted heredoc's body is expanded: its substitutions run.
                self.out.substitutions.extend(lift::substitutions(&body));
            }
            if let Some(cmd) = self.out.commands.get_mut(h.cmd) {
                cmd.stdin_text.push(body);
            } else {
                self.cur.stdin_text.push(body);
            }
        }
    }
}
