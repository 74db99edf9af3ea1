//! `cm serve [--host 127.0.0.1] [--port 8765]`: the MCP server over Streamable HTTP at `/mcp`.
//! Loopback by default; any other bind requires a bearer token (see [`crate::mcp::token`]).

use super::Ctx;
use super::mcp::ServerArgs;
use crate::error::Result;
use crate::mcp::{self, HttpSettings};
use crate::output::Report;
use serde_json::json;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The address to listen on; anything but loopback requires a token.
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// The port to listen on (0 picks a free one and says which on stderr).
    #[arg(long, default_value_t = 8765)]
    pub port: u16,
    /// The environment variable holding the bearer token; when it is set, every request must
    /// carry it, on any bind. Unset on a non-loopback bind: the token file mcp-token in the
    /// data directory (created with mode 0600).
    #[arg(long, default_value = "MCP_HTTP_TOKEN", value_name = "VAR")]
    pub token_env: String,
    /// Largest request body accepted, in bytes (larger: HTTP 413).
    #[arg(long, default_value_t = 1_048_576, value_parser = clap::value_parser!(u64).range(1024..=67_108_864))]
    pub max_body: u64,
    /// MCP sessions kept at most; a new one past this closes the least recently used.
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=100_000))]
    pub max_sessions: u32,
    /// Seconds an unused MCP session lives before it is closed and its memory freed.
    #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub session_idle: u64,
    /// Write a line on stderr per request: the method, the tool or resource, the status and
    /// the time taken (never its arguments or the token).
    #[arg(long)]
    pub verbose: bool,
    #[command(flatten)]
    pub server: ServerArgs,
}

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let settings = args.server.settings(ctx)?;
    let http = HttpSettings {
        host: args.host.clone(),
        port: args.port,
        token_env: args.token_env.clone(),
        max_body: args.max_body as usize,
        sessions: mcp::SessionBounds {
            max: args.max_sessions as usize,
            idle: std::time::Duration::from_secs(args.session_idle),
        },
        verbose: args.verbose,
    };
    if args.server.check {
        let ip = mcp::bind_address(&http.host)?;
        let token = mcp::token::for_bind(ip.is_loopback(), &http.token_env)?;
        let mut data = ServerArgs::describe(&settings);
        data["transport"] = json!("http");
        data["url"] = json!(format!(
            "http://{}/mcp",
            std::net::SocketAddr::new(ip, http.port)
        ));
        data["tokenRequired"] = json!(token.is_some());
        data["tokenSource"] = json!(token.as_ref().map(|t| t.source.clone()));
        data["maxBody"] = json!(http.max_body);
        let human = format!(
            "cm serve would listen on {}; {}",
            data["url"].as_str().unwrap_or_default(),
            token
                .map(|t| t.source)
                .unwrap_or_else(|| "no token required (loopback)".into())
        );
        return Ok(Report::new(data).human(human));
    }
    mcp::serve_http(settings, http)?;
    Ok(Report::new(json!({"stopped": true})).human("cm serve: stopped"))
}
