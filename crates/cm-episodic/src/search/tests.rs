//! The search against a real store grown through the real indexer.

use super::*;
use crate::model::Role;
use crate::testing::{index, store};
use cm_store::Store;
use std::fmt::Write as _;
use std::path::Path;

/// Deterministic filler text over a small vocabulary, with `common` in every other message.
fn filler(i: usize, common: &str) -> String {
    const WORDS: &[&str] = &[
        "parser", "cache", "branch", "socket", "thread", "schema", "widget", "render",
    ];
    let mut s = String::new();
    let mut x = i.wrapping_mul(2_654_435_761) | 1;
    for _ in 0..(3 + i % 9) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let _ = write!(s, "{} ", WORDS[x % WORDS.len()]);
    }
    if i.is_multiple_of(2) {
        s.push_str(common);
    }
    s
}

fn append(path: &Path, session: &str, texts: &[String]) {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    for (i, t) in texts.iter().enumerate() {
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let line = serde_json::json!({"s": session, "r": role, "t": t,
            "ts": format!("2026-11-{:02}T10:00:00Z", 1 + i % 28)});
        writeln!(f, "{line}").unwrap();
    }
}

/// A store whose planner statistics were taken when it held one message, then grown to
/// `sessions` sessions of `per` messages (the way the post-session hook grows it).
fn grown(dir: &Path, sessions: usize, per: usize) -> Store {
    let st = store(dir);
    let first = dir.join("first.jsonl");
    append(
        &first,
        "first",
        &["the very first oauth message".to_string()],
    );
    index(&st, &first);
    st.conn.execute_batch("ANALYZE").unwrap();
    assert_eq!(
        crate::testing::analysed_messages(&st.conn),
        Some(1),
        "statistics were taken at one message"
    );
    for s in 0..sessions {
        let path = dir.join(format!("s{s}.jsonl"));
        let texts: Vec<String> = (0..per).map(|i| filler(s * per + i, "timeout")).collect();
        append(&path, &format!("s{s}"), &texts);
        index(&st, &path);
    }
    st
}

fn query(q: &str) -> SearchQuery {
    SearchQuery {
        query: q.into(),
        limit: 10,
        ..SearchQuery::default()
    }
}

/// Our scores for every match against FTS5's own `bm25()` over the same rows.
fn assert_scores_are_fts5_bm25(st: &Store, q: &str, opts: Options, strategy: &str) {
    let q = query(q);
    let terms = crate::query::terms(&q.query);
    let mut out = Outcome::default();
    let weights = vec![1.0; terms.len()];
    let scope = Scope {
        weights: &weights,
        asked: terms.len(),
    };
    let ours = rank(
        &st.conn,
        &q,
        &terms,
        scope,
        usize::MAX,
        opts,
        &mut out,
        &mut Vec::new(),
        &mut None,
    )
    .ok()
    .unwrap();
    assert_eq!(out.strategy, strategy, "{}", q.query);
    let expr = expression(
        &terms.iter().map(|t| t.as_str()).collect::<Vec<_>>(),
        " OR ",
    );
    let theirs = Statement::exhaustive(&q, expr, -1)
        .scores(&st.conn)
        .unwrap();
    assert_eq!(ours.len(), theirs.len(), "{}", q.query);
    let theirs: HashMap<i64, f64> = theirs.into_iter().collect();
    for r in ours {
        let want = theirs[&r.id];
        assert!(
            (r.score - want).abs() < 1e-9,
            "{}: row {}: {} vs {want}",
            q.query,
            r.id,
            r.score
        );
    }
}

#[test]
fn scores_equal_fts5_bm25_when_every_term_is_rare() {
    let dir = tempfile::tempdir().unwrap();
    let st = grown(dir.path(), 4, 100);
    tf::ensure(&st.conn).unwrap();
    for q in [
        "parser cache",
        "socket widget timeout",
        "oauth thread",
        "render",
    ] {
        assert_scores_are_fts5_bm25(&st, q, Options::default(), "exact");
    }
}

#[test]
fn exhaustive_scores_equal_fts5_bm25_on_common_terms() {
    let dir = tempfile::tempdir().unwrap();
    let st = grown(dir.path(), 10, 500);
    tf::ensure(&st.conn).unwrap();
    let opts = Options {
        exhaustive: true,
        ..Options::default()
    };
    for q in ["parser cache timeout", "oauth timeout"] {
        assert_scores_are_fts5_bm25(&st, q, opts, "exhaustive");
    }
}

#[test]
fn every_statement_starts_from_the_fts_table_on_stale_statistics() {
    let dir = tempfile::tempdir().unwrap();
    // 5,000 messages: "timeout" is in 2,500 of them, each filler word in about half.
    let st = grown(dir.path(), 10, 500);
    // Two common words that never meet in the newest messages: the "all" stage looks further.
    let apart = dir.path().join("apart.jsonl");
    let texts: Vec<String> = (0..5_000)
        .map(|i| {
            if i % 2 == 0 {
                "alpha one".into()
            } else {
                "omega two".into()
            }
        })
        .collect();
    append(&apart, "apart", &texts);
    index(&st, &apart);
    let mut shapes: Vec<SearchQuery> = [
        "oauth",
        "oauth parser timeout",
        "parser cache socket",
        "alpha omega",
        "nomatchword",
    ]
    .iter()
    .map(|q| query(q))
    .collect();
    shapes.push(SearchQuery {
        agent: Some("tiny".into()),
        role: Some(Role::User),
        workspace: Some("/home/u".into()),
        days: Some(10_000),
        ..query("oauth parser timeout")
    });
    let mut stages = std::collections::BTreeSet::new();
    for q in &shapes {
        for exhaustive in [false, true] {
            let opts = Options {
                exhaustive,
                explain: true,
                ..Options::default()
            };
            let out = run(&st.conn, q, opts).unwrap();
            for p in &out.plans {
                stages.insert(p.stage);
                let first = p
                    .plan
                    .iter()
                    .map(|l| l.trim())
                    .find(|l| l.starts_with("SCAN") || l.starts_with("SEARCH"));
                assert!(
                    first.is_some_and(|l| l.starts_with("SCAN episodic_fts VIRTUAL TABLE")),
                    "{} {}: {:?}",
                    q.query,
                    p.stage,
                    p.plan
                );
                let sorts = p.plan.iter().any(|l| l.contains("TEMP B-TREE"));
                let scans = p
                    .plan
                    .iter()
                    .map(|l| l.trim())
                    .filter(|l| l.starts_with("SCAN") && !l.starts_with("SCAN (subquery"))
                    .count()
                    > 1;
                let by_key = p
                    .plan
                    .iter()
                    .filter(|l| l.trim().starts_with("SEARCH"))
                    .all(|l| l.contains("USING INTEGER PRIMARY KEY (rowid=?)"));
                assert!(
                    !sorts && !scans && by_key,
                    "{} {}: {:?}",
                    q.query,
                    p.stage,
                    p.plan
                );
            }
        }
    }
    // Common words that meet often in the newest messages need no look further back.
    let explain = Options {
        explain: true,
        ..Options::default()
    };
    let near = run(&st.conn, &query("parser cache socket"), explain).unwrap();
    assert!(
        near.plans.iter().all(|p| p.stage != "all"),
        "{:?}",
        near.plans
    );
    let apart = run(&st.conn, &query("alpha omega"), explain).unwrap();
    assert!(apart.plans.iter().any(|p| p.stage == "all"));
    for want in ["probe", "rare", "recent", "all"] {
        assert!(
            stages.contains(want),
            "stage {want} was exercised: {stages:?}"
        );
    }
    for (sql, params) in [
        (statements::HIT_SQL, vec![1.into()]),
        (statements::FILE_PATH_SQL, vec![1.into()]),
        (
            statements::SESSION_TITLE_SQL,
            vec!["tiny".to_string().into(), "s1".to_string().into()],
        ),
        (statements::SPAN_SQL, vec![]),
        (statements::MESSAGE_SESSION_SQL, vec![1.into()]),
        (statements::MESSAGE_TS_SQL, vec![1.into()]),
    ] {
        let plan = statements::explain(&st.conn, sql, &params).unwrap();
        assert!(
            plan.iter()
                .map(|l| l.trim())
                .all(|l| !l.starts_with("SCAN") || l == "SCAN CONSTANT ROW"),
            "{sql}: {plan:?}"
        );
    }
    // The sessions a term occurs in: its matches from the full-text table, newest first.
    let plan = statements::explain(
        &st.conn,
        statements::NEWEST_MATCHES_SQL,
        &["\"timeout\"".to_string().into(), 10.into()],
    )
    .unwrap();
    assert!(
        plan.len() == 1 && plan[0].starts_with("SCAN episodic_fts VIRTUAL TABLE"),
        "{plan:?}"
    );
    assert_eq!(
        super::spread::sessions_with(&st.conn, "timeout", u64::MAX).unwrap(),
        10
    );
    assert_eq!(
        super::spread::sessions_with(&st.conn, "timeout", 3).unwrap(),
        3
    );
}

#[test]
fn a_rare_term_does_not_silence_the_others() {
    let dir = tempfile::tempdir().unwrap();
    let st = grown(dir.path(), 10, 500);
    let extra = dir.path().join("extra.jsonl");
    append(
        &extra,
        "extra",
        &[
            "oauth token refresh timeout in the client".to_string(),
            "oauth login page".to_string(),
        ],
    );
    index(&st, &extra);
    let out = run(
        &st.conn,
        &query("oauth refresh timeout"),
        Options::default(),
    )
    .unwrap();
    assert_eq!(out.strategy, "bounded", "{out:?}");
    assert_eq!(out.terms, vec!["refresh", "oauth", "timeout"]);
    // The message with every term first, then the other oauth ones, then common matches.
    assert!(
        out.hits[0].snippet.contains("**refresh**"),
        "{:?}",
        out.hits[0]
    );
    assert!(
        out.hits.len() == 10,
        "more than the rare term's matches: {}",
        out.hits.len()
    );
    let oauth = out
        .hits
        .iter()
        .filter(|h| h.snippet.contains("oauth"))
        .count();
    assert_eq!(oauth, 3, "{:?}", out.hits);
}

#[test]
fn common_terms_alone_are_ranked_not_listed_newest_first() {
    let dir = tempfile::tempdir().unwrap();
    let st = grown(dir.path(), 10, 500);
    let out = run(&st.conn, &query("parser cache timeout"), Options::default()).unwrap();
    assert_eq!(out.strategy, "bounded");
    assert_eq!(out.hits.len(), 10);
    // Every hit holds at least two of the three terms: ranked by BM25, not by date.
    for h in &out.hits {
        let n = ["parser", "cache", "timeout"]
            .iter()
            .filter(|t| h.snippet.contains(&format!("**{t}")))
            .count();
        assert!(n >= 2, "{h:?}");
    }
    assert!(out.hits.windows(2).all(|w| w[0].score >= w[1].score));
}

#[test]
fn an_interrupted_search_says_where_it_stopped() {
    let dir = tempfile::tempdir().unwrap();
    let mut st = grown(dir.path(), 2, 50);
    st.conn.progress_handler(1, Some(|| true)).unwrap();
    let out = run(&st.conn, &query("parser timeout"), Options::default()).unwrap();
    assert_eq!(out.cut, Some("probe"));
    assert!(out.hits.is_empty());
    st.conn.progress_handler(0, None::<fn() -> bool>).unwrap();
    let out = run(&st.conn, &query("parser timeout"), Options::default()).unwrap();
    assert_eq!(out.cut, None);
    assert!(!out.hits.is_empty());
}

#[test]
fn a_question_naming_a_day_prefers_what_was_written_that_day() {
    let dir = tempfile::tempdir().unwrap();
    let st = store(dir.path());
    let path = dir.path().join("dated.jsonl");
    // Message i is written on November 1 + i: the same words on the 1st and the 3rd, apart,
    // among other talk until the 27th.
    let mut texts = vec![
        "the deploy rollback plan".to_string(),
        "something else entirely".to_string(),
        "the deploy rollback plan".to_string(),
    ];
    texts.extend((3..27).map(|i| filler(i, "socket")));
    append(&path, "dated", &texts);
    index(&st, &path);
    let q = query("the deploy rollback plan on November 1, 2026");
    let first = |opts: Options| run(&st.conn, &q, opts).unwrap().hits[0].line_number;
    assert_eq!(first(Options::default()), 1);
    // Without the lift the tie goes to the newest.
    let plain = Options {
        no_dates: true,
        ..Options::default()
    };
    assert_eq!(first(plain), 3);
}
