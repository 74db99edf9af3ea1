//! A deadline that passes while the workspace's rules are read cuts the rules; it is not an
//! error (which would lose the history found in time, and print nothing).

use super::*;
use crate::store::Store;

#[test]
fn a_deadline_during_the_workspace_lookups_cuts_the_rules_and_fails_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("cm.db")).unwrap();
    store
        .write(|tx| {
            for i in 0..3_000 {
                tx.execute(
                    "INSERT INTO rule_places (bullet_id, kind, value) VALUES (?1, 'workspace', '/w/app')",
                    [format!("b-{i:012x}")],
                )
                .map_err(|e| crate::store::map_err(e, &dir.path().join("cm.db")))?;
            }
            Ok(())
        })
        .unwrap();
    let corpus_store = Store::open_readonly(&store.path).unwrap().unwrap();
    let corpus = Corpus::load(Some(&corpus_store.conn), Vec::new()).unwrap();
    let scoring = Scoring::default();
    let req = test_request("auth token timeout", 3, &scoring);
    // In time: ranked, not cut.
    let (_, cut) = rank_bullets(&corpus, &req).unwrap();
    assert!(!cut);
    // The deadline has passed; the corpus's own statements are too short to be checked, the
    // workspace's sample (256 of 3,000 rows) is not.
    drop(corpus);
    let mut late = corpus_store;
    crate::store::deadline::install(&mut late.conn, std::time::Instant::now()).unwrap();
    let corpus = Corpus::load(Some(&late.conn), Vec::new()).unwrap();
    let (ranked, cut) = rank_bullets(&corpus, &req).unwrap();
    assert!(cut);
    assert!(ranked.rules.is_empty());
}
