// Package cli is the agwire command. cmd/agwire runs it, and so does the
// build with NATS JetStream support in the nested module runlog/natslog
// (runlog/natslog/cmd/agwire), which sets OpenNATS: the code lives here,
// not in package main, so that the nested module can import it while the
// main module's go.mod stays free of NATS.
package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/agwire/agwire/runlog"
)

// Main runs the agwire command with args (without the program name) and
// returns its exit status.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return run(args, stdin, stdout, stderr)
}

// OpenNATS, when set, opens a run log on NATS JetStream at a server URL, for
// "agwire serve --resumable --nats URL". The main module's build leaves it
// nil (it has no NATS dependency); runlog/natslog/cmd/agwire sets it.
var OpenNATS func(ctx context.Context, url string) (runlog.Log, error)

// Exit statuses.
const (
	exitOK    = 0 // success
	exitFail  = 1 // bad input, or an input/output error
	exitUsage = 2 // bad command line
)

// command is one subcommand: run gets the arguments after its name.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// commands lists the subcommands in the order "agwire help" shows them.
var commands = []command{
	{"encode", "JSON events, one per line, to a framed binary stream", runEncode},
	{"decode", "a framed binary stream to JSON events, one per line", runDecode},
	{"convert", "an event stream between SSE, JSON lines and binary, any direction", runConvert},
	{"inspect", "list the frames of a binary stream: offsets, sizes, types, ids", runInspect},
	{"demo", "run a built-in sample through encode and decode: sizes, round trip", runDemo},
	{"serve", "a demo AG-UI endpoint streaming the built-in run as SSE or binary", runServe},
	{"follow", "follow a run of a resumable server by its id, as JSON events", runFollow},
	{"bench", "time encode and decode here: agwire, protobuf-go, encoding/json, TS peer", runBench},
	{"assemble", "the conversation a stream describes: messages and state, as JSON", runAssemble},
	{"compact", "a shorter stream that assembles to the same conversation", runCompact},
	{"version", "print agwire's version (also --version)", runVersion},
}

// run is the whole program: it returns the exit status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stderr)
		return exitUsage
	}
	switch name := args[0]; name {
	case "help", "-h", "-help", "--help":
		if len(args) > 1 {
			cmd := lookup(args[1])
			if cmd == nil {
				fmt.Fprintf(stderr, "agwire help: unknown command %q\n", args[1])
				return exitUsage
			}
			return cmd.run([]string{"--help"}, stdin, stdout, stderr)
		}
		usage(stdout)
		return exitOK
	case "-version", "--version":
		return runVersion(args[1:], stdin, stdout, stderr)
	default:
		cmd := lookup(name)
		if cmd == nil {
			fmt.Fprintf(stderr, "agwire: unknown command %q\n\n", name)
			usage(stderr)
			return exitUsage
		}
		return cmd.run(args[1:], stdin, stdout, stderr)
	}
}

func lookup(name string) *command {
	for i := range commands {
		if commands[i].name == name {
			return &commands[i]
		}
	}
	return nil
}

func usage(w io.Writer) {
	fmt.Fprint(w, "agwire converts between AG-UI JSON events, Server-Sent Events and the AG-UI 1.0\nbinary stream (application/vnd.ag-ui.event+proto: length-prefixed protobuf Event\nmessages), and serves a demo AG-UI endpoint.\n\nUsage:\n\n\tagwire <command> [flags]\n\nThe commands are:\n\n")
	for _, c := range commands {
		fmt.Fprintf(w, "\t%-8s %s\n", c.name, c.summary)
	}
	fmt.Fprint(w, "\nRun 'agwire <command> --help' for a command's flags and an example.\n")
}
