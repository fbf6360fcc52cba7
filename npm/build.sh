#!/usr/bin/env bash
# Builds vfsctl's npm packages from this checkout into npm/dist/:
#   vfsctl                the launcher and JavaScript API, depending optionally on
#   @vfsctl/linux-x64     bin/vfsctl with cgo (tree-sitter guards, glibc) and
#                         bin/vfsctl-nocgo (pure-Go guards, any libc)
#   @vfsctl/linux-arm64   bin/vfsctl, CGO_ENABLED=0
#   @vfsctl/darwin-x64    bin/vfsctl, CGO_ENABLED=0 (macOS on Intel)
#   @vfsctl/darwin-arm64  bin/vfsctl, CGO_ENABLED=0 (macOS on Apple silicon)
#   @vfsctl/win32-x64     bin/vfsctl.exe, CGO_ENABLED=0 (Windows on x64)
#   @vfsctl/win32-arm64   bin/vfsctl.exe, CGO_ENABLED=0 (Windows on Arm)
# Packages are named by Node's process.platform and process.arch (win32, not
# windows). VERSION sets the packages' version (default 0.0.0-dev); PLATFORMS narrows
# the platform packages built (default: all of them). The Windows build has run under
# Wine only, never on Windows (docs/runtime.md#platforms).
set -euo pipefail
cd "$(dirname "$0")/.."
version="${VERSION:-0.0.0-dev}"
platforms="${PLATFORMS:-linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64}"
out=npm/dist
rm -rf "$out"
mkdir -p "$out"

goarch() { case "$1" in x64) echo amd64 ;; arm64) echo arm64 ;; *) echo "unknown cpu $1" >&2; exit 2 ;; esac; }
goos() { case "$1" in win32) echo windows ;; *) echo "$1" ;; esac; }

deps=""
for p in $platforms; do
  os="${p%-*}" cpu="${p#*-}"
  dir="$out/$p"
  mkdir -p "$dir/bin"
  echo "== @vfsctl/$p"
  if [ "$p" = linux-x64 ] && [ "$(go env GOOS)/$(go env GOARCH)" = linux/amd64 ]; then
    CGO_ENABLED=1 go build -trimpath -o "$dir/bin/vfsctl" ./cmd/vfsctl
    CGO_ENABLED=0 go build -trimpath -o "$dir/bin/vfsctl-nocgo" ./cmd/vfsctl
  else
    exe=vfsctl
    [ "$os" = win32 ] && exe=vfsctl.exe
    CGO_ENABLED=0 GOOS="$(goos "$os")" GOARCH="$(goarch "$cpu")" go build -trimpath -o "$dir/bin/$exe" ./cmd/vfsctl
  fi
  cat > "$dir/package.json" <<JSON
{
  "name": "@vfsctl/$p",
  "version": "$version",
  "description": "The vfsctl binary for $os on $cpu",
  "os": ["$os"],
  "cpu": ["$cpu"],
  "files": ["bin"],
  "preferUnplugged": true
}
JSON
  deps="$deps${deps:+,}\"@vfsctl/$p\": \"$version\""
done

echo "== vfsctl"
cp -r npm/vfsctl "$out/vfsctl"
node -e '
const fs = require("fs");
const f = process.argv[1];
const pkg = JSON.parse(fs.readFileSync(f, "utf8"));
pkg.version = process.argv[2];
pkg.optionalDependencies = JSON.parse("{" + process.argv[3] + "}");
fs.writeFileSync(f, JSON.stringify(pkg, null, 2) + "\n");
' "$out/vfsctl/package.json" "$version" "$deps"
# The package's README is the repository's: its Node section documents the API.
cp README.md "$out/vfsctl/README.md"
echo "built in $out: $(ls "$out" | tr '\n' ' ')"
