//go:build race

package journal

// raceEnabled: the race detector slows the power-loss rounds about tenfold.
const raceEnabled = true
