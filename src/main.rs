//! argv[0] dispatch only: `cm-pretool`, `cm-postsession` and `cm-precommit` go straight to their
//! hook entry points (as does `cm hook NAME`) without building the argument parser; everything
//! else is the `cm` CLI.
//!
//! The C `main` is defined here instead of Rust's `fn main`: the standard runtime set-up it
//! skips (a signal stack for stack-overflow reports, which asks glibc for the main thread's
//! stack bounds by parsing /proc/self/maps) costs ~0.1 ms of every hook call, a tenth of the
//! hook's budget. What it did that the CLI relies on is done by hand: SIGPIPE is ignored, so a
//! closed pipe (`cm ls | head`) is an error the output code turns into success. SIGXFSZ is
//! ignored too, so a write past `ulimit -f` is an error the store reports. Arguments still
//! come from the standard library (glibc hands them over at load time), read as OS strings: an
//! argument that is not UTF-8 must become a clear error, not a panic in `std::env::args()`.

// The unit-test build of this file keeps the test harness's own `main`.
#![cfg_attr(not(test), no_main)]

#[cfg(not(test))]
unsafe extern "C" {
    fn signal(signum: i32, handler: usize) -> usize;
}

#[cfg(not(test))]
const SIGPIPE: i32 = 13;
#[cfg(not(test))]
const SIGXFSZ: i32 = 25;
#[cfg(not(test))]
const SIG_IGN: usize = 1;

#[cfg(not(test))]
#[unsafe(no_mangle)]
pub extern "C" fn main(_argc: i32, _argv: *const *const u8) -> i32 {
    // SAFETY: installing the ignore disposition for a signal has no preconditions.
    // SIGXFSZ: past the file-size limit (`ulimit -f`) a write then fails with EFBIG, which the
    // store reports (and rolls back), instead of the signal killing cm without a word.
    unsafe {
        signal(SIGPIPE, SIG_IGN);
        signal(SIGXFSZ, SIG_IGN);
    }
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let code = cm::dispatch(&args);
    std::process::exit(code);
}
