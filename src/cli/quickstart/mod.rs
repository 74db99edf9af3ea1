//! `cm quickstart`: the whole system explained to an agent in one call.
//!
//! Nothing here is hand-maintained prose about flags: the command list and every flag come from
//! the parser (`tree`), and what is set up on this machine (rules, index, hooks, LLM, config)
//! from the real files (`app::quickstart`). The fixed text (the layers, the protocol) names
//! commands only through [`Step`]s whose paths and flags are checked against the parser by the
//! tests, so a renamed command or flag fails the build's tests instead of drifting.

mod tree;

use super::Ctx;
use crate::app::quickstart::{self, State};
use crate::error::Result;
use crate::output::Report;
use serde::Serialize;
use serde_json::json;
use tree::CommandInfo;

/// One thing to do, with the command line that does it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Step {
    pub step: &'static str,
    pub run: &'static str,
    pub why: &'static str,
}

/// The protocol an agent follows, in order.
pub const PROTOCOL: &[Step] = &[
    Step {
        step: "start",
        run: "cm context \"<task>\" --json",
        why: "before non-trivial work: rules that apply (data.relevantBullets), mistakes made before (data.antiPatterns), rules not to follow (data.deprecatedWarnings) and what earlier sessions did (data.historySnippets)",
    },
    Step {
        step: "work",
        run: "",
        why: "when you follow a rule, cite its id in your reply (\"Following b-...\"); cited rules gain trust",
    },
    Step {
        step: "feedback",
        run: "",
        why: "leave inline feedback where you work: `[cass: helpful b-...]` when a rule helped, `[cass: harmful b-...] - reason` when it misled you; reflection reads these from the session",
    },
    Step {
        step: "feedback (explicit)",
        run: "cm mark <id> --helpful",
        why: "or record it at once (`--harmful --reason \"...\"` for a rule that misled you)",
    },
    Step {
        step: "end",
        run: "cm outcome success <id,id>",
        why: "record how the session went and which rules it used (success, failure, mixed, partial); `cm outcome-apply` turns outcomes into feedback",
    },
    Step {
        step: "guard",
        run: "cm guard check \"<command>\"",
        why: "the guard blocks destructive commands before they run (installed with `cm hooks install`); when it blocks one, do not retry another form: tell the user what you wanted and why, only a human can allow it",
    },
    Step {
        step: "learn",
        run: "cm reflect",
        why: "after each session the post-session hook indexes it and reflects on it (diary entry, new rules, feedback); run it by hand when no hook is installed",
    },
];

/// The commands an agent or a new user reaches for first, with their flags from the parser.
pub const KEY_COMMANDS: &[&str] = &[
    "context",
    "mark",
    "outcome",
    "outcome-apply",
    "playbook add",
    "playbook list",
    "similar",
    "history search",
    "reflect",
    "guard check",
    "hooks install",
    "project",
    "doctor",
    "starters",
    "init",
];

#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: &Args, ctx: &Ctx) -> Result<Report> {
    let loaded = ctx.loaded()?;
    let state = quickstart::state(&ctx.cwd, loaded);
    let commands = tree::all();
    let key: Vec<&CommandInfo> = KEY_COMMANDS
        .iter()
        .filter_map(|p| tree::find(&commands, p))
        .collect();
    let layers = layers(&state);
    let mut degraded = serde_json::Map::new();
    if !state.initialised {
        degraded.insert(
            "store".into(),
            json!({"message": "cm is not initialised: no store yet", "fix": "run `cm init`"}),
        );
    }
    if !state.llm.configured {
        degraded.insert("llm".into(), json!({"message": state.llm.reason.clone().unwrap_or_default(), "fix": "optional: reflection runs without an LLM; add an llm section to the global config to enable its pass"}));
    }
    if !state.hooks.post_session {
        degraded.insert("hooks".into(), json!({"message": "no agent runs the post-session hook: sessions are not learned from automatically", "fix": "run `cm hooks install`"}));
    }
    let human = render(&layers, &key, &commands, &state);
    let top_level: Vec<&CommandInfo> = commands.iter().filter(|c| !c.name.contains(' ')).collect();
    Ok(Report::new(json!({
        "summary": SUMMARY,
        "layers": layers,
        "protocol": PROTOCOL,
        "inlineFeedback": {
            "helpful": "[cass: helpful b-...]",
            "harmful": "[cass: harmful b-...] - reason",
        },
        "output": "every command takes --json and prints one object on stdout: {success, command, data} or {success: false, error: {code, message, hint}}; diagnostics go to stderr; exit codes 0 success, 1 error, 2 config, 3 validation, 4 LLM, 5 no data",
        "keyCommands": key,
        "commands": top_level,
        "state": state,
        "degraded": if degraded.is_empty() { serde_json::Value::Null } else { degraded.into() },
    }))
    .human(human))
}

const SUMMARY: &str = "cm gives coding agents a memory shared across agents and sessions, and a guard against destructive commands. Sessions are indexed (episodic), summarised (diary) and distilled into rules (playbook) whose trust grows with helpful feedback and decays without it; harmful rules turn into warnings.";

fn layers(state: &State) -> serde_json::Value {
    json!([
        {
            "name": "episodic",
            "what": "every agent's session logs, indexed for full-text search",
            "commands": ["cm history index", "cm history search \"<words>\" --json"],
            "now": format!("{} session(s), {} message(s) indexed{}", state.index.sessions, state.index.messages,
                state.index.last_indexed_at.as_deref().map(|t| format!(", last at {t}")).unwrap_or_default()),
        },
        {
            "name": "diary",
            "what": "one entry per reflected session: what was done, decided, hard, learned",
            "commands": ["cm reflect", "cm diary list"],
            "now": if state.llm.configured { "reflection adds an LLM pass".to_string() } else { "reflection is deterministic (no LLM configured)".to_string() },
        },
        {
            "name": "playbook",
            "what": "rules and anti-patterns with helpful/harmful feedback, decay and maturity (candidate, established, proven)",
            "commands": ["cm context \"<task>\" --json", "cm playbook list", "cm top"],
            "now": match state.rule_count { Some(n) => format!("{n} rule(s)"), None => "no store yet (run `cm init`)".to_string() },
        },
    ])
}

fn render(
    layers: &serde_json::Value,
    key: &[&CommandInfo],
    all: &[CommandInfo],
    s: &State,
) -> String {
    let mut out = format!("cm quickstart\n\n{SUMMARY}\n\nThree layers:\n");
    for l in layers.as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  {:<9} {} ({})\n",
            l["name"].as_str().unwrap_or(""),
            l["what"].as_str().unwrap_or(""),
            l["now"].as_str().unwrap_or("")
        ));
    }
    out.push_str("\nProtocol:\n");
    for (i, p) in PROTOCOL.iter().enumerate() {
        if p.run.is_empty() {
            out.push_str(&format!("  {}. {}: {}\n", i + 1, p.step, p.why));
        } else {
            out.push_str(&format!(
                "  {}. {}: `{}`: {}\n",
                i + 1,
                p.step,
                p.run,
                p.why
            ));
        }
    }
    out.push_str("\nKey commands:\n");
    for c in key {
        let flags: Vec<&str> = c.flags.iter().map(|f| tree::flag_name(&f.flag)).collect();
        out.push_str(&format!(
            "  cm {} {}  {}\n",
            c.name,
            c.args.join(" "),
            c.about
        ));
        if !flags.is_empty() {
            out.push_str(&format!("      flags: {}\n", flags.join(" ")));
        }
    }
    let top: Vec<&str> = all
        .iter()
        .filter(|c| !c.name.contains(' '))
        .map(|c| c.name.as_str())
        .collect();
    out.push_str(&format!(
        "\nAll commands (cm <command> --help): {}\n",
        top.join(", ")
    ));
    out.push_str("\nOn this machine:\n");
    out.push_str(&format!(
        "  data dir   {}{}\n",
        s.data_dir,
        if s.initialised {
            ""
        } else {
            " (not initialised: run `cm init`)"
        }
    ));
    out.push_str(&format!(
        "  hooks      {}\n",
        if s.hooks.installed.is_empty() {
            "none installed (run `cm hooks install`)".to_string()
        } else {
            s.hooks.installed.join("; ")
        }
    ));
    out.push_str(&format!(
        "  llm        {}\n",
        if s.llm.configured {
            format!(
                "{} {}",
                s.llm.provider.as_deref().unwrap_or(""),
                s.llm.model.as_deref().unwrap_or("")
            )
        } else {
            format!("off ({})", s.llm.reason.as_deref().unwrap_or(""))
        }
    ));
    if s.config_changes.is_empty() {
        out.push_str("  config     defaults\n");
    } else {
        for (k, v) in &s.config_changes {
            out.push_str(&format!(
                "  config     {k} = {} (default {})\n",
                v["current"], v["default"]
            ));
        }
    }
    out.push_str("\nEvery command takes --json (one object on stdout).");
    out
}

#[cfg(test)]
mod tests;
