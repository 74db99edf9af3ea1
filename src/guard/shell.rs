//! A small, shell-aware tokenizer: enough of POSIX sh / bash syntax to know which words a command
//! line would really execute.
//!
//! It is not a shell. It does not expand variables or globs; it resolves quoting (`'..'`, `".."`,
//! `$'..'`, backslashes), splits simple commands on `;`, `&&`, `||`, `|`, `&`, newlines and
//! parentheses, keeps redirection operators as their own words, reads heredoc bodies and
//! here-strings, and lifts out the text of command substitutions (`$( )`, backticks, `<( )`) so
//! the caller can examine them as commands of their own. Quoting matters for the guard: a
//! dangerous command inside a quoted argument (`git commit -m "rm -rf /"`) is one word of an
//! innocent command, not a command.

/// One word of a simple command, after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Word {
    pub text: String,
    /// Part of the word was quoted (so `>` or `;` inside it are literal characters).
    pub quoted: bool,
    /// A redirection operator (`>`, `2>>`, `<<<`, ...), not an argument.
    pub op: bool,
}

/// A simple command: its words and what is fed to its standard input.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Command {
    pub words: Vec<Word>,
    /// Heredoc bodies and here-strings, in order.
    pub stdin_text: Vec<String>,
    /// Its standard input is the previous command's output (`a | b`).
    pub piped: bool,
}

/// A parsed command line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Parsed {
    pub commands: Vec<Command>,
    /// Text of command and process substitutions, to be parsed as command lines of their own.
    pub substitutions: Vec<String>,
}

struct PendingHeredoc {
    cmd: usize,
    delimiter: String,
    strip_tabs: bool,
}

struct Lexer<'a> {
    s: &'a [u8],
    src: &'a str,
    i: usize,
    out: Parsed,
    cur: Command,
    word: Option<Word>,
    heredocs: Vec<PendingHeredoc>,
    /// The next word is a heredoc delimiter (`Some(strip_tabs)`) or a here-string.
    expect_delim: Option<bool>,
    expect_herestring: bool,
    next_piped: bool,
}

/// Tokenise `src`.
pub fn parse(src: &str) -> Parsed {
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
    };
    lx.run();
    lx.out
}

impl<'a> Lexer<'a> {
    fn peek(&self, k: usize) -> Option<u8> {
        self.s.get(self.i + k).copied()
    }

    fn push_char(&mut self, c: char, quoted: bool) {
        let w = self.word.get_or_insert_with(|| Word {
            text: String::new(),
            quoted: false,
            op: false,
        });
        w.text.push(c);
        w.quoted |= quoted;
    }

    fn push_str(&mut self, s: &str, quoted: bool) {
        let w = self.word.get_or_insert_with(|| Word {
            text: String::new(),
            quoted: false,
            op: false,
        });
        w.text.push_str(s);
        w.quoted |= quoted;
    }

    /// Mark that a word exists even if empty (`''`).
    fn touch_word(&mut self, quoted: bool) {
        let w = self.word.get_or_insert_with(|| Word {
            text: String::new(),
            quoted: false,
            op: false,
        });
        w.quoted |= quoted;
    }

    fn finish_word(&mut self) {
        if let Some(w) = self.word.take() {
            if let Some(strip) = self.expect_delim.take() {
                self.heredocs.push(PendingHeredoc {
                    cmd: self.out.commands.len(),
                    delimiter: w.text.clone(),
                    strip_tabs: strip,
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
        if !cmd.words.is_empty() || !cmd.stdin_text.is_empty() {
            self.out.commands.push(cmd);
        } else {
            // A heredoc registered against this (empty) command index stays valid because
            // nothing was pushed; keep the index stable.
        }
    }

    fn push_op(&mut self, op: &str) {
        self.finish_word();
        self.cur.words.push(Word {
            text: op.to_string(),
            quoted: false,
            op: true,
        });
    }

    fn current_char(&self) -> char {
        self.src[self.i..].chars().next().unwrap_or('\0')
    }

    fn run(&mut self) {
        while self.i < self.s.len() {
            let b = self.s[self.i];
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
                    self.push_str(text, true);
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
                b'`' => {
                    let inner = self.backtick();
                    self.push_str(&format!("`{inner}`"), false);
                    self.out.substitutions.push(inner);
                }
                b'$' if self.peek(1) == Some(b'\'') => self.ansi_c(),
                b'$' if self.peek(1) == Some(b'"') => {
                    self.i += 1;
                }
                b'$' if self.peek(1) == Some(b'(') => {
                    let raw_start = self.i;
                    if self.peek(2) == Some(b'(') {
                        // Arithmetic: copy through the matching `))`.
                        self.i += 1;
                        let _ = self.balanced();
                        let src = self.src;
                        self.push_str(&src[raw_start..self.i], false);
                    } else {
                        self.i += 1;
                        let inner = self.balanced();
                        let src = self.src;
                        self.push_str(&src[raw_start..self.i], false);
                        self.out.substitutions.push(inner);
                    }
                }
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
        // Process substitution: `<(cmd)` / `>(cmd)`.
        if self.peek(1) == Some(b'(') && self.word.is_none() {
            self.i += 1;
            let inner = self.balanced();
            self.out.substitutions.push(inner);
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
            if self.src[self.i..].starts_with("<<<") {
                op.push_str("<<<");
                self.i += 3;
                self.push_op(&op);
                self.expect_herestring = true;
                return;
            }
            if self.src[self.i..].starts_with("<<-") {
                op.push_str("<<-");
                self.i += 3;
                self.push_op(&op);
                self.expect_delim = Some(true);
                return;
            }
            if self.src[self.i..].starts_with("<<") {
                op.push_str("<<");
                self.i += 2;
                self.push_op(&op);
                self.expect_delim = Some(false);
                return;
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

    fn double_quoted(&mut self) {
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
                b'`' => {
                    let inner = self.backtick();
                    self.push_str(&format!("`{inner}`"), true);
                    self.out.substitutions.push(inner);
                }
                b'$' if self.peek(1) == Some(b'(') && self.peek(2) != Some(b'(') => {
                    let raw_start = self.i;
                    self.i += 1;
                    let inner = self.balanced();
                    let raw = self.src[raw_start..self.i].to_string();
                    self.push_str(&raw, true);
                    self.out.substitutions.push(inner);
                }
                _ => {
                    let c = self.current_char();
                    self.push_char(c, true);
                    self.i += c.len_utf8();
                }
            }
        }
    }

    /// `$'...'`: backslash escapes for quotes and backslash only (others kept verbatim).
    fn ansi_c(&mut self) {
        self.i += 2;
        self.touch_word(true);
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\'' => {
                    self.i += 1;
                    return;
                }
                b'\\' if matches!(self.peek(1), Some(b'\'' | b'\\' | b'"')) => {
                    let c = self.s[self.i + 1] as char;
                    self.push_char(c, true);
                    self.i += 2;
                }
                b'\\' if self.peek(1) == Some(b'n') => {
                    self.push_char('\n', true);
                    self.i += 2;
                }
                _ => {
                    let c = self.current_char();
                    self.push_char(c, true);
                    self.i += c.len_utf8();
                }
            }
        }
    }

    /// At `(`: return the text up to the matching `)` and move past it. Quotes and nested
    /// parentheses are respected.
    fn balanced(&mut self) -> String {
        debug_assert_eq!(self.s.get(self.i), Some(&b'('));
        self.i += 1;
        let start = self.i;
        let mut depth = 1usize;
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'\\' => self.i += 2,
                b'\'' => {
                    self.i += 1;
                    while self.i < self.s.len() && self.s[self.i] != b'\'' {
                        self.i += 1;
                    }
                    self.i += 1;
                }
                b'"' => {
                    self.i += 1;
                    while self.i < self.s.len() && self.s[self.i] != b'"' {
                        if self.s[self.i] == b'\\' {
                            self.i += 1;
                        }
                        self.i += 1;
                    }
                    self.i += 1;
                }
                b'(' => {
                    depth += 1;
                    self.i += 1;
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        let inner = self.src[start..self.i].to_string();
                        self.i += 1;
                        return inner;
                    }
                    self.i += 1;
                }
                _ => self.i += 1,
            }
        }
        self.i = self.s.len();
        self.src[start.min(self.s.len())..].to_string()
    }

    /// At a backtick: the text up to the next unescaped backtick.
    fn backtick(&mut self) -> String {
        self.i += 1;
        let mut inner = String::new();
        while self.i < self.s.len() {
            match self.s[self.i] {
                b'`' => {
                    self.i += 1;
                    return inner;
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
        inner
    }

    /// After a newline: read the bodies of heredocs opened on the previous line(s).
    fn read_heredoc_bodies(&mut self) {
        let pending = std::mem::take(&mut self.heredocs);
        for h in pending {
            let mut body = String::new();
            loop {
                if self.i >= self.s.len() {
                    break;
                }
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
            if let Some(cmd) = self.out.commands.get_mut(h.cmd) {
                cmd.stdin_text.push(body);
            } else {
                self.cur.stdin_text.push(body);
            }
        }
    }
}

/// `src` with the text inside quotes replaced by `_` (the quotes kept), so a shape that only
/// appears inside an argument (`echo ":(){ :|:& };:"`) is not mistaken for code.
pub fn blank_quoted(src: &str) -> String {
    let mut out = String::with_capacity(src.len());
    let mut chars = src.chars();
    let mut quote: Option<char> = None;
    while let Some(c) = chars.next() {
        match quote {
            None => {
                out.push(c);
                if c == '\\' {
                    if let Some(n) = chars.next() {
                        out.push(n);
                    }
                } else if c == '\'' || c == '"' {
                    quote = Some(c);
                }
            }
            Some(q) => {
                if c == q {
                    out.push(c);
                    quote = None;
                } else if c == '\\' && q == '"' {
                    out.push('_');
                    if chars.next().is_some() {
                        out.push('_');
                    }
                } else {
                    out.push(if c == '\n' { '\n' } else { '_' });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(src: &str) -> Vec<Vec<String>> {
        parse(src)
            .commands
            .iter()
            .map(|c| c.words.iter().map(|w| w.text.clone()).collect())
            .collect()
    }

    #[test]
    fn splits_on_operators_and_keeps_quotes_together() {
        assert_eq!(
            words(r#"git add . && git commit -m "rm -rf /; x" || echo 'a|b' ; ls | wc -l"#),
            vec![
                vec!["git", "add", "."],
                vec!["git", "commit", "-m", "rm -rf /; x"],
                vec!["echo", "a|b"],
                vec!["ls"],
                vec!["wc", "-l"],
            ]
        );
    }

    #[test]
    fn quote_and_backslash_tricks_collapse() {
        assert_eq!(words(r#"r''m -r"f" \/"#), vec![vec!["rm", "-rf", "/"]]);
        assert_eq!(words("\\rm -rf x"), vec![vec!["rm", "-rf", "x"]]);
        assert_eq!(words("r\\\nm x"), vec![vec!["rm", "x"]]);
        assert_eq!(words("$'rm' x"), vec![vec!["rm", "x"]]);
    }

    #[test]
    fn substitutions_are_lifted_out() {
        let p = parse(r#"echo "$(rm -rf ~)" `git reset --hard` <(ls)"#);
        assert_eq!(p.substitutions, vec!["rm -rf ~", "git reset --hard", "ls"]);
    }

    #[test]
    fn heredoc_bodies_attach_to_their_command() {
        let p = parse("python3 - <<'EOF'\nimport shutil\nshutil.rmtree('/')\nEOF\necho done");
        assert_eq!(p.commands.len(), 2);
        assert_eq!(
            p.commands[0].stdin_text,
            vec!["import shutil\nshutil.rmtree('/')\n"]
        );
        assert_eq!(p.commands[1].words[0].text, "echo");
        let p = parse("bash <<< 'rm -rf /'");
        assert_eq!(p.commands[0].stdin_text, vec!["rm -rf /"]);
    }

    #[test]
    fn quoted_text_is_blanked() {
        assert_eq!(
            blank_quoted(r#"echo ":(){ x }" 'a b' c"#),
            r#"echo "________" '___' c"#
        );
    }

    #[test]
    fn redirections_are_operator_words() {
        let p = parse("cat x 2>/dev/null > /dev/sda");
        let w: Vec<(&str, bool)> = p.commands[0]
            .words
            .iter()
            .map(|w| (w.text.as_str(), w.op))
            .collect();
        assert_eq!(
            w,
            vec![
                ("cat", false),
                ("x", false),
                ("2>", true),
                ("/dev/null", false),
                (">", true),
                ("/dev/sda", false)
            ]
        );
        assert!(parse("a | b").commands[1].piped);
    }
}
