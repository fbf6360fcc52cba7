// Package winetest lets Windows test binaries run under Wine, which CI uses in place
// of a Windows machine, and says why a test skips there.
//
// Wine 8 answers FileDispositionInformationEx with STATUS_NOT_IMPLEMENTED, which Go's
// os.Remove (1.25 and later) does not take as a reason to fall back to the older
// deletion, as it does for Windows versions without it: every os.Remove, and so the
// cleanup of every t.TempDir, fails there. Under Wine only, a test file of each
// package (built with the tag wine) imports this package, which then sets the
// standard library's own switch for that fallback; the test binaries are linked with
// -ldflags=-checklinkname=0 for it:
// GOOS=windows go test -c -tags wine -ldflags=-checklinkname=0 ./vfs. vfsctl's own
// code (internal/winfs) falls back by itself and needs none of this.
//
// The Need and Skip helpers skip a test that cannot run on Windows, or under Wine,
// with the reason; they do nothing on Linux and macOS.
package winetest
