//go:build race

package transport_test

// raceEnabled: the race detector slows loopback load tests; they shrink.
const raceEnabled = true
