//! `cm project [--format agents.md|claude.md|md|json|yaml] [--output PATH] [--scores]
//! [--mature-only] [--per-category N]`: the rules of the current repository as a document.
//!
//! The markdown formats are wrapped in cm's markers so `--output` can rewrite its own section of
//! an existing `AGENTS.md` or `docs/PATTERNS.md` and leave the rest alone (`splice`); `agents.md`
//! and `claude.md` fill `templates/agents-section.md` (the protocol, then the rules). `json` and
//! `yaml` are the rules as data, and `--output` writes them as the whole file.

mod render;
mod splice;

use super::Ctx;
use crate::app::project::{self, Request};
use crate::error::Result;
use crate::output::Report;
use serde_json::json;
use std::path::PathBuf;

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// The section for an AGENTS.md: the protocol, then the rules.
    #[value(name = "agents.md")]
    AgentsMd,
    /// The same section for a CLAUDE.md.
    #[value(name = "claude.md")]
    ClaudeMd,
    /// A document of the rules alone.
    Md,
    Json,
    Yaml,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Output format (default: from --output's file name, else md).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Write to this file: cm's marked section is replaced (or appended), the rest kept.
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Show each rule's effective score and maturity.
    #[arg(long)]
    pub scores: bool,
    /// Only established and proven rules.
    #[arg(long)]
    pub mature_only: bool,
    /// At most N rules per category.
    #[arg(long, value_name = "N")]
    pub per_category: Option<usize>,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let format = args
        .format
        .unwrap_or_else(|| format_for(args.output.as_deref()));
    let cfg = ctx.config()?;
    let answer = project::rules(
        ctx.store()?,
        cfg,
        &Request {
            cwd: &ctx.cwd,
            mature_only: args.mature_only,
            per_category: args.per_category,
        },
    )?;
    let rules_data = json!({
        "workspace": answer.workspace,
        "stack": answer.stack,
        "counts": answer.counts,
        "categories": answer.categories,
    });
    let (document, whole) = match format {
        Format::Json => (
            serde_json::to_string_pretty(&rules_data).unwrap_or_default() + "\n",
            true,
        ),
        Format::Yaml => (
            serde_norway::to_string(&rules_data).unwrap_or_default(),
            true,
        ),
        Format::Md => (render::document(&answer, args.scores), false),
        Format::AgentsMd | Format::ClaudeMd => {
            (render::agents_section(&answer, args.scores), false)
        }
    };
    let mut written = json!(null);
    let mut human = document.clone();
    if let Some(path) = &args.output {
        let action = splice::write(path, &document, whole)?;
        let shown = answer
            .categories
            .iter()
            .map(|g| g.rules.len())
            .sum::<usize>();
        human = match action {
            splice::Action::Unchanged => {
                format!("{} is up to date ({shown} rule(s)).", path.display())
            }
            splice::Action::Created => {
                format!("Wrote {shown} rule(s) to {} (new file).", path.display())
            }
            splice::Action::Replaced if whole => {
                format!("Wrote {shown} rule(s) to {}.", path.display())
            }
            splice::Action::Replaced => format!(
                "Replaced cm's section of {} ({shown} rule(s)); the rest is untouched.",
                path.display()
            ),
            splice::Action::Appended => format!(
                "Appended cm's section to {} ({shown} rule(s)); the rest is untouched.",
                path.display()
            ),
        };
        written = json!({"path": path.display().to_string(), "action": action});
    }
    for line in answer.degraded.lines() {
        human.push_str(&format!("\nnote: {line}"));
    }
    Ok(Report::new(json!({
        "format": format_name(format),
        "workspace": rules_data["workspace"],
        "stack": rules_data["stack"],
        "counts": rules_data["counts"],
        "categories": rules_data["categories"],
        "document": document,
        "output": written,
        "degraded": answer.degraded.to_json(),
    }))
    .human(human))
}

/// The format a file name asks for: AGENTS.md and CLAUDE.md their sections, .json and .yaml
/// data, anything else the markdown document.
fn format_for(output: Option<&std::path::Path>) -> Format {
    let name = output
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    match name.as_str() {
        "agents.md" => Format::AgentsMd,
        "claude.md" => Format::ClaudeMd,
        n if n.ends_with(".json") => Format::Json,
        n if n.ends_with(".yaml") || n.ends_with(".yml") => Format::Yaml,
        _ => Format::Md,
    }
}

fn format_name(f: Format) -> &'static str {
    match f {
        Format::AgentsMd => "agents.md",
        Format::ClaudeMd => "claude.md",
        Format::Md => "md",
        Format::Json => "json",
        Format::Yaml => "yaml",
    }
}
