//! Lessons the user stated, read the way a careful reader of the transcript would: a message
//! teaches when it says how things are done here, asks for every later time, or objects to what
//! the agent just did with a rule behind the objection ("why are you adding the provider
//! package? we're on riverpod here"). Sentences about this conversation only ("the other file",
//! "for now", "don't push yet"), thanks and moods are never part of a rule.
//!
//! The agent's tool call just before the message fills in what the user left implicit ("that
//! folder is generated" names the folder the agent was editing), and a statement followed by a
//! "so ..." message is one lesson. Every objection is kept for the diary, with its line, even
//! when no rule results. The rule itself is written by [`super::rule_text`].

use super::delta::LessonKind;
use super::rule_text;
use super::speech::{self, Sentence};
use super::transcript::{Step, ToolRun, Transcript};

/// A lesson the user stated.
#[derive(Debug, Clone, PartialEq)]
pub struct Said {
    pub line: i64,
    pub rule: String,
    pub lesson: LessonKind,
    /// The agent's call the lesson is about or names (the one just before, or the session's
    /// command that runs the tool a short statement names).
    pub command: Option<String>,
}

/// A message where the user objected to what the agent did, kept for the diary.
#[derive(Debug, Clone, PartialEq)]
pub struct Objection {
    pub line: i64,
    pub text: String,
    /// Halts what the agent just did ("stop.", "wait,", "no no"): what it did is what not to do.
    pub halts: bool,
}

/// Messages longer than this are pasted text (a log, a document), not something said.
const PASTED: usize = 4000;

/// One message of the user and what came just before it.
struct Message<'a> {
    line: i64,
    text: &'a str,
    /// The tool call the agent made last.
    before: Option<&'a ToolRun>,
    /// Since the user's previous message the agent only asked a question ("What should I use
    /// instead?"): this message answers it.
    answers: bool,
    /// The user interrupted the agent's last call (the client's "[Request interrupted ...]"
    /// notice came after it): what follows says what to do instead.
    halted: bool,
    /// The agent's last edit before the message.
    edit: Option<&'a ToolRun>,
}

/// The user's messages, each with the tool call the agent made just before it.
fn messages(t: &Transcript) -> Vec<Message<'_>> {
    let mut out = Vec::new();
    let mut last: Option<&ToolRun> = None;
    let (mut asked, mut ran, mut halted) = (false, false, false);
    let mut edit: Option<&ToolRun> = None;
    for step in &t.steps {
        match step {
            Step::Tool(run) => {
                last = Some(run);
                if run.is_edit() {
                    edit = Some(run);
                }
                ran = true;
                halted = false;
            }
            Step::User { line, text } => {
                if !injected(text) {
                    out.push(Message {
                        line: *line,
                        text: text.as_str(),
                        before: last,
                        answers: asked && !ran,
                        halted,
                        edit,
                    });
                    (asked, ran, halted) = (false, false, false);
                } else if text.trim_start().starts_with("[Request interrupted") {
                    halted = last.is_some();
                }
            }
            Step::Agent { text, .. } => asked = text.trim_end().ends_with('?'),
        }
    }
    out
}

/// Text the agent's client puts in the user's turn (an interruption notice, a caveat, a
/// project's instruction file): nobody said it to this agent.
fn injected(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with("[Request interrupted")
        || t.starts_with("Caveat: The messages below")
        || t.starts_with("# AGENTS.md")
        || t.starts_with("# CLAUDE.md")
        || [
            "<INSTRUCTIONS>",
            "<user_instructions>",
            "<environment_context>",
            "<system-reminder>",
        ]
        .iter()
        .any(|m| t.contains(m))
}

/// `text` without inline feedback markers (`[cass: harmful b-...]`), which are read elsewhere.
fn without_markers(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.to_ascii_lowercase().find("[cass:") {
        out.push_str(&rest[..at]);
        match rest[at..].find(']') {
            Some(end) => rest = &rest[at + end + 1..],
            None => {
                rest = "";
                break;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Whether the tool call was one the user refused.
fn refused(run: Option<&ToolRun>) -> bool {
    run.is_some_and(|r| super::transcript::refusal(&r.output))
}

/// "could you build it with `goreleaser build` instead?" right after the agent ran a command:
/// the user replaces what the agent did with another way (a command or a tool to use).
fn replaces(s: &Sentence, before: Option<&ToolRun>) -> bool {
    let lower = s.text.to_lowercase();
    before.is_some_and(|r| r.command.is_some() || r.is_edit())
        && !s.local
        && !s.chatter
        && speech::has_word(&lower, "instead")
        && (s.text.contains('`')
            || [
                "use", "run", "build", "install", "add", "do", "doing", "write",
            ]
            .iter()
            .any(|v| lower.starts_with(&format!("{v} "))))
}

/// The words that name what the agent ran (`cargo`, `nextest`; `kubectl`, `apply`), wrappers
/// and flags left out.
fn call_words(before: Option<&ToolRun>) -> Vec<String> {
    let Some(command) = before.and_then(|r| r.command.as_deref()) else {
        return before.map(edit_words).unwrap_or_default();
    };
    // Every step that does something: `git add -N x.nix && nixpkgs-fmt home/` runs both.
    let mut out: Vec<String> = Vec::new();
    for step in super::gist::doing(command) {
        for w in super::gist::base_of(&step).split_whitespace() {
            let w = w.rsplit('/').next().unwrap_or(w).to_lowercase();
            if w.len() >= 2 && !super::phrasing::is_common(&w) && !out.contains(&w) {
                out.push(w);
            }
        }
    }
    if out.is_empty() {
        return super::gist::base(command)
            .split_whitespace()
            .map(|w| w.rsplit('/').next().unwrap_or(w).to_lowercase())
            .filter(|w| w.len() >= 2 && !super::phrasing::is_common(w))
            .collect();
    }
    out
}

/// The names an edit brought in: what it calls or reaches into (`.unwrap()`, `fmt.Println(`,
/// `errors::Wrap`) and the text it removed did not.
fn edit_words(run: &ToolRun) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let added = &run.added;
    for (at, _) in added.match_indices(['(', '!']) {
        let head = &added[..at];
        let start = head
            .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
            .map(|i| i + 1)
            .unwrap_or(0);
        let name = &head[start..];
        let reached = head[..start].ends_with('.') || head[..start].ends_with("::");
        if name.len() >= 3
            && reached
            && !run.removed.contains(&format!("{name}("))
            && !super::phrasing::is_common(&name.to_lowercase())
            && !out.iter().any(|o| o == &name.to_lowercase())
        {
            out.push(name.to_lowercase());
        }
    }
    out
}

/// A sentence that turns against what the agent just ran: it names the call's program in a
/// prohibition or a contrast ("don't build with npm run build", "tests are vitest here, not
/// jest", "never rails db:migrate directly"), or replaces it with a quoted command ("that
/// should've been `uv run script.py`", "use `make test`, it starts the db").
fn turns_against(s: &Sentence, call: &[String]) -> bool {
    if call.is_empty() || s.chatter || s.local {
        return false;
    }
    let lower = s.text.to_lowercase();
    let names = call.iter().any(|w| speech::has_word(&lower, w));
    let contrast = s.prohibition
        || [
            "not", "never", "instead", "rather", "wrong", "don't", "stop", "no",
        ]
        .iter()
        .any(|w| speech::has_word(&lower, w))
        || lower.contains("??");
    let quoted_replacement = s.text.contains('`')
        && (lower.starts_with("use ")
            || lower.contains("should've been")
            || lower.contains("should have been")
            || lower.contains("should be"));
    (names && contrast) || quoted_replacement
}

/// A follow-up instruction for the task at hand ("add one for voyage_id", "add AUTH_RATE_LIMIT
/// there and import config", "add a scenario and run it"): it points back at this session's
/// work, so it is not part of a rule.
fn this_task(s: &Sentence) -> bool {
    let lower = s.text.to_lowercase();
    s.directive
        && !s.text.contains('`')
        && ["it", "there", "one", "them", "this", "that", "these"]
            .iter()
            .any(|w| speech::has_word(&lower, w))
}

/// "every new .nix file, every time", "in every package, always": says when or where, with no
/// verb of its own.
fn scope_only(s: &Sentence) -> bool {
    let lower = s.text.to_lowercase();
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '\''))
        .collect();
    s.general
        && !s.prohibition
        && !s.directive
        && s.why.is_none()
        && words.len() <= 8
        && !words.iter().any(|w| {
            speech::is_verb(w)
                || [
                    "is", "are", "was", "be", "goes", "go", "gets", "get", "needs", "need", "has",
                    "have", "must", "should", "it's", "we", "uses", "means",
                ]
                .contains(w)
        })
}

/// "Add that to TollCalculator", "implement it in the parser": the message asks for the work
/// its other sentences describe ("weekend passages should always be off-peak"), a spec of this
/// task, not a habit of the place.
fn builds_what_was_said(s: &Sentence) -> bool {
    let lower = s.text.to_lowercase();
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .collect();
    matches!(
        words.first().copied(),
        Some("add" | "implement" | "put" | "wire" | "code" | "encode" | "build" | "bake")
    ) && words
        .get(1)
        .is_some_and(|w| ["that", "this", "it", "these", "those"].contains(w))
}

/// Names the agent's last edit brought in (`default_scope`, `DateTime.Now`, `env()`, `Repo`,
/// `src/`) that the sentence names as code: the sentence is about that edit.
fn names_edit(s: &Sentence, before: Option<&ToolRun>) -> bool {
    let Some(run) = before.filter(|r| r.is_edit()) else {
        return false;
    };
    s.text
        .split(|c: char| c.is_whitespace() || ",;!?\"'`".contains(c))
        .enumerate()
        .any(|(i, w)| {
            let core = w
                .trim_end_matches(['.', ':'])
                .trim_end_matches("()")
                .trim_end_matches('(');
            let inner = core.get(1..).unwrap_or("");
            let code = inner.contains(['_', '.', '(', '/', '@', ':'])
                || w.contains("()")
                || inner.chars().any(char::is_uppercase)
                || (i > 0 && core.chars().next().is_some_and(char::is_uppercase));
            code && core.chars().filter(|c| c.is_alphanumeric()).count() >= 3
                && !super::phrasing::is_common(&core.to_lowercase())
                && run.added.contains(core)
                && !run.removed.contains(core)
        })
}

/// One name and nothing else ("pnpm", "constructor injection please", "DateTime.Now again",
/// "contexts."): what to use, or what the user objects to.
fn bare_name(text: &str) -> Option<&str> {
    let mut t = text.trim().trim_end_matches(['.', '!', '?', ' ']);
    for tail in [" again", " please", " pls", " here", " instead"] {
        if t.to_lowercase().ends_with(tail) {
            t = &t[..t.len() - tail.len()];
        }
    }
    let words: Vec<&str> = t.split_whitespace().collect();
    let first = words.first()?.to_lowercase();
    let ok = (1..=3).contains(&words.len())
        && !speech::is_verb(first.trim_matches(|c: char| !c.is_alphanumeric()))
        && ![
            "it", "that", "this", "those", "these", "yes", "no", "ok", "okay", "sure", "why",
            "what", "how", "same", "the", "a", "an", "and", "but", "or", "just",
        ]
        .contains(&first.as_str())
        && words.iter().any(|w| {
            let w = w.to_lowercase();
            (w.len() >= 3 || words.len() == 1 && w.len() == 2) && !super::phrasing::is_common(&w)
        })
        && !words.iter().any(|w| {
            [
                "is", "are", "was", "be", "it's", "i", "you", "we", "the", "a", "an", "that",
                "this", "my", "our", "your", "its", "their", "to", "of", "for", "in", "on", "with",
            ]
            .contains(&w.to_lowercase().as_str())
        });
    ok.then_some(t)
}

/// One name alone ("GlobalScope again??", "DateTime.Now."), not a name with a verb
/// ("Instant::now_utc works").
fn named_alone(text: &str) -> bool {
    bare_name(text).is_some_and(|n| !n.contains(' '))
}

/// "don't." said alone: an objection to what the agent just did.
const DONT: &[&str] = &["don't", "dont", "please don't", "no don't", "no, don't"];

/// "there's a make target for that: make test spins up the db" gives "Use the make target:
/// ..."; "that's what `make test` is for" gives "Use `make test`"; "npm -> pnpm" gives "Use
/// pnpm instead of npm".
fn other_way(text: &str) -> Option<String> {
    let lower = text.to_lowercase();
    for lead in [
        "there's a ",
        "there's an ",
        "there is a ",
        "we have a ",
        "we've got a ",
    ] {
        if let Some(rest) = lower.strip_prefix(lead) {
            let at = rest.find(" for that").or_else(|| rest.find(" for this"))?;
            let name = &text[lead.len()..lead.len() + at];
            let after = &text[lead.len() + at + 9..];
            return (name.split_whitespace().count() <= 4)
                .then(|| format!("Use the {name}{after}"));
        }
    }
    for lead in ["that's what ", "that is what "] {
        if let Some(rest) = lower.strip_prefix(lead) {
            let end = rest.find(" is for").or_else(|| rest.find(" are for"))?;
            let name = &text[lead.len()..lead.len() + end];
            return (name.split_whitespace().count() <= 4).then(|| format!("Use {name}"));
        }
    }
    let (from, to) = text.split_once(" -> ").or_else(|| text.split_once(" → "))?;
    let to = to.trim().trim_end_matches(['.', '!']);
    (from.split_whitespace().count() <= 3 && (1..=3).contains(&to.split_whitespace().count()))
        .then(|| format!("Use {to} instead of {}", from.trim()))
}

/// "`make build` sets the ldflags": the command to use, and what it does.
fn quoted_subject(text: &str) -> Option<String> {
    let rest = text.strip_prefix('`')?;
    let end = rest.find('`')?;
    let (cmd, after) = (&rest[..end], rest[end + 1..].trim_start());
    let verb = after.split_whitespace().next()?.to_lowercase();
    (!cmd.is_empty()
        && verb.len() > 2
        && verb.ends_with('s')
        && !["is", "was", "has"].contains(&verb.as_str()))
    .then(|| format!("Use `{cmd}`, it {after}"))
}

/// The name of the call's program asked back ("kubeval?" after `kubeval --strict ...`): an
/// objection to it, as "why kubeval?" would be.
/// Only with more said beside it ("kubeval? that thing's been dead for years"): "prettier?
/// oh it's fine" asks and lets it be.
fn echo_question(read: &mut [Sentence], before: Option<&ToolRun>, call: &[String]) {
    let fetched_name = before
        .and_then(|r| r.command.as_deref())
        .and_then(fetched)
        .map(|f| f.rsplit('/').next().unwrap_or(&f).to_lowercase());
    let more = |i: usize, read: &[Sentence]| {
        read.iter().enumerate().any(|(j, s)| {
            j != i
                && !s.local
                && !s.chatter
                && !s.text.ends_with('?')
                && s.text.split_whitespace().count() >= 3
        }) && !read.iter().any(|s| accepts(&s.text.to_lowercase()))
    };
    for i in 0..read.len() {
        let body = read[i].text.trim_end_matches(['?', '!', ' ']).to_string();
        let lower = body.to_lowercase();
        let asked_back = read[i].text.ends_with('?')
            && !body.contains(' ')
            && (call.first().is_some_and(|c| *c == lower)
                || fetched_name.as_deref() == Some(&lower));
        if asked_back && more(i, read) {
            read[i].why = Some(format!("Don't use {body}"));
            read[i].objection = true;
        }
    }
}

/// "why all the `catch unreachable`?", "what's with all the print()s in there": a question
/// about something the agent's last edit brought in objects to it, as "why did you use X?"
/// would.
fn asks_about_added(read: &mut [Sentence], edit: Option<&ToolRun>) -> bool {
    let Some(edit) = edit else { return false };
    let mut asked = false;
    for s in read.iter_mut() {
        if s.why.is_some() {
            continue;
        }
        let lower = s.text.to_lowercase();
        let Some(lead) = [
            "why all the ",
            "why all these ",
            "why the ",
            "what's with all the ",
            "what's with all these ",
            "what's with the ",
            "what is with all the ",
            "what are all the ",
            "what are all these ",
        ]
        .iter()
        .find(|l| lower.starts_with(*l)) else {
            continue;
        };
        let mut what = s.text[lead.len()..]
            .trim_end_matches(['?', ' '])
            .to_string();
        for tail in [" in there", " there", " here", " for", " about", " doing"] {
            if what.to_lowercase().ends_with(tail) {
                what.truncate(what.len() - tail.len());
            }
        }
        if what.ends_with("()s") {
            what.pop();
        }
        let core = what.trim_matches('`');
        let core = core.to_string();
        let called = core.strip_suffix("()").map(|c| format!("{c}("));
        let brought = |n: &str| edit.added.contains(n) && !edit.removed.contains(n);
        if core.chars().filter(|c| c.is_alphanumeric()).count() >= 3
            && what.split_whitespace().count() <= 3
            && (brought(&core) || called.as_deref().is_some_and(brought))
        {
            s.why = Some(format!("Don't use {what}"));
            s.objection = true;
            asked = true;
        }
    }
    asked
}

/// Lets what the agent did stand ("it's fine", "whatever, go on", "keep it").
fn accepts(lower: &str) -> bool {
    [
        "fine",
        "whatever",
        "keep it",
        "leave it",
        "go on",
        "works",
        "good enough",
        "never mind",
        "nvm",
        "doesn't matter",
        "ok",
        "okay",
        "all good",
    ]
    .iter()
    .any(|a| speech::has_word(lower, a))
}

/// A message that only hesitates ("hmm", "hm?", "really?"): the agent asking what is wrong
/// makes it an objection.
fn hesitation(text: &str) -> bool {
    let lower = text.trim().to_lowercase();
    let words: Vec<&str> = lower
        .split_whitespace()
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()))
        .filter(|w| !w.is_empty())
        .collect();
    const APPROVAL: &[&str] = &[
        "ok", "okay", "yes", "yep", "yeah", "sure", "good", "great", "nice", "perfect", "lgtm",
        "cool", "thanks", "ty", "go", "continue", "proceed", "fine", "done", "right", "k", "thx",
        "do", "it", "ahead", "ship",
    ];
    (lower.chars().all(|c| c == '?' || c == '!' || c == '.') && lower.contains('?'))
        || (!words.is_empty()
            && words.len() <= 2
            && words.iter().all(|w| {
                !APPROVAL.contains(w)
                    && (w.starts_with("hm")
                        || w.starts_with("uh")
                        || ["huh", "really", "seriously", "eh", "um", "umm", "erm"].contains(w))
            }))
}

/// The answer's first sentence names the way to use: a bare name ("pnpm, the lockfile is
/// pnpm-lock.yaml"), a quoted command doing something ("`make build` sets the ldflags"), a
/// practice ("constructor injection please"). Rewritten as a directive.
fn names_the_way(s: &mut Sentence) -> bool {
    if s.text.ends_with('?') {
        return false;
    }
    if let Some(with) = quoted_subject(&s.text) {
        s.text = with;
        s.directive = true;
        return true;
    }
    let (head, rest) = match s.text.find([',', ';', ':']) {
        Some(at) => s.text.split_at(at),
        None => (s.text.as_str(), ""),
    };
    let Some(name) = bare_name(head) else {
        return false;
    };
    s.text = format!("Use {name}{rest}");
    s.directive = true;
    true
}

/// The sentences of one message that carry its lesson, and whether it objects.
fn lesson_sentences(
    text: &str,
    before: Option<&ToolRun>,
    edit: Option<&ToolRun>,
    halted: bool,
    ran: &[String],
) -> (Vec<Sentence>, bool, bool, bool) {
    let all: Vec<Sentence> = speech::sentences(text)
        .iter()
        .map(|s| speech::read(s))
        .collect();
    // "not like that": all opener, no words left, still an objection; so is "don't." alone.
    let bare_dont =
        |s: &Sentence| DONT.contains(&s.text.trim_end_matches(['.', '!']).to_lowercase().as_str());
    let marked = all.iter().any(|s| s.objection || bare_dont(s));
    let mut read: Vec<Sentence> = all
        .into_iter()
        .filter(|s| !s.text.is_empty() && !bare_dont(s))
        .collect();
    // "there's a make target for that: ...", "that's what `make test` is for", "npm -> pnpm"
    // right after a call: another way to do what the call did.
    if before.is_some_and(|r| r.command.is_some()) {
        for s in read.iter_mut() {
            if let Some(way) = other_way(&s.text) {
                s.text = way.clone();
                s.directive = true;
                s.why = Some(way);
                s.objection = true;
            }
        }
    }
    let call = call_words(before);
    echo_question(&mut read, before, &call);
    let about_edit = asks_about_added(&mut read, edit);
    let named: Vec<bool> = read.iter().map(|s| names_edit(s, before)).collect();
    let replaced = read
        .iter()
        .any(|s| replaces(s, before) || turns_against(s, &call));
    // "we don't pull that in anymore" right after a call: a refusal that points at it.
    let points_back = before.is_some()
        && read.first().is_some_and(|s| {
            let lower = s.text.to_lowercase();
            !s.chatter
                && !s.local
                && (s.prohibition
                    || ["we don't ", "we do not ", "we never "]
                        .iter()
                        .any(|p| lower.starts_with(p)))
                && ["that", "this", "it", "those"]
                    .iter()
                    .any(|w| speech::has_word(&lower, w))
        });
    // "no Repo in controllers" after an edit that added `Repo.insert`: it forbids what the
    // edit brought in.
    // "GlobalScope again??" after an edit that added `GlobalScope.launch`: the name alone.
    let forbids_edit = read
        .iter()
        .zip(&named)
        .any(|(s, n)| *n && (s.prohibition || named_alone(&s.text)) && !s.local && !s.chatter);
    let objection = refused(before)
        || halted
        || replaced
        || points_back
        || forbids_edit
        || marked
        || read.iter().any(|s| s.objection);
    // A message that opens by pointing inside this conversation ("no, the other file") is
    // about finding the place, not a rule.
    let opens_local = read
        .iter()
        .find(|s| !s.chatter)
        .is_some_and(|s| s.pointing && !s.general);
    // After the user stopped or refused the call, a sentence quoting a command of the same
    // program ("plain `sbt test` at the root drags in ...", "test the module you touched: `sbt
    // core/test`") says how that call should have been made.
    let stopped = halted || refused(before);
    let programs: Vec<String> = before
        .and_then(|r| r.command.as_deref())
        .map(|c| {
            super::gist::doing(c)
                .iter()
                .map(|st| super::gist::base_of(st))
                .filter_map(|b| b.split_whitespace().next().map(str::to_lowercase))
                .collect()
        })
        .unwrap_or_default();
    let quotes_call = |s: &Sentence| {
        stopped
            && s.text.split('`').skip(1).step_by(2).any(|q| {
                q.split_whitespace()
                    .next()
                    .is_some_and(|p| programs.contains(&p.to_lowercase()))
            })
    };
    // "NAMESPACE (and everything in man/) is roxygen output, see the first line. put `#'
    // @export` on the function and run devtools::document()" right after an edit of NAMESPACE:
    // a statement about the file the agent just edited, then what to do instead.
    let edited_name = before
        .filter(|r| r.is_edit())
        .and_then(|r| r.file.as_deref())
        .and_then(|f| f.rsplit('/').next())
        .filter(|n| n.len() >= 4);
    let then_directive = |i: usize| read.get(i + 1).is_some_and(|n| n.directive && !n.local);
    let about_edited = |i: usize, s: &Sentence| {
        edited_name.is_some_and(|n| {
            let lower = s.text.to_lowercase();
            s.text.starts_with(n)
                && !s.text.ends_with('?')
                && [" is ", " are ", " gets ", " comes "]
                    .iter()
                    .any(|v| lower.contains(v))
        }) && then_directive(i)
    };
    let teaches = |i: usize, s: &Sentence, named: bool| {
        !s.local
            && !s.chatter
            && (s.general
                || about_edited(i, s)
                || quotes_call(s)
                || (s.contrast && contrast_ran(s, ran))
                || s.why.is_some()
                || (objection && s.prohibition)
                || (objection && named && (!s.text.ends_with('?') || named_alone(&s.text)))
                || replaces(s, before)
                || turns_against(s, &call))
    };
    let mut teach: Vec<bool> = read
        .iter()
        .zip(&named)
        .enumerate()
        .map(|(i, (s, n))| teaches(i, s, *n))
        .collect();
    // "`git add -N` the new file, then build. every new .nix file, every time": a general
    // sentence that only says where or when holds the sentences before it.
    if let Some(at) = teach.iter().position(|t| *t)
        && at > 0
        && scope_only(&read[at])
    {
        for j in (at.saturating_sub(2)..at).rev() {
            let s = &read[j];
            if s.local
                || s.chatter
                || s.text.ends_with('?')
                || s.text.split_whitespace().count() < 3
            {
                break;
            }
            teach[j] = true;
        }
    }
    let spec = !objection && read.iter().any(builds_what_was_said);
    if opens_local || spec || !teach.iter().any(|t| *t) {
        return (Vec::new(), objection, false, false);
    }
    let start = teach.iter().position(|t| *t).unwrap_or(0);
    let mut kept: Vec<Sentence> = Vec::new();
    let mut after_named = false;
    for (i, mut s) in read.into_iter().enumerate().skip(start) {
        if s.local || s.chatter {
            continue;
        }
        let follows = !kept.is_empty();
        // A name alone after an objection: what the user objects to when the edit brought it
        // in ("DateTime.Now again."), else what to use ("contexts.").
        if objection && let Some(name) = bare_name(&s.text) {
            let name = name.to_string();
            if named[i] && !name.contains(' ') {
                s.text = format!("Don't use {name}");
                s.prohibition = true;
            } else if follows {
                s.text = format!("Use {name}");
                s.directive = true;
            }
        } else if objection
            && follows
            && let Some(with) = quoted_subject(&s.text)
        {
            // "`make lint` does helm lint + kubeconform": the way to use instead.
            s.text = with;
            s.directive = true;
        }
        let names_call = call
            .iter()
            .any(|w| w.len() >= 3 && speech::has_word(&s.text.to_lowercase(), w));
        if teach[i]
            || (follows
                && (!this_task(&s) || after_named)
                && (s.directive || objection || names_call || rule_text::is_reason(&s.text)))
        {
            after_named = named[i];
            kept.push(s);
        }
    }
    let states_only = kept.iter().all(|s| !s.directive && s.why.is_none());
    (kept, objection, states_only, about_edit)
}

/// A correction that names the right way but not the wrong one ("it's yarn 4 here, `yarn add
/// zod`" after `npm i zod`; "build it with `goreleaser build` instead"): the command the agent
/// ran is what the rule says not to do.
fn instead_of(rule: String, command: &str) -> String {
    let base = super::gist::base(command);
    let program = base.split_whitespace().next().unwrap_or("");
    let lower = rule.to_ascii_lowercase();
    // `git add -N x && nixpkgs-fmt home/`: a rule naming any step's program says what it is
    // about.
    let names_a_step = super::gist::doing(command).iter().any(|step| {
        let b = super::gist::base_of(step);
        let p = b.split_whitespace().next().unwrap_or("");
        p.len() >= 2 && speech::has_word(&lower, &p.to_lowercase())
    });
    if program.len() < 2
        || super::gist::doing(command).is_empty()
        || names_a_step
        || lower.contains("instead of")
        || lower.contains("rather than")
    {
        return rule;
    }
    let at = speech::has_word(&lower, "instead")
        .then(|| lower.find("instead"))
        .flatten();
    let with = match at {
        Some(i) => format!("{} of `{base}`{}", &rule[..i + 7], &rule[i + 7..]),
        // "Use pnpm, the lockfile is ...", "Use `make build`, it sets ...": right after the way.
        None if used_way_end(&rule).is_some() => {
            let end = used_way_end(&rule).unwrap_or(0);
            format!("{} instead of `{base}`{}", &rule[..end], &rule[end..])
        }
        None if rule.contains('`') => {
            let body = rule.trim_end_matches('.');
            format!("{body} (not `{base}`).")
        }
        None => return rule,
    };
    if with.chars().count() <= rule_text::MAX {
        with
    } else {
        rule
    }
}

/// Where the way a rule opens with ends: "Use `make build`" or "Use pnpm" (a name of up to
/// three words before a comma, a semicolon or the end).
fn used_way_end(rule: &str) -> Option<usize> {
    let rest = rule.strip_prefix("Use ")?;
    if let Some(code) = rest.strip_prefix('`') {
        return code.find('`').map(|e| 4 + 1 + e + 1);
    }
    let end = rest.find([',', ';', ':', '.']).unwrap_or(rest.len());
    let words = rest[..end].split_whitespace().count();
    ((1..=3).contains(&words) && !rest[..end].contains('(')).then_some(4 + end)
}

/// "gradle, not maven" is about this project's tools when the session ran one of the two
/// (`./gradlew build`, `mvn package`: a program is often its name without the vowels), not any
/// contrast of two words ("friday, not monday").
fn contrast_ran(s: &Sentence, ran: &[String]) -> bool {
    let consonants = |w: &str| -> String { w.chars().filter(|c| !"aeiou".contains(*c)).collect() };
    s.text
        .to_lowercase()
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| w.len() >= 3 && *w != "not")
        .any(|w| {
            ran.iter()
                .any(|r| r.starts_with(w) || r.len() >= 3 && *r == consonants(w))
        })
}

/// The session's command whose program is `name` (`gradle`: `./gradlew test`; `maven`: `mvn
/// test`, a program often being its name without the vowels), as program and subcommand.
fn command_named(name: &str, t: &Transcript) -> Option<String> {
    let consonants: String = name.chars().filter(|c| !"aeiou".contains(*c)).collect();
    t.tool_runs()
        .filter_map(|r| r.command.as_deref())
        .flat_map(super::gist::doing)
        .find(|step| {
            let base = super::gist::base_of(step);
            let program = base.split_whitespace().next().unwrap_or("");
            let program = program.rsplit('/').next().unwrap_or(program).to_lowercase();
            program.len() >= 2
                && (program.starts_with(name) || (consonants.len() >= 3 && program == consonants))
        })
        .map(|step| super::gist::base_of(&step))
}

/// "gradle, not maven" with the commands the session ran for each: "gradle (`./gradlew
/// test`), not maven (`mvn test`)".
fn contrast_with_commands(text: &str, t: &Transcript) -> String {
    let body = text.trim_end_matches(['.', '!', ' ']);
    let Some(at) = body.to_lowercase().find(" not ") else {
        return text.to_string();
    };
    let (x, y) = (
        body[..at].trim_end_matches([',', ' ']),
        body[at + 5..].trim(),
    );
    let with = |name: &str| match command_named(&name.trim_matches('`').to_lowercase(), t) {
        Some(c) if !name.contains('`') && !name.contains(' ') => format!("{name} (`{c}`)"),
        _ => name.to_string(),
    };
    format!("{}, not {}", with(x), with(y))
}

/// Whether two messages follow the same tool call (the agent ran nothing in between).
fn same_call(a: Option<&ToolRun>, b: Option<&ToolRun>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => std::ptr::eq(x, y),
        (None, None) => true,
        _ => false,
    }
}

/// For a lesson of a few words that names a tool ("we use nextest"), the session's command
/// nearest to the message that runs it, as far as its subcommand (`cargo nextest run`).
fn tool_in_use(t: &Transcript, kept: &[Sentence], line: i64) -> Option<String> {
    let text: String = kept
        .iter()
        .map(|s| s.text.as_str())
        .collect::<Vec<_>>()
        .join(" ");
    let lower = text.to_lowercase();
    if lower.split_whitespace().count() > 6 || text.contains('`') {
        return None;
    }
    let names: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_'))
        .filter(|w| w.len() >= 3 && !super::phrasing::is_common(w))
        .filter(|w| !["fyi", "btw", "here", "use", "we're", "shop"].contains(w))
        .collect();
    let mut best: Option<(i64, String)> = None;
    for run in t.tool_runs() {
        let Some(command) = run.command.as_deref() else {
            continue;
        };
        for step in super::gist::doing(command) {
            let at = step
                .iter()
                .position(|w| names.contains(&w.to_lowercase().as_str()));
            let Some(at) = at.filter(|a| *a <= 2) else {
                continue;
            };
            let shown: Vec<&str> = step
                .iter()
                .take(at + 2)
                .map(String::as_str)
                .take_while(|w| !w.starts_with('-') && !w.contains(['/', '\'', '"', '=']))
                .collect();
            let distance = (run.line - line).abs();
            if shown.len() > at && best.as_ref().is_none_or(|(d, _)| distance < *d) {
                best = Some((distance, shown.join(" ")));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// A statement about every thing of a kind ("any schema change = a new revision").
fn universal(s: &Sentence) -> bool {
    let lower = s.text.to_lowercase();
    [
        "any ", "all ", "every ", "each ", "no ", "only ", "nothing ",
    ]
    .iter()
    .any(|p| lower.starts_with(p))
        && lower.split_whitespace().count() >= 4
}

/// What a command adds or fetches (`go get github.com/pkg/errors@v0.9.1` gives
/// `github.com/pkg/errors`), without its version.
fn fetched(command: &str) -> Option<String> {
    let step = super::gist::doing(command).into_iter().next()?;
    let base = super::gist::base_of(&step);
    let sub = base.split_whitespace().nth(1)?;
    if !["get", "add", "install", "i", "require"].contains(&sub) {
        return None;
    }
    let at = step.iter().position(|w| w == sub)?;
    let name = step[at + 1..].iter().find(|w| !w.starts_with('-'))?;
    // `@scope/pkg@1.2` keeps its scope; `pkg==1.2`, `pkg@v1` lose the version.
    let cut = name
        .char_indices()
        .skip(1)
        .find(|(_, c)| *c == '@' || *c == '=' || *c == '>' || *c == '<')
        .map(|(i, _)| i)
        .unwrap_or(name.len());
    let name = name[..cut].trim_matches(['\'', '"']);
    (name.len() >= 2 && !name.contains("..")).then(|| name.to_string())
}

/// "we don't pull that in anymore" right after `go get github.com/pkg/errors`: what the
/// agent fetched stands in for "that".
fn named_object(rule: String, command: &str) -> String {
    let Some(name) = fetched(command) else {
        return rule;
    };
    let lower = rule.to_lowercase();
    for verb in [
        "pull", "add", "install", "use", "import", "bring", "get", "include",
    ] {
        for pronoun in ["that", "it", "this", "those", "them"] {
            let phrase = format!("{verb} {pronoun}");
            let mut from = 0;
            while let Some(p) = lower[from..].find(&phrase) {
                let at = from + p;
                let end = at + phrase.len();
                let bounded = (at == 0 || !lower[..at].ends_with(|c: char| c.is_alphanumeric()))
                    && !lower[end..].starts_with(|c: char| c.is_alphanumeric());
                if bounded {
                    return format!("{}{verb} `{name}`{}", &rule[..at], &rule[end..]);
                }
                from = end;
            }
        }
    }
    rule
}

/// A rule whose object is still a bare "that" or "that one" ("Always forget that one.",
/// "Don't pull that in anymore."): nothing says what it is about.
fn dangling(rule: &str) -> bool {
    let lower = rule.to_lowercase();
    let body = lower.trim_end_matches(['.', '!', ' ']);
    let words: Vec<&str> = body.split_whitespace().collect();
    words.len() <= 7
        && !rule.contains('`')
        && words.windows(2).any(|w| {
            ["that", "this", "it", "those", "them"].contains(&w[1])
                || ["that", "this"].contains(&w[0]) && ["one", "in", "thing"].contains(&w[1])
        })
        && words.last().is_some_and(|l| {
            [
                "that", "this", "it", "one", "in", "anymore", "them", "those", "again",
            ]
            .contains(l)
        })
}

/// A terse correction ("no. yarn.", "nope, ruff!") after the agent ran `command`: one name
/// (a tool, not a word of talk) that is not the program the agent ran.
fn terse(text: &str, command: &str) -> Option<String> {
    // "wrong package manager": the words name what was wrong, not what to use.
    if text.trim_start().to_lowercase().starts_with("wrong") {
        return None;
    }
    // "always." or "every time." after the name only says it holds from now on.
    // "no." before the name only marks the objection.
    let sentences: Vec<String> = speech::sentences(text)
        .into_iter()
        .filter(|s| {
            let l = s.to_lowercase();
            let l = l.trim_end_matches(['.', '!', ' ']);
            !["always", "every time", "always please", "please"].contains(&l)
                && !{
                    let r = speech::read(s);
                    r.text.is_empty() && r.objection
                }
        })
        .collect();
    let [one] = sentences.as_slice() else {
        return None;
    };
    let s = speech::read(one);
    let name = s.text.trim_end_matches(['.', '!', '?', ' ']);
    let base = super::gist::base(command);
    // "--fast." after `stack build`: the flags the call lacked.
    if !name.is_empty()
        && name
            .split_whitespace()
            .all(|w| w.starts_with('-') && w.len() >= 3 && !w.contains('`'))
        && name.split_whitespace().count() <= 3
    {
        return Some(format!("Run `{base}` with `{name}`."));
    }
    // "staging first. always." after `ansible-playbook -i inventories/production ...`: what
    // comes before the call.
    if let Some(what) = name.strip_suffix(" first") {
        let n = what.split_whitespace().count();
        if (1..=2).contains(&n)
            && !what
                .split_whitespace()
                .any(|w| super::phrasing::is_common(&w.to_lowercase()))
        {
            return Some(format!("Always {what} first, before `{base}`."));
        }
    }
    let words: Vec<&str> = name.split_whitespace().collect();
    // "nh os switch ." names a command of a few words.
    let command_like = words.len() <= 4
        && words.len() > 2
        && words[0]
            .chars()
            .all(|c| c.is_ascii_lowercase() || c == '-' || c == '_');
    let tool = !words.is_empty()
        && (words.len() <= 2 || command_like)
        && name.len() >= 2
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./@ ".contains(c))
        && words[0].chars().any(|c| c.is_ascii_alphabetic())
        && !words
            .iter()
            .any(|w| super::phrasing::is_common(&w.to_lowercase()))
        && !s.chatter;
    let program = base.split_whitespace().next().unwrap_or("");
    let shown = if words.len() > 1 {
        format!("`{name}`")
    } else {
        name.to_string()
    };
    (tool && program.len() >= 2 && !program.eq_ignore_ascii_case(words.first()?))
        .then(|| format!("Use {shown} instead of `{base}`."))
}

/// "not like that, that's the global environment. --project=. and Pkg.test()" after `julia
/// test/runtests.jl`: the user names pieces of the right command and the agent's next command,
/// which passed, holds them. That command is the way, the call before the objection is not.
fn redone(t: &Transcript, line: i64, text: &str, before: &ToolRun) -> Option<String> {
    let was = before.command.as_deref()?;
    let at = t
        .steps
        .iter()
        .position(|s| matches!(s, Step::User { line: l, .. } if *l == line))?;
    let next = t.steps[at + 1..]
        .iter()
        .take_while(|s| !matches!(s, Step::User { .. }))
        .find_map(|s| match s {
            Step::Tool(r) if r.command.is_some() => Some(r),
            _ => None,
        })?;
    let now = next.command.as_deref()?;
    if next.failed || super::gist::doing(now).is_empty() {
        return None;
    }
    // The pieces the user named: flags, dotted or called names, words of code, each in the new
    // command and not in the old one.
    let pieces: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',' || c == '`')
        .map(|w| w.trim_end_matches(['.', ',', '!', '?', ';']))
        .filter(|w| {
            let code = w.starts_with('-') || w.contains(['.', '(', '_', ':', '=', '/']);
            code && w.chars().filter(|c| c.is_alphanumeric()).count() >= 3
        })
        .collect();
    let fresh = pieces
        .iter()
        .filter(|p| now.contains(*p) && !was.contains(*p))
        .count();
    if fresh == 0 || fresh * 2 < pieces.len() {
        return None;
    }
    let way = super::gist::shown(now);
    let old = Some(super::gist::shown(was))
        .filter(|o| o.len() <= 50 && !o.contains("&&"))
        .unwrap_or_else(|| super::gist::base(was));
    (!way.is_empty() && way.len() <= 80 && !old.is_empty() && way != old)
        .then(|| format!("Use `{way}` instead of `{old}`."))
}

/// Every lesson the user stated in the session, and every objection (for the diary).
pub fn read(t: &Transcript, workspace: Option<&str>) -> (Vec<Said>, Vec<Objection>) {
    let msgs = messages(t);
    let ran: Vec<String> = t
        .tool_runs()
        .filter_map(|r| r.command.as_deref())
        .flat_map(|c| {
            c.split(|ch: char| !(ch.is_alphanumeric() || ch == '-' || ch == '_'))
                .filter(|w| w.len() >= 2)
                .map(str::to_lowercase)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut said: Vec<Said> = Vec::new();
    let mut objections: Vec<Objection> = Vec::new();
    let mut skip_next = false;
    for (i, m) in msgs.iter().enumerate() {
        let (line, raw, before) = (&m.line, &m.text, &m.before);
        if std::mem::take(&mut skip_next) {
            continue;
        }
        if raw.len() > PASTED || raw.contains(super::OWN_CALL_MARKER) {
            continue;
        }
        let text = without_markers(raw);
        let (mut kept, mut objection, states_only, about_edit) =
            lesson_sentences(&text, *before, m.edit, m.halted, &ran);
        if objection {
            let lower = text.trim().to_lowercase();
            objections.push(Objection {
                line: *line,
                text: super::fixes::clip(raw.trim(), 300),
                halts: m.halted
                    || ["stop", "wait", "no no", "hold on", "whoa"]
                        .iter()
                        .any(|h| lower.starts_with(h)),
            });
        }
        // "we don't pull that in anymore" ... "What should I use instead?" ... "stdlib only:
        // fmt.Errorf with %w": the answer to the agent's question finishes the correction.
        // "hmm" after a call, the agent asks what is wrong: the answer is the correction.
        let hesitates = before.is_some() && kept.is_empty() && hesitation(&text);
        if (objection || hesitates || !kept.is_empty())
            && let Some(next) = msgs
                .get(i + 1)
                .filter(|n| n.answers && n.text.len() < PASTED)
        {
            let mut answer: Vec<Sentence> = speech::sentences(&without_markers(next.text))
                .iter()
                .map(|s| speech::read(s))
                .filter(|s| !s.text.is_empty() && !s.local && !s.chatter && !this_task(s))
                .collect();
            let states = |s: &Sentence| {
                s.general || s.directive || s.prohibition || s.why.is_some() || universal(s)
            };
            // "pnpm, the lockfile is pnpm-lock.yaml", "`make build` sets the ldflags",
            // "constructor injection please": the answer names the way to use.
            let named_way = (objection || hesitates) && kept.is_empty() && {
                let first = answer.first_mut();
                first.is_some_and(names_the_way)
            };
            // After a mere "hmm", only an answer that names a way or states how things are
            // here; agreeing to what the agent proposed ("yes, run the integration tests too")
            // is the task going on.
            let opening = next.text.trim_start().to_lowercase();
            let agrees = ["yes", "yeah", "yep", "sure", "ok", "okay"]
                .iter()
                .any(|a| opening.starts_with(a));
            let hesitation_answer = !hesitates
                || objection
                || (!agrees
                    && (named_way
                        || answer
                            .iter()
                            .any(|s| s.general || s.prohibition || s.why.is_some())));
            if hesitation_answer && (named_way || answer.iter().any(states)) {
                kept.extend(answer);
                skip_next = true;
                if hesitates && !objection {
                    objection = true;
                    objections.push(Objection {
                        line: *line,
                        text: super::fixes::clip(raw.trim(), 300),
                        halts: false,
                    });
                }
            }
        }
        if kept.is_empty() {
            // "no. yarn." right after `npm install`: the name is the whole correction.
            // "--project=. and Pkg.test()": pieces of the command the agent then ran.
            if objection
                && let Some(rule) = before
                    .and_then(|r| r.command.as_deref())
                    .and_then(|c| terse(&text, c))
                    .or_else(|| before.and_then(|b| redone(t, *line, &text, b)))
            {
                said.push(Said {
                    line: *line,
                    rule,
                    lesson: LessonKind::Correction,
                    command: before.and_then(|r| r.command.clone()),
                });
            }
            continue;
        }
        // "that folder is generated btw" ... "so don't touch it by hand": one lesson.
        // (Only when the agent did nothing in between: after a call, it is the next task.)
        if states_only
            && !skip_next
            && let Some(next) = msgs
                .get(i + 1)
                .filter(|n| same_call(n.before, *before))
                .map(|n| n.text)
            && next.len() < PASTED
        {
            let more: Vec<Sentence> = speech::sentences(&without_markers(next))
                .iter()
                .map(|s| speech::read(s))
                .filter(|s| !s.text.is_empty() && !s.local && !s.chatter)
                .collect();
            if more.first().is_some_and(|s| s.directive) {
                kept.extend(more);
                skip_next = true;
            }
        }
        let referent = before.and_then(|r| r.file.as_deref()).map(|f| {
            workspace
                .and_then(|w| std::path::Path::new(f).strip_prefix(w).ok())
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| f.to_string())
        });
        // "why all the `catch unreachable`?": about the edit, not the command run after it.
        let command = before
            .and_then(|r| r.command.as_deref())
            .filter(|_| !about_edit);
        // "that" is what the call fetched, before the rule is written from the sentences.
        let mut named = false;
        if let Some(c) = command {
            for s in kept.iter_mut() {
                let resolved = named_object(s.text.clone(), c);
                named |= resolved != s.text;
                s.text = resolved;
            }
        }
        // "gradle, not maven": each name with the session's command that runs it.
        if let [only] = kept.as_mut_slice()
            && only.contrast
        {
            only.text = contrast_with_commands(&only.text, t);
        }
        let composed = rule_text::compose(
            &kept,
            rule_text::Referent {
                file: referent.as_deref(),
                command,
            },
        );
        let terse_rule = || command.filter(|_| objection).and_then(|c| terse(&text, c));
        // "we use nextest": too short to stand alone; the session's command that uses it says
        // how ("`cargo nextest run`").
        let in_use = composed
            .is_none()
            .then(|| tool_in_use(t, &kept, *line))
            .flatten();
        let shown = || {
            let cmd = in_use.clone()?;
            let mut with: Vec<Sentence> = kept.clone();
            let last = with.last_mut()?;
            last.text = format!(
                "{} (`{cmd}`)",
                last.text
                    .trim_end_matches(['.', '!', ' '])
                    .trim_end_matches(", fyi")
                    .trim_end_matches(", btw")
            );
            rule_text::compose(&with, rule_text::Referent::default())
        };
        let Some(mut rule) = composed.or_else(shown).or_else(terse_rule) else {
            continue;
        };
        // "any time a model's fields change the .g.dart has to be regenerated that way" after
        // the agent fixed a failure with a step: "that way" is that step.
        if let Some(at) = rule.find(" that way") {
            let rerun = before
                .and_then(|r| r.command.as_deref())
                .map(super::gist::base)
                .unwrap_or_default();
            let step = t
                .tool_runs()
                .filter(|r| r.line < *line && !r.failed)
                .filter_map(|r| r.command.as_deref())
                .filter(|c| !super::gist::doing(c).is_empty() && super::gist::base(c) != rerun)
                .last()
                .map(super::gist::shown)
                .filter(|s| !s.is_empty() && !s.contains("&&"));
            match step {
                Some(s) => rule = format!("{} with `{s}`{}", &rule[..at], &rule[at + 9..]),
                None => continue,
            }
        }
        if dangling(&rule) {
            continue;
        }
        if objection
            && !named
            && let Some(c) = command
        {
            rule = instead_of(rule, c);
        }
        // "yes, always dev locally" right after `dbt run`: the command is the situation.
        let confirms = ["yes", "yeah", "yep", "right", "exactly", "correct"]
            .iter()
            .any(|w| text.trim().to_lowercase().starts_with(w));
        if let Some(command) = before.and_then(|r| r.command.as_deref())
            && confirms
            && rule.len() < 70
            && !rule.contains('`')
        {
            let base = super::gist::base(command);
            let program = base.split_whitespace().next().unwrap_or("");
            if program.len() >= 2
                && !super::gist::doing(command).is_empty()
                && !rule.to_lowercase().contains(&program.to_lowercase())
            {
                let mut c = rule.chars();
                let first: String = c
                    .next()
                    .map(|f| f.to_lowercase().collect())
                    .unwrap_or_default();
                rule = format!("When running `{base}`: {first}{}", c.as_str());
            }
        }
        if said.iter().any(|s| s.rule.eq_ignore_ascii_case(&rule)) {
            continue;
        }
        said.push(Said {
            line: *line,
            rule,
            lesson: if objection {
                LessonKind::Correction
            } else {
                LessonKind::Convention
            },
            command: in_use.or_else(|| command.map(str::to_string)),
        });
    }
    (said, objections)
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(super) fn said(texts: &[&str]) -> Vec<String> {
        let t = Transcript {
            steps: texts
                .iter()
                .enumerate()
                .map(|(i, s)| Step::User {
                    line: i as i64,
                    text: s.to_string(),
                })
                .collect(),
        };
        read(&t, None).0.into_iter().map(|s| s.rule).collect()
    }

    /// The chatter lines the issue quotes: none of them is a rule.
    #[test]
    fn chatter_gives_no_rule() {
        for line in [
            "Always nice working with you.",
            "Don't push yet.",
            "Use the second option you mentioned, the one with the map.",
            "Always the same story with this checkout code lol.",
            "Don't forget the tests.",
            "Use the same approach as in cart.ts but keep the discount logic.",
            "no, the other file — admin has its own formatter in apps/admin/lib/money.ts",
            "thanks, nice work. commit it but don't push yet",
            "let's do the map version this time",
            "not now, just wanted to understand it. thanks",
            "always the same with this code lol. thanks",
            "call it /readyz instead, the k8s manifest already probes that path",
            "extend-immutable-calls for now. Annotated later maybe, not today",
            "can you put that in an issue so we don't forget",
            "accounting will live with it, german law only needs them unique and ascending",
        ] {
            assert_eq!(said(&[line]), Vec::<String>::new(), "{line}");
        }
    }

    fn after_command(command: &str, said: &str) -> Vec<String> {
        let t = Transcript {
            steps: vec![
                Step::Tool(ToolRun::shell(1, command, "ok", false)),
                Step::User {
                    line: 2,
                    text: said.to_string(),
                },
            ],
        };
        read(&t, None).0.into_iter().map(|s| s.rule).collect()
    }

    /// A correction that names only the right way gets the agent's command as the wrong one.
    #[test]
    fn a_correction_names_what_the_agent_ran() {
        let r = after_command(
            "go build -o /tmp/w .",
            "Could you build it with `goreleaser build --snapshot --clean` instead? That injects the version.",
        );
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].contains("instead of `go build`"), "{r:?}");
        let r = after_command(
            "npm i zod",
            "wrong package manager - it's yarn 4 here, `yarn add zod`",
        );
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].starts_with("It's yarn 4 here") && r[0].contains("`npm i`"),
            "{r:?}"
        );
        assert_eq!(
            after_command("npm install left-pad", "no. yarn."),
            ["Use yarn instead of `npm install`."]
        );
        assert_eq!(
            after_command("npm install left-pad", "nope"),
            Vec::<String>::new()
        );
        assert_eq!(
            after_command(
                "go build ./...",
                "call it /readyz instead, the manifest probes that path"
            ),
            Vec::<String>::new()
        );
    }

    /// The corrections the issue quotes: each gives one rule that keeps its subject.
    #[test]
    fn corrections_give_a_rule() {
        for (line, words) in [
            (
                "why did you use npm? we're a pnpm shop",
                &["npm", "pnpm"][..],
            ),
            ("wrong package manager - it's pnpm here", &["pnpm"]),
            (
                "that file is generated, regenerate it with make proto instead of editing it",
                &["generated", "make proto"],
            ),
            (
                "src/gen is generated code. Never edit it by hand; run make proto.",
                &["src/gen", "make proto"],
            ),
            ("Use pnpm here, I told you last week.", &["pnpm"]),
        ] {
            let rules = said(&[line]);
            assert_eq!(rules.len(), 1, "{line}: {rules:?}");
            for w in words {
                assert!(rules[0].contains(w), "{line}: {rules:?}");
            }
            assert!(!rules[0].to_lowercase().contains("told you"), "{rules:?}");
        }
    }
}

#[cfg(test)]
mod phrasing_tests {
    use super::tests::said;

    /// Ways people correct an agent or state how things are, beyond the examples.
    #[test]
    fn more_phrasings_give_a_rule() {
        let mut missed: Vec<String> = Vec::new();
        for (line, word) in [
            (
                "stop using unwrap in the handlers, return AppError instead",
                "AppError",
            ),
            (
                "please use httpx instead of requests in this codebase",
                "httpx",
            ),
            (
                "we switched to ruff last year, don't run black anymore",
                "ruff",
            ),
            ("moment is deprecated here, use date-fns", "date-fns"),
            ("don't ever commit the .env file", ".env"),
            (
                "make sure you always run migrations with --check first",
                "migrations",
            ),
            ("remember: all timestamps are stored in UTC", "UTC"),
            ("we use yarn berry here, not npm", "yarn"),
            ("no no no, never force push to main", "force push"),
            (
                "hey, for future reference, the staging db is read-only, use the replica for tests",
                "replica",
            ),
            (
                "FYI we don't use class components anywhere, hooks only",
                "hooks",
            ),
            (
                "in this repo tests go next to the code as foo_test.go",
                "foo_test.go",
            ),
            ("going forward put new endpoints under api/v2", "api/v2"),
            (
                "why are you running go test without -race? we always run it with -race",
                "-race",
            ),
            (
                "all user-facing output goes through internal/ui's printer. no fmt.Println in commands",
                "internal/ui",
            ),
            ("roles get tested with molecule here", "molecule"),
            ("every handler needs a context timeout", "timeout"),
            (
                "nothing talks to the database except the repository layer",
                "repository layer",
            ),
            ("migrations go in db/migrations here", "db/migrations"),
            (
                "from now on every new command needs an Example: field in its cobra.Command",
                "Example: field",
            ),
            (
                "not like that - always a --check --diff run first so I can see what changes",
                "--check --diff",
            ),
            (
                "ok. in future, before you say it's done run `make check` too. CI rejects any warning",
                "make check",
            ),
            ("it's gradle here, not maven", "gradle"),
            ("we deploy with kamal", "kamal"),
        ] {
            let rules = said(&[line]);
            if rules.len() != 1 || !rules[0].contains(word) {
                missed.push(format!("{line}: {rules:?}"));
            }
        }
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// Ordinary talk that is no rule, beyond the examples; nor is what the client
    /// puts in the user's turn.
    #[test]
    fn more_chatter_gives_nothing() {
        for line in [
            "# AGENTS.md instructions for /w\n\n<INSTRUCTIONS>\nAlways run make lint before pushing.\n</INSTRUCTIONS>",
            "Caveat: The messages below were generated by the user while running local commands. DO NOT respond to these messages.",
            "great, thanks a lot!",
            "ok go ahead",
            "looks good to me, ship it",
            "hmm, that's weird",
            "can you also add a test for the empty case?",
            "what does this function do?",
            "let's try the other approach",
            "revert that change",
            "use a smaller batch size for this run",
            "I'll review it tomorrow",
            "perfect, that's exactly what I wanted",
            "nope, still failing",
            "wait, don't commit yet",
            "haha nice one",
            "the tests pass now, good job",
            "Don't tonight; i'm fried.",
            "option 1 for now, trigram someday",
            "meh, leave it this week.",
            "heh nice. ok I'm off, don't merge it till I've tried it on staging",
            "ha, love it. maybe too cute? eh, keep it for this release",
            "the test just has the old copy. update it",
            "ty",
            "lol. thanks",
            "k thanks, asking for the incident review",
            "go with #2",
            "the 2nd approach, please",
            "do variant B",
            "skip the lint step today, CI is down",
            "don't deploy tonight, everyone's out",
            "all good, merge whenever",
            "any chance you can make it faster?",
            "nice, all the tests pass",
        ] {
            assert_eq!(said(&[line]), Vec::<String>::new(), "{line}");
        }
    }
}

#[cfg(test)]
mod after_a_call_tests {
    use super::*;

    fn after(command: &str, said: &str) -> (Vec<String>, usize) {
        let t = Transcript {
            steps: vec![
                Step::Tool(ToolRun::shell(1, command, "ok", false)),
                Step::User {
                    line: 2,
                    text: said.to_string(),
                },
            ],
        };
        let (s, o) = read(&t, None);
        (s.into_iter().map(|x| x.rule).collect(), o.len())
    }

    /// Corrections of the call the agent just made, in wordings of many kinds: each is kept
    /// for the diary and gives one rule naming the right way.
    #[test]
    fn corrections_of_the_last_call_give_a_rule() {
        let missed: Vec<_> = [
            (
                "pip install requests",
                "we don't pip here, it's poetry add",
                "poetry",
            ),
            (
                "pip install requests",
                "no!! poetry add. always.",
                "poetry add",
            ),
            (
                "npm run build",
                "dont build with npm run build, use `turbo build` from the root pls",
                "turbo build",
            ),
            (
                "git push origin main",
                "whoa, never push straight to main. open a PR",
                "main",
            ),
            (
                "cargo test",
                "pls use cargo nextest for tests, not cargo test",
                "nextest",
            ),
            (
                "python3 script.py",
                "hmm that should've been `uv run script.py`",
                "uv run",
            ),
            (
                "kubectl apply -f d.yaml",
                "nope, everything in k8s is applied by argo, don't kubectl apply by hand",
                "argo",
            ),
            ("npx jest", "tests are vitest here, not jest", "vitest"),
            (
                "pytest",
                "use `make test`, it spins up the db first",
                "make test",
            ),
            (
                "rails db:migrate",
                "in this app migrations run via bin/migrate, never rails db:migrate directly",
                "bin/migrate",
            ),
            (
                "yarn add lodash",
                "please don't add lodash, we use native array methods",
                "lodash",
            ),
            (
                "helm upgrade api ./chart",
                "helm upgrades go through the release pipeline, don't run them by hand",
                "release pipeline",
            ),
            (
                "go build ./...",
                "that's the wrong go version, use `mise exec -- go build`",
                "mise exec",
            ),
            (
                "cat .env",
                "don't print .env files, they have real creds",
                ".env",
            ),
            (
                "docker compose up",
                "it's podman on this box, podman compose up",
                "podman",
            ),
        ]
        .map(|(cmd, said, word)| (said, word, after(cmd, said)))
        .into_iter()
        .filter(|(said, word, (rules, objections))| {
            rules.len() != 1
                || !rules[0].contains(word)
                || *objections == 0 && !said.contains("box")
        })
        .collect();
        assert!(missed.is_empty(), "{missed:#?}");
    }

    /// A statement of a few words that names a tool ("we use nextest", said as an aside)
    /// gets the session's command that runs it; a refusal that points back at what the agent
    /// fetched names it, and the answer to the agent's question finishes it.
    #[test]
    fn short_statements_are_filled_in_from_the_session() {
        let t = Transcript {
            steps: vec![
                Step::User {
                    line: 1,
                    text: "the importer test is flaky on CI, please look. (we use nextest, fyi)"
                        .into(),
                },
                Step::Tool(ToolRun::shell(
                    2,
                    "cargo nextest run -E 'test(x)'",
                    "PASS",
                    false,
                )),
            ],
        };
        let rules: Vec<String> = read(&t, None).0.into_iter().map(|s| s.rule).collect();
        assert_eq!(rules, ["Use nextest (`cargo nextest run`)."]);
        let t = Transcript {
            steps: vec![
                Step::Tool(ToolRun::shell(
                    1,
                    "go get github.com/pkg/errors@v0.9.1",
                    "ok",
                    false,
                )),
                Step::User {
                    line: 2,
                    text: "we don't pull that in anymore".into(),
                },
                Step::Agent {
                    line: 3,
                    text: "Got it. What should I use for wrapping instead?".into(),
                },
                Step::User {
                    line: 4,
                    text: "stdlib only: fmt.Errorf(\"...: %w\", err), errors.Is/As for checks"
                        .into(),
                },
            ],
        };
        let (said, objections) = read(&t, None);
        assert_eq!(said.len(), 1, "{said:?}");
        assert!(
            said[0].rule.contains("`github.com/pkg/errors`") && said[0].rule.contains("%w"),
            "{said:?}"
        );
        assert_eq!(objections.len(), 1);
        assert_eq!(
            after("npm test", "ahh right, always forget that one").0,
            Vec::<String>::new()
        );
        // "X, not Y" alone is about the tools when the session ran one of them.
        assert_eq!(
            after("mvn -q package", "gradle, not maven.").0,
            ["Use gradle, not maven (`mvn package`)."]
        );
        assert_eq!(
            after("npm test", "friday, not monday.").0,
            Vec::<String>::new()
        );
        for chatter in [
            "we don't need that",
            "hmm, not that",
            "don't do that again",
            "ok, never mind that",
        ] {
            assert_eq!(
                after("pip install requests", chatter).0,
                Vec::<String>::new(),
                "{chatter}"
            );
        }
        assert_eq!(
            after("pip install requests", "we don't use that here").0,
            ["Don't use `requests` here."]
        );
    }

    /// Talk after a call that is no rule: moods, one-off choices, spots in the code, questions.
    #[test]
    fn talk_after_a_call_gives_no_rule() {
        for said in [
            "lol ok",
            "you're on fire today",
            "just ship it",
            "hmm not sure, try again",
            "do the other one",
            "ok but rename it to fetchAll for now",
            "use the faster one",
            "skip the tests this time, I'm in a hurry",
            "never mind, it works now",
            "always fun debugging css",
            "don't worry about the warnings",
            "keep going",
            "can you explain what this does?",
            "is this thread-safe?",
            "use a map here",
            "put it in utils.ts",
            "the tests never pass on the first try lol",
            "why is this so slow?",
            "why did it fail?",
            "no idea why that happened",
            "don't bother with docs",
            "I never liked this module",
            "make it shorter",
            "use 3 retries",
            "we should probably refactor this someday",
            "that's fine",
            "add a comment there",
            "ugh, flaky again",
            "rename it",
            "use the env var I pasted above",
        ] {
            assert_eq!(after("npm test", said).0, Vec::<String>::new(), "{said}");
        }
    }
}

#[cfg(test)]
mod mechanism_tests {
    use super::*;

    fn edit(line: i64, removed: &str, added: &str) -> Step {
        Step::Tool(ToolRun {
            line,
            tool: "Edit".into(),
            command: None,
            file: Some("/w/src/app.rs".into()),
            removed: removed.into(),
            added: added.into(),
            output: "ok".into(),
            failed: false,
        })
    }

    fn user(line: i64, text: &str) -> Step {
        Step::User {
            line,
            text: text.into(),
        }
    }

    fn rules(steps: Vec<Step>) -> (Vec<String>, usize) {
        let (s, o) = read(&Transcript { steps }, Some("/w"));
        (s.into_iter().map(|x| x.rule).collect(), o.len())
    }

    /// An objection that names what the agent's last edit brought in, not the call's program:
    /// the thing named is what not to use, whatever the wording.
    #[test]
    fn naming_what_the_edit_brought_in_is_a_correction() {
        for (removed, added, said, words) in [
            (
                "let a = 1;",
                "let t = Instant::now_utc();",
                "ugh, Instant::now_utc again. take a Clock parameter and call clock.now(), tests can't fake it otherwise",
                &["Don't use Instant::now_utc", "Clock"][..],
            ),
            (
                "class Order < ApplicationRecord",
                "class Order < ApplicationRecord\n  before_save :recalc_totals",
                "please not before_save, it hides writes from everyone. an explicit service object",
                &["Don't use before_save", "service object"],
            ),
            (
                "def show",
                "def show\n  @rows = DB.exec('select 1')",
                "no DB.exec in views. repositories.",
                &["DB.exec", "repositories"],
            ),
            (
                "",
                "import '../orders/internal/pricing.ts';",
                "don't reach into another module's internal/. each module exports its API from index.ts",
                &["internal/", "index.ts"],
            ),
        ] {
            let (r, o) = rules(vec![edit(1, removed, added), user(2, said)]);
            assert_eq!(r.len(), 1, "{said}: {r:?}");
            assert_eq!(o, 1, "{said}");
            for w in words {
                assert!(r[0].contains(w), "{said}: {r:?}");
            }
        }
        // Naming it with approval is no correction.
        let (r, _) = rules(vec![
            edit(1, "", "let t = Instant::now_utc();"),
            user(2, "nice, Instant::now_utc works"),
        ]);
        assert_eq!(r, Vec::<String>::new());
    }

    /// A terse reaction, the agent asks, and the answer holds the lesson: the answer is the
    /// rule, with what the agent ran as what not to do.
    #[test]
    fn the_answer_to_the_agents_question_finishes_a_terse_correction() {
        for (cmd, first, answer, words) in [
            (
                "pip install httpx",
                "wrong tool",
                "uv, the lock is uv.lock. and drop that venv",
                &["Use uv instead of `pip install`", "uv.lock"][..],
            ),
            (
                "go build -o bin/api ./cmd/api",
                "not like that",
                "`task build` embeds the git version -- without it /version says unknown",
                &["Use `task build` instead of `go build`", "git version"],
            ),
            (
                "mvn -q verify",
                "hmm",
                "gradle wrapper please. ./gradlew check runs the same gates",
                &["Use gradle wrapper", "./gradlew check"],
            ),
        ] {
            let (r, o) = rules(vec![
                Step::Tool(ToolRun::shell(1, cmd, "ok", false)),
                user(2, first),
                Step::Agent {
                    line: 3,
                    text: "Sorry, which way should it be?".into(),
                },
                user(4, answer),
            ]);
            assert_eq!(r.len(), 1, "{answer}: {r:?}");
            assert_eq!(o, 1, "{answer}");
            for w in words {
                assert!(r[0].contains(w), "{answer}: {r:?}");
            }
        }
        // Agreeing to what the agent proposes after a "hmm" is the task going on; a program
        // asked back and then let be is no correction.
        let (r, o) = rules(vec![
            Step::Tool(ToolRun::shell(1, "go test ./...", "ok", false)),
            user(2, "hmm"),
            Step::Agent {
                line: 3,
                text: "Should I run the integration tests too?".into(),
            },
            user(4, "yes, run the integration tests with make itest as well"),
        ]);
        assert_eq!((r.len(), o), (0, 0), "{r:?}");
        let (r, _) = rules(vec![
            Step::Tool(ToolRun::shell(1, "npm install left-pad", "ok", false)),
            user(2, "npm? whatever, go on with the form"),
        ]);
        assert_eq!(r, Vec::<String>::new());
        // "hmm" that the agent does not ask about is nothing.
        let (r, o) = rules(vec![
            Step::Tool(ToolRun::shell(1, "mvn -q verify", "ok", false)),
            user(2, "hmm"),
        ]);
        assert_eq!((r.len(), o), (0, 0));
    }

    /// The call's program asked back, a polite request to redo it another way, a statement
    /// whose next sentence rewrites the call.
    #[test]
    fn questions_requests_and_rewrites_of_the_call_are_corrections() {
        let (r, _) = rules(vec![
            Step::Tool(ToolRun::shell(1, "tslint src", "ok", false)),
            user(
                2,
                "tslint? that's been deprecated for ages. `pnpm lint` runs eslint with our config",
            ),
        ]);
        assert!(
            r.len() == 1 && r[0].contains("tslint") && r[0].contains("`pnpm lint`"),
            "{r:?}"
        );
        let (r, _) = rules(vec![
            edit(1, "", "rows = cursor.execute('select ...')"),
            user(
                2,
                "Would you mind doing that with the query builder instead? Hand-written SQL is only allowed in db/reports/.",
            ),
        ]);
        assert!(
            r.len() == 1
                && r[0].starts_with("Use the query builder instead")
                && r[0].contains("db/reports/"),
            "{r:?}"
        );
        let (r, _) = rules(vec![
            Step::Tool(ToolRun::shell(1, "bundle exec rake db:seed", "ok", false)),
            user(
                2,
                "evrything goes through docker here!! docker compose run web rake db:seed, the db host only exists in the network",
            ),
        ]);
        assert!(
            r.len() == 1
                && r[0].starts_with("Everything goes through docker")
                && r[0].contains("docker compose run web rake"),
            "{r:?}"
        );
    }

    /// A reason clause's "yet" is no time limit; a question is no rule; "anything ... has to".
    #[test]
    fn reasons_questions_and_universal_statements() {
        let r = tests::said(&[
            "note: jobs get enqueued after commit, never inside the transaction, or the worker reads rows that aren't there yet",
        ]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert_eq!(
            tests::said(&["why does the staging plan always show the bucket as changed?"]),
            Vec::<String>::new()
        );
        let r = tests::said(&[
            "fyi anything an HTTP handler returns has to be a Problem: problem.New(404, ...). a bare error is a 500",
        ]);
        assert!(r.len() == 1 && r[0].contains("problem.New"), "{r:?}");
    }
}

#[cfg(test)]
mod softer_wordings_tests {
    use super::*;

    /// Corrections said softly or sideways after a call: each gives one rule with the way in
    /// it and none of the softening.
    #[test]
    fn soft_and_sideways_corrections_give_a_rule() {
        let missed: Vec<String> = [
            (
                "npm install dayjs",
                "I'd rather you use pnpm here, npm writes a second lockfile",
                "Use pnpm",
            ),
            (
                "npm install dayjs",
                "let's not use npm, pnpm only in this monorepo",
                "Don't use npm",
            ),
            (
                "python -m pytest",
                "there's a make target for that: make test spins up the db",
                "make test",
            ),
            (
                "python -m pytest",
                "that's what `make test` is for",
                "Use `make test`",
            ),
            (
                "pip install requests",
                "can we not use pip? uv add keeps the lock in sync",
                "Don't use pip",
            ),
            (
                "npm install dayjs",
                "npm -> pnpm",
                "Use pnpm instead of npm",
            ),
            (
                "rails db:migrate",
                "don't. migrations only run through bin/migrate, it takes the lock",
                "bin/migrate",
            ),
        ]
        .into_iter()
        .filter_map(|(cmd, said, want)| {
            let t = Transcript {
                steps: vec![
                    Step::Tool(ToolRun::shell(1, cmd, "ok", false)),
                    Step::User {
                        line: 2,
                        text: said.to_string(),
                    },
                ],
            };
            let (s, o) = read(&t, None);
            let ok = s.len() == 1 && s[0].rule.contains(want) && o.len() == 1;
            (!ok).then(|| format!("{said}: {s:?}"))
        })
        .collect();
        assert!(missed.is_empty(), "{missed:#?}");
    }
}
#[cfg(test)]
mod round4_tests {
    use super::tests::said;
    use super::*;

    /// A list of items, a prohibition "ever", a scope that holds the sentence before it, and
    /// an objection opened by "no!! again??": each gives its rule; the back-reference ("same
    /// mistake as ...") is not part of it.
    #[test]
    fn lists_scopes_and_stacked_openers() {
        let r = said(&[
            "no!! again?? don't repair and don't edit migrations that already ran anywhere. same mistake as with the region default",
        ]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].starts_with("Don't repair and don't edit migrations"),
            "{r:?}"
        );
        assert!(!r[0].contains("same mistake"), "{r:?}");
        let r = said(&[
            "flakes only see files git knows about. `git add -N` the new file, then build. every new .nix file, every time",
        ]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].contains("`git add -N` the new file"), "{r:?}");
        let r = said(&[
            "few things: give it an @examples block using the bundled data; no library() calls in package code ever, call dplyr::mutate instead; and add a test for a column that's all NA",
        ]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].starts_with("No library() calls in package code ever"),
            "{r:?}"
        );
        assert!(
            !r[0].contains("@examples") && !r[0].contains("all NA"),
            "{r:?}"
        );
    }

    /// A statement the message then asks to build ("..., add that to X") is this task's spec;
    /// a purpose of the user's own ("so I can copy it over") is about now.
    #[test]
    fn a_task_spec_and_a_purpose_of_now_give_nothing() {
        for line in [
            "Weekend passages should always be off-peak, regardless of the hour. Add that to TollCalculator.",
            "I'm on the server. build the system closure here so I can copy it over",
        ] {
            assert_eq!(said(&[line]), Vec::<String>::new(), "{line}");
        }
    }

    fn run(line: i64, command: &str, output: &str, failed: bool) -> Step {
        Step::Tool(ToolRun::shell(line, command, output, failed))
    }

    fn user(line: i64, text: &str) -> Step {
        Step::User {
            line,
            text: text.to_string(),
        }
    }

    fn rules(steps: Vec<Step>) -> Vec<String> {
        read(&Transcript { steps }, None)
            .0
            .into_iter()
            .map(|s| s.rule)
            .collect()
    }

    /// A call the user interrupted or refused, then a few words: a flag, "X first", a command
    /// of a few words, a quoted command of the same program; each says how the call should
    /// have been made.
    #[test]
    fn a_stopped_call_then_a_terse_correction() {
        let interrupted = user(2, "[Request interrupted by user for tool use]");
        assert_eq!(
            rules(vec![
                run(1, "stack build", "", false),
                interrupted.clone(),
                user(3, "--fast.")
            ]),
            ["Run `stack build` with `--fast`."]
        );
        let refused = "The user doesn't want to proceed with this tool use.";
        let r = rules(vec![
            run(
                1,
                "ansible-playbook -i inventories/production site.yml",
                refused,
                true,
            ),
            user(2, "staging first. always."),
        ]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(
            r[0].starts_with("Always staging first, before `ansible-playbook"),
            "{r:?}"
        );
        let r = rules(vec![
            run(
                1,
                "sudo nixos-rebuild switch --flake .#x",
                "exec command rejected by user",
                true,
            ),
            user(2, "no. nh os switch ."),
        ]);
        assert_eq!(r, ["Use `nh os switch` instead of `nixos-rebuild switch`."]);
        let r = rules(vec![
            run(1, "sbt test", "", false),
            interrupted,
            user(
                3,
                "stop stop — plain `sbt test` at the root drags in the it/ project. test the module you touched: `sbt core/test`",
            ),
        ]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].contains("`sbt core/test`"), "{r:?}");
        // Agreeing after a name is no correction: "ugh spring. yeah".
        assert_eq!(
            rules(vec![
                run(1, "git rm -q a.rb", "", false),
                user(2, "ugh spring. yeah")
            ]),
            Vec::<String>::new()
        );
    }

    /// "not like that ... --project=. and Pkg.test()": the agent's next command, which passed
    /// and holds the pieces the user named, is the way.
    #[test]
    fn the_next_command_shows_what_the_user_meant() {
        let r = rules(vec![
            run(
                1,
                "julia test/runtests.jl",
                "ERROR: Package KelpSim not found",
                true,
            ),
            user(
                2,
                "not like that, that's the global environment. --project=. and Pkg.test()",
            ),
            run(
                3,
                "julia --project=. -e 'using Pkg; Pkg.test()'",
                "Testing passed",
                false,
            ),
        ]);
        assert_eq!(
            r,
            [
                "Use `julia --project=. -e 'using Pkg; Pkg.test()'` instead of `julia test/runtests.jl`."
            ]
        );
    }

    /// "that way" after the agent fixed a failure with a step is that step; "how many times"
    /// is no "any time".
    #[test]
    fn that_way_is_the_step_that_fixed_it() {
        let r = rules(vec![
            run(
                1,
                "melos run test",
                "Error: No named parameter 'notes'",
                true,
            ),
            run(
                2,
                "cd pkg && dart run build_runner build",
                "Succeeded",
                false,
            ),
            run(3, "melos run test", "All tests passed", false),
            user(
                4,
                "yup, any time a model's fields change the .g.dart has to be regenerated that way",
            ),
        ]);
        assert_eq!(
            r,
            [
                "Any time a model's fields change the .g.dart has to be regenerated with `dart run build_runner build`."
            ]
        );
        assert_eq!(
            said(&[
                "Ops asks how many times a failing job is retried before it goes to the dead set."
            ]),
            Vec::<String>::new()
        );
    }

    /// "why all the `catch unreachable`?" after an edit that brought it in objects to the edit.
    #[test]
    fn asking_about_what_the_edit_brought_in() {
        let mut edit = ToolRun::shell(1, "", "", false);
        edit.command = None;
        edit.tool = "Edit".into();
        edit.file = Some("src/main.zig".into());
        edit.added = "x.append(h) catch unreachable;".into();
        let r = rules(vec![
            Step::Tool(edit),
            run(2, "zig build", "ok", false),
            user(
                3,
                "why all the `catch unreachable`? an allocation can fail. propagate with `try`",
            ),
        ]);
        assert_eq!(r.len(), 1, "{r:?}");
        assert!(r[0].starts_with("Don't use `catch unreachable`"), "{r:?}");
        assert!(!r[0].contains("zig build"), "{r:?}");
    }
}
