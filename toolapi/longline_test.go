package toolapi

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// A line too long for a read's reply can be read alone, whole: the reply carries it
// and says so, and the session has then seen every line, so write_file is licensed.
func TestLongLineReadAloneLicensesWrite(t *testing.T) {
	long := strings.Repeat("0123456789", 1000) // 10,000 characters
	a, dir := newAPI(t, map[string]string{"long.txt": "first\n" + long + "\nlast\n"})

	r := call(a, ReadFile, `{"path": "long.txt"}`)
	if !r.OK || strings.Contains(r.Text, long) || !strings.Contains(r.Text, "offset 2, limit 1") {
		t.Fatalf("a whole-file read should cut line 2 and say how to read it whole: %.300q", r.Text)
	}
	if w := call(a, WriteFile, `{"path": "long.txt", "content": "new\n"}`); kindOf(w) != "not_read" {
		t.Fatalf("write_file before the long line was seen whole: %+v", w)
	}

	r = call(a, ReadFile, `{"path": "long.txt", "offset": 2, "limit": 1}`)
	if !r.OK || !strings.Contains(r.Text, "     2\t"+long+"\n") || !strings.Contains(r.Text, "line 2 shown whole") {
		t.Fatalf("line 2 read alone: %.300q ... %.300q", r.Text, r.Text[max(0, len(r.Text)-300):])
	}
	if w := call(a, WriteFile, `{"path": "long.txt", "content": "new\n"}`); !w.OK {
		t.Fatalf("write_file after every line was seen: %+v", w)
	}
	if got := testutil.ReadFile(t, filepath.Join(dir, "long.txt")); got != "new\n" {
		t.Fatalf("long.txt is %q", got)
	}
}
