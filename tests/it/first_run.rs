//! A new user's first run: `cm init` and `./install.sh` end by saying what to do next, and the
//! first thing named is `cm hooks install` (without hooks no agent ever calls cm). The installer
//! installs the hooks itself with `--easy-mode`, and names the command when it cannot ask.

use crate::harness::{CM, Env};
use crate::install::{SCRIPT, bash};

fn steps(d: &serde_json::Value) -> Vec<String> {
    d["nextSteps"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["command"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn init_names_the_hooks_first_until_they_are_installed() {
    let env = Env::new();
    let d = env.cm(&["init"]).json().run().ok().data();
    let first = steps(&d);
    assert_eq!(first[0], "cm hooks install", "{d}");
    assert!(first.contains(&"cm history index".to_string()), "{d}");
    let human = env.cm(&["init"]).run().ok().stdout;
    assert!(human.contains("Next steps:"), "{human}");
    assert!(human.contains("cm hooks install"), "{human}");

    env.cm(&["hooks", "install"]).run().ok();
    let d = env.cm(&["init"]).json().run().ok().data();
    assert!(
        !steps(&d).contains(&"cm hooks install".to_string()),
        "installed hooks are not a next step: {d}"
    );
}

#[test]
fn install_sh_names_the_hooks_command_and_easy_mode_installs_them() {
    let env = Env::new();
    let dest = env.root.join("bin");
    let settings = env.home.join(".claude/settings.json");
    // Not a terminal, not --easy-mode: nothing is installed into the agent, the command is named.
    let out = env
        .run_program(bash(), &[SCRIPT, "--dest", dest.to_str().unwrap()])
        .env("CM_INSTALL_PREBUILT", CM)
        .env("SHELL", "/bin/bash")
        .stdin("")
        .run()
        .ok();
    assert!(!settings.exists(), "{}", out.stdout);
    assert!(out.stdout.contains("cm hooks install"), "{}", out.stdout);
    assert!(out.stdout.contains("Next steps:"), "{}", out.stdout);
    // Without init the script lists the steps itself.
    let out = env
        .run_program(
            bash(),
            &[SCRIPT, "--dest", dest.to_str().unwrap(), "--no-init"],
        )
        .env("CM_INSTALL_PREBUILT", CM)
        .stdin("")
        .run()
        .ok();
    assert!(out.stdout.contains("cm hooks install"), "{}", out.stdout);

    // --easy-mode installs them, and init then no longer asks for them.
    let out = env
        .run_program(
            bash(),
            &[SCRIPT, "--dest", dest.to_str().unwrap(), "--easy-mode"],
        )
        .env("CM_INSTALL_PREBUILT", CM)
        .env("SHELL", "/bin/bash")
        .run()
        .ok();
    let text = std::fs::read_to_string(&settings).unwrap();
    assert!(
        text.contains(dest.join("cm-pretool").to_str().unwrap()),
        "{text}"
    );
    assert!(
        !out.stdout.contains("run `cm hooks install`"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("New Claude Code sessions"),
        "{}",
        out.stdout
    );
}
