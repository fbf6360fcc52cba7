package txn

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// benchGoTree is a copy of $(go env GOROOT)/src (about 12,800 entries), or the tree
// VFSCTL_BENCH_TREE names (used as it is: a look of an unchanged tree changes nothing).
func benchGoTree(b *testing.B) string {
	b.Helper()
	if dir := os.Getenv("VFSCTL_BENCH_TREE"); dir != "" {
		return dir
	}
	return testutil.GoSrcCopy(b)
}

// The looks of an exec of a command that changes nothing, in one process: the look
// before (the snapshot read, a walk), the pending record, the look after (a walk)
// and the record's end. What a process adds (its start, the journal's open) is not in
// it: BenchmarkExecAgainstGit in cmd/vfsctl has the whole.
func BenchmarkExecLooksUnchanged(b *testing.B) {
	dir := benchGoTree(b)
	e := diskEngineOn(b, dir, Options{NoSync: true})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"true"}, Cwd: "."}, LookOptions{})
		if err != nil {
			b.Fatal(err)
		}
		look, err := x.End("exit 0")
		if err != nil {
			b.Fatal(err)
		}
		if len(look.Files) != 0 {
			b.Fatalf("an unchanged tree: %d files changed", len(look.Files))
		}
	}
}

// The looks of an exec of a command that appends a line to 100 files (as
// BenchmarkExecAgainstGitHundredFiles in cmd/vfsctl does, with sed -i): both looks,
// the pending record, and the end that tells the 100 changes and stores their
// contents. The command's own writes are not timed. It changes files of the tree
// VFSCTL_BENCH_TREE names.
func BenchmarkExecLooksHundredFiles(b *testing.B) {
	dir := benchGoTree(b)
	var files []string
	filepath.WalkDir(filepath.Join(dir, "net", "http"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && len(files) < 100 && strings.HasSuffix(p, ".go") {
			files = append(files, p)
		}
		return nil
	})
	if len(files) < 100 {
		b.Fatalf("%d files", len(files))
	}
	e := diskEngineOn(b, dir, Options{})
	defer e.Close()
	if _, err := e.CheckpointOutside(LookOptions{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"sed"}, Cwd: "."}, LookOptions{})
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		for _, p := range files {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				b.Fatal(err)
			}
			f.WriteString("// changed\n")
			f.Close()
		}
		b.StartTimer()
		look, err := x.End("exit 0")
		if err != nil {
			b.Fatal(err)
		}
		if len(look.Files) != len(files) {
			b.Fatalf("%d files changed, want %d", len(look.Files), len(files))
		}
	}
}
