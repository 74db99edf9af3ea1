//! Procedural memory: the playbook's bullets, their scoring and the curation operations.

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
