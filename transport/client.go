package transport

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"iter"
	"mime"
	"net/http"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
)

// ClientOptions configures Run and NewEventReader. The zero value asks for
// the binary transport, uncompressed, and reads it with the strict default
// codec.
type ClientOptions struct {
	// Codec decodes binary frames. Its MaxDepth and DropUnknownFields also
	// configure the parser of SSE events.
	Codec codec.Codec
	// MaxEventSize is the largest event accepted, in bytes: a binary frame
	// (framing.ErrFrameTooLarge) or an SSE line or event's data
	// (ErrEventTooLarge). 0 (or less) means DefaultMaxEventSize.
	MaxEventSize int
	// PreferSSE makes Run ask for text/event-stream only, as the
	// TypeScript HttpAgent does. By default Run asks for the binary
	// transport with SSE as the fallback,
	// "application/vnd.ag-ui.event+proto, text/event-stream;q=0.5", which
	// servers that negotiate (agwire's, the TypeScript and Python SDKs')
	// answer with binary, and SSE-only servers with SSE.
	PreferSSE bool
	// Compression makes Run send "Accept-Encoding: zstd, gzip". Without
	// it Run sends "Accept-Encoding: identity", which also keeps
	// net/http's transparent gzip out of the way. A response is decoded
	// according to its Content-Encoding either way.
	Compression bool
	// Header holds extra request headers for Run, such as Authorization.
	// Content-Type, Accept and Accept-Encoding are set by Run.
	Header http.Header
}

// EventReader reads the events of one run from an HTTP response, SSE or
// binary, as the response's Content-Type says. It is not safe for
// concurrent use, except that Close may be called from another goroutine
// to abandon a read in progress.
type EventReader struct {
	resp      *http.Response
	mediaType string
	coding    string
	bin       *framing.Reader
	sse       *SSEReader
	parser    event.Parser
}

// NewEventReader checks resp and returns a reader of its events.
//
// A status other than 2xx gives a *StatusError carrying the start of the
// body. A Content-Type (parameters allowed) that is neither MediaTypeSSE nor
// MediaTypeBinary gives ErrUnsupportedMediaType; a Content-Encoding other
// than gzip, zstd or identity gives ErrUnsupportedEncoding. On error the
// response body has been closed. NewEventReader does not read the body of a
// 2xx response.
func NewEventReader(resp *http.Response, opts ClientOptions) (*EventReader, error) {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		snippet, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		resp.Body.Close()
		return nil, &StatusError{StatusCode: resp.StatusCode, Status: resp.Status, Body: snippet}
	}
	ct := resp.Header.Get("Content-Type")
	mt, _, err := mime.ParseMediaType(ct)
	if err != nil || (mt != MediaTypeSSE && mt != MediaTypeBinary) {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: Content-Type %q", ErrUnsupportedMediaType, ct)
	}
	body, coding, err := decompress(resp.Header.Values("Content-Encoding"), resp.Body)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	r := &EventReader{
		resp:      resp,
		mediaType: mt,
		coding:    coding,
		parser:    event.Parser{MaxDepth: opts.Codec.MaxDepth, DropUnknownFields: opts.Codec.DropUnknownFields},
	}
	if mt == MediaTypeBinary {
		r.bin = framing.NewReader(bufio.NewReaderSize(body, 32<<10), framing.ReaderOptions{
			Codec:        opts.Codec,
			MaxFrameSize: max(opts.MaxEventSize, 0),
		})
	} else {
		r.sse = NewSSEReader(body, opts.MaxEventSize)
	}
	return r, nil
}

// ContentType returns the stream's media type, MediaTypeSSE or
// MediaTypeBinary.
func (r *EventReader) ContentType() string { return r.mediaType }

// ContentEncoding returns the coding the stream was decompressed from,
// EncodingGzip or EncodingZstd, or "" for identity.
func (r *EventReader) ContentEncoding() string { return r.coding }

// Response returns the response the events are read from.
func (r *EventReader) Response() *http.Response { return r.resp }

// ReadEvent reads the next event. It returns io.EOF, unwrapped, when the
// stream ends cleanly.
//
// An event that does not decode is reported alone and consumed, and the
// next call reads the next event; Skippable reports true for it. On SSE it
// is an *EventError wrapping the parser's error (event.ErrUnknownType for
// an event type from a later protocol); on the binary transport a
// *framing.Error wrapping the codec's (codec.ErrUnknownEvent for an event
// from a later protocol).
//
// Other errors end the stream and are sticky: a network error, a stream
// cut short (framing.ErrTruncated on the binary transport,
// io.ErrUnexpectedEOF on SSE), an event over the size limit
// (framing.ErrFrameTooLarge, ErrEventTooLarge), a decompression error.
func (r *EventReader) ReadEvent() (event.Event, error) {
	if r.bin != nil {
		return r.bin.ReadEvent()
	}
	data, err := r.sse.next()
	if err != nil {
		return nil, err
	}
	ev, err := r.parser.Parse(data)
	if err != nil {
		return nil, &EventError{Index: r.sse.n - 1, Err: err}
	}
	return ev, nil
}

// Events returns an iterator over the stream's events. An event that does
// not decode is yielded with its error and iteration goes on; an error that
// ends the stream is yielded and ends it; the clean end of the stream ends
// it silently.
func (r *EventReader) Events() iter.Seq2[event.Event, error] {
	return func(yield func(event.Event, error) bool) {
		for {
			ev, err := r.ReadEvent()
			if err == io.EOF {
				return
			}
			if !yield(ev, err) || (err != nil && !Skippable(err)) {
				return
			}
		}
	}
}

// Close closes the response body. Closing before the end of the stream
// abandons it: the server sees the connection go away.
func (r *EventReader) Close() error { return r.resp.Body.Close() }

// Accept header values Run sends.
const (
	acceptBinaryFirst = MediaTypeBinary + ", " + MediaTypeSSE + ";q=0.5"
	acceptSSEOnly     = MediaTypeSSE
)

// Run starts a run: it POSTs in as JSON to url with client (nil means
// http.DefaultClient) and returns a reader of the response's events. The
// request carries ctx; cancelling it ends the stream.
//
// The request asks for the binary transport with SSE as the fallback (or
// for SSE only, with PreferSSE), and for zstd or gzip compression when
// opts.Compression is set. Errors are those of the client and of
// NewEventReader. The caller must Close the reader.
func Run(ctx context.Context, client *http.Client, url string, in *event.RunAgentInput, opts ClientOptions) (*EventReader, error) {
	if client == nil {
		client = http.DefaultClient
	}
	body, err := event.MarshalRunAgentInput(in)
	if err != nil {
		return nil, fmt.Errorf("transport: encoding the RunAgentInput: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, v := range opts.Header {
		req.Header[k] = append([]string(nil), v...)
	}
	req.Header.Set("Content-Type", "application/json")
	if opts.PreferSSE {
		req.Header.Set("Accept", acceptSSEOnly)
	} else {
		req.Header.Set("Accept", acceptBinaryFirst)
	}
	if opts.Compression {
		req.Header.Set("Accept-Encoding", EncodingZstd+", "+EncodingGzip)
	} else {
		req.Header.Set("Accept-Encoding", "identity")
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	return NewEventReader(resp, opts)
}
