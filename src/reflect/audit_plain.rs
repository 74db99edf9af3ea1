//! The commands a rule names in plain words, for `cm audit`. Rules `cm reflect` learns keep the
//! user's wording ("Don't use npm here, we use pnpm", "Always run make lint before pushing"),
//! with no backticks, so the audit reads the words after the verb as a command: the program and
//! its first arguments, up to punctuation or a word that starts the rest of the sentence. A
//! plain command is matched as a program a shell would run (`npm install`, `cd web && npm i`),
//! never as a substring (`pnpm add` does not run npm).

/// What a rule forbids or requires, in its own words.
#[derive(Debug, Clone, PartialEq)]
pub struct Term {
    pub text: String,
    /// Plain words (matched as a program run) rather than a code span (matched as a substring).
    pub plain: bool,
}

impl Term {
    pub fn code(text: &str) -> Term {
        Term {
            text: text.to_string(),
            plain: false,
        }
    }

    fn plain(words: &[&str]) -> Option<Term> {
        let first = words.first()?;
        let looks_like_a_program = first
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._/-+".contains(c))
            && first.chars().any(|c| c.is_ascii_alphabetic())
            && !NOT_PROGRAMS.contains(first);
        looks_like_a_program.then(|| Term {
            text: words.join(" "),
            plain: true,
        })
    }

    /// Whether `command` holds this term: a code span anywhere in it, plain words as the
    /// start of one of its simple commands.
    pub fn found_in(&self, command: &str) -> bool {
        if !self.plain {
            return command.contains(self.text.as_str());
        }
        let want: Vec<String> = self
            .text
            .split_whitespace()
            .map(str::to_lowercase)
            .collect();
        simple_commands(command).any(|words| {
            words.len() >= want.len()
                && words.iter().zip(&want).enumerate().all(|(i, (w, x))| {
                    let w = w.to_lowercase();
                    // The program may be named by its path (/usr/bin/npm).
                    w == *x || (i == 0 && w.rsplit('/').next() == Some(x.as_str()))
                })
        })
    }
}

/// Words that follow a verb but are not a program ("never use the ...", "don't run it").
const NOT_PROGRAMS: &[&str] = &[
    "a", "an", "the", "any", "it", "this", "that", "these", "those", "them", "anything", "some",
    "your", "our", "my", "its", "their", "more", "other", "another",
];

/// Words that end a command in running text.
const STOPS: &[&str] = &[
    "here", "in", "on", "for", "when", "with", "to", "because", "unless", "inside", "within",
    "from", "the", "this", "that", "anymore", "again", "as", "at", "directly", "instead", "or",
    "and", "but", "since", "if", "while", "locally", "anywhere", "ever", "we", "you", "it",
    "without", "after", "before", "until", "so", "then", "first", "only", "unless", "by",
];

/// Verbs after which a command is named.
const VERBS: &[&str] = &[
    "use ", "run ", "call ", "invoke ", "execute ", "using ", "running ", "calling ",
];

/// "git push" for "pushing": what a step named by its verb runs.
fn step_command(word: &str) -> Option<&'static str> {
    Some(match word {
        "push" | "pushing" => "git push",
        "commit" | "committing" => "git commit",
        "merge" | "merging" => "git merge",
        _ => return None,
    })
}

/// The command at the start of `text` (lowercase): a quoted phrase, else words up to
/// punctuation or a stop word (at most five).
fn command_at(text: &str) -> Option<Term> {
    let text = text.trim_start();
    if let Some(open) = text
        .chars()
        .next()
        .filter(|c| "\"'\u{201c}\u{2018}".contains(*c))
    {
        let close = match open {
            '\u{201c}' => '\u{201d}',
            '\u{2018}' => '\u{2019}',
            c => c,
        };
        let inner = &text[open.len_utf8()..];
        let end = inner.find(close)?;
        let words: Vec<&str> = inner[..end].split_whitespace().collect();
        return Term::plain(&words);
    }
    let mut words = Vec::new();
    for raw in text.split_whitespace().take(5) {
        let word = raw.trim_end_matches([',', ';', ':', '.', '!', '?', ')']);
        let ends_clause = word.len() < raw.len();
        if STOPS.contains(&word) || word.is_empty() {
            break;
        }
        words.push(word);
        if ends_clause {
            break;
        }
    }
    Term::plain(&words)
}

/// A plain rule's command check: "never use X", "don't run X", "use Y instead of X",
/// "use Y, not X", "(always) run X before Y".
pub fn plain_check(rule: &str) -> Option<super::audit::Check> {
    use super::audit::Check;
    let lower = rule.to_lowercase();
    let lower = lower.trim();
    let negative = ["never ", "don't ", "do not ", "avoid ", "stop "]
        .iter()
        .find_map(|p| lower.strip_prefix(p));
    if let Some(rest) = negative {
        let object = VERBS.iter().find_map(|v| rest.strip_prefix(v))?;
        return command_at(object).map(Check::Forbids);
    }
    let ordered = ["always run ", "run "]
        .iter()
        .find_map(|p| lower.strip_prefix(p));
    if let Some(rest) = ordered
        && let Some((first, then)) = rest.split_once(" before ")
    {
        let first_words: Vec<&str> = first.split_whitespace().collect();
        if first_words.len() > 5 || first.contains([',', ';', ':']) {
            return None;
        }
        let first = Term::plain(&first_words)?;
        let then = then.trim_start();
        let then = then
            .strip_prefix("you ")
            .or_else(|| then.strip_prefix("we "))
            .unwrap_or(then);
        let step = then
            .split_whitespace()
            .next()
            .map(|w| w.trim_end_matches([',', ';', ':', '.', '!', '?']))
            .and_then(step_command);
        let then = match step {
            Some(c) => Term::plain(&c.split(' ').collect::<Vec<_>>())?,
            None if then.split_whitespace().next()?.ends_with("ing") => return None,
            None => command_at(then)?,
        };
        return Some(Check::Before { first, then });
    }
    let positive = ["use ", "always use ", "prefer "]
        .iter()
        .find_map(|p| lower.strip_prefix(p))?;
    let replaced = positive
        .split_once(" instead of ")
        .or_else(|| positive.split_once(", not "))
        .or_else(|| positive.split_once(" rather than "))?;
    command_at(replaced.1).map(Check::Forbids)
}

/// The simple commands of a shell line, each as its words, with leading variable assignments
/// and wrappers (`sudo`, `env`, `time`, ...) dropped.
fn simple_commands(line: &str) -> impl Iterator<Item = Vec<&str>> {
    line.split(['\n', ';', '|', '&', '(', ')', '`', '{', '}'])
        .map(|part| {
            let mut words: Vec<&str> = part
                .split_whitespace()
                .map(|w| w.trim_matches(['"', '\'']))
                .collect();
            while let Some(w) = words.first() {
                let wrapper = ["sudo", "env", "time", "nohup", "exec", "command", "$"].contains(w);
                let assignment = w.contains('=') && !w.starts_with('=');
                if wrapper || assignment {
                    words.remove(0);
                } else {
                    break;
                }
            }
            words
        })
        .filter(|w| !w.is_empty())
}

#[cfg(test)]
mod tests {
    use super::super::audit::Check;
    use super::*;

    fn plain(text: &str) -> Term {
        Term {
            text: text.into(),
            plain: true,
        }
    }

    #[test]
    fn learned_wording_names_the_command() {
        assert_eq!(
            plain_check(
                "Don't use npm here, we use pnpm in this repo; npm just wrote a lock file."
            ),
            Some(Check::Forbids(plain("npm")))
        );
        assert_eq!(
            plain_check("Never run git push --force on shared branches."),
            Some(Check::Forbids(plain("git push --force")))
        );
        assert_eq!(
            plain_check("never use \"yarn install\" in CI"),
            Some(Check::Forbids(plain("yarn install")))
        );
        assert_eq!(
            plain_check("Use pnpm instead of npm."),
            Some(Check::Forbids(plain("npm")))
        );
        assert_eq!(
            plain_check("Always run make lint before pushing."),
            Some(Check::Before {
                first: plain("make lint"),
                then: plain("git push")
            })
        );
        assert_eq!(plain_check("Never commit generated files."), None);
        assert_eq!(plain_check("Don't use the global config."), None);
        assert_eq!(plain_check("Prefer small commits."), None);
        assert_eq!(plain_check("Run the tests before deploying."), None);
    }

    #[test]
    fn a_plain_command_is_a_program_run_not_a_substring() {
        let npm = plain("npm");
        assert!(npm.found_in("npm install date-fns"));
        assert!(npm.found_in("cd web && npm i"));
        assert!(npm.found_in("CI=1 /usr/bin/npm test"));
        assert!(!npm.found_in("pnpm add date-fns"));
        assert!(!npm.found_in("cat npm-debug.log"));
        let force = plain("git push --force");
        assert!(force.found_in("git push --force origin main"));
        assert!(!force.found_in("git push origin main"));
    }
}
