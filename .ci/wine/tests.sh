#!/usr/bin/env bash
# Runs the Windows (amd64) test binary of every package under Wine, with -test.short,
# from the package's folder, and fails loudly if any test fails. The binaries are built
# with the tag wine (internal/winetest: Wine's os.Remove). A test that cannot run on
# Windows, or under Wine, skips and says why. The tests named in .ci/wine/excluded are
# left out (-test.skip), each with its reason there. A test that fails is run once
# more alone: one that passes then is printed as FLAKY under Wine and does not fail
# the run; one that fails again does. Wine, MinGW and the prefix come from setup.sh.
# Prints each package's counts and time, and the whole run's. Arguments, if any, are
# the packages to run (as go list takes them); the default is all.
set -euo pipefail
cd "$(dirname "$0")/../.."
. .ci/wine/setup.sh
# The crash loops start a child per round, which takes Wine a second or more: a few
# rounds show that recovery works there; Linux runs 20 (200 in full).
export VFSCTL_CRASH_ROUNDS=${VFSCTL_CRASH_ROUNDS:-4}
# excluded: "package TestName reason...", one a line; # starts a comment.
excluded_of() {
  grep -v '^#' .ci/wine/excluded | awk -v p="$1" '$1 == p { printf "%s%s", sep, $2; sep = "|" }'
}
failed=()
begin=$(date +%s)
for pkg in $(go list "${@:-./...}"); do
  rel=${pkg#github.com/vfsctl/vfsctl}; rel=${rel#/}; rel=${rel:-.}
  [ -n "$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}x{{end}}' "./$rel")" ] || continue
  bin="$scratch/$(echo "$rel" | tr / _).exe"
  CGO_ENABLED=0 GOOS=windows GOARCH=amd64 go test -c -tags wine -ldflags=-checklinkname=0 -o "$bin" "./$rel"
  args=(-test.short -test.v -test.timeout 20m)
  out=$(excluded_of "$rel")
  [ -z "$out" ] || args+=(-test.skip "^($out)\$")
  start=$(date +%s)
  rc=0
  (cd "$rel" && wine "$bin" "${args[@]}") > "$scratch/out" 2>&1 || rc=$?
  if [ "$rc" != 0 ] && ! grep -q '^=== RUN' "$scratch/out"; then
    # Not one test began: Wine failed to start the binary (seen once in a loaded run,
    # no output at all), not a test. Said, and run again once.
    echo "$rel: Wine did not start the tests (exit status $rc): run again"
    tail -5 "$scratch/out"
    rc=0
    (cd "$rel" && wine "$bin" "${args[@]}") > "$scratch/out" 2>&1 || rc=$?
  fi
  count() { grep -c "^--- $1" "$scratch/out" || true; }
  echo "$rel: $(count PASS) passed, $(count SKIP) skipped, $(count FAIL) failed$([ -z "$out" ] || echo ", $(echo "$out" | tr '|' '\n' | wc -l) excluded"), $(($(date +%s) - start)) s"
  if [ "$rc" != 0 ] || grep -q '^--- FAIL' "$scratch/out"; then
    # The failures, and the tests a timeout caught running.
    grep -E '^(--- FAIL|panic:|    [a-z_]+\.go:[0-9]+:|\s+Test[A-Za-z0-9_/]+ \([0-9])' "$scratch/out" | head -60 || true
    # A crash or a timeout (no --- FAIL line) is never retried.
    again=$({ grep -oE '^--- FAIL: [A-Za-z0-9_]+' "$scratch/out" || true; } | awk '{print $3}' | paste -sd'|' -)
    # No test failed by name: the binary crashed or Wine did; its last words say which.
    [ -n "$again" ] || { echo "exit status $rc; the output's end:"; tail -20 "$scratch/out"; }
    if [ -n "$again" ] && ! grep -q '^panic:' "$scratch/out" &&
      (cd "$rel" && wine "$bin" -test.short -test.v -test.timeout 10m -test.run "^($again)\$") > "$scratch/again" 2>&1; then
      echo "FLAKY under Wine in $rel: $again failed, then passed run alone"
    else
      [ ! -f "$scratch/again" ] || grep -E '^(--- FAIL|panic:)' "$scratch/again" | head -20 || true
      rm -f "$scratch/again"
      failed+=("$rel")
    fi
  fi
done
echo "wine tests: $(($(date +%s) - begin)) s"
if [ "${#failed[@]}" -gt 0 ]; then
  echo "wine tests: failed in ${failed[*]}"
  exit 1
fi
echo "wine tests: ok"
