// Package interop proves agwire's wire compatibility against the real
// TypeScript reference peer, the published @ag-ui/proto, @ag-ui/encoder and
// @ag-ui/client packages pinned at 1.0.0 in this directory's package.json.
//
// The package is test-only: every file is a _test.go file, so nothing here
// can be imported. It holds a small driver (Peer) for `node peer.mjs serve`,
// the JSON-lines request/response loop described in README.md; only starting
// a Peer needs node and an installed interop/node_modules
// (`cd interop && npm ci`). The tests in this package
// start one Peer per test binary and run the fixture corpus
// (fixtures/events.jsonl) through agwire and the peer in both directions, as
// single events and as framed streams.
package interop
