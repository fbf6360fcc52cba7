package vfs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// A path that holds an invisible or space-like character, or full-width letters, is
// taken by a reader for another: a miss names the character and the file meant, and
// a new name that would sit beside its look-alike is refused, so that no call makes
// two entries a reader cannot tell apart.
func TestLookalikeNames(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []string{"config.py", "my notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	f, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, c := range []struct{ sent, char, twin string }{
		{"config\u200b.py", `U+200B (zero width space) after "config"`, "config.py"},
		{"my\u00a0notes.txt", `U+00A0 (no-break space) after "my"`, "my notes.txt"},
	} {
		_, err := f.Read(c.sent)
		if errs.KindOf(err) != errs.FileNotFound || !strings.Contains(err.Error(), c.char) || !strings.Contains(err.Error(), "the file there is named "+c.twin+".") {
			t.Errorf("read %q: %v", c.sent, err)
		}
		r, err := f.Resolve(c.sent)
		if err != nil {
			t.Fatal(err)
		}
		if err := f.CheckNewName(r); errs.KindOf(err) != errs.InvalidInput || !strings.Contains(err.Error(), c.char) || !strings.Contains(err.Error(), c.twin+" already exists") {
			t.Errorf("new name %q: %v", c.sent, err)
		}
	}
	// Full-width letters: refused beside their plain twin, taken where none is.
	r, _ := f.Resolve("\uff43onfig.py")
	if err := f.CheckNewName(r); errs.KindOf(err) != errs.InvalidInput || !strings.Contains(err.Error(), `beside "config.py"`) {
		t.Errorf("full-width twin: %v", err)
	}
	for _, ok := range []string{"\uff43onf.py", "notes\u200c.txt", "a b.txt"} {
		r, _ := f.Resolve(ok)
		if err := f.CheckNewName(r); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	// A folder the create would make is checked too.
	r, _ = f.Resolve("sub\u3000dir/a.py")
	if err := f.CheckNewName(r); errs.KindOf(err) != errs.InvalidInput || !strings.Contains(err.Error(), "U+3000 (ideographic space)") {
		t.Errorf("odd folder name: %v", err)
	}
	// What a shell or a browser would have expanded is not made as a folder.
	for _, p := range []string{"~/x.txt", "$HOME/x.txt", "${HOME}/x.txt", "file:///x.txt"} {
		r, err := f.Resolve(p)
		if err != nil {
			// Windows refuses the colon of "file:" first: refused either way.
			if errs.KindOf(err) != errs.InvalidInput {
				t.Errorf("%s: %v", p, err)
			}
			continue
		}
		if err := f.CheckNewName(r); errs.KindOf(err) != errs.InvalidInput || !strings.Contains(err.Error(), "expands nothing") {
			t.Errorf("%s: %v", p, err)
		}
	}
	for _, ok := range []string{"$.txt", "a/~/x.txt", "file.txt"} {
		r, _ := f.Resolve(ok)
		if err := f.CheckNewName(r); err != nil {
			t.Errorf("%q refused: %v", ok, err)
		}
	}
	// A miss through full-width letters names the file meant too.
	if _, err := f.Read("\uff43\uff4f\uff4e\uff46\uff49\uff47.py"); errs.KindOf(err) != errs.FileNotFound || !strings.Contains(err.Error(), "the file there is named config.py") {
		t.Errorf("full-width miss: %v", err)
	}
	// Format characters that names need are not refused: an emoji flag's tags.
	r, _ = f.Resolve("\U0001F3F4\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F.txt")
	if err := f.CheckNewName(r); err != nil {
		t.Errorf("a flag's name refused: %v", err)
	}
	// A folder named ~ that stands in the workspace is the one meant.
	if err := os.Mkdir(filepath.Join(dir, "~"), 0o755); err != nil {
		t.Fatal(err)
	}
	r, _ = f.Resolve("~/x.txt")
	if err := f.CheckNewName(r); err != nil {
		t.Errorf("~/x.txt with a folder ~ there: %v", err)
	}
}
