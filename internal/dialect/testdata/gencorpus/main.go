// Command gencorpus writes the corpus of real `git diff` hunks that the dialect tests
// measure apply_diff and apply_patch on: for each changed text file of each commit of
// a git repository, the file as it was before the commit and the commit's diff of it
// (`--full-index`, so that the test can check both sides against git's blob ids).
//
//	go run ./internal/dialect/testdata/gencorpus -git REPO.git -name owner/repo >> corpus.jsonl
//
// The lines are JSON objects {src, path, pre, diff}; the test reads them gzipped.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"unicode/utf8"
)

type entry struct {
	Src  string `json:"src"`
	Path string `json:"path"`
	Pre  string `json:"pre"`
	Diff string `json:"diff"`
}

func main() {
	gitDir := flag.String("git", "", "the repository's git directory")
	name := flag.String("name", "", "the repository's name, as the corpus records it")
	maxSize := flag.Int("max", 32<<10, "skip files larger than this before the commit")
	maxHunks := flag.Int("hunks", 1500, "stop after this many hunks")
	flag.Parse()
	if *gitDir == "" || *name == "" {
		flag.Usage()
		os.Exit(2)
	}
	git := func(args ...string) *exec.Cmd {
		return exec.Command("git", append([]string{"--git-dir", *gitDir}, args...)...)
	}
	out, err := git("log", "-p", "--no-merges", "--full-index", "--no-color", "--no-renames", "-U3", "--format=commit %H").Output()
	if err != nil {
		fail(err)
	}
	cat := git("cat-file", "--batch")
	in, _ := cat.StdinPipe()
	rd, _ := cat.StdoutPipe()
	if err := cat.Start(); err != nil {
		fail(err)
	}
	br := bufio.NewReader(rd)
	blob := func(id string) []byte {
		fmt.Fprintln(in, id)
		head, err := br.ReadString('\n')
		if err != nil {
			fail(err)
		}
		var typ string
		var size int
		if _, err := fmt.Sscanf(head, "%s %s %d", new(string), &typ, &size); err != nil || typ != "blob" {
			fail(fmt.Errorf("cat-file %s: %q", id, head))
		}
		b := make([]byte, size+1)
		if _, err := io.ReadFull(br, b); err != nil {
			fail(err)
		}
		return b[:size]
	}
	enc := json.NewEncoder(os.Stdout)
	hunks := 0
	commit := ""
	for _, sec := range bytes.Split(out, []byte("\ndiff --git ")) {
		s := string(sec)
		if i := strings.LastIndex(s, "\ncommit "); i >= 0 {
			commit = strings.TrimSpace(s[i+len("\ncommit "):])
			s = s[:i]
		}
		if strings.HasPrefix(s, "commit ") {
			commit = strings.TrimSpace(strings.SplitN(s, "\n", 2)[0][len("commit "):])
			continue
		}
		diff := "diff --git " + s + "\n"
		var old, path string
		for _, l := range strings.Split(diff, "\n") {
			if strings.HasPrefix(l, "index ") {
				ids := strings.Fields(l)[1]
				old = strings.SplitN(ids, "..", 2)[0]
			}
			if strings.HasPrefix(l, "+++ b/") {
				path = l[len("+++ b/"):]
			}
		}
		if old == "" || path == "" || strings.Trim(old, "0") == "" || strings.Contains(diff, "\nBinary files ") ||
			strings.Contains(diff, "\nnew file mode") || strings.Contains(diff, "\ndeleted file mode") {
			continue
		}
		pre := blob(old)
		if len(pre) > *maxSize || bytes.IndexByte(pre, 0) >= 0 || !utf8.Valid(pre) || !utf8.ValidString(diff) {
			continue
		}
		if err := enc.Encode(entry{Src: *name + "@" + commit, Path: path, Pre: string(pre), Diff: diff}); err != nil {
			fail(err)
		}
		hunks += strings.Count(diff, "\n@@ ")
		if hunks >= *maxHunks {
			break
		}
	}
	in.Close()
	cat.Wait()
	fmt.Fprintf(os.Stderr, "%d hunks\n", hunks)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gencorpus:", err)
	os.Exit(1)
}
