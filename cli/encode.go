package cli

import (
	"bufio"
	"errors"
	"io"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/internal/pipeline"
)

const encodeSynopsis = `Encode reads AG-UI JSON events, one per line (blank lines are skipped; lines
may be of any length), and writes them as an AG-UI 1.0 binary stream: each
event one protobuf Event message behind a 4-byte big-endian length.

On the first line that cannot be encoded it stops, having written every
earlier event in full, names the line on standard error and exits with
status 1. With --keep-going it reports each bad line, skips it, encodes the
rest and exits with status 1 at the end.`

const encodeExample = `  agwire encode -i events.jsonl -o events.bin
  agwire encode --profile pre-1.0 < events.jsonl | curl --data-binary @- \
      -H 'Content-Type: application/vnd.ag-ui.event+proto' https://example.com/ingest
`

func runEncode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("encode", encodeSynopsis, encodeExample,
		"report each line that cannot be encoded, skip it and go on (exit status 1 at the end)",
		stdin, stdout, stderr)
	profile := profileFlag(codec.V1)
	c.fs.Var(&profile, "profile", "`1.0|1.1|pre-1.0`: the wire of the receiving peer; pre-1.0 peers know\nonly the first 18 event types (RUN_STARTED ... CUSTOM and the chunk\nevents); 1.1 reads and writes the fields AG-UI 1.1 adds\n(encryptedValueType), which 1.0 refuses as undeclared")
	lossy := c.fs.Bool("lossy-numbers", false, "round JSON numbers a double cannot hold exactly (9007199254740993,\n1e400) to the nearest double instead of refusing the event")
	drop := c.fs.Bool("drop-unknown-fields", false, "drop fields an event type does not declare instead of refusing the event")
	maxFrame := sizeFlag(framing.DefaultMaxWriteFrameSize)
	c.fs.Var(&maxFrame, "max-frame-size", "refuse events whose frame payload would be longer than `BYTES` (by default\nwhat the stock TypeScript client reads: 10 MiB with the 4-byte prefix)")
	if code, ok := c.parse(args); !ok {
		return code
	}
	in, out, err := c.open()
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	cd := codec.Codec{Profile: codec.Profile(profile), LossyNumbers: *lossy, DropUnknownFields: *drop}
	rec := &recorder{r: pipelineInput(in)}
	writeMax := 0 // framing's default: the stock client's limit
	if isSet(c.fs, "max-frame-size") {
		writeMax = int(maxFrame)
	}
	status := c.encode(rec, out, framing.WriterOptions{Codec: cd, MaxFrameSize: writeMax}, rec)
	return c.finish(out, status)
}

// encode converts the lines of in, on every core.
func (c *cli) encode(in io.Reader, out *output, wo framing.WriterOptions, rec *recorder) int {
	prog := c.startProgress(out, "event", "written")
	defer prog.clear()
	var bad int64
	st, err := pipeline.EncodeLines(out, in, wo, pipeline.Options{
		OnError: func(err error) bool {
			var le *pipeline.LineError
			if !errors.As(err, &le) {
				return false
			}
			bad++
			c.failf("line %d: %s", le.Line, c.encodeError(le.Err, le.Text, le.Line, rec))
			return c.keepGoing
		},
		Progress: func(st pipeline.Stats) { prog.update(st.Records, st.BytesOut) },
	})
	var ie *pipeline.InputError
	var oe *pipeline.OutputError
	switch {
	case errors.As(err, &oe):
		c.failf("writing output: %v", oe.Err)
		return c.encodeStopped(out, st.Records)
	case errors.As(err, &ie):
		c.failf("reading input after line %d: %v", ie.Line, ie.Err)
		return c.encodeStopped(out, st.Records)
	case err != nil: // a bad line, reported
		return c.encodeStopped(out, st.Records)
	}
	out.complete = true
	if bad > 0 {
		return c.skipped(out, st.Records, bad, "bad line")
	}
	if st.Records == 0 {
		c.notef("the input is empty: no events written")
	}
	return exitOK
}

// encodeError explains why a line was refused.
func (c *cli) encodeError(err error, text []byte, line int64, rec *recorder) string {
	if errors.Is(err, framing.ErrFrameTooLarge) {
		var fe *framing.Error
		if errors.As(err, &fe) {
			err = fe.Err
		}
		return err.Error() + " (--max-frame-size; a reader must raise its limit as much to read it)"
	}
	msg := describe(err, "line")
	if line == 1 {
		if hint := formatHint(rec.first(), "JSON"); hint != "" {
			return msg + "; " + hint
		}
	}
	if partialEvent(text, err) {
		msg += "; " + onePerLine
	}
	return msg
}

// encodeStopped flushes what was written and says how much it was.
func (c *cli) encodeStopped(out *output, written int64) int {
	if err := out.Flush(); err != nil {
		c.failf("writing output: %v", err)
		return exitFail
	}
	c.failf("stopped after writing %s%s", plural(written, "event"), out.discarded())
	return exitFail
}

// readLine returns the next line of r, its newline included, or the last
// bytes before the end of the input with io.EOF. The line is in r's buffer,
// or in *long when it does not fit there; either way it is valid until the
// next call.
func readLine(r *bufio.Reader, long *[]byte) ([]byte, error) {
	b, err := r.ReadSlice('\n')
	if err != bufio.ErrBufferFull {
		return b, err
	}
	*long = append((*long)[:0], b...)
	for err == bufio.ErrBufferFull {
		b, err = r.ReadSlice('\n')
		*long = append(*long, b...)
	}
	return *long, err
}
