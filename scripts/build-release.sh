#!/usr/bin/env bash
# Build the release `cm` binary the way ./install.sh installs it, and print its path.
#
#   scripts/build-release.sh [--quiet]
#
# On Linux with glibc, cm is linked statically and position-dependent when the C toolchain can
# (glibc's static libraries are installed: libc6-dev on Debian/Ubuntu, glibc-static on Fedora):
# the hooks start a fresh process on every tool call, and a dynamically linked cm spends ~0.5 ms
# of each start in the dynamic loader mapping libgcc_s, libm and libc (measured in
# docs/guard.md). Only the final link changes (`cargo rustc` passes the flags to the `cm`
# binary alone, so proc macros and dependencies build as usual). Name resolution for the LLM
# client still works: glibc's built-in `files` and `dns` services need no shared library.
# Where static linking is not available the ordinary dynamic build is used, with a note.
#
# Environment: CM_STATIC=0 builds the dynamic binary even where static linking works.
set -euo pipefail
cd "$(dirname "$0")/.."

quiet=()
[ "${1:-}" = "--quiet" ] && quiet=(--quiet)

note() { [ ${#quiet[@]} -gt 0 ] || printf '%s\n' "$*" >&2; }

static_links() {
    local cc tmp ok=1
    cc="$(command -v cc || command -v gcc || command -v clang || true)"
    [ -n "$cc" ] || return 1
    tmp="$(mktemp -d)"
    printf 'int main(void) { return 0; }\n' >"$tmp/t.c"
    "$cc" -static "$tmp/t.c" -o "$tmp/t" >/dev/null 2>&1 && "$tmp/t" || ok=0
    rm -rf "$tmp"
    [ "$ok" = 1 ]
}

host="$(rustc -vV | sed -n 's/^host: //p')"
flags=()
case "$host" in
    *-linux-gnu*)
        if [ "${CM_STATIC:-1}" = 0 ]; then
            note "build-release: CM_STATIC=0, linking cm dynamically"
        elif static_links; then
            flags=(-- -C target-feature=+crt-static -C relocation-model=static)
        else
            note "build-release: the C compiler cannot link static programs (glibc's static libraries are missing: libc6-dev or glibc-static); linking cm dynamically, its hooks start ~0.5 ms slower"
        fi
        ;;
esac
cargo rustc --release --locked -p cm --bin cm "${quiet[@]}" "${flags[@]}" >&2
echo "$PWD/target/release/cm"
