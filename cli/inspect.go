package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

const inspectSynopsis = `Inspect reads an AG-UI 1.0 binary stream and prints one line per frame: its
index (from 0), the byte offset of its length prefix, its payload length, the
event type, the ids the event carries (messageId, toolCallId, runId,
threadId, stepName, subagentRunId) and its metadata keys, in their order.

A frame that does not decode is listed as MALFORMED with the reason, and one
that carries only an event from a later protocol version as UNKNOWN EVENT;
both are skipped and the listing goes on. A stream that is cut short, or that
declares a frame above --max-frame-size, ends the listing with the error.
The exit status is 1 if a frame was malformed (or, with --strict, from a
later protocol version) or the stream ended early, and 0 otherwise.`

const inspectExample = `  agwire inspect -i events.bin
  agwire encode -i events.jsonl | agwire inspect
  agwire inspect --json -i events.bin | jq -c 'select(.status != "ok")'
`

func runInspect(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	c := newBareCLI("inspect", inspectSynopsis, inspectExample, stdin, stdout, stderr)
	c.fs.StringVar(&c.in, "i", "-", "read from `FILE` (- is standard input)")
	c.fs.StringVar(&c.out, "o", "-", "write to `FILE` (- is standard output)")
	c.fs.BoolVar(&c.strict, "strict", false, "exit with status 1 when a frame is from a later protocol version too")
	asJSON := c.fs.Bool("json", false, "print one JSON object per frame, for scripts: frame, offset, length,\ntype, the ids, metadataKeys, status (ok, malformed, unknown, truncated,\ntoo-large, read-error) and error")
	maxFrame := sizeFlag(framing.DefaultMaxFrameSize)
	c.fs.Var(&maxFrame, "max-frame-size", "refuse frames longer than `BYTES`")
	if code, ok := c.parse(args); !ok {
		return code
	}
	in, out, err := c.open()
	if err != nil {
		c.failf("%v", err)
		return exitFail
	}
	rec := &recorder{r: in}
	r := framing.NewReader(bufio.NewReaderSize(rec, 64<<10), framing.ReaderOptions{MaxFrameSize: int(maxFrame)})
	emit := textFrames
	if *asJSON {
		emit = jsonFrames
	} else {
		fmt.Fprintf(out, textFrameFormat+"%-25s  %s\n", "FRAME", "OFFSET", "LENGTH", "TYPE", "IDS, METADATA KEYS")
	}
	status := c.inspect(r, out, emit, rec)
	return c.finish(out, status)
}

// Frame statuses, as --json spells them.
const (
	statusOK        = "ok"
	statusMalformed = "malformed"
	statusUnknown   = "unknown"
	statusTruncated = "truncated"
	statusTooLarge  = "too-large"
	statusReadError = "read-error"
)

// frameInfo is what inspect reports about one frame; its JSON form is the
// --json line.
type frameInfo struct {
	Frame  int64  `json:"frame"`
	Offset int64  `json:"offset"`
	Length *int   `json:"length,omitempty"` // nil when the frame never arrived whole
	Type   string `json:"type,omitempty"`

	MessageID     *string `json:"messageId,omitempty"`
	ToolCallID    *string `json:"toolCallId,omitempty"`
	RunID         *string `json:"runId,omitempty"`
	ThreadID      *string `json:"threadId,omitempty"`
	StepName      *string `json:"stepName,omitempty"`
	SubagentRunID *string `json:"subagentRunId,omitempty"`

	// MetadataKeys is nil when the event has no metadata, empty for {}.
	MetadataKeys []string `json:"metadataKeys,omitzero"`
	Status       string   `json:"status"`
	// Field is the envelope field number of an unknown event.
	Field int    `json:"field,omitempty"`
	Error string `json:"error,omitempty"`

	ids    []idValue // the ids, in idFields order
	reason string    // the error, shortened for the table
	hint   string    // what the input looks like, when it is not a binary stream
}

// inspect lists the frames of r, each printed by emit.
func (c *cli) inspect(r *framing.Reader, out *output, emit func(io.Writer, *frameInfo) error, rec *recorder) int {
	prog := c.startProgress(out, "frame", "read")
	defer prog.clear()
	var cd codec.Codec
	var frames, malformed, unknown int64
	var stop *frameInfo // the stream-level error that ended the listing
	for stop == nil {
		payload, err := r.Next()
		if err == io.EOF {
			break
		}
		var info frameInfo
		if err != nil {
			info = streamFailure(err, frames)
			info.hint = streamHint(err, rec)
			stop = &info
		} else {
			info = describeFrame(cd, frames, r.Offset(), payload)
			switch info.Status {
			case statusMalformed:
				malformed++
			case statusUnknown:
				unknown++
			}
			frames++
			prog.update(frames, r.Offset()+4+int64(len(payload)))
		}
		if err := emit(out, &info); err != nil {
			c.failf("writing output: %v", err)
			return exitFail
		}
	}
	if err := out.Flush(); err != nil {
		c.failf("writing output: %v", err)
		return exitFail
	}
	out.complete = true // the listing is complete, up to where the stream ended
	if stop != nil {
		if stop.Offset >= 0 {
			c.failf("%s: %s", frameAt(stop.Frame, stop.Offset), stop.reason)
		} else {
			c.failf("%s", stop.reason)
		}
		if stop.hint != "" {
			c.failf("%s", stop.hint)
		}
	}
	if frames == 0 && stop == nil {
		c.notef("the input is empty: no frames")
	}
	switch {
	case malformed > 0 || (c.strict && unknown > 0):
		var bad []string
		if malformed > 0 {
			bad = append(bad, fmt.Sprintf("%d malformed", malformed))
		}
		if unknown > 0 {
			bad = append(bad, unknownTypes(unknown))
		}
		c.failf("%s read: %s (skipped)", plural(frames, "frame"), strings.Join(bad, ", "))
	case stop != nil:
		c.failf("stopped after %s", plural(frames, "frame"))
	case unknown > 0:
		c.failf("warning: %s read: %s (skipped; --strict makes this an error)", plural(frames, "frame"), unknownTypes(unknown))
		return exitOK
	default:
		return exitOK
	}
	return exitFail
}

// describeFrame decodes one frame's payload and says what it holds.
func describeFrame(cd codec.Codec, index, offset int64, payload []byte) frameInfo {
	n := len(payload)
	info := frameInfo{Frame: index, Offset: offset, Length: &n, Status: statusOK}
	ev, err := cd.Unmarshal(payload)
	if err != nil {
		info.Error = err.Error()
		info.reason = shortReason(err)
		info.Status = statusMalformed
		if errors.Is(err, codec.ErrUnknownEvent) {
			info.Status = statusUnknown
			info.Field = unknownField(payload)
		}
		var ce *codec.Error
		if errors.As(err, &ce) && ce.Type != "" {
			info.Type = string(ce.Type)
		}
		return info
	}
	info.Type = string(ev.Type())
	info.setIDs(eventIDs(ev))
	if md := ev.BaseEvent().Metadata; md != nil {
		info.MetadataKeys = append([]string{}, md.Keys()...)
	}
	return info
}

// streamFailure describes a stream-level error, which ends the stream.
func streamFailure(err error, index int64) frameInfo {
	info := frameInfo{Frame: index, Offset: -1, Status: statusReadError, Error: err.Error(), reason: err.Error()}
	var fe *framing.Error
	if errors.As(err, &fe) {
		info.Frame, info.Offset, info.reason = fe.Frame, fe.Offset, fe.Err.Error()
	}
	switch {
	case errors.Is(err, framing.ErrTruncated):
		info.Status = statusTruncated
	case errors.Is(err, framing.ErrFrameTooLarge):
		info.Status = statusTooLarge
	}
	return info
}

// shortReason is the reason a frame did not decode, for the table: the
// codec's message without its "agwire: decode" prefix or the sentinel that
// the MALFORMED label already says, followed by where it is.
func shortReason(err error) string {
	var ce *codec.Error
	if !errors.As(err, &ce) {
		return err.Error()
	}
	msg := ce.Err.Error()
	if errors.Is(ce.Err, codec.ErrMalformed) {
		msg = strings.TrimPrefix(msg, codec.ErrMalformed.Error()+": ")
	}
	var where []string
	if ce.Path != "" {
		where = append(where, ce.Path)
	}
	if ce.Offset >= 0 {
		where = append(where, "byte "+strconv.Itoa(ce.Offset))
	}
	if len(where) > 0 {
		msg += " (at " + strings.Join(where, ", ") + ")"
	}
	return msg
}

// unknownField returns the first field of an Event envelope that is not an
// AG-UI 1.0 event arm, or 0.
func unknownField(payload []byte) int {
	known := map[protowire.Number]bool{}
	for _, t := range event.Types() {
		if arm, ok := codec.Arm(t); ok {
			known[protowire.Number(arm)] = true
		}
	}
	for len(payload) > 0 {
		num, typ, n := protowire.ConsumeTag(payload)
		if n < 0 || num > protowire.MaxValidNumber {
			return 0
		}
		if !known[num] {
			return int(num)
		}
		payload = payload[n:]
		if n = protowire.ConsumeFieldValue(num, typ, payload); n < 0 {
			return 0
		}
		payload = payload[n:]
	}
	return 0
}

// idFields are the ids inspect and demo show, in this order: their JSON
// names and the names of the event struct fields that hold them.
var idFields = [...]struct{ json, field string }{
	{"messageId", "MessageID"},
	{"toolCallId", "ToolCallID"},
	{"runId", "RunID"},
	{"threadId", "ThreadID"},
	{"stepName", "StepName"},
	{"subagentRunId", "SubagentRunID"},
}

// idValue is one id of an event: its JSON name and value.
type idValue struct{ name, value string }

// idIndexes caches, per event struct type, the index of each of idFields
// in the struct, or nil when the type has no such field.
var idIndexes sync.Map // reflect.Type → *[len(idFields)][]int

// eventIDs returns the ids ev carries, in idFields order: a required id
// (a string field) always, an optional one (*string) when it is set, just
// as the event's JSON has them.
func eventIDs(ev event.Event) []idValue {
	v := reflect.ValueOf(ev)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return nil
	}
	v = v.Elem()
	idx, ok := idIndexes.Load(v.Type())
	if !ok {
		var x [len(idFields)][]int
		for i, id := range idFields {
			if f, ok := v.Type().FieldByName(id.field); ok {
				x[i] = f.Index
			}
		}
		idx, _ = idIndexes.LoadOrStore(v.Type(), &x)
	}
	var ids []idValue
	for i, index := range idx.(*[len(idFields)][]int) {
		if index == nil {
			continue
		}
		f := v.FieldByIndex(index)
		if f.Kind() == reflect.Pointer {
			if f.IsNil() {
				continue
			}
			f = f.Elem()
		}
		if f.Kind() == reflect.String {
			ids = append(ids, idValue{idFields[i].json, f.String()})
		}
	}
	return ids
}

func (f *frameInfo) setIDs(ids []idValue) {
	f.ids = ids
	for _, id := range ids {
		v := id.value
		switch id.name {
		case "messageId":
			f.MessageID = &v
		case "toolCallId":
			f.ToolCallID = &v
		case "runId":
			f.RunID = &v
		case "threadId":
			f.ThreadID = &v
		case "stepName":
			f.StepName = &v
		case "subagentRunId":
			f.SubagentRunID = &v
		}
	}
}

// textFrameFormat begins a line of the table: frame, offset, length.
const textFrameFormat = "%5s %10s %7s  "

// textFrames prints a frame as a line of the table. The columns have fixed
// widths, so each line goes out as soon as its frame is read (a table
// aligned on its widest cell would hold the whole stream back).
func textFrames(w io.Writer, f *frameInfo) error {
	var b strings.Builder
	length := "-"
	if f.Length != nil {
		length = strconv.Itoa(*f.Length)
	}
	fmt.Fprintf(&b, textFrameFormat, strconv.FormatInt(f.Frame, 10), strconv.FormatInt(f.Offset, 10), length)
	switch f.Status {
	case statusOK:
		fmt.Fprintf(&b, "%-25s", f.Type)
		for _, id := range f.ids {
			b.WriteString("  " + id.name + "=" + quoteIfNeeded(id.value))
		}
		if f.MetadataKeys != nil {
			b.WriteString("  metadata: " + metadataKeys(f.MetadataKeys))
		}
	case statusMalformed:
		b.WriteString("MALFORMED: " + f.reason)
	case statusUnknown:
		b.WriteString("UNKNOWN EVENT (later protocol): skipped")
		if f.Field > 0 {
			fmt.Fprintf(&b, " (envelope field %d)", f.Field)
		}
	default:
		b.WriteString("STOPPED: " + f.reason)
	}
	_, err := io.WriteString(w, strings.TrimRight(b.String(), " ")+"\n")
	return err
}

// jsonFrames prints a frame as one JSON object on a line.
func jsonFrames(w io.Writer, f *frameInfo) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(f)
}

// metadataKeys spells metadata keys for a table: "{}" for an empty object.
func metadataKeys(keys []string) string {
	if len(keys) == 0 {
		return "{}"
	}
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = quoteIfNeeded(k)
	}
	return strings.Join(q, ", ")
}

// quoteIfNeeded returns s as it is when it is plain (no space, comma, quote,
// control character or equals sign, and not empty), else Go-quoted.
func quoteIfNeeded(s string) string {
	if s == "" {
		return `""`
	}
	for _, r := range s {
		if unicode.IsSpace(r) || !unicode.IsPrint(r) || strings.ContainsRune(`,"'=\`, r) {
			return strconv.Quote(s)
		}
	}
	return s
}
