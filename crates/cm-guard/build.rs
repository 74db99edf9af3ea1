//! Build-time work for the guard, for the pretool hook's cost: compile the built-in rules'
//! regexes (src/packs) into sparse DFAs, written to `$OUT_DIR/rule_dfas.bin` with an index in
//! `$OUT_DIR/rule_dfas.rs`. A hook that denies would otherwise parse and compile the matching
//! rule's regex on the agent's clock (about a third of a deny's instructions, and cold pages of
//! the regex compiler); with the DFA in the binary it only reads a few of its pages. A regex
//! whose DFA would be too large keeps being compiled at run time (see `src/matcher.rs`).

use std::fmt::Write as _;
use std::path::PathBuf;

// The pack tables are plain data; the build script compiles the very same files as the crate,
// with the two enums they name (as `super::` from src/packs/mod.rs and `crate::` from each
// pack): `Lang` from its own file, and a stand-in for `Severity` (three plain variants; a new
// one used by a pack fails this build until it is added here too).
#[allow(dead_code)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    High,
    Critical,
    Fatal,
}

#[allow(dead_code)]
#[path = "src/lang.rs"]
mod lang;

pub mod normalize {
    pub use super::lang::Lang;
}

#[allow(dead_code)]
#[path = "src/packs/mod.rs"]
mod packs;
use regex_automata::dfa::{StartKind, dense};
use regex_automata::nfa::thompson;
use regex_automata::util::syntax;

/// A DFA larger than this (serialized) stays a run-time compile: its pages would cost more
/// to touch than the compile.
const MAX_DFA_BYTES: usize = 256 << 10;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=src/packs");
    println!("cargo:rerun-if-changed=src/lang.rs");
    rule_dfas();
}

fn rule_dfas() {
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    // The DFAs are serialized little-endian; on another target every rule compiles at run time.
    let little = std::env::var("CARGO_CFG_TARGET_ENDIAN").as_deref() == Ok("little");
    let mut bytes = Vec::new();
    let mut index = String::new();
    for (name, pick) in [
        (
            "REGEX",
            (|r: &packs::Rule| Some(r.regex)) as fn(&packs::Rule) -> Option<&'static str>,
        ),
        ("AND", |r| r.and),
        ("UNLESS", |r| r.unless),
    ] {
        let mut slots = Vec::new();
        for pack in packs::PACKS {
            for rule in pack.rules {
                let dfa = pick(rule).filter(|_| little).and_then(dfa_bytes);
                slots.push(match dfa {
                    Some(b) => {
                        let at = bytes.len();
                        bytes.extend_from_slice(&b);
                        (at, b.len())
                    }
                    None => (0, 0),
                });
            }
        }
        writeln!(
            index,
            "pub static {name}: [(u32, u32); {}] = [",
            slots.len()
        )
        .unwrap();
        for (at, len) in slots {
            writeln!(index, "    ({at}, {len}),").unwrap();
        }
        writeln!(index, "];").unwrap();
    }
    std::fs::write(out.join("rule_dfas.bin"), &bytes).expect("write rule_dfas.bin");
    std::fs::write(out.join("rule_dfas.rs"), index).expect("write rule_dfas.rs");
}

/// The serialized sparse DFA of one rule regex, or `None` when it is too large to be worth it.
/// Same syntax as the run-time compile (bytes, Unicode off); unanchored search only.
fn dfa_bytes(src: &str) -> Option<Vec<u8>> {
    let dfa = dense::Builder::new()
        .syntax(syntax::Config::new().unicode(false).utf8(false))
        .thompson(thompson::Config::new().utf8(false))
        .configure(
            dense::Config::new()
                .start_kind(StartKind::Unanchored)
                .dfa_size_limit(Some(8 << 20))
                .determinize_size_limit(Some(8 << 20)),
        )
        .build(&packs::expand(src))
        .ok()?;
    let bytes = dfa.to_sparse().ok()?.to_bytes_little_endian();
    (bytes.len() <= MAX_DFA_BYTES).then_some(bytes)
}
