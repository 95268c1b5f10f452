package cli

import (
	"bufio"
	"errors"
	"io"
	"strconv"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

const assembleSynopsis = `Assemble reads an AG-UI event stream (SSE, JSON lines or binary, told from its
first bytes unless --from says) and prints the conversation it describes, as
one JSON object: {"messages":[…],"state":…}. The messages and the state are
the ones @ag-ui/client 1.0.0 builds from the same events: text, reasoning,
tool calls in their assistant messages, tool results, activity messages,
MESSAGES_SNAPSHOT merges, chunk events expanded, metadata merged key by key
(last write wins), state from STATE_SNAPSHOT and STATE_DELTA (JSON Patch).

The stream is checked as the client's verifier checks it (content for a
message never started, RUN_FINISHED while a message or step is open, events
after RUN_FINISHED, ...); --no-check applies such events as the client would
without its verifier. The first bad event (one that does not parse or breaks
the sequence) is named on standard error with its record (line, SSE event or
frame) and its index, and the command exits with status 1 without printing a
conversation. With --keep-going each bad event is reported and skipped, the
conversation of the rest is printed, and the exit status is 1. An event that
cannot be applied (a JSON Patch whose path does not exist, a budget it would
exceed) is what the client only warns about: it is named in a warning on
standard error, nothing of it is applied, and the command goes on and exits
with status 0. Events of a type this version does not know (a JSON type it
cannot name, a frame from a later protocol version) are skipped and counted on
standard error. THINKING_* events, which AG-UI 1.0 replaced, are skipped too.

--strict asks more than the client does: an event of a type this version does
not know and an event that cannot be applied are bad events, and so is what
the draft specification makes fatal and no released version does yet: a
RUN_FINISHED naming another run or thread than the run it closes, a second
run on another thread, two interrupts of one id in an outcome, and a stream
that ends while its run is running ("ended without a terminal event").`

const assembleExample = `  agwire assemble -i run.jsonl | jq '.messages[-1].content'
  curl -sN -H 'Accept: application/vnd.ag-ui.event+proto' -H 'Content-Type: application/json' \
      -d @input.json https://example.com/agent | agwire assemble
  agwire assemble --no-check --keep-going -i recorded.sse -o conversation.json
`

// streamFlags are the input flags assemble and compact share.
type streamFlags struct {
	from     streamFormat
	noCheck  *bool
	maxFrame sizeFlag
	profile  profileFlag
}

func addStreamFlags(c *cli) *streamFlags {
	f := &streamFlags{maxFrame: sizeFlag(framing.DefaultMaxFrameSize)}
	c.fs.Var(&f.from, "from", "`sse|jsonl|binary`: the input's format; told from its first bytes when\nomitted")
	f.noCheck = c.fs.Bool("no-check", false, "do not check the event sequence (the client's verifier rules)")
	c.fs.Var(&f.maxFrame, "max-frame-size", "refuse binary frames, and SSE lines or events, longer than `BYTES`")
	c.fs.Var(&f.profile, "profile", "`1.0|1.1`: the protocol the stream is read as; a 1.0 reader removes the\nfields 1.1 added (encryptedValueType) with a warning from JSON and skips\nthem in frames")
	return f
}

// openSource tells the input's format (unless given) and returns a source of
// its events. JSON events are read as a client reads them (event.Parser's
// Consume): what no schema describes is removed, and warn is told.
func (f *streamFlags) openSource(in io.Reader, warn func(event.Warning)) (eventSource, streamFormat, error) {
	rec := &recorder{r: in}
	br := bufio.NewReaderSize(rec, 64<<10)
	from := f.from
	if from == "" {
		var err error
		if from, err = detectFormat(br); err != nil {
			return nil, "", err
		}
	}
	if codec.Profile(f.profile) == codec.PreV1 {
		return nil, "", errors.New("--profile pre-1.0 names a peer's wire for encoding; read the stream as 1.0")
	}
	cd := f.profile.readCodec(codec.Codec{})
	if cd.Profile != codec.V11 {
		// A frame's fields of a later version are skipped, and said, as
		// the consuming parse says it of JSON.
		cd.Skipped = func(t event.Type, pointer string) {
			warn(event.Warning{Type: t, Path: pointer, Reason: "removed an unrecognised property"})
		}
	}
	return newEventSource(from, br, rec, event.Parser{Consume: true, Warn: warn, Protocol: f.profile.protocol()},
		cd, int(f.maxFrame)), from, nil
}

// readEvents reads every event of src. An event of a type this build does
// not know (a frame from a later protocol, a JSON "type" it cannot name) is
// returned as nil (the conversation skips and counts it). With keepGoing a
// bad record is reported and skipped; otherwise it ends the reading with
// ok false. Where each event came from is returned alongside.
func (c *cli) readEvents(src eventSource) (evs []event.Event, at []string, bad int, ok bool) {
	for {
		ev, err := src.next()
		if err == io.EOF {
			return evs, at, bad, true
		}
		if err != nil {
			if isUnknownType(err) && !c.strict {
				evs, at = append(evs, nil), append(at, src.at())
				continue
			}
			c.failf("%v", err)
			var re *recordError
			if !errors.As(err, &re) || re.fatal || !c.keepGoing {
				return evs, at, bad, false
			}
			bad++
			continue
		}
		if ev == nil { // dropped by the consuming parse
			w := c.dropped
			c.dropped = nil
			if w == nil || w.Type == "" { // no type at all: warned about, nothing to apply
				continue
			}
			if c.strict {
				c.failf("%s: %s: %s", src.at(), unknownType, strconv.Quote(string(w.Type)))
				if !c.keepGoing {
					return evs, at, bad, false
				}
				bad++
				continue
			}
		}
		evs, at = append(evs, ev), append(at, src.at())
	}
}

// consumeWarn reports a warning of the consuming parse of a JSON input on
// standard error, except an event of a type this version does not know,
// which it keeps in c.dropped for readEvents to word as every command words
// it (or, with --strict, to refuse).
func (c *cli) consumeWarn(w event.Warning) {
	if w.Path == "" && w.Type != "" && !w.Type.IsThinking() {
		if _, known := event.Lookup(w.Type); !known {
			c.dropped = &w
			return
		}
	}
	if w.Path == "" && w.Type == "" {
		c.dropped = &w
	}
	c.failf("warning: %s", w)
}

// unknownEvent stands for a frame from a later protocol: Apply skips it.
type unknownEvent struct{ event.Base }

func (unknownEvent) Type() event.Type { return "UNKNOWN" }

func runAssemble(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newCLI("assemble", assembleSynopsis, assembleExample,
		"report each bad event, skip it and go on (exit status 1 at the end)", stdin, stdout, stderr)
	flags := addStreamFlags(c)
	c.fs.BoolVar(&c.strict, "strict", false, "treat an event of a type this version does not know, and an event that\ncannot be applied (a failed JSON Patch), as a bad event instead of skipping\nit with a warning; apply the draft specification's fatal rules (run and\nthread ids, duplicate interrupt ids, a truncated run)")
	if code, ok := c.parse(args); !ok {
		return code
	}
	in, out, err := c.open()
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	defer out.close()
	src, _, err := flags.openSource(in, c.consumeWarn)
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	evs, at, bad, ok := c.readEvents(src)
	if !ok {
		return exitFail
	}
	conv, err := assemble.New(assemble.Options{Check: !*flags.noCheck, Strict: c.strict})
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	unapplied := 0 // events that could not be applied, warned about
	for i, ev := range evs {
		if ev == nil {
			ev = &unknownEvent{}
		}
		if err := conv.Apply(ev); err != nil {
			// An event that cannot be applied (a JSON Patch that fails, a
			// budget it would exceed) leaves the conversation as it was:
			// the client warns and goes on, and so does assemble unless
			// --strict asks for more than the client does.
			var ae *assemble.ApplyError
			if errors.As(err, &ae) && !c.strict {
				c.failf("warning: %s: %v (not applied; the conversation is kept as it was)", at[i], err)
				unapplied++
				continue
			}
			c.failf("%s: %v", at[i], err)
			if !c.keepGoing {
				return exitFail
			}
			bad++
		}
	}
	if err := conv.End(); err != nil { // --strict: a truncated run
		c.failf("%v", err)
		if !c.keepGoing {
			return exitFail
		}
		bad++
	}
	b, err := conv.MarshalJSON()
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	out.Write(append(b, '\n'))
	out.complete = true
	if err := out.close(); err != nil {
		c.failf("writing output: %v", err)
		return exitFail
	}
	unknown := 0 // events of a type this version does not know
	for _, ev := range evs {
		if ev == nil {
			unknown++
		}
	}
	if unknown > 0 {
		c.failf("warning: skipped %s (--strict makes this an error)", unknownTypes(int64(unknown)))
	}
	if n := conv.Stats().Unknown - unknown; n > 0 { // THINKING_*
		c.failf("skipped %s of a type AG-UI 1.0 replaced (THINKING_*), as the client skips them", plural(int64(n), "event"))
	}
	if unapplied > 0 {
		c.failf("warning: %s not applied, as the client skips them (--strict makes this an error)", plural(int64(unapplied), "event"))
	}
	if bad > 0 {
		c.failf("skipped %s", plural(int64(bad), "bad event"))
		return exitFail
	}
	return exitOK
}
