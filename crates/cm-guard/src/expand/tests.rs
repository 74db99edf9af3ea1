//! The front end end to end: command lines through [`crate::normalize::segments_at`],
//! checked on the shell segments the rules will see.

use super::Context;
use crate::normalize::{Lang, segments_at};

fn ctx() -> Context {
    Context {
        home: Some("/home/u".into()),
        cwd: Some("/home/u/work/app".into()),
    }
}

fn shell(cmd: &str) -> Vec<String> {
    segments_at(cmd, &ctx())
        .into_iter()
        .filter(|s| s.lang == Lang::Shell)
        .map(|s| s.text)
        .collect()
}

fn has(cmd: &str, want: &str) {
    let got = shell(cmd);
    assert!(
        got.iter().any(|s| s == want),
        "{cmd}: {got:?} lacks {want:?}"
    );
}

#[test]
fn parameters_and_assignments() {
    has("rm -rf ${HOME:?}", "rm -rf ~");
    has("rm -rf ${HOME%/}/", "rm -rf ~/");
    has("X=~; rm -rf $X", "rm -rf ~");
    has("D=$HOME; rm -rf \"$D\"", "rm -rf ~");
    has("for d in ~; do rm -rf $d; done", "rm -rf ~");
    has("rm${IFS}-rf${IFS}$HOME", "rm -rf ~");
    has("rm -rf ${EMPTY:-/}", "rm -rf /");
    has("bash -c 'rm -rf \"$@\"' _ / ~", "rm -rf / ~");
    has("c='rm -rf'; $c ~", "rm -rf ~");
    // An unknown variable also runs in the world where it is empty.
    has("rm -rf \"$HOME/$SUB\"", "rm -rf ~/");
    has("rm -rf \"$BUILD\"", "rm -rf $BUILD");
    has("rm -rf \"$BUILD\"", "rm -rf ''");
}

#[test]
fn braces_globs_and_paths() {
    has("rm -rf /{etc,usr}", "rm -rf /etc /usr");
    has("{rm,-rf,~}", "rm -rf ~");
    has("rm -rf /h*", "rm -rf /home");
    has("rm -rf /[e]tc", "rm -rf /etc");
    has("rm -rf /etc/../*", "rm -rf /*");
    has("rm -rf /home/u/work/app", "rm -rf .");
    has("rm -rf /home/u/work", "rm -rf ..");
    has("cd ~ && rm -rf *", "rm -rf ~/*");
    // A glob naming nothing protected stays as written; so does a plain relative path.
    has("rm -rf *.o build", "rm -rf *.o build");
}

#[test]
fn substitutions_with_a_known_output() {
    has("rm -rf \"$(pwd)\"", "rm -rf .");
    has("rm -rf `echo ~`", "rm -rf ~");
    has("rm -rf $(realpath ..)", "rm -rf ..");
    has("$(echo rm) -rf ~", "rm -rf ~");
    has("rm -rf \"$(cd ~ && pwd)\"", "rm -rf ~");
    // Unknown output: kept, and empty in its own world.
    has("rm -rf \"$(ls)\"", "rm -rf '$(ls)'");
}

#[test]
fn plain_commands_are_left_alone() {
    assert_eq!(shell("git status"), vec!["git status"]);
    assert_eq!(
        shell("cargo build --release"),
        vec!["cargo build --release"]
    );
    assert_eq!(shell("ls ~/{a,b}"), vec!["ls ~/a ~/b"]);
}
