#!/usr/bin/env bash
# Builds the npm packages, packs them as npm would publish them, installs the tarballs
# into a scratch project and runs the binary and the API from there. Fails loudly.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
expected="linux-x64 linux-arm64 darwin-x64 darwin-arm64 win32-x64 win32-arm64"
PLATFORMS="$expected" npm/build.sh
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/tgz" "$scratch/project" "$scratch/ws" "$scratch/unpacked"
for d in npm/dist/*/; do (cd "$d" && npm pack --silent --pack-destination "$scratch/tgz" >/dev/null); done
ls "$scratch/tgz"
# Each platform package, as packed: its os and cpu, and a binary of that system and
# processor, read from the executable's own header (ELF, Mach-O or PE), not from the
# package's name. The launcher must depend on each and know its name.
echo "== the platform packages' contents"
tar -xzf "$scratch"/tgz/vfsctl-0*.tgz -C "$scratch/unpacked" && mv "$scratch/unpacked/package" "$scratch/unpacked/vfsctl"
for p in $expected; do
  t=$(ls "$scratch"/tgz/vfsctl-"$p"-*.tgz 2>/dev/null) || { echo "no tarball for @vfsctl/$p"; exit 1; }
  mkdir -p "$scratch/unpacked/$p"
  tar -xzf "$t" -C "$scratch/unpacked/$p"
  node "$repo/npm/check-package.mjs" "$scratch/unpacked/$p/package" "$p" "$scratch/unpacked/vfsctl"
done
cd "$scratch/project"
npm init -y >/dev/null
# The launcher and this machine's platform package, from their tarballs, as npm would
# fetch them; the main package's other optional platform packages are skipped.
host=$(node -p 'process.platform + "-" + process.arch')
npm install --no-audit --no-fund --loglevel=error "$scratch"/tgz/vfsctl-0*.tgz "$scratch"/tgz/vfsctl-"$host"-*.tgz
test -d node_modules/@vfsctl/"$host" || { echo "the package @vfsctl/$host was not installed"; exit 1; }
echo "== npx vfsctl --version"
got=$(npx --no-install vfsctl --version)
echo "$got"
case "$got" in vfsctl\ *) ;; *) echo "unexpected version line: $got"; exit 1 ;; esac
echo "== one call through the API"
printf 'print("Hello, " + name)\n' > "$scratch/ws/app.py"
cat > check.mjs <<'JS'
import { call, open, binaryPath } from "vfsctl";
import { readFileSync } from "node:fs";
const ws = process.argv[2];
if (!binaryPath().includes("node_modules/@vfsctl/")) throw new Error(`binary not from the package: ${binaryPath()}`);
const r = await call("edit_file", { path: "app.py", edits: [{ oldText: "print(“Hello, ” + name)", newText: "print(“Hi, ” + name)" }] }, { root: ws, session: "npm-test" });
if (!r.ok) throw new Error(`edit refused: ${r.kind}: ${r.text}`);
const now = readFileSync(`${ws}/app.py`, "utf8");
if (now !== 'print("Hi, " + name)\n') throw new Error(`file is ${JSON.stringify(now)}`);
const s = open({ root: ws, session: "npm-test" });
const refused = await s.call("create_file", { path: "app.py", content: "x" }, { turn: "t2" });
if (refused.ok || refused.kind !== "file_exists") throw new Error(`create over a file: ${JSON.stringify(refused)}`);
const big = await s.call("read_file", { path: "app.py", offset: 1n }).then(() => "sent", (e) => e.message);
if (!big.includes("cannot be sent as JSON")) throw new Error(`a BigInt argument: ${big}`);
if (!(await s.call("read_file", { path: "app.py" })).ok) throw new Error("no call after the BigInt");
await s.close();
const nope = await call("read_file", { path: "a" }, { root: `${ws}/nope` }).then(() => "ran", (e) => e.message);
if (!nope.includes("is not a folder")) throw new Error(`a missing root: ${nope}`);
console.log("ok:", r.text.split("\n")[0], "/", refused.kind);
JS
node check.mjs "$scratch/ws"
echo "== open(): close() with calls in flight, the session across a restart (npm/test/session.mjs)"
mkdir -p "$scratch/ws-session"
cp "$repo/npm/test/session.mjs" .
node session.mjs "$scratch/ws-session"
echo "== open(): each call's traceparent on its line (npm/test/trace.mjs)"
mkdir -p "$scratch/trace"
cp "$repo/npm/test/trace.mjs" .
node trace.mjs "$scratch/trace"
echo "== npx vfsctl log"
(cd "$scratch/ws" && npx --prefix "$scratch/project" --no-install vfsctl log | tail -3)
echo "== the README's Node example"
mkdir -p "$scratch/readme"
printf 'print("Hello")\n' > "$scratch/readme/app.py"
awk '/^## Using it from your runtime/{on=1} on&&/^```js$/{js=1;next} js&&/^```$/{exit} js{print}' \
  "$repo/README.md" > "$scratch/project/readme.mjs"
test -s "$scratch/project/readme.mjs" || { echo "the README's runtime section has no js block"; exit 1; }
got=$(cd "$scratch/readme" && node "$scratch/project/readme.mjs")
echo "$got"
[ "$got" = "true null Edited app.py with 1 edit (line 1)." ] || { echo "unexpected output"; exit 1; }
grep -qx 'print("Hi")' "$scratch/readme/app.py" || { echo "app.py was not edited as meant"; exit 1; }
echo "== the README's Node install steps"
# Run as printed, for this machine's platform, with a scratch home and project.
awk '/^\*\*Node\*\*/{on=1} on&&/^```sh$/{sh=1;next} sh&&/^```$/{exit} sh{print}' "$repo/README.md" > "$scratch/install.sh"
grep -q 'npm install' "$scratch/install.sh" || { echo "the README's Node section has no install block"; exit 1; }
mkdir -p "$scratch/home" "$scratch/fresh"
sed -i -e "s|PLATFORMS=linux-x64|PLATFORMS=$host|" -e "s|/path/to/your/project|$scratch/fresh|" "$scratch/install.sh"
# Go's caches stay where they are: only ~ is the scratch home.
export GOPATH="$(go env GOPATH)" GOCACHE="$(go env GOCACHE)" GOMODCACHE="$(go env GOMODCACHE)"
(cd "$repo" && HOME="$scratch/home" npm_config_cache="$scratch/home/.npm" bash -e "$scratch/install.sh" >"$scratch/install.log" 2>&1) ||
  { cat "$scratch/install.log"; echo "the README's Node install steps failed"; exit 1; }
got=$(cd "$scratch/fresh" && npx --no-install vfsctl --version)
case "$got" in vfsctl\ *) echo "$got" ;; *) echo "after the README's steps: $got"; exit 1 ;; esac
