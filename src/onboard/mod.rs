//! Agent-native onboarding: the agent a person already runs reads their past sessions and
//! writes rules from them, guided by cm. This domain holds what that guidance needs and owns
//! no other part's tables:
//!
//! - `progress`: the sessions marked as read (`onboarding_sessions`), kept across restarts;
//! - `signals`: what a session's text is about (the gap categories, by keywords) and whether
//!   it holds failures and user corrections, free of I/O;
//! - `score`: how worth reading a session is, toward the playbook's gaps.
//!
//! The use cases that combine it with the playbook and the session index live in
//! `app::onboard`.

pub mod progress;
pub mod score;
pub mod signals;
