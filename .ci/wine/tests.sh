#!/usr/bin/env bash
# Runs the Windows (amd64) test binary of every package under Wine, with -test.short,
# from the package's folder, and fails loudly if any test fails. The binaries are built
# with the tag wine (internal/winetest: Wine's os.Remove). A test that cannot run on
# Windows, or under Wine, skips and says why. Of the packages listed in
# .ci/wine/partial, only the tests named there run. Installs Wine and MinGW if missing
# (as smoke.sh does). Prints each package's counts and time.
set -euo pipefail
cd "$(dirname "$0")/../.."
need() {
  if ! command -v "$1" >/dev/null; then
    echo "== installing $2"
    sudo=""; [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y "$2" >/dev/null
  fi
  command -v "$1" >/dev/null || { echo "$1 is missing and $2 did not install it"; exit 1; }
}
need wine wine64
need x86_64-w64-mingw32-gcc gcc-mingw-w64-x86-64
scratch=$(mktemp -d)
trap 'WINEPREFIX="$scratch/prefix" wineserver -k 2>/dev/null; rm -rf "$scratch"' EXIT
export WINEPREFIX="$scratch/prefix" WINEDEBUG=-all
wineboot -i >/dev/null 2>&1 || true
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  .ci/wine/bcryptprimitives.c .ci/wine/bcryptprimitives.def -ladvapi32
# partial: "package TestName", one a line; # starts a comment.
only_of() {
  grep -v '^#' .ci/wine/partial | awk -v p="$1" '$1 == p { printf "%s%s", sep, $2; sep = "|" }'
}
failed=()
for pkg in $(go list ./...); do
  rel=${pkg#github.com/vfsctl/vfsctl}; rel=${rel#/}; rel=${rel:-.}
  [ -n "$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}x{{end}}' "./$rel")" ] || continue
  bin="$scratch/$(echo "$rel" | tr / _).exe"
  CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go test -c -tags wine -ldflags=-checklinkname=0 -o "$bin" "./$rel"
  args=(-test.short -test.v -test.timeout 10m)
  only=$(only_of "$rel")
  [ -z "$only" ] || args+=(-test.run "^($only)\$")
  start=$(date +%s)
  rc=0
  (cd "$rel" && wine "$bin" "${args[@]}") > "$scratch/out" 2>&1 || rc=$?
  count() { grep -c "^--- $1" "$scratch/out" || true; }
  echo "$rel: $(count PASS) passed, $(count SKIP) skipped, $(count FAIL) failed, $(($(date +%s) - start)) s"
  if [ "$rc" != 0 ] || grep -q '^--- FAIL' "$scratch/out"; then
    grep -E '^(--- FAIL|panic:|    [a-z_]+\.go:[0-9]+:)|testing.go' "$scratch/out" | head -60
    # A listed package's test that failed is run once more, alone: a test that passes
    # then is named as flaky under Wine (loudly, in the log), one that fails again
    # fails the run. A crash (no --- FAIL line) is never retried.
    again=$(grep -oE '^--- FAIL: [A-Za-z0-9_]+' "$scratch/out" | awk '{print $3}' | paste -sd'|' -)
    if [ -n "$only" ] && [ -n "$again" ] && (cd "$rel" && wine "$bin" -test.short -test.v -test.timeout 10m -test.run "^($again)\$") > "$scratch/again" 2>&1; then
      echo "FLAKY under Wine in $rel: $again failed, then passed run alone"
    else
      [ ! -f "$scratch/again" ] || grep -E '^(--- FAIL|panic:)' "$scratch/again" | head -20 || true
      rm -f "$scratch/again"
      failed+=("$rel")
    fi
  fi
done
if [ "${#failed[@]}" -gt 0 ]; then
  echo "wine tests: failed in ${failed[*]}"
  exit 1
fi
echo "wine tests: ok"
