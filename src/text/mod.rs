//! Text helpers every layer uses and none owns: hashing for cache keys and dedup ids. It sits
//! below every domain (the guard, the index and the services all hash), so none of them imports
//! another to get it; the stemmer and tokenizer are to join it (docs/crates-plan.md).

pub mod hash;
