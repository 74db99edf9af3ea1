//! Running the built-in rules over a command's segments.
//!
//! Each rule's regex is ready the first time a segment reaches it, and kept for the life of the
//! process: a hook run touches at most the few rules whose pack keyword, program and needle all
//! matched; `git status` touches none. Most rules come precompiled: build.rs turns their regexes
//! into sparse DFAs embedded in the binary ([`prebuilt`]), so a deny reads a few pages of one
//! DFA instead of parsing and compiling a regex on the agent's clock. The few whose DFA would be
//! too large, and every rule on a target the DFAs were not built for, compile to a PikeVM on
//! first use.

use super::normalize::{Lang, Segment};
use super::packs::{self, On, PACKS, Rule};
use super::{Hit, Severity};
use once_cell::sync::OnceCell;
use regex_automata::Input;
use regex_automata::dfa::{Automaton, sparse};
use regex_automata::nfa::thompson::{self, pikevm::PikeVM as Regex};
use regex_automata::util::syntax;

/// Capacity of the compiled-regex cache; a unit test checks the tables fit.
pub const MAX_RULES: usize = 320;

/// The DFAs build.rs compiled from the pack tables: per rule (in [`packs::offset`] order) the
/// offset and length of its serialized DFA in `BYTES`, length 0 where there is none.
mod prebuilt {
    include!(concat!(env!("OUT_DIR"), "/rule_dfas.rs"));
    pub static BYTES: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/rule_dfas.bin"));
}

/// A rule regex ready to run.
pub enum Matcher {
    /// The prebuilt DFA, and the regex source it was built from.
    Dfa(Box<sparse::DFA<&'static [u8]>>, &'static str),
    /// A regex compiled at run time (its DFA was too large to embed).
    Vm(Regex),
}

impl Matcher {
    /// Whether the rule's pattern matches `hay` anywhere.
    pub fn is_match(&self, hay: &[u8]) -> bool {
        match self {
            Matcher::Dfa(dfa, src) => match dfa.try_search_fwd(&Input::new(hay).earliest(true)) {
                Ok(found) => found.is_some(),
                // Only a DFA with quit bytes (Unicode word boundaries) can fail a search, and
                // these are built with Unicode off; should one fail, the PikeVM decides.
                Err(_) => build(src).is_ok_and(|re| is_match(&re, hay)),
            },
            Matcher::Vm(re) => is_match(re, hay),
        }
    }
}

static COMPILED: [OnceCell<Matcher>; MAX_RULES] = [const { OnceCell::new() }; MAX_RULES];
static UNLESS: [OnceCell<Matcher>; MAX_RULES] = [const { OnceCell::new() }; MAX_RULES];
static AND: [OnceCell<Matcher>; MAX_RULES] = [const { OnceCell::new() }; MAX_RULES];

fn compiled(
    slot: &'static OnceCell<Matcher>,
    table: &[(u32, u32)],
    index: usize,
    src: &'static str,
) -> &'static Matcher {
    slot.get_or_init(|| {
        prebuilt_dfa(table, index)
            .map(|dfa| Matcher::Dfa(Box::new(dfa), src))
            .unwrap_or_else(|| {
                Matcher::Vm(build(src).expect("built-in rules compile (unit-tested)"))
            })
    })
}

/// The embedded DFA of rule slot `index`, if build.rs made one.
pub fn prebuilt_dfa(table: &[(u32, u32)], index: usize) -> Option<sparse::DFA<&'static [u8]>> {
    if cfg!(target_endian = "big") {
        return None;
    }
    let &(at, len) = table.get(index)?;
    let bytes = prebuilt::BYTES.get(at as usize..(at as usize).checked_add(len as usize)?)?;
    if bytes.is_empty() {
        return None;
    }
    // SAFETY: build.rs wrote these bytes with `to_bytes_little_endian` of this same crate
    // version (Cargo.lock pins one regex-automata for the build script and the binary), for
    // this little-endian target, and they are part of the binary. Unchecked, the load reads
    // the DFA's header only, not all of its pages. The header (label, endianness, version) is
    // still checked; a mismatch is an error here and the rule compiles at run time instead.
    let (dfa, _) = unsafe { sparse::DFA::from_bytes_unchecked(bytes) }.ok()?;
    Some(dfa)
}

/// Compile a rule regex for the hot path: a bare PikeVM over bytes with Unicode off. Segments
/// are short, so what counts is the compile time, paid on the agent's clock. A default
/// `regex::Regex` builds several engines and literal prefilters and took 2-3x longer; the meta
/// builder limited to the PikeVM still touched ~40 µs more cold code on a hook's first compile.
pub fn build(src: &str) -> Result<Regex, Box<thompson::BuildError>> {
    Regex::builder()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .thompson(thompson::Config::new().utf8(false).shrink(false))
        .build(&packs::expand(src))
        .map_err(Box::new)
}

fn is_match(re: &Regex, hay: &[u8]) -> bool {
    let mut cache = re.create_cache();
    re.is_match(&mut cache, hay)
}

fn rule_matches(index: usize, rule: &Rule, text: &str) -> bool {
    let hay = text.as_bytes();
    if !compiled(&COMPILED[index], &prebuilt::REGEX, index, rule.regex).is_match(hay) {
        return false;
    }
    if let Some(a) = rule.and
        && !compiled(&AND[index], &prebuilt::AND, index, a).is_match(hay)
    {
        return false;
    }
    match rule.unless {
        Some(u) => !compiled(&UNLESS[index], &prebuilt::UNLESS, index, u).is_match(hay),
        None => true,
    }
}

/// Matches of the rules `mask` turns on against `segments`. With `gated`, rules whose program/needle gates fail are skipped
/// without touching their regex; without, every rule runs (the reference for tests). With
/// `first_only`, matching stops at the first hit (enough when no allow-list entry could
/// override it).
pub fn pack_hits(
    segments: &[Segment],
    mask: packs::Mask,
    gated: bool,
    first_only: bool,
) -> Vec<Hit> {
    let mut hits = Vec::new();
    let lowered: Vec<String> = if gated {
        segments
            .iter()
            .map(|s| s.text.to_ascii_lowercase())
            .collect()
    } else {
        Vec::new()
    };
    for (seg_i, seg) in segments.iter().enumerate() {
        for (pack_i, pack) in PACKS.iter().enumerate() {
            if mask.any() & (1 << pack_i) == 0 {
                continue;
            }
            let base = packs::offset(pack_i);
            for (rule_i, rule) in pack.rules.iter().enumerate() {
                if rule.on != On::Lang(seg.lang) || !mask.rule_on(pack_i, rule) {
                    continue;
                }
                if gated
                    && (!packs::program_matches(rule, &seg.program)
                        || !needles_pass(rule, &lowered[seg_i]))
                {
                    continue;
                }
                if rule_matches(base + rule_i, rule, &seg.text)
                    && !excused(segments, seg_i, pack.name)
                {
                    hits.push(hit(pack.name, rule, &seg.text, seg.lang));
                    if first_only {
                        return hits;
                    }
                }
            }
        }
    }
    hits
}

/// A hit on a segment that only prints help or simulates ([`super::inert`]), or that deletes
/// what an earlier segment of the line made ([`super::made_here`]), is no hit.
fn excused(segments: &[Segment], at: usize, pack: &str) -> bool {
    let seg = &segments[at];
    seg.lang == Lang::Shell
        && (super::inert::inert(&seg.text) || super::made_here::excused(segments, at, pack))
}

fn needles_pass(rule: &Rule, lowered: &str) -> bool {
    rule.needles.is_empty() || rule.needles.iter().any(|n| lowered.contains(n))
}

fn hit(pack: &str, rule: &Rule, segment: &str, lang: Lang) -> Hit {
    Hit {
        pack: pack.to_string(),
        rule: format!("{pack}:{}", rule.id),
        segment: segment.to_string(),
        lang: lang.name(),
        severity: rule.severity,
        explanation: rule.why.to_string(),
        alternative: rule.instead.to_string(),
        pattern: match rule.and {
            Some(a) => format!("{} AND {}", packs::expand(rule.regex), packs::expand(a)),
            None => packs::expand(rule.regex),
        },
    }
}

/// Severity helper for callers that only have a rule id.
pub fn find_rule(id: &str) -> Option<(&'static str, &'static Rule, Severity)> {
    let (pack, rule) = id.split_once(':')?;
    let (_, p) = packs::by_name(pack)?;
    let r = p.rules.iter().find(|r| r.id == rule)?;
    Some((p.name, r, r.severity))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every command line of the guard corpora, as written and lowercased.
    fn haystacks() -> Vec<String> {
        let mut out = Vec::new();
        for name in ["evasion.txt", "dangerous.txt", "safe.txt"] {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/fixtures/guard/")
                .to_string()
                + name;
            let text = std::fs::read_to_string(&path).unwrap();
            for line in text
                .lines()
                .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
            {
                out.push(line.to_string());
                out.push(line.to_ascii_lowercase());
            }
        }
        out
    }

    /// The DFAs build.rs embeds decide exactly as the run-time compile of the same regex, on
    /// every corpus line; and they exist for nearly every rule (a build.rs that silently made
    /// none would still pass the first check).
    #[test]
    fn prebuilt_dfas_agree_with_the_compiled_regexes() {
        let hays = haystacks();
        let (mut slots, mut prebuilt_count) = (0, 0);
        for (pack_i, pack) in PACKS.iter().enumerate() {
            for (rule_i, rule) in pack.rules.iter().enumerate() {
                let index = packs::offset(pack_i) + rule_i;
                for (table, src) in [
                    (&prebuilt::REGEX[..], Some(rule.regex)),
                    (&prebuilt::AND[..], rule.and),
                    (&prebuilt::UNLESS[..], rule.unless),
                ] {
                    let Some(src) = src else { continue };
                    slots += 1;
                    let Some(dfa) = prebuilt_dfa(table, index) else {
                        continue;
                    };
                    prebuilt_count += 1;
                    let dfa = Matcher::Dfa(Box::new(dfa), src);
                    let vm = build(src).unwrap();
                    for hay in &hays {
                        assert_eq!(
                            dfa.is_match(hay.as_bytes()),
                            is_match(&vm, hay.as_bytes()),
                            "{}:{} on {hay:?}",
                            pack.name,
                            rule.id
                        );
                    }
                }
            }
        }
        assert!(
            prebuilt_count * 10 >= slots * 9,
            "only {prebuilt_count} of {slots} rule regexes were prebuilt"
        );
    }
}
