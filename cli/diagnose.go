package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"sync"

	"github.com/agwire/agwire/assemble"
	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// describe spells an error about one record for a message that already
// names the record ("line 6: ", "frame 2 (stream byte 120): "): without the
// package prefixes of the library's errors, and with any byte offset said
// to count within the record (of is "line", "frame payload", "event data").
func describe(err error, of string) string {
	if isUnknownType(err) {
		return unknownTypeText(err)
	}
	var te *typedError
	if errors.As(err, &te) {
		return string(te.typ) + ": " + describe(te.err, of)
	}
	var ce *codec.Error
	if errors.As(err, &ce) {
		s := ""
		if ce.Type != "" {
			s = string(ce.Type) + ": "
		}
		return s + located(ce.Path, ce.Offset, of) + ce.Err.Error()
	}
	var pe *event.PathError
	if errors.As(err, &pe) {
		return located(pe.Path, pe.Offset, of) + pe.Err.Error()
	}
	return unprefixed(err.Error())
}

// unknownType is how every command words an event of a type this version
// does not know — a JSON "type" that names no AG-UI 1.0 event, or a frame
// that holds only an event from a later protocol version — whether it
// refuses it (encode, convert from JSON, compact, --strict), warns that it
// skipped it (decode, convert from binary, inspect) or skips and counts it
// (assemble).
const (
	unknownType   = "an event" + unknownTypeOf
	unknownTypeOf = " of a type this version does not know"
)

// isUnknownType reports whether err is about an event of a type this
// version does not know.
func isUnknownType(err error) bool {
	return errors.Is(err, event.ErrUnknownType) || errors.Is(err, codec.ErrUnknownEvent)
}

// unknownTypeName finds the quoted type name in the parser's error.
var unknownTypeName = regexp.MustCompile(event.ErrUnknownType.Error() + ` ("(?:[^"\\]|\\.)*")`)

// unknownTypeText spells an unknown-type error with the type's name (JSON)
// or what the frame is (binary).
func unknownTypeText(err error) string {
	if m := unknownTypeName.FindStringSubmatch(err.Error()); m != nil {
		return unknownType + ": " + m[1]
	}
	if errors.Is(err, codec.ErrUnknownEvent) {
		return unknownType + ": a frame from a later protocol version"
	}
	return unknownType
}

// unprefixed drops the package prefix ("transport: ") that the library's
// errors start with: the message has the command's prefix already.
func unprefixed(msg string) string {
	for _, p := range []string{"transport: ", "framing: ", "agwire: ", "event: ", "codec: "} {
		msg = strings.TrimPrefix(msg, p)
	}
	return msg
}

// located spells a place in a record, ending in ": ", or "" when neither
// is known.
func located(path string, offset int, of string) string {
	switch {
	case path != "" && offset >= 0:
		return fmt.Sprintf("%s (byte %d of the %s): ", path, offset, of)
	case path != "":
		return path + ": "
	case offset >= 0:
		return fmt.Sprintf("byte %d of the %s: ", offset, of)
	}
	return ""
}

// atEvent spells an error of the assembler about the event at some index
// of the events read (a *assemble.SequenceError or *assemble.ApplyError)
// after the record the event came from, as at lists them: "line 3: event 2
// (TEXT_MESSAGE_CONTENT): ..."; other errors as they are, unprefixed.
func atEvent(err error, at []string) string {
	index := -1
	var se *assemble.SequenceError
	var ae *assemble.ApplyError
	switch {
	case errors.As(err, &se):
		index, err = se.Index, se
	case errors.As(err, &ae):
		index, err = ae.Index, ae
	}
	msg := strings.TrimPrefix(unprefixed(err.Error()), "assemble: ")
	if index >= 0 && index < len(at) {
		return at[index] + ": " + msg
	}
	return msg
}

// frameAt names a frame of a binary stream: "frame 2 (stream byte 120)".
func frameAt(frame, offset int64) string {
	return fmt.Sprintf("frame %d (stream byte %d)", frame, offset)
}

// describeFrameError spells an error of a framing.Reader after its frame.
func describeFrameError(err error) string {
	var fe *framing.Error
	if errors.As(err, &fe) {
		return frameAt(fe.Frame, fe.Offset) + ": " + describe(fe.Err, "frame payload")
	}
	return err.Error()
}

// Magic numbers of the compressed formats a user may feed agwire by mistake.
var (
	gzipMagic = []byte{0x1f, 0x8b}
	zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// looksLike says what the start of an input appears to be, for a message
// when it was read as the wrong format: "JSON", "SSE", "gzip", "zstd",
// "binary" or "" when it cannot tell.
func looksLike(start []byte) string {
	switch {
	case bytes.HasPrefix(start, gzipMagic):
		return "gzip"
	case bytes.HasPrefix(start, zstdMagic):
		return "zstd"
	}
	if len(start) > 0 && start[0] < 0x20 && start[0] != '\t' && start[0] != '\n' && start[0] != '\r' {
		return "binary"
	}
	text := bytes.TrimLeft(bytes.TrimPrefix(start, utf8BOM), " \t\r\n")
	switch {
	case len(text) == 0:
		return ""
	case text[0] == '{' || text[0] == '[':
		return "JSON"
	}
	for _, field := range []string{":", "data:", "event:", "id:", "retry:"} {
		if bytes.HasPrefix(text, []byte(field)) {
			return "SSE"
		}
	}
	return ""
}

// formatHint says what the input looks like and which command reads it,
// for a command that expected want ("binary" or "JSON"); "" when the input
// looks like what was expected, or like nothing known.
func formatHint(start []byte, want string) string {
	got := looksLike(start)
	if got == want || got == "" {
		return ""
	}
	switch got {
	case "gzip":
		return "the input is gzip-compressed: decompress it first (gzip -dc FILE | agwire ...)"
	case "zstd":
		return "the input is zstd-compressed: decompress it first (zstd -dc FILE | agwire ...)"
	case "JSON":
		return "the input looks like JSON events, not a binary stream: 'agwire encode' turns JSON events (one per line) into a binary stream, 'agwire convert --from jsonl' into SSE"
	case "SSE":
		if want == "binary" {
			return "the input looks like Server-Sent Events, not a binary stream: read it with 'agwire convert --from sse --to jsonl' (or --to binary)"
		}
		return "the input looks like Server-Sent Events, not JSON lines: read it with 'agwire convert --from sse --to binary' (or --to jsonl)"
	case "binary":
		return "the input looks like a binary stream, not JSON lines: 'agwire decode' turns it into JSON events"
	}
	return ""
}

// onePerLine is the hint for a JSON line that is not a whole event: input
// is one event per line, and a pretty-printed event spans several.
const onePerLine = "the input must hold one JSON event per line; a pretty-printed event spans several lines: compact it first (jq -c . FILE | agwire ...)"

// partialEvent reports whether a line that failed to parse looks like part
// of a pretty-printed event rather than a whole event: an opening or
// closing bracket on its own ("{", "},", "]"), an object's first line
// ("{" then members, ending open or with a comma), or a member ("\"type\":
// ..."). A line of anything else (random bytes, prose, a whole object with
// bytes after it) is not one.
func partialEvent(line []byte, err error) bool {
	line = bytes.TrimSpace(line)
	if len(line) > 0 && line[0] == '"' { // read as a string, then refused
		return bytes.Contains(line, []byte(`":`)) || bytes.Contains(line, []byte(`" :`))
	}
	if !errors.Is(err, event.ErrSyntax) || len(line) == 0 {
		return false
	}
	switch line[0] {
	case '}', ']':
		return len(bytes.Trim(line, "}], ")) == 0 // closing lines: "}", "},", "]}"
	case '[':
		return len(line) == 1
	case '{':
		last := line[len(line)-1]
		return last == '{' || last == '[' || last == ','
	}
	return false
}

// recorder keeps the first bytes read through it, for formatHint. It is
// safe for concurrent use: a parallel conversion reads through it while
// its errors are reported.
type recorder struct {
	r     io.Reader
	mu    sync.Mutex
	start []byte
	n     int64 // bytes read
}

const recordLen = 64

// first returns the first bytes read; nothing for a nil recorder.
func (r *recorder) first() []byte {
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.start[:len(r.start):len(r.start)]
}

// read returns the number of bytes read.
func (r *recorder) read() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.n
}

func (r *recorder) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.mu.Lock()
	if len(r.start) < recordLen {
		r.start = append(r.start, p[:min(n, recordLen-len(r.start))]...)
	}
	r.n += int64(n)
	r.mu.Unlock()
	return n, err
}
