//! The command set as data, read from the parser itself (`Cli` through `clap::CommandFactory`),
//! so what `cm quickstart` lists is exactly what `cm --help` accepts.

use clap::CommandFactory;
use serde::Serialize;

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandInfo {
    /// The path of words after `cm` (`playbook add`).
    pub name: String,
    pub about: String,
    pub aliases: Vec<String>,
    /// Positional arguments, as usage shows them (`<TASK>`, `[N]`).
    pub args: Vec<String>,
    pub flags: Vec<FlagInfo>,
    pub subcommands: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FlagInfo {
    /// `--limit`, with its value name when it takes one (`--limit <LIMIT>`).
    pub flag: String,
    pub help: String,
}

/// Every command and subcommand the parser knows (but `help`), depth first.
pub fn all() -> Vec<CommandInfo> {
    let root = crate::cli::Cli::command();
    let mut out = Vec::new();
    for sub in root.get_subcommands() {
        walk(sub, "", &mut out);
    }
    out
}

/// The command at `path` (`history search`), when the parser has it.
pub fn find<'a>(all: &'a [CommandInfo], path: &str) -> Option<&'a CommandInfo> {
    all.iter().find(|c| c.name == path)
}

fn walk(cmd: &clap::Command, prefix: &str, out: &mut Vec<CommandInfo>) {
    if cmd.get_name() == "help" {
        return;
    }
    let name = if prefix.is_empty() {
        cmd.get_name().to_string()
    } else {
        format!("{prefix} {}", cmd.get_name())
    };
    let subs: Vec<&clap::Command> = cmd
        .get_subcommands()
        .filter(|c| c.get_name() != "help")
        .collect();
    let mut args = Vec::new();
    let mut flags = Vec::new();
    for a in cmd.get_arguments() {
        if a.get_id() == "help" || a.get_id() == "version" || a.is_global_set() || a.is_hide_set() {
            continue;
        }
        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
        match a.get_long() {
            Some(long) => {
                let takes_value = a.get_num_args().is_some_and(|n| n.takes_values())
                    && !matches!(
                        a.get_action(),
                        clap::ArgAction::SetTrue | clap::ArgAction::Count
                    );
                let flag = match (takes_value, a.get_value_names()) {
                    (true, Some(names)) if !names.is_empty() => format!("--{long} <{}>", names[0]),
                    (true, _) => format!("--{long} <{}>", a.get_id().as_str().to_uppercase()),
                    _ => format!("--{long}"),
                };
                flags.push(FlagInfo { flag, help });
            }
            None if a.is_positional() => {
                let n = a
                    .get_value_names()
                    .and_then(|v| v.first().map(|s| s.to_string()))
                    .unwrap_or_else(|| a.get_id().as_str().to_uppercase());
                args.push(if a.is_required_set() {
                    format!("<{n}>")
                } else {
                    format!("[{n}]")
                });
            }
            None => {}
        }
    }
    out.push(CommandInfo {
        name: name.clone(),
        about: cmd.get_about().map(|h| h.to_string()).unwrap_or_default(),
        aliases: cmd.get_visible_aliases().map(str::to_string).collect(),
        args,
        flags,
        subcommands: subs.iter().map(|c| c.get_name().to_string()).collect(),
    });
    for sub in subs {
        walk(sub, &name, out);
    }
}

/// The long flag's name alone (`--limit <LIMIT>` gives `--limit`).
pub fn flag_name(flag: &str) -> &str {
    flag.split_whitespace().next().unwrap_or(flag)
}
