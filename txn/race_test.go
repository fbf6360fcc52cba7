//go:build race

package txn

// raceEnabled: the race detector slows the heavy tests about tenfold; .ci/run runs them
// in full without it as well.
const raceEnabled = true
