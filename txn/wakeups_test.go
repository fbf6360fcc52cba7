package txn

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
)

// goroutinesCreated is how many goroutines this process has started so far.
func goroutinesCreated(t *testing.T) uint64 {
	s := []metrics.Sample{{Name: "/sched/goroutines-created:goroutines"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		t.Skip("this Go does not count the goroutines it starts")
	}
	return s[0].Value.Uint64()
}

// TestSmallEditWakesOneThread: a one-line edit of a small file starts one goroutine,
// the staging, which overlaps the journal's commit. Each goroutine started wakes
// another thread, which in a vfsctl call or serve process, asleep between a model's
// calls, costs tens of microseconds a call; the View kept for the file's next edit
// was derived on a second one.
func TestSmallEditWakesOneThread(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "func f%d(x int) int { return x + %d }\n", i, i)
	}
	data := b.String()
	a, z := "f150(x int) int { return x + 150 }", "f150(x int) int { return x - 150 }"
	for _, c := range []struct {
		mode Durability
		max  float64 // goroutines started per call
	}{{DurableJournal, 1.1}, {DurableFile, 1.1}} {
		t.Run(string(c.mode), func(t *testing.T) {
			// No checkpoint by count or timer during the calls counted: those start
			// goroutines of their own, now and then.
			e, dir := diskEngineWith(t, map[string]string{"g.go": data}, Options{Durability: c.mode, CheckpointEvery: 1 << 20, CheckpointInterval: -1})
			defer e.Close()
			for i := range 4 { // the journal opened, the file's first blob
				if err := edit(e, "s", "g.go", []string{a, z}[i%2], []string{z, a}[i%2]); err != nil {
					t.Fatal(err)
				}
			}
			const calls = 50
			n0 := goroutinesCreated(t)
			for i := range calls {
				if err := edit(e, "s", "g.go", []string{a, z}[i%2], []string{z, a}[i%2]); err != nil {
					t.Fatal(err)
				}
			}
			per := float64(goroutinesCreated(t)-n0) / calls
			got, _ := os.ReadFile(filepath.Join(dir, "g.go"))
			if string(got) != data { // an even number of edits puts it back
				t.Fatal("the edits did not land as made")
			}
			if per > c.max {
				t.Errorf("a one-line edit of a 300-line file started %.2f goroutines a call, want at most %.1f", per, c.max)
			}
		})
	}
}

// TestStagingStartsFirst: a replaced file's staging (in the file-durable mode its
// fsync is the longer road to the rename) begins before the call goes on to hash the
// change and make its record, rather than wait on a thread woken to take it over.
// With one processor a goroutine just started runs once the one that started it
// yields, but Go's scheduler takes the yielder from the global queue first once in 61
// rounds; so the order is checked over 20 edits, of which most must stage first
// (without the yield none does).
func TestStagingStartsFirst(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for _, mode := range []Durability{DurableFile, DurableJournal} {
		t.Run(string(mode), func(t *testing.T) { stagingStartsFirst(t, mode) })
	}
}

func stagingStartsFirst(t *testing.T, mode Durability) {
	e, _ := diskEngineWith(t, map[string]string{"g.go": "alpha\nbeta\n"}, Options{Durability: mode})
	defer e.Close()
	var mu sync.Mutex
	var order []string
	note := func(what string) func(*Change) {
		return func(*Change) { mu.Lock(); order = append(order, what); mu.Unlock() }
	}
	testHookStage, testHookHash = note("stage"), note("hash")
	defer func() { testHookStage, testHookHash = nil, nil }()
	const edits = 20
	first := 0
	for i := range edits {
		mu.Lock()
		order = order[:0]
		mu.Unlock()
		from, to := "beta", "gamma"
		if i%2 == 1 {
			from, to = to, from
		}
		if err := edit(e, "s", "g.go", from, to); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		if len(order) != 2 {
			t.Fatalf("edit %d: the commit's work was %v, want a staging and a hash", i, order)
		}
		if order[0] == "stage" {
			first++
		}
		mu.Unlock()
	}
	if first < edits*3/4 {
		t.Errorf("the staging began first in %d of %d edits, want at least %d", first, edits, edits*3/4)
	}
}
