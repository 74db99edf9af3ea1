//! Segments that change nothing whatever verb they name: a request for help or a dry run.
//!
//! `az group delete --name rg --help` prints a page; `kubectl delete ns x --dry-run=client`,
//! `azcopy remove URL --recursive --dry-run` and `duplicacy prune -dry-run` only report what
//! would go. Judging such a line by its verb refuses the very command an agent uses to look
//! before it deletes, so a help or dry-run flag among the options (before a bare `--`, after
//! which it would be an operand) makes the segment inert for every rule. A tool that does not
//! know the flag refuses to start, which deletes nothing either. A flag that switches the dry
//! run off (`--dry-run=none`, `=false`) does not count, nor does the value of a one-letter
//! option (`curl -d --help` sends the text `--help`).

/// Does this shell segment only print help or simulate?
pub fn inert(text: &str) -> bool {
    let mut prev = "";
    for tok in text.split_ascii_whitespace().skip(1) {
        if tok == "--" {
            return false;
        }
        if !takes_value(prev) && is_inert_flag(tok) {
            return true;
        }
        prev = tok;
    }
    false
}

/// A one-letter option or a long option known to take the next word as its value.
fn takes_value(prev: &str) -> bool {
    let b = prev.as_bytes();
    (b.len() == 2 && b[0] == b'-' && b[1].is_ascii_alphabetic())
        || matches!(
            prev,
            "--data"
                | "--data-raw"
                | "--data-binary"
                | "--header"
                | "--eval"
                | "--command"
                | "--execute"
                | "--body"
                | "--message"
                | "--comment"
                | "--description"
        )
}

fn is_inert_flag(tok: &str) -> bool {
    let lower = tok.to_ascii_lowercase();
    if let Some(value) = lower
        .strip_prefix("--dry-run=")
        .or_else(|| lower.strip_prefix("-dry-run="))
        .or_else(|| lower.strip_prefix("--dryrun="))
    {
        return !matches!(value, "none" | "false" | "0" | "no" | "off" | "");
    }
    matches!(
        lower.as_str(),
        "--help"
            | "--dry-run"
            | "--dryrun"
            | "--dry_run"
            | "-dry-run"
            | "-dryrun"
            | "--what-if"
            | "--whatif"
            | "-whatif"
    )
}

#[cfg(test)]
mod tests {
    use super::inert;

    #[test]
    fn help_and_dry_runs_are_inert_but_not_as_operands_or_values() {
        assert!(inert("tool thing delete --name x --help"));
        assert!(inert("tool prune -keep 3 -dry-run"));
        assert!(inert("kubectl delete ns x --dry-run=client"));
        assert!(!inert("kubectl delete ns x --dry-run=none"));
        assert!(!inert("rm -rf -- --help"));
        assert!(!inert("curl -X DELETE https://h/x -d --help"));
        assert!(!inert("tool delete everything"));
    }
}
