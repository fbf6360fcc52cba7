package main

import (
	"fmt"
	"io"
	"os"
	"runtime/trace"
)

// runtimeTrace writes Go's execution trace of the whole process to the file named by
// VFSCTL_TRACE, when set: where a long-lived call or serve process waits (system
// calls, goroutines woken, the scheduler, the garbage collector), for
// `go tool trace`. stop ends it and must run before the process exits.
func runtimeTrace(cmd string, stderr io.Writer) (stop func()) {
	path := os.Getenv("VFSCTL_TRACE")
	if path == "" {
		return func() {}
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		fmt.Fprintf(stderr, "vfsctl %s: VFSCTL_TRACE: %v\n", cmd, err)
		return func() {}
	}
	if err := trace.Start(f); err != nil {
		f.Close()
		fmt.Fprintf(stderr, "vfsctl %s: VFSCTL_TRACE: %v\n", cmd, err)
		return func() {}
	}
	return func() {
		trace.Stop()
		if err := f.Close(); err != nil {
			fmt.Fprintf(stderr, "vfsctl %s: VFSCTL_TRACE: %v\n", cmd, err)
		}
	}
}
