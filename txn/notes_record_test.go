package txn

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/afero"

	"github.com/vfsctl/vfsctl/internal/guard"
	"github.com/vfsctl/vfsctl/matcher"
	"github.com/vfsctl/vfsctl/vfs"
)

// TestRecordKeepsWhatTheReplyNoted: what a guard repaired (a curly quote written
// plain) and what it warned of in warn mode are in the call's record as well as in
// its reply, so that an operator reading the journal learns what the model did.
func TestRecordKeepsWhatTheReplyNoted(t *testing.T) {
	const src = "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"a\")\n}\n"
	for _, c := range []struct {
		name      string
		mode      guard.Mode
		old, new  string
		wantReply string // a part of what the reply notes
	}{
		{"repaired", guard.Refuse, `fmt.Println("a")`, "fmt.Println(\u201cb\u201d)", "was written as"},
		{"warned", guard.Warn, `fmt.Println("a")`, `fmt.Println("b"`, "warning: the change leaves main.go with a syntax error"},
	} {
		t.Run(c.name, func(t *testing.T) {
			mem := afero.NewMemMapFs()
			afero.WriteFile(mem, "main.go", []byte(src), 0o644)
			e, err := Open(vfs.New(mem, vfs.Options{}), Options{JournalPath: t.TempDir() + "/journal.db", Guard: c.mode})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			var ch *Change
			var seq uint64
			err = do(e, "s", func(call *Call) error {
				var err error
				ch, err = e.Edit(call, "main.go", []matcher.Edit{{OldText: c.old, NewText: c.new}}, false)
				seq = call.Seq()
				return err
			})
			if err != nil {
				t.Fatalf("the edit was refused: %v", err)
			}
			said := append(slices.Clone(ch.Notes), ch.Warnings...)
			if !strings.Contains(strings.Join(said, "\n"), c.wantReply) {
				t.Fatalf("the reply notes %q, want a note with %q", said, c.wantReply)
			}
			if got := recordOf(t, e, seq).Notes; !slices.Equal(got, said) {
				t.Fatalf("the record notes %q, the reply %q", got, said)
			}
		})
	}
}
