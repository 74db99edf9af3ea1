//! argv[0] dispatch only: `cm-pretool`, `cm-postsession` and `cm-precommit` go straight to their
//! hook entry points (as does `cm hook NAME`) without building the argument parser; everything
//! else is the `cm` CLI.

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let code = cm::dispatch(&args);
    std::process::exit(code);
}
