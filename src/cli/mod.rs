//! The `cm` command line: clap definitions and one module per command.
//!
//! Only this path builds the argument parser. `--json` is honoured even when parsing fails, so a
//! script always gets one JSON object back. Every command returns a [`Report`] or a [`CmError`];
//! [`crate::output::emit`] prints it and picks the exit code.

mod ctx;
pub mod view;

mod audit;
mod context;
mod diary;
mod doctor;
mod doctor_self_test;
mod forget;
mod gap_starters;
mod guard;
mod guard_check;
mod guard_packs;
mod history;
mod hook;
mod hooks_cmd;
mod import;
mod init;
mod init_repo;
mod mark;
mod mcp;
mod onboard;
mod outcome;
mod playbook;
mod positive;
mod privacy;
mod project;
mod quickstart;
mod reflect;
mod serve;
mod similar;
mod stale;
mod starters;
pub(crate) mod stats;
mod top;
mod trauma;
mod undo;
mod usage;
mod validate;
mod why;

pub use ctx::Ctx;

use crate::error::{CmError, ExitCode, Result};
use crate::output::{self, Mode, Report};
use clap::{Parser, Subcommand};
use std::ffi::OsString;

#[derive(Parser, Debug)]
#[command(
    name = "cm",
    version,
    about = "Procedural memory and a destructive-command guard for AI coding agents",
    long_about = "cm keeps a playbook of rules that earn or lose trust from feedback, indexes agents' \
                  session logs, and guards agents against destructive commands.\n\n\
                  Agents: run `cm context \"<task>\" --json` before non-trivial work."
)]
pub struct Cli {
    /// Print exactly one JSON object on stdout.
    #[arg(long, global = true)]
    pub json: bool,
    /// Print only what a script needs (ids).
    #[arg(long, short = 'q', global = true)]
    pub quiet: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Create the data directory, store and config (optionally with a starter playbook).
    Init(init::Args),
    /// Inspect and manage the playbook's rules.
    Playbook(playbook::Args),
    /// Alias of `playbook list`.
    Ls(playbook::ListArgs),
    /// Alias of `playbook add`.
    Add(playbook::AddArgs),
    /// Alias of `playbook remove`.
    Rm(playbook::RemoveArgs),
    /// Record that a rule helped or hurt.
    Mark(mark::Args),
    /// Revert the last feedback or curation on a rule.
    Undo(undo::Args),
    /// Deprecate a rule (optionally inverting it into an anti-pattern).
    Forget(forget::Args),
    /// Record a session outcome for the rules it used.
    Outcome(outcome::Args),
    /// Apply recorded outcomes to the rules' scores.
    #[command(name = "outcome-apply")]
    OutcomeApply(outcome::ApplyArgs),
    /// Discard recorded outcomes that were not applied.
    #[command(name = "outcome-clear")]
    OutcomeClear(outcome::ClearArgs),
    /// The most effective rules.
    Top(top::Args),
    /// Rules without recent feedback.
    Stale(stale::Args),
    /// A rule's provenance, feedback history and score trajectory.
    Why(why::Args),
    /// Playbook health: counts, scores, staleness.
    Stats(stats::Args),
    /// Check the installation: binary, links, store, config.
    Doctor(doctor::Args),
    /// Bring the original tool's store (~/.cass-memory) into cm: rules, feedback, diary, config.
    Import(import::Args),
    /// List the starter playbooks `cm init --starter` accepts.
    Starters,
    /// The whole system for an agent in one call: layers, protocol, commands, what is set up.
    Quickstart(quickstart::Args),
    /// The repository's rules as a document, or as the AGENTS.md / CLAUDE.md section.
    Project(project::Args),
    /// Run a hook entry point (reads the agent's payload on stdin).
    Hook(hook::Args),
    /// Manage trauma patterns: commands the guard must block.
    Trauma(trauma::Args),
    /// The destructive-command guard: check commands, install hooks.
    Guard(guard::Args),
    /// Episodic memory: index and search agents' session logs.
    History(history::Args),
    /// Rules, pitfalls and past sessions relevant to a task.
    #[command(visible_alias = "ctx")]
    Context(context::Args),
    /// Rules ranked by similarity to a text.
    Similar(similar::Args),
    /// Install, inspect or remove every cm hook for an agent.
    Hooks(hooks_cmd::Args),
    /// Learn from finished sessions: diary entries, new rules, feedback.
    Reflect(reflect::Args),
    /// Working memory: one entry per reflected session.
    Diary(diary::Args),
    /// Weigh a rule against the session history before adding it.
    Validate(validate::Args),
    /// Which agents' sessions reflection may read.
    Privacy(privacy::Args),
    /// Recent sessions that went against a rule or ran a command the guard blocks.
    Audit(audit::Args),
    /// LLM calls, tokens and cost by day and month, against the budget.
    Usage(usage::Args),
    /// Build the playbook from past sessions: status, gaps, sample, read, mark-done, reset.
    Onboard(onboard::Args),
    /// The MCP server on stdin/stdout (for an agent's MCP client to launch).
    Mcp(mcp::Args),
    /// The MCP server over Streamable HTTP at /mcp (loopback by default).
    Serve(serve::Args),
}

/// Commands that stand for another, and the name their answers carry.
const ALIASES: &[(&str, &str)] = &[
    ("ls", "playbook list"),
    ("add", "playbook add"),
    ("rm", "playbook remove"),
];

/// The name in the JSON envelope's `command` field: the path of subcommands clap matched
/// (`history search`, `guard check`, `guard`), an alias reporting the command it stands for.
fn command_name(matches: &clap::ArgMatches) -> String {
    let mut parts: Vec<&str> = Vec::new();
    let mut at = matches;
    while let Some((name, sub)) = at.subcommand() {
        parts.push(name);
        at = sub;
    }
    match ALIASES
        .iter()
        .find(|(alias, _)| parts.first() == Some(alias))
    {
        Some((_, canonical)) => canonical.to_string(),
        None => parts.join(" "),
    }
}

fn dispatch(cmd: &Command, ctx: &Ctx) -> Result<Report> {
    match cmd {
        Command::Init(a) => init::run(a, ctx),
        Command::Playbook(a) => playbook::run(a, ctx),
        Command::Ls(a) => playbook::list(a, ctx),
        Command::Add(a) => playbook::add(a, ctx),
        Command::Rm(a) => playbook::remove(a, ctx),
        Command::Mark(a) => mark::run(a, ctx),
        Command::Undo(a) => undo::run(a, ctx),
        Command::Forget(a) => forget::run(a, ctx),
        Command::Outcome(a) => outcome::record(a, ctx),
        Command::OutcomeApply(a) => outcome::apply(a, ctx),
        Command::OutcomeClear(a) => outcome::clear(a, ctx),
        Command::Top(a) => top::run(a, ctx),
        Command::Stale(a) => stale::run(a, ctx),
        Command::Why(a) => why::run(a, ctx),
        Command::Stats(a) => stats::run(a, ctx),
        Command::Doctor(a) => doctor::run(a, ctx),
        Command::Import(a) => import::run(a, ctx),
        Command::Starters => init::starters(ctx),
        Command::Quickstart(a) => quickstart::run(a, ctx),
        Command::Project(a) => project::run(a, ctx),
        Command::Hook(a) => hook::run(a, ctx),
        Command::Trauma(a) => trauma::run(a, ctx),
        Command::Guard(a) => guard::run(a, ctx),
        Command::History(a) => history::run(a, ctx),
        Command::Context(a) => context::run(a, ctx),
        Command::Similar(a) => similar::run(a, ctx),
        Command::Hooks(a) => hooks_cmd::run(a, ctx),
        Command::Reflect(a) => reflect::run(a, ctx),
        Command::Diary(a) => diary::run(a, ctx),
        Command::Validate(a) => validate::run(a, ctx),
        Command::Privacy(a) => privacy::run(a, ctx),
        Command::Audit(a) => audit::run(a, ctx),
        Command::Usage(a) => usage::run(a, ctx),
        Command::Onboard(a) => onboard::run(a, ctx),
        Command::Mcp(a) => mcp::run(a, ctx),
        Command::Serve(a) => serve::run(a, ctx),
    }
}

/// Parse `args` (argv including the program name, as OS strings) and run the command.
pub fn run(args: &[OsString]) -> i32 {
    let started = std::time::Instant::now();
    output::init_color();
    let wants_json = args
        .iter()
        .skip(1)
        .take_while(|a| *a != "--")
        .any(|a| a == "--json");
    let parsed = <Cli as clap::CommandFactory>::command()
        .try_get_matches_from(args)
        .and_then(|m| <Cli as clap::FromArgMatches>::from_arg_matches(&m).map(|cli| (cli, m)));
    let (cli, matches) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => return usage_error(e, wants_json, args),
    };
    let mode = if cli.json {
        Mode::Json
    } else if cli.quiet {
        Mode::Quiet
    } else {
        Mode::Human
    };
    let name = command_name(&matches);
    let ctx = Ctx::new(mode);
    let result = dispatch(&cli.command, &ctx);
    output::emit(&name, mode, started, result)
}

fn usage_error(e: clap::Error, json: bool, os_args: &[OsString]) -> i32 {
    use clap::error::ErrorKind;
    let args: Vec<String> = os_args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion)
        || (e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand && !json)
    {
        let _ = e.print();
        return if e.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
            ExitCode::Usage.number()
        } else {
            0
        };
    }
    if e.kind() == ErrorKind::InvalidUtf8 {
        return not_utf8(os_args, json);
    }
    if !json {
        let _ = e.print();
        return ExitCode::Usage.number();
    }
    // The command path: the first word, and the second for commands with subcommands.
    let command = command_path(&args);
    let text = e.to_string();
    let mut message = text
        .lines()
        .take_while(|l| !l.starts_with("Usage:"))
        .map(|l| l.trim_start_matches("error:").trim())
        .filter(|l| !l.is_empty() && !l.starts_with("tip:"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut hint = format!("run `cm {command} --help` for the accepted arguments");
    match e.kind() {
        ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            message = format!("`cm {command}` needs a subcommand");
        }
        ErrorKind::InvalidSubcommand => {
            // The unknown word is not a command, so point at the level above it.
            let parent = command.rsplit_once(' ').map(|(p, _)| p).unwrap_or("");
            hint = if parent.is_empty() {
                "run `cm --help` for the list of commands".into()
            } else {
                format!("run `cm {parent} --help` for its subcommands")
            };
        }
        _ => {}
    }
    let err = CmError::usage("INVALID_ARGUMENT", message).hint(hint);
    println!("{}", output::error_json(&command, &err));
    err.exit_code()
}

/// The command path (`playbook add`) from the words of argv, for error envelopes.
fn command_path(args: &[String]) -> String {
    let words: Vec<&str> = args
        .iter()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .map(String::as_str)
        .collect();
    let has_subcommands = |word: &str| {
        <Cli as clap::CommandFactory>::command()
            .find_subcommand(word)
            .is_some_and(|c| c.has_subcommands())
    };
    match words.as_slice() {
        [first, second, ..] if has_subcommands(first) => format!("{first} {second}"),
        [first, ..] => first.to_string(),
        [] => String::new(),
    }
}

/// A text argument that is not UTF-8: name it (its bytes escaped) and refuse, changing nothing.
fn not_utf8(args: &[OsString], json: bool) -> i32 {
    let bad: Vec<String> = args
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, a)| a.to_str().is_none())
        .map(|(i, a)| format!("argument {i} ({})", escape_bytes(a)))
        .collect();
    let lossy: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let err = CmError::usage(
        "INVALID_UTF8",
        format!("{} is not valid UTF-8 text", bad.join(", ")),
    )
    .hint("cm reads text arguments as UTF-8: re-encode the text (for example `iconv -f latin1 -t utf-8`); nothing was changed");
    output::emit(
        &command_path(&lossy),
        if json { Mode::Json } else { Mode::Human },
        std::time::Instant::now(),
        Err(err),
    )
}

/// An OS string as text with every byte that is not UTF-8 written `\xHH`.
pub fn escape_bytes(a: &std::ffi::OsStr) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for chunk in a.as_bytes().utf8_chunks() {
        out.push_str(chunk.valid());
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}
