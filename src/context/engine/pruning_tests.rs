//! The pruned ranking must equal weighing every candidate.

use super::*;
use crate::memory::bullet::{BulletType, FeedbackEvent, FeedbackSource, FeedbackType, Scope};
use crate::store::Store;

/// The pruned ranking equals weighing every candidate, on a playbook with mixed feedback,
/// scopes, types and places.
#[test]
fn pruning_never_changes_the_answer() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("cm.db")).unwrap();
    let words = [
        "auth", "token", "timeout", "retry", "cache", "test", "parser", "deploy", "lock", "queue",
    ];
    let mut seed: u64 = 7;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    store
        .write(|tx| {
            for i in 0..300 {
                let content = (0..4)
                    .map(|_| words[next() % words.len()])
                    .collect::<Vec<_>>()
                    .join(" ");
                let mut b = Bullet {
                    id: format!("b-{i:012x}"),
                    content: format!("{content} rule {i}"),
                    created_at: "2026-05-01T00:00:00Z".into(),
                    ..Bullet::default()
                };
                if i % 7 == 0 {
                    b.bullet_type = BulletType::AntiPattern;
                }
                if i % 11 == 0 {
                    b.scope = Scope::Workspace;
                    b.scope_key = Some(if i % 2 == 0 {
                        "/w/app".into()
                    } else {
                        "/w/other".into()
                    });
                }
                for k in 0..(next() % 6) {
                    let harmful = next() % 4 == 0;
                    b.feedback_events.push(FeedbackEvent {
                        id: format!("fb-{i}-{k}"),
                        kind: if harmful {
                            FeedbackType::Harmful
                        } else {
                            FeedbackType::Helpful
                        },
                        timestamp: format!("2026-05-{:02}T00:00:00Z", 1 + next() % 28),
                        source: FeedbackSource::Manual,
                        session_path: None,
                        reason: None,
                        weight: None,
                    });
                    if harmful {
                        b.harmful_count += 1
                    } else {
                        b.helpful_count += 1
                    }
                }
                crate::memory::tables::bullets::insert(tx, &b)?;
            }
            Ok(())
        })
        .unwrap();
    super::super::index::refresh(&store).unwrap();
    // Two rules in three were learned somewhere: here, under here, or in another workspace.
    store
        .write(|tx| {
            for i in (0..300).filter(|i| i % 3 != 0) {
                let id = format!("b-{i:012x}");
                let w = ["/w/app", "/w/app/api", "/w/other"][i % 5 % 3];
                tx.execute(
                    "INSERT INTO rule_places (bullet_id, kind, value) VALUES (?1, 'workspace', ?2)",
                    [&id, w],
                )
                .and_then(|_| {
                    tx.execute(
                        "UPDATE context_docs SET placed = 1 WHERE bullet_id = ?1",
                        [&id],
                    )
                })
                .map_err(|e| crate::store::map_err(e, &store.path))?;
            }
            Ok(())
        })
        .unwrap();
    let scoring = Scoring::default();
    for task in [
        "auth token timeout",
        "retry queue",
        "cache",
        "deploy lock parser test",
    ] {
        for limit in [1, 3, 5] {
            let req = test_request(task, limit, &scoring);
            let pruned = answer(Some(&store.conn), Vec::new(), &req).unwrap().ranked;
            let corpus = Corpus::load(Some(&store.conn), Vec::new()).unwrap();
            // Widened as the engine widens (the concept lexicon; no association layer here).
            let background = Background {
                situations: None,
                associations: req.widen_history,
                concepts: req.concepts,
            };
            let all = candidates_in(
                &corpus,
                task,
                req.coverage,
                None,
                req.min_relevance,
                &background,
            )
            .unwrap();
            let none = |_: &str| 0u32;
            let weighed: Vec<Candidate> = all
                .iter()
                .filter_map(|c| weigh(&corpus, c, &req, &none).unwrap())
                .collect();
            let full = rank::rank(
                weighed,
                &rank::Options {
                    min_relevance: req.min_relevance,
                    limit,
                    here: crate::context::place::Here {
                        workspace: Some("/w/app"),
                        stacks: &[],
                    },
                },
            );
            let ids =
                |v: &Vec<rank::RankedBullet>| v.iter().map(|r| r.id.clone()).collect::<Vec<_>>();
            assert_eq!(ids(&pruned.rules), ids(&full.rules), "{task} limit {limit}");
            assert_eq!(
                ids(&pruned.anti_patterns),
                ids(&full.anti_patterns),
                "{task} limit {limit}"
            );
        }
    }
}
