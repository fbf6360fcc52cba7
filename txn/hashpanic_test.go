package txn

import (
	"strings"
	"testing"

	"github.com/vfsctl/vfsctl/internal/errs"
)

func panicWhileHashing(*Change) { panic("hash failed") }

// A panic while a commit hashes, on a goroutine of its own, reaches the call's
// goroutine with the stack where it happened, which the reply names.
func TestHashPanicKeepsItsSite(t *testing.T) {
	testHookHash = panicWhileHashing
	defer func() { testHookHash = nil }()
	var got any
	func() {
		defer func() { got = recover() }()
		hashAll([]*Change{{Name: "a.txt", Before: []byte("a"), After: []byte("b")}})
	}()
	p, ok := got.(*errs.Panic)
	if !ok {
		t.Fatalf("recovered %T %v, want *errs.Panic", got, got)
	}
	if p.String() != "hash failed" || !strings.Contains(string(p.Stack), "panicWhileHashing") {
		t.Fatalf("panic %q with a stack that does not name where it happened:\n%s", p, p.Stack)
	}
}
