//! `cm doctor`: self-checks a user (or `install.sh --verify`) can trust.
//!
//! Each check says ok, warn or fail, with a hint. The command exits 1 when any check fails, so
//! scripts can rely on the exit code; the JSON still carries every check (`data.healthy`).

use super::Ctx;
use crate::error::Result;
use crate::output::{Report, Style, paint};
use crate::paths;
use serde::Serialize;
use serde_json::json;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[derive(clap::Args, Debug)]
pub struct Args {
    /// Apply the safe repairs of what the checks find (each one undoable), then check again.
    #[arg(long)]
    fix: bool,
    /// With --fix: say what would be repaired, change nothing.
    #[arg(long, requires = "fix")]
    dry_run: bool,
    /// Also exercise the engine in a throwaway directory: the guard's verdicts, redaction, a
    /// scratch store, the decay arithmetic.
    #[arg(long)]
    self_test: bool,
}

/// The repairs `--fix` applies, before the checks run (so the checks show the state after).
fn repairs(dry: bool, ctx: &Ctx, exe: &Path) -> Vec<crate::app::repair::Repair> {
    use crate::app::repair;
    let mut out = repair::data_dir(dry);
    // Links only where none answers: not beside the binary and not on PATH (or beside it but
    // dangling).
    let wanted: Vec<&str> = LINKS
        .iter()
        .copied()
        .filter(|n| which(n).is_none() || !exe.with_file_name(n).exists())
        .filter(|n| which(n).is_none() || std::fs::symlink_metadata(exe.with_file_name(n)).is_ok())
        .collect();
    out.extend(repair::links(exe, &wanted, dry));
    let will_exist: Vec<PathBuf> = wanted.iter().map(|n| exe.with_file_name(n)).collect();
    out.extend(repair::hooks(&ctx.cwd, exe, &will_exist, dry));
    // A dry run opens no store it would have to create; the real run creates it (with the data
    // dir) and indexes into it, so the dry run lists that index.
    if dry && !paths::db_path().exists() {
        out.push(repair::index_new_store(true, || Ok(())));
    } else if paths::data_dir().exists()
        && let Ok(store) = ctx.store()
    {
        if let Ok(cfg) = ctx.config() {
            out.extend(repair::original_store(store, cfg, dry));
        }
        out.extend(repair::store_upkeep(store, dry, || {
            let connectors = crate::episodic::connectors::all();
            let refs: Vec<&dyn crate::episodic::connectors::Connector> =
                connectors.iter().map(|c| c.as_ref()).collect();
            let request = crate::app::index_sessions::IndexRequest {
                connectors: &refs,
                places: &crate::episodic::connectors::Places::of_process(),
                file: None,
                agent: None,
                full: false,
                threads: 0,
                limits: super::history::index::limits(ctx)?,
                progress: None,
            };
            crate::app::index_sessions::run(request, || ctx.store()).map(drop)
        }));
    }
    out
}

#[derive(Serialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

#[derive(Serialize)]
pub struct Check {
    pub name: &'static str,
    /// install, config, storage, history, hooks or self-test.
    pub category: &'static str,
    pub status: Status,
    pub message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hint: Option<String>,
}

pub(super) fn check(
    name: &'static str,
    status: Status,
    message: impl Into<String>,
    hint: Option<&str>,
) -> Check {
    Check {
        name,
        category: category_of(name),
        status,
        message: message.into(),
        hint: hint.map(str::to_string),
    }
}

/// The group a check belongs to, so a reader (or an agent) can see which part is unwell.
fn category_of(name: &str) -> &'static str {
    match name {
        "binary" | "cm-pretool" | "cm-postsession" | "cm-precommit" => "install",
        "config" | "guard config" => "config",
        "data dir" | "store" => "storage",
        "session index" => "history",
        "hooks" => "hooks",
        _ => "self-test",
    }
}

/// The hook links that must sit beside the binary (or on PATH).
pub const LINKS: &[&str] = &["cm-pretool", "cm-postsession", "cm-precommit"];

pub fn run(args: &Args, ctx: &Ctx) -> Result<Report> {
    let mut checks = Vec::new();
    let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("cm"));
    let repairs = if args.fix {
        Some(repairs(args.dry_run, ctx, &exe))
    } else {
        None
    };
    checks.push(check(
        "binary",
        Status::Ok,
        format!("cm {} at {}", crate::output::VERSION, exe.display()),
        None,
    ));
    for link in LINKS {
        checks.push(check_link(&exe, link));
    }
    checks.push(check_data_dir());
    match crate::config::load_quiet(&ctx.cwd) {
        Ok(l) if l.warnings.is_empty() => {
            checks.push(check("config", Status::Ok, describe_config(&l), None))
        }
        Ok(l) => checks.push(check(
            "config",
            Status::Warn,
            l.warnings.join("; "),
            Some("remove those keys from the repository config"),
        )),
        Err(e) => checks.push(check(
            "config",
            Status::Fail,
            e.message.clone(),
            e.hint.as_deref(),
        )),
    }
    checks.push(check_guard_config());
    // Checking must not create what it checks: without a store there is nothing to open.
    let store_exists = paths::db_path().exists();
    if !store_exists {
        checks.push(check(
            "store",
            Status::Warn,
            format!("{} does not exist yet", paths::db_path().display()),
            Some("run `cm init` (or `cm doctor --fix`)"),
        ));
    }
    let opened = if store_exists {
        Some(ctx.store().and_then(|s| s.check_integrity().map(|_| s)))
    } else {
        None
    };
    match opened {
        None => {}
        Some(Ok(store)) => {
            let count = crate::memory::playbook::Playbook::open(store, &ctx.cwd)
                .personal_count()
                .unwrap_or(-1);
            checks.push(check(
                "store",
                Status::Ok,
                format!(
                    "{} (schema v{}, {count} rules)",
                    store.path.display(),
                    store.schema_version()
                ),
                None,
            ));
        }
        Some(Err(e)) => checks.push(check(
            "store",
            Status::Fail,
            e.message.clone(),
            e.hint.as_deref(),
        )),
    }
    if store_exists && let Ok(store) = ctx.store() {
        checks.push(check_index(store));
    }
    checks.push(check_hooks(&ctx.cwd));
    if let Some(c) = check_original(ctx, store_exists) {
        checks.push(c);
    }
    if args.self_test {
        checks.extend(super::doctor_self_test::run());
    }
    // What `--fix` would repair now (after this run's repairs, when it made any).
    let fixable: Vec<serde_json::Value> = if args.fix && args.dry_run {
        Vec::new()
    } else {
        self::repairs(true, ctx, &exe)
            .into_iter()
            .map(|r| json!({"check": r.check, "action": r.action}))
            .collect()
    };
    let healthy = checks.iter().all(|c| c.status != Status::Fail);
    let mut human = String::new();
    for c in &checks {
        let tag = match c.status {
            Status::Ok => paint("ok  ", Style::Green),
            Status::Warn => paint("warn", Style::Yellow),
            Status::Fail => paint("FAIL", Style::Red),
        };
        human.push_str(&format!("{tag}  {:<16} {}\n", c.name, c.message));
        if let (Some(h), true) = (&c.hint, c.status != Status::Ok) {
            human.push_str(&format!("      {:<16} hint: {h}\n", ""));
        }
    }
    let warnings = checks.iter().filter(|c| c.status == Status::Warn).count();
    human.push_str(&match (healthy, warnings) {
        (true, 0) => "All checks passed.\n".to_string(),
        (true, n) => format!("No check failed; {n} warning(s) above.\n"),
        (false, _) => "Some checks failed.\n".to_string(),
    });
    if let Some(list) = &repairs {
        let mut h = String::new();
        if list.is_empty() {
            h.push_str("Nothing to repair.\n");
        }
        for r in list {
            let tag = match r.outcome {
                "done" => "fixed",
                "would" => "would",
                _ => "FAILED",
            };
            h.push_str(&format!("{tag}  {:<16} {}", r.check, r.action));
            if let Some(e) = &r.error {
                h.push_str(&format!(": {e}"));
            }
            h.push('\n');
        }
        if args.dry_run {
            h.push_str("(dry run: nothing was changed; the checks below are as things stand)\n");
        }
        h.push('\n');
        human.insert_str(0, &h);
    }
    if !fixable.is_empty() && !args.fix {
        human.push_str(&format!(
            "`cm doctor --fix` would repair {} of these (`--fix --dry-run` lists them).\n",
            fixable.len()
        ));
    }
    let mut data = json!({"healthy": healthy, "checks": checks, "fixable": fixable});
    if let Some(list) = &repairs {
        data["repairs"] = json!(list);
        data["dryRun"] = json!(args.dry_run);
    }
    let mut report = Report::new(data).human(human);
    report.quiet = if healthy { "ok".into() } else { "fail".into() };
    if !healthy {
        report.exit = 1;
    }
    Ok(report)
}

fn describe_config(l: &crate::config::Loaded) -> String {
    let mut s = if l.global_path.exists() {
        format!("{} parses", l.global_path.display())
    } else {
        format!("defaults ({} absent)", l.global_path.display())
    };
    if let Some(r) = &l.repo_path {
        s.push_str(&format!("; repo {}", r.display()));
    }
    s
}

/// A link passes when it exists beside the binary (or on PATH) and dispatches to its hook:
/// fed an empty payload it must exit 0 and print nothing.
fn check_link(exe: &Path, name: &'static str) -> Check {
    let beside = exe.with_file_name(name);
    let path = if beside.exists() {
        Some(beside)
    } else {
        which(name)
    };
    let Some(path) = path else {
        return check(
            name,
            Status::Warn,
            "not installed",
            Some("run ./install.sh to create the hook links"),
        );
    };
    let out = Command::new(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .output();
    match out {
        Ok(o) if o.status.success() && o.stdout.is_empty() => check(
            name,
            Status::Ok,
            format!("{} dispatches", path.display()),
            None,
        ),
        Ok(o) => check(
            name,
            Status::Fail,
            format!(
                "{} did not behave as a hook (exit {:?})",
                path.display(),
                o.status.code()
            ),
            Some("reinstall with ./install.sh"),
        ),
        Err(e) => check(
            name,
            Status::Fail,
            format!("cannot run {}: {e}", path.display()),
            Some("reinstall with ./install.sh"),
        ),
    }
}

/// A store the original tool left (`~/.cass-memory/playbook.yaml`, its diary): imported, or
/// what is waiting. No check at all when there is none.
fn check_original(ctx: &Ctx, store_exists: bool) -> Option<Check> {
    let cfg = ctx.config().ok()?;
    let store = if store_exists { ctx.store().ok() } else { None };
    let (found, pending) = crate::app::from_original::pending(store, cfg)?;
    let dir = found.dir.display();
    let hint = Some("run `cm import --from-original` (add --dry-run to see what it brings)");
    Some(match pending {
        Some(p) if !p.changed => check(
            "original store",
            Status::Ok,
            format!("the original tool's store in {dir} is imported"),
            None,
        ),
        Some(p) => check(
            "original store",
            Status::Warn,
            format!(
                "the original tool's store in {dir} holds {} rule(s), {} diary entr(ies) and {} config key(s) cm does not have yet",
                p.rules.added,
                p.diary.added,
                p.config.mapped.len()
            ),
            hint,
        ),
        None => check(
            "original store",
            Status::Warn,
            format!(
                "the original tool's store in {dir} ({}) is not imported",
                found.describe()
            ),
            hint,
        ),
    })
}

/// The session index: present, and refreshed within the last two days.
fn check_index(store: &crate::store::Store) -> Check {
    let st = crate::episodic::sessions::status(store);
    if st.messages == 0 {
        return check(
            "session index",
            Status::Warn,
            "empty: no agent session has been indexed yet",
            Some("run `cm history index` (and `cm hooks install` to keep it current)"),
        );
    }
    let when = st.last_indexed_at.clone().unwrap_or_default();
    let age_h = crate::clock::parse(&when)
        .map(|t| (crate::clock::now() - t).num_hours())
        .unwrap_or(i64::MAX);
    let msg = format!(
        "{} messages in {} sessions, last indexed {when}",
        st.messages, st.sessions
    );
    if age_h > 48 {
        check(
            "session index",
            Status::Warn,
            format!("{msg} (stale)"),
            Some("run `cm history index`"),
        )
    } else {
        check("session index", Status::Ok, msg, None)
    }
}

/// Which agents run cm's hooks, and whether every hook command still points at a program.
fn check_hooks(cwd: &Path) -> Check {
    use crate::install::{Scope, project_root, status};
    let root = project_root(cwd);
    let twice = crate::install::duplicates(&root);
    if !twice.is_empty() {
        return check(
            "hooks",
            Status::Fail,
            format!(
                "cm's hooks run twice: {}",
                twice
                    .iter()
                    .map(|d| d.describe())
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            Some(
                "keep one set: `cm hooks uninstall --project` in this repository (the user-level \
                 hooks run here anyway), or remove the extra entry by hand",
            ),
        );
    }
    let mut installed = Vec::new();
    let mut dead = Vec::new();
    let mut untrusted = Vec::new();
    for agent in crate::install::AGENTS {
        for scope in [Scope::User, Scope::Project] {
            let st = status(agent, scope, &root);
            if let Some(e) = st.error {
                return check(
                    "hooks",
                    Status::Warn,
                    e,
                    Some("fix that settings file by hand"),
                );
            }
            if !st.handlers.is_empty() {
                let where_ = if scope == Scope::User {
                    "user"
                } else {
                    "project"
                };
                installed.push(format!("{} ({where_})", agent.slug()));
            }
            dead.extend(
                st.handlers
                    .iter()
                    .filter(|h| !h.program_found)
                    .map(|h| h.found.command.clone()),
            );
            untrusted.extend(
                st.trust
                    .iter()
                    .filter(|t| t.trust != crate::install::codex_trust::Trust::Approved)
                    .map(|t| {
                        format!(
                            "{} ({})",
                            t.event,
                            serde_json::json!(t.trust).as_str().unwrap_or("")
                        )
                    }),
            );
        }
    }
    if !untrusted.is_empty() {
        return check(
            "hooks",
            Status::Warn,
            format!(
                "Codex does not run cm's hooks it has not trusted: {}",
                untrusted.join(", ")
            ),
            Some(
                "start `codex` and choose \"Trust all and continue\" (or \"Review hooks\"); Codex asks again whenever a hook's command changes",
            ),
        );
    }
    if !dead.is_empty() {
        return check(
            "hooks",
            Status::Warn,
            format!(
                "hook commands whose program is missing: {}",
                dead.join(", ")
            ),
            Some("reinstall with `cm hooks install` after moving cm"),
        );
    }
    if installed.is_empty() {
        check(
            "hooks",
            Status::Warn,
            "no agent runs cm's hooks yet",
            Some("run `cm hooks install`"),
        )
    } else {
        check(
            "hooks",
            Status::Ok,
            format!("installed for {}", installed.join(", ")),
            None,
        )
    }
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .find(|c| c.is_file())
        })
        .unwrap_or(None)
}

fn check_data_dir() -> Check {
    let dir = paths::data_dir();
    if !dir.exists() {
        return check(
            "data dir",
            Status::Warn,
            format!("{} does not exist yet", dir.display()),
            Some("run `cm init`"),
        );
    }
    let probe = dir.join(format!(".doctor-{}", std::process::id()));
    match std::fs::write(&probe, b"ok") {
        Ok(()) => {
            let _ = std::fs::remove_file(&probe);
            check(
                "data dir",
                Status::Ok,
                format!("{} is writable", dir.display()),
                None,
            )
        }
        Err(e) => check(
            "data dir",
            Status::Fail,
            format!("{} is not writable: {e}", dir.display()),
            Some("fix its permissions or set CASS_MEMORY_HOME"),
        ),
    }
}

/// The global `guard` section as the hook reads it: a broken one is named, with the kept copy
/// the hook falls back to.
fn check_guard_config() -> Check {
    use crate::guard::{config_cache, policy_file};
    let path = paths::global_config_path();
    match policy_file::read_section(&path) {
        policy_file::Section::Missing => check("guard config", Status::Ok, "defaults", None),
        policy_file::Section::Parsed(g, _) => check(
            "guard config",
            Status::Ok,
            format!(
                "{} ({} allow entries, {} protected paths, fail {})",
                path.display(),
                g.allow.len(),
                g.protected_paths.len(),
                if g.fail_closed == Some(true) {
                    "closed"
                } else {
                    "open"
                }
            ),
            None,
        ),
        policy_file::Section::Broken(why) => {
            let fallback = match config_cache::recall(&path) {
                Some((_, at, _)) => {
                    format!("the guard hook uses its settings as they last parsed ({at})")
                }
                None => "the guard hook has no earlier settings to use, so none apply".to_string(),
            };
            check(
                "guard config",
                Status::Fail,
                format!("{why}; {fallback}"),
                Some("fix the file by hand; cm never rewrites a config it cannot parse"),
            )
        }
    }
}
