// Package interop proves agwire's wire compatibility against the real
// TypeScript reference peer, the published @ag-ui/proto, @ag-ui/encoder and
// @ag-ui/client packages pinned at 1.0.0 in this directory's package.json.
//
// The package itself is a small driver (Peer) for `node peer.mjs serve`, the
// JSON-lines request/response loop described in README.md. It compiles and
// imports without node; only starting a Peer needs node and an installed
// interop/node_modules (`cd interop && npm ci`). The tests in this package
// start one Peer per test binary and run the fixture corpus
// (fixtures/events.jsonl) through agwire and the peer in both directions, as
// single events and as framed streams.
package interop
