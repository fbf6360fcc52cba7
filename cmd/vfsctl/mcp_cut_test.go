package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// A tools/call over serve's 16 MiB frame limit is refused unread, and journaled as
// vfsctl call journals a call whose arguments are over the size limit: under its tool,
// refused too_large, its arguments kept with their long strings cut (the record stays
// small) and their size as sent; the operator's log shows it, and the reply carries its
// number.
func TestServeJournalsACallOverTheFrameLimit(t *testing.T) {
	bin := buildVfsctl(t)
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\n"), 0o644)
	content := strings.Repeat("é", 9<<20) // 18 MiB
	args, _ := json.Marshal(map[string]string{"path": "big.txt", "content": content})
	cmd := exec.Command(bin, "serve", "--root", dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stop := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer stop.Stop()
	go func() {
		io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}
{"jsonrpc":"2.0","method":"notifications/initialized"}
{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_file","_meta":{"vfsctl/turn":"t7"},"arguments":`+string(args)+`}}
{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"a.txt"}}}
`)
	}()
	replies := map[string]map[string]any{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for len(replies) < 3 && sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			t.Fatalf("stdout holds a line that is not JSON-RPC: %.200q", sc.Text())
		}
		b, _ := json.Marshal(m["id"])
		replies[string(b)] = m
	}
	stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("serve: %v", err)
	}
	res, _ := replies["2"]["result"].(map[string]any)
	st, _ := res["structuredContent"].(map[string]any)
	if st["kind"] != "too_large" || st["txn"] != 1.0 {
		t.Fatalf("the oversized call's reply: %v", replies["2"])
	}
	if _, err := os.Lstat(filepath.Join(dir, "big.txt")); !os.IsNotExist(err) {
		t.Fatalf("big.txt was refused, but: %v", err)
	}

	cli := func(args ...string) string {
		t.Helper()
		var out, errb bytes.Buffer
		if code := run(append(args[:1:1], append([]string{"--root", dir}, args[1:]...)...), strings.NewReader(""), &out, &errb); code != exitOK {
			t.Fatalf("vfsctl %s: exit %d: %s%s", strings.Join(args, " "), code, out.String(), errb.String())
		}
		return out.String()
	}
	var logged []map[string]any
	for _, l := range strings.Split(strings.TrimSpace(cli("log", "--json")), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		logged = append(logged, m)
	}
	if len(logged) != 2 || logged[1]["seq"] != 1.0 || logged[1]["tool"] != "create_file" || logged[1]["state"] != "failed" || logged[1]["kind"] != "too_large" ||
		logged[1]["turn"] != "t7" || !strings.Contains(fmt.Sprint(logged[1]["message"]), "16 MiB") {
		t.Fatalf("vfsctl log: %v", logged)
	}
	// The arguments are kept with the content cut to its first 512 bytes, and their
	// size as sent; a replay says it cannot run them.
	var rec struct {
		Tool     string
		Args     map[string]string
		ArgsSize int `json:"args_size"`
	}
	if err := json.Unmarshal([]byte(strings.SplitN(cli("export"), "\n", 2)[0]), &rec); err != nil {
		t.Fatal(err)
	}
	cut := map[string]string{"path": "big.txt", "content": strings.Repeat("é", 256) + fmt.Sprintf("… [cut: %d bytes as sent]", len(content))}
	if rec.Tool != "create_file" || fmt.Sprint(rec.Args) != fmt.Sprint(cut) || rec.ArgsSize != len(args) {
		t.Errorf("the record keeps %s %.300v, %d bytes sent; want create_file %.300v, %d", rec.Tool, rec.Args, rec.ArgsSize, cut, len(args))
	}
	if replay := cli("replay", "1"); !strings.Contains(replay, fmt.Sprintf("its %d bytes of arguments were refused and the journal keeps only their start", len(args))) {
		t.Errorf("vfsctl replay 1: %s", replay)
	}
}
