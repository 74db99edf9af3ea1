//! Opaque execution (the `opaque` pack, [`super::packs`]): code a shell or interpreter runs that the command line does not show.
//!
//! Three shapes, each judged here while the line is read ([`super::normalize`]):
//! - a decoder's output piped into a shell (`echo cm0g... | base64 -d | sh`, `xxd -r -p`): when
//!   the encoded text is on the line, it is decoded ([`decode`]) and what it becomes is read as
//!   the shell's input, judged like any command; when it is not (`base64 -d blob | sh`) or does
//!   not decode, the line is marked `decoded-to-shell`;
//! - a download piped into a shell (`curl URL | sh`, `bash <(curl URL)`, `bash -c "$(curl
//!   URL)"`), marked `download-to-shell`: the code is unknown, not known to destroy anything;
//! - `eval`/`source`/`.` (or a shell) of the output of another command (`eval "$(tool)"`): a
//!   known set-up generator (`ssh-agent -s`, `direnv hook bash`, `kubectl completion bash`, ...)
//!   passes; any other is marked `eval-output`.
//!
//! A mark is a segment of the program [`MARK`], which the `opaque` pack's rules read; so an
//! allow-list entry (`opaque:download-to-shell`) or disabling the pack lifts it like any rule.

use super::normalize::{Lang, Segment, base_name};
use super::shell::Word;

/// The program name of a mark segment (never a real program: it holds a space-free prefix no
/// command line has).
pub const MARK: &str = "cm-opaque";

/// A mark segment: `cm-opaque KIND TEXT`.
pub fn mark(kind: &str, text: &str) -> Segment {
    Segment {
        lang: Lang::Shell,
        program: MARK.to_string(),
        text: format!("{MARK} {kind} {}", text.trim()),
    }
}

/// Programs that fetch from the network and write what they got.
pub fn is_downloader(program: &str) -> bool {
    matches!(
        program,
        "curl" | "wget" | "fetch" | "aria2c" | "http" | "https" | "xh"
    )
}

/// Programs that run code read from standard input when given no script (`sh`, `sudo bash -s`,
/// `python3 -`; `at` and `batch` run it later, through a shell, unless given `-f FILE` or asked
/// to list or remove jobs).
pub fn runs_stdin(words: &[Word]) -> bool {
    let Some(first) = words.first() else {
        return false;
    };
    let program = base_name(&first.text);
    if matches!(program, "at" | "batch") {
        return !words[1..]
            .iter()
            .any(|w| !w.op && matches!(w.text.as_str(), "-f" | "-l" | "-r" | "-d" | "-c"));
    }
    let shell = matches!(
        program,
        "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish" | "busybox"
    );
    let interpreter = program.starts_with("python")
        || matches!(program, "node" | "perl" | "ruby" | "php" | "bun" | "deno");
    if !shell && !interpreter {
        return false;
    }
    for w in words[1..].iter().filter(|w| !w.op) {
        let t = w.text.as_str();
        let short = t.starts_with('-') && !t.starts_with("--");
        if t == "--" || t == "-" || (shell && short && t.contains('s')) {
            return true;
        }
        // A script operand, or code given with -c/-e: not standard input.
        if !t.starts_with('-') || (shell && short && t.contains('c')) {
            return false;
        }
        if interpreter && matches!(t, "-e" | "-c" | "-r" | "-m" | "--eval" | "-p" | "--print") {
            return false;
        }
    }
    true
}

/// Filters that turn encoded or compressed code into other bytes on its way to a shell
/// (`gunzip`, `zcat`, `xz -d`, `openssl enc -d`, `tr`): what comes out cannot be read here.
pub fn passes_code_on(words: &[Word]) -> bool {
    let Some(first) = words.first() else {
        return false;
    };
    let decompress = words[1..]
        .iter()
        .any(|w| matches!(w.text.as_str(), "-d" | "--decompress" | "-dc" | "-cd"));
    match base_name(&first.text) {
        "gunzip" | "zcat" | "gzcat" | "unxz" | "xzcat" | "bunzip2" | "bzcat" | "unzstd"
        | "zstdcat" | "lz4cat" | "unlzma" | "lzcat" | "brotli" | "tr" | "rot13" | "uudecode"
        | "gpg" | "age" => true,
        "gzip" | "xz" | "bzip2" | "zstd" | "lz4" | "lzma" | "openssl" | "pigz" => decompress,
        _ => false,
    }
}

/// What a decoder writes for `input`: `None` when `words` is not a decoder this reads;
/// `Some(None)` when it is one but the input does not decode (or is too long to bother).
pub fn decode(words: &[Word], input: &str) -> Option<Option<String>> {
    let program = base_name(&words.first()?.text);
    let args: Vec<&str> = words[1..]
        .iter()
        .filter(|w| !w.op)
        .map(|w| w.text.as_str())
        .collect();
    let has = |names: &[&str]| args.iter().any(|a| names.contains(a));
    let cluster = |c: char| {
        args.iter()
            .any(|a| a.starts_with('-') && !a.starts_with("--") && a.contains(c))
    };
    let kind = match program {
        "base64" | "gbase64" if has(&["-d", "--decode", "-D"]) || cluster('d') => Kind::Base64,
        "basenc" if has(&["-d", "--decode"]) && has(&["--base64"]) => Kind::Base64,
        "basenc" if has(&["-d", "--decode"]) && has(&["--base16"]) => Kind::Hex,
        "openssl" if has(&["base64", "enc"]) && has(&["-d"]) => Kind::Base64,
        "xxd"
            if (has(&["-r", "-revert"]) || cluster('r'))
                && (has(&["-p", "-ps", "-plain", "-postscript"]) || cluster('p')) =>
        {
            Kind::Hex
        }
        "rev" if args.is_empty() => Kind::Rev,
        _ => return None,
    };
    if input.len() > 1 << 20 {
        return Some(None);
    }
    Some(match kind {
        Kind::Base64 => base64(input),
        Kind::Hex => hex(input),
        Kind::Rev => Some(
            input
                .lines()
                .map(|l| l.chars().rev().collect::<String>())
                .collect::<Vec<_>>()
                .join("\n"),
        ),
    })
}

enum Kind {
    Base64,
    Hex,
    /// `rev`: each line reversed (`echo 'fr- mr' | rev`).
    Rev,
}

/// A base64 literal in interpreter code (`os.system(base64.b64decode('cm0g...').decode())`) as
/// the text it stands for, when it decodes to printable text.
pub fn printable_base64(literal: &str) -> Option<String> {
    if literal.len() < 4 || literal.len() > 1 << 16 {
        return None;
    }
    base64(literal).filter(|t| {
        !t.is_empty()
            && t.chars()
                .all(|c| !c.is_control() || matches!(c, '\n' | '\t' | '\r'))
    })
}

fn base64(input: &str) -> Option<String> {
    let mut bits = 0u32;
    let mut n = 0;
    let mut out = Vec::new();
    for c in input.bytes().filter(|c| !c.is_ascii_whitespace()) {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            b'=' => break,
            _ => return None,
        };
        bits = (bits << 6) | v as u32;
        n += 6;
        if n >= 8 {
            n -= 8;
            out.push((bits >> n) as u8);
            bits &= (1 << n) - 1;
        }
    }
    String::from_utf8(out).ok()
}

fn hex(input: &str) -> Option<String> {
    let digits: Vec<u8> = input.bytes().filter(|c| !c.is_ascii_whitespace()).collect();
    if !digits.len().is_multiple_of(2) {
        return None;
    }
    let val = |c: u8| (c as char).to_digit(16);
    let bytes: Option<Vec<u8>> = digits
        .chunks(2)
        .map(|p| Some((val(p[0])? * 16 + val(p[1])?) as u8))
        .collect();
    String::from_utf8(bytes?).ok()
}

/// Programs whose output a shell commonly evaluates to set itself up: `eval "$(ssh-agent -s)"`,
/// `source <(kubectl completion bash)`. Their output is theirs, not the agent's.
const GENERATORS: &[&str] = &[
    "ssh-agent",
    "gpg-agent",
    "keychain",
    "direnv",
    "pyenv",
    "pyenv-virtualenv",
    "rbenv",
    "nodenv",
    "goenv",
    "jenv",
    "plenv",
    "phpenv",
    "conda",
    "micromamba",
    "mamba",
    "brew",
    "starship",
    "zoxide",
    "fnm",
    "mise",
    "rtx",
    "asdf",
    "thefuck",
    "atuin",
    "fzf",
    "kubectl",
    "helm",
    "gh",
    "glab",
    "docker",
    "minikube",
    "docker-machine",
    "podman",
    "npm",
    "pnpm",
    "pip",
    "pip3",
    "rustup",
    "cargo",
    "poetry",
    "pipx",
    "uv",
    "opam",
    "luarocks",
    "dircolors",
    "register-python-argcomplete",
    "aws_completer",
    "terraform",
    "kind",
    "k3d",
    "oc",
    "gcloud",
    "op",
    "nix",
    "nix-your-shell",
    "navi",
    "mcfly",
    "hub",
    "rbw",
    "volta",
    "nvm",
    "sdk",
    "tmuxinator",
    "devbox",
    "flox",
    "pixi",
    "rye",
];

/// The command inside a word that is wholly a command or process substitution (`"$(tool
/// init)"`, `` `tool` ``, `<(tool)`), as written; `None` for any other word.
pub fn substituted(word: &Word) -> Option<&str> {
    let t = word.text.trim();
    t.strip_prefix("$(")
        .or_else(|| t.strip_prefix("<("))
        .and_then(|r| r.strip_suffix(')'))
        .or_else(|| {
            t.strip_prefix('`')
                .and_then(|r| r.strip_suffix('`'))
                .filter(|r| !r.contains('`'))
        })
}

/// How a command whose output a shell runs is judged: its first program a downloader (mark
/// `download-to-shell`), a known generator (nothing), anything else (`eval-output`).
pub fn kind_of_output(inner: &str) -> Option<&'static str> {
    let parsed = super::shell::parse(inner);
    let mut kind = None;
    for cmd in &parsed.commands {
        let words = super::wrappers::strip(&cmd.words).words;
        let Some(first) = words.first() else { continue };
        let program = base_name(&first.text);
        if is_downloader(program) {
            return Some("download-to-shell");
        }
        if kind.is_none() {
            kind = Some(if GENERATORS.contains(&program) {
                None
            } else {
                Some("eval-output")
            });
        }
    }
    kind.flatten()
}

/// Programs that run their arguments' text as shell code: for these, an argument that is
/// wholly a substitution is code from another command.
pub fn evaluates_arguments(program: &str) -> bool {
    matches!(
        program,
        "eval" | "source" | "." | "sh" | "bash" | "zsh" | "dash" | "ksh" | "mksh" | "ash" | "fish"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(line: &str) -> Vec<Word> {
        super::super::shell::parse(line).commands[0].words.clone()
    }

    #[test]
    fn decodes_base64_hex_and_reversal() {
        assert_eq!(
            decode(&words("base64 -d"), "cm0gLXJmIH4="),
            Some(Some("rm -rf ~".into()))
        );
        assert_eq!(
            decode(&words("xxd -r -p"), "726d202d7266207e"),
            Some(Some("rm -rf ~".into()))
        );
        assert_eq!(decode(&words("base64 -d"), "@@@"), Some(None));
        assert_eq!(decode(&words("base64"), "x"), None);
        assert_eq!(decode(&words("xxd -l 64"), "x"), None);
    }

    #[test]
    fn stdin_readers() {
        assert!(runs_stdin(&words("sh")));
        assert!(runs_stdin(&words("bash -s -- --prefix x")));
        assert!(runs_stdin(&words("python3 -")));
        assert!(!runs_stdin(&words("bash install.sh")));
        assert!(!runs_stdin(&words("bash -c 'ls'")));
        assert!(!runs_stdin(&words("grep x")));
    }

    #[test]
    fn output_kinds() {
        assert_eq!(
            kind_of_output("curl -fsSL https://x"),
            Some("download-to-shell")
        );
        assert_eq!(kind_of_output("ssh-agent -s"), None);
        assert_eq!(kind_of_output("kubectl completion bash"), None);
        assert_eq!(kind_of_output("./gen-env"), Some("eval-output"));
    }
}
