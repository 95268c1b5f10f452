//go:build race

package pipeline

// raceEnabled: the race detector slows the conversions about tenfold; the
// longest tests convert less under it.
const raceEnabled = true
