//! The providers cm can talk to, and what each one assumes when the config leaves it open: its
//! default model, endpoint and the environment variables its key is read from.

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProviderKind {
    Anthropic,
    OpenAi,
    Gemini,
    Ollama,
    OpenAiCompatible,
}

impl ProviderKind {
    /// `Some(None)` for `none` (off); `None` for a word that names no provider.
    pub fn parse(word: &str) -> Option<Option<ProviderKind>> {
        Some(Some(match word {
            "anthropic" => ProviderKind::Anthropic,
            "openai" => ProviderKind::OpenAi,
            "gemini" | "google" => ProviderKind::Gemini,
            "ollama" => ProviderKind::Ollama,
            "openai-compatible" => ProviderKind::OpenAiCompatible,
            "none" => return Some(None),
            _ => return None,
        }))
    }

    pub fn name(self) -> &'static str {
        match self {
            ProviderKind::Anthropic => "anthropic",
            ProviderKind::OpenAi => "openai",
            ProviderKind::Gemini => "gemini",
            ProviderKind::Ollama => "ollama",
            ProviderKind::OpenAiCompatible => "openai-compatible",
        }
    }

    /// The model used when `llm.model` is not set (an OpenAI-compatible server has none).
    pub fn default_model(self) -> Option<&'static str> {
        match self {
            ProviderKind::Anthropic => Some("claude-sonnet-4-20250514"),
            ProviderKind::OpenAi => Some("gpt-4o-mini"),
            ProviderKind::Gemini => Some("gemini-2.5-flash"),
            ProviderKind::Ollama => Some("llama3.2"),
            ProviderKind::OpenAiCompatible => None,
        }
    }

    /// The endpoint's base when `llm.baseUrl` is not set; each provider appends its path.
    pub fn default_base_url(self) -> Option<&'static str> {
        match self {
            ProviderKind::Anthropic => Some("https://api.anthropic.com"),
            ProviderKind::OpenAi => Some("https://api.openai.com/v1"),
            ProviderKind::Gemini => Some("https://generativelanguage.googleapis.com/v1beta"),
            ProviderKind::Ollama => Some("http://localhost:11434"),
            ProviderKind::OpenAiCompatible => None,
        }
    }

    /// The variables tried for the key when `llm.apiKeyEnv` is not set, in order. Empty: the
    /// provider needs no key (a local Ollama; an OpenAI-compatible server unless configured).
    pub fn default_key_envs(self) -> &'static [&'static str] {
        match self {
            ProviderKind::Anthropic => &["ANTHROPIC_API_KEY"],
            ProviderKind::OpenAi => &["OPENAI_API_KEY"],
            ProviderKind::Gemini => &["GOOGLE_GENERATIVE_AI_API_KEY", "GEMINI_API_KEY"],
            ProviderKind::Ollama | ProviderKind::OpenAiCompatible => &[],
        }
    }
}
