package cli

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/internal/pipeline"
	"github.com/agwire/agwire/transport"
)

const convertSynopsis = `Convert reads an AG-UI event stream in one format and writes it in another:

  sse     Server-Sent Events, one "data: <JSON event>" block per event, as
          text/event-stream carries them (read by the WHATWG rules: comments,
          event/id/retry fields, multi-line data and CR/LF/CRLF line ends
          are understood; the event and id fields are ignored)
  jsonl   AG-UI JSON events, one per line (blank lines are skipped)
  binary  the AG-UI 1.0 binary stream: each event one protobuf Event message
          behind a 4-byte big-endian length

Any direction works, and the same format on both sides checks and normalises
a stream. Every event is parsed and written again in its canonical form; line
breaks inside a JSON event (pretty-printed values) become spaces, so that an
SSE data line or a JSON line is never cut in two. Without --from the format is
told from the first bytes: a binary stream starts with a length whose first
byte is 0, SSE with "data:", ":", "event:", "id:" or "retry:", JSON lines with
"{". The output is flushed whenever the input has nothing more buffered, so a
live stream passes through event by event.

On the first bad record it stops, having written every earlier event in
full, names the record on standard error (the line of a JSON line; the SSE
event, numbered from 1, and its lines; the binary frame, numbered from 0, and
the byte offset of its length prefix) and exits with status 1. A bad record
is one that does not parse or decode, or that the output cannot carry (such
as a THINKING_* event, or a number a double cannot hold, written as binary).
With --keep-going it reports each bad record, skips it, converts the rest and
exits with status 1 at the end. A stream that is cut short, or an SSE event or
binary frame above --max-frame-size in the input, always ends the run; an
event whose output (an SSE data line, a binary frame) would be above it is a
bad record, so that "convert --from" of the output with the same limit reads
everything written.`

const convertExample = `  agwire convert --from jsonl --to binary -i events.jsonl -o events.bin
  agwire convert --to sse -i events.bin
  curl -sN -H 'Content-Type: application/json' -d @input.json https://example.com/agent \
      | agwire convert --from sse --to jsonl | jq -c 'select(.type == "RUN_ERROR")'
  agwire convert --from sse --to sse --keep-going -i recorded.sse -o clean.sse
`

// streamFormat is an event stream's format, as --from and --to spell it.
type streamFormat string

const (
	formatSSE    streamFormat = "sse"
	formatJSONL  streamFormat = "jsonl"
	formatBinary streamFormat = "binary"
)

func (f *streamFormat) String() string { return string(*f) }

func (f *streamFormat) Set(s string) error {
	switch streamFormat(s) {
	case formatSSE, formatJSONL, formatBinary:
		*f = streamFormat(s)
		return nil
	}
	return fmt.Errorf("unknown format %q: want sse, jsonl or binary", s)
}

// records is what a bad record is called, by input format: "bad lines".
func (f streamFormat) records() string {
	switch f {
	case formatSSE:
		return "bad event"
	case formatBinary:
		return "bad frame"
	}
	return "bad line"
}

func runConvert(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("convert", convertSynopsis, convertExample,
		"report each bad record, skip it and go on (exit status 1 at the end); a\ntruncated stream still ends the run",
		stdin, stdout, stderr)
	var from, to streamFormat
	c.fs.Var(&from, "from", "`sse|jsonl|binary`: the input's format; told from its first bytes when\nomitted")
	c.fs.Var(&to, "to", "`sse|jsonl|binary`: the output's format (required)")
	profile := profileFlag(codec.V1)
	c.fs.Var(&profile, "profile", "`1.0|1.1|pre-1.0`: with --to binary, the wire of the receiving peer; pre-1.0\npeers know only the first 18 event types (RUN_STARTED ... CUSTOM and the\nchunk events); 1.1, the protocol of the stream both ways: its fields\n(encryptedValueType) are read and written, where 1.0 refuses them in JSON\nand skips them in frames")
	lossy := c.fs.Bool("lossy-numbers", false, "with --to binary, round JSON numbers a double cannot hold exactly\n(9007199254740993, 1e400) to the nearest double instead of refusing the\nevent")
	nonFinite := c.fs.Bool("nonfinite-null", false, "from a binary input, write NaN and infinite numbers, which JSON cannot\nspell, as null instead of refusing the event")
	drop := c.fs.Bool("drop-unknown-fields", false, "from a JSON input (sse, jsonl), drop fields an event type does not\ndeclare instead of refusing the event")
	maxFrame := sizeFlag(framing.DefaultMaxFrameSize)
	c.fs.Var(&maxFrame, "max-frame-size", "refuse binary frames, and SSE lines or events, longer than `BYTES`, on\ninput (the run ends) and on output (the event is a bad record: an SSE data\nline or a frame longer than this is not written)")
	c.fs.BoolVar(&c.strict, "strict", false, "from a binary input, treat a frame from a later protocol version as a\nbad record instead of skipping it with a warning")
	if code, ok := c.parse(args); !ok {
		return code
	}
	if to == "" {
		return c.usageErrorf("--to is required: sse, jsonl or binary")
	}
	if to != formatBinary {
		for _, name := range []string{"profile", "lossy-numbers"} {
			if name == "profile" && codec.Profile(profile) == codec.V11 {
				continue // 1.1 is the stream's protocol, read as written
			}
			if isSet(c.fs, name) {
				return c.usageErrorf("--%s concerns encoding to binary: it needs --to binary", name)
			}
		}
	}
	if from != "" && from != formatBinary && isSet(c.fs, "nonfinite-null") {
		return c.usageErrorf("--nonfinite-null concerns decoding binary: it needs a binary input")
	}
	if from == formatBinary && isSet(c.fs, "drop-unknown-fields") {
		return c.usageErrorf("--drop-unknown-fields concerns JSON input: it needs --from sse or jsonl")
	}

	in, out, err := c.open()
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	rec := &recorder{r: in}
	br := bufio.NewReaderSize(rec, 64<<10)
	if from == "" {
		if from, err = detectFormat(br); err != nil {
			c.failf("%v", err)
			out.close()
			return exitFail
		}
	}
	parser := event.Parser{DropUnknownFields: *drop, Protocol: profile.protocol()}
	// The writer keeps to the stock client's limit (framing's default)
	// unless --max-frame-size says otherwise.
	writeMax := 0
	if isSet(c.fs, "max-frame-size") {
		writeMax = int(maxFrame)
	}
	wopts := framing.WriterOptions{
		Codec:        codec.Codec{Profile: codec.Profile(profile), LossyNumbers: *lossy},
		MaxFrameSize: writeMax,
	}
	if from != formatSSE { // JSON lines and frames split into records: convert them on every core
		rec.r = pipelineInput(rec.r)
		status := c.convertRecords(from, to, br, rec, out, parser, framing.ReaderOptions{
			Codec:        profile.readCodec(codec.Codec{NonFiniteAsNull: *nonFinite}),
			MaxFrameSize: int(maxFrame),
		}, wopts)
		return c.finish(out, status)
	}
	src := newEventSource(from, br, rec, parser,
		profile.readCodec(codec.Codec{NonFiniteAsNull: *nonFinite}), int(maxFrame))
	var dst eventSink
	switch to {
	case formatJSONL:
		dst = &jsonSink{w: out}
	case formatSSE:
		dst = &jsonSink{w: out, sse: true, max: int(maxFrame)}
	case formatBinary:
		dst = &binarySink{w: framing.NewWriter(out, wopts)}
	}
	status := c.convert(src, dst, from, out, br, rec)
	return c.finish(out, status)
}

// isSet reports whether the flag was given on the command line.
func isSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// convert copies the events of src to dst. in is the buffered input, to
// learn when it has nothing more buffered; rec counts the bytes read.
func (c *cli) convert(src eventSource, dst eventSink, from streamFormat, out *output, in *bufio.Reader, rec *recorder) int {
	prog := c.startProgress(out, "event", "read")
	defer prog.clear()
	var written, bad, later int64
	for {
		ev, err := src.next()
		if err == io.EOF {
			break
		}
		if err == nil {
			err = dst.write(ev)
			if err != nil && !errors.Is(err, errRefused) {
				c.failf("writing output: %v", err)
				return exitFail
			}
			if err != nil {
				err = &recordError{at: src.at(), err: errors.Unwrap(err), of: src.of()}
			}
		}
		if err != nil && c.skipLater(err) {
			later++
			continue
		}
		if err != nil {
			c.failf("%v", err)
			var re *recordError
			if !errors.As(err, &re) || re.fatal || !c.keepGoing {
				return c.convertStopped(out, written)
			}
			bad++
			continue
		}
		written++
		prog.update(written, rec.read())
		if in.Buffered() == 0 { // the input may be a live stream: pass the event on
			if err := out.Flush(); err != nil {
				c.failf("writing output: %v", err)
				return exitFail
			}
		}
	}
	out.complete = true
	c.laterSummary(later)
	if bad > 0 {
		if err := out.Flush(); err != nil {
			c.failf("writing output: %v", err)
		}
		c.failf("wrote %s; skipped %s", plural(written, "event"), plural(bad, from.records()))
		return exitFail
	}
	if written == 0 && later == 0 {
		c.notef("the input is empty: no events written")
	}
	return exitOK
}

// convertRecords converts JSON lines or frames as convert does, through
// the parallel pipeline: each worker parses or decodes records and writes
// them with a sink of its own; the errors become the recordErrors the
// sources give, reported in input order.
func (c *cli) convertRecords(from, to streamFormat, br *bufio.Reader, rec *recorder, out *output,
	parser event.Parser, ropts framing.ReaderOptions, wopts framing.WriterOptions) int {
	prog := c.startProgress(out, "event", "read")
	defer prog.clear()
	var bad, later int64
	newSink := func() pipeline.EventFunc {
		var buf bytes.Buffer
		var sink eventSink
		switch to {
		case formatJSONL:
			sink = &jsonSink{w: &buf}
		case formatSSE:
			sink = &jsonSink{w: &buf, sse: true, max: ropts.MaxFrameSize} // --max-frame-size
		case formatBinary:
			sink = &binarySink{w: framing.NewWriter(&buf, wopts)}
		}
		return func(dst []byte, ev event.Event) ([]byte, error) {
			buf.Reset()
			if err := sink.write(ev); err != nil {
				return dst, err
			}
			return append(dst, buf.Bytes()...), nil
		}
	}
	opts := pipeline.Options{
		OnError: func(err error) bool {
			re := recordErrorOf(err, rec)
			if c.skipLater(re) {
				later++
				return true
			}
			c.failf("%v", re)
			if re.fatal || !c.keepGoing {
				return false
			}
			bad++
			return true
		},
		Progress: func(st pipeline.Stats) { prog.update(st.Records, rec.read()) },
	}
	var st pipeline.Stats
	var err error
	if from == formatJSONL {
		st, err = pipeline.ConvertLines(out, br, func() pipeline.LineFunc {
			write := newSink()
			return func(dst, line []byte, num int64) ([]byte, error) {
				if num == 1 {
					line = bytes.TrimPrefix(line, utf8BOM)
				}
				if line = bytes.TrimSpace(line); len(line) == 0 {
					return dst, pipeline.Skip
				}
				ev, err := parseEvent(parser, line)
				if err != nil {
					return dst, &lineFailure{text: line, err: err}
				}
				return write(dst, ev)
			}
		}, opts)
	} else {
		st, err = pipeline.ConvertFrames(out, br, ropts, newSink, opts)
	}
	var oe *pipeline.OutputError
	switch {
	case errors.As(err, &oe):
		c.failf("writing output: %v", oe.Err)
		return exitFail
	case err != nil: // reported
		return c.convertStopped(out, st.Records)
	}
	out.complete = true
	c.laterSummary(later)
	if bad > 0 {
		return c.skipped(out, st.Records, bad, from.records())
	}
	if st.Records == 0 && later == 0 {
		c.notef("the input is empty: no events written")
	}
	return exitOK
}

// lineFailure is a JSON line that does not parse, with the text parsed.
type lineFailure struct {
	text []byte
	err  error
}

func (e *lineFailure) Error() string { return e.err.Error() }
func (e *lineFailure) Unwrap() error { return e.err }

// recordErrorOf is the recordError the sources of convert give for an
// error of the pipeline.
func recordErrorOf(err error, rec *recorder) *recordError {
	var le *pipeline.LineError
	var fe *pipeline.FrameError
	var ie *pipeline.InputError
	var bad *framing.Error
	switch {
	case errors.As(err, &le):
		at := fmt.Sprintf("line %d", le.Line)
		var lf *lineFailure
		if !errors.As(le.Err, &lf) { // the sink refused the event
			return &recordError{at: at, err: errors.Unwrap(le.Err), of: "line"}
		}
		re := &recordError{at: at, err: lf.err, of: "line"}
		if le.Line == 1 {
			re.hint = formatHint(rec.first(), "JSON")
		}
		if re.hint == "" && partialEvent(lf.text, lf.err) {
			re.hint = onePerLine
		}
		return re
	case errors.As(err, &fe):
		return &recordError{at: frameAt(fe.Frame, fe.Offset), err: errors.Unwrap(fe.Err), of: "frame payload"}
	case errors.As(err, &ie):
		return &recordError{at: fmt.Sprintf("reading input after line %d", ie.Line), err: ie.Err, fatal: true}
	case errors.As(err, &bad):
		skip := framing.Skippable(err)
		return &recordError{at: frameAt(bad.Frame, bad.Offset), err: bad.Err, of: "frame payload", fatal: !skip,
			hint: streamHint(err, rec), later: skip && errors.Is(err, codec.ErrUnknownEvent)}
	}
	return &recordError{at: "input", err: err, fatal: true}
}

// convertStopped flushes what was written and says how much it was.
func (c *cli) convertStopped(out *output, written int64) int {
	if err := out.Flush(); err != nil {
		c.failf("writing output: %v", err)
		return exitFail
	}
	c.failf("stopped after writing %s%s", plural(written, "event"), out.discarded())
	return exitFail
}

// recordError is a failure located in the input: a bad record (skippable
// with --keep-going), or with fatal set one that ends the stream.
type recordError struct {
	at    string // "line 6", "event 3 (lines 7-9)", "frame 2 (stream byte 120)"
	err   error
	of    string // what an offset in err counts in: "line", "frame payload"
	fatal bool
	hint  string // what the input looks like, when it is not what was read
	later bool   // a binary frame from a later protocol version
}

func (e *recordError) Error() string {
	s := e.at + ": " + describe(e.err, e.of)
	if e.hint != "" { // what the input looks like first, then the reader's error
		s = e.hint + " (" + s + ")"
	}
	return s
}
func (e *recordError) Unwrap() error { return e.err }

// eventSource reads the events of an input stream.
type eventSource interface {
	// next returns the next event, io.EOF at the clean end of the stream,
	// or a *recordError.
	next() (event.Event, error)
	// at locates the record last returned, for an error about it.
	at() string
	// of names the record, for a byte offset inside it: "line".
	of() string
}

// eventSink writes events in an output format.
type eventSink interface {
	// write writes ev. An event the format cannot carry is refused, with
	// nothing written, with an error that wraps errRefused (errors.Unwrap
	// gives the reason); any other error is the output's.
	write(ev event.Event) error
}

// errRefused marks a sink's refusal of one event.
var errRefused = errors.New("refused")

type sinkRefusal struct{ err error }

func (r *sinkRefusal) Error() string        { return r.err.Error() }
func (r *sinkRefusal) Unwrap() error        { return r.err }
func (r *sinkRefusal) Is(target error) bool { return target == errRefused }

// parseEvent parses one JSON event, naming its type in the error when it is
// known.
func parseEvent(p event.Parser, data []byte) (event.Event, error) {
	ev, err := p.Parse(data)
	if err != nil {
		if t, terr := event.TypeOf(data); terr == nil && t != "" {
			return nil, &typedError{typ: t, err: err}
		}
		return nil, err
	}
	return ev, nil
}

// typedError is a parse error of an event whose type is known.
type typedError struct {
	typ event.Type
	err error
}

func (e *typedError) Error() string { return string(e.typ) + ": " + e.err.Error() }
func (e *typedError) Unwrap() error { return e.err }

// newEventSource returns the source of the events of br, in the format
// from. br reads through rec, which keeps the input's first bytes for the
// hints about an input that is not what was expected.
func newEventSource(from streamFormat, br *bufio.Reader, rec *recorder, parser event.Parser, cd codec.Codec, maxFrame int) eventSource {
	switch from {
	case formatSSE:
		lr := &lineReader{br: br}
		return &sseSource{lines: lr, r: transport.NewSSEReader(lr, maxFrame), parser: parser}
	case formatBinary:
		return &binarySource{r: framing.NewReader(br, framing.ReaderOptions{Codec: cd, MaxFrameSize: maxFrame}), rec: rec}
	}
	return &jsonlSource{br: br, parser: parser, rec: rec}
}

// jsonlSource reads JSON events, one per line.
type jsonlSource struct {
	br     *bufio.Reader
	rec    *recorder // the first bytes of the input
	parser event.Parser
	long   []byte // a line longer than br's buffer
	line   int64
	eof    bool
}

func (s *jsonlSource) next() (event.Event, error) {
	for !s.eof {
		text, err := readLine(s.br, &s.long)
		if len(text) > 0 || err == nil {
			s.line++
		}
		switch {
		case err == io.EOF:
			s.eof = true
		case err != nil:
			return nil, &recordError{at: fmt.Sprintf("reading input after line %d", s.line), err: err, fatal: true}
		}
		if s.line == 1 {
			text = bytes.TrimPrefix(text, utf8BOM)
		}
		if text = bytes.TrimSpace(text); len(text) > 0 {
			ev, err := parseEvent(s.parser, text)
			if err != nil {
				re := &recordError{at: s.at(), err: err, of: s.of()}
				if s.line == 1 {
					re.hint = formatHint(s.rec.first(), "JSON")
				}
				if re.hint == "" && partialEvent(text, err) {
					re.hint = onePerLine
				}
				return nil, re
			}
			return ev, nil
		}
	}
	return nil, io.EOF
}

func (s *jsonlSource) at() string { return fmt.Sprintf("line %d", s.line) }
func (s *jsonlSource) of() string { return "line" }

// sseSource reads the events of a text/event-stream.
type sseSource struct {
	lines  *lineReader
	r      *transport.SSEReader
	parser event.Parser
	n      int64 // events dispatched

	first, last int64 // the lines of the event last dispatched
}

func (s *sseSource) next() (event.Event, error) {
	ev, err := s.r.Next()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		return nil, &recordError{at: fmt.Sprintf("line %d", s.lines.current()), err: err, fatal: true}
	}
	s.n++
	s.first, s.last = s.lines.eventFirst, s.lines.eventLast
	e, err := parseEvent(s.parser, []byte(ev.Data))
	if err != nil {
		return nil, &recordError{at: s.at(), err: err, of: s.of()}
	}
	return e, nil
}

func (s *sseSource) of() string { return "event's data" }

func (s *sseSource) at() string {
	switch {
	case s.first == 0 || s.last < s.first: // cannot happen: a dispatch needs a data line
		return fmt.Sprintf("event %d", s.n)
	case s.first == s.last:
		return fmt.Sprintf("event %d (line %d)", s.n, s.first)
	}
	return fmt.Sprintf("event %d (lines %d-%d)", s.n, s.first, s.last)
}

// lineReader hands its input to an SSEReader at most one line at a time,
// so that when the SSEReader dispatches an event (on a blank line) the
// input read so far ends with that blank line, and it counts lines as the
// SSE rules do (CR, LF or CRLF ends one) to name the lines of each event.
// It drops a UTF-8 byte order mark at the start, which the SSEReader would
// skip anyway.
type lineReader struct {
	br      *bufio.Reader
	started bool
	lines   int64 // lines ended so far
	partial bool  // bytes of a line not yet ended were handed on
	afterCR bool  // the last line ended in CR: an LF next belongs to it
	blockAt int64 // the first non-blank line since the last blank one, or 0

	// The lines of the block a blank line last ended: an event's, when the
	// SSEReader dispatched on that blank line.
	eventFirst, eventLast int64
}

func (l *lineReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if !l.started {
		l.started = true
		if hasBOM(l.br) {
			l.br.Discard(len(utf8BOM))
		}
	}
	if _, err := l.br.Peek(1); err != nil {
		return 0, err
	}
	buf, _ := l.br.Peek(l.br.Buffered())
	if l.afterCR {
		l.afterCR = false
		if buf[0] == '\n' { // the CRLF's LF: the line has ended already
			p[0] = '\n'
			l.br.Discard(1)
			return 1, nil
		}
	}
	n := len(buf)
	if i := bytes.IndexAny(buf, "\r\n"); i >= 0 {
		n = i + 1
	}
	n = copy(p, buf[:n])
	l.br.Discard(n)
	if last := p[n-1]; last == '\r' || last == '\n' {
		l.partial = l.partial || n > 1
		l.endLine(last == '\r')
	} else {
		l.partial = true
	}
	return n, nil
}

// endLine counts the end of a line.
func (l *lineReader) endLine(cr bool) {
	l.lines++
	l.afterCR = cr
	if l.partial {
		if l.blockAt == 0 {
			l.blockAt = l.lines
		}
	} else {
		l.eventFirst, l.eventLast = l.blockAt, l.lines-1
		l.blockAt = 0
	}
	l.partial = false
}

// current is the line being read: the next one, if some of it has been
// read, or else the last one ended.
func (l *lineReader) current() int64 {
	if l.partial || l.lines == 0 {
		return l.lines + 1
	}
	return l.lines
}

// binarySource reads the frames of a binary stream.
type binarySource struct {
	r      *framing.Reader
	rec    *recorder
	frames int64 // frames read
}

func (s *binarySource) next() (event.Event, error) {
	ev, err := s.r.ReadEvent()
	if err == io.EOF {
		return nil, io.EOF
	}
	if err != nil {
		var fe *framing.Error
		if !errors.As(err, &fe) {
			return nil, &recordError{at: fmt.Sprintf("frame %d", s.frames), err: err, fatal: true}
		}
		skip := framing.Skippable(err)
		if skip {
			s.frames++
		}
		return nil, &recordError{at: frameAt(fe.Frame, fe.Offset), err: fe.Err, of: s.of(), fatal: !skip,
			hint: streamHint(err, s.rec), later: skip && errors.Is(err, codec.ErrUnknownEvent)}
	}
	s.frames++
	return ev, nil
}

func (s *binarySource) at() string { return frameAt(s.frames-1, s.r.Offset()) }
func (s *binarySource) of() string { return "frame payload" }

// jsonSink writes JSON events, one per line, or as SSE blocks.
type jsonSink struct {
	w   io.Writer
	sse bool
	// max, when positive, refuses an SSE event whose data line would be
	// longer than max bytes: what an SSE reader with that limit refuses
	// (transport.NewSSEReader counts the line, "data: " included).
	max int
	buf []byte
}

func (s *jsonSink) write(ev event.Event) error {
	b := s.buf[:0]
	if s.sse {
		b = append(b, "data: "...)
	}
	b, err := event.AppendJSON(b, ev)
	if err != nil {
		return &sinkRefusal{err}
	}
	if s.sse {
		if s.max > 0 && len(b) > s.max {
			return &sinkRefusal{fmt.Errorf("%w: its SSE data line would be %d bytes, above --max-frame-size %d, so an SSE reader with that limit would refuse it",
				transport.ErrEventTooLarge, len(b), s.max)}
		}
		b = append(b, '\n', '\n')
	} else {
		b = append(b, '\n')
	}
	s.buf = b
	_, err = s.w.Write(b)
	return err
}

// binarySink writes events as frames.
type binarySink struct{ w *framing.Writer }

func (s *binarySink) write(ev event.Event) error {
	err := s.w.WriteEvent(ev)
	if err != nil && framing.Skippable(err) { // the codec refused it
		return &sinkRefusal{err}
	}
	return err
}

// detectFormat tells the format of the stream in br from its first bytes,
// reading no more of it than it must (the input may be a live stream). An
// empty input, or one of white space only, counts as JSON lines: it holds
// no event in any format.
func detectFormat(br *bufio.Reader) (streamFormat, error) {
	b, _ := br.Peek(1)
	if len(b) == 0 {
		return formatJSONL, nil
	}
	if b[0] == gzipMagic[0] || b[0] == zstdMagic[0] {
		// Both magic numbers are complete in the first few bytes of any
		// compressed stream, so peeking them cannot wait on a live input
		// for longer than its first write.
		start, _ := br.Peek(len(zstdMagic))
		if kind := looksLike(start); kind == "gzip" || kind == "zstd" {
			return "", errors.New(formatHint(start, ""))
		}
	}
	// A frame's length prefix is big-endian: below 16 MiB (the default
	// frame limit) its first byte is 0, and up to 2^29 it is a control
	// character that cannot start the text formats.
	if c := b[0]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' {
		return formatBinary, nil
	}
	i := 0
	if hasBOM(br) {
		i = len(utf8BOM)
	}
	// peek returns the input's byte at i, reading up to it.
	peek := func(i int) (byte, bool) {
		b, _ := br.Peek(i + 1)
		if len(b) <= i {
			return 0, false
		}
		return b[i], true
	}
	for {
		c, ok := peek(i)
		if !ok {
			return formatJSONL, nil // white space only
		}
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			break
		}
		i++
	}
	if c, _ := peek(i); c == '{' {
		return formatJSONL, nil
	}
	for _, field := range []string{":", "data:", "event:", "id:", "retry:"} {
		match := true
		for j := range len(field) {
			if c, ok := peek(i + j); !ok || c != field[j] {
				match = false
				break
			}
		}
		if match {
			return formatSSE, nil
		}
	}
	start, _ := br.Peek(min(i+16, br.Buffered()))
	return "", fmt.Errorf("cannot tell the input's format from its first bytes %q: give --from sse, jsonl or binary", start[min(i, len(start)):])
}

// utf8BOM is the UTF-8 byte order mark, which may start a text stream.
var utf8BOM = []byte("\xEF\xBB\xBF")

// hasBOM reports whether br starts with a byte order mark, reading beyond
// the first byte only if it is the mark's.
func hasBOM(br *bufio.Reader) bool {
	if b, _ := br.Peek(1); len(b) == 0 || b[0] != utf8BOM[0] {
		return false
	}
	b, _ := br.Peek(len(utf8BOM))
	return bytes.Equal(b, utf8BOM)
}
