package main

import (
	"encoding/hex"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

// A call line's own "traceparent" parents its span, in place of TRACEPARENT's: two
// calls of one long-lived `vfsctl call` land under their own parents. One that is not
// a valid traceparent (or not a string) is ignored: the call runs, traced under
// TRACEPARENT.
func TestCallLineTraceparent(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	const (
		envTrace = "0af7651916cd43dd8448eb211c80319c"
		envSpan  = "b7ad6b7169203331"
		trace1   = "11111111111111111111111111111111"
		span1    = "1111111111111111"
		trace2   = "22222222222222222222222222222222"
		span2    = "2222222222222222"
	)
	calls := `{"id": "c1", "tool": "read_file", "args": {"path": "a.txt"}, "traceparent": "00-` + trace1 + `-` + span1 + `-01"}
{"id": "c2", "tool": "read_file", "args": {"path": "a.txt"}, "traceparent": "00-` + trace2 + `-` + span2 + `-01", "tracestate": "k=v"}
{"id": "c3", "tool": "read_file", "args": {"path": "a.txt"}, "traceparent": "00-not-a-trace-context"}
{"id": "c4", "tool": "read_file", "args": {"path": "a.txt"}, "traceparent": 7}
{"id": "c5", "tool": "read_file", "args": {"path": "a.txt"}}
`
	code := runTraced(t, dir, calls, "OTEL_EXPORTER_OTLP_ENDPOINT="+srv.URL,
		"TRACEPARENT=00-"+envTrace+"-"+envSpan+"-01")
	if code != exitOK {
		t.Fatalf("exit %d, want %d: every call runs", code, exitOK)
	}
	col.mu.Lock()
	spans := col.spans
	col.mu.Unlock()
	want := map[string][2]string{
		"c1": {trace1, span1}, "c2": {trace2, span2},
		"c3": {envTrace, envSpan}, "c4": {envTrace, envSpan}, "c5": {envTrace, envSpan},
	}
	seen := map[string]bool{}
	for _, s := range spans {
		id := spanAttr(s, "gen_ai.tool.call.id")
		w, ok := want[id]
		if !ok {
			t.Errorf("a span for call %q", id)
			continue
		}
		seen[id] = true
		if got := hex.EncodeToString(s.TraceId); got != w[0] {
			t.Errorf("call %s: span in trace %s, want %s", id, got, w[0])
		}
		if got := hex.EncodeToString(s.ParentSpanId); got != w[1] {
			t.Errorf("call %s: span's parent %s, want %s", id, got, w[1])
		}
		if id == "c2" && s.TraceState != "k=v" {
			t.Errorf("call c2: trace state %q, want k=v", s.TraceState)
		}
	}
	if len(seen) != len(want) {
		t.Errorf("spans for %v, want one for each of the 5 calls", seen)
	}
}
