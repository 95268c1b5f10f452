// Package conformance holds agwire's lane of the AG-UI 1.0 client
// conformance corpus: testdata/1.0 is a copy of the corpus (see its
// SOURCE.md and LICENSE), and conformance_test.go serves every fixture's
// stream over HTTP as SSE, verbatim, into agwire's client side — a
// transport.Client reading as a client (ClientOptions.Consume, which is
// event.Parser.Consume) under an agent.Thread that applies the events with
// assemble and sends the request — and checks the fixture's
// expectations, with the relaxations the corpus allows a third-party client
// and agwire's deliberate differences listed, each with its reason, in the
// test's two tables.
//
//	go test -v -run TestConformance ./conformance/
//
// prints the summary: fixtures passed as written, passed with a relaxation,
// and passed with a deliberate difference, per fixture area.
package conformance
