package matcher

import (
	"strings"
	"testing"
)

// Content with NUL bytes is named by what it is: UTF-16 or UTF-32 text by its
// byte-order mark (the longer UTF-32LE mark before the UTF-16LE one it starts with),
// anything else binary; a path a shell would split is quoted in the command.
func TestBinaryMessage(t *testing.T) {
	cases := []struct {
		path, content string
		want          []string
	}{
		{"a.rc", "\xFF\xFEh\x00i\x00", []string{"a.rc is UTF-16LE text", "mark FF FE)", "iconv -f UTF-16 -t UTF-8 a.rc > a.rc.utf8 && mv a.rc.utf8 a.rc"}},
		{"b.txt", "\xFE\xFF\x00h", []string{"b.txt is UTF-16BE text", "mark FE FF)"}},
		{"c.txt", "\xFF\xFE\x00\x00h\x00\x00\x00", []string{"c.txt is UTF-32LE text", "iconv -f UTF-32 "}},
		{"my notes.txt", "\xFF\xFEh\x00", []string{"UTF-16LE", `'my notes.txt' > 'my notes.txt'.utf8`}},
		{"", "\xFF\xFEh\x00", []string{"the file is UTF-16LE text", "iconv -f UTF-16 -t UTF-8 FILE"}},
		{"x.bin", "\x7FELF\x00\x00", []string{"x.bin contains NUL bytes and looks binary"}},
	}
	for _, c := range cases {
		got := BinaryMessage(c.path, []byte(c.content))
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("%q %q: %q lacks %q", c.path, c.content, got, w)
			}
		}
	}
	// Through Apply, as an edit meets such a file.
	_, err := Apply([]byte("\xFF\xFEh\x00i\x00"), []Edit{{OldText: "hi", NewText: "yo"}}, Options{Name: "w.ps1"})
	if err == nil || !strings.Contains(err.Error(), "w.ps1 is UTF-16LE text") {
		t.Fatalf("Apply: %v", err)
	}
}

// The command a refusal gives names the file so that a shell reads it back as that
// file, and never as an option of the command.
func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"a/b.txt": "a/b.txt", "-n.txt": "./-n.txt", "my notes.txt": "'my notes.txt'", "it's": `'it'\''s'`, "-a b": "'./-a b'",
	} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
