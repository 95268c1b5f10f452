package transport

import (
	"bytes"
	"errors"
	"io"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// sseCarrier is Server-Sent Events: one "data: <JSON event>\n\n" block per
// event.
var sseCarrier = carrier{
	mediaType: MediaTypeSSE,
	newEncoder: func(w io.Writer, c codec.Codec, lim sizeLimit) encoder {
		return &sseEncoder{w: w, lim: lim, c: c, buf: append(make([]byte, 0, 512), sseDataPrefix...)}
	},
	newDecoder: func(r io.Reader, opts ReaderOptions) decoder {
		return &sseDecoder{r: NewSSEReader(r, opts.MaxEventSize), parser: opts.parser(), keepalives: new(int64)}
	},
}

// sseDataPrefix starts every SSE event block.
const sseDataPrefix = "data: "

type sseEncoder struct {
	w   io.Writer
	lim sizeLimit
	c   codec.Codec
	buf []byte // the event block being built, starting with sseDataPrefix
}

// sseHeartbeat is the comment an SSE stream carries after a silence: a
// line starting with ':' is ignored by every SSE parser, and the blank line
// after it dispatches nothing.
const sseHeartbeat = ": keep-alive\n\n"

func (e *sseEncoder) heartbeat() (bool, error) {
	_, err := io.WriteString(e.w, sseHeartbeat)
	return true, err
}

// writeWire writes "id: <cursor>\ndata: <JSON>\n\n", the JSON rendered from
// the wire bytes by the codec. The id precedes the data so that a client
// has the cursor of every event it dispatched.
//
// The JSON of a large event is shared with the other responses writing it
// (see sharedJSON), and written from there: the block is then three writes,
// its id and data prefix, the JSON and the blank line.
func (e *sseEncoder) writeWire(wire []byte, id string) error {
	b := append(e.buf[:0], "id: "...)
	b = append(b, id...)
	b = append(b, '\n')
	b = append(b, sseDataPrefix...)
	if len(wire) >= shareFrom {
		r, release := sharedJSON(e.c, wire)
		defer release()
		e.buf = append(reuse(b), sseDataPrefix...)
		if r.err != nil {
			return refuse(r.err)
		}
		if err := e.lim.sse(len(r.json), len(b)+len(r.json)+1); err != nil {
			return refuse(err)
		}
		if _, err := e.w.Write(b); err != nil {
			return err
		}
		if _, err := e.w.Write(r.json); err != nil {
			return err
		}
		_, err := io.WriteString(e.w, "\n\n")
		return err
	}
	start := len(b)
	release := heavy(len(wire) * wireRenderCost)
	b, err := e.c.AppendJSONFromWire(b, wire)
	release()
	if err != nil {
		e.buf = append(reuse(b), sseDataPrefix...)
		return refuse(err)
	}
	if err := e.lim.sse(len(b)-start, len(b)+1); err != nil {
		e.buf = append(reuse(b), sseDataPrefix...)
		return refuse(err)
	}
	b = append(b, '\n', '\n')
	_, err = e.w.Write(b)
	e.buf = append(reuse(b), sseDataPrefix...)
	return err
}

func (e *sseEncoder) reset(w io.Writer) { e.w = w }

func (e *sseEncoder) writeEvent(ev event.Event) error {
	b, err := event.AppendJSON(e.buf[:len(sseDataPrefix)], ev)
	if err != nil {
		e.buf = append(reuse(b), sseDataPrefix...)
		return refuse(err)
	}
	if err := e.servable(ev, len(b)); err != nil {
		e.buf = append(reuse(b), sseDataPrefix...)
		return refuse(err)
	}
	return e.write(b)
}

// sseBudgetFrom is the JSON size from which an SSE event is checked
// against the codec's memory budget. Below it the event's wire form is at
// most a few KiB (a JSON byte encodes to at most 9 wire bytes: the number
// 1 in a dynamic value), which no budget refuses (the codec's floor is
// 1 MiB of decoded memory).
const sseBudgetFrom = 1 << 10

// servable refuses an event the binary carrier and run logs refuse for its
// decoding memory budget (codec.ErrBudget), so that both carriers write the
// same events: a stream does not depend on the carrier chosen. Events with
// no wire form (THINKING_*) are SSE's alone, and pass.
func (e *sseEncoder) servable(ev event.Event, jsonLen int) error {
	if jsonLen < sseBudgetFrom {
		return nil
	}
	if _, err := e.c.Servable(ev); errors.Is(err, codec.ErrBudget) {
		return err
	}
	return nil
}

func (e *sseEncoder) writeJSON(ev event.Event, text []byte) error {
	// The text is forwarded as given, on one line: an SSE data line must not
	// contain a line break, or the client would cut the event in two. JSON
	// strings cannot hold a raw CR or LF, so any in the text are whitespace
	// between tokens (a pretty-printed value), and spaces keep the meaning.
	// (event.AppendJSON, used by writeEvent, already writes one line.)
	if err := e.servable(ev, len(text)); err != nil {
		return refuse(err)
	}
	b := append(e.buf[:len(sseDataPrefix)], bytes.TrimSpace(text)...)
	for data := b[len(sseDataPrefix):]; ; {
		i := bytes.IndexAny(data, "\r\n")
		if i < 0 {
			break
		}
		data[i] = ' '
		data = data[i+1:]
	}
	return e.write(b)
}

// write terminates the block in b ("data: " and one line of JSON) and
// writes it, unless its data is over the limit.
func (e *sseEncoder) write(b []byte) error {
	e.buf = append(reuse(b), sseDataPrefix...)
	// The peer holds the block until its blank line: all of it but the
	// last line feed.
	if err := e.lim.sse(len(b)-len(sseDataPrefix), len(b)+1); err != nil {
		return refuse(err)
	}
	b = append(b, '\n', '\n')
	e.buf = append(reuse(b), sseDataPrefix...)
	_, err := e.w.Write(b)
	return err
}

type sseDecoder struct {
	r      *SSEReader
	parser event.Parser
	// keepalives counts the comment lines read, for ErrQuiet's report (the
	// EventReader's count since its last event).
	keepalives *int64
}

// next returns nil, nil for an event the consumer stage dropped
// (ClientOptions.Consume).
func (d *sseDecoder) next() (event.Event, error) {
	comments := d.r.comments
	data, err := d.r.next()
	*d.keepalives += d.r.comments - comments
	if err != nil {
		return nil, err
	}
	ev, err := d.parser.Parse(data)
	if err != nil {
		return nil, &badEvent{err: err, unknown: errors.Is(err, event.ErrUnknownType)}
	}
	return ev, nil
}
