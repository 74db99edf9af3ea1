//! Writing a rule from the sentences that carry a lesson: self-contained (the file the agent was
//! working on stands in for "that file"), imperative where the user spoke of the team's habit
//! ("we never X" is "Never X"), without the mood ("I told you", "it's literally in the
//! Makefile", "ugh") and at most [`MAX`] characters, cut at a clause rather than mid-word.

use super::speech::{Sentence, has_word};

/// The longest rule written (a rule is read in every prompt it matches).
pub const MAX: usize = 200;

/// Clauses that carry a mood or a reference to earlier talk, not the lesson.
const MOOD: &[&str] = &[
    "i told you",
    "told you",
    "literally",
    "same as last time",
    "same as with",
    "same thing as",
    "last week",
    "weeks ago",
    "as i said",
    "like i said",
    "i forgot",
    "you never saw",
    "sorry",
    "written down",
    "i'll add",
    "again?",
    "this again",
    "happened twice",
    "bit us",
    "burned",
];

/// Habits of the team said as a statement, and the imperative a rule states them with.
const HABITS: &[(&str, &str)] = &[
    ("we never ", "Never "),
    ("we always ", "Always "),
    ("we don't ", "Don't "),
    ("we do not ", "Don't "),
    ("we are using only ", "Use only "),
    ("we're using only ", "Use only "),
    ("we are using ", "Use "),
    ("we're using ", "Use "),
    ("we're on ", "Use "),
    ("we are on ", "Use "),
    ("we use ", "Use "),
    ("we keep ", "Keep "),
    ("we write ", "Write "),
    ("we deploy ", "Deploy "),
    ("we prefer ", "Prefer "),
    ("we only ", "Only "),
    ("we run ", "Run "),
    ("we put ", "Put "),
    ("we name ", "Name "),
    ("we store ", "Store "),
    ("we return ", "Return "),
    ("we wrap ", "Wrap "),
    ("we pin ", "Pin "),
    ("not use ", "Don't use "),
    ("not ", "Don't "),
    ("dont ", "Don't "),
    ("we're a ", "This is a "),
    ("we're an ", "This is an "),
    ("we are a ", "This is a "),
];

/// Whether a sentence explains the one before it.
pub fn is_reason(s: &str) -> bool {
    let l = s.to_lowercase();
    !s.ends_with('?')
        && [
            "because",
            "otherwise",
            "since ",
            "so ",
            "that's why",
            "which is why",
            "it ",
            "it's",
            "they ",
            "the ",
        ]
        .iter()
        .any(|w| l.starts_with(w))
}

/// Clauses of a sentence: split at commas, dashes and semicolons outside backticks.
fn clauses(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_code = false;
    let chars: Vec<char> = s.chars().collect();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '`' {
            in_code = !in_code;
        }
        let dash = !in_code && (c == '—' || c == '–') && chars.get(i + 1) == Some(&' ');
        let split = !in_code && ((c == ',' || c == ';') && chars.get(i + 1) == Some(&' ') || dash);
        if split {
            out.push(cur.trim().to_string());
            cur.clear();
            i += 1;
            continue;
        }
        cur.push(c);
        i += 1;
    }
    out.push(cur.trim().to_string());
    out.retain(|c| !c.is_empty());
    out
}

/// What the agent did just before the user spoke: the file it was working on and the command
/// it ran, which stand in for "that file", "that folder" and "do that".
#[derive(Debug, Clone, Copy, Default)]
pub struct Referent<'a> {
    pub file: Option<&'a str>,
    pub command: Option<&'a str>,
}

/// One sentence made fit for a rule: mood clauses out, habits as imperatives, the referent in.
fn clean(s: &Sentence, referent: Referent) -> String {
    let base = s.why.clone().unwrap_or_else(|| s.text.clone());
    let parts: Vec<String> = clauses(&base)
        .into_iter()
        .filter(|c| {
            let l = c.to_lowercase();
            !MOOD.iter().any(|m| l.contains(m))
                && !["lol", "pls", "plz", "btw", "fyi", "ugh"]
                    .contains(&l.trim_matches(|c: char| !c.is_alphanumeric()))
        })
        .collect();
    let mut text = parts.join(", ");
    // Trailing softeners and emoji.
    loop {
        let l = text.to_lowercase();
        let cut = [
            " btw", " pls", " please", " plz", " fyi", " lol", " though", " then", " ok",
            " anyway", " anyways",
        ]
        .iter()
        .find(|w| l.trim_end_matches(['.', '!', ' ']).ends_with(*w));
        match cut {
            Some(w) => {
                let keep = text.trim_end_matches(['.', '!', ' ']).len() - w.len();
                text.truncate(keep);
            }
            None => break,
        }
    }
    text.retain(|c| (c as u32) < 0x1F000);
    let lower = text.to_lowercase();
    // "that should've been `uv run x`": the right way, as a directive.
    for lead in [
        "that should've been ",
        "that should have been ",
        "it should've been ",
        "it should have been ",
        "it should be ",
        "that should be ",
    ] {
        if lower.starts_with(lead) && text[lead.len()..].starts_with('`') {
            text = format!("Use {}", &text[lead.len()..]);
            break;
        }
    }
    // "I'd rather you use pnpm", "let's not use npm", "can we not use pip": said softly, the
    // same rule.
    let lower = text.to_lowercase();
    for (lead, with) in [
        ("i'd rather you ", ""),
        ("i would rather you ", ""),
        ("i'd prefer you ", ""),
        ("let's not ", "Don't "),
        ("lets not ", "Don't "),
        ("can we not ", "Don't "),
        ("could we not ", "Don't "),
        ("can you not ", "Don't "),
    ] {
        if lower.starts_with(lead) {
            text = format!("{with}{}", &text[lead.len()..]);
            break;
        }
    }
    // "doing that with the ORM instead": the way to use.
    let lower = text.to_lowercase();
    for lead in [
        "do that with ",
        "doing that with ",
        "do it with ",
        "doing it with ",
        "do this with ",
        "doing this with ",
        "write it with ",
        "write that with ",
    ] {
        if lower.starts_with(lead) {
            text = format!("Use {}", &text[lead.len()..]);
            break;
        }
    }
    // "not default_scope": what not to use, when no verb follows.
    let lower = text.to_lowercase();
    let next = lower
        .strip_prefix("not ")
        .and_then(|r| r.split_whitespace().next())
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '_'));
    if let Some(next) = next
        && !next.is_empty()
        && !super::speech::is_verb(next)
        && !next.ends_with("ing")
        && !next.ends_with("ed")
        && ![
            "in", "on", "at", "for", "with", "from", "to", "here", "there", "now", "yet", "until",
            "before", "after", "so", "too", "just", "only", "really", "always", "ever", "sure",
            "a", "an", "all", "every", "any", "by", "via", "through", "inside", "outside", "like",
        ]
        .contains(&next)
    {
        text = format!("Don't use {}", &text[4..]);
    }
    // "gradle, not maven": which one to use.
    if s.contrast && !text.to_lowercase().starts_with("use ") {
        text = format!("Use {text}");
    }
    let lower = text.to_lowercase();
    for (habit, lead) in HABITS {
        if lower.starts_with(habit) {
            text = format!("{lead}{}", &text[habit.len()..]);
            break;
        }
    }
    if let Some(r) = referent.file {
        text = resolve(&text, r);
    }
    if let Some(c) = referent.command {
        text = resolve_command(&text, c);
    }
    for filler in [" like that", " like this", " weird"] {
        if let Some(at) = text.to_lowercase().find(filler) {
            text.replace_range(at..at + filler.len(), "");
        }
    }
    // "--profiles-dir ." ends with its argument, not a full stop.
    let text = text.trim();
    let mut words = text.rsplitn(3, ' ');
    if let (Some("."), Some(flag)) = (words.next(), words.next())
        && flag.starts_with('-')
        && !flag.contains('`')
    {
        let head = &text[..text.len() - flag.len() - 2];
        return format!("{head}`{flag} .`");
    }
    let text = text.trim_end_matches(['.', '!', '?', ',', ';', ' ']);
    // "MARLIN_DB=:memory:" keeps its colon; "remember:" does not.
    let last = text.rsplit(' ').next().unwrap_or("");
    if last.contains('=') {
        text.to_string()
    } else {
        text.trim_end_matches([':', ' ']).to_string()
    }
}

/// "that folder is generated" with the file the agent was editing: the folder named.
fn resolve(text: &str, file: &str) -> String {
    let lower = text.to_lowercase();
    let dir = std::path::Path::new(file)
        .parent()
        .map(|p| p.display().to_string())
        .filter(|d| !d.is_empty());
    for (lead, folder) in [
        ("that folder", true),
        ("this folder", true),
        ("that directory", true),
        ("this directory", true),
        ("that dir", true),
        ("that file", false),
        ("this file", false),
        ("it's generated", false),
        ("it is generated", false),
    ] {
        if lower.starts_with(lead) {
            let name = if folder {
                dir.clone()
            } else {
                Some(file.to_string())
            };
            let Some(name) = name else { continue };
            let rest = if lead.starts_with("it") {
                &text[2..]
            } else {
                &text[lead.len()..]
            };
            return format!("{name}{rest}");
        }
    }
    text.to_string()
}

/// "do that before testing" after `yarn prisma generate && yarn test`: the step the user means
/// (the one the rest of the sentence does not name) quoted in place of "that".
fn resolve_command(text: &str, command: &str) -> String {
    let lower = text.to_lowercase();
    let Some(lead) = [
        "do that ",
        "do this ",
        "run that ",
        "run this ",
        "do it ",
        "that step ",
    ]
    .iter()
    .find(|l| lower.starts_with(*l)) else {
        return text.to_string();
    };
    let rest = &text[lead.len()..];
    let rest_words: Vec<String> = rest
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.len() >= 4)
        .map(|w| w.to_lowercase())
        .collect();
    let named = |step: &[String]| {
        super::gist::base_of(step).split_whitespace().any(|w| {
            let w = w.to_lowercase();
            w.len() >= 4
                && rest_words
                    .iter()
                    .any(|r| r.starts_with(&w) || w.starts_with(r))
        })
    };
    let steps = super::gist::doing(command);
    let Some(step) = steps.iter().find(|s| !named(s)) else {
        return text.to_string();
    };
    format!("Run `{}` {rest}", super::gist::show(step))
}

fn capitalised(s: &str) -> String {
    // A path or identifier opening the rule stays as written.
    if s.split_whitespace()
        .next()
        .is_some_and(|w| w.contains(['/', '.', '_', '`', '(']))
    {
        return s.to_string();
    }
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Cut `s` to at most `max` characters at the last clause boundary that leaves a head of at
/// least four words; `None` when there is none.
fn head(s: &str, max: usize) -> Option<String> {
    if s.chars().count() <= max {
        return Some(s.to_string());
    }
    let mut best: Option<usize> = None;
    let mut in_code = false;
    for (i, c) in s.char_indices() {
        if c == '`' {
            in_code = !in_code;
        }
        if s[..i].chars().count() > max {
            break;
        }
        let boundary = !in_code
            && (s[i..].starts_with(", ")
                || s[i..].starts_with("; ")
                || s[i..].starts_with(" — ")
                || s[i..].starts_with(" (")
                || s[i..].starts_with(": "));
        if boundary && s[..i].split_whitespace().count() >= 4 {
            best = Some(i);
        }
    }
    best.map(|i| s[..i].to_string())
}

/// The rule for a lesson's sentences: what to do first (the sentences that state the rule, then
/// those that explain it) as far as [`MAX`] allows, in the order the user said them.
pub fn compose(sentences: &[Sentence], referent: Referent) -> Option<String> {
    let texts: Vec<(usize, String, bool)> = sentences
        .iter()
        .filter(|s| !s.marker)
        .map(|s| {
            (
                clean(s, referent),
                s.general || s.directive || s.why.is_some() || s.prohibition,
            )
        })
        .filter(|(t, _)| t.split_whitespace().count() >= 2)
        .enumerate()
        .map(|(i, (t, rule))| (i, t, rule))
        .collect();
    let mut chosen: Vec<(usize, String)> = Vec::new();
    let mut len = 0;
    for pass in [true, false] {
        for (i, text, states_rule) in &texts {
            if *states_rule != pass || chosen.iter().any(|(_, t)| t.eq_ignore_ascii_case(text)) {
                continue;
            }
            let room = MAX.saturating_sub(len + 2 + usize::from(chosen.is_empty()));
            let Some(piece) = head(text, room) else {
                continue;
            };
            len += piece.chars().count() + 2;
            chosen.push((*i, piece));
        }
    }
    chosen.sort_by_key(|(i, _)| *i);
    let parts: Vec<String> = chosen.into_iter().map(|(_, t)| t).collect();
    let first = parts.first()?;
    let mut rule = capitalised(first);
    for p in &parts[1..] {
        rule.push_str("; ");
        rule.push_str(&lower_first(p));
    }
    if rule.matches('`').count() % 2 == 1 {
        rule.push('`');
    }
    rule.push('.');
    let vague = rule.split_whitespace().count() < 3 || !super::phrasing::specific(&rule);
    let lower = rule.to_lowercase();
    (!vague && !has_word(super::speech::reason_cut(&lower), "yet")).then_some(rule)
}

fn lower_first(s: &str) -> String {
    // "SharedPreferences blocks ...": a name keeps its capital.
    let first_word = s.split_whitespace().next().unwrap_or("");
    if first_word.chars().skip(1).any(char::is_uppercase) {
        return s.to_string();
    }
    let mut c = s.chars();
    match (c.next(), c.clone().next()) {
        (Some(first), Some(second)) if !second.is_uppercase() && first != '`' => {
            first.to_lowercase().chain(c).collect()
        }
        _ => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reflect::speech::read;

    #[test]
    fn habits_become_imperatives_and_moods_go() {
        assert_eq!(
            compose(
                &[read("we never rebase here — branches are shared")],
                Referent::default()
            )
            .as_deref(),
            Some("Never rebase here, branches are shared.")
        );
        assert_eq!(
            compose(
                &[read("Use pnpm here, I told you last week.")],
                Referent::default()
            )
            .as_deref(),
            Some("Use pnpm here.")
        );
        assert_eq!(
            compose(
                &[read("that folder is generated btw")],
                Referent {
                    file: Some("app/javascript/api_client/models/Recipe.ts"),
                    command: None
                }
            )
            .as_deref(),
            Some("app/javascript/api_client/models is generated.")
        );
    }

    #[test]
    fn a_lone_dot_argument_is_kept() {
        assert_eq!(
            compose(
                &[read("profiles are in the repo, always --profiles-dir .")],
                Referent::default()
            )
            .as_deref(),
            Some("Profiles are in the repo, always `--profiles-dir .`.")
        );
    }

    #[test]
    fn do_that_names_the_step_the_agent_ran() {
        let r = Referent {
            file: None,
            command: Some("yarn prisma generate && yarn test"),
        };
        assert_eq!(
            compose(
                &[read("do that before testing whenever the schema moves")],
                r
            )
            .as_deref(),
            Some("Run `yarn prisma generate` before testing whenever the schema moves.")
        );
    }

    #[test]
    fn long_lessons_are_cut_at_a_clause() {
        let long = "we never run `tsc` or `next build` directly inside a package folder — everything gets built through turbo from the root, e.g. `pnpm turbo run build --filter=web...`, because turbo builds the workspace deps (ui, db, config) first and uses its cache.";
        let rule = compose(&[read(long)], Referent::default()).unwrap();
        assert!(rule.chars().count() <= MAX, "{rule}");
        assert!(rule.starts_with("Never run `tsc`"), "{rule}");
        assert!(rule.contains("turbo"), "{rule}");
    }
}
