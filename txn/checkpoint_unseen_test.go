package txn

import (
	"slices"
	"testing"
)

// A checkpoint that finds nothing changed writes no record, and so held no note: a
// .git/info/exclude that cannot be used went unsaid by every such checkpoint, while
// every exec said it. The reply says it each time, the first checkpoint's too, and
// still no record is written for it alone.
func TestCheckpointSaysUnusedExcludeWhenNothingChanged(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	writeFile(t, dir, ".git/info/exclude/x", "*.log\n") // a folder where the file goes
	want := []string{".git/info/exclude is a folder" + excludeNoteEnd}
	for i := range 3 {
		look, err := e.CheckpointOutside(LookOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if look.Seq != 0 || len(look.Files) > 0 {
			t.Fatalf("checkpoint %d recorded call %d (%d files); nothing changed", i+1, look.Seq, len(look.Files))
		}
		if !slices.Equal(look.Notes, want) {
			t.Errorf("checkpoint %d (first %v) says %q, want %q", i+1, look.First, look.Notes, want)
		}
	}
	if rs := records(t, e); len(rs) != 0 {
		t.Errorf("%d records written for checkpoints that found nothing changed", len(rs))
	}
}
