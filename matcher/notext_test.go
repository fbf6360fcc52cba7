package matcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unicode/utf16"
)

// Content with NUL bytes is named by what it is: UTF-16 or UTF-32 text by its
// byte-order mark (the longer UTF-32LE mark before the UTF-16LE one it starts with),
// anything else binary; a path a shell would split is quoted in the command.
func TestBinaryMessage(t *testing.T) {
	cases := []struct {
		path, content string
		want          []string
	}{
		{"a.rc", "\xFF\xFEh\x00i\x00", []string{"a.rc is UTF-16LE text", "mark FF FE)", "iconv -f UTF-16 -t UTF-8 a.rc > \"$t\" && cat \"$t\" > a.rc;", "iconv -f UTF-8 -t UTF-16 a.rc > \"$t\""}},
		{"b.txt", "\xFE\xFF\x00h", []string{"b.txt is UTF-16BE text", "mark FE FF)"}},
		{"c.txt", "\xFF\xFE\x00\x00h\x00\x00\x00", []string{"c.txt is UTF-32LE text", "iconv -f UTF-32 "}},
		{"my notes.txt", "\xFF\xFEh\x00", []string{"UTF-16LE", `UTF-8 'my notes.txt' > "$t" && cat "$t" > 'my notes.txt';`}},
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

// The two commands the refusal of a UTF-16 file gives, to UTF-8 and back, run as they
// are written in sh: they made the file anew with mv, which gave a script the umask's
// mode and made a link a file, and a failed iconv left the half-written F.utf8 (or
// F.enc) in the folder. The file now keeps its mode and stays a link, holds the text
// in UTF-8 and then again in UTF-16; a failed conversion leaves the file, its folder
// and the temporary folder as they were, and fails.
func TestUTF16ConversionCommandsKeepTheFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("POSIX shell commands")
	}
	for _, tool := range []string{"sh", "iconv", "mktemp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here", tool)
		}
	}
	// le is s in UTF-16LE with its mark; text decodes UTF-16 with a mark of either
	// order, the oracle for what the commands wrote.
	le := func(s string) string {
		b := []byte{0xFF, 0xFE}
		for _, u := range utf16.Encode([]rune(s)) {
			b = append(b, byte(u), byte(u>>8))
		}
		return string(b)
	}
	text := func(b []byte) (string, bool) {
		if len(b) < 2 || len(b)%2 != 0 {
			return "", false
		}
		lo := b[0] == 0xFF && b[1] == 0xFE
		if !lo && !(b[0] == 0xFE && b[1] == 0xFF) {
			return "", false
		}
		var us []uint16
		for i := 2; i < len(b); i += 2 {
			if lo {
				us = append(us, uint16(b[i])|uint16(b[i+1])<<8)
			} else {
				us = append(us, uint16(b[i])<<8|uint16(b[i+1]))
			}
		}
		return string(utf16.Decode(us)), true
	}
	commands := func(name, content string) (there, back string) {
		msg := BinaryMessage(name, []byte(content))
		m := regexp.MustCompile("`([^`]*iconv [^`]*)`").FindAllStringSubmatch(msg, -1)
		if len(m) != 2 {
			t.Fatalf("not two commands in %q", msg)
		}
		return m[0][1], m[1][1]
	}
	run := func(dir, tmp, cmd string) error { return runAdvice(t, dir, tmp, cmd) }
	const words = "IDS_HELLO \"Grüße, “world”\"\r\n€ 𝄞\r\n"
	for _, name := range []string{"app.rc", "it's w.reg", "-dash.rc"} {
		dir, tmp := t.TempDir(), t.TempDir()
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(le(words)), 0o644)
		os.Chmod(p, 0o751) // not the umask's
		there, back := commands(name, le(words))
		if err := run(dir, tmp, there); err != nil {
			t.Errorf("%s: the command to UTF-8 failed: %v", name, err)
		}
		got, _ := os.ReadFile(p)
		info, _ := os.Lstat(p)
		if string(got) != words || info.Mode() != 0o751 {
			t.Errorf("%s to UTF-8: %q, mode %v; want %q, mode 0751", name, got, info.Mode(), words)
		}
		if err := run(dir, tmp, back); err != nil {
			t.Errorf("%s: the command back failed: %v", name, err)
		}
		got, _ = os.ReadFile(p)
		info, _ = os.Lstat(p)
		if s, ok := text(got); !ok || s != words || info.Mode() != 0o751 {
			t.Errorf("%s back: %q (%q), mode %v; want UTF-16 with a mark, %q, mode 0751", name, got, s, info.Mode(), words)
		}
		if n := entryNames(dir); len(n) != 1 || len(entryNames(tmp)) != 0 {
			t.Errorf("%s: left in the folder %q, in the temporary folder %q", name, n, entryNames(tmp))
		}
	}
	// A link stays a link, to the file converted.
	dir, tmp := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "real.rc"), []byte(le(words)), 0o640)
	os.Symlink("real.rc", filepath.Join(dir, "link.rc"))
	there, _ := commands("link.rc", le(words))
	if err := run(dir, tmp, there); err != nil {
		t.Errorf("link.rc: the command failed: %v", err)
	}
	if info, _ := os.Lstat(filepath.Join(dir, "link.rc")); info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.rc is no longer a link: %v", info.Mode())
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "real.rc")); string(got) != words {
		t.Errorf("real.rc is %q", got)
	}
	// iconv fails, each way: a lone surrogate in UTF-16, a stray byte in UTF-8 (an
	// edit may have left one). Nothing changes, and nothing is left behind.
	for _, c := range []struct {
		name, content string
		way           func(there, back string) string
	}{
		{"bad.rc", le("h") + "\x00\xd8" + le("i")[2:], func(there, _ string) string { return there }},
		{"bad8.rc", "h\xffi\n", func(_, back string) string { return back }},
	} {
		dir, tmp := t.TempDir(), t.TempDir()
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.content), 0o755)
		os.Chmod(p, 0o755)
		there, back := commands(c.name, le("x"))
		if err := run(dir, tmp, c.way(there, back)); err == nil {
			t.Errorf("%s: the failed conversion exits 0", c.name)
		}
		got, _ := os.ReadFile(p)
		info, _ := os.Lstat(p)
		if string(got) != c.content || info.Mode() != 0o755 {
			t.Errorf("%s after a failed conversion: %q, mode %v", c.name, got, info.Mode())
		}
		if n := entryNames(dir); len(n) != 1 || len(entryNames(tmp)) != 0 {
			t.Errorf("%s: a failed conversion left in the folder %q, in the temporary folder %q", c.name, n, entryNames(tmp))
		}
	}
}
