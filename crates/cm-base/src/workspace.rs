//! What "in a workspace" means wherever a workspace filters something (`--workspace` of
//! history, reflect, diary, validate and onboard; a rule's workspace scope; a session's earlier
//! diary entries): the workspace itself and the directories under it, compared by path
//! components. `/w/app` covers `/w/app` and `/w/app/api`, never `/w/application`.

/// The form a filter is compared in: trailing slashes dropped (`/` becomes the empty string,
/// which covers every absolute path).
pub fn key(filter: &str) -> &str {
    filter.trim_end_matches('/')
}

/// Whether `workspace` is `filter` or a directory under it.
pub fn contains(filter: &str, workspace: &str) -> bool {
    let f = key(filter);
    let w = key(workspace);
    w == f || w.strip_prefix(f).is_some_and(|rest| rest.starts_with('/'))
}

/// The SQL condition "`column` is the workspace `?n` or under it", for a parameter bound to a
/// [`key`]. `substr` compares bytes exactly, so no character of a path (not `%`, not `_`)
/// widens the match the way a `LIKE` pattern would.
pub fn sql(column: &str, n: usize) -> String {
    format!("({column} = ?{n} OR substr({column}, 1, length(?{n}) + 1) = ?{n} || '/')")
}

#[cfg(test)]
mod tests {
    use super::*;
    use rusqlite::Connection;

    #[test]
    fn a_workspace_holds_its_directories_not_its_namesakes() {
        assert!(contains("/w/app", "/w/app"));
        assert!(contains("/w/app/", "/w/app/api"));
        assert!(contains("/w/app", "/w/app/"));
        assert!(!contains("/w/app", "/w/application"));
        assert!(!contains("/w/app/api", "/w/app"));
        assert!(contains("/", "/anything"));
    }

    #[test]
    fn the_sql_condition_agrees_and_takes_wildcards_literally() {
        let conn = Connection::open_in_memory().unwrap();
        let cond = sql("?1", 2);
        let matches = |ws: &str, filter: &str| -> bool {
            conn.query_row(&format!("SELECT {cond}"), [ws, key(filter)], |r| r.get(0))
                .unwrap()
        };
        for (ws, filter) in [
            ("/w/app", "/w/app"),
            ("/w/app/api", "/w/app"),
            ("/w/application", "/w/app"),
            ("/w/app", "/w/app/api"),
            ("/w/a_p/x", "/w/a_p"),
            ("/w/abp/x", "/w/a_p"),
            ("/w/100%/x", "/w/100%"),
            ("/w/100x/x", "/w/100%"),
            ("/anything", "/"),
        ] {
            assert_eq!(
                matches(ws, filter),
                contains(filter, ws),
                "{ws} in {filter}"
            );
        }
    }
}
