package transport

import (
	"io"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// A carrier is one wire form of an event stream over HTTP: its media type,
// how an event becomes bytes (encoder) and how bytes become events
// (decoder). Everything else — negotiation, headers, compression, deadlines,
// flushing, counting, error types, the size limit and the cap on bad events
// in a row — is shared, in server.go and client.go, so adding a carrier is
// one file with its encoder and decoder and one line in carriers.
type carrier struct {
	mediaType string
	// newEncoder returns the encoder of a stream written to w.
	newEncoder func(w io.Writer, c codec.Codec, lim sizeLimit) encoder
	// newDecoder returns the decoder of a stream read from r.
	newDecoder func(r io.Reader, opts ReaderOptions) decoder
}

// carriers lists the carriers, in the order that breaks a full tie in
// Negotiate: SSE first, since every AG-UI client reads it.
var carriers = []*carrier{&sseCarrier, &binaryCarrier}

// carrierFor returns the carrier of a media type, or nil.
func carrierFor(mediaType string) *carrier {
	for _, c := range carriers {
		if c.mediaType == mediaType {
			return c
		}
	}
	return nil
}

// An encoder writes events, one Write call on its writer per event, but
// for a large event of a run log, written from the log's bytes or a
// shared rendering rather than copied (writeWire: two or three writes).
//
// The write methods check the bytes they would send with lim (sizeLimit)
// and return nil, or an error from refuse when the event cannot
// be carried (nothing was written), or the writer's error.
type encoder interface {
	// writeEvent writes ev.
	writeEvent(ev event.Event) error
	// writeJSON writes an event given as AG-UI JSON text, which parsed to
	// ev: a carrier of JSON may forward the text itself.
	writeJSON(ev event.Event, text []byte) error
	// writeWire writes an event given as the codec's wire bytes, read
	// from a run log, with its cursor text id (resumable runs).
	writeWire(wire []byte, id string) error
	// heartbeat writes what keeps an idle connection open without being
	// an event, or nothing if the carrier has no such thing.
	heartbeat() (wrote bool, err error)
	// reset makes the encoder write to w.
	reset(w io.Writer)
}

// A decoder reads events.
//
// next returns the next event, or io.EOF at the clean end of the stream,
// or an error. An event that does not decode alone is reported as an
// error from badEvent, the stream going on. Every other error ends the
// stream, and the shared ones wrap the package's sentinels: framing.ErrTruncated
// for a stream cut inside an event, ErrEventTooLarge for an event over the
// limit.
type decoder interface {
	next() (event.Event, error)
}

// refusal marks an event an encoder refused: nothing was written.
type refusal struct{ err error }

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

func refuse(err error) error { return &refusal{err} }

// badEvent marks one event a decoder could not read; the stream goes on.
// unknown says it is an event from a later protocol version.
type badEvent struct {
	err     error
	unknown bool
}

func (b *badEvent) Error() string { return b.err.Error() }
func (b *badEvent) Unwrap() error { return b.err }
