//! The shell's word expansion, as far as it can be known without running anything: what `rm
//! -rf ${HOME:?}`, `X=~; rm -rf $X`, `{rm,-rf,~}`, `rm -rf /h*` or `rm -rf "$(pwd)"` would
//! really be given.
//!
//! Each word of a simple command goes through brace expansion ([`brace`]), tilde expansion,
//! parameter expansion with its operators ([`param`]), command substitutions whose output is
//! plain to see (`$(echo ~)`, `$(pwd)`, `$(realpath ~)`: [`subst`]), field splitting on IFS,
//! globs matched against the places the rules protect ([`glob`]) and paths put in one spelling
//! ([`path`]: `/etc/../*` is `/*`, the home directory is `~`, the working directory `.`). The
//! [`State`] carries what the line itself set: variables assigned earlier (`D=$HOME;`,
//! `export`, `for d in ~`, `read`), positional parameters (`bash -c '...' _ ~`), `cd`.
//!
//! What cannot be known (a variable from the environment, the output of `ls`) is kept as
//! written, and decided on by what the rules protect: a word may expand to several
//! alternatives (`${X:-/}` is `$X` or `/`), each a world of its own, and a command with
//! unknown parts also runs in the world where they are empty (`rm -rf "$HOME/$SUB"` is `rm -rf
//! ~/` when SUB is unset). The whole front end costs microseconds and compiles nothing; the
//! guard only runs it once the quick reject let the command through.

pub mod brace;
pub mod command;
pub mod glob;
pub mod param;
pub mod path;
pub mod printf;
pub mod subst;
pub mod word;

pub use command::{Expanded, expand_command};
use word::Text;

/// What the hook knows about where the command runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Context {
    /// The user's home directory (`HOME` of the hook's environment).
    pub home: Option<String>,
    /// The working directory the agent runs the command in (the payload's `cwd`).
    pub cwd: Option<String>,
}

impl Context {
    /// The hook's view: `HOME` from the environment, the given working directory.
    pub fn from_env(cwd: Option<&std::path::Path>) -> Context {
        let home = std::env::var("HOME")
            .ok()
            .filter(|h| h.starts_with('/') && h.len() > 1)
            .map(|h| trim_slashes(&h));
        Context {
            home,
            cwd: cwd.map(|c| trim_slashes(&c.to_string_lossy())),
        }
    }
}

fn trim_slashes(p: &str) -> String {
    let t = p.trim_end_matches('/');
    if t.is_empty() { "/".into() } else { t.into() }
}

/// A variable's value: one or more alternatives (`for d in a b`, `${X:-a}`), or unknown (it
/// comes from the environment).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// The values it may have.
    Known(Vec<Text>),
    /// Not known (from the environment).
    Unknown,
}

impl Value {
    /// A known value of one unquoted text.
    pub fn known(s: &str) -> Value {
        Value::Known(vec![word::text(s, 0)])
    }
}

/// What the shell running the line knows at a point of it.
#[derive(Debug, Clone)]
pub struct State {
    /// Where the line runs (home, data directory, working directory).
    pub ctx: Context,
    vars: Vec<(String, Value)>,
    /// `$0`, `$1`, ...; `None` when they are not known.
    pub positional: Option<Vec<Text>>,
    /// The working directory, while `cd` is followed.
    pub cwd: Option<String>,
    /// Nesting of substitutions being evaluated.
    pub depth: u8,
    /// Where bounds reached and computed program names are noted (shared by nested states).
    pub notes: crate::limits::Notebook,
}

/// Substitutions nested deeper than this are not evaluated.
const MAX_DEPTH: u8 = 4;

impl State {
    /// The state at the start of a line run in `ctx`.
    pub fn new(ctx: &Context) -> State {
        State {
            cwd: ctx.cwd.clone(),
            ctx: ctx.clone(),
            vars: Vec::new(),
            positional: None,
            depth: 0,
            notes: Default::default(),
        }
    }

    /// A nested shell (`bash -c SCRIPT ARG0 ARGS`): the same variables (exported or not, the
    /// guard cannot tell), its own positional parameters.
    pub fn child(&self, positional: Option<Vec<Text>>) -> State {
        let mut s = self.clone();
        s.positional = positional;
        s
    }

    /// Set `name` to `value` (an assignment, `read`, a `for` loop).
    pub fn set(&mut self, name: &str, value: Value) {
        match self.vars.iter_mut().find(|(n, _)| n == name) {
            Some(slot) => slot.1 = value,
            None => self.vars.push((name.to_string(), value)),
        }
    }

    /// The value of `name`: set in the line, or one the guard knows (`HOME`, `PWD`, `IFS`).
    pub fn get(&self, name: &str) -> Value {
        if let Some((_, v)) = self.vars.iter().find(|(n, _)| n == name) {
            return v.clone();
        }
        match name {
            "HOME" => Value::known(&self.home()),
            "PWD" => match &self.cwd {
                Some(c) => Value::known(c),
                None => Value::Unknown,
            },
            "IFS" => Value::known(" \t\n"),
            _ => Value::Unknown,
        }
    }

    /// The home directory as the line sees it (`HOME=/x` earlier changes `~`); `~` when not known.
    pub fn home(&self) -> String {
        if let Some((_, Value::Known(v))) = self.vars.iter().find(|(n, _)| n == "HOME")
            && let Some(h) = v.first()
        {
            return word::plain(h);
        }
        self.ctx.home.clone().unwrap_or_else(|| "~".into())
    }

    /// The field separators `$IFS` holds now.
    pub fn ifs(&self) -> String {
        match self.get("IFS") {
            Value::Known(v) => v.first().map(|t| word::plain(t)).unwrap_or_default(),
            Value::Unknown => " \t\n".into(),
        }
    }

    /// May a substitution be evaluated at this depth?
    pub fn can_nest(&self) -> bool {
        self.depth < MAX_DEPTH
    }
}

#[cfg(test)]
mod tests;
