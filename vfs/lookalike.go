package vfs

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// Models drift in paths as they drift in text: a zero-width space or a no-break space
// copied into a name, a full-width letter. The matcher forgives such drift in text;
// in a path it would name another file, one that looks the same. So a lookup that
// misses says which character is odd and names the file meant, and a new name that
// holds one, or that looks the same as a name beside it, is refused: creating it would
// leave two entries a reader cannot tell apart.

// oddNames names the invisible and space-like characters models paste into paths.
var oddNames = map[rune]string{
	0x00a0: "no-break space", 0x00ad: "soft hyphen", 0x180e: "Mongolian vowel separator",
	0x2007: "figure space", 0x2009: "thin space", 0x200a: "hair space", 0x200b: "zero width space",
	0x2060: "word joiner", 0x202f: "narrow no-break space", 0x3000: "ideographic space",
	0xfeff: "zero width no-break space", 0x200e: "left-to-right mark", 0x200f: "right-to-left mark",
}

// odd reports an invisible character that is pasted by mistake (oddNames, the
// invisible operators U+2061 to U+2064) or a space other than U+0020. Other format
// characters stay allowed: the joiners U+200C and U+200D (Persian, emoji), the tags
// of emoji flags, Arabic number signs.
func odd(r rune) bool {
	_, named := oddNames[r]
	return named || (r >= 0x2061 && r <= 0x2064) || (unicode.Is(unicode.Zs, r) && r != ' ')
}

// oddIn describes the first odd character of p and where it is, or "".
func oddIn(p string) string {
	for i, r := range p {
		if !odd(r) {
			continue
		}
		name := oddNames[r]
		if name == "" {
			name = "an invisible character"
		}
		where := "at its start"
		if i > 0 {
			before := p[:i]
			if j := strings.LastIndexByte(before, '/'); j >= 0 && j < len(before)-1 {
				before = before[j+1:]
			}
			where = fmt.Sprintf("after %q", before)
		}
		return fmt.Sprintf("%U (%s) %s", r, name, where)
	}
	return ""
}

// plainName is name as it looks: odd spaces as spaces, invisible characters left out,
// compatibility forms (full-width letters) as their plain ones.
func plainName(name string) string {
	return norm.NFKC.String(strings.Map(func(r rune) rune {
		switch {
		case !odd(r):
			return r
		case unicode.Is(unicode.Zs, r):
			return ' '
		}
		return -1
	}, name))
}

// lookalike is the path a reader takes p for, when that differs from p and names an
// entry on disk: "" otherwise.
func (f *FS) lookalike(p string) string {
	plain := plainName(p)
	if plain == p {
		return ""
	}
	if _, err := f.lstat(plain); err != nil {
		return ""
	}
	return plain
}

// checkShellPath refuses a new path that a shell or a browser would have read as
// another: "~/x" (the home folder), "$HOME/x" (a variable), "file:///x" (a URI).
// vfsctl expands none of them, so each would make a folder literally named "~",
// "$HOME" or "file:".
func (f *FS) checkShellPath(r *Resolved) error {
	first, rest, _ := strings.Cut(r.Name, "/")
	if rest != "" {
		if fi, err := f.lstat(first); err == nil && fi.IsDir() {
			return nil // a folder of that name stands in the workspace: it is the one meant
		}
	}
	var what string
	switch {
	case first == "~":
		what = "~ (a home folder, which a shell expands)"
	case len(first) > 1 && first[0] == '$' && (first[1] == '{' || first[1] == '_' || unicode.IsLetter(rune(first[1]))):
		what = first + " (a variable, which a shell expands)"
	case strings.HasPrefix(r.Name, "file:/"):
		what = "file: (a URI)"
	default:
		return nil
	}
	return errs.New(errs.InvalidInput, r.Name, "%s starts with %s; vfsctl expands nothing in paths, so this would make a folder of that name. Send the path relative to the workspace root.", r.Name, what)
}

// checkLookalike refuses a new name, last of r.Path or one of the folders a create
// would make (missing), that holds an odd character or looks the same as an entry
// beside it.
func (f *FS) checkLookalike(r *Resolved, missing []string) error {
	for _, n := range append(missing, r.Path) {
		name := path.Base(n)
		if c := oddIn(name); c != "" {
			msg := fmt.Sprintf("%s would make a name holding %s. Send the name without it", r.Name, c)
			if twin := f.lookalike(r.Path); twin != "" {
				msg += fmt.Sprintf("; %s already exists", twin)
			}
			return errs.New(errs.InvalidInput, r.Name, "%s.", msg)
		}
		// Only a new name with compatibility characters lists its folder: listing it
		// for every create would cost a create in a folder of many files dearly. A
		// plain A.txt beside an existing Ａ.txt is let through (docs/security.md).
		plain := plainName(name)
		if plain == name {
			continue
		}
		dir := path.Dir(n)
		if entries, err := f.readDirNames(dir); err == nil {
			for _, e := range entries {
				if e != name && plainName(e) == plain {
					return errs.New(errs.InvalidInput, r.Name, "%s would make %q beside %q, which looks the same (%q is written with compatibility characters, such as full-width letters). Send the name as the entry there has it: %s.",
						r.Name, name, e, name, path.Join(dir, e))
				}
			}
		}
	}
	return nil
}

// readDirNames lists the names in canonical folder dir.
func (f *FS) readDirNames(dir string) ([]string, error) {
	h, err := f.fs.Open(dir)
	if err != nil {
		return nil, err
	}
	defer h.Close()
	fi, err := h.Stat()
	if err != nil || !fi.IsDir() {
		return nil, fs.ErrInvalid
	}
	return h.Readdirnames(-1)
}
