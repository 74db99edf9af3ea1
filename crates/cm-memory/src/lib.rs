//! cm-memory, procedural memory: the playbook's rules ("bullets"), their feedback and its decay,
//! maturity, curation, the repository playbook file, and the safety check every learned or
//! imported rule passes. [`playbook::Playbook`] is the handle the layers above use: it merges
//! the personal store with a repository's `.cass/playbook.yaml`. The rule tables and their SQL
//! live here alone (`tables`).

pub mod bullet;
pub mod curate;
pub mod feedback;
pub mod formats;
pub mod health;
pub mod implicit;
pub mod new_rule;
pub mod original_doc;
pub mod parse_limits;
pub mod playbook;
pub mod repo_file;
pub mod safety;
pub mod scoring;
pub mod suggest;
pub mod tables;
pub mod topic_index;
pub mod view;
