//! Reading the user's guard policy from disk: the `guard` section of the global
//! `<data dir>/config.json` and of the project's `.cass/config.json` (else its `.cass/config.yaml`
//! or `.yml`, parsed only when it exists), and the trauma files
//! (`<data dir>/traumas.jsonl`, `<repo>/.cass/traumas.jsonl`). The guard's one I/O edge.
//!
//! The hook reads in two steps, so the common case stays cheap:
//! - [`load_traumas`] before matching: a `stat` of each trauma file (the project's `.cass/` is
//!   found by walking up from the payload's `cwd` to the git root). Missing files cost nothing
//!   more; present ones are read and parsed (they are small JSON Lines files).
//! - [`apply_config`] only once something would be denied, or for a Write/Edit tool call when
//!   protected paths matter: the config files are deserialized into a struct holding only the
//!   `guard` section (other keys are skipped by the parser, no JSON tree is built).
//!
//! Merging: lists (`disabledPacks`, `enabledPacks`, `allow`, `protectedPaths`) are the union
//! of both files; `failClosed` is on if either file turns it on. The project file can only
//! tighten the guard (it is committed, so anyone with push access would otherwise be able to
//! switch it off): its `disabledPacks` and every allow entry it holds are ignored with a
//! warning. A global entry with `"scope": "project"` applies only under its `"project"`
//! directory; that is how a user allows something in one repository.

use super::config_cache;
use super::policy::{AllowEntry, AllowScope, Policy};
use super::trauma_cache::{self, Limits};
use super::user_traumas::{self, Trauma};
use cm_base::error::{CmError, Result};
use cm_base::paths;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// The `guard` config section.
#[derive(Debug, Clone, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct GuardSection {
    /// Packs turned off.
    pub disabled_packs: Vec<String>,
    /// Packs turned on (the ones off by default).
    pub enabled_packs: Vec<String>,
    /// Entries that let a command or rule through.
    pub allow: Vec<AllowEntry>,
    /// Refuse a command the guard could not finish reading.
    pub fail_closed: Option<bool>,
    /// Globs of paths an agent's writes may not touch.
    pub protected_paths: Vec<String>,
}

#[derive(Deserialize)]
struct Root {
    #[serde(default)]
    guard: Option<GuardSection>,
}

/// The files a policy came from, and what could not be read.
#[derive(Debug, Default)]
pub struct Sources {
    /// The config files read.
    pub config_files: Vec<PathBuf>,
    /// The trauma files read.
    pub trauma_files: Vec<PathBuf>,
    /// What could not be read, naming the file.
    pub warnings: Vec<String>,
}

/// Everything: config sections and traumas (what `cm guard check` uses).
pub fn load(cwd: &Path) -> (Policy, Sources) {
    let mut policy = Policy::default();
    let mut sources = Sources::default();
    let now = cm_base::clock::now_rfc3339();
    let traumas = load_traumas(cwd, &mut sources);
    // The hook skips an invalid pattern silently (it has no one to tell); here it is reported
    // (until a server request's deadline: the repository decides how many there are).
    for t in &traumas {
        if cm_base::due::passed() {
            break;
        }
        if let Err(e) = super::policy::compile(&t.pattern) {
            sources.warnings.push(format!(
                "trauma {} has an invalid pattern {:?} and is ignored: {e}",
                t.id, t.pattern
            ));
        }
    }
    policy.set_traumas(traumas, &now);
    policy.trauma_deadline = cm_base::due::at();
    apply_config(&mut policy, cwd, &mut sources);
    (policy, sources)
}

/// The project's `.cass/` directory for `cwd`.
pub fn project_dir(cwd: &Path) -> Option<PathBuf> {
    paths::repo_cass_dir(cwd)
}

/// The traumas files that apply in `cwd`, each with how far it is trusted.
fn trauma_files(cwd: &Path) -> Vec<(PathBuf, Limits)> {
    let mut files = vec![(user_traumas::global_path(), Limits::GLOBAL)];
    if let Some(dir) = project_dir(cwd) {
        files.push((user_traumas::project_path(&dir), Limits::PROJECT));
    }
    files
}

/// Global and project traumas (all of them; [`Policy::set_traumas`] drops healed ones).
pub fn load_traumas(cwd: &Path, sources: &mut Sources) -> Vec<Trauma> {
    read_traumas(cwd, sources, |idx| (0..idx.entries.len()).collect())
}

/// The traumas active at `now` that could match one of `commands` (a keyword of theirs
/// appears, or they have none), read through each file's cached index: the hook's cost stays
/// small however many traumas the files hold.
pub fn load_traumas_for(commands: &[&str], cwd: &Path, sources: &mut Sources) -> Vec<Trauma> {
    // The clock is read (and formatted) only once a traumas file exists: the common call, with
    // none, never touches that code.
    let now = once_cell::unsync::OnceCell::new();
    read_traumas(cwd, sources, |idx| {
        idx.candidates(commands, now.get_or_init(cm_base::clock::now_rfc3339))
    })
}

fn read_traumas(
    cwd: &Path,
    sources: &mut Sources,
    pick: impl Fn(&trauma_cache::Index) -> Vec<usize>,
) -> Vec<Trauma> {
    let mut all = Vec::new();
    for (f, limits) in trauma_files(cwd) {
        match trauma_cache::open(&f, limits, trauma_cache::default_cache_dir().as_deref()) {
            Ok(None) => {}
            Ok(Some(index)) => {
                if !index.entries.is_empty() || !index.notes.is_empty() {
                    sources.trauma_files.push(f.clone());
                }
                sources.warnings.extend(index.notes.iter().cloned());
                let (mut good, notes) = index.load(&pick(&index));
                sources.warnings.extend(notes);
                if limits == Limits::PROJECT {
                    // Where a trauma came from is the loader's to say, not the line's.
                    for t in &mut good {
                        t.scope = user_traumas::TraumaScope::Project;
                    }
                }
                all.extend(good);
            }
            Err(e) => sources
                .warnings
                .push(format!("cannot read {}: {e}", f.display())),
        }
    }
    all
}

/// Remember, in the cached index of each traumas file that applies in `cwd`, the patterns that
/// failed to compile on this call (see [`trauma_cache::remember_broken`]).
pub fn remember_broken(cwd: &Path, patterns: &[&str]) {
    let Some(dir) = trauma_cache::default_cache_dir() else {
        return;
    };
    for (f, limits) in trauma_files(cwd) {
        trauma_cache::remember_broken(&f, limits, &dir, patterns);
    }
}

/// Read both `guard` sections into `policy`. A global file that cannot be read or parsed is
/// replaced by the last section that parsed from it ([`config_cache`]), with a warning.
pub fn apply_config(policy: &mut Policy, cwd: &Path, sources: &mut Sources) {
    let global = paths::global_config_path();
    match read_section(&global) {
        // Nothing to keep: a file that later appears broken never parsed.
        Section::Missing => {}
        Section::Parsed(g, stamp) => {
            config_cache::remember(&global, stamp, &g);
            sources.config_files.push(global.clone());
            merge(policy, g, cwd, false, sources);
        }
        Section::Broken(why) => match config_cache::recall(&global) {
            Some((g, saved_at, copy)) => {
                sources.warnings.push(format!(
                    "{why}; using its guard settings as they last parsed ({saved_at}) until it is fixed"
                ));
                sources.config_files.push(copy);
                merge(policy, g, cwd, false, sources);
            }
            None => sources.warnings.push(format!(
                "{why}; no earlier guard settings are known, so none of them apply (protectedPaths, failClosed, allow) until it is fixed"
            )),
        },
    }
    if let Some(dir) = project_dir(cwd) {
        // `.cass/config.json`, else `.cass/config.yaml` (or `.yml`), as the CLI reads them: the
        // YAML ones are looked at only when there is no JSON one.
        let names = [paths::CONFIG_FILE, "config.yaml", "config.yml"];
        for path in names.iter().map(|n| dir.join(n)) {
            match read_section(&path) {
                Section::Missing if path.exists() => break,
                Section::Missing => continue,
                Section::Parsed(p, _) => {
                    sources.config_files.push(path);
                    merge(policy, p, cwd, true, sources);
                }
                Section::Broken(why) => sources.warnings.push(format!("{why}; ignoring it")),
            }
            break;
        }
    }
}

/// A config file larger than this is not read by the hook.
pub const CONFIG_CAP: u64 = 1 << 20;

/// A config file's `guard` section as read.
pub enum Section {
    /// No file, or an empty one.
    Missing,
    /// The section (default when the file has none) and the file's stamp.
    Parsed(GuardSection, cm_base::untrusted::Stamp),
    /// Unreadable, not a regular file, too large, or not valid: why, naming the file.
    Broken(String),
}

/// The `guard` section of the config file at `path`, read within the guard's bounds.
pub fn read_section(path: &Path) -> Section {
    let read = match cm_base::untrusted::read(path, CONFIG_CAP) {
        Ok(Some(r)) if r.truncated => {
            return Section::Broken(format!(
                "{} is larger than {} and was not read",
                path.display(),
                cm_base::untrusted::human_size(CONFIG_CAP)
            ));
        }
        Ok(Some(r)) => r,
        Ok(None) => return Section::Missing,
        Err(e) => return Section::Broken(format!("cannot read {}: {e}", path.display())),
    };
    if read.bytes.iter().all(|b| b.is_ascii_whitespace()) {
        return Section::Missing;
    }
    let is_yaml = path.extension().is_some_and(|e| e == "yaml" || e == "yml");
    let parsed = if is_yaml {
        parse_yaml(&read.bytes)
    } else {
        serde_json::from_slice::<Root>(&read.bytes).map_err(|e| e.to_string())
    };
    match parsed {
        Ok(root) => Section::Parsed(root.guard.unwrap_or_default(), read.stamp),
        Err(e) => Section::Broken(format!(
            "{} is not valid guard configuration ({e})",
            path.display()
        )),
    }
}

/// A repository's `.cass/config.yaml`: the same keys as the JSON file. A document with no
/// settings (only comments) holds no guard section.
fn parse_yaml(bytes: &[u8]) -> std::result::Result<Root, String> {
    let value: serde_json::Value = serde_norway::from_slice(bytes).map_err(|e| e.to_string())?;
    if value.is_null() {
        return Ok(Root { guard: None });
    }
    serde_json::from_value(value).map_err(|e| e.to_string())
}

fn merge(
    policy: &mut Policy,
    section: GuardSection,
    cwd: &Path,
    from_project: bool,
    sources: &mut Sources,
) {
    // A repository's committed `.cass/config.json` may only tighten the guard: anyone who can
    // get a file into a clone would otherwise be able to switch protection off. It may enable
    // packs, protect paths and fail closed; disabling packs and allowing commands belong in the
    // user's own config (`"scope": "project"` entries, which `cm guard allow --project` writes).
    if from_project && !section.disabled_packs.is_empty() {
        sources.warnings.push(format!(
            "ignoring guard.disabledPacks {:?} from the repository config: only your own config can disable a pack",
            section.disabled_packs
        ));
    } else {
        policy.disabled_packs.extend(section.disabled_packs);
    }
    policy.enabled_packs.extend(section.enabled_packs);
    policy.protected_paths.extend(section.protected_paths);
    policy.fail_closed |= section.fail_closed.unwrap_or(false);
    if from_project {
        for entry in &section.allow {
            sources.warnings.push(format!(
                "ignoring {} from the repository config: a repository cannot allow what the guard blocks; \
                 use `cm guard allow --project` (it records the entry in your own config)",
                entry.describe()
            ));
        }
        return;
    }
    for entry in section.allow {
        if entry.scope == AllowScope::Project {
            let applies = entry
                .project
                .as_deref()
                .is_some_and(|p| cwd.starts_with(paths::expand_tilde(p)));
            if !applies {
                continue;
            }
        }
        policy.allow.push(entry);
    }
}

/// Only `failClosed` (for malformed hook input), read as cheaply as the rest.
pub fn fail_closed(cwd: &Path, sources: &mut Sources) -> bool {
    let mut p = Policy::default();
    apply_config(&mut p, cwd, sources);
    p.fail_closed
}

/// Add an allow-list entry to the user's global config. With `project`, the entry is scoped to
/// this repository (`"scope": "project"` with the repository root), so it applies only there;
/// it is kept in the user's own file because a repository's config may not relax the guard.
/// Returns the file written.
pub fn add_allow(mut entry: AllowEntry, project: bool, cwd: &Path) -> Result<PathBuf> {
    if project {
        let root = paths::git_root(cwd).unwrap_or_else(|| cwd.to_path_buf());
        entry.scope = AllowScope::Project;
        entry.project = Some(root.display().to_string());
    }
    let value = serde_json::to_value(&entry).map_err(|e| CmError::internal(e.to_string()))?;
    edit_global_guard(|guard| {
        let list = list_in(guard, "allow")?;
        if !list.contains(&value) {
            list.push(value);
        }
        Ok(())
    })
}

/// Turn built-in packs on (`enable`) or off in the global config: a pack is added to one of
/// `enabledPacks`/`disabledPacks` and taken out of the other. `*` stands for every pack (enabling
/// it empties `disabledPacks`).
pub fn set_packs(names: &[String], enable: bool) -> Result<PathBuf> {
    edit_global_guard(|guard| {
        let (add, remove) = if enable {
            ("enabledPacks", "disabledPacks")
        } else {
            ("disabledPacks", "enabledPacks")
        };
        for name in names {
            if enable && name == "*" {
                // Every pack on: nothing stays disabled.
                list_in(guard, remove)?.clear();
            }
            list_in(guard, remove)?.retain(|v| v.as_str() != Some(name.as_str()));
            let list = list_in(guard, add)?;
            if !list.iter().any(|v| v.as_str() == Some(name.as_str())) {
                list.push(serde_json::Value::from(name.as_str()));
            }
        }
        Ok(())
    })
}

/// Take `name` out of the guard section's list `key` in the global config.
pub fn remove_from(key: &str, name: &str) -> Result<PathBuf> {
    edit_global_guard(|guard| {
        list_in(guard, key)?.retain(|v| v.as_str() != Some(name));
        Ok(())
    })
}

/// The list `key` of the guard section, created empty when missing.
fn list_in<'a>(
    guard: &'a mut serde_json::Map<String, serde_json::Value>,
    key: &str,
) -> Result<&'a mut Vec<serde_json::Value>> {
    guard
        .entry(key)
        .or_insert_with(|| serde_json::json!([]))
        .as_array_mut()
        .ok_or_else(|| {
            CmError::config(
                "CONFIG_INVALID",
                format!("\"guard.{key}\" in the global config is not a list"),
            )
            .hint("fix the file by hand; cm never rewrites a setting it cannot read")
        })
}

/// Change the `guard` section of the global config under its lock, written atomically.
fn edit_global_guard(
    edit: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>) -> Result<()>,
) -> Result<PathBuf> {
    let path = paths::global_config_path();
    let _lock = cm_base::fsutil::FileLock::acquire(&path.with_extension("json.lock"))?;
    let mut root = cm_base::config::read_json_file(&path)?.unwrap_or_else(|| serde_json::json!({}));
    let obj = root
        .as_object_mut()
        .expect("read_json_file returns objects");
    let guard = obj.entry("guard").or_insert_with(|| serde_json::json!({}));
    let Some(guard) = guard.as_object_mut() else {
        return Err(CmError::config(
            "CONFIG_INVALID",
            format!("\"guard\" in {} is not an object", path.display()),
        )
        .hint("fix the file by hand; cm never rewrites a setting it cannot read"));
    };
    edit(guard)?;
    let text = serde_json::to_string_pretty(&root).map_err(|e| CmError::internal(e.to_string()))?;
    cm_base::fsutil::write_atomic(&path, format!("{text}\n").as_bytes())?;
    Ok(path)
}
