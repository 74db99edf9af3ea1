//! The user's words turned into a rule as a senior engineer would write it: one imperative
//! sentence that keeps the specifics (the tool, file or command) and the reason when one was
//! given. "no, don't use moment here, we use date-fns" becomes "Don't use moment here, we use
//! date-fns." A sentence that only sounds like a directive ("no worries", "don't bother") or
//! names nothing specific gives no rule.

use super::delta::LessonKind;

/// A directive found in what the user said.
#[derive(Debug, Clone, PartialEq)]
pub struct Directive {
    pub rule: String,
    pub lesson: LessonKind,
}

/// Openings that make a "no" or a "don't" casual, not a correction.
const CASUAL: &[&str] = &[
    "no worries",
    "no problem",
    "no thanks",
    "no thank",
    "no need",
    "no rush",
    "no, that's all",
    "no, that's it",
    "no, that is all",
    "no, thanks",
    "no that's all",
    "no, all good",
    "no, looks good",
    "no, it's fine",
    "no, nothing else",
    "don't worry",
    "dont worry",
    "don't bother",
    "don't mind",
    "never mind",
    "nevermind",
    "always happy",
    "don't apologize",
    "don't hesitate",
];

/// Leading words that carry no meaning in a rule ("please", "also", "and").
const FILLER: &[&str] = &[
    "please", "also", "and", "oh", "hey", "btw", "ok", "okay", "so", "heads up", "fyi", "note",
];

/// Words so common that a rule made only of them says nothing specific.
const COMMON: &[&str] = &[
    "the",
    "a",
    "an",
    "it",
    "this",
    "that",
    "these",
    "those",
    "to",
    "of",
    "in",
    "on",
    "for",
    "with",
    "at",
    "by",
    "from",
    "up",
    "out",
    "off",
    "over",
    "into",
    "here",
    "there",
    "now",
    "then",
    "just",
    "again",
    "ever",
    "always",
    "never",
    "don't",
    "do",
    "not",
    "no",
    "use",
    "make",
    "sure",
    "be",
    "is",
    "are",
    "was",
    "we",
    "you",
    "i",
    "me",
    "my",
    "our",
    "your",
    "they",
    "them",
    "it's",
    "that's",
    "like",
    "thing",
    "things",
    "stuff",
    "way",
    "work",
    "change",
    "code",
    "do",
    "did",
    "done",
    "good",
    "bad",
    "well",
    "right",
    "wrong",
    "too",
    "again",
    "more",
    "less",
    "any",
    "all",
    "some",
    "what",
    "when",
    "why",
    "how",
    "so",
    "if",
    "or",
    "and",
    "but",
    "one",
    "ask",
    "me",
    "first",
    "try",
    "think",
    "know",
    "want",
    "need",
    "should",
    "can",
    "could",
    "would",
    "will",
    "last",
    "time",
    "same",
    "ugh",
    "anyway",
    "continue",
    "heard",
    "new",
    "old",
    "next",
    "previous",
    "thanks",
    "sorry",
    "everything",
    "let",
    "lets",
    "let's",
    "get",
    "got",
    "go",
];

/// Whether `word` (lower-case) is one of the words so common a rule made of them says nothing.
pub fn is_common(word: &str) -> bool {
    COMMON.contains(&word)
}

/// Every directive in one user message.
pub fn directives(text: &str) -> Vec<Directive> {
    if text.len() > 1500 {
        return Vec::new(); // a pasted log or document, not a spoken directive
    }
    let sentences = sentences(text);
    let mut out = Vec::new();
    let mut i = 0;
    while i < sentences.len() {
        let Some(mut d) = directive(&sentences[i]) else {
            i += 1;
            continue;
        };
        // The sentence after a directive is usually its reason ("The mocks are generated in
        // CI, that's why ..."): it stays with the rule, unless it asks for something.
        if let Some(next) = sentences.get(i + 1).filter(|n| is_reason(n)) {
            d.rule = format!("{}; {}", d.rule.trim_end_matches('.'), lower_first(next));
            if !d.rule.ends_with('.') {
                d.rule.push('.');
            }
            i += 1;
        }
        out.push(d);
        i += 1;
    }
    out
}

/// Whether `s` explains rather than asks: not a question, a request or a thank-you.
fn is_reason(s: &str) -> bool {
    let l = s.to_lowercase();
    s.chars().count() <= 220
        && !s.ends_with('?')
        && ![
            "please",
            "can you",
            "could you",
            "would you",
            "thanks",
            "thank",
            "ok",
            "good",
            "great",
            "nice",
            "now ",
            "also",
            "then ",
        ]
        .iter()
        .any(|w| l.starts_with(w))
}

fn lower_first(s: &str) -> String {
    let mut c = s.chars();
    match (c.next(), c.clone().next()) {
        // Keep acronyms and identifiers as written ("CI", "SQL").
        (Some(first), Some(second)) if !second.is_uppercase() => {
            first.to_lowercase().chain(c).collect()
        }
        _ => s.to_string(),
    }
}

/// Split on sentence ends and line breaks; keep the text as written.
fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        let end =
            matches!(c, '.' | '!' | '?') && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if c == '\n' || end {
            if end {
                cur.push(c);
            }
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_string());
            }
            cur.clear();
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// "Our team convention: X", "Team rule - X", "House style is that X": the X.
fn stated_rule(s: &str) -> Option<&str> {
    let lower = s.to_lowercase();
    let head: String = lower.chars().take(40).collect();
    let named = [
        "convention",
        "team rule",
        "house rule",
        "house style",
        "ground rule",
    ]
    .iter()
    .any(|w| head.contains(w));
    if !named {
        return None;
    }
    for sep in [": ", " - ", " is that ", " is to ", " are that "] {
        if let Some(at) = lower.find(sep).filter(|at| *at < 45) {
            let rest = s[at + sep.len()..].trim();
            return (!rest.is_empty()).then_some(rest);
        }
    }
    None
}

fn directive(sentence: &str) -> Option<Directive> {
    if sentence.trim_end().ends_with('?') {
        return None; // a question, not a directive
    }
    if let Some(rest) = stated_rule(strip_filler(sentence)) {
        let rule = finish(rest);
        return specific(&rule).then_some(Directive {
            rule,
            lesson: LessonKind::Convention,
        });
    }
    let lower = sentence.to_lowercase();
    if CASUAL.iter().any(|c| lower.starts_with(c)) {
        return None;
    }
    // "no, ...", "nope ...", "stop, ...", "wait, ...": a correction, if a directive follows.
    let (corrected, rest) = strip_correction(sentence);
    let rest = strip_filler(rest);
    let rest_lower = rest.to_lowercase();
    if CASUAL.iter().any(|c| rest_lower.starts_with(c)) {
        return None;
    }
    let (body, lesson) = imperative(rest, &rest_lower)?;
    let lesson = if corrected {
        LessonKind::Correction
    } else {
        lesson
    };
    let rule = finish(&body);
    specific(&rule).then_some(Directive { rule, lesson })
}

fn strip_correction(s: &str) -> (bool, &str) {
    let lower = s.to_lowercase();
    for lead in [
        "no,",
        "no.",
        "no!",
        "no -",
        "no —",
        "nope,",
        "nope",
        "stop,",
        "stop.",
        "wait,",
        "wrong,",
        "actually,",
    ] {
        if lower.starts_with(lead) {
            return (true, s[lead.len()..].trim_start());
        }
    }
    if lower.starts_with("no ") && !lower.starts_with("no one") {
        let after = s[3..].trim_start();
        let al = after.to_lowercase();
        if [
            "don't",
            "do not",
            "dont",
            "never",
            "we ",
            "use ",
            "not ",
            "please",
            "that's not",
            "stop",
        ]
        .iter()
        .any(|w| al.starts_with(w))
        {
            return (true, after);
        }
    }
    (false, s)
}

fn strip_filler(mut s: &str) -> &str {
    loop {
        let lower = s.to_lowercase();
        let Some(word) = FILLER.iter().find(|w| {
            lower.starts_with(*w)
                && lower[w.len()..]
                    .chars()
                    .next()
                    .is_none_or(|c| c == ',' || c.is_whitespace())
        }) else {
            return s;
        };
        s = s[word.len()..].trim_start_matches(',').trim_start();
    }
}

/// The rule's body when `s` is an imperative or a stated convention, with its lesson kind.
fn imperative(s: &str, lower: &str) -> Option<(String, LessonKind)> {
    let keep = |skip: usize, lead: &str| format!("{lead}{}", &s[skip..]);
    // Spoken as the team's habit: "we never ...", "we always ...", "in this repo we use ...".
    for (prefix, lead) in [
        ("we never ", "Never "),
        ("we always ", "Always "),
        ("we don't ", "Don't "),
        ("we do not ", "Don't "),
        ("you should never ", "Never "),
        ("you should always ", "Always "),
        ("you should ", ""),
        ("you must ", ""),
        ("you need to ", ""),
        ("make sure to ", "Make sure to "),
        ("make sure you ", "Make sure you "),
        ("remember to ", ""),
        ("from now on, ", ""),
        ("from now on ", ""),
        ("going forward, ", ""),
    ] {
        if lower.starts_with(prefix) {
            let kind = if prefix.starts_with("we ") {
                LessonKind::Convention
            } else {
                LessonKind::Correction
            };
            return Some((keep(prefix.len(), lead), kind));
        }
    }
    for (prefix, lead) in [
        ("our convention is to ", ""),
        ("our convention is that ", ""),
        ("our convention: ", ""),
        ("our convention is ", ""),
        ("convention: ", ""),
        ("team rule: ", ""),
        ("house rule: ", ""),
        ("the convention in this codebase is that ", ""),
        ("the convention in this repo is that ", ""),
        ("the convention here is that ", ""),
        ("the rule here is that ", ""),
        ("we keep ", "Keep "),
        ("we put ", "Put "),
        ("we return ", "Return "),
        ("we wrap ", "Wrap "),
        ("we store ", "Store "),
        ("we name ", "Name "),
        ("we ship ", "Ship "),
        ("we squash ", "Squash "),
        ("we write ", "Write "),
        ("the convention here is to ", ""),
        ("the convention is to ", ""),
        ("the team prefers ", "Prefer "),
        ("we prefer ", "Prefer "),
        ("i prefer ", "Prefer "),
        ("i always want ", "Always use "),
        ("in this repo we ", ""),
        ("in this repo, we ", ""),
        ("in this project we ", ""),
        ("in this project, we ", ""),
        ("here we ", ""),
        ("we use ", "Use "),
    ] {
        if lower.starts_with(prefix) {
            return Some((keep(prefix.len(), lead), LessonKind::Convention));
        }
    }
    for prefix in [
        "never ", "always ", "don't ", "do not ", "dont ", "avoid ", "prefer ", "use ", "stop ",
    ] {
        if lower.starts_with(prefix) {
            let body = match prefix {
                "dont " => keep(prefix.len(), "Don't "),
                "stop " => keep(prefix.len(), "Stop "),
                _ => s.to_string(),
            };
            return Some((body, LessonKind::Correction));
        }
    }
    None
}

/// Capitalised, one sentence, ending with a full stop.
fn finish(body: &str) -> String {
    let body = body.trim().trim_end_matches([',', ';', ':']).trim();
    let mut chars = body.chars();
    let mut out: String = match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    };
    if !out.ends_with(['.', '!', '?']) {
        out.push('.');
    }
    if out.ends_with('!') {
        out.pop();
        out.push('.');
    }
    out
}

/// A rule names something: a word beyond the common ones (a tool, a file, a practice), and at
/// least three words in all.
pub fn specific(rule: &str) -> bool {
    let words: Vec<String> = rule
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-')
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect();
    words.len() >= 3
        && words
            .iter()
            .any(|w| w.chars().count() >= 3 && !COMMON.contains(&w.as_str()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules(text: &str) -> Vec<(String, LessonKind)> {
        directives(text)
            .into_iter()
            .map(|d| (d.rule, d.lesson))
            .collect()
    }

    #[test]
    fn corrections_become_imperative_rules() {
        assert_eq!(
            rules("no, don't use moment here, we use date-fns"),
            [(
                "Don't use moment here, we use date-fns.".to_string(),
                LessonKind::Correction
            )]
        );
        assert_eq!(
            rules("Please always run make lint before pushing!"),
            [(
                "Always run make lint before pushing.".to_string(),
                LessonKind::Correction
            )]
        );
        assert_eq!(
            rules("we never commit generated files, CI rebuilds them"),
            [(
                "Never commit generated files, CI rebuilds them.".to_string(),
                LessonKind::Convention
            )]
        );
        assert_eq!(
            rules("Thanks. Our convention is to put fixtures under tests/data.")[0].0,
            "Put fixtures under tests/data."
        );
        assert_eq!(
            rules("I prefer pnpm over npm for this monorepo")[0].0,
            "Prefer pnpm over npm for this monorepo."
        );
        assert_eq!(
            rules("Build it please. Our team convention: tests live next to the component as X.test.tsx, we don't use __tests__ folders.")[0].0,
            "Tests live next to the component as X.test.tsx, we don't use __tests__ folders."
        );
    }

    #[test]
    fn casual_words_and_vague_directives_give_nothing() {
        for text in [
            "no worries, thanks",
            "no, that's all for now",
            "No thanks",
            "don't worry about it",
            "never mind",
            "no idea what happened there",
            "ok, use it",
            "always do that",
            "Can you fix the failing test?",
            "I don't think that's needed",
        ] {
            assert!(rules(text).is_empty(), "{text}: {:?}", rules(text));
        }
    }
}

#[cfg(test)]
mod convention_tests {
    use super::*;

    #[test]
    fn a_stated_convention_keeps_its_reason() {
        let r = directives(
            "We need a processing fee on refunds: 2.5% of the refund, minimum 0.30 EUR. Heads up, the convention in this codebase is that money is always integer cents in fields named somethingCents. Never floats for amounts, not even in intermediate maths.",
        );
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].rule.starts_with("Money is always integer cents"),
            "{r:?}"
        );
        assert!(r[0].rule.contains("never floats"), "{r:?}");
    }
}
