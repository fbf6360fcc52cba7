#!/usr/bin/env bash
# Runs the Windows build of vfsctl under Wine on a scratch workspace and checks what
# a user would see: a read, a sloppy edit matched and written, a file made in a new
# folder, names Windows cannot store refused as invalid_input, the reserved folder
# refused, a delete undone, and the log. Fails loudly. Wine, MinGW and the private
# Wine prefix come from setup.sh. This is not Windows: see docs/runtime.md#platforms.
set -euo pipefail
cd "$(dirname "$0")/../.."
. .ci/wine/setup.sh
CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go build -o "$scratch/vfsctl.exe" ./cmd/vfsctl
mkdir "$scratch/ws"
cd "$scratch/ws"
printf 'print("Hello, " + name)\n' > app.py
wine "$scratch/vfsctl.exe" --version
out=$(wine "$scratch/vfsctl.exe" call --tools all 2>&1 <<'CALLS' || true
{"tool":"read_file","args":{"path":"app.py"}}
{"tool":"edit_file","args":{"path":"app.py","edits":[{"oldText":"print(“Hello, ” + name)","newText":"print(\"Hi, \" + name)"}]}}
{"tool":"create_file","args":{"path":"sub/new.txt","content":"x\n"}}
{"tool":"list_files","args":{"path":"."}}
{"tool":"move_file","args":{"source":"sub/new.txt","destination":"moved/new.txt"}}
{"tool":"move_file","args":{"source":"moved/new.txt","destination":"sub/new.txt"}}
{"tool":"create_file","args":{"path":"NUL.txt","content":"x\n"}}
{"tool":"create_file","args":{"path":"a.txt:stream","content":"x\n"}}
{"tool":"read_file","args":{"path":".vfsctl/journal.db"}}
{"tool":"delete_file","args":{"path":"sub/new.txt"}}
CALLS
)
echo "$out"
fail() { echo "wine smoke: $*"; exit 1; }
kinds=$(echo "$out" | grep -o '"kind":[^,]*' | tr '\n' ' ')
[ "$kinds" = '"kind":null "kind":null "kind":null "kind":null "kind":null "kind":null "kind":"invalid_input" "kind":"invalid_input" "kind":"path_reserved" "kind":null ' ] ||
  fail "the replies' kinds are $kinds"
echo "$out" | grep -q '"tool":"list_files".*sub/new.txt' || fail "list_files did not walk into sub/"
[ "$(cat app.py)" = 'print("Hi, " + name)' ] || fail "app.py holds $(cat app.py)"
[ ! -e sub/new.txt ] || fail "sub/new.txt was not deleted"
[ ! -e NUL.txt ] && [ ! -e a.txt ] || fail "a refused name was written"
wine "$scratch/vfsctl.exe" undo 2>&1
[ "$(cat sub/new.txt)" = x ] || fail "undo did not put sub/new.txt back"
wine "$scratch/vfsctl.exe" log 2>&1 | tee "$scratch/log"
grep -q 'undo .*committed' "$scratch/log" || fail "the log does not show the undo"
[ "$(stat -c %s .vfsctl/journal.db)" -lt 16777216 ] || fail "journal.db is $(stat -c %s .vfsctl/journal.db) bytes"
echo "wine smoke: ok"
