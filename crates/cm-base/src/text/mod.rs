//! Text helpers every layer uses and none owns: hashing for cache keys and dedup ids, English
//! stemming and the tokenizer that turns text into index terms. It sits below every domain (the
//! guard, the index, the rankers, the reflector and the services all hash or tokenize), so none
//! of them imports another to get it.

pub mod clip;
pub mod hash;
pub mod stem;
pub mod tokenize;
