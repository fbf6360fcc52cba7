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
	f.Add("a\nb\nc\n", uint8(1), uint8(1))
	f.Add("x\nx\ny", uint8(0), uint8(2))
	f.Add("  a\r\n\tb\r\nc", uint8(0), uint8(3))
	f.Add("\n\n\n", uint8(1), uint8(2))
	// Long lines that the chunk's lines nearly match: each probe for an occurrence used
	// to make the matcher explain its miss (edit distances of the longest lines),
	// 60 ms a call, so minimizing such inputs stalled the fuzzer. Probes no longer
	// explain (matcher.Options.Probe).
	f.Add("\n"+strings.Repeat("M", 1721)+"\x81\x95\x13B\xfd\xa6+\n>+\n0", uint8(144), uint8(26))
	f.Add("\n"+strings.Repeat("/", 77)+" "+strings.Repeat("/", 31)+"A\n ", uint8(7), uint8(4))
	f.Fuzz(func(t *testing.T, content string, from, n uint8) {
		if strings.ContainsAny(content, "\r\x00") {
			return // the oracle splits on LF only; CR files have their own tests
		}
		lines := strings.SplitAfter(content, "\n")
		if lines[len(lines)-1] == "" {
			lines = lines[:len(lines)-1]
		}
		if len(lines) == 0 {
			return
		}
		i := int(from) % len(lines)
		k := 1 + int(n)%(len(lines)-i)
		var old, nw []string
		for j := i; j < i+k; j++ {
			l := strings.TrimSuffix(lines[j], "\n")
			old = append(old, l)
			if j == i {
				l = "CHANGED"
			}
			nw = append(nw, l)
		}
		sp, err := LocateChunks("f", []byte(content), []Chunk{{Old: old, New: nw}})
		if err != nil {
			switch errs.KindOf(err) {
			case errs.MultipleMatches, errs.NoChange, errs.TextNotFound, errs.InvalidInput:
				return
			}
			t.Fatalf("unexpected refusal %s: %v", errs.KindOf(err), err)
		}
		want := append([]string(nil), lines...)
		want[i] = "CHANGED" + lines[i][len(strings.TrimSuffix(lines[i], "\n")):]
		if got := string(applySplices(t, []byte(content), sp)); got != strings.Join(want, "") {
			t.Fatalf("content %q chunk %q -> %q\ngot  %q\nwant %q", content, old, nw, got, strings.Join(want, ""))
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
