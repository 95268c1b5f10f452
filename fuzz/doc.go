// Package fuzz holds agwire's standing fuzz targets: one `go test -fuzz`
// target per promise the library makes about hostile or unusual input
// (decoding arbitrary bytes within a memory budget, agreement with the
// protobuf runtime, JSON and wire round trips, stream framing, the SSE
// reader, compressed client bodies, and the float64 edges of numbers).
//
// The package has no API; everything lives in its tests. Without -fuzz,
// `go test ./fuzz` runs every target over its seed corpus (the seeds added in
// code and the files under testdata/fuzz/<Target>/), so the seeds are part of
// the ordinary test run. See README.md for each target's property and how
// long it has been fuzzed.
package fuzz
