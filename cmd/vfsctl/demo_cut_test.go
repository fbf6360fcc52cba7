package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// vfsctl demo | head -1 left its scratch workspace in the temporary folder: SIGPIPE
// killed it before its end removed it. It removes it, and ends as SIGPIPE would (141),
// nothing said on stderr. The reader is gone before the demo writes its first line.
func TestDemoCutShortRemovesItsWorkspace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGPIPE")
	}
	tmp := t.TempDir()
	for _, args := range [][]string{{"demo"}, {"demo", "--json"}} {
		pr, pw, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pr.Close()
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1", "TMPDIR="+tmp)
		cmd.Stdout = pw
		var errb strings.Builder
		cmd.Stderr = &errb
		err = cmd.Run()
		pw.Close()
		if code := cmd.ProcessState.ExitCode(); code != 141 || errb.Len() > 0 {
			t.Errorf("%q with its reader gone: %v, exit %d, stderr %q: want 141 and nothing said", args, err, code, errb.String())
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "vfsctl-demo-*")); len(left) > 0 {
			t.Errorf("%q with its reader gone left %q", args, left)
		}
	}
}

// demo --keep suggested "go run ./cmd/vfsctl log ..." whenever no vfsctl was on PATH:
// commands that work only in the source tree. An installed binary suggests itself as
// it was started; one go run built (in a go-build folder), go run.
func TestDemoSuggestsItselfAsStarted(t *testing.T) {
	bin := buildVfsctl(t) // not in a go-build folder, and not on PATH
	tmp := t.TempDir()
	cmd := exec.Command(bin, "demo", "--keep")
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp, "PATH="+tmp)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("demo --keep: %v", err)
	}
	for _, want := range []string{"\n  " + bin + " log --turn 2 --root ", "\n  " + bin + " show 16 --root "} {
		if !strings.Contains(string(out), want) {
			t.Errorf("demo --keep run as %s does not suggest %q:\n%s", bin, strings.TrimPrefix(want, "\n"), out)
		}
	}
	spaced := "'/home/u/my tools/vfsctl'" // as a POSIX shell takes it
	if runtime.GOOS == "windows" {
		spaced = `"/home/u/my tools/vfsctl"` // as cmd and PowerShell take it
	}
	for _, c := range []struct{ exe, arg0, version, want string }{
		{"/tmp/go-build2751/b001/exe/vfsctl", "/tmp/go-build2751/b001/exe/vfsctl", "(devel)", "go run ./cmd/vfsctl"},
		{"/home/u/.cache/go-build/3f/3f9a-d/vfsctl", "/home/u/.cache/go-build/3f/3f9a-d/vfsctl", "(devel)", "go run ./cmd/vfsctl"},
		{"/tmp/go-build9/b001/exe/vfsctl", "vfsctl", "v0.4.0", "go run github.com/vfsctl/vfsctl/cmd/vfsctl@v0.4.0"},
		{"/usr/local/bin/vfsctl", "vfsctl", "v0.4.0", "vfsctl"},
		{"/home/u/bin/vfsctl", "./bin/vfsctl", "(devel)", "./bin/vfsctl"},
		{"/home/u/my tools/vfsctl", "/home/u/my tools/vfsctl", "", spaced},
	} {
		if got := commandFor(c.exe, c.arg0, "github.com/vfsctl/vfsctl/cmd/vfsctl", c.version); got != c.want {
			t.Errorf("%s started as %s: %q, want %q", c.exe, c.arg0, got, c.want)
		}
	}
}
