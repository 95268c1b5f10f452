// Command agwire converts between AG-UI JSON events, Server-Sent Events and
// the AG-UI 1.0 binary event stream (application/vnd.ag-ui.event+proto), and
// serves a demo AG-UI endpoint.
//
// Usage:
//
//	agwire <command> [flags]
//
// The commands are:
//
//	encode   JSON events, one per line, to a framed binary stream
//	decode   a framed binary stream to JSON events, one per line
//	convert  an event stream between SSE, JSON lines and binary, any direction
//	inspect  list the frames of a binary stream: offsets, sizes, types, ids
//	demo     run a built-in sample through encode and decode: sizes, round trip
//	serve    a demo AG-UI endpoint streaming the built-in run as SSE or binary
//	follow   follow a run of a resumable server by its id, as JSON events
//	bench    time encode and decode here: agwire, protobuf-go, encoding/json, TS peer
//	assemble the conversation a stream describes: messages and state, as JSON
//	compact  a shorter stream that assembles to the same conversation
//	version  print agwire's version (also --version)
//
// Encode, decode, convert and inspect draw a progress line on standard error
// when it is a terminal and their output goes elsewhere.
//
// Convert reads and writes SSE ("data: <JSON event>" blocks), JSON lines and
// the binary stream, telling the input's format from its first bytes when
// --from is omitted:
//
//	agwire convert --to binary -i events.jsonl -o events.bin
//	curl -sN ... | agwire convert --from sse --to jsonl
//
// Serve answers POST / with the built-in run (the one "agwire demo" shows),
// as text/event-stream or the binary stream according to the Accept header,
// compressed with zstd or gzip if the client asks, and GET / with a help
// page:
//
//	agwire serve --addr 127.0.0.1:8080 --delay 50ms
//
// With --resumable it keeps runs in a run log (in memory; with --nats URL on
// NATS JetStream, in the build of runlog/natslog/cmd/agwire), resumes cut
// clients from Last-Event-ID and serves GET /runs/RUN_ID, which follow
// reads:
//
//	agwire serve --resumable --detach
//	agwire follow http://127.0.0.1:8080/ r1 --from 5
//
// Run "agwire <command> --help" for a command's flags and an example.
package main

import (
	"os"

	"github.com/agwire/agwire/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
