#!/usr/bin/env bash
# Drives vfsctl serve with the TypeScript SDK's MCP client (tools.test.mjs): installs
# the SDK at the version package.json pins into $VFSCTL_MCP_SDK (kept between runs)
# or a scratch folder, builds vfsctl from this checkout, and runs the checks with the
# node on PATH. Fails loudly.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../../../.."
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
sdk="${VFSCTL_MCP_SDK:-$scratch/sdk}"
version=$(node -p 'require(process.argv[1]).dependencies["@modelcontextprotocol/sdk"]' "$here/package.json")
if ! grep -qs "\"version\": \"$version\"" "$sdk/node_modules/@modelcontextprotocol/sdk/package.json"; then
  echo "== npm install @modelcontextprotocol/sdk@$version"
  mkdir -p "$sdk"
  npm install --no-audit --no-fund --loglevel=error --prefix "$sdk" "@modelcontextprotocol/sdk@$version"
fi
node --version
echo "== go build vfsctl"
go build -o "$scratch/vfsctl" ./cmd/vfsctl
echo "== vfsctl serve through the TypeScript SDK's client"
VFSCTL_MCP_SDK="$sdk" node "$here/tools.test.mjs" "$scratch/vfsctl"
