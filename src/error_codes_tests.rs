//! The README's exit-code table, checked against the code: every error code the binary can
//! raise (a literal or a `pub const` given to `CmError::usage`, `config`, `fs` or `new` with an
//! `ExitCode`) is listed in the row of its exit code, each code has one exit code wherever it is
//! raised, and the table names no code the binary never raises. Scripts branch on these
//! numbers, so the documentation is part of the contract.

use crate::error::ExitCode;
use crate::layers_tests::rust_files;
use regex::Regex;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

fn exit_of(name: &str) -> u8 {
    let class = match name {
        "Internal" => ExitCode::Internal,
        "Usage" | "usage" => ExitCode::Usage,
        "Config" | "config" => ExitCode::Config,
        "Filesystem" | "fs" => ExitCode::Filesystem,
        "Network" => ExitCode::Network,
        "SessionIndex" => ExitCode::SessionIndex,
        "NoData" => ExitCode::NoData,
        "Llm" => ExitCode::Llm,
        other => panic!("unknown exit code class {other}"),
    };
    class.number() as u8
}

/// Every code raised in the sources, with the exit codes it is raised with and where.
fn raised() -> BTreeMap<String, BTreeMap<u8, Vec<String>>> {
    // The binary's sources and every library crate's (crates/*/src).
    let top = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&top.join("src"), &mut files);
    rust_files(&top.join("crates"), &mut files);
    let texts: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter(|f| !f.ends_with("error_codes_tests.rs"))
        .map(|f| {
            let t = std::fs::read_to_string(&f).unwrap();
            (f, t)
        })
        .collect();
    let consts_re =
        Regex::new(r#"pub const ([A-Z][A-Z0-9_]+): &str = "([A-Z][A-Z0-9_]+)";"#).unwrap();
    let consts: BTreeMap<String, String> = texts
        .iter()
        .flat_map(|(_, t)| {
            consts_re
                .captures_iter(t)
                .map(|c| (c[1].to_string(), c[2].to_string()))
                .collect::<Vec<_>>()
        })
        .collect();
    let short = Regex::new(r#"\b(usage|config|fs)\(\s*"([A-Z][A-Z0-9_]+)""#).unwrap();
    let long = Regex::new(
        r#"\bnew\(\s*(?:"([A-Z][A-Z0-9_]+)"|([A-Z][A-Z0-9_]+))\s*,\s*(?:crate::error::)?ExitCode::(\w+)"#,
    )
    .unwrap();
    let mut out: BTreeMap<String, BTreeMap<u8, Vec<String>>> = BTreeMap::new();
    let mut put = |code: String, exit: u8, at: String| {
        out.entry(code)
            .or_default()
            .entry(exit)
            .or_default()
            .push(at);
    };
    for (file, text) in &texts {
        let at = |pos: usize| {
            format!(
                "{}:{}",
                file.strip_prefix(top).unwrap().display(),
                text[..pos].lines().count()
            )
        };
        for c in short.captures_iter(text) {
            put(
                c[2].to_string(),
                exit_of(&c[1]),
                at(c.get(0).unwrap().start()),
            );
        }
        for c in long.captures_iter(text) {
            let code = match (c.get(1), c.get(2)) {
                (Some(lit), _) => lit.as_str().to_string(),
                (None, Some(name)) => match consts.get(name.as_str()) {
                    Some(v) => v.clone(),
                    None => continue, // a variable, not a code
                },
                _ => continue,
            };
            put(code, exit_of(&c[3]), at(c.get(0).unwrap().start()));
        }
    }
    out
}

/// The README's table: exit code -> the codes listed in its row.
fn documented() -> BTreeMap<u8, BTreeSet<String>> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let row = Regex::new(r"^\| ([0-9]) \|[^|]*\|(.*)\|\s*$").unwrap();
    let code = Regex::new(r"`([A-Z][A-Z0-9_]+)`").unwrap();
    let mut out: BTreeMap<u8, BTreeSet<String>> = BTreeMap::new();
    for line in readme.lines() {
        if let Some(c) = row.captures(line) {
            let exit: u8 = c[1].parse().unwrap();
            out.entry(exit)
                .or_default()
                .extend(code.captures_iter(&c[2]).map(|m| m[1].to_string()));
        }
    }
    assert!(out.len() >= 6, "the README's exit-code table was not found");
    out
}

/// The table is the original tool's (cm-command-reference: 0 success, 1 error, 2 config,
/// 3 validation, 4 LLM, 5 no data): its users' scripts keep working.
#[test]
fn the_classes_exit_with_the_original_tools_numbers() {
    assert_eq!(ExitCode::Internal.number(), 1);
    assert_eq!(ExitCode::Filesystem.number(), 1);
    assert_eq!(ExitCode::Network.number(), 1);
    assert_eq!(ExitCode::Config.number(), 2);
    assert_eq!(ExitCode::Usage.number(), 3);
    assert_eq!(ExitCode::Llm.number(), 4);
    assert_eq!(ExitCode::SessionIndex.number(), 5);
    assert_eq!(ExitCode::NoData.number(), 5);
    let doc = documented();
    let meanings: Vec<u8> = doc.keys().copied().collect();
    assert_eq!(meanings, [0, 1, 2, 3, 4, 5], "the README's table rows");
}

#[test]
fn every_error_code_has_one_exit_code() {
    let mixed: Vec<String> = raised()
        .into_iter()
        .filter(|(_, exits)| exits.len() > 1)
        .map(|(code, exits)| format!("{code}: {exits:?}"))
        .collect();
    assert!(
        mixed.is_empty(),
        "codes raised with several exit codes: {mixed:#?}"
    );
}

#[test]
fn every_error_code_is_in_the_readme_under_its_exit_code() {
    let doc = documented();
    let raised = raised();
    assert!(
        raised.len() > 40,
        "the scan found too few codes: {raised:?}"
    );
    let mut wrong = Vec::new();
    for (code, exits) in &raised {
        for (exit, at) in exits {
            if !doc.get(exit).is_some_and(|row| row.contains(code)) {
                let listed: Vec<u8> = doc
                    .iter()
                    .filter(|(_, row)| row.contains(code))
                    .map(|(e, _)| *e)
                    .collect();
                wrong.push(format!(
                    "{code} exits {exit} ({}) but the README lists it under {listed:?}",
                    at[0]
                ));
            }
        }
    }
    for (exit, row) in &doc {
        for code in row {
            if !raised.get(code).is_some_and(|e| e.contains_key(exit)) {
                wrong.push(format!(
                    "the README lists {code} under exit {exit}, which nothing raises"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}
