package journal

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// victim is a file outside the journal's folder, on the same filesystem, with a time
// in the past: what a hard link in the folder would reach.
func victim(t *testing.T) (path string, check func(what string)) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "victim")
	const content = "the victim's own bytes\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	past := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	os.Chtimes(path, past, past)
	return path, func(what string) {
		t.Helper()
		b, err := os.ReadFile(path)
		fi, _ := os.Stat(path)
		if err != nil || string(b) != content || !fi.ModTime().Equal(past) {
			t.Errorf("%s: the file outside is now %q, modified %v (%v)", what, b, fi.ModTime(), err)
		}
	}
}

// TestSideFileOpenChecksFirst: a file of the journal's folder that is a hard link to
// another file, or another user's, is refused by open before anything is written or
// truncated; remove leaves it in place. O_TRUNC once truncated the file the link led
// to before its link count was looked at.
func TestSideFileOpenChecksFirst(t *testing.T) {
	flags := map[string]int{
		"truncate": os.O_WRONLY | os.O_CREATE | os.O_TRUNC,
		"append":   os.O_WRONLY | os.O_APPEND | os.O_CREATE,
		"rdwr":     os.O_RDWR | os.O_CREATE,
		"read":     os.O_RDONLY,
	}
	for what, flag := range flags {
		t.Run("link/"+what, func(t *testing.T) {
			dir := t.TempDir()
			v, unchanged := victim(t)
			if err := os.Link(v, filepath.Join(dir, "holder")); err != nil {
				t.Fatal(err)
			}
			d, err := New(filepath.Join(dir, "journal.db"), Options{Root: filepath.Dir(dir)}).openDir(false)
			if err != nil {
				t.Fatal(err)
			}
			defer d.close()
			f, err := d.open("holder", flag, 0o644)
			if err == nil {
				f.Close()
				t.Errorf("opened a hard link to a file outside")
			} else if !strings.Contains(err.Error(), "/holder is a hard link to another file (2 links)") {
				t.Errorf("refusal: %v", err)
			}
			unchanged("open " + what)
			d.remove("holder")
			if _, err := os.Lstat(filepath.Join(dir, "holder")); err != nil {
				t.Errorf("remove took the link away: %v", err)
			}
		})
	}
	t.Run("owner", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("not root: cannot give a file another owner")
		}
		dir := t.TempDir()
		p := filepath.Join(dir, "marks")
		os.WriteFile(p, []byte("someone else's\n"), 0o666)
		os.Chown(p, 1234, 1234)
		d, err := New(filepath.Join(dir, "journal.db"), Options{}).openDir(false)
		if err != nil {
			t.Fatal(err)
		}
		defer d.close()
		for what, flag := range flags {
			f, err := d.open("marks", flag, 0o644)
			switch {
			case flag == os.O_RDONLY && err != nil:
				t.Errorf("read: %v", err) // read, never written: lines verify by their tag
			case flag != os.O_RDONLY && err == nil:
				t.Errorf("%s: another user's file was opened for writing", what)
			case flag != os.O_RDONLY && !strings.Contains(err.Error(), "marks belongs to another user (uid 1234)"):
				t.Errorf("%s: refusal: %v", what, err)
			}
			if f != nil {
				f.Close()
			}
		}
		d.remove("marks")
		if b, _ := os.ReadFile(p); string(b) != "someone else's\n" {
			t.Errorf("another user's file is now %q", b)
		}
	})
}

// TestTicketNotTouchedThroughLink: a hard link put where a waiting process's ticket
// is never has its time set by the process's heartbeat.
func TestTicketNotTouchedThroughLink(t *testing.T) {
	queue := t.TempDir()
	v, unchanged := victim(t)
	name := "00000000000000000001-1"
	if err := os.Link(v, filepath.Join(queue, name)); err != nil {
		t.Fatal(err)
	}
	fd, err := openRoot(queue)
	if err != nil {
		t.Fatal(err)
	}
	defer closeHandle(fd)
	if err := touchTicket(fd, name); err == nil {
		t.Errorf("touched a hard link as a ticket")
	}
	clearTicket(fd, name)
	unchanged("ticket")
}
