//! A lower bound of what a trauma pattern compiles to, read from its parse.
//!
//! Trauma patterns compile within a size limit ([`super::policy::TRAUMA_SIZE_LIMIT`]), but the
//! compiler only learns a pattern is too large by building it up to the limit: 3-7 ms for a
//! pattern of Unicode classes (`rm\w{20000}`, `rm(\w{200}){50}`), so a cloned repository with a
//! few hundred of them spent the hook's whole time budget on compiles that fail. Counting the
//! parse's literal bytes and class ranges, multiplied by repetitions, gives a floor of the
//! compiled program's size: a pattern whose floor is already over the limit cannot compile and
//! is refused without trying (the trauma index leaves it out, see [`super::trauma_cache`]).
//!
//! The floor is deliberately low (a byte per literal byte, a transition per class range, at
//! [`BYTES_PER_UNIT`] bytes each; the compiler spends 2-4 times that): a pattern it lets
//! through may still fail to compile, which the compile itself reports; one it refuses could
//! never have compiled.

use regex_syntax::hir::{Class, Hir, HirKind};

/// The least the compiler spends per unit counted here (a state or a transition: measured
/// 20-280 bytes per class range or literal byte for regex 1.13).
pub const BYTES_PER_UNIT: u64 = 8;

/// The floor of `hir`'s compiled size, in bytes (saturating).
pub fn floor_bytes(hir: &Hir) -> u64 {
    units(hir).saturating_mul(BYTES_PER_UNIT)
}

/// Whether `hir` surely compiles to more than `limit` bytes.
pub fn surely_over(hir: &Hir, limit: usize) -> bool {
    floor_bytes(hir) > limit as u64
}

fn units(h: &Hir) -> u64 {
    match h.kind() {
        HirKind::Empty => 0,
        HirKind::Look(_) => 1,
        HirKind::Literal(l) => l.0.len() as u64,
        HirKind::Class(Class::Unicode(c)) => c.ranges().len() as u64,
        HirKind::Class(Class::Bytes(c)) => c.ranges().len() as u64,
        HirKind::Repetition(r) => {
            // `x{n,m}` is compiled as m copies, `x{n,}` as n copies and a loop.
            let copies = r.max.unwrap_or(r.min.saturating_add(1)).max(1);
            units(&r.sub).saturating_mul(u64::from(copies))
        }
        HirKind::Capture(c) => units(&c.sub),
        HirKind::Concat(subs) | HirKind::Alternation(subs) => subs
            .iter()
            .fold(0u64, |sum, s| sum.saturating_add(units(s))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::policy::{TRAUMA_SIZE_LIMIT, compile};

    fn over(p: &str) -> bool {
        surely_over(&regex_syntax::parse(p).unwrap(), TRAUMA_SIZE_LIMIT)
    }

    #[test]
    fn huge_repetitions_are_over_without_compiling() {
        assert!(over(r"rm\w{20000}"));
        assert!(over(r"rm(\w{200}){50}"));
        assert!(over(r"rm[a-z]{100000}"));
        assert!(over(r"(?:ab|cd|ef){40000}"));
    }

    #[test]
    fn the_floor_never_refuses_a_pattern_that_compiles() {
        // Patterns near the limit on both sides: whenever the floor says "over", the compiler
        // agrees.
        let near = [
            r"rm\w",
            r"rm\w{4}",
            r"rm\w{10}",
            r"rm\w{14}",
            r"rm\w{40}",
            r"rm[a-z]{1000}",
            r"rm[a-z]{4000}",
            r"rm[a-z]{40000}",
            r"(?i)rmxxxxx{1000}",
            r"(?i)rmxxxxx{3000}",
            r"(?-u)rm\w{1000}",
            r"(?-u)rm\w{8000}",
            r"rm.{100}",
            r"rm\d{100}",
            r"deploy\.sh\s+--prod",
            r"(?:abcdefgh){4000}",
        ];
        for p in near {
            if over(p) {
                assert!(
                    compile(p).is_err(),
                    "{p}: the floor refuses a pattern that compiles"
                );
            }
        }
        assert!(!over(r"deploy\.sh\s+--prod"));
        assert!(compile(r"deploy\.sh\s+--prod").is_ok());
    }
}
