package cli

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// demoRun is the built-in sample: one realistic run of a weather assistant,
// touching most event types, as AG-UI JSON events one per line.
//
//go:embed testdata/demo-run.jsonl
var demoRun []byte

// demoWidth is the width the demo's table fits in.
const demoWidth = 100

// sseOverhead is what SSE adds to each event's JSON: "data: " and "\n\n".
const sseOverhead = len("data: ") + len("\n\n")

const demoSynopsis = `Demo runs a built-in sample AG-UI run (a weather assistant: reasoning, a tool
call and its result, state, an activity, text, a messages snapshot) through
the binary transport: each event is encoded to one frame, the stream is
decoded back, and every decoded event must be byte-for-byte the JSON it
started as. It prints each event's type, JSON size, frame size (the 4-byte
length prefix included) and a summary, then the totals: the bytes an SSE
stream would send ("data: " + JSON + "\n\n" per event) against the bytes of
the binary stream.

The exit status is 1 if an event does not come back identical. Events the
chosen --profile cannot carry are listed with the codec's error and left out
of the stream and the totals; that is not a failure.`

const demoExample = `  agwire demo
  agwire demo --profile pre-1.0
  agwire demo --json | jq -r .type
  agwire demo -i events.jsonl
`

func runDemo(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newBareCLI("demo", demoSynopsis, demoExample, stdin, stdout, stderr)
	c.fs.StringVar(&c.in, "i", "", "use the JSON events of `FILE`, one per line (- is standard input), instead\nof the built-in run")
	c.fs.StringVar(&c.out, "o", "-", "write to `FILE` (- is standard output)")
	asJSON := c.fs.Bool("json", false, "print each event's JSON, as decoded from its frame, one per line instead\nof the table (the totals go to standard error)")
	profile := profileFlag(codec.V1)
	c.fs.Var(&profile, "profile", "`1.0|1.1|pre-1.0`: the wire of the receiving peer; the events it cannot\ncarry are listed and left out")
	if code, ok := c.parse(args); !ok {
		return code
	}
	input, name := demoRun, "the built-in sample run"
	if c.in != "" {
		var err error
		if c.in == "-" {
			name = "standard input"
			input, err = io.ReadAll(c.stdin)
		} else {
			name = c.in
			input, err = readInputFile(c.in)
		}
		if err != nil {
			c.failf("%v", err)
			return exitFail
		}
	}
	d, err := runDemoEvents(input, codec.Codec{Profile: codec.Profile(profile)})
	if err != nil && !errors.Is(err, errNoEvents) {
		c.failf("%v", err)
		return exitFail
	}
	c.in = "-" // read already: open only the output
	_, out, oerr := c.open()
	if oerr != nil {
		c.failf("%v", oerr)
		return exitFail
	}
	if err != nil { // an empty input, as the other commands take it
		out.complete = true
		if status := c.finish(out, exitOK); status != exitOK {
			return status
		}
		c.notef("the input is empty: no events written")
		return exitOK
	}
	if *asJSON {
		d.printJSON(out)
	} else {
		d.printTable(out, name)
	}
	out.complete = true
	if err := out.close(); err != nil {
		c.failf("writing output: %v", err)
		return exitFail
	}
	if *asJSON {
		d.printFooter(c.stderr)
	}
	if d.failures > 0 {
		for _, r := range d.rows {
			if r.failure != "" {
				c.failf("line %d (%s): %s", r.line, r.ev.Type(), r.failure)
			}
		}
		c.failf("round trip FAILED for %s of %d", plural(int64(d.failures), "event"), len(d.rows))
		return exitFail
	}
	return exitOK
}

// demoRow is one event of the demo.
type demoRow struct {
	line    int // in the input, from 1
	ev      event.Event
	json    []byte // event.Marshal(ev): what an SSE stream sends
	frame   int    // bytes of its frame, the length prefix included; 0 if refused
	refused error  // the profile's refusal: the event is not sent
	failure string // why the round trip failed, or ""
}

// demo is the outcome of a demo run.
type demo struct {
	profile  codec.Profile
	rows     []demoRow
	decoded  [][]byte // the decoded JSON of the events sent, in order
	failures int
}

// errNoEvents is runDemoEvents' error for an input without events.
var errNoEvents = errors.New("no events in the input")

// runDemoEvents parses the JSON lines of input, encodes the events to one
// binary stream, decodes the stream and compares.
func runDemoEvents(input []byte, cd codec.Codec) (*demo, error) {
	d := &demo{profile: cd.Profile}
	for i, line := range bytes.Split(input, []byte("\n")) {
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		ev, err := event.Parser{Protocol: cd.Profile.ProtocolVersion()}.Parse(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		js, err := event.Marshal(ev)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		d.rows = append(d.rows, demoRow{line: i + 1, ev: ev, json: js})
	}
	if len(d.rows) == 0 {
		return nil, errNoEvents
	}

	// Encode: one stream, as a server would write it.
	var stream bytes.Buffer
	w := framing.NewWriter(&stream, framing.WriterOptions{Codec: cd})
	for i := range d.rows {
		r := &d.rows[i]
		before := w.BytesWritten()
		if err := w.WriteEvent(r.ev); err != nil {
			if errors.Is(err, codec.ErrNotInProfile) {
				r.refused = err
			} else {
				r.failure = "cannot be encoded: " + err.Error()
				d.failures++
			}
			continue
		}
		r.frame = int(w.BytesWritten() - before)
	}

	// Decode it back, as a client would, both ways: straight to JSON (as
	// "agwire decode" does) and to an event that is then marshaled.
	rd := framing.NewReader(&stream, framing.ReaderOptions{MaxFrameSize: math.MaxUint32})
	// The receiving peer's reader: a 1.1 one reads the fields 1.1 added.
	dec := codec.Codec{Profile: cd.Profile}
	for i := range d.rows {
		r := &d.rows[i]
		if r.frame == 0 {
			continue
		}
		payload, err := rd.Next()
		if err != nil { // cannot happen: the stream was just written whole
			r.failure = "its frame cannot be read: " + err.Error()
			d.failures++
			break
		}
		js, err := dec.AppendJSONFromWire(nil, payload)
		if err != nil {
			r.failure = "its frame does not decode: " + err.Error()
			d.failures++
			continue
		}
		d.decoded = append(d.decoded, js)
		if !bytes.Equal(js, r.json) {
			r.failure = fmt.Sprintf("decodes to different JSON:\n  sent     %s\n  received %s", r.json, js)
			d.failures++
			continue
		}
		ev, err := dec.Unmarshal(payload)
		if err == nil {
			js, err = event.Marshal(ev)
		}
		switch {
		case err != nil:
			r.failure = "its frame decodes to JSON, but not to an event: " + err.Error()
		case !bytes.Equal(js, r.json):
			r.failure = fmt.Sprintf("decodes to an event whose JSON differs:\n  sent     %s\n  received %s", r.json, js)
		default:
			continue
		}
		d.failures++
	}
	return d, nil
}

// totals returns the events sent, their bytes as SSE and as frames.
func (d *demo) totals() (events, jsonBytes, sse, binary int) {
	for _, r := range d.rows {
		if r.frame > 0 {
			events++
			jsonBytes += len(r.json)
			sse += len(r.json) + sseOverhead
			binary += r.frame
		}
	}
	return
}

// printJSON writes the decoded events, one JSON object per line. Write
// errors stick in out, which reports them when closed.
func (d *demo) printJSON(out *output) {
	for _, js := range d.decoded {
		out.Write(js)
		out.WriteByte('\n')
	}
}

// printTable writes the table of events, the refusals and the totals.
// Write errors stick in out, which reports them when closed.
func (d *demo) printTable(out *output, name string) {
	w := io.Writer(out)
	fmt.Fprintf(w, "%s of %s, encoded to binary frames (profile %s) and decoded back:\n\n",
		plural(int64(len(d.rows)), "event"), name, d.profile)

	// The columns before SUMMARY, so that it can be cut to fit.
	numW, typeW, jsonW, frameW := len("#"), len("TYPE"), len("JSON"), len("FRAME")
	_, jsonTotal, _, binTotal := d.totals()
	jsonAll := 0
	for _, r := range d.rows {
		jsonAll += len(r.json)
		numW = max(numW, len(strconv.Itoa(r.line)))
		typeW = max(typeW, len(r.ev.Type()), len("TOTAL SENT"))
		if r.refused != nil {
			frameW = max(frameW, len("refused"))
		}
	}
	jsonW = max(jsonW, len(strconv.Itoa(jsonAll)))
	frameW = max(frameW, len(strconv.Itoa(binTotal)))
	const pad = 2
	summaryW := demoWidth - (numW + typeW + jsonW + frameW + 4*pad)

	tw := tabwriter.NewWriter(w, 0, 0, pad, ' ', 0)
	fmt.Fprintf(tw, "%*s\t%s\t%*s\t%*s\t%s\n", numW, "#", "TYPE", jsonW, "JSON", frameW, "FRAME", "SUMMARY")
	for _, r := range d.rows {
		frame := strconv.Itoa(r.frame)
		switch {
		case r.refused != nil:
			frame = "refused"
		case r.frame == 0:
			frame = "-" // not encoded
		}
		mark := ""
		if r.failure != "" {
			mark = "  ROUND TRIP FAILED"
		}
		fmt.Fprintf(tw, "%*d\t%s\t%*d\t%*s\t%s\n", numW, r.line, r.ev.Type(), jsonW, len(r.json), frameW, frame,
			summarize(r.ev, summaryW-utf8.RuneCountInString(mark))+mark)
	}
	total := "TOTAL"
	if jsonTotal < jsonAll {
		total = "TOTAL SENT"
	}
	fmt.Fprintf(tw, "%*s\t%s\t%*d\t%*d\n", numW, "", total, jsonW, jsonTotal, frameW, binTotal)
	tw.Flush()
	fmt.Fprintf(w, "\nJSON:  bytes of the event's JSON; SSE sends it as \"data: \" + JSON + \"\\n\\n\", %d bytes more.\n", sseOverhead)
	fmt.Fprint(w, "FRAME: bytes of its binary frame, the protobuf Event after a 4-byte big-endian length.\n")
	d.printFooter(w)
}

// printFooter writes the refusals, the totals and the verdict.
func (d *demo) printFooter(w io.Writer) {
	// The refused events, grouped by the codec's reason (one, in practice).
	var reasons []string
	byReason := map[string][]demoRow{}
	for _, r := range d.rows {
		if r.refused != nil {
			why := refusal(r.refused)
			if byReason[why] == nil {
				reasons = append(reasons, why)
			}
			byReason[why] = append(byReason[why], r)
		}
	}
	if len(reasons) > 0 {
		n := 0
		for _, rows := range byReason {
			n += len(rows)
		}
		fmt.Fprintf(w, "\nThe %s profile refuses %d of the %d events; they are not sent, nor counted in the totals.\n",
			d.profile, n, len(d.rows))
		for _, why := range reasons {
			fmt.Fprintf(w, "  %s:\n", why)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			for _, r := range byReason[why] {
				fmt.Fprintf(tw, "    %d\t%s\n", r.line, r.ev.Type())
			}
			tw.Flush()
		}
	}
	events, _, sse, binary := d.totals()
	sent := ""
	if len(reasons) > 0 {
		sent = " sent"
	}
	fmt.Fprintf(w, "\n%s%s: SSE %d bytes, binary %d bytes, ratio %.2f", plural(int64(events), "event"), sent,
		sse, binary, float64(binary)/float64(max(sse, 1)))
	if binary < sse {
		fmt.Fprintf(w, " (binary is %.0f%% smaller)", 100-100*float64(binary)/float64(sse))
	}
	fmt.Fprintln(w)
	if d.failures == 0 {
		fmt.Fprintf(w, "Round trip OK: every frame decodes to exactly the JSON of its event.\n")
	} else {
		fmt.Fprintf(w, "Round trip FAILED for %s (see standard error).\n", plural(int64(d.failures), "event"))
	}
}

// refusal is the codec's reason for refusing an event, without the
// "agwire: encode TYPE:" the listing already shows.
func refusal(err error) string {
	var ce *codec.Error
	if errors.As(err, &ce) {
		return ce.Err.Error()
	}
	return err.Error()
}

// summarize describes an event in at most width runes: its ids, what it
// carries (a delta, a name, counts) and its metadata keys. What it carries
// is shortened, or left out, to make room for the rest.
func summarize(ev event.Event, width int) string {
	var ids []string
	for _, id := range eventIDs(ev) {
		ids = append(ids, quoteIfNeeded(id.value))
	}
	head := strings.Join(ids, " ")
	tail := ""
	if md := ev.BaseEvent().Metadata; md != nil {
		tail = "meta: " + metadataKeys(md.Keys())
	}
	d := detail(ev)
	if d != "" {
		room := width - utf8.RuneCountInString(head) - utf8.RuneCountInString(tail)
		if head != "" {
			room -= 2
		}
		if tail != "" {
			room -= 2
		}
		if room < 16 {
			d = "" // too little room to say anything useful
		}
		d = truncate(d, room)
	}
	var parts []string
	for _, p := range []string{head, d, tail} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	return truncate(strings.Join(parts, "  "), width)
}

// detail is what an event carries beyond ids and metadata, in brief.
func detail(ev event.Event) string {
	switch e := ev.(type) {
	case *event.RunStarted:
		if in := e.Input; in != nil {
			return fmt.Sprintf("input: %s, %s", plural(int64(len(in.Messages)), "message"), plural(int64(len(in.Tools)), "tool"))
		}
	case *event.RunFinished:
		s := ""
		if e.Outcome != nil {
			s = "outcome: " + e.Outcome.Type
		}
		var tokens int64
		for _, u := range e.Usage {
			if u.TotalTokens != nil {
				tokens += *u.TotalTokens
			}
		}
		if tokens > 0 {
			s = strings.TrimPrefix(s+fmt.Sprintf(", %d tokens", tokens), ", ")
		}
		return s
	case *event.RunError:
		return quoteText(e.Message)
	case *event.TextMessageStart:
		return deref(e.Role)
	case *event.TextMessageContent:
		return quoteText(e.Delta)
	case *event.TextMessageChunk:
		return quoteText(deref(e.Delta))
	case *event.ToolCallStart:
		return e.ToolCallName
	case *event.ToolCallArgs:
		return quoteText(e.Delta)
	case *event.ToolCallChunk:
		return strings.TrimSpace(deref(e.ToolCallName) + " " + quoteText(deref(e.Delta)))
	case *event.ToolCallResult:
		if e.Parts != nil {
			return plural(int64(len(e.Parts)), "content part")
		}
		return quoteText(deref(e.Content))
	case *event.StateSnapshot:
		if keys := event.Object(e.Snapshot).Keys(); len(keys) > 0 {
			return "state: " + metadataKeys(keys)
		}
	case *event.StateDelta:
		return patchSummary(e.Delta)
	case *event.ActivitySnapshot:
		return e.ActivityType
	case *event.ActivityDelta:
		return e.ActivityType + " " + patchSummary(e.Patch)
	case *event.MessagesSnapshot:
		roles := make([]string, len(e.Messages))
		for i, m := range e.Messages {
			roles[i] = m.Role
			if n := len(m.ToolCalls); n > 0 {
				roles[i] += fmt.Sprintf("(%s)", plural(int64(n), "tool call"))
			}
		}
		return plural(int64(len(e.Messages)), "message") + ": " + strings.Join(roles, ", ")
	case *event.Custom:
		return e.Name
	case *event.Raw:
		return deref(e.Source)
	case *event.SubagentStarted:
		return e.Name
	case *event.SubagentFinished:
		if e.Outcome != nil {
			return "outcome: " + e.Outcome.Type
		}
	case *event.SubagentError:
		return quoteText(e.Message)
	case *event.ReasoningMessageStart:
		return e.Role
	case *event.ReasoningMessageContent:
		return quoteText(e.Delta)
	case *event.ReasoningMessageChunk:
		return quoteText(deref(e.Delta))
	case *event.ReasoningEncryptedValue:
		return e.Subtype + " " + e.EntityID
	}
	return ""
}

// patchSummary is "4 ops: replace /status, add /packing/-".
func patchSummary(ops []event.PatchOp) string {
	s := make([]string, len(ops))
	for i, op := range ops {
		s[i] = op.Op + " " + op.Path
	}
	return plural(int64(len(ops)), "op") + ": " + strings.Join(s, ", ")
}

// quoteText puts text in double quotes for a one-line summary, spelling
// line breaks and tabs as \n, \r, \t and dropping other control characters.
func quoteText(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < ' ' || r == 0x7f:
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// truncate cuts s to at most n runes, ending it with "…" when cut.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	if n < 1 {
		return ""
	}
	r := []rune(s)
	return strings.TrimRight(string(r[:n-1]), " ") + "…"
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
