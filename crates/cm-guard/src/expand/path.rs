//! One spelling for a path, so the rules see what it names: `/etc/../*` is `/*`, `/tmp/../etc`
//! is `/etc`, the home directory (however it was reached) is `~`, the agent's working directory
//! is `.` and its ancestors `..`, `../..`. A relative path is left as written unless, from the
//! working directory the line is in, it names a protected place (`..` from a project directly
//! in the home directory is `~`; `*` after `cd ~` is `~/*`).

use super::State;

/// `~`, `~/x` and `/x` as an absolute path (the home directory as the line sees it, `~` when
/// unknown); `None` for a relative path.
pub fn rooted(t: &str, st: &State) -> Option<String> {
    if t == "~" || t.starts_with("~/") {
        Some(format!("{}{}", st.home(), &t[1..]))
    } else if t.starts_with('/') {
        Some(t.to_string())
    } else {
        None
    }
}

/// A path made absolute and lexically normalised (`~`, `.`, `..`, repeated slashes) against the state's working directory.
pub fn canonical(t: &str, st: &State) -> String {
    if t.is_empty() {
        return String::new();
    }
    // `of=/dev/./sda`: the path after a `key=`.
    if let Some((key, rest)) = t.split_once('=')
        && !key.is_empty()
        && key.bytes().all(|b| b.is_ascii_lowercase())
        && (rest.starts_with('/') || rest.starts_with('~'))
    {
        return format!("{key}={}", canonical(rest, st));
    }
    let home = st.home();
    let Some(abs) = rooted(t, st) else {
        return relative(t, st);
    };
    let trailing = t.len() > 1 && t.ends_with('/');
    if abs.contains(['$', '`']) {
        // Unknown parts may hold slashes: only the home prefix is certain.
        return render_home(&abs, &home).unwrap_or(abs);
    }
    let norm = normalise(&abs);
    let mut out = render(&norm, st);
    if trailing && !out.ends_with('/') {
        out.push('/');
    }
    out
}

/// A relative path: itself, or the protected place it names from the working directory.
fn relative(t: &str, st: &State) -> String {
    let Some(cwd) = &st.cwd else {
        return t.to_string();
    };
    let path_like = t.starts_with('.') || t.contains('/') || t == "*";
    if !path_like || t.contains(['$', '`']) || t.starts_with('-') {
        return t.to_string();
    }
    let norm = normalise(&format!("{cwd}/{t}"));
    if protected(&norm, st) {
        render(&norm, st)
    } else {
        t.to_string()
    }
}

/// `.` and empty components dropped, `..` applied (never above the root). Works on `~/...` too.
pub fn normalise(p: &str) -> String {
    let (root, rest) = match p.strip_prefix('~') {
        Some(r) => ("~", r),
        None => ("", p),
    };
    let mut comps: Vec<&str> = Vec::new();
    for c in rest.split('/') {
        match c {
            "" | "." => {}
            ".." => {
                comps.pop();
            }
            c => comps.push(c),
        }
    }
    if comps.is_empty() {
        return if root.is_empty() {
            "/".into()
        } else {
            root.into()
        };
    }
    format!("{root}/{}", comps.join("/"))
}

fn render_home(abs: &str, home: &str) -> Option<String> {
    if home.starts_with('/') && home != "/" {
        if abs == home {
            return Some("~".into());
        }
        if let Some(rest) = abs.strip_prefix(home).filter(|r| r.starts_with('/')) {
            return Some(format!("~{rest}"));
        }
    }
    None
}

/// The spelling the rules know: `/`, `~`, `.`, `..`, `~/...`, or the absolute path.
fn render(norm: &str, st: &State) -> String {
    if norm == "/" || norm.starts_with('~') {
        return norm.to_string();
    }
    let home = st.home();
    if norm == home {
        return "~".into();
    }
    if depth(norm) > 1
        && let Some(cwd) = &st.ctx.cwd
    {
        if norm == cwd {
            return ".".into();
        }
        if let Some(rest) = cwd.strip_prefix(norm).filter(|r| r.starts_with('/')) {
            return vec![".."; depth(rest)].join("/");
        }
    }
    render_home(norm, &home).unwrap_or_else(|| norm.to_string())
}

fn depth(p: &str) -> usize {
    p.split('/').filter(|c| !c.is_empty()).count()
}

/// Would deleting this (normalised, absolute) path hurt more than the project?
fn protected(norm: &str, st: &State) -> bool {
    if norm == "/" || depth(norm) == 1 {
        return true;
    }
    let top = norm.split('/').nth(1).unwrap_or("");
    if depth(norm) == 2 && matches!(top, "usr" | "var" | "etc" | "home" | "Users") {
        return true;
    }
    let home = st.home();
    if let Some(rest) = norm.strip_prefix(&home).filter(|_| home.starts_with('/'))
        && (rest.is_empty() || (rest.starts_with('/') && depth(rest) <= 1))
    {
        return true;
    }
    match &st.ctx.cwd {
        Some(cwd) => norm == cwd || cwd.starts_with(&format!("{norm}/")),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::Context;
    use super::*;

    fn st(home: Option<&str>, cwd: Option<&str>) -> State {
        State::new(&Context {
            home: home.map(String::from),
            cwd: cwd.map(String::from),
        })
    }

    #[test]
    fn paths_get_one_spelling() {
        let s = st(Some("/home/u"), Some("/home/u/app"));
        for (input, want) in [
            ("/etc/../*", "/*"),
            ("/tmp/../etc", "/etc"),
            ("//etc/./", "/etc/"),
            ("/home/u", "~"),
            ("/home/u/.ssh/", "~/.ssh/"),
            ("~/x/../.ssh", "~/.ssh"),
            ("/home/u/app", "."),
            ("/home/u/app/src", "~/app/src"),
            ("..", "~"),
            ("../x", "~/x"),
            ("build/../..", "~"),
            ("build", "build"),
            ("./target/debug", "./target/debug"),
            ("of=/dev/./sda", "of=/dev/sda"),
            ("/home/u/$X", "~/$X"),
            ("-rf", "-rf"),
        ] {
            assert_eq!(canonical(input, &s), want, "{input}");
        }
        let s = st(Some("/root"), Some("/srv/work/app"));
        assert_eq!(canonical("/srv/work/app", &s), ".");
        assert_eq!(canonical("/srv/work", &s), "..");
        assert_eq!(canonical("../..", &s), "/srv");
        assert_eq!(canonical("../../..", &s), "/");
        let unknown = st(None, None);
        assert_eq!(canonical("~/a/../b", &unknown), "~/b");
        assert_eq!(canonical("..", &unknown), "..");
    }
}
