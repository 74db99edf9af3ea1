//! What one sentence of the user does: states how things are here, asks for the future, objects
//! to what the agent did, refers to this conversation only, or is chatter. Reflection learns from
//! the first three and never from the last two, whatever words they share with a rule ("don't
//! push yet" is a directive about this session; "always the same with this code lol" is a mood).
//!
//! Pure text functions, no allocation beyond the sentence itself; [`super::said`] reads a whole
//! message with them.

/// One sentence as the user wrote it, its openers removed, and what it does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sentence {
    /// The words, without interjections, fillers and a preamble ending in a colon.
    pub text: String,
    /// Says how things are done here or asks for every later time (a lesson by itself).
    pub general: bool,
    /// Opens with an objection ("no", "nope", "wait", "stop", "ugh", "that's not how").
    pub objection: bool,
    /// A question about what the agent did ("why are you adding ...?"), rewritten as a
    /// directive when it can be ("Don't add ...").
    pub why: Option<String>,
    /// An instruction (imperative) rather than a statement.
    pub directive: bool,
    /// About this conversation only: "the other file", "for now", "not yet", "I'll ...".
    pub local: bool,
    /// Thanks, greetings, moods and jokes.
    pub chatter: bool,
    /// Forbids something named ("don't put tags blocks on resources"): after an objection, a
    /// rule even without a word of generality.
    pub prohibition: bool,
    /// Points at something in this conversation ("the other file", "not that one"): the whole
    /// message is about finding the place.
    pub pointing: bool,
    /// Only marks the objection ("that's not how we do it here"): not part of the rule's text.
    pub marker: bool,
    /// Sets one name against another and says nothing else ("gradle, not maven").
    pub contrast: bool,
}

/// Words that open a sentence without carrying its meaning; the `bool` says it objects.
const OPENERS: &[(&str, bool)] = &[
    ("no no", true),
    ("nope", true),
    ("nah", true),
    ("no", true),
    ("wait", true),
    ("stop", true),
    ("ugh", true),
    ("hold on", true),
    ("whoa", true),
    ("woah", true),
    ("actually", true),
    ("careful", true),
    ("wrong", true),
    ("not like that", true),
    ("not like this", true),
    ("that's wrong", true),
    ("that's not right", true),
    ("that is wrong", true),
    ("hmm", false),
    ("mm", false),
    ("mmm", false),
    ("mhm", false),
    ("um", false),
    ("uh", false),
    ("cool", false),
    ("nice", false),
    ("great", false),
    ("fine", false),
    ("alright", false),
    ("ahh", false),
    ("aha", false),
    ("meh", false),
    ("eh", false),
    ("heh", false),
    ("ha", false),
    ("k", false),
    ("hm", false),
    ("ah", false),
    ("oh", false),
    ("ok", false),
    ("okay", false),
    ("yes", false),
    ("yeah", false),
    ("yep", false),
    ("yup", false),
    ("right", false),
    ("so", false),
    ("and", false),
    ("also", false),
    ("but", false),
    ("btw", false),
    ("fyi", false),
    ("pls", false),
    ("please", false),
    ("plz", false),
    ("hey", false),
    ("well", false),
    ("again", false),
    ("sorry", false),
    ("heads-up", false),
    ("heads up", false),
    ("note", false),
    ("reminder", false),
    ("one more thing", false),
    ("one thing", false),
    ("important", false),
    ("oh and", false),
    ("this again", true),
    ("same thing", false),
    ("while you're in there", false),
    ("while you're at it", false),
    ("oh wait", false),
];

/// Misspellings of the words reflection reads, and the word meant.
const TYPOS: &[(&str, &str)] = &[
    ("alwyas", "always"),
    ("allways", "always"),
    ("alwasy", "always"),
    ("awlays", "always"),
    ("alway", "always"),
    ("nver", "never"),
    ("nevr", "never"),
    ("insted", "instead"),
    ("instaed", "instead"),
    ("isntead", "instead"),
    ("dont", "don't"),
    ("dosnt", "doesn't"),
    ("doesnt", "doesn't"),
    ("acros", "across"),
    ("shoud", "should"),
];

/// Long words reflection reads whose slips of the keyboard are read as meant: one letter
/// missing, added, changed or two swapped ("alwys", "insteed", "evrything"). No English word is
/// that close to them; shorter words ("never": "newer") are left to [`TYPOS`].
const KEYWORDS: &[&str] = &["always", "instead", "everything", "everywhere", "anymore"];

/// Whether `a` and `b` are one edit apart (an insertion, a deletion, a substitution or two
/// neighbouring letters swapped).
fn one_slip(a: &[char], b: &[char]) -> bool {
    if a == b || a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let same = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (ra, rb) = (&a[same..], &b[same..]);
    match ra.len().cmp(&rb.len()) {
        std::cmp::Ordering::Equal => {
            ra[1..] == rb[1..]
                || (ra.len() >= 2 && ra[0] == rb[1] && ra[1] == rb[0] && ra[2..] == rb[2..])
        }
        std::cmp::Ordering::Less => ra == &rb[1..],
        std::cmp::Ordering::Greater => &ra[1..] == rb,
    }
}

/// The keyword a misspelt word stands for.
fn misspelt(lower: &str) -> Option<&'static str> {
    if let Some((_, right)) = TYPOS.iter().find(|(t, _)| *t == lower) {
        return Some(right);
    }
    let chars: Vec<char> = lower.chars().collect();
    if chars.len() < 5 {
        return None;
    }
    KEYWORDS.iter().copied().find(|k| {
        let k: Vec<char> = k.chars().collect();
        k[0] == chars[0] && one_slip(&chars, &k)
    })
}

/// `text` with misspellings of the words reflection reads corrected (the rule is written from
/// it too).
pub fn corrected(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        let lower = word.to_lowercase();
        match misspelt(&lower) {
            Some(right) if word.chars().next().is_some_and(char::is_uppercase) => {
                let mut c = right.chars();
                out.extend(c.next().map(|f| f.to_ascii_uppercase()));
                out.push_str(c.as_str());
            }
            Some(right) => out.push_str(right),
            None => out.push_str(word),
        }
        word.clear();
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '\'' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// Phrases that tie a sentence to this conversation: it holds no rule for later sessions.
const LOCAL: &[&str] = &[
    "the other ",
    "second option",
    "second one",
    "first option",
    "first one",
    "third one",
    "the last one",
    "this time",
    "for now",
    "not now",
    "not today",
    "not that one",
    "not this one",
    "you mentioned",
    "you suggested",
    "leave it",
    "let me ",
    "i'll ",
    "i will ",
    "i'm going to",
    "tomorrow",
    "hold off",
    "skip that",
    "skip it",
    "nvm",
    "never mind",
    "for this one",
    "this one now",
    " later",
    "until ",
    "in this pr",
    "ignore that",
    "wanted to know",
    "same mistake",
    "go ahead",
    "carry on",
    "go on with",
    "looks good",
    "looks right",
    "that's all",
    "that's it",
    "for this pr",
    "same approach as",
    "don't forget",
    "this one too",
    "for this spec",
    "for this file",
    "for this test",
    "for this task",
    "for this ticket",
    "for this branch",
    "tonight",
    "today",
    "this week",
    "this weekend",
    "this release",
    "this sprint",
    "this morning",
    "this afternoon",
    "this evening",
    "right now",
    "at the moment",
    "for the moment",
    "till ",
    "til ",
    "before lunch",
    "for the demo",
];

/// Phrases that point at something in this conversation.
const POINTING: &[&str] = &[
    "the other ",
    "second option",
    "second one",
    "first option",
    "first one",
    "third one",
    "not that one",
    "not this one",
    "the last one",
];

/// Marks of a mood, a joke or thanks: the sentence is not a rule even when it says "always".
const CHATTER: &[&str] = &[
    "lol",
    "haha",
    "lmao",
    "rofl",
    "always the same",
    "same story",
    "same dance",
    "nice working",
    "nice work",
    "good job",
    "great job",
    "well done",
    "thank",
    "thx",
    "cheers",
    "always nice",
    "always a pleasure",
    "always happy",
    "makes sense",
    "good call",
    "my bad",
    "no worries",
    "no problem",
    "all good",
    "love it",
    "fun",
    "annoying",
    "painful",
];

/// Phrases that say a statement holds beyond this session.
const GENERAL: &[&str] = &[
    "from now on",
    "next time",
    "for the future",
    "in the future",
    "in future",
    "going forward",
    "every time",
    "everytime",
    "any time",
    "anytime",
    "whenever",
    "each time",
    "in this repo",
    "in this project",
    "in this codebase",
    "in this code base",
    "in this service",
    "in this app",
    "in this workspace",
    "in this monorepo",
    "in this team",
    "on this box",
    "on this machine",
    "on these machines",
    "on this host",
    "in new code",
    "any new",
    "every new",
    "all new",
    "everything new",
    "everything in this",
    "everything goes",
    "everything gets",
    "house rule",
    "team rule",
    "convention",
    "the usual rule",
    "the rule is",
    "no exceptions",
    "review checklist",
    "is generated",
    "are generated",
    "generated by",
    "generated from",
    "only through",
    "only via",
    "only ever",
    "anywhere in",
    "no matter",
    "how we ",
    "not how we",
    "future reference",
    "for reference",
    "don't ever",
    "do not ever",
    "anymore",
    "no longer",
];

/// Statement openers that describe how the project works ("we're a pnpm shop").
const HOW_THINGS_ARE: &[&str] = &[
    "we're a ",
    "we're an ",
    "we are a ",
    "we are an ",
    "we're on ",
    "we are on ",
    "we use ",
    "we're using ",
    "we are using ",
    "we don't ",
    "we do not ",
    "we never ",
    "we always ",
    "we keep ",
    "we write ",
    "we deploy ",
    "we prefer ",
    "we only ",
    "we run ",
    "we build ",
    "we put ",
    "we name ",
    "we store ",
    "we ship ",
    "we squash ",
    "we return ",
    "we wrap ",
    "we test ",
    "we pin ",
    "we migrate ",
    "we compare ",
    "we've been on ",
    "we have been on ",
    "we've been using ",
    "we have been using ",
    "we switched to ",
    "we moved to ",
    "we migrated to ",
    "we've moved to ",
    "we've switched to ",
    "this is a ",
    "this is an ",
    "this repo ",
    "this project ",
    "this service ",
    "this app ",
    "our ",
    "everything ",
    "all our ",
    "every ",
];

/// Verbs a directive opens with.
const VERBS: &[&str] = &[
    "use",
    "run",
    "add",
    "put",
    "keep",
    "pass",
    "write",
    "create",
    "make",
    "reuse",
    "compare",
    "save",
    "register",
    "mirror",
    "build",
    "start",
    "stop",
    "commit",
    "check",
    "avoid",
    "prefer",
    "don't",
    "dont",
    "do",
    "never",
    "always",
    "no",
    "not",
    "set",
    "export",
    "install",
    "call",
    "import",
    "name",
    "return",
    "wrap",
    "mark",
    "log",
    "pin",
    "test",
    "delete",
    "remove",
    "rm",
    "change",
    "edit",
    "generate",
    "regenerate",
    "re-run",
    "rerun",
    "apply",
    "bump",
    "merge",
    "rebase",
    "deploy",
    "open",
    "go",
    "move",
    "split",
    "store",
    "raise",
    "restore",
    "convert",
    "drop",
    "reset",
    "inject",
    "define",
    "replace",
    "switch",
    "enqueue",
];

/// Whether `hay` holds `needle` starting and ending at word boundaries.
pub fn has_word(hay: &str, needle: &str) -> bool {
    let mut from = 0;
    while let Some(pos) = hay[from..].find(needle) {
        let at = from + pos;
        let end = at + needle.len();
        let before = hay[..at].chars().next_back();
        let after = hay[end..].chars().next();
        let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric() && c != '_');
        if boundary(before) && boundary(after) {
            return true;
        }
        from = end;
    }
    false
}

/// The text after its leading openers, and whether one of them objects.
fn strip_openers(mut s: &str) -> (&str, bool) {
    let mut objection = false;
    loop {
        let lower = s.to_lowercase();
        let found = OPENERS.iter().find(|(w, _)| {
            lower.starts_with(w)
                && lower[w.len()..].chars().next().is_none_or(|c| {
                    c == ','
                        || c == '.'
                        || c == '!'
                        || c == '?'
                        || c == ':'
                        || c == '—'
                        || c == '-'
                        || c.is_whitespace()
                })
        });
        let Some((w, objects)) = found else {
            return (s, objection);
        };
        // "no anyhow in the lib crate" and "no X, no Y" are prohibitions, not an opener; so is
        // "stop using X".
        let rest = &s[w.len()..];
        if *w == "stop"
            && rest.starts_with(' ')
            && rest
                .split_whitespace()
                .next()
                .is_some_and(|n| n.len() > 4 && n.to_lowercase().ends_with("ing"))
        {
            return (s, true);
        }
        if *w == "no"
            && rest.starts_with(' ')
            && ![
                "we ", "don't", "do not", "never", "that", "it's", "its", "this", "—",
            ]
            .iter()
            .any(|p| rest.trim_start().to_lowercase().starts_with(p))
        {
            return (s, objection);
        }
        objection |= *objects;
        // "wrong package manager - it's yarn here": the noun phrase only names what was wrong.
        let rest = if *w == "wrong" {
            named_then_dash(rest).unwrap_or(rest)
        } else {
            rest
        };
        s = rest.trim_start_matches([',', '.', '!', '?', ':', '—', '-', ' ']);
        if s.is_empty() {
            return (s, objection);
        }
    }
}

/// After "wrong": a short noun phrase then a dash or colon ("package manager - it's yarn
/// here") gives what follows the dash.
fn named_then_dash(rest: &str) -> Option<&str> {
    let at = [" - ", " — ", " – ", ": "]
        .iter()
        .filter_map(|d| rest.find(d).map(|i| (i, d.len())))
        .min()?;
    let head = &rest[..at.0];
    (head.split_whitespace().count() <= 4 && !head.contains('`')).then(|| &rest[at.0 + at.1..])
}

/// A normative statement about everything of a kind ("all user-facing output goes through
/// internal/ui", "nothing reads process.env except src/config.ts", "any new model gets a
/// schema entry"): a universal subject and a verb of obligation or routing.
fn universal_norm(lower: &str) -> bool {
    const SUBJECT: &[&str] = &[
        "all ",
        "any ",
        "each ",
        "every ",
        "nothing ",
        "no one ",
        "nobody ",
        "anything ",
        "everything ",
        "whatever ",
    ];
    const NORM: &[&str] = &[
        "must",
        "should",
        "need",
        "needs",
        "has to",
        "have to",
        "goes through",
        "go through",
        "get",
        "gets",
        "belong",
        "belongs",
        "live",
        "lives",
        "except",
        "=",
        "means",
        "always",
        "never",
        "reads",
        "uses",
    ];
    SUBJECT.iter().any(|p| lower.starts_with(p))
        && lower.split_whitespace().count() >= 4
        && !lower.ends_with('?')
        && NORM.iter().any(|n| has_word(lower, n))
}

/// Points at one of the choices the agent offered ("option 1", "the 2nd", "#3").
fn picks_a_choice(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '#'))
        .collect();
    words.windows(2).any(|w| {
        [
            "option",
            "approach",
            "variant",
            "version",
            "choice",
            "alternative",
        ]
        .contains(&w[0])
            && (w[1].chars().all(|c| c.is_ascii_digit()) || w[1].len() == 1)
            && !w[1].is_empty()
    }) || words
        .iter()
        .any(|w| w.len() >= 2 && w.starts_with('#') && w[1..].chars().all(|c| c.is_ascii_digit()))
        || ["the 1st", "the 2nd", "the 3rd", "the second", "the third"]
            .iter()
            .any(|p| has_word(lower, p))
}

/// "One thing about how this repo works: we never ..." gives "we never ..." (and says whether
/// the preamble itself marked a rule).
fn strip_preamble(s: &str) -> (&str, bool) {
    let Some(at) = s.find(": ") else {
        return (s, false);
    };
    let head = &s[..at];
    let words = head.split_whitespace().count();
    if words == 0 || words > 14 || head.contains('`') || s[at + 2..].trim().len() < 12 {
        return (s, false);
    }
    // "needs an Example: field": a name with its colon inside the sentence, not a preamble.
    let last = head.split_whitespace().next_back().unwrap_or("");
    if words > 1 && last.chars().next().is_some_and(char::is_uppercase) {
        return (s, false);
    }
    let h = head.to_lowercase();
    // "always via fvm: fvm flutter test": the head is the rule, the rest its example.
    if h.starts_with("always ") || h.starts_with("never ") {
        return (s, false);
    }
    let marks = [
        "thing",
        "rule",
        "convention",
        "how",
        "note",
        "heads",
        "reminder",
        "important",
        "fyi",
        "btw",
        "request",
        "future",
        "from now on",
        "always",
        "remember",
        "policy",
        "here",
    ];
    // "anything a handler returns has to be ...: status.Errorf(...)" holds no mark: "thing"
    // is a word of its own.
    if !marks.iter().any(|m| has_word(&h, m)) {
        return (s, false);
    }
    let general = [
        "remember",
        "rule",
        "convention",
        "how",
        "future",
        "from now on",
        "always",
        "policy",
        "here",
    ]
    .iter()
    .any(|m| h.contains(m));
    (s[at + 2..].trim_start(), general)
}

/// "could you please always add ..." gives "always add ...".
fn strip_request(s: &str) -> &str {
    let mut s = s;
    for lead in [
        "would you mind ",
        "do you mind ",
        "could you please ",
        "can you please ",
        "would you please ",
        "could you ",
        "can you ",
        "would you ",
        "please ",
        "pls ",
        "you need to ",
        "you have to ",
        "you must ",
        "you should ",
        "make sure to ",
        "remember to ",
        "i want you to ",
        "i'd like you to ",
    ] {
        if s.to_lowercase().starts_with(lead) {
            s = &s[lead.len()..];
        }
    }
    s
}

/// "why are you adding the provider package?" gives "Don't add the provider package".
fn why_directive(lower: &str, text: &str) -> Option<String> {
    if !lower.starts_with("why ") {
        return None;
    }
    let ing = |w: &str| -> Option<String> {
        let stem = w.strip_suffix("ing")?;
        let table = [
            ("add", "add"),
            ("us", "use"),
            ("runn", "run"),
            ("creat", "create"),
            ("edit", "edit"),
            ("writ", "write"),
            ("putt", "put"),
            ("call", "call"),
            ("import", "import"),
            ("install", "install"),
            ("mak", "make"),
            ("build", "build"),
            ("delet", "delete"),
            ("chang", "change"),
            ("committ", "commit"),
            ("push", "push"),
            ("touch", "touch"),
            ("mock", "mock"),
            ("pinn", "pin"),
            ("hardcod", "hardcode"),
        ];
        table
            .iter()
            .find(|(s, _)| *s == stem)
            .map(|(_, v)| v.to_string())
            .or_else(|| Some(stem.to_string()))
    };
    let body = text.trim_end_matches(['?', '!', ' ']);
    let words: Vec<&str> = body.split_whitespace().collect();
    let lw: Vec<String> = words.iter().map(|w| w.to_lowercase()).collect();
    let rest = |n: usize| words.get(n..).map(|w| w.join(" ")).unwrap_or_default();
    match lw.get(1).map(String::as_str) {
        Some("are" | "were" | "is") if lw.get(2).is_some_and(|w| w == "you") => {
            let verb = ing(lw.get(3)?)?;
            Some(format!("Don't {verb} {}", rest(4)))
        }
        Some("did" | "do" | "would") if lw.get(2).is_some_and(|w| w == "you") => {
            Some(format!("Don't {} {}", lw.get(3)?, rest(4)))
        }
        Some("a" | "an") if lw.get(2).is_some_and(|w| w == "new") => {
            Some(format!("Don't create a new {}", rest(3)))
        }
        // "why npm??": the tool the agent reached for, questioned.
        Some(w)
            if words.len() == 2
                && text.trim_end().ends_with('?')
                && !super::phrasing::is_common(w)
                && !["not", "so", "is", "was", "does", "this", "that"].contains(&w) =>
        {
            Some(format!("Don't use {}", words[1]))
        }
        _ => None,
    }
    .map(|d| d.trim().to_string())
    .filter(|d| d.split_whitespace().count() >= 3)
}

/// "always"/"never" saying what to do ("never edit", "we always run", "never DecimalField"),
/// not describing what something does ("the matcher never matches refunds").
fn habit_adverb(lower: &str) -> bool {
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '`'))
        .collect();
    words.iter().enumerate().any(|(i, w)| {
        if *w != "always" && *w != "never" {
            return false;
        }
        let before = i.checked_sub(1).map(|j| words[j]).unwrap_or("");
        let next = words.get(i + 1).copied().unwrap_or("");
        let describes = next.len() > 3 && next.ends_with('s') && !next.ends_with("ss");
        !describes || ["we", "you", "they", "i"].contains(&before)
    })
}

/// Whether `word` (lower case) is a verb a directive opens with.
pub fn is_verb(word: &str) -> bool {
    VERBS.contains(&word)
}

fn directive_first(lower: &str) -> bool {
    let first = lower.split_whitespace().next().unwrap_or("");
    VERBS.contains(&first.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
}

/// Read one sentence.
pub fn read(sentence: &str) -> Sentence {
    // "(we use nextest, fyi)": an aside in brackets is said like any other sentence.
    let trimmed = sentence.trim();
    let sentence = match trimmed.strip_prefix('(') {
        Some(inner) if trimmed.trim_end_matches(['.', '!']).ends_with(')') => {
            inner.trim_end_matches(['.', '!']).trim_end_matches(')')
        }
        _ => trimmed,
    };
    let sentence = corrected(sentence);
    let (s, objection) = strip_openers(sentence.trim());
    let (s, preamble_general) = strip_preamble(s);
    let (s, objection2) = strip_openers(s);
    let s = strip_request(s);
    let lower = s.to_lowercase();
    let chatter = CHATTER.iter().any(|c| has_word(&lower, c.trim()))
        || ["hi", "hello", "morning", "good morning", "hey there"]
            .iter()
            .any(|g| {
                lower == *g
                    || lower.starts_with(&format!("{g} "))
                    || lower.starts_with(&format!("{g}!"))
            });
    // "never from inside the atomic block, or the worker reads rows that aren't committed yet":
    // a time word in the clause that gives the reason says nothing about when the rule holds.
    let lead = reason_cut(&lower);
    // "build it here so I can copy it over": a purpose of the user's own, right now (unless
    // the sentence says it holds every time).
    let my_purpose = ["so i can", "so that i can"]
        .iter()
        .any(|p| has_word(lead, p))
        && !habit_adverb(&lower)
        && !GENERAL.iter().any(|g| lower.contains(g));
    let local = my_purpose
        || picks_a_choice(lead)
        || LOCAL.iter().any(|p| has_word(lead, p.trim()))
        || has_word(lead, "yet")
        || lower.starts_with("that one")
        || lower.starts_with("this one");
    let why = why_directive(&lower, s);
    // "roles get tested with molecule here": a statement of how things are done in this place
    // (not a question, not "here's the log").
    let here = has_word(&lower, "here")
        && ["we ", "we're", "it's ", " is ", " are "]
            .iter()
            .any(|w| lower.contains(w))
        || has_word(&lower, "here")
            && !lower.ends_with('?')
            && !lower.starts_with("here")
            && ![
                "right here",
                "in here",
                "over here",
                "from here",
                "to here",
                "stop here",
            ]
            .iter()
            .any(|p| lower.contains(p));
    let first_word = lower.split_whitespace().next().unwrap_or("");
    let first_word =
        first_word.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-');
    // "constructor injection only" states a habit; "run it for last month only" is one run.
    let only = [
        "only in ",
        "only for ",
        "only use",
        "use only",
        "using only",
    ]
    .iter()
    .any(|p| has_word(&lower, p.trim()))
        || ([" only.", " only,", " only;", " only:"]
            .iter()
            .any(|p| lower.contains(p))
            || lower.ends_with(" only"))
            && !VERBS.contains(&first_word);
    // "I always forget": the user about themselves, not a rule (unless stating a preference).
    // "always forget that one": the speaker's own mind with its "I" left out.
    let mind = ["always ", "never ", "keep "].iter().any(|a| {
        lower.strip_prefix(a).is_some_and(|rest| {
            ["forget", "forgot", "remember", "mix up", "confuse", "miss "]
                .iter()
                .any(|v| rest.starts_with(v))
        })
    });
    let about_me = mind
        || (lower.starts_with("i ") || lower.starts_with("i'm ") || lower.starts_with("i've "))
            && ![
                "i prefer",
                "i want",
                "i always want",
                "i'd like",
                "i never want",
            ]
            .iter()
            .any(|p| lower.starts_with(p));
    // A bare "that"/"it" subject with nothing to resolve it: not self-contained.
    let dangling = [
        "that happens",
        "it happens",
        "this happens",
        "that's the",
        "that is the",
    ]
    .iter()
    .any(|p| lower.starts_with(p));
    let first = lower.split_whitespace().next().unwrap_or("");
    let first = first.trim_matches(|c: char| !c.is_alphanumeric() && c != '\'' && c != '-');
    // "`git add -N` the new file, then build": a quoted command used as the verb.
    let directive =
        VERBS.contains(&first) || s.starts_with('`') && s[1..].find('`').is_some_and(|e| e >= 2);
    // "use pnpm here": a habit of the place, not a step of this task.
    let here = here
        || (has_word(&lower, "here")
            && ["use", "run", "don't", "dont", "never", "always"].contains(&first));
    // "use a map here", "add a comment here": a spot in the code, not this place's habit.
    let spot = directive_first(&lower)
        && lower
            .split_whitespace()
            .nth(1)
            .is_some_and(|w| ["a", "an", "some", "one"].contains(&w));
    let here = here && !spot;
    let general = !about_me
        && !dangling
        && (preamble_general
            || GENERAL.iter().any(|g| {
                // "merge whenever": at a time of the user's choosing, not every time.
                // "how many times" holds no "any time".
                (if g.starts_with("any") {
                    has_word(&lower, g)
                } else {
                    lower.contains(g)
                }) && !(*g == "whenever"
                    && lower
                        .trim_end_matches(['.', '!', ' '])
                        .ends_with("whenever"))
            })
            || habit_adverb(&lower)
            || HOW_THINGS_ARE.iter().any(|h| lower.starts_with(h))
            || universal_norm(&lower)
            || here
            || only
            || only_where(&lower))
        && !asks(&lower);
    let pointing = local && picks_a_choice(&lower)
        || POINTING.iter().any(|p| has_word(&lower, p.trim()))
        || lower.starts_with("that one")
        || lower.starts_with("this one");
    let prohibition = [
        "don't ", "do not ", "never ", "no ", "not ", "stop ", "avoid ",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
        // "not default_scope, it has bitten us": the object ends at the comma.
        && !lower
            .split([',', ';'])
            .next()
            .unwrap_or("")
            .split_whitespace()
            .skip(1)
            .take(3)
            .any(|w| {
                ["it", "that", "this", "them", "anything", "yet"]
                    .contains(&w.trim_matches(|c: char| !c.is_alphanumeric()))
            });
    let marker = lower.starts_with("that's not how") || lower.starts_with("that is not how");
    // "no library() calls in package code ever": a prohibition for every time.
    let general = general || prohibition && has_word(reason_cut(&lower), "ever") && !asks(&lower);
    Sentence {
        contrast: bare_contrast(&lower),
        prohibition,
        pointing,
        marker,
        text: s.trim().to_string(),
        general,
        objection: objection || objection2 || lower.starts_with("that's not how") || why.is_some(),
        why,
        directive,
        local,
        chatter,
    }
}

/// The sentence up to the clause that gives its reason ("..., or the worker reads rows that
/// aren't committed yet", "... because ...").
pub fn reason_cut(lower: &str) -> &str {
    [
        ", or ",
        " or else ",
        ", otherwise ",
        " otherwise ",
        ", because ",
        " because ",
        ", since ",
        " so that ",
        ", else ",
    ]
    .iter()
    .filter_map(|m| lower.find(m))
    .min()
    .map_or(lower, |at| &lower[..at])
}

/// A question that asks rather than tells ("why does the plan always show it as changed?",
/// "is this always null?"): no rule, whatever "always" it holds.
fn asks(lower: &str) -> bool {
    const ASKING: &[&str] = &[
        "why ", "what ", "how ", "where ", "when ", "who ", "which ", "does ", "do ", "did ",
        "is ", "are ", "was ", "were ", "should ", "shall ", "will ", "has ", "have ",
    ];
    lower.trim_end().ends_with('?') && ASKING.iter().any(|a| lower.starts_with(a))
}

/// "raw SQL is only OK in reports/sql/", "that client is only for the admin app": where
/// something is allowed, a rule of the place.
fn only_where(lower: &str) -> bool {
    let words: Vec<&str> = lower.split_whitespace().collect();
    const MOVES: &[&str] = &[
        "run", "runs", "go", "goes", "live", "lives", "happen", "happens", "belong", "belongs",
        "get", "gets", "come", "comes",
    ];
    // "migrations only run through bin/migrate": a subject, then where it only goes.
    let moves = words.iter().enumerate().any(|(i, w)| {
        *w == "only"
            && i > 0
            && words.get(i + 1).is_some_and(|v| MOVES.contains(v))
            && words.get(i + 2).is_some_and(|p| {
                ["in", "through", "via", "from", "inside", "under", "on"].contains(p)
            })
    });
    moves
        || words.iter().enumerate().any(|(i, w)| {
            *w == "only"
                && words
                    .get(i + 1..(i + 3).min(words.len()))
                    .is_some_and(|next| {
                        next.iter().any(|n| {
                            [
                                "in", "for", "via", "through", "inside", "from", "under", "within",
                            ]
                            .contains(n)
                        })
                    })
                && i > 0
                && ["is", "are", "'s", "belongs", "lives", "goes", "allowed"]
                    .iter()
                    .any(|v| words[..i].iter().any(|x| x == v || x.ends_with(v)))
        })
}

/// "gradle, not maven", "pytest not unittest": one name set against another, nothing else.
fn bare_contrast(lower: &str) -> bool {
    let body = lower.trim_end_matches(['.', '!', ' ']);
    let Some((x, y)) = body.split_once(" not ") else {
        return false;
    };
    let name = |s: &str| {
        let s = s.trim().trim_end_matches(',').trim_matches('`');
        let words: Vec<&str> = s.split_whitespace().collect();
        !words.is_empty()
            && words.len() <= 2
            && words.iter().all(|w| {
                !super::phrasing::is_common(w)
                    && !["it", "that", "this", "yet", "now", "here", "me", "you"].contains(w)
            })
    };
    name(x) && name(y)
}

/// A sentence made of openers alone ("ugh.", "no no.", "again.").
fn only_openers(s: &str) -> bool {
    let lower = s.to_lowercase();
    lower.split_whitespace().all(|w| {
        let w = w.trim_matches(|c: char| !c.is_alphanumeric());
        w.is_empty() || OPENERS.iter().any(|(o, _)| *o == w)
    })
}

/// Split on sentence ends and line breaks; keep the text as written. A full stop inside a
/// backticked span or a file name (`settings.test`) does not end a sentence.
pub fn sentences(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut in_code = false;
    for (i, &c) in chars.iter().enumerate() {
        if c == '`' {
            in_code = !in_code;
        }
        let end = !in_code
            && matches!(c, '.' | '!' | '?')
            && chars.get(i + 1).is_none_or(|n| n.is_whitespace());
        if c == '\n' || end {
            if end {
                cur.push(c);
            }
            if !cur.trim().is_empty() {
                out.push(cur.trim().to_string());
            }
            cur.clear();
            if c == '\n' {
                in_code = false;
            }
        } else {
            cur.push(c);
        }
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    // "few things: give it an @examples block; no library() calls ever, ...; and add a test":
    // a list of items separated by semicolons is one sentence per item.
    let out: Vec<String> = out
        .into_iter()
        .flat_map(|s| {
            let mut items: Vec<String> = Vec::new();
            let mut in_code = false;
            let mut start = 0;
            for (i, c) in s.char_indices() {
                if c == '`' {
                    in_code = !in_code;
                }
                if c == ';' && !in_code && s[i + 1..].starts_with(' ') {
                    items.push(s[start..i].trim().to_string());
                    start = i + 1;
                }
            }
            items.push(s[start..].trim().to_string());
            if items.len() >= 3 {
                items.retain(|i| !i.is_empty());
                items
            } else {
                vec![s]
            }
        })
        .collect();
    // "ugh." "again." and other one-word sentences open the next one.
    let mut merged: Vec<String> = Vec::new();
    for s in out {
        match merged.last_mut() {
            Some(prev) if only_openers(prev) => {
                *prev = format!("{prev} {s}");
            }
            _ => merged.push(s),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chatter_and_references_to_this_conversation_are_not_general() {
        for s in [
            "Always nice working with you.",
            "always the same with this code lol",
            "Always the same story with this checkout code lol.",
            "thanks, nice work",
        ] {
            assert!(read(s).chatter, "{s}");
        }
        for s in [
            "Don't push yet.",
            "Use the second option you mentioned, the one with the map.",
            "no, the other file",
            "let's do the map version this time",
            "not now",
            "just silence the peer warnings for now",
            "I'll open the PR myself",
            "Don't forget the tests.",
            "Use the same approach as in cart.ts but keep the discount logic.",
        ] {
            assert!(read(s).local, "{s}");
        }
    }

    #[test]
    fn statements_of_how_things_are_here_are_general() {
        for s in [
            "we're a pnpm shop",
            "it's pnpm here",
            "src/gen is generated code.",
            "everything goes through the release workflow",
            "from now on use fvm flutter",
            "constructor injection only.",
            "this is a uv project: `uv add`, no pip",
            "One thing about how this repo works: we never run tsc in a package",
            "that's not how we compare benches here.",
        ] {
            assert!(read(s).general, "{s}");
        }
        let w = read("why did you use npm?");
        assert!(w.objection);
        assert_eq!(w.why.as_deref(), Some("Don't use npm"));
        assert_eq!(
            read("why are you adding the provider package?")
                .why
                .as_deref(),
            Some("Don't add the provider package")
        );
        assert_eq!(
            read("why a new reqwest::Client for every call?")
                .why
                .as_deref(),
            Some("Don't create a new reqwest::Client for every call")
        );
    }

    #[test]
    fn sentences_keep_dotted_names_and_code_whole() {
        assert_eq!(
            sentences("ugh. again. it's --ds=ledgerly.settings.test, see `a. b`. ok"),
            [
                "ugh. again. it's --ds=ledgerly.settings.test, see `a. b`.",
                "ok"
            ]
        );
    }
}
