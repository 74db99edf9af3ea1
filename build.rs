//! Build-time work for the `cm` binary, for the hooks' start-up cost: link it as a
//! position-dependent executable (`-no-pie`). The hooks start a fresh process on every tool call
//! of an agent, so start-up is most of their cost. A position-independent executable of this
//! size carries about 12,000 relative relocations that the dynamic loader applies at every
//! start, touching (and copying) most of the binary's read-only data pages; measured here that
//! was ~0.2 ms of a ~1.4 ms hook call. Linked non-PIE, those relocations are resolved once at
//! link time. See docs/guard.md. (The guard's rule DFAs are built by crates/cm-guard/build.rs.)

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
