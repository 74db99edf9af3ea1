//! `cm stats [--trace-decay]`: playbook health in numbers. The numbers are the service
//! [`crate::app::stats`]; this file renders them.

use super::Ctx;
use crate::error::Result;
use crate::output::Report;
use serde_json::Value;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Show each rule's decay: every event's age, factor and contribution.
    #[arg(long)]
    pub trace_decay: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let cfg = ctx.config()?;
    let data = crate::app::stats::answer(ctx.store()?, cfg, &ctx.cwd, args.trace_decay)?;
    let human = human(&data, cfg);
    let total = data["total"].as_u64().unwrap_or(0).to_string();
    Ok(Report::new(data).human(human).quiet(total))
}

/// `(name, count)` pairs of a count map, in its order.
fn counts(m: &Value) -> Vec<(String, u64)> {
    m.as_object()
        .map(|o| {
            o.iter()
                .map(|(k, v)| (k.clone(), v.as_u64().unwrap_or(0)))
                .collect()
        })
        .unwrap_or_default()
}

fn human(data: &Value, cfg: &crate::config::Config) -> String {
    let mut human = format!(
        "Rules: {} ({} live)  average score {:.2}  stale {} (>{}d)  anti-patterns {}\n",
        data["total"],
        data["live"],
        data["averageScore"].as_f64().unwrap_or(0.0),
        data["staleCount"],
        data["staleDays"],
        data["antiPatternCount"]
    );
    let line = |title: &str, m: Vec<(String, u64)>| {
        let parts: Vec<String> = m.into_iter().map(|(k, v)| format!("{k} {v}")).collect();
        format!(
            "{title}: {}\n",
            if parts.is_empty() {
                "-".into()
            } else {
                parts.join(", ")
            }
        )
    };
    human.push_str(&line("By category", counts(&data["byCategory"])));
    human.push_str(&line("By maturity", counts(&data["byMaturity"])));
    human.push_str(&line("By type", counts(&data["byType"])));
    human.push_str(&format!(
        "At risk of deprecation: {}\n",
        data["atRiskCount"]
    ));
    for p in data["topPerformers"].as_array().into_iter().flatten() {
        human.push_str(&format!(
            "Top: {} ({:.2}) {}\n",
            p["id"].as_str().unwrap_or(""),
            p["score"].as_f64().unwrap_or(0.0),
            p["content"].as_str().unwrap_or("")
        ));
    }
    for m in data["mergeCandidates"].as_array().into_iter().flatten() {
        human.push_str(&format!(
            "Merge? {} and {} ({:.2} alike)\n",
            m["ids"][0].as_str().unwrap_or(""),
            m["ids"][1].as_str().unwrap_or(""),
            m["similarity"].as_f64().unwrap_or(0.0)
        ));
    }
    if let Some(traces) = data["decayTrace"].as_array() {
        human.push_str(&format!(
            "\nDecay (half-life {} days, harmful x{}):\n",
            cfg.scoring.decay_half_life_days, cfg.scoring.harmful_multiplier
        ));
        for t in traces {
            human.push_str(&format!(
                "  {}  score {}\n",
                t["id"].as_str().unwrap_or(""),
                t["effectiveScore"]
            ));
            if let Some(events) = t["events"].as_array() {
                human.push_str(&super::view::decay_trace_lines(events, "    "));
            }
        }
    }
    human
}
