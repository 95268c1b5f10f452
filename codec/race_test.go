//go:build race

package codec_test

// raceEnabled: the race detector slows decoding about tenfold and changes
// what the runtime allocates, so the growth tests use smaller frames and
// check ratios only.
const raceEnabled = true
