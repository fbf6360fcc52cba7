package toolapi

import (
	"fmt"
	"strings"
	"testing"
)

// However large or deep the arguments, a refusal is invalid_input in one short line:
// a model reads the message back, and a message that echoes megabytes of its own
// mistake fills its context.
func TestDecodeMessagesStayShort(t *testing.T) {
	a, _ := newAPI(t, map[string]string{"a.txt": "alpha\n"})
	huge := strings.Repeat("k", 100_000)
	var many strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&many, `,"unknown%d":1`, i)
	}
	cases := map[string]struct{ tool, args string }{
		"a huge unknown key":      {ReadFile, `{"path":"a.txt","` + huge + `":1}`},
		"thousands of unknown":    {ReadFile, `{"path":"a.txt"` + many.String() + `}`},
		"a huge duplicated key":   {ReadFile, `{"path":"a.txt","` + huge + `":1,"` + huge + `":2}`},
		"a huge key in an edit":   {EditFile, `{"path":"a.txt","edits":[{"oldText":"alpha","newText":"beta","` + huge + `":1}]}`},
		"a huge key in a change":  {ApplyChanges, `{"changes":[{"path":"a.txt","create":"x","` + huge + "\\n" + huge + `":1}]}`},
		"nested 5000 deep":        {EditFile, `{"path":"a.txt","edits":` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `}`},
		"nested, never closed":    {ReadFile, `{"path":"a.txt","x":` + strings.Repeat(`{"a":`, 5000)},
		"nested in a JSON string": {EditFile, `{"path":"a.txt","edits":"` + strings.Repeat("[", 5000) + strings.Repeat("]", 5000) + `"}`},
	}
	for what, c := range cases {
		r := call(a, c.tool, c.args)
		if kindOf(r) != "invalid_input" || strings.Contains(r.Text, "\n") || len(r.Text) > 300 {
			t.Errorf("%s: kind %q, %d bytes: %.300q", what, kindOf(r), len(r.Text), r.Text)
		}
	}
}
