package txn

import (
	"io"
	"os"
	"testing"
)

// TestMain lets the test binary double as the child process of the crash and
// multi-process tests: with VFSCTL_CHILD set it runs that child's loop instead.
func TestMain(m *testing.M) {
	switch os.Getenv("VFSCTL_CHILD") {
	case "crash":
		crashChild(os.Getenv("VFSCTL_DIR"))
		os.Exit(0)
	case "editor":
		editorChild(os.Getenv("VFSCTL_DIR"), os.Getenv("VFSCTL_ID"))
		os.Exit(0)
	case "killstep":
		killChild(os.Getenv("VFSCTL_DIR"), os.Getenv("VFSCTL_JOURNAL"), os.Getenv("VFSCTL_N"))
		os.Exit(0)
	case "undokill":
		undoKillChild(os.Getenv("VFSCTL_DIR"), os.Getenv("VFSCTL_JOURNAL"), os.Getenv("VFSCTL_HOW"), os.Getenv("VFSCTL_SEQ"), os.Getenv("VFSCTL_N"))
		os.Exit(0)
	case "killmove":
		killMoveChild(os.Getenv("VFSCTL_DIR"), os.Getenv("VFSCTL_JOURNAL"), os.Getenv("VFSCTL_WHAT"), os.Getenv("VFSCTL_N"))
		os.Exit(0)
	case "caller":
		callerChild(os.Getenv("VFSCTL_DIR"), os.Getenv("VFSCTL_N"))
		os.Exit(0)
	case "wait":
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	case "execnoboot":
		execNoBootChild(os.Getenv("VFSCTL_DIR"))
		os.Exit(0)
	case "owner":
		ownerChild(os.Getenv("VFSCTL_DIR"), os.Getenv("VFSCTL_ID"), os.Getenv("VFSCTL_N"))
		os.Exit(0)
	}
	os.Exit(m.Run())
}
