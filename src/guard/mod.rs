//! The trauma guard: recognising destructive commands before an agent runs them.

pub mod user_traumas;
pub mod scan;
