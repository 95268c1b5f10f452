package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
)

// The output of every command that has -o goes through one helper, output:
//
//   - c.open opens the input and the output; a regular output file is
//     written as a temporary file beside it;
//   - the command sets out.complete when what it wrote is the whole of its
//     result (skipping bad records with --keep-going is complete too);
//   - c.finish (or out.close) flushes and closes the output: the temporary
//     file is renamed to its name only if the output is complete and was
//     written without error, and is removed otherwise;
//   - SIGINT or SIGTERM while a temporary file is open removes it before
//     the signal ends the process;
//   - whatever the command wrote before the input next has to wait is
//     flushed first (see idleFlusher), so that a live input's events show
//     as they come and an interrupted run has passed on what it had done.

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

// errInterrupted is the error of an output whose temporary file a signal
// removed.
var errInterrupted = errors.New("interrupted: the temporary output file was removed")

// open opens the input and the output (in that order, so a missing input
// leaves an existing output file alone). The output is buffered; finish
// flushes and closes it. Reading the input flushes the output first
// whenever the input's reader has to ask for more bytes.
//
// An output file (-o) that is the input (-i, or standard input redirected
// from it), through a symbolic or a hard link too, is refused with
// errSameFile. A regular output file is written as a temporary file in its
// directory and renamed over it by close only if the command marked the
// output complete: a run that fails or is interrupted leaves an existing
// file as it was and no partial file behind. Other outputs (a device such
// as /dev/null, a pipe) are written in place.
func (c *cli) open() (io.Reader, *output, error) {
	var in io.Reader = c.stdin
	var inFile *os.File
	if c.in != "-" && c.in != "" {
		f, err := openInputFile(c.in)
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
	return &idleFlusher{r: in, out: o.Writer}, o, nil
}

// errDirectory refuses an input (-i) that is a directory.
var errDirectory = errors.New("is a directory, not a file")

// openInputFile opens the input file name, refusing a directory with
// errDirectory.
func openInputFile(name string) (*os.File, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, fmt.Errorf("-i %s %w", name, errDirectory)
	}
	return f, nil
}

// readInputFile reads the whole input file name, refusing a directory with
// errDirectory.
func readInputFile(name string) ([]byte, error) {
	f, err := openInputFile(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// idleFlusher flushes the output before each read of the input. A command
// reads its input through a bufio.Reader, which reads from here only when
// it has nothing more buffered: the events written so far then go out
// before the command waits for more input, instead of staying buffered
// until the input ends. On an input that is always ready (a file) that is
// one flush per 64 KiB read.
type idleFlusher struct {
	r   io.Reader
	out *bufio.Writer
}

func (f *idleFlusher) Read(p []byte) (int, error) {
	if f.out.Buffered() > 0 {
		f.out.Flush() // an error stays in the writer: its next write returns it
	}
	return f.r.Read(p)
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
	temps.Lock()
	defer temps.Unlock()
	temps.catch() // before the file exists: a signal must not find it uncaught
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".agwire-*")
	if err != nil {
		temps.release()
		// The temporary file is ours, not the user's: name the path they
		// gave, and what is wrong with its directory.
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("-o %s: the directory %s does not exist", name, filepath.Dir(name))
		}
		return fmt.Errorf("-o %s: cannot create a file in %s: %w", name, filepath.Dir(name), err)
	}
	temps.track(f.Name())
	mode := fs.FileMode(0o644)
	if fi != nil {
		mode = fi.Mode().Perm()
	}
	if err := f.Chmod(mode); err != nil {
		f.Close()
		os.Remove(f.Name())
		temps.untrack(f.Name())
		return err
	}
	o.w, o.outFile, o.tmp, o.final = f, f, f.Name(), target
	return nil
}

// discarded is what a message about a stopped run adds when the output
// file will not be written: " (FILE not written)".
func (o *output) discarded() string {
	if o.tmp == "" {
		return ""
	}
	return " (" + o.final + " not written)"
}

// close flushes the output and closes the files, returning the first error
// concerning the output. A temporary output file is renamed to its final
// name if the output is complete and was written without error, and
// removed otherwise. Closing again does nothing.
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
		temps.Lock()
		removed := temps.untrack(o.tmp)
		if removed && err == nil {
			err = errInterrupted
		}
		if err == nil && o.complete {
			err = os.Rename(o.tmp, o.final)
		}
		if err != nil || !o.complete {
			os.Remove(o.tmp)
		}
		temps.Unlock()
		o.tmp = ""
	}
	return err
}

// finish ends a command that ends with status: it closes out (see close)
// and reports an error writing it, which makes the status exitFail. It
// returns the command's exit status.
func (c *cli) finish(out *output, status int) int {
	if err := out.close(); err != nil {
		if status != exitFail {
			c.failf("writing output: %v", err)
		}
		return exitFail
	}
	return status
}

// temps are the temporary output files open in this process, removed by
// SIGINT or SIGTERM (those of them the process does not ignore: a signal
// ignored from the start, as SIGINT is for a background job, stays
// ignored). While there is one, the signals are caught; the
// handler removes the files, stops catching and sends the signal again, so
// that it ends the process as it would have (or reaches whoever else
// catches it).
var temps tempFiles

type tempFiles struct {
	sync.Mutex
	open    map[string]bool // name -> removed by a signal
	signals chan os.Signal
}

// track adds name, after catch; the caller holds the lock.
func (t *tempFiles) track(name string) {
	if t.open == nil {
		t.open = make(map[string]bool)
	}
	t.open[name] = false
}

// catch starts catching the signals, if not yet; the caller holds the lock.
func (t *tempFiles) catch() {
	if t.signals == nil {
		var sigs []os.Signal
		for _, sig := range []os.Signal{os.Interrupt, syscall.SIGTERM} {
			if !signal.Ignored(sig) { // a background job ignores SIGINT: leave it so
				sigs = append(sigs, sig)
			}
		}
		if len(sigs) == 0 {
			return
		}
		t.signals = make(chan os.Signal, 1)
		signal.Notify(t.signals, sigs...)
		go t.watch(t.signals)
	}
}

// untrack drops name and reports whether a signal removed it; the caller
// holds the lock.
func (t *tempFiles) untrack(name string) (removed bool) {
	removed = t.open[name]
	delete(t.open, name)
	t.release()
	return removed
}

// release stops catching the signals when no file is open; the caller holds
// the lock.
func (t *tempFiles) release() {
	if len(t.open) == 0 && t.signals != nil {
		signal.Stop(t.signals)
		close(t.signals)
		t.signals = nil
	}
}

// watch removes the open files when a signal comes on ch.
func (t *tempFiles) watch(ch chan os.Signal) {
	for sig := range ch {
		t.Lock()
		for name, removed := range t.open {
			if !removed {
				os.Remove(name)
				t.open[name] = true
			}
		}
		if t.signals == ch {
			signal.Stop(ch)
			t.signals = nil
		}
		t.Unlock()
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Signal(sig)
		}
		return
	}
}
