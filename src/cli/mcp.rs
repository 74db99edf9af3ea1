//! `cm mcp`: the MCP server on stdin/stdout (what an agent's MCP client launches:
//! `claude mcp add cm -- cm mcp`). The flags both MCP commands share live here too
//! ([`ServerArgs`]); the server itself is [`crate::mcp`].

use super::Ctx;
use crate::error::Result;
use crate::mcp::{self, Limits, Settings};
use crate::output::Report;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Duration;

#[derive(clap::Args, Debug)]
pub struct ServerArgs {
    /// A workspace requests may name (repeat for more); paths outside every root, and outside
    /// the data directory, are refused [default: the current repository, else the current
    /// directory].
    #[arg(long = "root", value_name = "DIR")]
    pub roots: Vec<PathBuf>,
    /// Tool calls and resource reads running or waiting at once; more are refused with the
    /// retryable OVERLOADED error (over HTTP: 503 with Retry-After).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub max_concurrent: u32,
    /// Calls running at once, each on a thread with its own store [default: the number of
    /// cores, at most 8].
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub workers: Option<u32>,
    /// Seconds a request may run before it is abandoned with the retryable TIMEOUT error.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub request_timeout: u64,
    /// Print the settings as they would be served, and exit.
    #[arg(long)]
    pub check: bool,
}

#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    pub server: ServerArgs,
}

impl ServerArgs {
    pub fn settings(&self, ctx: &Ctx) -> Result<Settings> {
        let roots = if self.roots.is_empty() {
            vec![crate::paths::git_root(&ctx.cwd).unwrap_or_else(|| ctx.cwd.clone())]
        } else {
            self.roots
                .iter()
                .map(|r| {
                    if r.is_absolute() {
                        r.clone()
                    } else {
                        ctx.cwd.join(r)
                    }
                })
                .collect()
        };
        // Resolved now, so a bad root fails before anything is served.
        let canonical = mcp::confine::Roots::new(&roots)?;
        Ok(Settings {
            roots: canonical.dirs().to_vec(),
            limits: Limits {
                concurrency: self.max_concurrent as usize,
                workers: self.workers.map(|w| w as usize).unwrap_or_else(|| {
                    std::thread::available_parallelism()
                        .map(|n| n.get())
                        .unwrap_or(2)
                        .min(8)
                }),
                timeout: Duration::from_secs(self.request_timeout),
            },
        })
    }

    /// What `--check` reports of the shared settings.
    pub fn describe(settings: &Settings) -> Value {
        json!({
            "roots": settings.roots,
            "dataDir": crate::paths::data_dir(),
            "maxConcurrent": settings.limits.concurrency,
            "workers": settings.limits.workers,
            "requestTimeoutSecs": settings.limits.timeout.as_secs(),
        })
    }
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let settings = args.server.settings(ctx)?;
    let mut data = ServerArgs::describe(&settings);
    data["transport"] = json!("stdio");
    if args.server.check {
        let human = format!(
            "cm mcp would serve {} over stdio (data in {})",
            settings
                .roots
                .iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            crate::paths::data_dir().display()
        );
        return Ok(Report::new(data).human(human));
    }
    mcp::serve_stdio(settings)?;
    // stdout was the protocol channel: nothing more is printed on it.
    Ok(Report::new(Value::Null))
}
