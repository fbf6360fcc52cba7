package txn

import "testing"

// merge3 takes a change back out of content changed since, by lines: changes on other
// lines stay; changes on the same or adjacent lines clash.
func TestMerge3(t *testing.T) {
	for _, c := range []struct {
		name, base, ours, theirs, want string
		clash                          bool
	}{
		{"other line kept", "a\nB\nc\nd\ne\n", "a\nB\nc\nd\nE\n", "a\nb\nc\nd\ne\n", "a\nb\nc\nd\nE\n", false},
		{"insert kept", "a\nB\nc\nd\n", "a\nB\nc\nd\nnew\n", "a\nb\nc\nd\n", "a\nb\nc\nd\nnew\n", false},
		{"same line", "a\nB\nc\n", "a\nX\nc\n", "a\nb\nc\n", "", true},
		{"adjacent line", "a\nB\nc\n", "a\nB\nC\n", "a\nb\nc\n", "", true},
		{"created file emptied", "x\ny\n", "x\ny\n", "", "", false},
		{"no final newline", "a\nb\nc\nd", "A\nb\nc\nd", "a\nb\nc\nD", "A\nb\nc\nD", false},
		{"crlf kept", "a\r\nB\r\nc\r\nd\r\n", "a\r\nB\r\nc\r\nD\r\n", "a\r\nb\r\nc\r\nd\r\n", "a\r\nb\r\nc\r\nD\r\n", false},
	} {
		got, clash := merge3([]byte(c.base), []byte(c.ours), []byte(c.theirs))
		if (clash != nil) != c.clash || !c.clash && string(got) != c.want {
			t.Errorf("%s: got %q clash %v, want %q clash %v", c.name, got, clash, c.want, c.clash)
		}
	}
}
