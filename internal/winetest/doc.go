// Package winetest lets Windows test binaries run under Wine, which CI uses in place
// of a Windows machine. Imported (for its effect) by a test file of each package
// whose tests run there; it does nothing on Windows itself, nor on other systems.
//
// Wine 8 answers FileDispositionInformationEx with STATUS_NOT_IMPLEMENTED, which Go's
// os.Remove (1.25 and later) does not take as a reason to fall back to the older
// deletion, as it does for Windows versions without it: every os.Remove, and so the
// cleanup of every t.TempDir, fails there. Under Wine only, this sets the standard
// library's own switch for that fallback. It is built only with the tag wine, and
// the test binaries are then linked with -ldflags=-checklinkname=0 for it:
// GOOS=windows go test -c -tags wine -ldflags=-checklinkname=0 ./vfs. vfsctl's own code (internal/winfs) falls back by
// itself and needs none of this.
package winetest
