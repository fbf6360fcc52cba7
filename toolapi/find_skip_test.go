package toolapi

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// callWithin runs a call that must not block: a FIFO opened for reading waits for a
// writer forever, so a call that opens one fails the test instead of hanging it.
func callWithin(t *testing.T, a *dispatcher, tool, args string) Result {
	t.Helper()
	done := make(chan Result, 1)
	go func() { done <- call(a, tool, args) }()
	select {
	case r := <-done:
		return r
	case <-time.After(20 * time.Second):
		t.Fatalf("%s %s did not return: it opened something that blocks", tool, args)
		return Result{}
	}
}

// A FIFO named .gitignore is not opened (it would block list_files for ever), a huge
// .gitignore is not read, and the reply says which ignore files were not used.
func TestListFilesSkipsSpecialIgnoreFiles(t *testing.T) {
	a, dir := newAPI(t, map[string]string{
		"a.txt":          "a\n",
		"sub/b.txt":      "b\n",
		"big/c.txt":      "c\n",
		"big/.gitignore": "c.txt\n" + strings.Repeat("# padding\n", 40000),
	})
	for _, p := range []string{".gitignore", "sub/.gitignore"} {
		makeFIFO(t, filepath.Join(dir, p))
	}
	r := callWithin(t, a, ListFiles, `{}`)
	if !r.OK {
		t.Fatalf("list_files refused: %s", r.Text)
	}
	// The huge .gitignore would hide c.txt; not read, it hides nothing.
	for _, want := range []string{"a.txt", "sub/b.txt", "big/c.txt"} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the listing lacks %s:\n%s", want, r.Text)
		}
	}
	if !strings.Contains(r.Text, "2 .gitignore files not used (not a regular file): .gitignore, sub/.gitignore") {
		t.Errorf("the reply does not say the FIFOs were not used:\n%s", r.Text)
	}
	if !strings.Contains(r.Text, "1 .gitignore file not used (over 256 KB): big/.gitignore") {
		t.Errorf("the reply does not say the huge .gitignore was not used:\n%s", r.Text)
	}
	// search_files walks the same folders.
	r = callWithin(t, a, SearchFiles, `{"pattern": "b"}`)
	if !r.OK || !strings.Contains(r.Text, "sub/b.txt:1: b") {
		t.Fatalf("search_files: %+v", r)
	}
}

// search_files says what it did not search: files over 4 MB, files that are not
// regular (a FIFO is never opened), and folders deeper than it descends.
func TestSearchFilesSaysWhatItSkipped(t *testing.T) {
	deep := strings.Repeat("d/", 70) + "deep.txt"
	a, dir := newAPI(t, map[string]string{
		"small.txt": "needle\n",
		"big.log":   "needle\n" + strings.Repeat("x", maxSearchBytes),
		deep:        "needle\n",
	})
	makeFIFO(t, filepath.Join(dir, "pipe.txt"))
	r := callWithin(t, a, SearchFiles, `{"pattern": "needle"}`)
	if !r.OK || !strings.Contains(r.Text, "small.txt:1: needle") {
		t.Fatalf("search_files: %+v", r)
	}
	for _, want := range []string{
		"1 file over 4 MB not searched: big.log",
		"1 entry that is not a regular file not searched: pipe.txt",
		"1 folder deeper than 64 levels not searched: " + strings.Repeat("d/", 63) + "d",
	} {
		if !strings.Contains(r.Text, want) {
			t.Errorf("the reply lacks %q:\n%s", want, r.Text)
		}
	}
	if strings.Contains(r.Text, "deep.txt") {
		t.Errorf("a file below the depth bound was searched:\n%s", r.Text)
	}
	// With nothing found, the reply still says what was not searched.
	r = callWithin(t, a, SearchFiles, `{"pattern": "nowhere"}`)
	if !r.OK || !strings.Contains(r.Text, "1 file over 4 MB not searched: big.log") {
		t.Errorf("no match: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(dir, "pipe.txt")); err != nil {
		t.Fatal(err)
	}
}
