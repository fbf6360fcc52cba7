package txn

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/journal"
)

// Where the boot cannot be read (Wine has no BootId), an exec this process is running
// is still known as running: the open of the journal at its end does not settle it
// as abandoned, and its end records what the command changed.
func TestExecRunningHereWithoutABootID(t *testing.T) {
	e, dir := diskEngineWith(t, map[string]string{"a.txt": "a\n"}, Options{NoSync: true})
	defer e.Close()
	e.boot = ""
	o := LookOptions{}
	if _, err := e.CheckpointOutside(o); err != nil {
		t.Fatal(err)
	}
	x, err := e.BeginExec("s", "", ExecArgs{Argv: []string{"gen"}}, o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	look, err := x.End("exit 0")
	if err != nil {
		t.Fatalf("the exec's end: %v", err)
	}
	if len(look.Files) != 1 || look.Files[0].Path != "b.txt" {
		t.Fatalf("the exec's look: %+v", look.Files)
	}
}

// Where no process can read the boot (Wine has no BootId), an exec that another
// vfsctl runs is running while that vfsctl lives: the open of the journal by this
// process leaves its record pending, a checkpoint records nothing and names it, and
// its end records what its command changed. Before, the open took the exec for one
// whose vfsctl had stopped and settled it (state unknown, with the command's file),
// and the exec's end then failed: "record N would change the after hash of its file
// 0".
func TestExecOfAnotherProcessWithoutABootID(t *testing.T) {
	was := bootID
	bootID = func() string { return "" }
	t.Cleanup(func() { bootID = was })
	dir := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "VFSCTL_CHILD=execnoboot", "VFSCTL_DIR="+dir)
	cmd.Stderr = os.Stderr
	in, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The child ends before the workspace is removed: Windows removes no open file.
	t.Cleanup(func() { in.Close(); cmd.Process.Kill(); cmd.Wait() })
	out := bufio.NewScanner(stdout)
	line := func() string {
		if !out.Scan() {
			t.Fatalf("the exec's process ended: %v", out.Err())
		}
		return out.Text()
	}
	var seq uint64
	if l := line(); !strings.HasPrefix(l, "began ") {
		t.Fatalf("the exec's process: %s", l)
	} else {
		seq, _ = strconv.ParseUint(strings.TrimPrefix(l, "began "), 10, 64)
	}
	e := diskEngineOn(t, dir, Options{NoSync: true})
	if e.boot != "" {
		t.Fatalf("the engine knows boot %q", e.boot)
	}
	cp, err := e.CheckpointOutside(LookOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cp.Seq != 0 || len(cp.Files) != 0 || !slices.Equal(cp.Running, []uint64{seq}) {
		t.Errorf("a checkpoint while exec %d ran in another process: call %d, files %s, running %v; want nothing recorded, exec %d running", seq, cp.Seq, filesOf(&journal.Record{Files: cp.Files}), cp.Running, seq)
	}
	e.Close()
	fmt.Fprintln(in, "end")
	if l := line(); l != "files b.txt" {
		t.Errorf("the exec's end: %s, want its command's b.txt recorded", l)
	}
	e = diskEngineOn(t, dir, Options{NoSync: true})
	defer e.Close()
	for _, r := range records(t, e) {
		if r.Seq == seq && (r.State != journal.Committed || filePaths(r.Files) != "b.txt") {
			t.Errorf("exec %d's record: %s, holding %s; want committed, holding b.txt", seq, r.State, filesOf(r))
		}
	}
}

// execNoBootChild is the process of TestExecOfAnotherProcessWithoutABootID, which
// knows no boot: it begins an exec whose command writes b.txt, says "began SEQ",
// and ends the exec once a line comes on its input, saying "files PATHS" or "err".
func execNoBootChild(dir string) {
	bootID = func() string { return "" }
	e, err := crashEngine(dir)
	if err != nil {
		fmt.Println("err", err)
		return
	}
	defer e.Close()
	x, err := e.BeginExec("s", "t1", ExecArgs{Argv: []string{"gen"}}, LookOptions{})
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "b.txt"), []byte("b\n"), 0o644)
	}
	if err != nil {
		fmt.Println("err", err)
		return
	}
	fmt.Println("began", x.Seq())
	bufio.NewReader(os.Stdin).ReadString('\n')
	look, err := x.End("exit 0")
	if err != nil {
		fmt.Println("err", err)
		return
	}
	fmt.Println("files", filePaths(look.Files))
}
