#!/usr/bin/env bash
# install.sh: build cm from source and install it, with its hook links.
#
#   ./install.sh                  build (cargo, release), install into ~/.local/bin, run `cm init`
#   ./install.sh --dest DIR       install into DIR instead
#   ./install.sh --system         install into /usr/local/bin
#   ./install.sh --easy-mode      ask nothing: add the install dir to PATH in your shell rc if missing
#                                 and install cm's hooks into Claude Code (`cm hooks install`)
#   ./install.sh --verify         after installing, check: binary runs, links dispatch, store opens
#   ./install.sh --no-init        do not run `cm init`
#   ./install.sh --no-hooks       do not install (or offer) cm's hooks into Claude Code
#   ./install.sh --quiet          print only errors
#   ./install.sh --uninstall      remove cm's hooks from every agent's settings, then exactly what
#                                 an install put in place (keeps the data dir)
#   ./install.sh --uninstall --purge   ... and delete the data dir too
#
# Environment:
#   CASS_MEMORY_HOME        the data directory (default ~/.cass-memory)
#   CM_INSTALL_PREBUILT     path to an already built `cm` binary: skip the cargo build (for tests
#                           and packaging; a normal install leaves it unset)
#   CM_STATIC=0             link cm dynamically even where it can be linked statically
#
# Every check runs before anything is touched: without cargo (or a C compiler for the bundled
# SQLite) the script refuses and leaves the machine as it was.

set -euo pipefail

LINKS=(cm-pretool cm-postsession cm-precommit)
RC_MARKER="# added by cm install.sh"

dest=""
system=0
easy=0
verify=0
quiet=0
uninstall=0
purge=0
run_init=1
hooks=1

say() { [ "$quiet" = 1 ] || printf '%s\n' "$*"; }
die() {
    printf 'install.sh: error: %s\n' "$1" >&2
    [ $# -gt 1 ] && printf '  hint: %s\n' "$2" >&2
    exit 1
}

usage() {
    sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
    case "$1" in
        --dest)
            [ $# -ge 2 ] || die "--dest needs a directory" "./install.sh --dest ~/bin"
            dest="$2"
            shift 2
            ;;
        --dest=*) dest="${1#--dest=}"; shift ;;
        --system) system=1; shift ;;
        --easy-mode) easy=1; shift ;;
        --verify) verify=1; shift ;;
        --quiet | -q) quiet=1; shift ;;
        --uninstall) uninstall=1; shift ;;
        --purge) purge=1; shift ;;
        --no-init) run_init=0; shift ;;
        --no-hooks) hooks=0; shift ;;
        -h | --help) usage; exit 0 ;;
        *) die "unknown option: $1" "./install.sh --help lists the options" ;;
    esac
done

[ -n "${HOME:-}" ] || die "HOME is not set" "run from a login shell, or set HOME"
if [ "$system" = 1 ] && [ -n "$dest" ]; then
    die "--system and --dest are exclusive" "pick one install directory"
fi
[ "$system" = 1 ] && dest="/usr/local/bin"
[ -n "$dest" ] || dest="$HOME/.local/bin"
case "$dest" in
    "~") dest="$HOME" ;;
    "~/"*) dest="$HOME/${dest#\~/}" ;;
esac
case "$dest" in
    /*) ;;
    *) dest="$(pwd)/$dest" ;;
esac
if [ "$purge" = 1 ] && [ "$uninstall" = 0 ]; then
    die "--purge only goes with --uninstall" "./install.sh --uninstall --purge"
fi

data_dir="${CASS_MEMORY_HOME:-$HOME/.cass-memory}"
manifest="$data_dir/install-manifest.txt"
repo_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The shell startup file that puts a directory on PATH for the user's login shell.
shell_rc() {
    case "$(basename "${SHELL:-bash}")" in
        zsh) printf '%s\n' "${ZDOTDIR:-$HOME}/.zshrc" ;;
        bash) printf '%s\n' "$HOME/.bashrc" ;;
        fish) printf '%s\n' "${XDG_CONFIG_HOME:-$HOME/.config}/fish/config.fish" ;;
        *) printf '%s\n' "$HOME/.profile" ;;
    esac
}

path_line() {
    case "$(basename "${SHELL:-bash}")" in
        fish) printf 'fish_add_path %q  %s\n' "$1" "$RC_MARKER" ;;
        *) printf 'export PATH="%s:$PATH"  %s\n' "$1" "$RC_MARKER" ;;
    esac
}

on_path() {
    case ":${PATH:-}:" in
        *":$1:"*) return 0 ;;
        *) return 1 ;;
    esac
}

# ---------------------------------------------------------------------------------------------
# Uninstall: remove what the manifest lists (or, without one, only cm's own files in the
# install directory), the PATH line we added, and the data dir only with --purge.
# ---------------------------------------------------------------------------------------------
if [ "$uninstall" = 1 ]; then
    removed=0
    # First the hooks: agents' settings must not keep pointing at a binary that is about to go.
    # `cm hooks uninstall --everywhere` takes out exactly cm's entries (every agent's user
    # settings, every project cm installed into); if it cannot, nothing at all is removed.
    cm_bin=""
    if [ -f "$manifest" ]; then
        cm_bin="$(awk -F '\t' '$1 == "file" && $2 ~ /\/cm$/ { print $2; exit }' "$manifest")"
    fi
    [ -n "$cm_bin" ] || cm_bin="$dest/cm"
    if [ -x "$cm_bin" ] && "$cm_bin" --version 2>/dev/null | grep -q '^cm '; then
        if ! hooks_out="$("$cm_bin" hooks uninstall --everywhere 2>&1)"; then
            printf '%s\n' "$hooks_out" >&2
            die "cm's hooks could not be taken out of the agents' settings, so nothing was uninstalled" \
                "fix what is named above, then run ./install.sh --uninstall again (or \`$cm_bin hooks uninstall --everywhere\` yourself)"
        fi
        [ "$quiet" = 1 ] || printf '%s\n' "$hooks_out" | grep -v 'nothing of cm.s to remove' || true
    else
        # No cm to ask: refuse while an agent's user settings still run cm's hooks.
        for f in "${CLAUDE_CONFIG_DIR:-$HOME/.claude}/settings.json" "${CODEX_HOME:-$HOME/.codex}/hooks.json" "$HOME/.gemini/settings.json"; do
            if [ -f "$f" ] && grep -Eq '(^|[/"[:space:]])(cm-pretool|cm-postsession|cm-precommit|cm hook )' "$f"; then
                die "$f still runs cm's hooks, and no cm binary is left to remove them" \
                    "reinstall (./install.sh), then run ./install.sh --uninstall, which removes the hooks first"
            fi
        done
    fi
    remove_file() {
        if [ -e "$1" ] || [ -L "$1" ]; then
            rm -f -- "$1" && say "removed $1" && removed=$((removed + 1))
        fi
    }
    remove_rc_line() {
        local rc="$1" line="$2" tmp
        [ -f "$rc" ] || return 0
        grep -qxF -- "$line" "$rc" || return 0
        tmp="$(mktemp "$rc.cm-tmp.XXXXXX")"
        grep -vxF -- "$line" "$rc" >"$tmp" || true
        cat "$tmp" >"$rc" && rm -f "$tmp"
        say "removed the PATH line from $rc"
    }
    if [ -f "$manifest" ]; then
        dirs=()
        rcfiles=()
        while IFS=$'\t' read -r kind a b; do
            case "$kind" in
                file | link) remove_file "$a" ;;
                rc) remove_rc_line "$a" "$b" ;;
                rcfile) rcfiles+=("$a") ;;
                dir) dirs+=("$a") ;;
            esac
        done <"$manifest"
        # A shell rc or directory the install created goes too, if nothing else is in it now.
        for rc in ${rcfiles[@]+"${rcfiles[@]}"}; do
            if [ -f "$rc" ] && ! grep -q '[^[:space:]]' "$rc"; then
                rm -f -- "$rc" && say "removed $rc (the install created it)"
            fi
        done
        for dir in ${dirs[@]+"${dirs[@]}"}; do
            rmdir -- "$dir" 2>/dev/null && say "removed $dir (the install created it)" || true
        done
        rm -f -- "$manifest"
    else
        # No manifest: remove only what is recognisably ours in the install directory.
        for link in "${LINKS[@]}"; do
            if [ -L "$dest/$link" ] && [ "$(readlink "$dest/$link")" = "cm" ]; then
                remove_file "$dest/$link"
            fi
        done
        if [ -x "$dest/cm" ] && "$dest/cm" --version 2>/dev/null | grep -q '^cm '; then
            remove_file "$dest/cm"
        fi
    fi
    if [ "$purge" = 1 ] && [ -d "$data_dir" ]; then
        rm -rf -- "$data_dir"
        say "removed the data directory $data_dir"
    elif [ -d "$data_dir" ]; then
        say "kept the data directory $data_dir (--purge deletes it)"
    fi
    [ "$removed" -gt 0 ] || say "nothing of cm was installed in $dest"
    exit 0
fi

# ---------------------------------------------------------------------------------------------
# Checks first: nothing is created or changed until all of them pass.
# ---------------------------------------------------------------------------------------------
prebuilt="${CM_INSTALL_PREBUILT:-}"
if [ -n "$prebuilt" ]; then
    [ -f "$prebuilt" ] && [ -x "$prebuilt" ] ||
        die "CM_INSTALL_PREBUILT=$prebuilt is not an executable file" "unset it to build from source"
else
    command -v cargo >/dev/null 2>&1 ||
        die "cargo was not found on PATH; cm is built from source and needs the Rust toolchain" \
            "install Rust (https://rustup.rs), open a new shell so cargo is on PATH, and run ./install.sh again; nothing was installed"
    command -v cc >/dev/null 2>&1 || command -v gcc >/dev/null 2>&1 || command -v clang >/dev/null 2>&1 ||
        die "no C compiler (cc, gcc or clang) was found; the bundled SQLite is compiled from C" \
            "install one (e.g. apt-get install gcc) and run ./install.sh again; nothing was installed"
    [ -f "$repo_dir/Cargo.toml" ] ||
        die "$repo_dir/Cargo.toml not found" "run install.sh from a checkout of cm"
fi
# The install directory must be creatable and writable.
probe="$dest"
while [ ! -e "$probe" ]; do probe="$(dirname "$probe")"; done
[ -d "$probe" ] && [ -w "$probe" ] ||
    die "cannot write to $dest" "choose another directory with --dest, or run with sudo for --system"

# ---------------------------------------------------------------------------------------------
# Build.
# ---------------------------------------------------------------------------------------------
if [ -n "$prebuilt" ]; then
    binary="$prebuilt"
    say "using the prebuilt binary $binary (CM_INSTALL_PREBUILT)"
else
    # scripts/build-release.sh links cm statically where the toolchain can (its hooks start
    # faster; see docs/guard.md) and prints the binary's path.
    say "building cm (scripts/build-release.sh: cargo rustc --release --locked) ..."
    if [ "$quiet" = 1 ]; then
        binary="$(cd "$repo_dir" && scripts/build-release.sh --quiet)" ||
            die "cargo build failed" "see the compiler output above; nothing was installed"
    else
        binary="$(cd "$repo_dir" && scripts/build-release.sh)" ||
            die "cargo build failed" "see the compiler output above; nothing was installed"
    fi
fi

# ---------------------------------------------------------------------------------------------
# Install: the binary (replaced atomically), then the links, then the manifest.
# ---------------------------------------------------------------------------------------------
# Directories this install creates (deepest last), so --uninstall can remove them again.
new_dirs=()
d="$dest"
while [ ! -e "$d" ]; do
    new_dirs=("$d" ${new_dirs[@]+"${new_dirs[@]}"})
    d="$(dirname "$d")"
done
mkdir -p -- "$dest"
tmp="$dest/.cm.install.$$"
cp -- "$binary" "$tmp"
chmod 755 "$tmp"
mv -f -- "$tmp" "$dest/cm"
say "installed $dest/cm ($("$dest/cm" --version))"
for link in "${LINKS[@]}"; do
    ln -sfn cm "$dest/$link"
done
say "linked ${LINKS[*]} -> cm in $dest"

record() {
    mkdir -p -- "$data_dir"
    touch "$manifest"
    grep -qxF -- "$1" "$manifest" || printf '%s\n' "$1" >>"$manifest"
}
# Deepest first, so uninstall's rmdir empties the chain from the bottom up.
for ((i = ${#new_dirs[@]} - 1; i >= 0; i--)); do
    record "$(printf 'dir\t%s' "${new_dirs[$i]}")"
done
record "$(printf 'file\t%s' "$dest/cm")"
for link in "${LINKS[@]}"; do
    record "$(printf 'link\t%s' "$dest/$link")"
done
[ ${#new_dirs[@]} -gt 0 ] && say "created $dest"

# ---------------------------------------------------------------------------------------------
# PATH.
# ---------------------------------------------------------------------------------------------
if on_path "$dest"; then
    :
else
    rc="$(shell_rc)"
    line="$(path_line "$dest")"
    add=0
    if [ "$easy" = 1 ]; then
        add=1
    elif [ -t 0 ] && [ "$quiet" = 0 ]; then
        printf 'Add %s to PATH in %s? [y/N] ' "$dest" "$rc"
        read -r answer || answer=""
        case "$answer" in y | Y | yes) add=1 ;; esac
    fi
    if [ "$add" = 1 ]; then
        if [ -f "$rc" ] && grep -qxF -- "$line" "$rc"; then
            say "PATH line already in $rc"
        else
            mkdir -p -- "$(dirname "$rc")"
            if [ ! -e "$rc" ]; then
                record "$(printf 'rcfile\t%s' "$rc")"
            elif [ -s "$rc" ] && [ -n "$(tail -c1 "$rc")" ]; then
                printf '\n' >>"$rc" # end the last line before appending ours
            fi
            printf '%s\n' "$line" >>"$rc"
            say "added $dest to PATH in $rc (open a new shell to use it)"
        fi
        record "$(printf 'rc\t%s\t%s' "$rc" "$line")"
    else
        say "note: $dest is not on PATH; add it (or rerun with --easy-mode):"
        say "  $line"
    fi
fi

# ---------------------------------------------------------------------------------------------
# Hooks: without them no agent ever calls cm. --easy-mode installs them, a terminal is asked,
# anything else is told the command (cm init's next steps name it too).
# ---------------------------------------------------------------------------------------------
hooks_installed=0
if [ "$hooks" = 1 ]; then
    add_hooks=0
    if [ "$easy" = 1 ]; then
        add_hooks=1
    elif [ -t 0 ] && [ "$quiet" = 0 ]; then
        printf "Install cm's hooks into Claude Code now (context at session start, the guard before each command, learning at session end)? [Y/n] "
        read -r answer || answer="n"
        case "$answer" in "" | y | Y | yes) add_hooks=1 ;; esac
    fi
    if [ "$add_hooks" = 1 ]; then
        if hooks_out="$("$dest/cm" hooks install 2>&1)"; then
            hooks_installed=1
            say "$hooks_out"
        else
            printf '%s\n' "$hooks_out" >&2
            printf 'install.sh: warning: cm hooks install failed (see above); cm is installed without hooks\n' >&2
        fi
    fi
fi

# ---------------------------------------------------------------------------------------------
# Initialise the data directory.
# ---------------------------------------------------------------------------------------------
if [ "$run_init" = 1 ]; then
    if [ "$quiet" = 1 ]; then
        "$dest/cm" init --quiet >/dev/null || die "cm init failed" "run \`$dest/cm init\` to see why"
    else
        "$dest/cm" init || die "cm init failed" "run \`$dest/cm init\` to see why"
    fi
fi

# ---------------------------------------------------------------------------------------------
# Verify.
# ---------------------------------------------------------------------------------------------
if [ "$verify" = 1 ]; then
    failed=0
    check() {
        if [ "$1" = ok ]; then say "  ok    $2"; else
            printf '  FAIL  %s\n' "$2" >&2
            failed=1
        fi
    }
    say "verifying ..."
    if "$dest/cm" --version >/dev/null 2>&1; then check ok "cm --version"; else check fail "cm --version"; fi
    for link in "${LINKS[@]}"; do
        out="$("$dest/$link" </dev/null 2>/dev/null)" && [ -z "$out" ] &&
            check ok "$link dispatches (empty payload: exit 0, silent)" ||
            check fail "$link did not behave as a hook"
    done
    out="$("$dest/cm" hook pretool </dev/null 2>/dev/null)" && [ -z "$out" ] &&
        check ok "cm hook pretool dispatches" || check fail "cm hook pretool"
    if "$dest/cm" doctor >/dev/null 2>&1; then check ok "cm doctor (store opens, config parses)"; else
        check fail "cm doctor: run \`$dest/cm doctor\` for details"
    fi
    [ "$failed" = 0 ] || die "verification failed" "see the FAIL lines above"
    say "verified."
fi

# cm init already listed the next steps; without it, say them here.
if [ "$run_init" = 0 ]; then
    say "Next steps:"
    say "  cm init                            create the data directory, store and config"
    [ "$hooks_installed" = 1 ] ||
        say "  cm hooks install                   wire cm into Claude Code; without hooks no agent calls cm"
    say "  cm history index                   index the sessions your agents already wrote"
fi
if [ "$hooks_installed" = 1 ]; then
    say "done. New Claude Code sessions use cm's hooks (restart running ones)."
else
    say "done. cm's hooks are not installed: run \`cm hooks install\` (without them no agent calls cm)."
fi
