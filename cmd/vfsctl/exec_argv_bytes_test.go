package main

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/winetest"
)

// An argument that is not UTF-8 was recorded as U+FFFD: log showed `printf %s ��`
// and the export held "\ufffd\ufffd", so the record could not say what ran. The
// record keeps the bytes, log shows them escaped, export has them in base64.
func TestExecArgvThatIsNotUTF8IsRecordedExactly(t *testing.T) {
	winetest.NeedPOSIXShell(t)
	dir := t.TempDir()
	argv := []string{"printf", "%s", "\xff\xfe"}
	if code, out, errb := cliIn(t, dir, "", append([]string{"exec", "--root", dir, "--"}, argv...)...); code != 0 || out != "\xff\xfe" {
		t.Fatalf("exec: exit %d, output %q\n%s", code, out, errb)
	}
	_, out, _ := cliIn(t, dir, "", "log", "--root", dir)
	if !strings.Contains(out, `\xff\xfe`) || strings.Contains(out, "\ufffd") {
		t.Errorf("log shows the command as\n%s\nwant its bytes escaped, \\xff\\xfe", out)
	}
	_, out, errb := cliIn(t, dir, "", "export", "--root", dir)
	var rec struct {
		Args struct {
			ArgvBase64 []string `json:"argv_base64"`
		} `json:"args"`
	}
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &rec); err != nil {
		t.Fatalf("export: %v\n%s%s", err, out, errb)
	}
	var got []string
	for _, b := range rec.Args.ArgvBase64 {
		arg, err := base64.StdEncoding.DecodeString(b)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, string(arg))
	}
	if !slices.Equal(got, argv) {
		t.Errorf("export's args.argv_base64 decodes to %q, want %q", got, argv)
	}
}
