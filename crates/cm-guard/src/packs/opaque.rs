//! Opaque execution: code a shell runs that the command line does not show. The marks these
//! rules read are made while the line is read ([`crate::opaque`]); a decoded literal is
//! judged by what it becomes, so only what cannot be read is marked.

use super::{Pack, shell};
use crate::Severity::{Critical, High};

pub static PACK: Pack = Pack {
    name: "opaque",
    description: "code piped or substituted into a shell that the guard cannot read: a download, an undecodable payload, another command's output",
    default_on: true,
    // What makes a mark: a downloader or decoder feeding a shell, or a substitution evaluated.
    keywords: &[
        "cm-opaque",
        "curl",
        "wget",
        "fetch",
        "aria2c",
        "http",
        "xh",
        "base64",
        "basenc",
        "openssl",
        "xxd",
        // Text reversed on its way to a shell (`echo 'fr- mr' | rev | sh`).
        "| rev",
        "|rev",
        // A command spelled in escapes (`printf '\x72\x6d' | sh`, `echo -e '\0162...'`).
        "printf",
        "\\x",
        "\\0",
        "eval",
        "source",
        "$(",
        "<(",
        "`",
        // Spawns in interpreter code, whose command may be joined from pieces (`'r' + 'm'`).
        "system(",
        "spawn",
        "exec",
        "popen",
        "subprocess",
    ],
    rules: &[
        shell(
            "decoded-to-shell",
            Critical,
            &["cm-opaque"],
            &[],
            r"^cm-opaque decoded-to-shell\s",
            "the shell runs code that is decoded only when the command runs (the encoded text is not on the line, or does not decode), so nothing can check what it does",
            "decode it first and run the plain command (`base64 -d FILE` to read it), so it can be checked",
        ),
        shell(
            "download-to-shell",
            High,
            &["cm-opaque"],
            &[],
            r"^cm-opaque download-to-shell\s",
            "the shell runs whatever the URL serves at that moment, unread; nothing can check what it does",
            "download the script to a file, read it, then run the file (`curl -fsSLo install.sh URL`, `sh install.sh`)",
        ),
        shell(
            "eval-output",
            High,
            &["cm-opaque"],
            &[],
            r"^cm-opaque eval-output\s",
            "the shell runs as code whatever another command prints, which the command line does not show",
            "run that command on its own first and read its output, or run what it would print directly",
        ),
    ],
};
