package main

import (
	"bufio"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// collector is an OTLP/HTTP trace receiver on 127.0.0.1 that keeps what it is sent.
type collector struct {
	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string
	bad      []string
}

func (c *collector) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	var req coltrace.ExportTraceServiceRequest
	c.mu.Lock()
	defer c.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/traces" || proto.Unmarshal(body, &req) != nil {
		c.bad = append(c.bad, r.Method+" "+r.URL.Path+" "+r.Header.Get("Content-Type"))
		http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
		return
	}
	for _, rs := range req.ResourceSpans {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.Key == "service.name" {
				c.services = append(c.services, kv.GetValue().GetStringValue())
			}
		}
		for _, ss := range rs.ScopeSpans {
			c.spans = append(c.spans, ss.Spans...)
		}
	}
	out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	w.Write(out)
}

func spanAttr(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

// runTraced runs `vfsctl call` on stdin with the OTEL variables of env (and none
// from this process's own environment), and returns its exit code.
func runTraced(t *testing.T, dir, stdin string, env ...string) int {
	t.Helper()
	cmd := exec.Command(buildVfsctl(t), "call", "--root", dir, "--session", "s1")
	cmd.Env = otelEnv(env...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	t.Logf("vfsctl call:\n%s", out)
	return code
}

// otelEnv is this process's environment without its OpenTelemetry variables, plus env.
func otelEnv(env ...string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "OTEL_") && !strings.HasPrefix(kv, "TRACEPARENT=") && !strings.HasPrefix(kv, "TRACESTATE=") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}

// TestCallExportsSpans: with OTEL_EXPORTER_OTLP_ENDPOINT set, `vfsctl call` sends one
// span per call to the collector before it exits, named and attributed after the
// GenAI tool execution conventions, under the runtime's TRACEPARENT; with
// OTEL_SDK_DISABLED=true it sends nothing.
func TestCallExportsSpans(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	calls := `{"tool": "read_file", "args": {"path": "a.txt"}, "id": "call_1"}
{"tool": "edit_file", "args": {"path": "a.txt", "edits": [{"oldText": "omega", "newText": "x"}]}, "id": 7}
`
	const traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	code := runTraced(t, dir, calls, "OTEL_EXPORTER_OTLP_ENDPOINT="+srv.URL,
		"TRACEPARENT=00-"+traceID+"-00f067aa0ba902b7-01")
	if code != exitRefused {
		t.Fatalf("exit %d, want %d (the edit is refused)", code, exitRefused)
	}
	col.mu.Lock()
	spans, services, bad := col.spans, col.services, col.bad
	col.mu.Unlock()
	if len(bad) > 0 {
		t.Errorf("the collector got requests that are not OTLP trace exports: %q", bad)
	}
	if len(spans) != 2 {
		t.Fatalf("the collector got %d spans, want 2", len(spans))
	}
	if len(services) == 0 || services[0] != "vfsctl" {
		t.Errorf("service.name %q, want vfsctl", services)
	}
	byName := map[string]*tracepb.Span{}
	for _, s := range spans {
		byName[s.Name] = s
		if got := hex.EncodeToString(s.TraceId); got != traceID {
			t.Errorf("span %q in trace %s, want the TRACEPARENT's %s", s.Name, got, traceID)
		}
	}
	read, edit := byName["execute_tool read_file"], byName["execute_tool edit_file"]
	if read == nil || edit == nil {
		t.Fatalf("spans %v, want execute_tool read_file and execute_tool edit_file", byName)
	}
	for _, c := range []struct {
		s         *tracepb.Span
		key, want string
	}{
		{read, "gen_ai.operation.name", "execute_tool"},
		{read, "gen_ai.tool.name", "read_file"},
		{read, "gen_ai.tool.call.id", "call_1"},
		{read, "vfsctl.session", "s1"},
		{read, "error.type", ""},
		{edit, "gen_ai.tool.call.id", "7"},
		{edit, "error.type", "text_not_found"},
	} {
		if got := spanAttr(c.s, c.key); got != c.want {
			t.Errorf("%s: %s = %q, want %q", c.s.Name, c.key, got, c.want)
		}
	}
	if read.GetStatus().GetCode() == tracepb.Status_STATUS_CODE_ERROR || edit.GetStatus().GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("statuses %v and %v, want the refused edit's alone an error", read.GetStatus(), edit.GetStatus())
	}

	// OTEL_SDK_DISABLED turns it all off.
	runTraced(t, dir, calls, "OTEL_EXPORTER_OTLP_ENDPOINT="+srv.URL, "OTEL_SDK_DISABLED=true")
	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.spans) != 2 {
		t.Errorf("with OTEL_SDK_DISABLED=true the collector got %d more spans, want none", len(col.spans)-2)
	}
}

// TestServeExportsSpans: `vfsctl serve` exports a tools/call's span when the client
// disconnects, in the trace the request's _meta names.
func TestServeExportsSpans(t *testing.T) {
	col := &collector{}
	srv := httptest.NewServer(col)
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	const traceID = "0af7651916cd43dd8448eb211c80319c"
	cmd := exec.Command(buildVfsctl(t), "serve", "--root", dir)
	cmd.Env = otelEnv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=" + srv.URL + "/v1/traces")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() }) // a server that hangs fails the test
	defer stop.Stop()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"},"_meta":{"traceparent":"00-`+traceID+`-b7ad6b7169203331-01"}}}
`)
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), `{"jsonrpc":"2.0","id":2,`) {
			break // the call's reply: its span has ended
		}
	}
	stdin.Close() // the client goes: serve returns and flushes
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v\n%s", err, stderr.String())
	}
	col.mu.Lock()
	defer col.mu.Unlock()
	if len(col.spans) != 1 {
		t.Fatalf("the collector got %d spans, want 1 (bad requests %q)\n%s", len(col.spans), col.bad, stderr.String())
	}
	s := col.spans[0]
	if s.Name != "execute_tool read_file" || hex.EncodeToString(s.TraceId) != traceID || spanAttr(s, "vfsctl.session") == "" {
		t.Errorf("span %q in trace %x with session %q, want execute_tool read_file in %s",
			s.Name, s.TraceId, spanAttr(s, "vfsctl.session"), traceID)
	}
}
