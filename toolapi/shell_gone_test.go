//go:build !windows

package toolapi_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/testutil"
	"github.com/vfsctl/vfsctl/toolapi"
)

// A command that removed the journal was refused with "could not be journaled: The
// journal ... is gone", a capital mid-sentence, and run_command added that what it
// changed "is recorded by the next look", which the journal's own sentence denies
// (nothing was recorded; restart vfsctl). The refusal reads as sentences and says
// only what is so.
func TestRunCommandThatRemovedTheJournal(t *testing.T) {
	root := testutil.Workspace(t, map[string]string{"a.txt": "a\n"})
	eng, err := toolapi.Open(root, toolapi.Options{Tools: "native,shell"})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	args, _ := json.Marshal(map[string]string{"command": "rm -rf .vfsctl"})
	r := eng.Call(context.Background(), "s", toolapi.RunCommand, args)
	if r.OK {
		t.Fatalf("run_command rm -rf .vfsctl: ok: %s", r.Text)
	}
	if m := regexp.MustCompile(`[a-z,:;] The `).FindString(r.Text); m != "" || !strings.HasPrefix(r.Text, "The command ") {
		t.Errorf("reply: %s\nwant sentences, each starting with a capital, none mid-sentence (found %q)", r.Text, m)
	}
	if strings.Contains(r.Text, "recorded by the next look") || !strings.Contains(r.Text, "is gone") || !strings.Contains(r.Text, "restart vfsctl") {
		t.Errorf("reply: %s\nwant it to say the journal is gone and to restart vfsctl, not that the next look records the change", r.Text)
	}
	if r.Txn != nil {
		t.Errorf("reply's txn is %d, a record in the journal the command removed; want none", *r.Txn)
	}
}
