//! One word through the shell's expansions: braces, tilde, parameters and substitutions, field
//! splitting, globs, and one spelling for paths.
//!
//! While a word is being expanded it is a [`Text`]: characters with flags saying where each
//! came from, because that decides what happens to it next (only unquoted characters are
//! globbed, only the results of unquoted expansions are split, unknown text is dropped in the
//! world where it is empty).

use super::{State, brace, glob, param, path, subst};
use crate::shell::{Part, Word};

/// From quotes (or a backslash): the word counts as quoted.
pub const Q: u8 = 1;
/// Glob characters here are active.
pub const A: u8 = 2;
/// Field splitting applies (the result of an unquoted expansion).
pub const S: u8 = 4;
/// Unknown text that may be empty (a variable from the environment).
pub const U: u8 = 8;
/// Unknown text, kept as written.
pub const O: u8 = 16;
/// A break between fields whatever the quoting (between the words of `"$@"`).
pub const F: u8 = 32;

/// One character of an expanded word with its flags (quoted, from a variable, unknown, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EChar {
    /// The character.
    pub c: char,
    /// Its flags (the constants above).
    pub f: u8,
}

/// An expanded word's characters with their flags.
pub type Text = Vec<EChar>;

/// `s` with every character flagged `f`.
pub fn text(s: &str, f: u8) -> Text {
    s.chars().map(|c| EChar { c, f }).collect()
}

/// The characters alone.
pub fn plain(t: &[EChar]) -> String {
    t.iter().map(|e| e.c).collect()
}

/// An expanded word.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field {
    /// The word's text.
    pub text: String,
    /// Whether any of it was quoted.
    pub quoted: bool,
    /// The text with its unknown parts dropped, when it has any that may be empty.
    pub empty_form: Option<String>,
    /// Part of it could not be known.
    pub opaque: bool,
    /// The file contents it names (a process substitution with a plain output).
    pub file: Option<String>,
    /// A redirection operator.
    pub op: bool,
}

/// How a word is expanded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// An ordinary word: everything applies.
    Word,
    /// The value of an assignment: no braces, splitting or globs; tilde after `:` too.
    Assign,
}

/// A word longer than this is taken as written: brace expansion and pattern operators cost
/// more than linear time, and no real path or command word comes near it.
const MAX_WORD: usize = 4096;

/// Alternatives a single word may have, at most this many.
const MAX_ALTERNATIVES: usize = 16;

#[derive(Clone, Copy)]
enum Atom<'w> {
    Ch(char, bool),
    Part(&'w Part),
}

impl<'w> Atom<'w> {
    fn unquoted(self, want: char) -> bool {
        matches!(self, Atom::Ch(c, false) if c == want)
    }
}

/// Does this word need expanding at all? (Most words of most commands do not.)
pub fn is_plain(w: &Word) -> bool {
    w.op || match w.parts.as_slice() {
        [] => true,
        [Part::Lit { text, quoted }] => {
            *quoted
                || !text
                    .bytes()
                    .any(|b| matches!(b, b'{' | b'~' | b'*' | b'?' | b'[' | b'/' | b'.'))
        }
        _ => false,
    }
}

/// Expand `word`: its alternatives, each a list of fields.
pub fn expand(word: &Word, st: &State, mode: Mode) -> Vec<Vec<Field>> {
    if word.text.len() > MAX_WORD && has_expansions(word) {
        st.notes.cut(crate::limits::Limit::LongWord);
    }
    if word.parts.is_empty() || word.text.len() > MAX_WORD {
        // `''` or `""`: one empty field; a word built after expansion: itself.
        return vec![vec![Field {
            text: word.text.clone(),
            quoted: word.quoted,
            empty_form: None,
            opaque: false,
            file: word.file.clone(),
            op: word.op,
        }]];
    }
    let atoms = atoms(&word.parts);
    let braced = if mode == Mode::Word {
        let (words, cut) = brace::expand(&atoms, |a, c| a.unquoted(c));
        if cut {
            st.notes.cut(crate::limits::Limit::Braces);
        }
        words
    } else {
        vec![atoms]
    };
    let mut alternatives: Vec<Vec<Field>> = Vec::new();
    let mut file = None;
    for (k, atoms) in braced.iter().enumerate() {
        for (alt_i, t) in substitute(atoms, st, mode, &mut file)
            .into_iter()
            .enumerate()
        {
            let fields = finish(t, st, mode, word.quoted, &file);
            // Brace products are fields of one word; parameter alternatives are alternatives.
            if k == 0 || alternatives.len() <= alt_i {
                alternatives.push(fields);
            } else {
                alternatives[alt_i].extend(fields);
            }
        }
    }
    alternatives
}

/// The word's text after tilde, parameter and command substitution (no braces, splitting or
/// globs): the operand of `${X:-word}`.
pub fn texts(word: &Word, st: &State) -> Vec<Text> {
    let mut file = None;
    substitute(&atoms(&word.parts), st, Mode::Word, &mut file)
}

/// Does the word hold anything unquoted the shell would expand (braces, globs, tilde, a
/// parameter or substitution, which may split into several words)? A long double-quoted word
/// (a commit message built with `"$(cat <<EOF ...)"`) is one argument whatever it holds, and
/// its substitutions are examined as commands of their own.
fn has_expansions(word: &Word) -> bool {
    word.parts.iter().any(|p| match p {
        Part::Lit { text, quoted } => {
            !*quoted
                && text
                    .bytes()
                    .any(|b| matches!(b, b'{' | b'~' | b'*' | b'?' | b'['))
        }
        Part::Param { dq, .. } | Part::Sub { dq, .. } | Part::Arith { dq, .. } => !*dq,
        Part::ProcSub { .. } => true,
    })
}

fn atoms(parts: &[Part]) -> Vec<Atom<'_>> {
    let mut v = Vec::new();
    for p in parts {
        match p {
            Part::Lit { text, quoted } => v.extend(text.chars().map(|c| Atom::Ch(c, *quoted))),
            other => v.push(Atom::Part(other)),
        }
    }
    v
}

/// Tilde, parameter and command substitution: the alternatives of the word's text.
fn substitute(atoms: &[Atom], st: &State, mode: Mode, file: &mut Option<String>) -> Vec<Text> {
    let mut alts: Vec<Text> = vec![Vec::new()];
    let mut i = 0;
    let mut at_tilde_point = true;
    while i < atoms.len() {
        if at_tilde_point && atoms[i].unquoted('~') {
            let (value, used) = tilde(&atoms[i..], st, mode);
            if let Some(v) = value {
                alts.iter_mut().for_each(|a| a.extend(text(&v, 0)));
                i += used;
                at_tilde_point = false;
                continue;
            }
        }
        at_tilde_point = false;
        match atoms[i] {
            Atom::Ch(c, quoted) => {
                let f = if quoted { Q } else { A };
                alts.iter_mut().for_each(|a| a.push(EChar { c, f }));
                if mode == Mode::Assign && !quoted && (c == ':' || (c == '=' && i == 0)) {
                    at_tilde_point = true;
                }
            }
            Atom::Part(p) => {
                let options = part(p, st, file);
                if alts.len() * options.len() > MAX_ALTERNATIVES {
                    // Too many to multiply out: the first option, in every alternative, and
                    // the others are noted as unexamined.
                    st.notes.cut(crate::limits::Limit::Alternatives);
                    alts.iter_mut()
                        .for_each(|a| a.extend(options[0].iter().copied()));
                } else {
                    alts = alts
                        .iter()
                        .flat_map(|a| {
                            options.iter().map(move |o| {
                                let mut n = a.clone();
                                n.extend(o.iter().copied());
                                n
                            })
                        })
                        .collect();
                }
            }
        }
        i += 1;
    }
    alts
}

/// `~`, `~/`, `~+`: the directory and how many atoms it took; `None` when it stays literal.
fn tilde(atoms: &[Atom], st: &State, mode: Mode) -> (Option<String>, usize) {
    let mut name = String::new();
    let mut used = 1;
    for a in &atoms[1..] {
        match a {
            Atom::Ch('/', false) => break,
            Atom::Ch(':', false) if mode == Mode::Assign => break,
            Atom::Ch(c, false) => name.push(*c),
            _ => return (None, 0),
        }
        used += 1;
    }
    let value = match name.as_str() {
        "" => Some(st.home()),
        // The working directory: `.` when the hook was not told it.
        "+" => Some(st.cwd.clone().unwrap_or_else(|| ".".into())),
        _ => None,
    };
    (value, used)
}

/// The alternatives of one expansion.
fn part(p: &Part, st: &State, file: &mut Option<String>) -> Vec<Text> {
    match p {
        Part::Lit { text: t, quoted } => vec![text(t, if *quoted { Q } else { A })],
        Part::Param { expr, dq } => param::expand(expr, *dq, st),
        Part::Sub { text: t, dq } => match subst::output(t, st) {
            Some(out) => vec![known(out.trim_end_matches('\n'), *dq)],
            None => vec![unknown(&format!("$({t})"), *dq, true)],
        },
        Part::Arith { text: t, dq } => vec![unknown(&format!("$(({t}))"), *dq, false)],
        Part::ProcSub { text: t } => {
            *file = subst::output(t, st);
            vec![text(&format!("<({t})"), O)]
        }
    }
}

/// Known text from an expansion, quoted or not.
pub fn known(s: &str, dq: bool) -> Text {
    text(s, if dq { Q } else { A | S })
}

/// Unknown text kept as written; `may_be_empty` unless the shell guarantees a value.
pub fn unknown(raw: &str, dq: bool, may_be_empty: bool) -> Text {
    let mut f = O;
    if dq {
        f |= Q;
    }
    if may_be_empty {
        f |= U;
    }
    text(raw, f)
}

/// Field splitting, globs and paths for one alternative.
fn finish(t: Text, st: &State, mode: Mode, quoted_word: bool, file: &Option<String>) -> Vec<Field> {
    let pieces = if mode == Mode::Word {
        split(t, &st.ifs())
    } else {
        vec![t]
    };
    let mut out = Vec::new();
    for p in pieces {
        let quoted = quoted_word || p.iter().any(|e| e.f & Q != 0);
        if p.is_empty() && !quoted {
            continue;
        }
        let raw = plain(&p);
        let matches = (mode == Mode::Word)
            .then(|| glob::protected_matches(&p, st))
            .flatten();
        let texts = matches.unwrap_or_else(|| vec![raw]);
        let empty_form = p
            .iter()
            .any(|e| e.f & U != 0)
            .then(|| path::canonical(&plain_without(&p, U), st));
        let opaque = p.iter().any(|e| e.f & O != 0);
        for t in texts {
            out.push(Field {
                text: path::canonical(&t, st),
                quoted,
                empty_form: empty_form.clone(),
                opaque,
                file: file.clone(),
                op: false,
            });
        }
    }
    out
}

fn plain_without(t: &[EChar], flag: u8) -> String {
    t.iter().filter(|e| e.f & flag == 0).map(|e| e.c).collect()
}

/// Split where an unquoted expansion produced an IFS character.
fn split(t: Text, ifs: &str) -> Vec<Text> {
    let breaks = |e: &EChar| e.f & F != 0 || (e.f & S != 0 && ifs.contains(e.c));
    if !t.iter().any(breaks) {
        return vec![t];
    }
    let mut out = Vec::new();
    let mut cur = Vec::new();
    let mut started = false;
    for e in t {
        if breaks(&e) {
            if started || !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            started = false;
            continue;
        }
        started = true;
        cur.push(e);
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.retain(|f: &Text| !f.is_empty());
    out
}

/// The value of an assignment (`D=$HOME`, `X=~`): tilde (also after `:`), parameters and
/// substitutions, no braces, splitting or globs. Its alternatives.
pub fn assign_texts(value: &Word, st: &State) -> Vec<Text> {
    if value.parts.is_empty() {
        return vec![text(&value.text, if value.quoted { Q } else { 0 })];
    }
    let mut file = None;
    substitute(&atoms(&value.parts), st, Mode::Assign, &mut file)
}
