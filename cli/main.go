// Package cli is the agwire command: the application at the top of the
// import graph, above the library packages it drives. cmd/agwire runs it
// with [Main], and the build with NATS JetStream support in the nested
// module runlog/natslog (runlog/natslog/cmd/agwire) runs it with
// [Options.Main], giving [Options.OpenNATS]: the code lives here, not in
// package main, so that the nested module can import it while the main
// module's go.mod stays free of NATS.
package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/agwire/agwire/runlog"
)

// Main runs the agwire command with args (without the program name) and
// returns its exit status. It is the main module's build: Options{}.Main.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return Options{}.Main(args, stdin, stdout, stderr)
}

// Options are what a build of the agwire command adds to it. The zero value
// is the main module's build.
type Options struct {
	// OpenNATS, when set, opens a run log on NATS JetStream at a server URL,
	// for "agwire serve --resumable --nats URL". The main module's build
	// leaves it nil (it has no NATS dependency), and --nats then fails with a
	// message naming the build that has it; runlog/natslog/cmd/agwire sets it.
	OpenNATS func(ctx context.Context, url string) (runlog.Log, error)
}

// Main runs the agwire command of the build o with args (without the
// program name) and returns its exit status.
func (o Options) Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(o, args, stdin, stdout, stderr)
}

// Exit statuses.
const (
	exitOK    = 0 // success
	exitFail  = 1 // bad input, or an input/output error
	exitUsage = 2 // bad command line
)

// command is one subcommand: run (or runOpts, for a command that depends on
// the build's Options) gets the arguments after its name.
type command struct {
	name    string
	summary string
	run     func(args []string, stdin io.Reader, stdout, stderr io.Writer) int
	runOpts func(o Options, args []string, stdin io.Reader, stdout, stderr io.Writer) int
}

// call runs c in the build o.
func (c *command) call(o Options, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if c.runOpts != nil {
		return c.runOpts(o, args, stdin, stdout, stderr)
	}
	return c.run(args, stdin, stdout, stderr)
}

// commands lists the subcommands in the order "agwire help" shows them.
var commands = []command{
	{"encode", "JSON events, one per line, to a framed binary stream", runEncode, nil},
	{"decode", "a framed binary stream to JSON events, one per line", runDecode, nil},
	{"convert", "an event stream between SSE, JSON lines and binary, any direction", runConvert, nil},
	{"inspect", "list the frames of a binary stream: offsets, sizes, types, ids", runInspect, nil},
	{"demo", "run a built-in sample through encode and decode: sizes, round trip", runDemo, nil},
	{"serve", "a demo AG-UI endpoint streaming the built-in run as SSE or binary", nil, runServe},
	{"follow", "follow a run of a resumable server by its id, as JSON events", runFollow, nil},
	{"bench", "time encode and decode here: agwire, protobuf-go, encoding/json, TS peer", runBench, nil},
	{"assemble", "the conversation a stream describes: messages and state, as JSON", runAssemble, nil},
	{"compact", "a shorter stream that assembles to the same conversation", runCompact, nil},
	{"version", "print agwire's version (also --version)", runVersion, nil},
}

// run is the whole program of the main module's build: it returns the exit
// status.
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runWith(Options{}, args, stdin, stdout, stderr)
}

// runWith is the whole program of the build o: it returns the exit status.
func runWith(o Options, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
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
			return cmd.call(o, []string{"--help"}, stdin, stdout, stderr)
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
		return cmd.call(o, args[1:], stdin, stdout, stderr)
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
