package toolapi_test

// Speed of an edit as a runtime sees it: toolapi.Engine.Call with the guard off, set
// beside the durable floor of the same file (temp file in the same folder, write,
// fsync, rename, folder fsync) measured in the same run. Each edit changes one line
// and the next one changes it back, so every call writes.
//
//	go test -run XXX -bench 'Floor|Edit/|Parallel8' -benchtime 100x -count 3 ./toolapi
//
// Figures: ns/op is the edit alone; floor-ns/op the floor timed between the edits;
// x_floor their ratio (means) and x_floor_p50 (medians, steadier on a noisy disk);
// after-ns/op the work an edit leaves to do after its reply (the replaced file's
// blocks freed), waited for, untimed, before the floor.

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vfsctl/vfsctl/toolapi"
)

// Sizes of the benchmarked files, in lines.
var speedSizes = []struct {
	name  string
	lines int
}{{"large", 20000}, {"small", 300}}

// goSource returns n lines of real Go: the standard library's non-test files in
// lexical order, concatenated. The same Go installation gives the same bytes.
var goSourceOnce = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return "", err
	}
	src := filepath.Join(strings.TrimSpace(string(out)), "src")
	var b strings.Builder
	lines := 0
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "vendor") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		b.Write(data)
		lines += strings.Count(string(data), "\n")
		if lines >= 20000 {
			return fs.SkipAll
		}
		return nil
	})
	return b.String(), err
})

func goSource(b *testing.B, n int) string {
	all, err := goSourceOnce()
	if err != nil || strings.Count(all, "\n") < n {
		b.Skipf("Go's own sources are needed for realistic content (%v)", err)
	}
	end := 0
	for range n {
		end += strings.IndexByte(all[end:], '\n') + 1
	}
	return all[:end]
}

// editLine picks the line an edit changes: the one nearest the middle of data that
// holds one Go string literal and a space to fold, and that occurs once, also as
// edited.
func editLine(b *testing.B, data string) (a, edited string) {
	lines := strings.SplitAfter(data, "\n")
	mid := len(lines) / 2
	for d := range mid {
		for _, i := range []int{mid - d, mid + d} {
			l := strings.TrimSuffix(lines[i], "\n")
			body := strings.TrimLeft(l, "\t")
			if strings.Count(l, `"`) != 2 || len(body) < 20 || len(body) > 100 || !strings.Contains(body, " ") ||
				strings.ContainsAny(l, "`\r") || strings.HasPrefix(body, "//") {
				continue
			}
			e := l + " // v2"
			if strings.Count(data, l) == 1 && !strings.Contains(data, e) {
				return l, e
			}
		}
	}
	b.Fatal("no line to edit")
	return "", ""
}

// drift is line as a model that retyped it might send it: the quotes curly and the
// first space a no-break space, so only the typography tier finds it.
func drift(line string) string {
	open := true
	var s strings.Builder
	for _, r := range line {
		if r == '"' {
			r = '”'
			if open {
				r = '“'
			}
			open = !open
		}
		s.WriteRune(r)
	}
	return strings.Replace(s.String(), " ", "\u00a0", 1)
}

func editArgs(path, old, nw string) json.RawMessage {
	raw, _ := json.Marshal(map[string]any{"path": path, "edits": []map[string]string{{"oldText": old, "newText": nw}}})
	return raw
}

// durableWrite is the floor: what any durable replace of path must do.
func durableWrite(path string, data []byte) error {
	dir := filepath.Dir(path)
	h, err := os.CreateTemp(dir, ".floor-")
	if err != nil {
		return err
	}
	if _, err := h.Write(data); err != nil {
		h.Close()
		return err
	}
	if err := h.Sync(); err != nil {
		h.Close()
		return err
	}
	if err := h.Close(); err != nil {
		return err
	}
	if err := os.Rename(h.Name(), path); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// BenchmarkFloor is the durable replace of a file of each size, alone; "held" is the
// same with the replaced file held open through it and closed, untimed, after it, as
// vfsctl does (vfs.Staged.release): the floor for a writer that frees the replaced
// file's blocks after the write instead of inside the rename.
func BenchmarkFloor(b *testing.B) {
	for _, size := range speedSizes {
		for _, held := range []bool{false, true} {
			name := size.name
			if held {
				name += "/held"
			}
			b.Run(name, func(b *testing.B) {
				data := []byte(goSource(b, size.lines))
				p := filepath.Join(b.TempDir(), "floor.go")
				if err := os.WriteFile(p, data, 0o644); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(data)))
				for b.Loop() {
					fd := -1
					if held {
						fd = openPath(b, p)
					}
					if err := durableWrite(p, data); err != nil {
						b.Fatal(err)
					}
					if fd >= 0 {
						b.StopTimer()
						closeFd(fd)
						b.StartTimer()
					}
				}
			})
		}
	}
}

// speedEdit is a workspace with the file an edit changes and the engine that edits
// it, with the two calls that take the file from state A to B and back. The fuzzy
// calls have an exact twin on a copy of the file (g.go), so that a benchmark can time
// both in one loop.
type speedEdit struct {
	eng            *toolapi.Engine
	dir            string
	fuzzy, exact   [2]json.RawMessage // on f.go and g.go: A -> B, B -> A
	stateA, stateB string             // the files' content in each state
}

// newSpeedEdit makes the files and an engine over them, in durability mode dur ("" is
// the file-durable default).
func newSpeedEdit(b *testing.B, lines int, dur toolapi.Durability) *speedEdit {
	data := goSource(b, lines)
	dir := b.TempDir()
	for _, name := range []string{"f.go", "g.go"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	eng, err := toolapi.Open(dir, toolapi.Options{Guard: toolapi.GuardOff, Durability: dur})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { eng.Close() })
	s := &speedEdit{eng: eng, dir: dir}
	a, e := editLine(b, data)
	s.stateA, s.stateB = data, strings.Replace(data, a, e, 1)
	s.exact = [2]json.RawMessage{editArgs("g.go", a, e), editArgs("g.go", e, a)}
	s.fuzzy = [2]json.RawMessage{editArgs("f.go", drift(a), drift(e)), editArgs("f.go", drift(e), drift(a))}
	// Each call once, checked: the tier the reply reports and the bytes written.
	// They also store each file's first content in the journal, a one-time cost.
	for i, want := range []string{s.stateB, s.stateA} {
		for _, fuzzy := range []bool{false, true} {
			res, name := s.call(b, fuzzy, i), "g.go"
			if fuzzy {
				name = "f.go"
			}
			if got := strings.Contains(res.Text, "matched after folding"); got != fuzzy {
				b.Fatalf("fuzzy=%v, but the reply says:\n%s", fuzzy, res.Text)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, name)); string(got) != want {
				b.Fatalf("edit %d of %s did not write the expected content (reply: %s)", i, name, res.Text)
			}
		}
	}
	return s
}

// floor times the durable floor of the i-th state: the file's content replaced as
// durableWrite does, beside the edited files.
func (s *speedEdit) floor(b *testing.B, i int) time.Duration {
	data := s.stateB
	if i%2 == 1 {
		data = s.stateA
	}
	t0 := time.Now()
	if err := durableWrite(filepath.Join(s.dir, "floor.go"), []byte(data)); err != nil {
		b.Fatal(err)
	}
	return time.Since(t0)
}

// settle waits for the work the last call left to do after its reply (the replaced
// file closed, its blocks freed), so that the floor timed next does not pay for it,
// and returns how long that took.
func (s *speedEdit) settle() time.Duration {
	t0 := time.Now()
	s.eng.WaitFreed()
	return time.Since(t0)
}

// call makes the i-th edit, fuzzy or exact.
func (s *speedEdit) call(b *testing.B, fuzzy bool, i int) toolapi.Result {
	args := s.exact[i%2]
	if fuzzy {
		args = s.fuzzy[i%2]
	}
	res := s.eng.Call(context.Background(), "bench", "edit_file", args)
	if !res.OK {
		b.Fatalf("edit %d: %s", i, res.Text)
	}
	return res
}

// BenchmarkEdit is a one-line edit_file call on a 20,000-line and a 300-line Go file,
// matched exactly and through the typography fold, with the floor of the same file
// timed between the calls (the timer stopped). The fuzzy benchmark also times the
// exact edit of a copy in each iteration: x_exact is fuzzy over exact, within the run.
func BenchmarkEdit(b *testing.B) {
	for _, size := range speedSizes {
		for _, fuzzy := range []bool{false, true} {
			name := size.name + "/exact"
			if fuzzy {
				name = size.name + "/fuzzy"
			}
			b.Run(name, func(b *testing.B) {
				s := newSpeedEdit(b, size.lines, "")
				var edit, floor, exact, after []time.Duration
				for i := 0; b.Loop(); i++ {
					b.StopTimer()
					after = append(after, s.settle())
					floor = append(floor, s.floor(b, i))
					if fuzzy {
						t0 := time.Now()
						s.call(b, false, i)
						exact = append(exact, time.Since(t0))
						s.settle()
					}
					b.StartTimer()
					t1 := time.Now()
					s.call(b, fuzzy, i)
					edit = append(edit, time.Since(t1))
				}
				reportFloor(b, edit, floor)
				b.ReportMetric(mean(after), "after-ns/op")
				if fuzzy {
					b.ReportMetric(median(edit)/median(exact), "x_exact_p50")
				}
			})
		}
	}
}

func mean(d []time.Duration) float64 {
	var t time.Duration
	for _, x := range d {
		t += x
	}
	return float64(t) / float64(len(d))
}

func median(d []time.Duration) float64 {
	d = slices.Clone(d)
	slices.Sort(d)
	return float64(d[len(d)/2])
}

func reportFloor(b *testing.B, edit, floor []time.Duration) {
	b.ReportMetric(mean(floor), "floor-ns/op")
	b.ReportMetric(mean(edit)/mean(floor), "x_floor")
	b.ReportMetric(median(edit)/median(floor), "x_floor_p50")
}

// BenchmarkParallel8 is eight goroutines of one process, each editing its own
// 300-line file (edit), beside the same eight durably replacing theirs (floor).
func BenchmarkParallel8(b *testing.B) {
	const files = 8
	b.Run("floor", func(b *testing.B) {
		data := []byte(goSource(b, 300))
		dir := b.TempDir()
		parallel(b, files, func(g, i int) error {
			return durableWrite(filepath.Join(dir, fmt.Sprintf("f%d.go", g)), data)
		})
	})
	b.Run("edit", func(b *testing.B) { editParallel(b, files, "") })
}

// editParallel is n goroutines of one process, each editing its own 300-line file
// through one engine in durability mode dur.
func editParallel(b *testing.B, n int, dur toolapi.Durability) {
	data := goSource(b, 300)
	dir := b.TempDir()
	a, e := editLine(b, data)
	for g := range n {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.go", g)), []byte(data), 0o644)
	}
	eng, err := toolapi.Open(dir, toolapi.Options{Guard: toolapi.GuardOff, Durability: dur})
	if err != nil {
		b.Fatal(err)
	}
	defer eng.Close()
	calls := make([][2]json.RawMessage, n)
	for g := range n {
		p := fmt.Sprintf("f%d.go", g)
		calls[g] = [2]json.RawMessage{editArgs(p, a, e), editArgs(p, e, a)}
		for _, c := range calls[g] { // the first content's blob, once
			if res := eng.Call(context.Background(), "bench", "edit_file", c); !res.OK {
				b.Fatal(res.Text)
			}
		}
	}
	parallel(b, n, func(g, i int) error {
		if res := eng.Call(context.Background(), "bench", "edit_file", calls[g][i%2]); !res.OK {
			return fmt.Errorf("%s", res.Text)
		}
		return nil
	})
}

// parallel runs b.N calls of op over n goroutines (goroutine g makes its i-th call
// with op(g, i)) and reports their rate.
func parallel(b *testing.B, n int, op func(g, i int) error) {
	per := (b.N + n - 1) / n
	b.ResetTimer()
	var wg sync.WaitGroup
	for g := range n {
		wg.Go(func() {
			for i := range per {
				if err := op(g, i); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	b.StopTimer()
	b.ReportMetric(float64(per*n)/b.Elapsed().Seconds(), "edits/s")
}

// BenchmarkEditBackToBack is BenchmarkEdit's exact edit with nothing between the
// calls: each waits only for the one before, whatever that one left to do after its
// reply, so ns/op counts that work too where it delays the next call.
func BenchmarkEditBackToBack(b *testing.B) {
	for _, size := range speedSizes {
		b.Run(size.name, func(b *testing.B) {
			s := newSpeedEdit(b, size.lines, "")
			for i := 0; b.Loop(); i++ {
				s.call(b, false, i)
			}
		})
	}
}
