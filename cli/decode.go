package cli

import (
	"errors"
	"io"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/internal/pipeline"
)

const decodeSynopsis = `Decode reads an AG-UI 1.0 binary stream (4-byte big-endian length, then one
protobuf Event message, per frame) and writes each event as one line of
AG-UI JSON.

On the first frame that cannot be decoded it stops, having written every
earlier event in full, names the frame (numbered from 0) and its byte offset
on standard error and exits with status 1. With --keep-going it reports each
frame that does not decode (malformed, or an event from a later protocol
version), skips it, decodes the rest and exits with status 1 at the end. A
stream that is cut short, or declares a frame above --max-frame-size, always
ends the run.`

const decodeExample = `  agwire decode -i events.bin
  curl -s -H 'Accept: application/vnd.ag-ui.event+proto' https://example.com/agent \
      | agwire decode --keep-going | jq -c 'select(.type == "TEXT_MESSAGE_CONTENT")'
`

func runDecode(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("decode", decodeSynopsis, decodeExample,
		"report each frame that does not decode, skip it and go on (exit status 1\nat the end); a truncated stream still ends the run",
		stdin, stdout, stderr)
	profile := profileFlag(codec.V1)
	c.fs.Var(&profile, "profile", "`1.0|1.1`: the wire of the stream; a 1.0 reader skips the fields 1.1\nadded (encryptedValueType), as protobuf skips a field it does not know")
	nonFinite := c.fs.Bool("nonfinite-null", false, "write NaN and infinite numbers, which JSON cannot spell, as null instead\nof refusing the event")
	maxFrame := sizeFlag(framing.DefaultMaxFrameSize)
	c.fs.Var(&maxFrame, "max-frame-size", "refuse frames longer than `BYTES`")
	c.fs.BoolVar(&c.strict, "strict", false, "treat a frame from a later protocol version as a bad frame instead of\nskipping it with a warning")
	if code, ok := c.parse(args); !ok {
		return code
	}
	in, out, err := c.open()
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	rec := &recorder{r: pipelineInput(in)}
	status := c.decode(rec, out, framing.ReaderOptions{
		Codec:        profile.readCodec(codec.Codec{NonFiniteAsNull: *nonFinite}),
		MaxFrameSize: int(maxFrame),
	}, rec)
	return c.finish(out, status)
}

// decode writes the events of the frames of in as JSON lines, on every
// core.
func (c *cli) decode(in io.Reader, out *output, ro framing.ReaderOptions, rec *recorder) int {
	var bad, later int64
	prog := c.startProgress(out, "event", "read")
	defer prog.clear()
	st, err := pipeline.DecodeFrames(out, in, ro, pipeline.Options{
		OnError: func(err error) bool {
			if c.skipLater(err) {
				later++
				return true
			}
			// What the input looks like comes first: a frame error on JSON
			// or SSE input is noise once the user knows that.
			if hint := streamHint(err, rec); hint != "" {
				c.failf("%s", hint)
			}
			c.failf("%s", describeFrameError(err))
			if !framing.Skippable(err) || !c.keepGoing {
				return false
			}
			bad++
			return true
		},
		Progress: func(st pipeline.Stats) { prog.update(st.Records, st.Offset) },
	})
	var oe *pipeline.OutputError
	switch {
	case errors.As(err, &oe):
		c.failf("writing output: %v", oe.Err)
		return exitFail
	case err != nil: // reported
		return c.decodeStopped(out, st.Records)
	}
	out.complete = true
	c.laterSummary(later)
	if bad > 0 {
		return c.skipped(out, st.Records, bad, "bad frame")
	}
	if rec.read() == 0 {
		c.notef("the input is empty: no events written")
	}
	return exitOK
}

// skipLater reports whether err is a frame from a later protocol version
// to skip, and warns about it; --strict skips nothing.
func (c *cli) skipLater(err error) bool {
	at := "a frame"
	var re *recordError
	var fe *framing.Error
	switch {
	case c.strict:
		return false
	case errors.As(err, &re):
		if !re.later {
			return false
		}
		at = re.at
	case errors.Is(err, codec.ErrUnknownEvent) && framing.Skippable(err) && errors.As(err, &fe):
		at = frameAt(fe.Frame, fe.Offset)
	default:
		return false
	}
	c.failf("warning: %s: skipped %s: a frame from a later protocol version (--strict makes this an error)", at, unknownType)
	return true
}

// unknownTypes counts events of a type this version does not know: "1
// event of a type this version does not know".
func unknownTypes(n int64) string {
	return plural(n, "event") + unknownTypeOf
}

// laterSummary counts the frames skipWarn skipped, if any.
func (c *cli) laterSummary(n int64) {
	if n > 0 {
		c.failf("warning: skipped %s", unknownTypes(n))
	}
}

// streamHint explains a stream-level error on the first frame by what the
// input looks like, when it is not a binary stream.
func streamHint(err error, rec *recorder) string {
	var fe *framing.Error
	if !errors.As(err, &fe) || fe.Frame != 0 || framing.Skippable(err) {
		return ""
	}
	return formatHint(rec.first(), "binary")
}

// decodeStopped flushes what was written and says how much it was.
func (c *cli) decodeStopped(out *output, written int64) int {
	if err := out.Flush(); err != nil {
		c.failf("writing output: %v", err)
		return exitFail
	}
	c.failf("stopped after writing %s%s", plural(written, "event"), out.discarded())
	return exitFail
}

// skipped ends a conversion that skipped bad records: what was written is
// flushed, and the counts are said; the status is a failure.
func (c *cli) skipped(out *output, written, bad int64, what string) int {
	if err := out.Flush(); err != nil {
		c.failf("writing output: %v", err)
	}
	c.failf("wrote %s; skipped %s", plural(written, "event"), plural(bad, what))
	return exitFail
}
