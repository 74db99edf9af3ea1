//! `cm usage [--days N]`: what the optional LLM cost, by day and by month, against its budget.

use super::Ctx;
use crate::clock;
use crate::error::Result;
use crate::llm::{self, LlmSettings};
use crate::output::{Report, table};
use serde_json::Value;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// How many days back (today included) the daily rows and the total cover.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=3650))]
    pub days: u32,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let settings = LlmSettings::from_loaded(ctx.loaded()?);
    let data = llm::usage(ctx.store()?, &settings, clock::now(), args.days)?;
    let human = render(&data);
    Ok(Report::new(data).human(human))
}

fn money(v: &Value) -> String {
    format!("${:.4}", v.as_f64().unwrap_or(0.0))
}

fn render(d: &Value) -> String {
    let llm = &d["llm"];
    let mut out = match llm["provider"].as_str() {
        Some(p) => format!(
            "LLM: {p} {} (${:.2} / ${:.2} per million input / output tokens, {})\n",
            llm["model"].as_str().unwrap_or(""),
            llm["prices"]["inputPerMillion"].as_f64().unwrap_or(0.0),
            llm["prices"]["outputPerMillion"].as_f64().unwrap_or(0.0),
            llm["prices"]["source"].as_str().unwrap_or("")
        ),
        None => "LLM: not configured (reflection is deterministic)\n".to_string(),
    };
    if let Some(reason) = llm["reason"].as_str().filter(|_| llm["configured"] == true) {
        out.push_str(&format!("  calls cannot go out: {reason}\n"));
    }
    let b = &d["budget"];
    for (title, p) in [("Today", &b["today"]), ("This month", &b["thisMonth"])] {
        out.push_str(&format!(
            "{title}: {} of ${:.2} spent ({}%), {} left\n",
            money(&p["spent"]),
            p["limit"].as_f64().unwrap_or(0.0),
            p["percent"],
            money(&p["left"])
        ));
    }
    for w in b["warnings"].as_array().into_iter().flatten() {
        out.push_str(&format!("warning: {}\n", w.as_str().unwrap_or("")));
    }
    let rows = |list: &Value, key: &str| -> Vec<Vec<String>> {
        list.as_array()
            .into_iter()
            .flatten()
            .map(|r| {
                vec![
                    r[key].as_str().unwrap_or("").to_string(),
                    r["calls"].to_string(),
                    r["failed"].to_string(),
                    r["inputTokens"].to_string(),
                    r["outputTokens"].to_string(),
                    money(&r["costUsd"]),
                ]
            })
            .collect()
    };
    let t = &d["total"];
    out.push_str(&format!(
        "\nLast {} days (since {}): {} calls ({} failed), {} input and {} output tokens, {}\n",
        d["days"],
        d["since"].as_str().unwrap_or(""),
        t["calls"],
        t["failed"],
        t["inputTokens"],
        t["outputTokens"],
        money(&t["costUsd"])
    ));
    for (title, list, key) in [
        ("By day", &d["byDay"], "day"),
        ("By month", &d["byMonth"], "month"),
    ] {
        let r = rows(list, key);
        if !r.is_empty() {
            out.push_str(&format!("\n{title}:\n"));
            out.push_str(&table(
                &[key, "calls", "failed", "input", "output", "cost"],
                &r,
            ));
        }
    }
    out
}
