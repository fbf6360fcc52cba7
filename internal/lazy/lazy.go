// Package lazy holds what a package would otherwise build when the program starts:
// every vfsctl command is a process of its own, and a package's initialisers run in
// each, whether or not the command uses what they build.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp is expr compiled on first use (regexp.MustCompile then, which panics on a
// bad expression as it would have at start).
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
