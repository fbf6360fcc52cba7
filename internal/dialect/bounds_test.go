package dialect

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// numbered is a file of n distinct lines.
func numbered(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// More chunks, or more stacked anchors, than one call places are too_large naming
// the bound; at the bounds the patch is placed, each chunk where its lines are.
func TestPatchBounds(t *testing.T) {
	file := numbered(MaxChunks*(MaxAnchors+1) + 1)
	var body []string
	for k := range MaxChunks {
		base := k * (MaxAnchors + 1)
		for a := range MaxAnchors {
			body = append(body, fmt.Sprintf("@@ line %d", base+a))
		}
		body = append(body, fmt.Sprintf("-line %d", base+MaxAnchors), fmt.Sprintf("+LINE %d", base+MaxAnchors))
	}
	got, err := patchFile(t, file, update("f.txt", body...))
	if err != nil {
		t.Fatalf("at the bounds: %v", err)
	}
	// Independent of the locator: the lines the patch names, changed by hand.
	want := file
	for k := MaxChunks - 1; k >= 0; k-- {
		n := k*(MaxAnchors+1) + MaxAnchors
		want = strings.Replace(want, fmt.Sprintf("\nline %d\n", n), fmt.Sprintf("\nLINE %d\n", n), 1)
	}
	if got != want {
		t.Fatalf("at the bounds: the patch changed other lines than it names")
	}

	over := append(body[:len(body):len(body)], "@@", "-line 0", "+x")
	if _, err := patchFile(t, file, update("f.txt", over...)); errs.KindOf(err) != errs.TooLarge || !strings.Contains(err.Error(), fmt.Sprint(MaxChunks)) {
		t.Errorf("%d chunks: want too_large naming %d, got %v", MaxChunks+1, MaxChunks, err)
	}
	anchors := []string{}
	for a := range MaxAnchors + 1 {
		anchors = append(anchors, fmt.Sprintf("@@ line %d", a))
	}
	anchors = append(anchors, "-line 100", "+x")
	if _, err := patchFile(t, file, update("f.txt", anchors...)); errs.KindOf(err) != errs.TooLarge || !strings.Contains(err.Error(), fmt.Sprint(MaxAnchors)) {
		t.Errorf("%d anchors: want too_large naming %d, got %v", MaxAnchors+1, MaxAnchors, err)
	}
}

// Chunks whose lines match only through the fuzzy tiers make the matcher search the
// rest of the file for each: past MaxFuzzyBytes (made small here) that is too_large.
func TestPatchFuzzyBound(t *testing.T) {
	defer func(b int) { fuzzyBudget = b }(fuzzyBudget)
	fuzzyBudget = 256 << 10
	var b strings.Builder
	for i := 0; b.Len() < 32<<10; i++ {
		fmt.Fprintf(&b, "say “%07d”\n", i)
	}
	var body []string
	for k := range 40 {
		body = append(body, "@@", fmt.Sprintf("-say \"%07d\"", k), "+x")
	}
	_, err := patchFile(t, b.String(), update("f.txt", body...))
	if errs.KindOf(err) != errs.TooLarge || !strings.Contains(err.Error(), fmt.Sprint(fuzzyBudget)) {
		t.Fatalf("want too_large naming %d, got %v", fuzzyBudget, err)
	}
	// Under the bound the same chunks are placed.
	if _, err := patchFile(t, b.String(), update("f.txt", body[:3]...)); err != nil {
		t.Fatal(err)
	}
}
