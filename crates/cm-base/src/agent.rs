//! The coding agents cm works with, named once: hook payload dialects (`cm::hooks::pretool`),
//! installers (`cm::install`), session connectors (`cm::episodic::connectors`) and the
//! `agent` column of the session index all use this enum and its [`Agent::slug`].

use serde::Serialize;

/// A coding agent cm reads sessions of or installs hooks into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Agent {
    /// Claude Code.
    Claude,
    /// Codex CLI.
    Codex,
    /// Gemini CLI.
    Gemini,
    /// Cursor.
    Cursor,
    /// Aider.
    Aider,
    /// OpenCode.
    OpenCode,
    /// Cline.
    Cline,
}

impl Agent {
    /// Every agent, in the order reports list them.
    pub const ALL: [Agent; 7] = [
        Agent::Claude,
        Agent::Codex,
        Agent::Gemini,
        Agent::Cursor,
        Agent::Aider,
        Agent::OpenCode,
        Agent::Cline,
    ];

    /// The name cm stores and accepts on the command line (`--agent codex`).
    pub const fn slug(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
            Agent::Gemini => "gemini",
            Agent::Cursor => "cursor",
            Agent::Aider => "aider",
            Agent::OpenCode => "opencode",
            Agent::Cline => "cline",
        }
    }

    /// The product's name, for people.
    pub fn title(self) -> &'static str {
        match self {
            Agent::Claude => "Claude Code",
            Agent::Codex => "Codex CLI",
            Agent::Gemini => "Gemini CLI",
            Agent::Cursor => "Cursor",
            Agent::Aider => "Aider",
            Agent::OpenCode => "OpenCode",
            Agent::Cline => "Cline",
        }
    }

    /// The agent a slug names (case and surrounding space ignored; the products' own names too).
    pub fn parse(s: &str) -> Option<Agent> {
        let s = s.trim().to_ascii_lowercase();
        Agent::ALL.into_iter().find(|a| {
            a.slug() == s || a.title().to_ascii_lowercase() == s || {
                let dashed = a.title().to_ascii_lowercase().replace(' ', "-");
                dashed == s
            }
        })
    }
}

impl std::fmt::Display for Agent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.slug())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_parse_back_and_products_are_recognised() {
        for a in Agent::ALL {
            assert_eq!(Agent::parse(a.slug()), Some(a));
            assert_eq!(Agent::parse(&a.title().to_uppercase()), Some(a));
        }
        assert_eq!(Agent::parse("claude-code"), Some(Agent::Claude));
        assert_eq!(Agent::parse(" Gemini-CLI "), Some(Agent::Gemini));
        assert_eq!(Agent::parse("nosuch"), None);
        assert_eq!(
            serde_json::to_value(Agent::OpenCode).unwrap(),
            serde_json::json!("opencode")
        );
    }
}
