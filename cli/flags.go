package cli

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// cli is what every subcommand shares: its flag set, the standard streams,
// the -i/-o files and --keep-going.
type cli struct {
	name     string // subcommand name, as in "agwire encode"
	synopsis string // what the command does, for --help
	example  string // an example, for --help
	operands string // the arguments after the flags, for --help: "URL RUN_ID"
	fs       *flag.FlagSet

	stdin          io.Reader
	stdout, stderr io.Writer

	in, out   string
	keepGoing bool
	strict    bool // --strict: a frame from a later protocol version is an error

	// dropped is the event a consuming parse (event.Parser.Consume) dropped
	// last, as its warning said (see consumeWarn).
	dropped *event.Warning

	prog *progress // the progress line on stderr, or nil
}

func newCLI(name, synopsis, example, keepGoing string, stdin io.Reader, stdout, stderr io.Writer) *cli {
	c := newBareCLI(name, synopsis, example, stdin, stdout, stderr)
	c.fs.StringVar(&c.in, "i", "-", "read from `FILE` (- is standard input)")
	c.fs.StringVar(&c.out, "o", "-", "write to `FILE` (- is standard output)")
	c.fs.BoolVar(&c.keepGoing, "keep-going", false, keepGoing)
	return c
}

// newBareCLI returns a cli with no flags but --help; the command adds the
// ones it has (-i and -o bind to c.in and c.out, which default to the
// standard streams).
func newBareCLI(name, synopsis, example string, stdin io.Reader, stdout, stderr io.Writer) *cli {
	c := &cli{name: name, synopsis: synopsis, example: example, stdin: stdin, stdout: stdout, stderr: stderr, in: "-", out: "-"}
	c.fs = flag.NewFlagSet("agwire "+name, flag.ContinueOnError)
	c.fs.SetOutput(io.Discard) // parse reports errors; --help prints usage
	c.fs.Usage = func() {}
	return c
}

// parse parses the command line. It returns false, with the exit status,
// when the command must not run: --help (status 0) or a usage error
// (status 2).
func (c *cli) parse(args []string) (int, bool) {
	err := c.fs.Parse(args)
	if errors.Is(err, flag.ErrHelp) {
		c.usage(c.stdout)
		return exitOK, false
	}
	if err == nil && c.fs.NArg() > 0 {
		err = fmt.Errorf("unexpected argument %q", c.fs.Arg(0))
		if c.fs.Lookup("i") != nil {
			err = fmt.Errorf("%w (use -i FILE to read a file)", err)
		}
	}
	if err != nil {
		return c.usageErrorf("%s", c.flagError(err)), false
	}
	return exitOK, true
}

// flagMessages match the flag package's error messages, to spell the flag
// as the help does (--name; -i and -o keep one dash).
var flagMessages = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`^flag provided but not defined: -+(.+)$`), "unknown flag %s"},
	{regexp.MustCompile(`^flag needs an argument: -+(.+)$`), "%s needs an argument"},
	{regexp.MustCompile(`^invalid (?:boolean )?value (".*") for (?:flag )?-+([\w-]+): (.*)$`), "invalid value %s for %s: %s"},
}

// flagError rewrites an error of the flag package.
func (c *cli) flagError(err error) string {
	msg := err.Error()
	for _, m := range flagMessages {
		sub := m.re.FindStringSubmatch(msg)
		if sub == nil {
			continue
		}
		args := make([]any, len(sub)-1)
		for i, v := range sub[1:] {
			args[i] = v
		}
		if len(sub) == 2 {
			args[0] = dashed(sub[1])
		} else {
			args[1] = dashed(sub[2])
		}
		return fmt.Sprintf(m.with, args...)
	}
	return msg
}

// dashed spells a flag name as the help does: -i, --max-frame-size.
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// usageErrorf reports a bad command line on stderr, with a pointer to
// --help, and returns exitUsage.
func (c *cli) usageErrorf(format string, args ...any) int {
	fmt.Fprintf(c.stderr, "agwire %s: %s\nRun 'agwire %s --help' for usage.\n", c.name, fmt.Sprintf(format, args...), c.name)
	return exitUsage
}

// usage prints the command's help: synopsis, flags (with the GNU-style
// double dash for long names; either spelling is accepted) and example.
func (c *cli) usage(w io.Writer) {
	operands := ""
	if c.operands != "" {
		operands = " " + c.operands
	}
	fmt.Fprintf(w, "Usage: agwire %s [flags]%s\n\n%s\n\nFlags:\n", c.name, operands, c.synopsis)
	c.fs.VisitAll(func(f *flag.Flag) {
		dash := "--"
		if len(f.Name) == 1 {
			dash = "-"
		}
		arg, text := flag.UnquoteUsage(f)
		line := "  " + dash + f.Name
		if arg != "" {
			line += " " + arg
		}
		if def := f.DefValue; def != "" && def != "false" {
			text += " (default " + def + ")"
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, strings.ReplaceAll(text, "\n", "\n    \t"))
	})
	fmt.Fprintf(w, "\nExample:\n%s", c.example)
}

// failf reports a failure on stderr, prefixed with the command's name,
// clearing the progress line first.
func (c *cli) failf(format string, args ...any) {
	c.prog.clear()
	fmt.Fprintf(c.stderr, "agwire "+c.name+": "+format+"\n", args...)
}

// errSameFile refuses an output that is the input: writing it would
// destroy the input before it is read.
var errSameFile = errors.New("the output is the input file")

// notef reports something worth knowing that is not a failure on stderr,
// prefixed with the command's name.
func (c *cli) notef(format string, args ...any) { c.failf(format, args...) }

// profileFlag is the --profile flag: "1.0", "1.1" or "pre-1.0".
type profileFlag codec.Profile

func (p *profileFlag) String() string { return codec.Profile(*p).String() }

func (p *profileFlag) Set(s string) error {
	switch s {
	case codec.V1.String():
		*p = profileFlag(codec.V1)
	case codec.V11.String():
		*p = profileFlag(codec.V11)
	case codec.PreV1.String():
		*p = profileFlag(codec.PreV1)
	default:
		return fmt.Errorf("unknown profile %q: want %s, %s or %s", s, codec.V1, codec.V11, codec.PreV1)
	}
	return nil
}

// protocol is the version of the JSON events the profile reads: the fields
// 1.1 added are declared only in 1.1's.
func (p profileFlag) protocol() string {
	if codec.Profile(p) == codec.V11 {
		return event.Protocol11
	}
	return event.Protocol10
}

// readCodec is the codec that reads a binary stream of the profile: a 1.0
// reader skips the fields 1.1 added, as protobuf skips unknown fields.
func (p profileFlag) readCodec(c codec.Codec) codec.Codec {
	if codec.Profile(p) == codec.V11 {
		c.Profile = codec.V11
	}
	return c
}

// sizeFlag is a frame size in bytes, 1 to 2^32-1.
type sizeFlag int

func (s *sizeFlag) String() string { return strconv.Itoa(int(*s)) }

func (s *sizeFlag) Set(v string) error {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil || n == 0 || n > math.MaxUint32 {
		return fmt.Errorf("want a number of bytes from 1 to %d", uint64(math.MaxUint32))
	}
	*s = sizeFlag(min(n, uint64(math.MaxInt)))
	return nil
}

// plural returns "1 event", "2 events".
func plural(n int64, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.FormatInt(n, 10) + " " + what + "s"
}
