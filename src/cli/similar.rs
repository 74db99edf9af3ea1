//! `cm similar "QUERY" [--scores]`: rules ranked by how alike they are to a text. The ranking
//! is the service [`crate::app::similar`]; this file parses the flags and renders the table.

use super::Ctx;
use crate::app::similar::{self, SimilarRequest};
use crate::error::Result;
use crate::output::{Report, table, truncate};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The text to compare rules with.
    #[arg(required = true, num_args = 1..)]
    pub query: Vec<String>,
    /// Rules to return at most.
    #[arg(long, default_value_t = 10, value_parser = super::positive::count)]
    pub limit: usize,
    /// Minimum similarity (0-1).
    #[arg(long, default_value_t = 0.1)]
    pub threshold: f64,
    /// Include deprecated rules.
    #[arg(long)]
    pub all: bool,
    /// Show the scores in the human output: similarity, BM25 relevance, semantic cosine.
    #[arg(long)]
    pub scores: bool,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let req = SimilarRequest {
        query: args.query.join(" "),
        limit: args.limit,
        threshold: args.threshold,
        all: args.all,
    };
    let found = similar::answer(ctx.store()?, ctx.loaded()?, &ctx.cwd, &req)?;
    let rows: Vec<Vec<String>> = found
        .rules
        .iter()
        .map(|r| {
            let mut row = vec![r.id.clone()];
            if args.scores {
                row.push(format!("{:.2}", r.similarity));
                row.push(format!("{:.2}", r.relevance));
                row.push(
                    r.semantic
                        .map(|c| format!("{c:.2}"))
                        .unwrap_or_else(|| "-".into()),
                );
            }
            row.push(r.category.clone());
            row.push(truncate(&r.shown, 80));
            row
        })
        .collect();
    let human = if rows.is_empty() {
        "No similar rules.".to_string()
    } else if args.scores {
        table(
            &[
                "ID",
                "SIMILARITY",
                "RELEVANCE",
                "SEMANTIC",
                "CATEGORY",
                "RULE",
            ],
            &rows,
        )
    } else {
        table(&["ID", "CATEGORY", "RULE"], &rows)
    };
    let quiet = found
        .rules
        .iter()
        .map(|r| r.id.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    Ok(Report::new(found.to_json()).human(human).quiet(quiet))
}
