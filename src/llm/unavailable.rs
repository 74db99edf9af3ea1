//! Why the LLM did not answer this time. It is never an error of the command that asked: the
//! deterministic path stands and the caller puts this reason in its `degraded` field
//! ([`LlmUnavailable::issue`] gives the `{code, message, fix}` entry).

use crate::degraded::Issue;
use std::fmt;

/// Which budget a call would break.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Period {
    Day,
    Month,
}

impl Period {
    pub fn name(self) -> &'static str {
        match self {
            Period::Day => "daily",
            Period::Month => "monthly",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum LlmUnavailable {
    /// No provider in the global config (the default: reflection is deterministic).
    NotConfigured,
    /// `CASS_MEMORY_LLM=none` in the environment, or `llm.provider` is `none`.
    Disabled,
    /// The provider needs a key and the variable that should hold it is unset or empty.
    NoApiKey { env: String },
    /// Spent so far plus this call's estimate would pass the limit; nothing was sent.
    OverBudget {
        period: Period,
        spent: f64,
        estimate: f64,
        limit: f64,
    },
    /// The configuration names a provider but cannot be used as written (no model or base URL,
    /// an API key that would travel over plain http to another host).
    Misconfigured(String),
    /// The endpoint could not be reached, timed out, or answered with an error.
    Endpoint(String),
    /// The answer was not JSON matching the schema, twice.
    InvalidAnswer(String),
    /// The caller's request cannot be sent (a schema using keywords the validator lacks).
    InvalidRequest(String),
    /// The usage ledger could not be read or written, so the budget cannot be checked.
    Store(String),
}

impl LlmUnavailable {
    /// A stable code for scripts.
    pub fn code(&self) -> &'static str {
        match self {
            LlmUnavailable::NotConfigured => "LLM_NOT_CONFIGURED",
            LlmUnavailable::Disabled => "LLM_DISABLED",
            LlmUnavailable::NoApiKey { .. } => "LLM_NO_API_KEY",
            LlmUnavailable::OverBudget { .. } => "LLM_OVER_BUDGET",
            LlmUnavailable::Misconfigured(_) => "LLM_MISCONFIGURED",
            LlmUnavailable::Endpoint(_) => "LLM_ENDPOINT",
            LlmUnavailable::InvalidAnswer(_) => "LLM_INVALID_ANSWER",
            LlmUnavailable::InvalidRequest(_) => "LLM_INVALID_REQUEST",
            LlmUnavailable::Store(_) => "LLM_USAGE_STORE",
        }
    }

    /// What the user can do about it.
    pub fn fix(&self) -> String {
        match self {
            LlmUnavailable::NotConfigured => {
                "nothing needed; to refine with an LLM set llm.provider in the global config (docs/llm.md)".into()
            }
            LlmUnavailable::Disabled => {
                "unset CASS_MEMORY_LLM (or set llm.provider) to allow LLM calls".into()
            }
            LlmUnavailable::NoApiKey { env } => format!(
                "export {env}, or name the variable that holds the key in llm.apiKeyEnv"
            ),
            LlmUnavailable::OverBudget { period, .. } => format!(
                "wait for the next {} period or raise llm.budget.{} in the global config; `cm usage` shows the spend",
                match period {
                    Period::Day => "day's",
                    Period::Month => "month's",
                },
                match period {
                    Period::Day => "dailyLimit",
                    Period::Month => "monthlyLimit",
                }
            ),
            LlmUnavailable::Misconfigured(_) => "fix the llm section of the global config (docs/llm.md)".into(),
            LlmUnavailable::Endpoint(_) => {
                "check the endpoint (llm.baseUrl), the key and the network; the next run tries again".into()
            }
            LlmUnavailable::InvalidAnswer(_) => {
                "try another llm.model; the deterministic result was kept".into()
            }
            LlmUnavailable::InvalidRequest(_) => "report this as a bug in cm".into(),
            LlmUnavailable::Store(_) => "run `cm doctor`".into(),
        }
    }

    /// The entry for a `degraded` field.
    pub fn issue(&self) -> Issue {
        Issue::new(self.code(), &self.to_string(), &self.fix())
    }
}

impl fmt::Display for LlmUnavailable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LlmUnavailable::NotConfigured => f.write_str("no LLM is configured"),
            LlmUnavailable::Disabled => f.write_str("LLM calls are turned off"),
            LlmUnavailable::NoApiKey { env } => write!(f, "no LLM API key: {env} is not set"),
            LlmUnavailable::OverBudget {
                period,
                spent,
                estimate,
                limit,
            } => write!(
                f,
                "the {} LLM budget would be exceeded: ${spent:.4} spent, this call would cost up to ${estimate:.4}, the limit is ${limit:.2}",
                period.name()
            ),
            LlmUnavailable::Misconfigured(m) => {
                write!(f, "the LLM configuration cannot be used: {m}")
            }
            LlmUnavailable::Endpoint(m) => write!(f, "the LLM endpoint failed: {m}"),
            LlmUnavailable::InvalidAnswer(m) => write!(f, "the LLM's answer was unusable: {m}"),
            LlmUnavailable::InvalidRequest(m) => write!(f, "the LLM request is invalid: {m}"),
            LlmUnavailable::Store(m) => write!(f, "the LLM usage ledger is unavailable: {m}"),
        }
    }
}

impl From<crate::error::CmError> for LlmUnavailable {
    fn from(e: crate::error::CmError) -> Self {
        LlmUnavailable::Store(e.message)
    }
}
