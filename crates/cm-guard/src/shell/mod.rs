//! A small, shell-aware tokenizer: enough of POSIX sh / bash syntax to know which words a command
//! line would really execute, and what each word is made of.
//!
//! It resolves quoting (`'..'`, `".."`, `$'..'` with its escapes, backslashes), splits simple
//! commands on `;`, `&&`, `||`, `|`, `&`, newlines and parentheses, keeps redirection operators
//! as their own words, reads heredoc bodies and here-strings, and lifts out the text of command
//! substitutions (`$( )`, backticks, `<( )`, also inside `$(( ))`, `${..}` and unquoted heredoc
//! bodies) so the caller can examine them as commands of their own. Each word also keeps its
//! [`Part`]s (literal text quoted or not, parameter expansions, substitutions), which is what
//! [`crate::expand`] needs to compute what the shell would make of it. Quoting matters
//! for the guard: a dangerous command inside a quoted argument (`git commit -m "rm -rf /"`) is
//! one word of an innocent command, not a command.

mod lexer;
pub mod lift;
mod quotes;

/// One word of a simple command, after quote removal.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Word {
    /// The word with quotes removed; expansions (`$X`, `$(..)`) kept as written.
    pub text: String,
    /// Part of the word was quoted (so `>` or `;` inside it are literal characters).
    pub quoted: bool,
    /// A redirection operator (`>`, `2>>`, `<<<`, ...), not an argument.
    pub op: bool,
    /// What the word is made of, in order (empty for words built after expansion).
    pub parts: Vec<Part>,
    /// The contents of the file this word names, when known (a process substitution whose
    /// output is plain to see: `<(echo 'rm -rf ~')`).
    pub file: Option<String>,
}

impl Word {
    /// A word of plain text (no parts to expand).
    pub fn plain(text: impl Into<String>, quoted: bool) -> Word {
        Word {
            text: text.into(),
            quoted,
            ..Word::default()
        }
    }
}

/// A piece of a word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Part {
    /// Literal text. `quoted`: from quotes or a backslash, so no expansion applies to it.
    Lit { text: String, quoted: bool },
    /// `$NAME`, `$1`, `$@` (the name) or `${...}` (the text between the braces, starting with
    /// `{`), inside double quotes (`dq`) or not.
    Param { expr: String, dq: bool },
    /// `$(...)` or backticks: the command line inside.
    Sub { text: String, dq: bool },
    /// `$((...))`: the expression inside.
    Arith { text: String, dq: bool },
    /// `<(...)` / `>(...)`: the command line whose output the word names as a file.
    ProcSub { text: String },
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

/// Tokenise `src`.
pub fn parse(src: &str) -> Parsed {
    lexer::parse(src)
}

/// `src` read as one word, blanks and operators included (`a b` in `${X:-a b}`).
pub fn parse_word(src: &str) -> Word {
    lexer::parse_word(src)
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
mod tests;
