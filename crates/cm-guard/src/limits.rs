//! What the guard could not examine, noted while it reads a command.
//!
//! Reading a command line has bounds (nesting, segment count, brace words, word length, the
//! alternatives of a word, the inputs fed through `xargs`, a time budget): without them a
//! hostile line could make the hook run for seconds, and the agent's hook timeout lets a command
//! run when the guard does not answer. A bound that is reached leaves part of the command
//! unread, and "nothing found" in the part that was read says nothing about the rest. So every
//! bound notes itself here, and [`crate::evaluate_at`] turns a note into a deny naming
//! the bound, on commands the quick reject let through (a command with no keyword of any pack
//! cannot match a rule, however much of it is unread).
//!
//! The same notebook carries the commands whose program name is computed at run time
//! (`$a$b -rf ~`, `$(rev <<< mr) -rf ~`): the guard cannot know what runs, and judges the rest of
//! the command as if each program its rules name were in its place.

use super::{Hit, Severity};
use std::cell::RefCell;
use std::rc::Rc;

/// One analysis bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// `bash -c` / `eval` / substitutions / code inside code nested deeper than examined.
    Nesting,
    /// More simple commands than examined.
    Segments,
    /// A brace expansion making more words than examined.
    Braces,
    /// A word too long to expand holds expansions.
    LongWord,
    /// A word with more alternatives than examined (`${A:-x}${B:-y}...`).
    Alternatives,
    /// More input lines or items fed to a command (`xargs`, `find -exec`) than examined.
    Inputs,
    /// The per-call time budget ran out.
    Time,
}

impl Limit {
    /// The id a deny names (`guard:limit-nesting`), usable in `cm guard allow`.
    pub fn rule(self) -> &'static str {
        match self {
            Limit::Nesting => "guard:limit-nesting",
            Limit::Segments => "guard:limit-segments",
            Limit::Braces => "guard:limit-braces",
            Limit::LongWord => "guard:limit-word-length",
            Limit::Alternatives => "guard:limit-alternatives",
            Limit::Inputs => "guard:limit-inputs",
            Limit::Time => "guard:limit-time",
        }
    }

    /// What was not examined, for the deny reason.
    pub fn why(self) -> &'static str {
        match self {
            Limit::Nesting => {
                "it nests shells, `eval`, substitutions or interpreter code deeper than the guard examines (6 levels), so what the innermost level runs was not checked"
            }
            Limit::Segments => {
                "it holds more commands than the guard examines (4,096), so the ones after them were not checked"
            }
            Limit::Braces => {
                "a brace expansion makes more words than the guard expands (256), so the rest were not checked"
            }
            Limit::LongWord => {
                "a word longer than the guard expands (4,096 characters) holds expansions, so what it becomes was not checked"
            }
            Limit::Alternatives => {
                "a word has more possible values than the guard follows (16), so some were not checked"
            }
            Limit::Inputs => {
                "more inputs are fed to a command (`xargs`, `find -exec`, `parallel`) than the guard examines, so the rest were not checked"
            }
            Limit::Time => {
                "checking it took longer than the guard's time budget (repository trauma patterns or a very large command), so it was not fully checked"
            }
        }
    }
}

/// What one reading of a command noted.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Notes {
    /// The first bound reached.
    pub cut: Option<Limit>,
    /// Shell segments whose program name could not be known: (the program as written, the
    /// arguments joined).
    pub computed: Vec<(String, String)>,
}

/// Shared by every nested reading of one command line (substitutions and nested shells work on
/// clones of the expansion state; they all write here).
#[derive(Debug, Clone, Default)]
pub struct Notebook(Rc<RefCell<Notes>>);

/// Commands with a computed program kept, at most (each costs a few rule checks).
const MAX_COMPUTED: usize = 16;

impl Notebook {
    /// Note that `limit` was reached (the first one reached is the one reported).
    pub fn cut(&self, limit: Limit) {
        self.0.borrow_mut().cut.get_or_insert(limit);
    }

    /// Note a command whose program is computed.
    pub fn computed(&self, program: &str, args: String) {
        let mut n = self.0.borrow_mut();
        if n.computed.len() < MAX_COMPUTED {
            n.computed.push((program.to_string(), args));
        } else {
            n.cut.get_or_insert(Limit::Segments);
        }
    }

    pub fn take(&self) -> Notes {
        std::mem::take(&mut self.0.borrow_mut())
    }
}

/// The deny for a command the guard could not read to its end.
pub fn hit(limit: Limit, command: &str) -> Hit {
    let shown: String = command.chars().take(120).collect();
    Hit {
        pack: "guard".into(),
        rule: limit.rule().into(),
        segment: if shown.len() < command.len() {
            format!("{shown}…")
        } else {
            shown
        },
        lang: "shell",
        severity: Severity::Critical,
        explanation: format!(
            "the guard could not check all of it: {}; a command it cannot read is refused rather than let through",
            limit.why()
        ),
        alternative: "run the steps as separate, plain commands (no shells nested in shells, no generated command lists), or put them in a script file the user can read first".into(),
        pattern: String::new(),
    }
}
