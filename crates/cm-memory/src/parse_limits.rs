//! Bounds on a repository playbook's shape, checked before the YAML parser sees it. The file is
//! committed by whoever wrote the repository, and the parser's cost is not linear in its size:
//! 20,000 nested `[` (40 KB) took 13 s to be rejected by its recursion limit, a 200 KB file 35 s,
//! and aliases can make a small file expand into a huge one. A playbook is shallow (document,
//! bullet list, bullet, feedback event: five levels) and uses no aliases, so these limits cost an
//! honest file nothing. The check is one pass over the bytes: it follows block indentation,
//! `- ` items, flow brackets, quotes, comments and block scalars just well enough to count
//! nesting, aliases and nodes, and stops at the first limit passed.

/// The deepest nesting (block levels plus flow brackets) a repository playbook may have.
pub const MAX_DEPTH: usize = 24;
/// The most aliases (`*name`).
pub const MAX_ALIASES: usize = 64;
/// The most nodes (mapping keys, sequence items, flow entries).
pub const MAX_NODES: usize = 300_000;

/// Why `text` is over a limit, if it is.
pub fn check(text: &str) -> Result<(), String> {
    let mut depth_stack: Vec<usize> = Vec::new();
    let (mut aliases, mut nodes) = (0usize, 0usize);
    let mut flow = 0usize;
    let mut block_scalar: Option<usize> = None;
    let mut quote: Option<u8> = None;
    for line in text.lines() {
        let bytes = line.as_bytes();
        let indent = bytes.iter().take_while(|b| **b == b' ').count();
        let blank = bytes[indent..].iter().all(|b| b.is_ascii_whitespace());
        if let Some(at) = block_scalar {
            if blank || indent > at {
                continue;
            }
            block_scalar = None;
        }
        if blank && quote.is_none() {
            continue;
        }
        let mut level = 0;
        if flow == 0 && quote.is_none() {
            if bytes[indent] == b'#' {
                continue;
            }
            while depth_stack.last().is_some_and(|top| *top >= indent) {
                depth_stack.pop();
            }
            depth_stack.push(indent);
            level = depth_stack.len();
        }
        let mut i = indent;
        let mut value_start = quote.is_none();
        while i < bytes.len() {
            let b = bytes[i];
            if let Some(q) = quote {
                if b == q {
                    if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    quote = None;
                } else if b == b'\\' && q == b'"' {
                    i += 1;
                }
                i += 1;
                continue;
            }
            match b {
                b' ' | b'\t' => {}
                b'#' if i == 0 || matches!(bytes[i - 1], b' ' | b'\t') => break,
                b'-' if value_start && matches!(bytes.get(i + 1), None | Some(b' ')) => {
                    level += 1;
                    nodes += 1;
                }
                b'[' | b'{' if value_start || flow > 0 => {
                    flow += 1;
                    value_start = true;
                    nodes += 1;
                    if level + flow > MAX_DEPTH {
                        return Err(over("nesting depth", MAX_DEPTH));
                    }
                    i += 1;
                    continue;
                }
                b']' | b'}' if flow > 0 => {
                    flow -= 1;
                    value_start = false;
                }
                b',' if flow > 0 => {
                    nodes += 1;
                    value_start = true;
                    i += 1;
                    continue;
                }
                b':' if matches!(bytes.get(i + 1), None | Some(b' ')) || flow > 0 => {
                    nodes += 1;
                    value_start = true;
                    i += 1;
                    continue;
                }
                b'\'' | b'"' if value_start => quote = Some(b),
                b'*' if value_start => {
                    aliases += 1;
                    if aliases > MAX_ALIASES {
                        return Err(over("aliases", MAX_ALIASES));
                    }
                }
                b'|' | b'>' if value_start && flow == 0 => {
                    block_scalar = Some(indent);
                    break;
                }
                b'&' | b'!' if value_start => {
                    // An anchor or a tag: its name, then the value.
                    while i < bytes.len() && bytes[i] != b' ' {
                        i += 1;
                    }
                    continue;
                }
                _ => {
                    if value_start && flow == 0 {
                        // A plain scalar: in block context it runs to the end of the line (a
                        // comment or a `: ` key ends it).
                        value_start = false;
                    }
                    if flow == 0 {
                        // Skip to the next `: ` or ` #`.
                        let rest = &line[i..];
                        let stop = rest
                            .find(": ")
                            .or_else(|| rest.strip_suffix(':').map(|r| r.len()))
                            .into_iter()
                            .chain(rest.find(" #"))
                            .min();
                        match stop {
                            Some(s) => {
                                i += s;
                                continue;
                            }
                            None => break,
                        }
                    }
                    value_start = false;
                }
            }
            if level + flow > MAX_DEPTH {
                return Err(over("nesting depth", MAX_DEPTH));
            }
            i += 1;
        }
        if level + flow > MAX_DEPTH {
            return Err(over("nesting depth", MAX_DEPTH));
        }
        nodes += 1;
        if nodes > MAX_NODES {
            return Err(over("nodes", MAX_NODES));
        }
    }
    Ok(())
}

fn over(what: &str, limit: usize) -> String {
    format!("more than {limit} {what} (a repository playbook is read with limits on its shape)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn honest_playbooks_pass() {
        let yaml = "schemaVersion: 2\nname: repository\n# a comment with [ and *\nbullets:\n- id: b-1\n  content: 'Don''t use moment: [x] *y* {z'\n  tags: [a, b, {c: d}]\n  reasoning: |\n    [[[[ not flow\n    *not an alias\n  feedbackEvents:\n  - id: f1\n    type: helpful\n- id: b-2\n  content: Use a[0 and b{ in plain text; it's fine #not a comment\n  category: \"x [y\"\n";
        assert_eq!(check(yaml), Ok(()));
        for starter in [
            include_str!("../../../starters/general.yaml"),
            include_str!("../../../starters/python.yaml"),
        ] {
            assert_eq!(check(starter), Ok(()));
        }
    }

    #[test]
    fn nesting_aliases_and_size_are_bounded() {
        let flow = format!("bullets: {}{}\n", "[".repeat(20_000), "]".repeat(20_000));
        assert!(check(&flow).unwrap_err().contains("nesting depth"));
        let block: String = (0..40).map(|i| format!("{}a:\n", "  ".repeat(i))).collect();
        assert!(check(&block).unwrap_err().contains("nesting depth"));
        let dashes = format!("x:\n{}y\n", "- ".repeat(40));
        assert!(check(&dashes).unwrap_err().contains("nesting depth"));
        let mut laughs = String::from("a: &a [x, x]\n");
        for i in 0..100 {
            laughs.push_str(&format!("b{i}: [*a, *a]\n"));
        }
        assert!(check(&laughs).unwrap_err().contains("aliases"));
        let wide = format!("x: [{}]\n", "1,".repeat(MAX_NODES + 1));
        assert!(check(&wide).unwrap_err().contains("nodes"));
        let ok: String = (0..23).map(|i| format!("{}a:\n", "  ".repeat(i))).collect();
        assert_eq!(check(&ok), Ok(()));
    }
}
