package vfs

import (
	"fmt"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Names that stand for a reserved folder somewhere else. A workspace is shipped: to a
// Mac (HFS+ and APFS ignore some invisible characters in names and fold case), to
// Windows or WSL (NTFS drops trailing dots and spaces, opens a folder by its 8.3 short
// name, and reads "name:stream" as name), through git, whose own path check refuses
// these spellings of .git under core.protectHFS and core.protectNTFS. A name that any
// of them takes for a reserved folder is reserved here too, whatever the filesystem
// under the root: "GIT~1/config" is a plain folder on Linux and .git/config once the
// tree is checked out on Windows.

// hfsIgnored reports the code points HFS+ leaves out when it compares names (git's
// list for core.protectHFS): joiners, direction marks and embeddings, the deprecated
// shaping controls, and the zero-width no-break space.
func hfsIgnored(r rune) bool {
	switch {
	case r >= 0x200c && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x206a && r <= 0x206f, r == 0xfeff:
		return true
	}
	return false
}

// bidiControl reports the bidirectional embeddings, overrides and isolates, which make
// a name display as another ("x\u202etxt.exe" shows as "xexe.txt").
func bidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// bidiNames names the bidirectional controls for messages.
var bidiNames = map[rune]string{
	0x202a: "LEFT-TO-RIGHT EMBEDDING", 0x202b: "RIGHT-TO-LEFT EMBEDDING", 0x202c: "POP DIRECTIONAL FORMATTING",
	0x202d: "LEFT-TO-RIGHT OVERRIDE", 0x202e: "RIGHT-TO-LEFT OVERRIDE", 0x2066: "LEFT-TO-RIGHT ISOLATE",
	0x2067: "RIGHT-TO-LEFT ISOLATE", 0x2068: "FIRST STRONG ISOLATE", 0x2069: "POP DIRECTIONAL ISOLATE",
}

// bidiIn returns a description of the first bidirectional control in name, or "".
func bidiIn(name string) string {
	for _, r := range name {
		if bidiControl(r) {
			return fmt.Sprintf("%U %s", r, bidiNames[r])
		}
	}
	return ""
}

// foldName is name as NTFS compares it, in upper case (its table upcases a dotless i
// to I), after NFKC (a full-width dot is a dot).
func foldName(name string) string {
	return strings.ToUpper(norm.NFKC.String(name))
}

// hfsName is name as HFS+ compares it: foldName without the code points it ignores.
func hfsName(name string) string {
	return foldName(strings.Map(func(r rune) rune {
		if hfsIgnored(r) {
			return -1
		}
		return r
	}, name))
}

// ntfsName is a folded name as NTFS opens it: an alternate data stream (".git::$DATA")
// names the file before the colon, and trailing dots and spaces are dropped.
func ntfsName(folded string) string {
	if i := strings.IndexByte(folded, ':'); i >= 0 {
		folded = folded[:i]
	}
	return strings.TrimRight(folded, ". ")
}

// shortName returns the 8.3 short name NTFS gives a folder named r, without its
// "~N" tail: the first six characters of the name left of its last dot, leading dots,
// other dots and spaces removed, and up to three of its extension (".git" is GIT~1,
// ".vfsctl" VFSCTL~1). It returns ok false for a name that is a valid short name
// already, which gets none.
func shortName(r string) (base, ext string, ok bool) {
	if valid83(r) {
		return "", "", false
	}
	s := strings.TrimLeft(r, ".")
	if i := strings.LastIndexByte(s, '.'); i >= 0 {
		s, ext = s[:i], s[i+1:]
	}
	s = strings.NewReplacer(".", "", " ", "").Replace(s)
	if len(s) > 6 {
		s = s[:6]
	}
	if len(ext) > 3 {
		ext = ext[:3]
	}
	return strings.ToUpper(s), strings.ToUpper(ext), s != ""
}

// valid83 reports a name that fits 8.3 as it is: up to eight characters, one optional
// dot and up to three after it, none of them a space or a leading dot.
func valid83(r string) bool {
	base, ext, _ := strings.Cut(r, ".")
	if base == "" || len(base) > 8 || len(ext) > 3 || strings.ContainsAny(ext, ". ") || strings.Contains(base, " ") {
		return false
	}
	for _, c := range r {
		if c > unicode.MaxASCII {
			return false
		}
	}
	return true
}

// reservedName is one reserved folder name, with what it is compared as.
type reservedName struct {
	name      string // as configured
	folded    string // foldName(name)
	base, ext string // its 8.3 short name, when it has one
	short     bool
}

// reservedSet is the reserved folder names of an FS, folded once.
type reservedSet []reservedName

func newReservedSet(names []string) reservedSet {
	s := make(reservedSet, 0, len(names))
	for _, n := range names {
		r := reservedName{name: n, folded: foldName(n)}
		r.base, r.ext, r.short = shortName(n)
		s = append(s, r)
	}
	return s
}

// as returns the reserved folder that the path component name stands for, on this
// filesystem or on one that folds names, or "". A backslash separates names on
// Windows, so each part between backslashes is looked at too.
func (s reservedSet) as(name string) string {
	for rest, more := name, true; more; {
		var part string
		part, rest, more = strings.Cut(rest, `\`)
		hfs := part
		if !isASCII(part) {
			// ASCII needs no fold: EqualFold below compares it.
			hfs, part = hfsName(part), foldName(part)
		}
		nt := ntfsName(part)
		for _, r := range s {
			if strings.EqualFold(hfs, r.folded) || strings.EqualFold(nt, r.folded) || r.short && isShort(nt, r.base, r.ext) {
				return r.name
			}
		}
	}
	return ""
}

// isShort reports whether name, as NTFS opens it, is base~N[.ext] for N from 1 to 4
// (any case): the short names Windows gives the first four long names that share a
// prefix (git checks GIT~1 for .git, and ~1 to ~4 for its other dotfiles).
func isShort(name, base, ext string) bool {
	n := len(base) + 2
	if len(name) < n || !strings.EqualFold(name[:len(base)], base) || name[len(base)] != '~' || name[n-1] < '1' || name[n-1] > '4' {
		return false
	}
	if ext == "" {
		return len(name) == n
	}
	return len(name) == n+1+len(ext) && name[n] == '.' && strings.EqualFold(name[n+1:], ext)
}
