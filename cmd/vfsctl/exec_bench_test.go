package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/testutil"
)

// The benchmarks of vfsctl exec against git doing what checkpointing runtimes do with
// it, on a copy of the Go tree's src (about 11,500 files): each iteration times both
// sides, in the same run, and reports their ratio. vfsctl runs as a process of its
// own (this test binary as the CLI), as git does. Run them with
//
//	go test -run '^$' -bench ExecAgainstGit -benchtime 5x ./cmd/vfsctl/

// benchTree copies $(go env GOROOT)/src into a new folder and returns it.
func benchTree(b *testing.B) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	return testutil.GoSrcCopy(b)
}

// vfsctlProc runs vfsctl with args in folder dir, as a process.
func vfsctlProc(b *testing.B, dir string, args ...string) {
	b.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir, cmd.Env = dir, append(os.Environ(), "VFSCTL_TEST_RUN=1")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("vfsctl %v: %v\n%s", args, err, out)
	}
}

// shadow is a git repository of ws kept outside it (as Cline's checkpoints keep one).
type shadow struct{ dir, ws string }

func (s shadow) git(b *testing.B, args ...string) {
	b.Helper()
	// No automatic gc: after the commit of 12,000 loose objects git starts one in the
	// background, which went on writing into the repository while the benchmark
	// removed it (a failure: "directory not empty"), took processor time from the
	// runs timed after it, and packed the repository whose size is compared.
	args = append([]string{"-c", "gc.auto=0", "-c", "maintenance.auto=false"}, args...)
	cmd := exec.Command("git", args...)
	cmd.Dir = s.ws
	cmd.Env = append(os.Environ(), "GIT_DIR="+s.dir, "GIT_WORK_TREE="+s.ws,
		"GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b")
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// checkpointRepo makes the shadow repository anew and commits the whole tree into it.
func checkpointRepo(b *testing.B, dir, ws string) shadow {
	b.Helper()
	os.RemoveAll(dir)
	s := shadow{dir, ws}
	s.git(b, "init", "--quiet")
	os.WriteFile(filepath.Join(dir, "info", "exclude"), []byte(".vfsctl/\n"), 0o644)
	s.git(b, "add", "-A")
	s.git(b, "commit", "--quiet", "-m", "checkpoint")
	return s
}

// treeSize is the size of the files below dir, and the space they take on disk
// (whole blocks: a file of 100 bytes takes one).
func treeSize(dir string) (size, disk int64) {
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if fi, err := d.Info(); err == nil {
				size += fi.Size()
				disk += diskBytes(fi)
			}
		}
		return nil
	})
	return size, disk
}

// timed runs fn and returns how long it took.
func timed(fn func()) time.Duration {
	t := time.Now()
	fn()
	return time.Since(t)
}

func report(b *testing.B, name string, d time.Duration) {
	b.ReportMetric(float64(d.Milliseconds())/float64(b.N), name+"-ms/op")
}

// vfsctl exec -- true on an unchanged tree against git status --porcelain on a warm
// index: both look at the files' metadata only.
func BenchmarkExecAgainstGitUnchanged(b *testing.B) {
	ws := benchTree(b)
	vfsctlProc(b, ws, "checkpoint")
	s := checkpointRepo(b, filepath.Join(b.TempDir(), "shadow"), ws)
	s.git(b, "status", "--porcelain") // a warm index
	var execT, statusT time.Duration
	b.ResetTimer()
	for range b.N {
		execT += timed(func() { vfsctlProc(b, ws, "exec", "--", "true") })
		statusT += timed(func() { s.git(b, "status", "--porcelain") })
	}
	report(b, "exec", execT)
	report(b, "status", statusT)
	b.ReportMetric(float64(execT)/float64(statusT), "exec/status")
}

// The first snapshot against git add -A && git commit into a new shadow repository,
// and the journal's size against that repository's.
func BenchmarkExecAgainstGitFirstSnapshot(b *testing.B) {
	ws := benchTree(b)
	dir := filepath.Join(b.TempDir(), "shadow")
	var snapT, gitT time.Duration
	var journal, repo, journalDisk, repoDisk int64
	b.ResetTimer()
	for range b.N {
		os.RemoveAll(filepath.Join(ws, ".vfsctl"))
		snapT += timed(func() { vfsctlProc(b, ws, "checkpoint") })
		gitT += timed(func() { checkpointRepo(b, dir, ws) })
		journal, journalDisk = treeSize(filepath.Join(ws, ".vfsctl"))
		repo, repoDisk = treeSize(dir)
	}
	report(b, "snapshot", snapT)
	report(b, "git-add-commit", gitT)
	b.ReportMetric(float64(snapT)/float64(gitT), "snapshot/git")
	b.ReportMetric(float64(journal)/(1<<20), "journal-MB")
	b.ReportMetric(float64(repo)/(1<<20), "repo-MB")
	b.ReportMetric(float64(journal)/float64(repo), "journal/repo")
	// On disk, each of git's loose objects takes whole blocks.
	b.ReportMetric(float64(journalDisk)/float64(repoDisk), "journal/repo-on-disk")
}

// A command that changes 100 files: what vfsctl exec adds to the command's own time,
// against two git status --porcelain runs (a look before and a look after).
func BenchmarkExecAgainstGitHundredFiles(b *testing.B) {
	ws := benchTree(b)
	var files []string
	filepath.WalkDir(filepath.Join(ws, "net", "http"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && len(files) < 100 && strings.HasSuffix(p, ".go") {
			rel, _ := filepath.Rel(ws, p)
			files = append(files, rel)
		}
		return nil
	})
	if len(files) < 100 {
		b.Fatalf("%d files", len(files))
	}
	script := append([]string{"sed", "-i", "$a // changed"}, files...)
	vfsctlProc(b, ws, "checkpoint")
	s := checkpointRepo(b, filepath.Join(b.TempDir(), "shadow"), ws)
	s.git(b, "status", "--porcelain")
	var cmdT, execT, statusT time.Duration
	b.ResetTimer()
	for range b.N {
		cmdT += timed(func() {
			cmd := exec.Command(script[0], script[1:]...)
			cmd.Dir = ws
			if out, err := cmd.CombinedOutput(); err != nil {
				b.Fatalf("%v %s", err, out)
			}
		})
		b.StopTimer()
		vfsctlProc(b, ws, "checkpoint") // the command's own run above, journaled apart
		b.StartTimer()
		execT += timed(func() { vfsctlProc(b, ws, append([]string{"exec", "--"}, script...)...) })
		statusT += timed(func() {
			s.git(b, "status", "--porcelain")
			s.git(b, "status", "--porcelain")
		})
	}
	added := execT - cmdT
	report(b, "command", cmdT)
	report(b, "exec", execT)
	report(b, "two-status", statusT)
	b.ReportMetric(float64(added)/float64(statusT), "added/two-status")
}
