//! Adding rules, one or a batch: each is curated against the closest rules already in the
//! playbook ([`crate::memory::curate`]), the fresh ones are stored (personal store or the
//! repository's playbook), rules they contradict are flagged, and the context term index is kept
//! current. `cm playbook add` calls it today; reflection and MCP will add rules through it too.

use crate::error::{CmError, Result};
use crate::memory::bullet::Bullet;
use crate::memory::curate::{Relation, Topic};
use crate::memory::playbook::{Location, Playbook};
use crate::memory::safety::Severity;
use crate::memory::tables::bullets as rows;
use crate::memory::topic_index::{Rarity, TopicIndex};
use crate::store::Store;
use std::path::PathBuf;

/// A rule not added because the playbook (or the batch) already holds it.
#[derive(Debug, Clone)]
pub struct Duplicate {
    pub content: String,
    /// The id of the rule it repeats.
    pub duplicate_of: String,
    /// The same rule once normalised (else a near-duplicate).
    pub same: bool,
    pub similarity: f64,
}

/// What [`add`] did.
#[derive(Debug)]
pub struct Added {
    /// The rules stored, in the order given.
    pub fresh: Vec<Bullet>,
    pub duplicates: Vec<Duplicate>,
    /// Where they went (where they would have gone when none was fresh).
    pub location: Location,
}

/// Curate `candidates` and store the fresh ones: in the repository's playbook under
/// `repo_dir` when given, else the personal store. The same rule is never added twice; a
/// near-duplicate of a live rule (similarity at or above `threshold`) only with `force`.
pub fn add(
    store: &Store,
    playbook: &Playbook,
    candidates: Vec<Bullet>,
    repo_dir: Option<PathBuf>,
    threshold: f64,
    force: bool,
) -> Result<Added> {
    if candidates.len() <= INDEX_THE_PLAYBOOK_FROM
        && crate::context::index::pending(store)? > crate::context::index::MAX_DIRTY_IN_MEMORY
    {
        // Neighbours come from the term index: make it current once (a bulk change or an older
        // version left it stale), so every later add reads a few postings.
        crate::context::index::refresh(store)?;
    }
    let repo_rules: Vec<Bullet> = playbook.readable_repo_rules();
    let curated = curate_batch(candidates, store, &repo_rules, threshold, force)?;
    let mut curated = curated;
    let location = match (&repo_dir, curated.fresh.is_empty()) {
        (_, false) => playbook.add(&curated.fresh, repo_dir.as_deref())?,
        (Some(dir), true) => Location::Repo(dir.clone()),
        (None, true) => Location::Personal,
    };
    if matches!(location, Location::Repo(_)) {
        // A repository rule is known as `repo:ID` (it never shares an id with a personal rule).
        for b in &mut curated.fresh {
            b.id = crate::memory::repo_file::view_id(&b.id);
        }
        for (new_id, _) in &mut curated.flag {
            *new_id = crate::memory::repo_file::view_id(new_id);
        }
    }
    // A batch is a bulk change: index its rules for context now (best effort, they are stored).
    if curated.fresh.len() > INDEX_THE_PLAYBOOK_FROM
        && let Err(e) = crate::context::index::refresh(store)
    {
        eprintln!(
            "cm: warning: context term index not refreshed: {}",
            e.message
        );
    }
    // The rules a new one contradicts are flagged too (each change undoable on its own).
    for (new_id, other) in &curated.flag {
        playbook.change(other, "contradiction", |b| {
            if !b.contradicts.contains(new_id) {
                b.contradicts.push(new_id.clone());
            }
            Ok(Vec::new())
        })?;
    }
    Ok(Added {
        fresh: curated.fresh,
        duplicates: curated.duplicates,
        location,
    })
}

/// Every candidate through the playbook's safety check ([`crate::memory::safety`]), before
/// anything is stored (check the text as given: line breaks are flattened when a rule is built): the first refused rule (or risky one, unless `allow_risky`) refuses the
/// whole batch, naming the rule and why (exit 3).
pub fn screen(candidates: &[&str], allow_risky: bool) -> Result<()> {
    let total = candidates.len();
    for (i, content) in candidates.iter().enumerate() {
        let Some(why) = crate::memory::safety::refusal(content) else {
            continue;
        };
        let which = if total == 1 {
            "the rule".to_string()
        } else {
            format!("rule {} of {total}", i + 1)
        };
        let e = match why.severity {
            Severity::Refused => CmError::usage(
                "RULE_REFUSED",
                format!("{which} was refused: {}; nothing was added", why.reason),
            )
            .hint("a rule may not carry credentials, instructions to a model, ways to switch cm's guard or hooks off, or code fetched from the network; no flag overrides this"),
            Severity::Risky if allow_risky => continue,
            Severity::Risky => CmError::usage(
                "RULE_RISKY",
                format!("{which} is risky: {}; nothing was added", why.reason),
            )
            .hint("reword it as a warning (\"never run ...\"), or add --allow-risky if agents should follow it"),
        };
        return Err(e);
    }
    Ok(())
}

/// New rules sorted into those to add and those already present.
struct Curated {
    fresh: Vec<Bullet>,
    /// Each rule not added, with the rule it repeats.
    duplicates: Vec<Duplicate>,
    /// (new rule, existing rule it contradicts): the existing one is flagged after the add.
    flag: Vec<(String, String)>,
}

/// Batches larger than this compare against every rule of the playbook through a topic index
/// built once; smaller ones (a single add) read each rule's closest neighbours from the context
/// term index instead, which costs less than loading the playbook (`add` brings that index up
/// to date first when a bulk change left it stale).
const INDEX_THE_PLAYBOOK_FROM: usize = 20;

/// Compare each new rule with the playbook's closest rules (and the batch's earlier ones):
/// the same rule once normalised is never added twice; a near-duplicate of a live rule is not
/// added unless `force`; a contradiction of a live rule is added, flagged on both.
fn curate_batch(
    candidates: Vec<Bullet>,
    conn: &Store,
    repo: &[Bullet],
    threshold: f64,
    force: bool,
) -> Result<Curated> {
    let mut out = Curated {
        fresh: Vec::new(),
        duplicates: Vec::new(),
        flag: Vec::new(),
    };
    // The playbook as one index (large batches), else neighbours per rule. Both indexes order
    // terms by how many of all these rules hold them.
    let new_topics: Vec<Topic> = candidates.iter().map(|b| Topic::of(&b.content)).collect();
    let (playbook, rarity): (Option<(Vec<Bullet>, TopicIndex)>, Rarity) =
        if candidates.len() > INDEX_THE_PLAYBOOK_FROM {
            let mut all = rows::load_all(conn)?;
            all.extend(repo.iter().cloned());
            let topics: Vec<Topic> = all.iter().map(|b| Topic::of(&b.content)).collect();
            let rarity = Rarity::of(topics.iter().chain(&new_topics));
            let mut index = TopicIndex::new(threshold, rarity.clone());
            for t in topics {
                index.insert(t);
            }
            (Some((all, index)), rarity)
        } else {
            (None, Rarity::of(&new_topics))
        };
    let mut batch = TopicIndex::new(threshold, rarity);
    for (mut b, topic) in candidates.into_iter().zip(new_topics) {
        let exact = match repo
            .iter()
            .find(|r| r.content.to_lowercase() == b.content.to_lowercase())
        {
            Some(r) => Some(r.id.clone()),
            None => rows::find_by_content(conn, &b.content)?,
        };
        // (id, similarity, the same rule once normalised)
        let mut duplicate_of = exact.map(|id| (id, 1.0, true));
        let mut contradicts: Vec<(String, bool)> = Vec::new();
        if duplicate_of.is_none() {
            let neighbours: Vec<(Bullet, bool)> = match &playbook {
                Some(_) => Vec::new(),
                None => crate::context::neighbours::of(conn, repo, &b.content)?,
            };
            let neighbour_topics: Vec<Topic> = neighbours
                .iter()
                .map(|(o, _)| Topic::of(&o.content))
                .collect();
            let mut others: Vec<(&Bullet, &Topic, bool)> = Vec::new();
            match &playbook {
                Some((all, index)) => {
                    for i in index.candidates(&topic) {
                        others.push((&all[i], index.get(i), false));
                    }
                }
                None => {
                    for ((o, _), t) in neighbours.iter().zip(&neighbour_topics) {
                        others.push((o, t, false));
                    }
                }
            }
            for i in batch.candidates(&topic) {
                others.push((&out.fresh[i], batch.get(i), true));
            }
            for (other, other_topic, in_batch) in others {
                match topic.relate(other_topic, threshold) {
                    Some(Relation::Same) => {
                        duplicate_of = Some((other.id.clone(), 1.0, true));
                        break;
                    }
                    Some(Relation::NearDuplicate(sim))
                        if !force
                            && other.is_live()
                            && duplicate_of.as_ref().is_none_or(|(_, best, _)| sim > *best) =>
                    {
                        duplicate_of = Some((other.id.clone(), sim, false));
                    }
                    Some(Relation::Contradiction(_)) if other.is_live() => {
                        contradicts.push((other.id.clone(), in_batch));
                    }
                    _ => {}
                }
            }
        }
        if let Some((id, sim, same)) = duplicate_of {
            out.duplicates.push(Duplicate {
                content: b.content,
                duplicate_of: id,
                same,
                similarity: sim,
            });
            continue;
        }
        for (other, in_batch) in contradicts {
            b.contradicts.push(other.clone());
            if in_batch {
                if let Some(f) = out.fresh.iter_mut().find(|f| f.id == other) {
                    f.contradicts.push(b.id.clone());
                }
            } else {
                out.flag.push((b.id.clone(), other));
            }
        }
        batch.insert(topic);
        out.fresh.push(b);
    }
    Ok(out)
}
