//! Running the built-in rules over a command's segments.
//!
//! Each rule's regex is compiled the first time a segment reaches it, and kept for the life of
//! the process: a hook run compiles at most the few rules whose pack keyword, program and
//! needle all matched; `git status` compiles none.

use super::normalize::{Lang, Segment};
use super::packs::{self, On, PACKS, Rule};
use super::{Hit, Severity};
use once_cell::sync::OnceCell;
use regex_automata::nfa::thompson::{self, pikevm::PikeVM as Regex};
use regex_automata::util::syntax;

/// Capacity of the compiled-regex cache; a unit test checks the tables fit.
pub const MAX_RULES: usize = 160;

static COMPILED: [OnceCell<Regex>; MAX_RULES] = [const { OnceCell::new() }; MAX_RULES];
static UNLESS: [OnceCell<Regex>; MAX_RULES] = [const { OnceCell::new() }; MAX_RULES];
static AND: [OnceCell<Regex>; MAX_RULES] = [const { OnceCell::new() }; MAX_RULES];

fn compiled(slot: &'static OnceCell<Regex>, src: &str) -> &'static Regex {
    slot.get_or_init(|| build(src).expect("built-in rules compile (unit-tested)"))
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
    if !is_match(compiled(&COMPILED[index], rule.regex), hay) {
        return false;
    }
    if let Some(a) = rule.and
        && !is_match(compiled(&AND[index], a), hay)
    {
        return false;
    }
    match rule.unless {
        Some(u) => !is_match(compiled(&UNLESS[index], u), hay),
        None => true,
    }
}

/// Matches of the packs in `mask` (bit i = `PACKS[i]`) against `segments`. With `gated`, rules whose program/needle gates fail are skipped
/// without touching their regex; without, every rule runs (the reference for tests). With
/// `first_only`, matching stops at the first hit (enough when no allow-list entry could
/// override it).
pub fn pack_hits(segments: &[Segment], mask: u32, gated: bool, first_only: bool) -> Vec<Hit> {
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
            if mask & (1 << pack_i) == 0 {
                continue;
            }
            let base = packs::offset(pack_i);
            for (rule_i, rule) in pack.rules.iter().enumerate() {
                if rule.on != On::Lang(seg.lang) {
                    continue;
                }
                if gated
                    && (!packs::program_matches(rule, &seg.program)
                        || !needles_pass(rule, &lowered[seg_i]))
                {
                    continue;
                }
                if rule_matches(base + rule_i, rule, &seg.text) {
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
