package toolapi_test

// Speed of an edit where runtimes call it: a vfsctl process kept running, fed one
// call at a time on its standard input, each reply read before the next call is sent
// (`vfsctl call`, and `vfsctl serve` spoken to as an MCP client would, JSON-RPC lines
// over stdio). In each iteration the same edit is also made through Engine.Call in
// this process, and the durable floor of the same file is timed, so that every ratio
// is between figures of one run.
//
//	go test -run XXX -bench 'Process' -benchtime 200x -count 3 ./toolapi
//
// Figures: ns/op is the edit through the process (the line written to the reply
// read); engine-ns/op the same edit through Engine.Call; floor-ns/op the floor;
// x_floor_p50 and x_engine_p50 the process's median over theirs; over_engine_us the
// difference of the medians in microseconds; pipe_us the median round trip of the same
// line through cat, which answers at once: what any process fed on a pipe costs,
// whatever it does; ctxsw/op the process's voluntary context switches per call, summed
// over its threads (Linux only), and ctxsw_others/op the same without its busiest
// thread (the runtime's monitor, which sleeps 20 µs at a time while the process is
// busy): how often a call waits for the disk or for another thread.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
)

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// TestMain removes the binary the benchmarks built, once they have all run.
func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// vfsctlBinary builds cmd/vfsctl once per run, into a temporary folder.
func vfsctlBinary(b *testing.B) string {
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "vfsctl-bench-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "vfsctl")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/vfsctl/vfsctl/cmd/vfsctl").CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		b.Fatal(binErr)
	}
	return binPath
}

// proc is a running vfsctl process and the pipes a runtime keeps to it.
type proc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	mcp bool
	id  int
}

// startProc starts `vfsctl call` (or, with mcp, `vfsctl serve`, initialized as a
// client does) on root in durability mode dur, with the guard off as in the
// in-process benchmarks.
func startProc(b *testing.B, root string, mcp bool, dur toolapi.Durability) *proc {
	return startProcOf(b, vfsctlBinary(b), root, mcp, dur)
}

// startProcOf is startProc with the vfsctl binary bin.
func startProcOf(b *testing.B, bin, root string, mcp bool, dur toolapi.Durability) *proc {
	sub := "call"
	if mcp {
		sub = "serve"
	}
	if dur == "" {
		dur = toolapi.DurableFile
	}
	cmd := exec.Command(bin, sub, "--root", root, "--guard", "off", "--durability", string(dur))
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	p := &proc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20), mcp: mcp}
	b.Cleanup(func() {
		in.Close()
		if err := cmd.Wait(); err != nil && !mcp {
			// call exits 1 when a call was refused; every call here succeeds.
			b.Errorf("vfsctl %s: %v\n%s", sub, err, stderr.String())
		}
	})
	if mcp {
		p.rpc(b, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"bench","version":"1"}}`)
		p.send(b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	}
	return p
}

func (p *proc) send(b *testing.B, line string) {
	if _, err := io.WriteString(p.in, line+"\n"); err != nil {
		b.Fatal(err)
	}
}

// rpc sends one JSON-RPC request and returns its result, skipping notifications.
func (p *proc) rpc(b *testing.B, method, params string) json.RawMessage {
	p.id++
	p.send(b, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, p.id, method, params))
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue
		}
		if *m.ID != p.id || m.Error != nil {
			b.Fatalf("%s: %s", method, line)
		}
		return m.Result
	}
}

// call makes one edit_file call with args and fails the benchmark unless it worked.
func (p *proc) call(b *testing.B, args json.RawMessage) {
	if p.mcp {
		res := p.rpc(b, "tools/call", fmt.Sprintf(`{"name":"edit_file","arguments":%s}`, args))
		if bytes.Contains(res, []byte(`"isError":true`)) {
			b.Fatalf("edit over MCP: %s", res)
		}
		return
	}
	p.id++
	p.send(b, fmt.Sprintf(`{"id":%d,"tool":"edit_file","args":%s}`, p.id, args))
	line, err := p.out.ReadBytes('\n')
	if err != nil {
		b.Fatal(err)
	}
	if !bytes.HasPrefix(line, []byte(fmt.Sprintf(`{"id":%d,"ok":true,`, p.id))) {
		b.Fatalf("edit through vfsctl call: %s", line)
	}
}

// BenchmarkProcess is the exact one-line edit of BenchmarkEdit's 300-line file through
// a vfsctl call and a vfsctl serve process, in each durability mode, beside the same
// edit through Engine.Call and the floor, all in one loop. The order of the three
// turns with each iteration, so that none always follows the work another left after
// its reply.
func BenchmarkProcess(b *testing.B) {
	for _, mode := range []string{"call", "mcp"} {
		for _, dur := range []toolapi.Durability{toolapi.DurableFile, toolapi.DurableJournal} {
			b.Run(mode+"/"+string(dur), func(b *testing.B) {
				eng := newSpeedEdit(b, 300, dur)
				// The process's own workspace, with the same file: two processes on one
				// journal would queue for it.
				data := goSource(b, 300)
				a, e := editLine(b, data)
				root := b.TempDir()
				if err := os.WriteFile(filepath.Join(root, "g.go"), []byte(data), 0o644); err != nil {
					b.Fatal(err)
				}
				p := startProc(b, root, mode == "mcp", dur)
				edits := [2]json.RawMessage{editArgs("g.go", a, e), editArgs("g.go", e, a)}
				p.call(b, edits[0]) // the first content's blob, once
				p.call(b, edits[1])
				echo := startEcho(b)
				sw0 := switches(p.cmd.Process.Pid)
				calls := 0
				var proc, engine, floor, pipe []time.Duration
				for i := 0; b.Loop(); i++ {
					b.StopTimer()
					pipe = append(pipe, echo(edits[i%2]))
					for k := range 3 {
						switch (i + k) % 3 {
						case 0:
							b.StartTimer()
							t0 := time.Now()
							p.call(b, edits[i%2])
							proc = append(proc, time.Since(t0))
							calls++
							b.StopTimer()
						case 1:
							t0 := time.Now()
							eng.call(b, false, i)
							engine = append(engine, time.Since(t0))
							eng.settle()
						case 2:
							floor = append(floor, eng.floor(b, i))
						}
					}
					b.StartTimer()
				}
				if got, _ := os.ReadFile(filepath.Join(root, "g.go")); string(got) != data && string(got) != strings.Replace(data, a, e, 1) {
					b.Fatal("the process's file is in neither state")
				}
				reportFloor(b, proc, floor)
				b.ReportMetric(mean(engine), "engine-ns/op")
				b.ReportMetric(median(proc)/median(engine), "x_engine_p50")
				b.ReportMetric((median(proc)-median(engine))/1e3, "over_engine_us")
				b.ReportMetric(median(pipe)/1e3, "pipe_us")
				if sw1 := switches(p.cmd.Process.Pid); sw0 != nil && sw1 != nil && calls > 0 {
					all, top := 0, 0
					for task, n := range sw1 {
						all += n - sw0[task]
						top = max(top, n-sw0[task])
					}
					b.ReportMetric(float64(all)/float64(calls), "ctxsw/op")
					b.ReportMetric(float64(all-top)/float64(calls), "ctxsw_others/op")
				}
			})
		}
	}
}

// BenchmarkProcessAB sets builds of vfsctl side by side, each a process fed as in
// BenchmarkProcess, the same edits sent to each in turn with the floor timed in the
// same loop, the order turning with each iteration. It runs only when VFSCTL_AB names
// the builds, NAME=PATH separated by commas:
//
//	VFSCTL_AB=before=/tmp/vfsctl.old,after=/tmp/vfsctl.new \
//	  go test -run XXX -bench ProcessAB -benchtime 150x ./toolapi
//
// ns/op is one round: an edit through every build, and the floor. For each build
// NAME: NAME_p50_us, its median; NAME_x_floor_p50, over the floor's; NAME_ctxsw/op
// and NAME_ctxsw_others/op as in BenchmarkProcess.
func BenchmarkProcessAB(b *testing.B) {
	spec := os.Getenv("VFSCTL_AB")
	if spec == "" {
		b.Skip("VFSCTL_AB is not set: NAME=PATH,NAME=PATH, the vfsctl builds to compare")
	}
	type build struct{ name, path string }
	var builds []build
	for _, kv := range strings.Split(spec, ",") {
		name, path, ok := strings.Cut(kv, "=")
		if !ok || name == "" || path == "" {
			b.Fatalf("VFSCTL_AB: %q is not NAME=PATH", kv)
		}
		builds = append(builds, build{name, path})
	}
	for _, mode := range []string{"call", "mcp"} {
		for _, dur := range []toolapi.Durability{toolapi.DurableFile, toolapi.DurableJournal} {
			b.Run(mode+"/"+string(dur), func(b *testing.B) {
				data := goSource(b, 300)
				a, e := editLine(b, data)
				edits := [2]json.RawMessage{editArgs("g.go", a, e), editArgs("g.go", e, a)}
				states := [2][]byte{[]byte(strings.Replace(data, a, e, 1)), []byte(data)}
				procs := make([]*proc, len(builds))
				for k, bd := range builds {
					root := b.TempDir()
					if err := os.WriteFile(filepath.Join(root, "g.go"), []byte(data), 0o644); err != nil {
						b.Fatal(err)
					}
					procs[k] = startProcOf(b, bd.path, root, mode == "mcp", dur)
					procs[k].call(b, edits[0])
					procs[k].call(b, edits[1])
				}
				floorDir := b.TempDir()
				sw0 := make([]map[string]int, len(procs))
				for k, p := range procs {
					sw0[k] = switches(p.cmd.Process.Pid)
				}
				times := make([][]time.Duration, len(procs))
				var floor []time.Duration
				n := 0
				for i := 0; b.Loop(); i++ {
					for k := range len(procs) + 1 {
						x := (i + k) % (len(procs) + 1)
						t0 := time.Now()
						if x == len(procs) {
							if err := durableWrite(filepath.Join(floorDir, "floor.go"), states[i%2]); err != nil {
								b.Fatal(err)
							}
							floor = append(floor, time.Since(t0))
							continue
						}
						procs[x].call(b, edits[i%2])
						times[x] = append(times[x], time.Since(t0))
					}
					n++
				}
				for k, bd := range builds {
					b.ReportMetric(median(times[k])/1e3, bd.name+"_p50_us")
					b.ReportMetric(median(times[k])/median(floor), bd.name+"_x_floor_p50")
					if sw1 := switches(procs[k].cmd.Process.Pid); sw0[k] != nil && sw1 != nil && n > 0 {
						all, top := 0, 0
						for task, c := range sw1 {
							all += c - sw0[k][task]
							top = max(top, c-sw0[k][task])
						}
						b.ReportMetric(float64(all)/float64(n), bd.name+"_ctxsw/op")
						b.ReportMetric(float64(all-top)/float64(n), bd.name+"_ctxsw_others/op")
					}
				}
			})
		}
	}
}

// switches returns the voluntary context switches of each thread of process pid so
// far, or nil where /proc does not tell them.
func switches(pid int) map[string]int {
	tasks, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", pid))
	if len(tasks) == 0 {
		return nil
	}
	out := map[string]int{}
	for _, t := range tasks {
		data, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(data), "\n") {
			if v, ok := strings.CutPrefix(line, "voluntary_ctxt_switches:"); ok {
				out[filepath.Base(filepath.Dir(t))], _ = strconv.Atoi(strings.TrimSpace(v))
			}
		}
	}
	return out
}

// startEcho starts cat on a pipe and returns a function that sends it one line and
// times the line's way back.
func startEcho(b *testing.B) func(line []byte) time.Duration {
	cmd := exec.Command("cat")
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		b.Skipf("cat: %v", err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	r := bufio.NewReaderSize(out, 1<<20)
	return func(line []byte) time.Duration {
		t0 := time.Now()
		in.Write(append(line[:len(line):len(line)], '\n'))
		if _, err := r.ReadBytes('\n'); err != nil {
			b.Fatal(err)
		}
		return time.Since(t0)
	}
}

// BenchmarkProcessFuzzy60 is a fresh vfsctl call process making 60 one-line edits of
// the 20,000-line file matched through the typography fold, against another making the
// same 60 edits matched exactly, alternated: ns/op is the 60 fuzzy edits, the first
// included (the journal's open and the file's first blob are in both); x_exact their
// total over the exact ones' (medians).
func BenchmarkProcessFuzzy60(b *testing.B) {
	for _, dur := range []toolapi.Durability{toolapi.DurableFile, toolapi.DurableJournal} {
		b.Run(string(dur), func(b *testing.B) {
			data := goSource(b, 20000)
			a, e := editLine(b, data)
			run := func(fuzzy bool) time.Duration {
				root, edits := sixtyEditsSetup(b, data, a, e, fuzzy)
				p := startProc(b, root, false, dur)
				p.send(b, `{"tool":"read_file","args":{"path":"f.go","limit":1}}`) // started and serving
				if _, err := p.out.ReadBytes('\n'); err != nil {
					b.Fatal(err)
				}
				t0 := time.Now()
				for i := range 60 {
					p.call(b, edits[i%2])
				}
				return time.Since(t0)
			}
			fuzzyAgainstExact(b, run)
		})
	}
}

// BenchmarkFuzzy60 is BenchmarkProcessFuzzy60 through Engine.Call, a new Engine for
// each 60 edits.
func BenchmarkFuzzy60(b *testing.B) {
	data := goSource(b, 20000)
	a, e := editLine(b, data)
	run := func(fuzzy bool) time.Duration {
		root, edits := sixtyEditsSetup(b, data, a, e, fuzzy)
		eng, err := toolapi.Open(root, toolapi.Options{Guard: toolapi.GuardOff})
		if err != nil {
			b.Fatal(err)
		}
		defer eng.Close()
		eng.Call(context.Background(), "bench", "read_file", json.RawMessage(`{"path":"f.go","limit":1}`))
		t0 := time.Now()
		for i := range 60 {
			if res := eng.Call(context.Background(), "bench", "edit_file", edits[i%2]); !res.OK {
				b.Fatal(res.Text)
			}
		}
		return time.Since(t0)
	}
	fuzzyAgainstExact(b, run)
}

// sixtyEditsSetup writes data as f.go in a new root and returns the two edits the 60
// alternate between (a to e and back), drifted through the typography fold if fuzzy.
func sixtyEditsSetup(b *testing.B, data, a, e string, fuzzy bool) (string, [2]json.RawMessage) {
	root := b.TempDir()
	if err := os.WriteFile(filepath.Join(root, "f.go"), []byte(data), 0o644); err != nil {
		b.Fatal(err)
	}
	if fuzzy {
		return root, [2]json.RawMessage{editArgs("f.go", drift(a), drift(e)), editArgs("f.go", drift(e), drift(a))}
	}
	return root, [2]json.RawMessage{editArgs("f.go", a, e), editArgs("f.go", e, a)}
}

// fuzzyAgainstExact times run(true) as ns/op, run(false) alternated with it off the
// clock, and reports the ratio of their medians.
func fuzzyAgainstExact(b *testing.B, run func(fuzzy bool) time.Duration) {
	var fuzzy, exact []time.Duration
	for b.Loop() {
		b.StopTimer()
		exact = append(exact, run(false))
		b.StartTimer()
		fuzzy = append(fuzzy, run(true))
	}
	b.ReportMetric(median(fuzzy)/median(exact), "x_exact_p50")
	b.ReportMetric(mean(exact), "exact-ns/op")
}
