package txn

import (
	"bytes"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

func panicWhileHashing(*Change) { panic("hash failed") }

// A panic while a commit hashes, on a goroutine of its own (a change of smallChange
// bytes or more), reaches the call's goroutine with the stack where it happened,
// which the reply names.
func TestHashPanicKeepsItsSite(t *testing.T) {
	testHookHash = panicWhileHashing
	defer func() { testHookHash = nil }()
	var got any
	func() {
		defer func() { got = recover() }()
		big := bytes.Repeat([]byte("a"), smallChange)
		hashAll([]*Change{{Name: "a.txt", Before: big, After: big[1:]}})
	}()
	p, ok := got.(*errs.Panic)
	if !ok {
		t.Fatalf("recovered %T %v, want *errs.Panic", got, got)
	}
	if p.String() != "hash failed" || !strings.Contains(string(p.Stack), "panicWhileHashing") {
		t.Fatalf("panic %q with a stack that does not name where it happened:\n%s", p, p.Stack)
	}
}

// A small change is hashed on the call's own goroutine: a panic there is the call's
// own, and its stack names where it happened.
func TestSmallHashPanicIsTheCallers(t *testing.T) {
	testHookHash = panicWhileHashing
	defer func() { testHookHash = nil }()
	var got any
	var stack string
	func() {
		defer func() { got = recover(); stack = string(debug.Stack()) }()
		hashAll([]*Change{{Name: "a.txt", Before: []byte("a"), After: []byte("b")}})
	}()
	if got != "hash failed" || !strings.Contains(stack, "panicWhileHashing") {
		t.Fatalf("recovered %T %v, with a stack that does not name where it happened:\n%s", got, got, stack)
	}
}
