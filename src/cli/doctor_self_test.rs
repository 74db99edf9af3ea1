//! `cm doctor --self-test`: exercise the engine, not just the installation. Each check runs the
//! real code on known input in a throwaway directory (never the user's store): the guard must
//! block a catastrophic command and pass a harmless one, redaction must catch a token, a scratch
//! store must open, migrate and pass its integrity check, and decay must halve at the half-life.

use super::doctor::{Check, Status, check};

pub fn run() -> Vec<Check> {
    vec![guard(), redaction(), scratch_store(), decay()]
}

fn verdict(ok: bool, name: &'static str, good: String, bad: String) -> Check {
    if ok {
        check(name, Status::Ok, good, None)
    } else {
        check(
            name,
            Status::Fail,
            bad,
            Some("reinstall cm (./install.sh); if it persists, report it with `cm --version`"),
        )
    }
}

fn guard() -> Check {
    let policy = crate::guard::Policy::default();
    let blocks = crate::guard::evaluate("rm -rf /", &policy).is_deny();
    let passes = !crate::guard::evaluate("ls -la", &policy).is_deny();
    verdict(
        blocks && passes,
        "self-test guard",
        "blocks `rm -rf /`, allows `ls -la`".into(),
        format!("`rm -rf /` blocked: {blocks}; `ls -la` allowed: {passes}"),
    )
}

fn redaction() -> Check {
    let (text, n) =
        crate::redact::redact("export GITHUB_TOKEN=ghp_abcdefghijklmnopqrstuvwxyz0123456789");
    let ok = n > 0 && !text.contains("ghp_abc");
    verdict(
        ok,
        "self-test redaction",
        "a GitHub token is redacted".into(),
        "a GitHub token was not redacted".into(),
    )
}

fn scratch_store() -> Check {
    let dir = std::env::temp_dir().join(format!(
        "cm-self-test-{}-{}",
        std::process::id(),
        crate::clock::now().timestamp_nanos_opt().unwrap_or(0)
    ));
    let result = (|| {
        crate::private::create_dir(&dir)
            .map_err(|e| crate::error::CmError::io(&dir, "create", &e))?;
        let store = crate::store::Store::open(&dir.join("cm.db"))?;
        store.check_integrity()?;
        Ok::<_, crate::error::CmError>(store.schema_version())
    })();
    let _ = std::fs::remove_dir_all(&dir);
    match result {
        Ok(v) => verdict(
            true,
            "self-test store",
            format!("a scratch store opens, migrates to v{v} and passes its integrity check"),
            String::new(),
        ),
        Err(e) => verdict(false, "self-test store", String::new(), e.message),
    }
}

fn decay() -> Check {
    let half = crate::memory::scoring::decay_factor(90.0, 90.0);
    verdict(
        (half - 0.5).abs() < 1e-9,
        "self-test decay",
        "a mark is worth half after one half-life".into(),
        format!("decay after one half-life is {half}, not 0.5"),
    )
}
