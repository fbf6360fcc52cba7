package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/internal/winetest"
	"github.com/vfsctl/vfsctl/journal"
)

// killedBeforeWrite is a workspace whose call 2, an edit_file, was killed before it
// wrote: its record pending, the file at its prior content.
func killedBeforeWrite(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	var out, errb bytes.Buffer
	run([]string{"call", "--root", dir, "--session", "s"}, strings.NewReader(`{"tool": "read_file", "args": {"path": "a.txt"}}`), &out, &errb)
	j := journal.New(filepath.Join(dir, ".vfsctl", "journal.db"), journal.Options{Root: dir})
	if err := j.Acquire(); err != nil {
		t.Fatal(err)
	}
	r := &journal.Record{Time: time.Now().UTC(), Session: "s", Tool: "edit_file", Origin: journal.OriginModel, State: journal.Pending,
		Files: []journal.File{{Path: "a.txt", Op: journal.OpEdit, Before: journal.Hash([]byte("one\n")), After: journal.Hash([]byte("two\n"))}}}
	if err := j.Commit(func(tx *journal.Tx) error { return tx.Put(r) }); err != nil {
		t.Fatal(err)
	}
	j.Release()
	return dir
}

// The first command after a kill settles the call it left pending and says so on
// stderr, naming the call and what became of it; the next command says nothing more.
func TestSettledOnOpenIsSaid(t *testing.T) {
	dir := killedBeforeWrite(t)
	var out, errb bytes.Buffer
	if code := run([]string{"log", "--root", dir}, nil, &out, &errb); code != exitOK {
		t.Fatalf("log: exit %d: %s", code, errb.String())
	}
	if got := errb.String(); !strings.Contains(got, "recovery settled call 2 (edit_file)") || !strings.Contains(got, "now rolled_back") {
		t.Errorf("stderr of the first command after the kill: %q", got)
	}
	errb.Reset()
	run([]string{"log", "--root", dir}, nil, &out, &errb)
	if errb.Len() != 0 {
		t.Errorf("the second command says %q", errb.String())
	}
}

// A call that a live `vfsctl call` process acknowledged, and whose record it has not
// yet folded while it keeps the journal between calls, is no crash's leftover: the
// command that takes the journal from it settles the record without a word.
func TestSettledQuietlyBesideALiveProcess(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	c := exec.Command(bin, "call", "--root", dir, "--session", "s")
	in, err := c.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := c.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { in.Close(); c.Wait() }()
	io.WriteString(in, `{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "one", "newText": "two"}]}}`+"\n")
	reply, err := bufio.NewReader(outp).ReadString('\n')
	if err != nil || !strings.Contains(reply, `"ok":true`) {
		t.Fatalf("edit: %q, %v", reply, err)
	}
	var out, errb bytes.Buffer
	cmd := exec.Command(bin, "log", "--root", dir)
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("log: %v: %s", err, errb.String())
	}
	if errb.Len() != 0 {
		t.Errorf("log beside a live call process says on stderr: %q", errb.String())
	}
	if !strings.Contains(out.String(), "committed") {
		t.Errorf("log: %s", out.String())
	}
}

// An exec whose command still runs is left pending by a command run meanwhile, not
// settled as a crash's leftover: the exec records what its command changed when it
// ends.
func TestRunningExecIsLeftAlone(t *testing.T) {
	winetest.NeedPOSIXShell(t) // its command is a sh loop that waits for a file
	bin := buildVfsctl(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "f.txt"), []byte("a\n"), 0o644)
	gate := filepath.Join(dir, "go-on")
	x := exec.Command(bin, "exec", "--root", dir, "--session", "s", "--turn", "t1", "--",
		"sh", "-c", `while [ ! -e "$0" ]; do sleep 0.05; done; echo b >> f.txt`, gate)
	x.Dir = dir
	var xerr bytes.Buffer
	x.Stderr = &xerr
	if err := x.Start(); err != nil {
		t.Fatal(err)
	}
	defer x.Process.Kill()
	logOf := func() (string, string) {
		var out, errb bytes.Buffer
		cmd := exec.Command(bin, "log", "--root", dir)
		cmd.Stdout, cmd.Stderr = &out, &errb
		cmd.Run()
		return out.String(), errb.String()
	}
	var out, errs string
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if out, errs = logOf(); strings.Contains(out, " exec ") {
			break
		}
	}
	if !strings.Contains(out, "pending") || errs != "" {
		t.Errorf("log while the command runs: %q, stderr %q", out, errs)
	}
	os.WriteFile(gate, nil, 0o644)
	if err := x.Wait(); err != nil {
		t.Fatalf("exec: %v: %s", err, xerr.String())
	}
	if out, errs = logOf(); !strings.Contains(out, "committed") || !strings.Contains(out, "f.txt") {
		t.Errorf("log after the command: %q, stderr %q", out, errs)
	}
}

// fsck run first after a kill reports what recovery settled as it opened the journal,
// in its text and in --json; run again, it reports none.
func TestFsckSaysWhatWasSettled(t *testing.T) {
	for _, asJSON := range []bool{false, true} {
		dir := killedBeforeWrite(t)
		args := []string{"fsck", "--root", dir}
		if asJSON {
			args = append(args, "--json")
		}
		var out, errb bytes.Buffer
		if code := run(args, nil, &out, &errb); code != exitOK {
			t.Fatalf("fsck: exit %d: %s%s", code, out.String(), errb.String())
		}
		if asJSON {
			var rep struct {
				OK      bool
				Settled []struct {
					Seq         uint64
					Tool, State string
				}
			}
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
				t.Fatalf("fsck --json: %v: %s", err, out.String())
			}
			if len(rep.Settled) != 1 || rep.Settled[0].Seq != 2 || rep.Settled[0].Tool != "edit_file" || rep.Settled[0].State != "rolled_back" {
				t.Errorf("fsck --json after the kill: settled %+v in %s", rep.Settled, out.String())
			}
		} else if got := out.String(); !strings.Contains(got, "recovery settled call 2 (edit_file)") || !strings.Contains(got, "now rolled_back") {
			t.Errorf("fsck after the kill says:\n%s", got)
		}
		out.Reset()
		run([]string{"fsck", "--root", dir, "--json"}, nil, &out, &errb)
		if !strings.Contains(out.String(), `"settled":[]`) {
			t.Errorf("fsck run again: %s", out.String())
		}
	}
}
