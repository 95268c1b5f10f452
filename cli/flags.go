package cli

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"

	"github.com/agwire/agwire/codec"
)

// cli is what every subcommand shares: its flag set, the standard streams,
// the -i/-o files and --keep-going.
type cli struct {
	name     string // subcommand name, as in "agwire encode"
	synopsis string // what the command does, for --help
	example  string // an example, for --help
	fs       *flag.FlagSet

	stdin          io.Reader
	stdout, stderr io.Writer

	in, out   string
	keepGoing bool
	strict    bool // --strict: a frame from a later protocol version is an error

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
	fmt.Fprintf(w, "Usage: agwire %s [flags]\n\n%s\n\nFlags:\n", c.name, c.synopsis)
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

// discarded is what a message about a stopped run adds when the output
// file will not be written: " (-o FILE left unchanged)".
func (o *output) discarded() string {
	if o.tmp == "" {
		return ""
	}
	return " (" + o.final + " not written)"
}

// open opens the input and the output (in that order, so a missing input
// leaves an existing output file alone). The output is buffered; finish
// flushes and closes it.
//
// An output file (-o) that is the input (-i, or standard input redirected
// from it), through a symbolic or a hard link too, is refused with
// errSameFile. A regular output file is written as a temporary file in its
// directory and renamed over it by close only if the command marked the
// output complete: a run that fails leaves an existing file as it was and
// no partial file behind. Other outputs (a device such as /dev/null, a
// pipe) are written in place.
func (c *cli) open() (io.Reader, *output, error) {
	var in io.Reader = c.stdin
	var inFile *os.File
	if c.in != "-" && c.in != "" {
		f, err := os.Open(c.in)
		if err != nil {
			return nil, nil, err
		}
		in, inFile = f, f
	}
	o := &output{inFile: inFile, w: c.stdout}
	if c.out != "-" && c.out != "" {
		if err := o.create(c.out, in); err != nil {
			o.close()
			return nil, nil, err
		}
	}
	o.Writer = bufio.NewWriterSize(o.w, 64<<10)
	return in, o, nil
}

// create opens the output file name for writing: a temporary file beside
// it when it is (or will be) a regular file, the file itself otherwise.
func (o *output) create(name string, in io.Reader) error {
	target := name
	if resolved, err := filepath.EvalSymlinks(name); err == nil {
		target = resolved // rename over the link's target, not the link
	}
	fi, err := os.Stat(target)
	switch {
	case err == nil:
		if f, ok := in.(*os.File); ok {
			if ifi, err := f.Stat(); err == nil && os.SameFile(fi, ifi) {
				return fmt.Errorf("%w: -o %s names the file being read; write to another file and rename it", errSameFile, name)
			}
		}
		if !fi.Mode().IsRegular() {
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			o.w, o.outFile = f, f
			return nil
		}
	case !errors.Is(err, fs.ErrNotExist):
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".agwire-*")
	if err != nil {
		return err
	}
	mode := fs.FileMode(0o644)
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		return err
	}
	o.w, o.outFile, o.tmp, o.final = f, f, f.Name(), target
	return nil
}

// output is the buffered output of a command and the files to close.
type output struct {
	*bufio.Writer
	w               io.Writer
	inFile, outFile *os.File
	tmp, final      string // the temporary file and the name it gets, when renamed
	// complete is set by the command when it has read its input to the end
	// (skipping bad records with --keep-going is complete too): close keeps
	// the output only then.
	complete bool
}

// close flushes the output and closes the files, returning the first error
// concerning the output. A temporary output file is renamed to its final
// name if the output is complete and was written without error, and
// removed otherwise.
func (o *output) close() error {
	var err error
	if o.Writer != nil {
		err = o.Flush()
	}
	if o.outFile != nil {
		if cerr := o.outFile.Close(); err == nil {
			err = cerr
		}
		o.outFile = nil
	}
	if o.inFile != nil {
		o.inFile.Close()
		o.inFile = nil
	}
	if o.tmp != "" {
		if err == nil && o.complete {
			err = os.Rename(o.tmp, o.final)
		}
		if err != nil || !o.complete {
			os.Remove(o.tmp)
		}
		o.tmp = ""
	}
	return err
}

// profileFlag is the --profile flag: "1.0" or "pre-1.0".
type profileFlag codec.Profile

func (p *profileFlag) String() string { return codec.Profile(*p).String() }

func (p *profileFlag) Set(s string) error {
	switch s {
	case codec.V1.String():
		*p = profileFlag(codec.V1)
	case codec.PreV1.String():
		*p = profileFlag(codec.PreV1)
	default:
		return fmt.Errorf("unknown profile %q: want %s or %s", s, codec.V1, codec.PreV1)
	}
	return nil
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
