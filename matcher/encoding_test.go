package matcher

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
)

// An edit that replaces the only 8-bit characters of a Latin-1 file by the UTF-8
// characters they stood for leaves a file all UTF-8: one encoding, let through. One
// that leaves an 8-bit character beside a UTF-8 one is refused.
func TestAddedToEightBitAllowsAFileMadeAllUTF8(t *testing.T) {
	before := []byte("name = \"caf\xe9\"\nx = 1\n")
	if msg := AddedToEightBit("l1.py", before, []byte("name = \"café\"\nx = 1\n"), nil); msg != "" {
		t.Errorf("the file made all UTF-8 is refused: %s", msg)
	}
	before = []byte("a = \"caf\xe9\"\nb = \"ol\xe9\"\n")
	msg := AddedToEightBit("l2.py", before, []byte("a = \"café\"\nb = \"ol\xe9\"\n"), nil)
	if !strings.Contains(msg, "'é' (U+00E9) on line 1") || !strings.Contains(msg, "mix two encodings") {
		t.Errorf("a file left with both encodings: %q", msg)
	}
}

// A deletion that makes two of a Latin-1 file's bytes adjacent, reading as a UTF-8
// character ("\xc3" and "\xa9" are "Ã" and "©"), adds no character of the model's:
// let through when the model's text is known, and refused for a character it holds.
func TestAddedToEightBitOnlyForTheModelsCharacters(t *testing.T) {
	before := []byte("a = \"\xc3 \xa9\" + \"\xe9\"\n")
	after := []byte("a = \"\xc3\xa9\" + \"\xe9\"\n")
	if msg := AddedToEightBit("l2.py", before, after, []string{"\ufffd\ufffd"}); msg != "" {
		t.Errorf("a deletion is refused: %s", msg)
	}
	if msg := AddedToEightBit("l2.py", before, after, []string{"\ufffd\ufffd", "é"}); !strings.Contains(msg, "'é' (U+00E9) on line 1") {
		t.Errorf("a character the model sent: %q", msg)
	}
}

// The command the refusal gives to convert an 8-bit file, run as it is written in sh:
// it made the file anew with mv, so that a script lost its executable bit (the umask's
// mode), and when iconv failed (bytes WINDOWS-1252 leaves undefined) it left the
// half-written F.utf8 in the folder. The file now keeps its mode and stays a link where
// it was one, holds the text in UTF-8, and a failed conversion leaves the file, its
// folder and the temporary folder as they were, and fails.
func TestEightBitConversionCommandKeepsTheFile(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("a POSIX shell command")
	}
	for _, tool := range []string{"sh", "iconv", "mktemp"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s here", tool)
		}
	}
	command := func(name string, before []byte) string {
		msg := AddedToEightBit(name, before, append(append([]byte{}, before...), "é\n"...), []string{"é"})
		m := regexp.MustCompile("`([^`]*iconv [^`]*)`").FindStringSubmatch(msg)
		if m == nil {
			t.Fatalf("no command in %q", msg)
		}
		return m[1]
	}
	run := func(dir, tmp, cmd string) error { return runAdvice(t, dir, tmp, cmd) }
	// Latin-1 and WINDOWS-1252 (a byte 0x80-0x9F) text, and what each is in UTF-8.
	for _, c := range []struct{ name, text, utf8 string }{
		{"run.sh", "#!/bin/sh\necho caf\xe9\n", "#!/bin/sh\necho café\n"},
		{"it's w.py", "s = \x93caf\xe9\x94 + '\x80'\n", "s = “café” + '€'\n"},
		{"-dash.txt", "na\xefve\n", "naïve\n"},
	} {
		dir, tmp := t.TempDir(), t.TempDir()
		p := filepath.Join(dir, c.name)
		os.WriteFile(p, []byte(c.text), 0o644)
		os.Chmod(p, 0o751) // not the umask's
		if err := run(dir, tmp, command(c.name, []byte(c.text))); err != nil {
			t.Errorf("%s: the command failed: %v", c.name, err)
		}
		got, _ := os.ReadFile(p)
		info, _ := os.Lstat(p)
		if string(got) != c.utf8 || info.Mode() != 0o751 {
			t.Errorf("%s: %q, mode %v; want %q, mode 0751", c.name, got, info.Mode(), c.utf8)
		}
		if n := entryNames(dir); len(n) != 1 || len(entryNames(tmp)) != 0 {
			t.Errorf("%s: left in the folder %q, in the temporary folder %q", c.name, n, entryNames(tmp))
		}
	}
	// A link stays a link, to the file converted.
	dir, tmp := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(dir, "real.txt"), []byte("caf\xe9\n"), 0o640)
	os.Symlink("real.txt", filepath.Join(dir, "link.txt"))
	if err := run(dir, tmp, command("link.txt", []byte("caf\xe9\n"))); err != nil {
		t.Errorf("link.txt: the command failed: %v", err)
	}
	if info, _ := os.Lstat(filepath.Join(dir, "link.txt")); info.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link.txt is no longer a link: %v", info.Mode())
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "real.txt")); string(got) != "café\n" {
		t.Errorf("real.txt is %q", got)
	}
	// 0x81 is not a WINDOWS-1252 character: iconv fails, and nothing changes.
	dir, tmp = t.TempDir(), t.TempDir()
	bad := "x = \x93a\x94 \x81\n"
	os.WriteFile(filepath.Join(dir, "bad.py"), []byte(bad), 0o755)
	os.Chmod(filepath.Join(dir, "bad.py"), 0o755)
	cmd := command("bad.py", []byte(bad))
	if !strings.Contains(cmd, "WINDOWS-1252") {
		t.Fatalf("not a WINDOWS-1252 conversion: %s", cmd)
	}
	if err := run(dir, tmp, cmd); err == nil {
		t.Error("the failed conversion exits 0")
	}
	got, _ := os.ReadFile(filepath.Join(dir, "bad.py"))
	info, _ := os.Lstat(filepath.Join(dir, "bad.py"))
	if string(got) != bad || info.Mode() != 0o755 {
		t.Errorf("bad.py after a failed conversion: %q, mode %v", got, info.Mode())
	}
	if n := entryNames(dir); len(n) != 1 || len(entryNames(tmp)) != 0 {
		t.Errorf("a failed conversion left in the folder %q, in the temporary folder %q", n, entryNames(tmp))
	}
}
