//! The evasion corpus (tests/fixtures/guard/evasion.txt) through the real guard: destructive
//! commands written to evade, or just unusual, must be blocked (at least 95% overall and in
//! every family), and no everyday or borderline command may be (the existing safe corpus
//! included). The hook is given a home and working directory, as a real payload's `cwd` and
//! the user's `HOME` give it.

use cm::guard::expand::Context;
use cm::guard::{self, Policy};

struct Family {
    name: String,
    dangerous: bool,
    commands: Vec<String>,
}

fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/guard")
        .join(name);
    std::fs::read_to_string(path).expect("corpus file")
}

/// Families of `evasion.txt`, in order.
fn families() -> Vec<Family> {
    let mut out: Vec<Family> = Vec::new();
    let mut block: Option<Vec<&str>> = None;
    let text = fixture("evasion.txt");
    for line in text.lines() {
        if let Some(b) = &mut block {
            if line == ">>>" {
                let cmd = b.join("\n");
                out.last_mut()
                    .expect("a family header first")
                    .commands
                    .push(cmd);
                block = None;
            } else {
                b.push(line);
            }
            continue;
        }
        if line == "<<<" {
            block = Some(Vec::new());
        } else if let Some(name) = line.strip_prefix("# family: ") {
            out.push(Family {
                name: name.into(),
                dangerous: true,
                commands: Vec::new(),
            });
        } else if let Some(name) = line.strip_prefix("# safe: ") {
            out.push(Family {
                name: name.into(),
                dangerous: false,
                commands: Vec::new(),
            });
        } else if !line.trim().is_empty() && !line.starts_with('#') {
            out.last_mut()
                .expect("a family header first")
                .commands
                .push(line.to_string());
        }
    }
    out
}

fn context() -> Context {
    Context {
        home: Some("/home/dev".into()),
        cwd: Some("/home/dev/work/app".into()),
    }
}

#[test]
fn evasive_forms_are_blocked_and_everyday_commands_are_not() {
    let policy = Policy::default();
    let ctx = context();
    let families = families();
    let mut total = 0;
    let mut blocked = 0;
    let mut report = Vec::new();
    let mut false_blocks = Vec::new();
    let mut missed = Vec::new();
    for f in &families {
        let denied: Vec<&String> = f
            .commands
            .iter()
            .filter(|c| guard::evaluate_at(c, &policy, &ctx).is_deny())
            .collect();
        if f.dangerous {
            total += f.commands.len();
            blocked += denied.len();
            missed.extend(
                f.commands
                    .iter()
                    .filter(|c| !denied.contains(c))
                    .map(|c| format!("[{}] {c}", f.name)),
            );
            let share = denied.len() as f64 / f.commands.len() as f64;
            if share < 0.95 {
                report.push(format!(
                    "family {} blocked {}/{}",
                    f.name,
                    denied.len(),
                    f.commands.len()
                ));
            }
        } else {
            false_blocks.extend(denied.iter().map(|c| format!("[{}] {c}", f.name)));
        }
    }
    let dangerous: usize = families
        .iter()
        .filter(|f| f.dangerous)
        .map(|f| f.commands.len())
        .sum();
    let safe: usize = families
        .iter()
        .filter(|f| !f.dangerous)
        .map(|f| f.commands.len())
        .sum();
    assert!(
        dangerous >= 600,
        "only {dangerous} destructive commands in the corpus"
    );
    assert!(safe >= 200, "only {safe} safe commands in the corpus");
    assert!(
        families.iter().filter(|f| f.dangerous).count() >= 9,
        "a family is missing"
    );
    assert!(
        false_blocks.is_empty(),
        "{} safe commands blocked:\n{}",
        false_blocks.len(),
        false_blocks.join("\n")
    );
    assert!(
        blocked * 100 >= total * 95 && report.is_empty(),
        "{blocked} of {total} blocked:\n{}\nallowed:\n{}",
        report.join("\n"),
        missed.join("\n")
    );
}

/// The safe corpus of the plainly written commands stays clear too, with the same context.
#[test]
fn the_everyday_corpus_has_no_false_block() {
    let policy = Policy::default();
    let ctx = context();
    let commands = crate::harness::corpus("safe.txt");
    let blocked: Vec<String> = commands
        .iter()
        .filter_map(|c| {
            let d = guard::evaluate_at(c, &policy, &ctx);
            let deny = d.is_deny();
            d.hit
                .filter(|_| deny)
                .map(|h| format!("{c}  => {} on `{}`", h.rule, h.segment))
        })
        .collect();
    assert!(
        blocked.is_empty(),
        "{} blocked:\n{}",
        blocked.len(),
        blocked.join("\n")
    );
}
