//! A simple command's words expanded, and what the command changes in the line's [`State`]:
//! assignments (`D=$HOME`), `export`/`declare`/`local`/`readonly`, `unset`, `for NAME in ...`,
//! `set --`, `shift`, `cd`.

use super::word::{self, Field, Mode, O, Text, U};
use super::{State, Value, path};
use crate::shell::{Part, Word};

/// Worlds a command may run in, at most (beyond that, alternatives are merged into one).
const MAX_WORLDS: usize = 8;

/// A command after expansion.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    /// Its words in each world it may run in (most commands: one).
    pub worlds: Vec<Vec<Word>>,
    /// Some of its text could not be known.
    pub opaque: bool,
}

/// Words that may precede a command without being it.
const KEYWORDS: &[&str] = &[
    "!", "{", "}", "if", "then", "else", "elif", "do", "while", "until", "fi", "done",
];

/// A simple command's words expanded as the shell would (assignments, substitutions, splitting, globs), the unknown parts marked.
pub fn expand_command(words: &[Word], st: &mut State) -> Expanded {
    let assigns = words.first().is_some_and(is_assignment);
    if !assigns && words.iter().all(word::is_plain) {
        effects(words, words, st);
        return Expanded {
            worlds: vec![words.to_vec()],
            opaque: false,
        };
    }
    let mut per_word: Vec<Vec<Vec<Field>>> = Vec::with_capacity(words.len());
    let mut program_seen = false;
    let mut after_heredoc_op = false;
    let mut assignments: Vec<(String, Vec<Text>)> = Vec::new();
    for w in words {
        if !program_seen
            && !w.op
            && let Some((name, value)) = split_assignment(w)
        {
            let texts = word::assign_texts(&value, st);
            let alts = texts
                .iter()
                .map(|t| vec![assignment_field(&name, t, st)])
                .collect();
            per_word.push(alts);
            assignments.push((name, texts));
            continue;
        }
        if w.op || after_heredoc_op || word::is_plain(w) {
            after_heredoc_op = w.op && w.text.contains("<<") && !w.text.contains("<<<");
            per_word.push(vec![vec![as_field(w)]]);
            if !w.op && !is_assignment(w) {
                program_seen = true;
            }
            continue;
        }
        program_seen = true;
        per_word.push(word::expand(w, st, Mode::Word));
    }
    let opaque = per_word
        .iter()
        .any(|alts| alts.iter().flatten().any(|f| f.opaque));
    let mut worlds = worlds(&per_word);
    if let Some(empty) = empty_world(&per_word) {
        worlds.push(empty);
    }
    effects(&worlds[0], words, st);
    if !program_seen {
        for (name, texts) in assignments {
            st.set(&name, Value::Known(texts));
        }
    }
    Expanded { worlds, opaque }
}

fn as_field(w: &Word) -> Field {
    Field {
        text: w.text.clone(),
        quoted: w.quoted,
        empty_form: None,
        opaque: false,
        file: w.file.clone(),
        op: w.op,
    }
}

fn assignment_field(name: &str, t: &Text, st: &State) -> Field {
    let value = word::plain(t);
    let unknown = t.iter().any(|e| e.f & U != 0);
    let dropped: String = t.iter().filter(|e| e.f & U == 0).map(|e| e.c).collect();
    Field {
        text: format!("{name}={}", path::canonical(&value, st)),
        quoted: true,
        empty_form: unknown.then(|| format!("{name}={}", path::canonical(&dropped, st))),
        opaque: t.iter().any(|e| e.f & O != 0),
        file: None,
        op: false,
    }
}

/// Every combination of the words' alternatives, up to [`MAX_WORLDS`].
fn worlds(per_word: &[Vec<Vec<Field>>]) -> Vec<Vec<Word>> {
    let mut worlds: Vec<Vec<Word>> = vec![Vec::new()];
    for alts in per_word {
        if alts.len() == 1 || worlds.len() * alts.len() > MAX_WORLDS {
            // One alternative, or too many worlds already: every field in every world.
            let fields: Vec<Word> = alts.iter().flatten().map(to_word).collect();
            worlds
                .iter_mut()
                .for_each(|w| w.extend(fields.iter().cloned()));
            continue;
        }
        worlds = worlds
            .iter()
            .flat_map(|w| {
                alts.iter().map(move |a| {
                    let mut n = w.clone();
                    n.extend(a.iter().map(to_word));
                    n
                })
            })
            .collect();
    }
    worlds
}

/// The first world with every unknown part that may be empty taken as empty.
fn empty_world(per_word: &[Vec<Vec<Field>>]) -> Option<Vec<Word>> {
    if !per_word
        .iter()
        .any(|alts| alts.iter().flatten().any(|f| f.empty_form.is_some()))
    {
        return None;
    }
    let mut out = Vec::new();
    for alts in per_word {
        for f in &alts[0] {
            match &f.empty_form {
                Some(e) if e.is_empty() && !f.quoted => {}
                Some(e) => out.push(Word::plain(e.clone(), f.quoted)),
                None => out.push(to_word(f)),
            }
        }
    }
    Some(out)
}

fn to_word(f: &Field) -> Word {
    Word {
        text: f.text.clone(),
        quoted: f.quoted,
        file: f.file.clone(),
        op: f.op,
        ..Word::default()
    }
}

/// `NAME=value` with an unquoted name, before the command.
pub fn is_assignment(w: &Word) -> bool {
    split_name(w).is_some()
}

fn split_name(w: &Word) -> Option<&str> {
    if w.op {
        return None;
    }
    let first = match w.parts.first() {
        Some(Part::Lit {
            text,
            quoted: false,
        }) => text.as_str(),
        None if !w.quoted => w.text.as_str(),
        _ => return None,
    };
    let (name, _) = first.split_once('=')?;
    let name = name.strip_suffix('+').unwrap_or(name);
    let ok = !name.is_empty()
        && name
            .bytes()
            .enumerate()
            .all(|(k, b)| b == b'_' || b.is_ascii_alphabetic() || (k > 0 && b.is_ascii_digit()));
    ok.then_some(name)
}

/// The name and the value (as a word of its own) of an assignment.
fn split_assignment(w: &Word) -> Option<(String, Word)> {
    let name = split_name(w)?.to_string();
    let mut parts = w.parts.clone();
    if parts.is_empty() {
        parts.push(Part::Lit {
            text: w.text.clone(),
            quoted: false,
        });
    }
    let Part::Lit { text, .. } = &mut parts[0] else {
        return None;
    };
    let eq = text.find('=')?;
    *text = text[eq + 1..].to_string();
    if text.is_empty() {
        parts.remove(0);
    }
    let quoted = w.quoted;
    Some((
        name,
        Word {
            text: String::new(),
            quoted,
            parts,
            ..Word::default()
        },
    ))
}

/// What the command changes in the state the rest of the line sees.
fn effects(words: &[Word], original: &[Word], st: &mut State) {
    let start = words
        .iter()
        .position(|w| {
            !(w.op || is_assignment(w) || (KEYWORDS.contains(&w.text.as_str()) && !w.quoted))
        })
        .unwrap_or(words.len());
    let Some(program) = words.get(start) else {
        return;
    };
    let args: Vec<&Word> = words[start + 1..].iter().filter(|w| !w.op).collect();
    match program.text.as_str() {
        "cd" | "pushd" => {
            let target = args
                .iter()
                .find(|a| !a.text.starts_with('-') || a.text == "-");
            st.cwd = match target.map(|a| a.text.as_str()) {
                None => Some(st.home()),
                Some("-") => None,
                Some(t) => directory(t, st),
            };
        }
        "popd" => st.cwd = None,
        "export" | "declare" | "typeset" | "local" | "readonly" => {
            let at = original
                .iter()
                .position(|w| w.text == program.text)
                .unwrap_or(0);
            for w in &original[at + 1..] {
                if let Some((name, value)) = split_assignment(w) {
                    let texts = word::assign_texts(&value, st);
                    st.set(&name, Value::Known(texts));
                }
            }
        }
        "unset" => {
            for a in args.iter().filter(|a| !a.text.starts_with('-')) {
                st.set(&a.text, Value::known(""));
            }
        }
        "for" | "select" if args.len() >= 2 && args[1].text == "in" => {
            let values: Vec<Text> = args[2..].iter().map(|a| text_of(a)).collect();
            st.set(&args[0].text, Value::Known(values));
        }
        "set" => {
            let rest: Vec<&Word> = match args.first().map(|a| a.text.as_str()) {
                Some("--") => args[1..].to_vec(),
                Some(a) if !a.starts_with('-') && !a.starts_with('+') => args.clone(),
                _ => return,
            };
            let zero = st
                .positional
                .as_ref()
                .and_then(|p| p.first().cloned())
                .unwrap_or_else(|| word::text("bash", 0));
            let mut p = vec![zero];
            p.extend(rest.iter().map(|a| text_of(a)));
            st.positional = Some(p);
        }
        "shift" => {
            if let Some(p) = &mut st.positional
                && p.len() > 1
            {
                p.remove(1);
            }
        }
        _ => {}
    }
}

/// A word's text as a value (unknown text marked so).
pub fn text_of(w: &Word) -> Text {
    let unknown = w.text.contains('$') || w.text.contains('`');
    word::text(&w.text, if unknown { O | U } else { 0 })
}

/// The directory `cd TARGET` leads to, as an absolute path when it can be known.
fn directory(t: &str, st: &State) -> Option<String> {
    if t.contains(['$', '`', '*', '?']) {
        return None;
    }
    let abs = match path::rooted(t, st) {
        Some(a) => a,
        None => format!("{}/{t}", st.cwd.as_ref()?),
    };
    // `~` stands for an unknown home: kept, so `cd ~; rm -rf *` is still `~/*`.
    Some(path::normalise(&abs))
}
