package cli

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
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
// skipped and counted.
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
			run.events = append(run.events, ev)
		case isUnknownEvent(err):
			run.skipped++
		default:
			return nil, fmt.Errorf("%s (%s): %w", describeInput(name), from, err)
		}
	}
}

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
