//! `degraded` is one shape for every command; it lives in [`crate::degraded`].

pub use crate::degraded::{Degraded, Issue};
