//! What a learned rule must never say, whatever the session claims. A session is untrusted
//! text (a user line, or text an agent pasted, can be written to plant a rule), so every
//! proposed rule passes the playbook's one safety check ([`crate::memory::safety`]) before the
//! curator sees it, and diary lines lose what carries a credential or an injection.

pub use crate::memory::safety::{refusal, scrub};
