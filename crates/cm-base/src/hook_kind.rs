//! The hook entry points, named once: what `cm hook NAME` accepts (with its aliases), the link
//! names that reach a hook without the argument parser, and which hooks the installers write
//! into agents' settings. Dispatch (`cm::dispatch`, `cm::hooks::run`), the installers
//! (`cm::install`) and the services that report on them all use this enum, so it sits
//! below every layer: none of them imports the hooks to name one.

use serde::Serialize;

/// A hook entry point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HookKind {
    /// A session starts: inject rules and history.
    SessionStart,
    /// The user sent a prompt: inject what is relevant to it.
    Prompt,
    /// A tool is about to run: the guard decides.
    Pretool,
    /// A session ended: index and reflect on it.
    Postsession,
    /// The end of a turn (Claude Code and Codex `Stop`, Gemini CLI `AfterAgent`): index the
    /// transcript so far, in case the session's end is never reported.
    Stop,
    /// A git commit is about to be made: check the staged changes.
    Precommit,
}

impl HookKind {
    /// Every hook, in the order reports list them.
    pub const ALL: [HookKind; 6] = [
        HookKind::Pretool,
        HookKind::Postsession,
        HookKind::Stop,
        HookKind::Precommit,
        HookKind::SessionStart,
        HookKind::Prompt,
    ];

    /// The hooks an agent's settings run (the pre-commit hook is git's, installed apart).
    pub const AGENT_HOOKS: [HookKind; 5] = [
        HookKind::SessionStart,
        HookKind::Prompt,
        HookKind::Pretool,
        HookKind::Postsession,
        HookKind::Stop,
    ];

    /// The name `cm hook NAME` takes.
    pub fn name(self) -> &'static str {
        match self {
            HookKind::SessionStart => "session-start",
            HookKind::Prompt => "prompt",
            HookKind::Pretool => "pretool",
            HookKind::Postsession => "postsession",
            HookKind::Stop => "stop",
            HookKind::Precommit => "precommit",
        }
    }

    /// Other names `cm hook NAME` accepts (agents' event names among them).
    pub fn aliases(self) -> &'static [&'static str] {
        match self {
            HookKind::SessionStart => &["sessionstart"],
            HookKind::Prompt => &["user-prompt", "userpromptsubmit"],
            HookKind::Pretool => &["pre-tool", "pretooluse"],
            HookKind::Postsession => &["post-session", "session-end"],
            HookKind::Stop => &["turn-end", "afteragent"],
            HookKind::Precommit => &["pre-commit"],
        }
    }

    /// The link name that reaches this hook without the CLI parser, when there is one.
    pub fn link_name(self) -> Option<&'static str> {
        match self {
            HookKind::Pretool => Some("cm-pretool"),
            HookKind::Postsession => Some("cm-postsession"),
            HookKind::Precommit => Some("cm-precommit"),
            _ => None,
        }
    }

    /// The hook a name or alias names.
    pub fn from_name(name: &str) -> Option<HookKind> {
        HookKind::ALL
            .into_iter()
            .find(|k| k.name() == name || k.aliases().contains(&name))
    }

    /// The hook a program name (argv[0]'s file name) reaches directly.
    pub fn from_link(program: &str) -> Option<HookKind> {
        HookKind::ALL
            .into_iter()
            .find(|k| k.link_name() == Some(program))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_alias_and_link_finds_its_hook() {
        for k in HookKind::ALL {
            assert_eq!(HookKind::from_name(k.name()), Some(k));
            for a in k.aliases() {
                assert_eq!(HookKind::from_name(a), Some(k), "{a}");
            }
            if let Some(link) = k.link_name() {
                assert_eq!(HookKind::from_link(link), Some(k));
            }
        }
        assert_eq!(HookKind::from_name("nosuch"), None);
        assert_eq!(HookKind::from_link("cm"), None);
    }
}
