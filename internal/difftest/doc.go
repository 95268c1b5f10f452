// Package difftest is the differential-test harness of the module: the
// corpus of AG-UI events and the comparisons that hold two implementations
// of one job to each other. Package event's tests hold its compiled JSON
// parsers and writers (json_gen.go) to its interpreter with it, and
// package codec's tests hold the generated wire coders (coders_gen.go) to
// the reference decoder, the independent oracle and protobuf-go.
//
// The corpus (corpus.go): the real peer's golden frames (LoadGolden); the
// events of the AG-UI 1.0 conformance streams, as written and compact, and
// the seeds of the JSON fuzz targets; hand-written edge cases (Edges:
// every condition of the compiled layout, metadata edge cases, numbers at
// the edges of a double and of an int64); and, for every event type, its
// richest valid event with each member, at every depth, absent and null
// (Members). Filled events (fill.go) are typed events of every type filled
// from a byte stream, valid or not.
//
// The comparisons (compare.go): Agree (two answers, value for value and
// error for error), Within (a fast path that answered answers as the
// reference), and the one-byte changes and cuts (Mutator) and JSON
// reshapings (Reshape) both tests apply to the corpus.
//
// Only tests import this package (a test of its own checks that no other
// file of the repository does).
package difftest
