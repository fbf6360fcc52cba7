package toolapi

import (
	"fmt"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/dialect"
	"github.com/vfsctl/vfsctl/matcher"
)

// A model meets the bounds of a tool in its description: the figures there are the
// ones the code enforces.
func TestDescriptionsStateTheBounds(t *testing.T) {
	for _, c := range []struct {
		def  *toolDef
		want []int
	}{
		{editFileDef, []int{matcher.MaxOccurrences, matcher.MaxFoldBytes >> 20}},
		{searchFilesDef, []int{maxPatternInsts, maxSearchWork}},
		{applyPatchDef, []int{dialect.MaxChunks, dialect.MaxAnchors, matcher.MaxFoldBytes >> 20}},
	} {
		for _, n := range c.want {
			if !strings.Contains(c.def.desc, fmt.Sprint(n)) {
				t.Errorf("%s's description does not state %d", c.def.name, n)
			}
		}
	}
	if matcher.MaxSplices != matcher.MaxOccurrences {
		t.Errorf("edit_file's description says all edits change as many places as one replaceAll")
	}
}
