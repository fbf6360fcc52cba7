package matcher

import (
	"bytes"
	"errors"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

// A probe finds what Apply finds; a miss is text_not_found without the search for
// the closest region.
func TestProbe(t *testing.T) {
	file := []byte("alpha beta\ngamma delta\n")
	hit, err := Apply(file, []Edit{{OldText: "gamma delta\n", NewText: "x\n"}}, Options{Probe: true})
	if err != nil || !bytes.Equal(hit.Output, []byte("alpha beta\nx\n")) {
		t.Fatalf("probe hit: %v %q", err, hit.Output)
	}
	_, err = Apply(file, []Edit{{OldText: "gamma delt\nzeta\n"}}, Options{Probe: true})
	var r *errs.Error
	if !errors.As(err, &r) || r.Kind != errs.TextNotFound || r.Where == nil || len(r.Where.Lines) != 0 {
		t.Fatalf("probe miss: %v", err)
	}
	_, err = Apply(file, []Edit{{OldText: "gamma delt\nzeta\n"}}, Options{})
	if !errors.As(err, &r) || len(r.Where.Lines) == 0 {
		t.Fatalf("a miss without Probe names no region: %v", err)
	}
}
