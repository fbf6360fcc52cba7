package dialect

import (
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// FuzzLocateChunks changes one line of a region the chunk copies from the file.
// Oracle: the file's lines, split by hand, with that one line replaced; everything
// else byte for byte. A refusal must be one of the kinds a user can act on.
func FuzzLocateChunks(f *testing.F) {
	f.Add("a\nb\nc\n", uint8(1), uint8(1), uint8(0))
	f.Add("x\nx\ny", uint8(0), uint8(2), uint8(0))
	f.Add("  a\r\n\tb\r\nc", uint8(0), uint8(3), uint8(0))
	f.Add("\n\n\n", uint8(1), uint8(2), uint8(1))
	// Lines added after the last line of a file with no final line break: the chunk's
	// splice reached past the supplied break, and mapping it back panicked.
	f.Add("package p\n\nfunc F() {\n}", uint8(2), uint8(1), uint8(4|2))
	// Long lines that the chunk's lines nearly match: each probe for an occurrence used
	// to make the matcher explain its miss (edit distances of the longest lines),
	// 60 ms a call, so minimizing such inputs stalled the fuzzer. Probes no longer
	// explain (matcher.Options.Probe).
	f.Add("\n"+strings.Repeat("M", 1721)+"\x81\x95\x13B\xfd\xa6+\n>+\n0", uint8(144), uint8(26), uint8(0))
	f.Add("\n"+strings.Repeat("/", 77)+" "+strings.Repeat("/", 31)+"A\n ", uint8(7), uint8(4), uint8(0))
	f.Fuzz(func(t *testing.T, content string, from, n, add uint8) {
		if strings.ContainsAny(content, "\r\x00") {
			return // the oracle splits on LF only; CR files have their own tests
		}
		texts := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
		if content == "" {
			return
		}
		i := int(from) % len(texts)
		k := 1 + int(n)%(len(texts)-i)
		added := int(add) % 4
		// The chunk changes its first line (unless add has bit 4 set) and adds lines
		// after its last one.
		old := append([]string(nil), texts[i:i+k]...)
		nw := append([]string(nil), old...)
		if add&4 == 0 {
			nw[0] = "CHANGED"
		}
		for range added {
			nw = append(nw, "ADDED")
		}
		sp, err := LocateChunks("f", []byte(content), []Chunk{{Old: old, New: nw}})
		if err != nil {
			switch errs.KindOf(err) {
			case errs.MultipleMatches, errs.NoChange, errs.TextNotFound, errs.InvalidInput:
				return
			}
			t.Fatalf("unexpected refusal %s: %v", errs.KindOf(err), err)
		}
		// The oracle: the file's lines with the chunk's in their place, ending in a line
		// break exactly when the file did.
		want := strings.Join(append(append(append([]string(nil), texts[:i]...), nw...), texts[i+k:]...), "\n")
		if strings.HasSuffix(content, "\n") {
			want += "\n"
		}
		if got := string(applySplices(t, []byte(content), sp)); got != want {
			t.Fatalf("content %q chunk %q -> %q\ngot  %q\nwant %q", content, old, nw, got, want)
		}
	})
}

func FuzzLocateBlocks(f *testing.F) {
	f.Add("a\nb\n", "b\n", "c\n", 0)
	f.Add("x\nx\n", "x\n", "y\n", 2)
	f.Add("", "", "z\n", 0)
	f.Fuzz(func(t *testing.T, content, search, replace string, start int) {
		sp, err := LocateBlocks("f", []byte(content), []Block{{Search: search, Replace: replace, StartLine: start}})
		if err != nil {
			return
		}
		applySplices(t, []byte(content), sp)
	})
}
