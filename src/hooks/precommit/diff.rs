//! Reading the added lines out of `git diff --cached -U0` output. Pure: text in, lines out.

/// One added line of the staged diff.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Added<'a> {
    /// Path relative to the repository root, as git names it.
    pub file: String,
    /// 1-based line number in the staged version of the file.
    pub line: u32,
    pub text: &'a str,
}

/// The diff's bytes as text. A file git was made to show as text (`--text`) may be UTF-16,
/// where every ASCII character carries a NUL byte beside it (`t\0o\0k\0e\0n\0`); dropping the
/// NUL bytes decodes what a secret is made of (ASCII), and changes nothing in UTF-8 text, which
/// holds none. What is not UTF-8 after that is replaced, as before.
pub fn as_text(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    if memchr::memchr(0, bytes).is_none() {
        return String::from_utf8_lossy(bytes);
    }
    let kept: Vec<u8> = bytes.iter().copied().filter(|&b| b != 0).collect();
    std::borrow::Cow::Owned(String::from_utf8_lossy(&kept).into_owned())
}

/// Every added line, in diff order. Removed lines, headers and binary files yield nothing.
pub fn added_lines(diff: &str) -> Vec<Added<'_>> {
    let mut out = Vec::new();
    let mut file: Option<String> = None;
    let mut next_line: u32 = 0;
    let mut in_hunk = false;
    for raw in diff.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if line.starts_with("diff --git ") {
            in_hunk = false;
            file = None;
            continue;
        }
        if !in_hunk {
            if let Some(rest) = line.strip_prefix("+++ ") {
                file = parse_path(rest);
            } else if let Some(rest) = line.strip_prefix("@@ ") {
                next_line = hunk_start(rest).unwrap_or(1);
                in_hunk = true;
            }
            continue;
        }
        if let Some(rest) = line.strip_prefix("@@ ") {
            next_line = hunk_start(rest).unwrap_or(1);
        } else if let Some(text) = line.strip_prefix('+') {
            if let Some(f) = &file {
                out.push(Added {
                    file: f.clone(),
                    line: next_line,
                    text,
                });
            }
            next_line += 1;
        } else if line.starts_with(' ') {
            next_line += 1;
        }
        // '-' lines and "\ No newline at end of file" do not move the new-file counter.
    }
    out
}

/// `-a,b +c,d @@ ...` -> c.
fn hunk_start(rest: &str) -> Option<u32> {
    let plus = rest.split_whitespace().find(|w| w.starts_with('+'))?;
    plus[1..].split(',').next()?.parse().ok()
}

/// The path on a `+++ ` line: `b/path`, a C-quoted `"b/pa\"th"`, or `/dev/null` (deleted).
fn parse_path(rest: &str) -> Option<String> {
    let rest = rest.strip_suffix('\t').unwrap_or(rest);
    if rest == "/dev/null" {
        return None;
    }
    let unquoted = if rest.starts_with('"') && rest.ends_with('"') && rest.len() >= 2 {
        unquote(&rest[1..rest.len() - 1])
    } else {
        rest.to_string()
    };
    Some(
        unquoted
            .strip_prefix("b/")
            .map(str::to_string)
            .unwrap_or(unquoted),
    )
}

/// Undo git's C-style quoting: `\"`, `\\`, `\t`, `\n` and octal bytes (`\303\251`).
fn unquote(s: &str) -> String {
    let mut bytes = Vec::with_capacity(s.len());
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && i + 1 < b.len() {
            let c = b[i + 1];
            match c {
                b'0'..=b'7'
                    if i + 3 < b.len()
                        && b[i + 1..i + 4].iter().all(|d| (b'0'..=b'7').contains(d)) =>
                {
                    let v = (b[i + 1] - b'0') as u32 * 64
                        + (b[i + 2] - b'0') as u32 * 8
                        + (b[i + 3] - b'0') as u32;
                    bytes.push(v as u8);
                    i += 4;
                    continue;
                }
                b'n' => bytes.push(b'\n'),
                b't' => bytes.push(b'\t'),
                b'r' => bytes.push(b'\r'),
                b'a' => bytes.push(7),
                b'b' => bytes.push(8),
                b'f' => bytes.push(12),
                b'v' => bytes.push(11),
                other => bytes.push(other),
            }
            i += 2;
        } else {
            bytes.push(b[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "diff --git a/src/app.py b/src/app.py
index 83db48f..bf269f4 100644
--- a/src/app.py
+++ b/src/app.py
@@ -3,0 +4,2 @@ import os
+KEY = 'a'
+++not_a_header = 1
@@ -10 +12 @@ def f():
-old = 1
+new = 2
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git \"a/caf\\303\\251 \\\"x\\\".txt\" \"b/caf\\303\\251 \\\"x\\\".txt\"
new file mode 100644
--- /dev/null
+++ \"b/caf\\303\\251 \\\"x\\\".txt\"
@@ -0,0 +1 @@
+hello
\\ No newline at end of file
diff --git a/img.png b/img.png
Binary files a/img.png and b/img.png differ
";

    #[test]
    fn reads_files_line_numbers_and_quoted_paths() {
        let got: Vec<(String, u32, &str)> = added_lines(DIFF)
            .into_iter()
            .map(|a| (a.file, a.line, a.text))
            .collect();
        assert_eq!(
            got,
            vec![
                ("src/app.py".to_string(), 4, "KEY = 'a'"),
                ("src/app.py".to_string(), 5, "++not_a_header = 1"),
                ("src/app.py".to_string(), 12, "new = 2"),
                ("café \"x\".txt".to_string(), 1, "hello"),
            ]
        );
    }
}
