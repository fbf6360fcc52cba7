package toolapi

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
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

// The note on lines cut in a read is advice a model follows as written: each line it
// sends to be read alone is then shown whole; a line too long for any reply is not
// sent there, and its note says plainly how much of it was shown.
func TestCutLineAdviceWorksWhenFollowed(t *testing.T) {
	lines := []string{"first", strings.Repeat("a", 3000), strings.Repeat("y", 300_000), strings.Repeat("b", 5000), "last"}
	a, _ := newAPI(t, map[string]string{"mixed.txt": strings.Join(lines, "\n") + "\n"})
	r := call(a, ReadFile, `{"path": "mixed.txt"}`)
	advice := regexp.MustCompile(`lines? longer than 2000 characters cut: ([0-9, ]+)\. To see such a line whole, read it alone \(offset ([0-9]+), limit 1\)`).FindStringSubmatch(r.Text)
	if !r.OK || advice == nil {
		t.Fatalf("the read of mixed.txt gives no advice to read its cut lines alone: %.200q", r.Text[max(0, len(r.Text)-600):])
	}
	for _, n := range strings.Split(advice[1], ", ") {
		ln, _ := strconv.Atoi(n)
		r := call(a, ReadFile, fmt.Sprintf(`{"path": "mixed.txt", "offset": %d, "limit": 1}`, ln))
		if !r.OK || !strings.Contains(r.Text, fmt.Sprintf("%6d\t%s\n", ln, lines[ln-1])) || !strings.Contains(r.Text, "shown whole") {
			t.Errorf("line %d, read alone as advised, is not shown whole: %.300q", ln, r.Text[max(0, len(r.Text)-300):])
		}
	}
	huge := "(line 3 is 300000 characters, over 256 KiB: too long to show whole in any read, so only its first 2000 characters are shown."
	if !strings.Contains(r.Text, huge) {
		t.Errorf("the read does not say plainly that line 3 cannot be shown whole: %q", r.Text[max(0, len(r.Text)-600):])
	}
	r = call(a, ReadFile, `{"path": "mixed.txt", "offset": 3, "limit": 1}`)
	if !strings.Contains(r.Text, huge) || strings.Contains(r.Text, "limit 1") {
		t.Errorf("line 3 read alone: %q", r.Text[max(0, len(r.Text)-600):])
	}
}
