//! Counts that must be at least 1 (`cm top 0`, `--limit 0`): zero would answer "nothing" as if
//! it were a result, so the parser refuses it (INVALID_ARGUMENT, exit 3) and says why.

/// A whole number >= 1.
pub fn count(s: &str) -> Result<usize, String> {
    match s.trim().parse::<usize>() {
        Ok(0) => Err("must be at least 1 (0 would return nothing)".into()),
        Ok(n) => Ok(n),
        Err(e) => Err(e.to_string()),
    }
}
