package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// paceFlag is serve's --pace: how far apart the events go.
type paceFlag string

const (
	paceDelay      paceFlag = "delay"      // --delay between two events
	paceTimestamps paceFlag = "timestamps" // as the events' timestamps say
)

func (p *paceFlag) String() string { return string(*p) }

func (p *paceFlag) Set(s string) error {
	switch paceFlag(s) {
	case paceDelay, paceTimestamps:
		*p = paceFlag(s)
		return nil
	}
	return fmt.Errorf("unknown pace %q: want delay or timestamps", s)
}

// listFlag is a flag that may be repeated and takes comma-separated lists:
// --cors a --cors b,c gives a, b and c.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for v := range strings.SplitSeq(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			*l = append(*l, v)
		}
	}
	return nil
}

// recordedRun is a run read from a file for serve -i.
type recordedRun struct {
	events  []event.Event
	skipped int // events of types this build cannot send
}

// loadRecorded reads the events of the file name ("-": standard input), in
// the format from, or told from its first bytes as the other commands tell
// it: JSON lines, SSE or binary. A record that does not parse or decode is
// an error naming it; an event of a type this build does not know is
// skipped and counted. An event the server could not send on one of the
// carriers it offers (see servable) is an error naming the record, its type
// and why: loaded, it would answer every run request 200 and then a
// RUN_ERROR in its place.
func loadRecorded(name string, stdin io.Reader, from streamFormat) (*recordedRun, error) {
	in := stdin
	if name != "-" {
		f, err := openInputFile(name)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		in = f
	}
	rec := &recorder{r: in}
	br := bufio.NewReaderSize(rec, 64<<10)
	if from == "" {
		var err error
		if from, err = detectFormat(br); err != nil {
			return nil, err
		}
	}
	src := newEventSource(from, br, rec, event.Parser{}, codec.Codec{}, framing.DefaultMaxFrameSize)
	check, err := newServableCheck()
	if err != nil {
		return nil, err
	}
	run := &recordedRun{}
	for {
		ev, err := src.next()
		switch {
		case err == io.EOF:
			if len(run.events) == 0 {
				return nil, fmt.Errorf("%s holds no event to serve", describeInput(name))
			}
			return run, nil
		case err == nil:
			if err := check.servable(ev); err != nil {
				return nil, fmt.Errorf("%s (%s): %s: %s cannot be served: %w", describeInput(name), from, src.at(), ev.Type(), err)
			}
			run.events = append(run.events, ev)
		case isUnknownEvent(err):
			run.skipped++
		default:
			return nil, fmt.Errorf("%s (%s): %w", describeInput(name), from, err)
		}
	}
}

// servableCheck writes events with the writers serve's handler uses, on
// both carriers, into nothing: an event one of them refuses (no protobuf
// form, such as THINKING_*; over the codec's memory budget; a frame or an
// SSE event over the stock client's limits) could never be sent to a
// client of that carrier. The check is the writers' own, not a copy of
// their rules.
type servableCheck struct {
	sse, binary transport.EventWriter
}

func newServableCheck() (*servableCheck, error) {
	c := &servableCheck{}
	for _, w := range []struct {
		mediaType string
		to        *transport.EventWriter
	}{{transport.MediaTypeSSE, &c.sse}, {transport.MediaTypeBinary, &c.binary}} {
		r, err := http.NewRequest(http.MethodPost, "/", nil)
		if err != nil {
			return nil, err
		}
		r.Header.Set("Accept", w.mediaType)
		if *w.to, err = transport.NewEventWriter(discardResponse{}, r, transport.WriterOptions{}); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// servable returns nil when both carriers can send ev as serve sends it:
// RUN_STARTED without its recorded input, which serve replaces by the
// request (the handler checks that one, 422).
func (c *servableCheck) servable(ev event.Event) error {
	if e, ok := ev.(*event.RunStarted); ok {
		cp := *e
		cp.Input = nil
		ev = &cp
	}
	for _, w := range []transport.EventWriter{c.binary, c.sse} {
		if err := w.WriteEvent(ev); err != nil {
			if ee, ok := errors.AsType[*transport.EventError](err); ok {
				err = ee.Err
			}
			name := "the binary stream"
			if w == c.sse {
				name = "SSE"
			}
			return fmt.Errorf("%s refuses it: %w", name, err)
		}
	}
	return nil
}

// discardResponse is an http.ResponseWriter that keeps nothing, for
// servableCheck.
type discardResponse struct{}

func (discardResponse) Header() http.Header         { return http.Header{} }
func (discardResponse) Write(b []byte) (int, error) { return len(b), nil }
func (discardResponse) WriteHeader(int)             {}
func (discardResponse) Flush()                      {}

// describeInput names an input file in messages.
func describeInput(name string) string {
	if name == "-" {
		return "standard input"
	}
	return name
}

// gaps returns how long serve waits before each event: 0 before the
// first, then delay, or with --pace timestamps the difference between the
// event's timestamp (milliseconds) and the previous event's, clamped to
// [0, maxGap]. An event without a timestamp, or following one without,
// waits delay.
func gaps(evs []event.Event, pace paceFlag, delay, maxGap time.Duration) []time.Duration {
	out := make([]time.Duration, len(evs))
	for i := 1; i < len(evs); i++ {
		out[i] = delay
		if pace != paceTimestamps {
			continue
		}
		prev, cur := evs[i-1].BaseEvent().Timestamp, evs[i].BaseEvent().Timestamp
		if prev == nil || cur == nil {
			continue
		}
		d := time.Duration(max(*cur-*prev, 0)) * time.Millisecond
		if *cur-*prev > int64(maxGap/time.Millisecond) {
			d = maxGap // also where the difference would overflow a Duration
		}
		out[i] = d
	}
	return out
}

// recordedCapabilities is what the agent of a recorded run says it does:
// what its events show.
func recordedCapabilities(name string, evs []event.Event) *event.AgentCapabilities {
	yes := true
	agent, desc := "agwire serve", "a recorded run, "+filepath.Base(name)
	if name == "-" {
		desc = "a recorded run, read from standard input"
	}
	caps := &event.AgentCapabilities{Identity: &event.IdentityCapabilities{Name: &agent, Description: &desc}}
	for _, ev := range evs {
		switch t := string(ev.Type()); {
		case strings.HasPrefix(t, "TOOL_CALL_"):
			caps.Tools = &event.ToolsCapabilities{Supported: &yes}
		case t == string(event.TypeStateSnapshot):
			if caps.State == nil {
				caps.State = &event.StateCapabilities{}
			}
			caps.State.Snapshots = &yes
		case t == string(event.TypeStateDelta):
			if caps.State == nil {
				caps.State = &event.StateCapabilities{}
			}
			caps.State.Deltas = &yes
		case strings.HasPrefix(t, "REASONING_"):
			caps.Reasoning = &event.ReasoningCapabilities{Supported: &yes, Streaming: &yes}
		}
	}
	return caps
}

// isUnknownEvent reports whether err is an event of a type this build
// does not know: a frame from a later protocol, a JSON type it cannot name.
func isUnknownEvent(err error) bool {
	return errors.Is(err, codec.ErrUnknownEvent) || errors.Is(err, event.ErrUnknownType)
}
