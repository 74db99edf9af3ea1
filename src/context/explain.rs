//! `cm context --explain`: each rule's signals beside it (in JSON as `signals`, in human output
//! as one line per rule), so a user can see why it ranked where it did.

use super::engine::Answer;
use super::rank::RankedBullet;
use serde_json::Value;

/// Add `signals` to every rule and pitfall of the rendered `data`.
pub fn annotate(data: &mut Value, a: &Answer) {
    for (key, list) in [
        ("relevantBullets", &a.ranked.rules),
        ("antiPatterns", &a.ranked.anti_patterns),
    ] {
        if let Some(items) = data.get_mut(key).and_then(Value::as_array_mut) {
            for (item, r) in items.iter_mut().zip(list) {
                item["signals"] = serde_json::to_value(&r.signals).unwrap_or(Value::Null);
            }
        }
    }
}

/// One line per rule: every signal and how they combine.
pub fn line(r: &RankedBullet) -> String {
    let s = &r.signals;
    let words = |w: &[String]| {
        if w.is_empty() {
            String::new()
        } else {
            format!(" [{}]", w.join(", "))
        }
    };
    let mut out = format!(
        "{}: lexical {:.3}{}, evidence {:.3}{}, association {:.3}{}",
        r.id,
        s.lexical,
        words(&s.matched),
        s.evidence,
        words(&s.evidence_matched),
        s.association,
        words(&s.association_terms),
    );
    if let Some(cos) = s.embedding {
        out.push_str(&format!(
            ", embedding {cos:.3} (rank {})",
            s.embedding_rank.unwrap_or(0)
        ));
    }
    if let (Some(rrf), Some(rank)) = (s.rrf, s.fused_rank) {
        out.push_str(&format!(", fused rank {rank} (rrf {rrf:.5})"));
    }
    out.push_str(&format!(
        " -> relevance {:.3} x weight {:.3} x place {:.3} x reinforcement {:.3} = {:.3}",
        s.relevance, s.weight, s.place, s.reinforcement, s.final_score
    ));
    if !s.setting.is_empty() {
        let setting: Vec<String> = s
            .setting
            .iter()
            .map(|(t, w)| format!("{t} {w:.2}"))
            .collect();
        out.push_str(&format!("; setting words: {}", setting.join(", ")));
    }
    out
}

/// The human "Signals" section.
pub fn section(a: &Answer) -> String {
    let lines: Vec<String> = a
        .ranked
        .rules
        .iter()
        .chain(&a.ranked.anti_patterns)
        .map(line)
        .collect();
    if lines.is_empty() {
        return String::new();
    }
    let mut s = String::from(
        "\nSignals (relevance = 1 - (1 - lexical)(1 - evidence)(1 - association), or rank fusion with embeddings)\n",
    );
    for l in lines {
        s.push_str(&format!("  - {l}\n"));
    }
    s
}
