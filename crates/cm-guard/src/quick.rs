//! The quick reject: one scan of the raw command line for every pack's keywords (plus the
//! user's trauma keywords when there are any), and of the line as the shell will run it
//! ([`super::shell_view`]).
//!
//! Most commands an agent runs contain no keyword at all (`npm test`, `cargo build`), and for
//! them the guard's whole cost is this scan. The scan is case-insensitive and also runs over a
//! copy with quotes, backslashes, braces and commas removed, because the shell removes them too
//! (`r''m`, `\rm`, `r\<newline>m` and `r{m,}` all run `rm`). Every rule's program or needle contains a keyword
//! of its pack (a unit test checks it), so a command this scan skips cannot match any rule.
//!
//! The keyword set is small (about fifty words, more with user traumas), so the matcher is a
//! first-byte index over the lowercased keywords: at each position of the command only keywords
//! starting with that byte are compared. Building it costs a few microseconds; an Aho-Corasick
//! automaton over the same words costs 130 µs to build (10 ms with 5,000 traumas), paid again
//! by every hook process, while both scan a command line in well under a microsecond. For a
//! long command the automaton wins: its scan does not grow with the number of keywords
//! (`bench/literals.sh`: a 64 KiB command with the built-in keywords, index 0.74 ms, automaton
//! 0.37 ms; 1 MiB with 5,000 traumas, 701 ms against 15 ms). So a command of
//! [`AUTOMATON_FROM`] bytes or more is scanned by an automaton, built on first need.

use super::packs::PACKS;
use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use once_cell::sync::{Lazy, OnceCell};

/// Commands this long or longer are scanned with an Aho-Corasick automaton (the crossover
/// measured by `bench/literals.sh` lies between 11 and 16 KiB whatever the keyword count).
pub const AUTOMATON_FROM: usize = 16 << 10;

/// How [`Scanner::scan_with`] looks for keywords.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// The first-byte index.
    Index,
    /// The automaton.
    Automaton,
    /// The index below [`AUTOMATON_FROM`] bytes, the automaton from there on.
    Auto,
}

/// What a keyword stands for.
#[derive(Debug, Clone, Copy)]
enum Target {
    Pack(usize),
    Trauma(usize),
}

/// Keywords indexed by their first byte (lowercase).
#[derive(Debug)]
pub struct Scanner {
    /// Sorted by first byte.
    keywords: Vec<(Vec<u8>, Target)>,
    /// `keywords[start[b]..start[b + 1]]` begin with byte `b`.
    start: Vec<u32>,
    trauma_count: usize,
    /// The same keywords as an automaton, for long commands.
    automaton: OnceCell<AhoCorasick>,
}

/// Which packs and traumas had a keyword in the command.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// Bit `i` set: pack `i` of [`PACKS`] had a keyword.
    pub packs: u32,
    /// Indexes of traumas (in the order given to [`Scanner::with_traumas`]) whose keyword appeared.
    pub traumas: Vec<usize>,
    /// A command word is computed when the line runs (`$a$b -rf ~`): no keyword can be seen,
    /// so the line goes on to be read ([`super::shell_view::computed_program`]).
    pub computed: bool,
}

static BUILTIN: Lazy<Scanner> = Lazy::new(|| Scanner::with_traumas::<Vec<String>>(&[]));

/// The scanner for the built-in packs alone.
pub fn builtin() -> &'static Scanner {
    &BUILTIN
}

impl Scanner {
    /// Index the packs' keywords and, for trauma `i`, the keywords `trauma_keywords[i]` (any
    /// one of which must appear for trauma `i` to be checked).
    pub fn with_traumas<K: AsRef<[String]>>(trauma_keywords: &[K]) -> Scanner {
        let mut keywords: Vec<(Vec<u8>, Target)> = Vec::new();
        for (i, pack) in PACKS.iter().enumerate() {
            for k in pack.keywords {
                keywords.push((k.to_ascii_lowercase().into_bytes(), Target::Pack(i)));
            }
        }
        for (i, kws) in trauma_keywords.iter().enumerate() {
            for k in kws.as_ref().iter().filter(|k| !k.is_empty()) {
                keywords.push((k.to_ascii_lowercase().into_bytes(), Target::Trauma(i)));
            }
        }
        keywords.sort_by_key(|(k, _)| k[0]);
        let mut start = vec![0u32; 257];
        for (k, _) in &keywords {
            start[k[0] as usize + 1] += 1;
        }
        for b in 0..256 {
            start[b + 1] += start[b];
        }
        Scanner {
            keywords,
            start,
            trauma_count: trauma_keywords.len(),
            automaton: OnceCell::new(),
        }
    }

    /// Which packs and traumas have a keyword in `command`.
    pub fn scan(&self, command: &str) -> Scan {
        self.scan_with(command, Method::Auto)
    }

    /// [`Scanner::scan`] with a chosen search method (for benchmarks).
    pub fn scan_with(&self, command: &str, method: Method) -> Scan {
        let mut scan = Scan::default();
        let mut seen = vec![false; self.trauma_count];
        let automaton = match method {
            Method::Index => false,
            Method::Automaton => true,
            Method::Auto => command.len() >= AUTOMATON_FROM,
        };
        self.scan_into(command.as_bytes(), automaton, &mut scan, &mut seen);
        if command
            .bytes()
            .any(|b| matches!(b, b'\'' | b'"' | b'\\' | b'$' | b'{' | b'`' | b'['))
        {
            let stripped = dequote(command);
            self.scan_into(&stripped, automaton, &mut scan, &mut seen);
        }
        if command
            .bytes()
            .any(|b| matches!(b, b'$' | b'`' | b'*' | b'?' | b'['))
        {
            scan.computed = super::shell_view::computed_program(command);
        }
        scan
    }

    fn scan_into(&self, hay: &[u8], automaton: bool, scan: &mut Scan, seen: &mut [bool]) {
        let mut hit = |target: Target| match target {
            Target::Pack(p) => scan.packs |= 1 << p,
            Target::Trauma(t) => {
                if !seen[t] {
                    seen[t] = true;
                    scan.traumas.push(t);
                }
            }
        };
        if automaton {
            let ac = self.automaton.get_or_init(|| {
                // A DFA scans about twice as fast; past a thousand keywords it grows large, and
                // the builder's own choice (a compact NFA) is kept.
                let kind = (self.keywords.len() < 1000).then_some(AhoCorasickKind::DFA);
                AhoCorasick::builder()
                    .kind(kind)
                    .match_kind(MatchKind::Standard)
                    .ascii_case_insensitive(true)
                    .build(self.keywords.iter().map(|(k, _)| k))
                    .expect("keyword automaton builds")
            });
            for m in ac.find_overlapping_iter(hay) {
                hit(self.keywords[m.pattern().as_usize()].1);
            }
            return;
        }
        for i in 0..hay.len() {
            let b = hay[i].to_ascii_lowercase() as usize;
            let (lo, hi) = (self.start[b] as usize, self.start[b + 1] as usize);
            for (kw, target) in &self.keywords[lo..hi] {
                let end = i + kw.len();
                if end <= hay.len() && hay[i..end].eq_ignore_ascii_case(kw) {
                    hit(*target);
                }
            }
        }
    }
}

pub use super::shell_view::dequote;

#[cfg(test)]
mod tests {
    use super::*;

    fn packs(cmd: &str) -> Vec<&'static str> {
        let s = builtin().scan(cmd);
        PACKS
            .iter()
            .enumerate()
            .filter(|(i, _)| s.packs & (1 << i) != 0)
            .map(|(_, p)| p.name)
            .collect()
    }

    #[test]
    fn ordinary_commands_have_no_keyword() {
        for cmd in [
            "npm test",
            "cargo build --release",
            "ls -la",
            "python3 manage.py test",
            "make -j4",
        ] {
            assert!(packs(cmd).is_empty(), "{cmd}: {:?}", packs(cmd));
        }
    }

    #[test]
    fn quoting_tricks_do_not_hide_keywords() {
        assert!(packs("r''m -rf /").contains(&"filesystem"));
        assert!(packs("g\"i\"t reset --hard").contains(&"git"));
        assert!(packs("r\\\nm -rf /").contains(&"filesystem"));
        assert!(packs("$'r'm -rf /").contains(&"filesystem"));
        assert!(packs("GIT RESET").contains(&"git"));
        assert!(packs("zsh -c 'ch\\''\nmod -R 000 ~'").contains(&"filesystem"));
        // Found by the property test: two continuations, one per shell.
        assert!(packs("$''zsh -c 'ch\\'\\\n'\nmod -R 000 ~'").contains(&"filesystem"));
    }

    #[test]
    fn the_automaton_finds_what_the_index_finds() {
        let s = Scanner::with_traumas(&[vec!["deploy".into()], vec!["zzz".into()]]);
        for cmd in [
            "git reset --hard && ./deploy.sh",
            "r''m -rf / ; DROP TABLE x",
            "npm test",
            "ZZZ kubectl delete ns prod",
        ] {
            let long = format!("{cmd}{}", " ".repeat(AUTOMATON_FROM));
            let want = s.scan_with(cmd, Method::Index);
            assert_eq!(s.scan_with(cmd, Method::Automaton), want, "{cmd}");
            assert_eq!(s.scan(&long), s.scan_with(&long, Method::Index), "{cmd}");
        }
    }

    #[test]
    fn trauma_keywords_are_reported_once() {
        let s = Scanner::with_traumas(&[vec!["deploy".into()], vec!["zzz".into()]]);
        let r = s.scan("./deploy.sh prod && deploy again");
        assert_eq!(r.traumas, vec![0]);
    }
}
