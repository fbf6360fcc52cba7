package main

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/vfsctl/vfsctl/toolapi"
)

// findRoot is --root's default: the nearest enclosing folder that holds .vfsctl/, else
// the current one.
func findRoot() (string, error) {
	root, _, err := findRootAbove()
	return root, err
}

// findRootAbove is findRoot, reporting whether the root is a folder above the current
// one (found by its .vfsctl/).
func findRootAbove() (root string, above bool, err error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", false, err
	}
	for d := wd; ; {
		if fi, err := os.Stat(filepath.Join(d, ".vfsctl")); err == nil && fi.IsDir() {
			return d, d != wd, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return wd, false, nil
		}
		d = parent
	}
}

// serveRoot is the root of call and serve: --root, else found as findRoot finds it. A
// .vfsctl/ in a parent folder makes that folder the root, which a fresh checkout
// inside another workspace does not expect: the command then says on stderr which root
// and journal it uses, and with verbose it always does.
func serveRoot(name, flagRoot string, verbose bool, stderr io.Writer) (string, error) {
	root, above := flagRoot, false
	if root == "" {
		var err error
		if root, above, err = findRootAbove(); err != nil {
			return "", err
		}
	}
	if !verbose && !above {
		return root, nil
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	journal := filepath.Join(abs, ".vfsctl", "journal.db")
	switch {
	case above:
		fmt.Fprintf(stderr, "vfsctl %s: workspace root %s, found above the current folder (it holds .vfsctl%c); journal %s. Give --root to choose another.\n",
			name, abs, filepath.Separator, journal)
	case flagRoot != "":
		fmt.Fprintf(stderr, "vfsctl %s: workspace root %s (--root); journal %s.\n", name, abs, journal)
	default:
		fmt.Fprintf(stderr, "vfsctl %s: workspace root %s (the current folder); journal %s.\n", name, abs, journal)
	}
	return root, nil
}

func newSessionID() string {
	var b [6]byte
	rand.Read(b[:])
	return "s-" + hex.EncodeToString(b[:])
}

// refused reports an operator command that did nothing: with asJSON as
// {"ok": false, "kind", "text"} on stdout, as the outcome of undo is, so that a
// script reads every answer of --json the same way; else as text on stderr.
func refused(stdout, stderr io.Writer, asJSON bool, name string, kind toolapi.Kind, text string) int {
	if asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetEscapeHTML(false)
		enc.Encode(struct {
			OK   bool   `json:"ok"`
			Kind string `json:"kind"`
			Text string `json:"text"`
		}{false, string(kind), text})
	} else {
		fmt.Fprintf(stderr, "%s: %s%s\n", name, text, busyHint(string(kind)))
	}
	return exitRefused
}

// waitHint tells an operator, not a model, how to wait longer for a busy journal.
func waitHint(err error) string { return busyHint(string(toolapi.KindOf(err))) }

// busyHint is waitHint for an outcome that carries its kind.
func busyHint(kind string) string {
	if kind == string(toolapi.Busy) {
		return " (--wait sets how long to wait)"
	}
	return ""
}

// pathFromHere takes a path as an operator types it, from the current folder as git
// does, and names it relative to the workspace root; a path outside the root is refused.
func pathFromHere(root, p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	rootAbs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	// The current folder may be reached through a symlink the root was not, or the
	// other way round: compare the real paths too.
	for _, r := range []string{rootAbs, realPath(rootAbs)} {
		for _, a := range []string{abs, realPath(abs)} {
			if rel, err := filepath.Rel(r, a); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				return filepath.ToSlash(rel), nil
			}
		}
	}
	return "", fmt.Errorf("%s is outside the workspace root %s", p, rootAbs)
}

// realPath resolves the symlinks of p, or of its nearest existing parent for a path
// that no longer exists.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if parent := filepath.Dir(p); parent != p {
		return filepath.Join(realPath(parent), filepath.Base(p))
	}
	return p
}

// canonical resolves a path an operator typed (from the current folder) as the
// journal keys it (symlinks resolved); a path that no longer exists is cleaned only.
func canonical(eng *toolapi.Engine, p string) (string, error) {
	p, err := pathFromHere(eng.Root(), p)
	if err != nil {
		return "", err
	}
	return eng.CanonicalPath(p)
}
