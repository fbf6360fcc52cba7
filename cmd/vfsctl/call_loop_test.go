package main

import (
	"bufio"
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lineFeed is a stdin that gives one line per Read and notes, at each Read, how many
// replies stdout held: a Read while a call runs is a goroutine blocked on stdin.
type lineFeed struct {
	lines []string
	out   *syncBuffer
	seen  []int // replies written when each Read came
}

func (f *lineFeed) Read(p []byte) (int, error) {
	f.seen = append(f.seen, strings.Count(f.out.String(), "\n"))
	if len(f.lines) == 0 {
		return 0, io.EOF
	}
	n := copy(p, f.lines[0])
	f.lines[0] = f.lines[0][n:]
	if f.lines[0] == "" {
		f.lines = f.lines[1:]
	}
	return n, nil
}

type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// vfsctl call reads the next line only once the last one's reply is written: no
// goroutine sits in a read of stdin while a call runs (which would keep a processor
// in a system call for the call's length, to be taken back and handed on by the
// runtime every time, waking threads).
func TestCallReadsAfterItReplies(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\ntwo\n"), 0o644)
	out := &syncBuffer{}
	in := &lineFeed{out: out, lines: []string{
		`{"id":1,"tool":"edit_file","args":{"path":"a.txt","edits":[{"oldText":"one","newText":"ONE"}]}}` + "\n",
		`{"id":2,"tool":"read_file","args":{"path":"a.txt"}}` + "\n",
		"not json\n",
		`{"id":4,"tool":"edit_file","args":{"path":"a.txt","edits":[{"oldText":"two","newText":"TWO"}]}}` + "\n",
	}}
	var errb bytes.Buffer
	code := run([]string{"call", "--root", dir, "--guard", "off"}, in, out, &errb)
	if code != exitRefused { // the line that is not JSON
		t.Fatalf("exit %d, want %d: %s", code, exitRefused, errb.String())
	}
	if got := strings.Count(out.String(), "\n"); got != 4 {
		t.Fatalf("%d replies, want 4:\n%s", got, out)
	}
	for k, n := range in.seen {
		if n != k {
			t.Errorf("read %d of stdin came with %d replies written, want %d (replies written at each read: %v)", k+1, n, k, in.seen)
			break
		}
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "ONE\nTWO\n" {
		t.Errorf("a.txt = %q", b)
	}
}

// A signal while vfsctl call waits for its next line ends it at once, 128+N, with the
// journal let go: another vfsctl call on the workspace then gets it without waiting.
func TestCallSignalWhileIdle(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM to send on Windows")
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("one\n"), 0o644)
	cmd := exec.Command(os.Args[0], "call", "--root", dir, "--guard", "off")
	cmd.Env = append(os.Environ(), "VFSCTL_TEST_RUN=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stdin.Close()
	io.WriteString(stdin, editA+"\n")
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || !strings.Contains(line, `"ok":true`) {
		t.Fatalf("reply %q, %v", line, err)
	}
	cmd.Process.Signal(syscall.SIGTERM)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(hangLimit):
		cmd.Process.Kill()
		t.Fatalf("vfsctl call did not end within %s of SIGTERM, its stdin open", hangLimit)
	}
	if got := cmd.ProcessState.ExitCode(); got != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d, want %d", got, 128+int(syscall.SIGTERM))
	}
	code, out, errs := runBounded(t, `{"tool":"read_file","args":{"path":"a.txt"}}`+"\n", "call", "--root", dir, "--wait", "0")
	if code != exitOK || !strings.Contains(out, "ONE") {
		t.Errorf("the next vfsctl call: exit %d\n%s%s", code, out, errs)
	}
}
