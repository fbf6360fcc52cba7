package matcher

import (
	"reflect"
	"testing"
)

// An oldText that matches one place exactly and others only after folding edits the
// exact place, and names the others when oldText holds characters folding changes
// (the model may have drifted them). The expected lines are read off each fixture.
func TestAlsoFolded(t *testing.T) {
	readme := "# Greeting\n\nCall it as say(“hi”) to greet.\n\n```python\nsay(\"hi\")\n```\n"
	gem := "a = \"x\"\nb = \"x\"\nc = “x”\n"
	cases := []struct {
		name, file string
		edit       Edit
		edited     [][2]int
		also       []int
	}{
		{"drifted quotes", readme, Edit{OldText: "say(“hi”)", NewText: "say(“hello”)"}, [][2]int{{3, 3}}, []int{6}},
		{"straight quotes fold to themselves", readme, Edit{OldText: "say(\"hi\")", NewText: "say(\"hello\")"}, [][2]int{{6, 6}}, nil},
		{"replaceAll", gem, Edit{OldText: "“x”", NewText: "“z”", ReplaceAll: true}, [][2]int{{3, 3}}, []int{1, 2}},
		{"no other place", "a = “x”\nb = 1\n", Edit{OldText: "“x”", NewText: "“z”"}, [][2]int{{1, 1}}, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Apply([]byte(c.file), []Edit{c.edit}, Options{Name: "f"})
			if err != nil {
				t.Fatal(err)
			}
			r := res.Edits[0]
			if r.Tier != TierExact || !reflect.DeepEqual(r.Lines, c.edited) {
				t.Fatalf("edited %v at tier %v, want %v exactly", r.Lines, r.Tier, c.edited)
			}
			if !reflect.DeepEqual(r.AlsoFolded, c.also) {
				t.Fatalf("AlsoFolded %v, want %v", r.AlsoFolded, c.also)
			}
		})
	}
}
