package matcher

import (
	"errors"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// On real files, a snippet with one line changed is refused, and the hint names the
// region holding the snippet and the changed line as where it first differs.
func TestNotFoundHintOnRealFiles(t *testing.T) {
	goFiles, pyFiles := sourceFiles(t)
	if len(goFiles) < 100 {
		t.Skip("Go sources not found")
	}
	files := append([]string{filepath.Join(testutil.GOROOT(), "src", "runtime", "syscall_windows.go")}, goFiles...)
	files = append(files, pyFiles...)
	rng := rand.New(rand.NewSource(3))
	tried, right := 0, 0
	for k := 0; k < 4000 && tried < 300; k++ {
		path := files[rng.Intn(len(files))]
		if k < 40 {
			path = files[0] // the file the report named, many times
		}
		data, err := os.ReadFile(path)
		if err != nil || !utf8.Valid(data) || strings.Contains(string(data), "\r") {
			continue
		}
		lines := strings.SplitAfter(string(data), "\n")
		if len(lines) < 30 {
			continue
		}
		from := rng.Intn(len(lines) - 12)
		cnt := 5 + rng.Intn(6)
		snip := append([]string(nil), lines[from:from+cnt]...)
		old := strings.Join(snip, "")
		if strings.Count(string(data), old) != 1 {
			continue
		}
		// Change one line that has a word in it, not the first or last: a letter in
		// its first word doubled.
		c := 1 + rng.Intn(cnt-2)
		l := snip[c]
		w := strings.IndexFunc(l, func(r rune) bool { return r >= 'a' && r <= 'z' })
		if w < 0 || strings.TrimSpace(l) == "" {
			continue
		}
		snip[c] = l[:w+1] + l[w:]
		sent := strings.Join(snip, "")
		if strings.Contains(string(data), sent) {
			continue
		}
		_, err = Apply(data, []Edit{{OldText: sent, NewText: "x\n"}}, Options{Name: "f"})
		var r *Refusal
		if !errors.As(err, &r) || r.Kind != KindTextNotFound {
			continue
		}
		tried++
		want := fmt.Sprintf("first differs at line %d,", from+c+1)
		if strings.Contains(r.Message, want) {
			right++
		} else if right+20 > tried || testing.Verbose() {
			t.Logf("%s: changed line %d, hint: %s", path, from+c+1, r.Message)
		}
	}
	t.Logf("hint named the changed line in %d of %d", right, tried)
	if tried < 100 {
		t.Fatalf("only %d snippets tried", tried)
	}
	if right != tried {
		t.Errorf("the hint missed the changed line in %d of %d", tried-right, tried)
	}
}
