//! Where an Aho-Corasick automaton pays for itself, measured: the secret scanner's hint
//! literals, and the guard's keyword scan with a user trauma set of thousands of patterns.
//! Run with `bench/literals.sh` (release build; prints medians of repeated runs).

use aho_corasick::{AhoCorasick, AhoCorasickKind, MatchKind};
use cm::guard::quick::{Method, Scanner};
use std::hint::black_box;
use std::time::Instant;

/// Median nanoseconds of `f` over `runs` runs.
fn median_ns(runs: usize, mut f: impl FnMut()) -> f64 {
    let mut t: Vec<f64> = (0..runs)
        .map(|_| {
            let s = Instant::now();
            f();
            s.elapsed().as_nanos() as f64
        })
        .collect();
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t[t.len() / 2]
}

/// Session-like text of `len` bytes: prose, code, a path, numbers; no secret.
fn text(len: usize) -> String {
    let words = [
        "the",
        "index",
        "resumes",
        "from",
        "offset",
        "cargo",
        "test",
        "--release",
        "fn",
        "main()",
        "src/lib.rs:42",
        "error[E0308]:",
        "mismatched",
        "types",
        "expected",
        "String",
        "found",
        "&str",
        "let",
        "mut",
        "config",
        "=",
        "load(path)?;",
        "tokenizer",
        "password_field",
        "authorization",
        "header",
        "0x7f3a",
        "1234",
        "passed;",
        "0",
        "failed",
        "http://localhost:8080/",
    ];
    let mut s = String::new();
    let mut i = 7usize;
    while s.len() < len {
        i = i.wrapping_mul(2654435761) % 1_000_003;
        s.push_str(words[i % words.len()]);
        s.push(if i.is_multiple_of(11) { '\n' } else { ' ' });
    }
    s.truncate(len);
    s
}

/// The hint check as it was: one substring search per hint (and a lowercase copy).
fn naive_hinted(table: &[(&str, &[&str], bool)], text: &str) -> Vec<bool> {
    let lower = text.to_ascii_lowercase();
    table
        .iter()
        .map(|(_, words, ci)| {
            let hay = if *ci { &lower } else { text };
            words.iter().any(|w| hay.contains(w))
        })
        .collect()
}

/// The same hints in one Aho-Corasick automaton (the alternative measured).
fn automaton_hinted(table: &[(&str, &[&str], bool)]) -> impl Fn(&str) -> Vec<bool> + use<> {
    let mut exact = (Vec::new(), Vec::new());
    let mut lower = (Vec::new(), Vec::new());
    for (i, (_, words, ci)) in table.iter().enumerate() {
        let into = if *ci { &mut lower } else { &mut exact };
        for w in *words {
            into.0.push(w.to_string());
            into.1.push(i);
        }
    }
    let build = |w: &[String], ci: bool| {
        AhoCorasick::builder()
            .kind(Some(AhoCorasickKind::DFA))
            .match_kind(MatchKind::Standard)
            .ascii_case_insensitive(ci)
            .build(w)
            .unwrap()
    };
    let (ea, la) = (build(&exact.0, false), build(&lower.0, true));
    let n = table.len();
    move |text: &str| {
        let mut on = vec![false; n];
        for m in ea.find_overlapping_iter(text) {
            on[exact.1[m.pattern().as_usize()]] = true;
        }
        for m in la.find_overlapping_iter(text) {
            on[lower.1[m.pattern().as_usize()]] = true;
        }
        on
    }
}

fn secrets() {
    let table = cm::redact::hint_table();
    let n: usize = table.iter().map(|t| t.1.len()).sum();
    let t0 = Instant::now();
    let ac = automaton_hinted(&table);
    let build = t0.elapsed().as_micros();
    println!(
        "secret hints: {} patterns, {n} literals (automaton built in {build} us, once per process)",
        table.len()
    );
    println!(
        "{:>10} {:>14} {:>14} {:>14}",
        "text", "contains ns", "finders ns", "automaton ns"
    );
    for len in [200, 4 << 10, 64 << 10, 1 << 20] {
        let t = text(len);
        assert_eq!(naive_hinted(&table, &t), cm::redact::hinted(&t));
        assert_eq!(ac(&t), cm::redact::hinted(&t));
        let runs = if len >= 1 << 20 { 21 } else { 301 };
        let a = median_ns(runs, || {
            black_box(naive_hinted(&table, black_box(&t)));
        });
        let b = median_ns(runs, || {
            black_box(cm::redact::hinted(black_box(&t)));
        });
        let c = median_ns(runs, || {
            black_box(ac(black_box(&t)));
        });
        println!("{len:>10} {a:>14.0} {b:>14.0} {c:>14.0}");
    }
}

fn keywords(n: usize) -> Vec<Vec<String>> {
    (0..n)
        .map(|i| vec![format!("deploy-{i:05}"), format!("wipe_{i}")])
        .collect()
}

fn traumas() {
    println!();
    println!(
        "trauma keywords (2 per trauma), scanner built and one scan (as each hook process pays):"
    );
    println!(
        "{:>8} {:>10} {:>14} {:>14} {:>14}",
        "traumas", "command", "index ns", "automaton ns", "auto ns"
    );
    for n in [0, 100, 1_000, 5_000] {
        let kws = keywords(n);
        for len in [100, 8 << 10, 64 << 10, 1 << 20] {
            let cmd = text(len);
            let runs = if len >= 1 << 20 { 11 } else { 51 };
            let time = |method: Method| {
                median_ns(runs, || {
                    let s = Scanner::with_traumas(black_box(&kws));
                    black_box(s.scan_with(black_box(&cmd), method));
                })
            };
            let (a, b, c) = (
                time(Method::Index),
                time(Method::Automaton),
                time(Method::Auto),
            );
            println!("{n:>8} {len:>10} {a:>14.0} {b:>14.0} {c:>14.0}");
        }
    }
}

fn main() {
    secrets();
    traumas();
}
