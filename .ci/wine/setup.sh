# Sourced by smoke.sh and tests.sh (bash, set -euo pipefail, from the checkout's
# root): installs Wine and MinGW if they are missing (Debian), makes a scratch folder
# ($scratch, removed on exit) with a private Wine prefix in it, and builds into that
# prefix the stand-in bcryptprimitives.dll (bcryptprimitives.c) that Wine 8 lacks and
# without which Go's runtime does not start. Fails loudly.
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
trap 'WINEPREFIX="$scratch/prefix" wineserver -k 2>/dev/null || true; rm -rf "$scratch"' EXIT
export WINEPREFIX="$scratch/prefix" WINEDEBUG=-all
wineboot -i >/dev/null 2>&1 || true
x86_64-w64-mingw32-gcc -shared -O2 -o "$WINEPREFIX/drive_c/windows/system32/bcryptprimitives.dll" \
  .ci/wine/bcryptprimitives.c .ci/wine/bcryptprimitives.def -ladvapi32
