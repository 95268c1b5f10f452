package transport_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
	"github.com/agwire/agwire/framing"
	"github.com/agwire/agwire/transport"
)

// TestOptionsShallow: every options struct of the module is one flat
// struct passed by value: no embedded structs, and no nested option struct
// but the codec's own settings (codec.Codec), so that any setting is at most
// opts.Codec.X.
func TestOptionsShallow(t *testing.T) {
	for _, typ := range []reflect.Type{
		reflect.TypeFor[transport.HandlerOptions](),
		reflect.TypeFor[transport.WriterOptions](),
		reflect.TypeFor[transport.FollowOptions](),
		reflect.TypeFor[transport.ClientOptions](),
		reflect.TypeFor[transport.ReaderOptions](),
		reflect.TypeFor[framing.ReaderOptions](),
		reflect.TypeFor[framing.WriterOptions](),
	} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			if f.Anonymous {
				t.Errorf("%s embeds %s", typ, f.Type)
			}
			if f.Type.Kind() == reflect.Struct && f.Type != reflect.TypeFor[codec.Codec]() {
				t.Errorf("%s.%s nests the struct %s", typ, f.Name, f.Type)
			}
		}
	}
	c := reflect.TypeFor[codec.Codec]()
	for i := range c.NumField() {
		if f := c.Field(i); f.Type.Kind() == reflect.Struct {
			t.Errorf("codec.Codec.%s nests the struct %s", f.Name, f.Type)
		}
	}
}

// TestOptionsHoldWhatTheyUse: each server constructor has an options
// struct of its own, holding only the fields it uses, so that an option it
// would ignore cannot be written (a compile error, not a run-time one). The
// stream settings are the same five fields, of the same types, on all
// three.
func TestOptionsHoldWhatTheyUse(t *testing.T) {
	stream := []string{"Codec", "Compression", "WriteTimeout", "MaxEventSize", "WildcardSSE"}
	for typ, extra := range map[reflect.Type][]string{
		reflect.TypeFor[transport.WriterOptions](): nil,
		reflect.TypeFor[transport.FollowOptions](): {"Heartbeat", "CORS", "ErrorLog", "Authorize", "Principal", "ReconnectGrace", "MaxReaders"},
	} {
		want := append(append([]string(nil), stream...), extra...)
		var got []string
		for i := range typ.NumField() {
			got = append(got, typ.Field(i).Name)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s has fields %v, want %v", typ, got, want)
		}
	}
	h := reflect.TypeFor[transport.HandlerOptions]()
	for _, typ := range []reflect.Type{reflect.TypeFor[transport.WriterOptions](), reflect.TypeFor[transport.FollowOptions]()} {
		for i := range typ.NumField() {
			f := typ.Field(i)
			hf, ok := h.FieldByName(f.Name)
			if !ok || hf.Type != f.Type {
				t.Errorf("%s.%s (%s) is not HandlerOptions.%s", typ, f.Name, f.Type, f.Name)
			}
		}
	}
}

// TestClientReadsWithItsReaderOptions: ClientOptions carries every field of
// ReaderOptions, by the same name and type, and a Client reads its
// responses with all of them: a field added to ReaderOptions but not passed
// on by the Client fails here.
func TestClientReadsWithItsReaderOptions(t *testing.T) {
	rt, ct := reflect.TypeFor[transport.ReaderOptions](), reflect.TypeFor[transport.ClientOptions]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		if g, ok := ct.FieldByName(f.Name); !ok || g.Type != f.Type {
			t.Errorf("ClientOptions has no field %s of type %s (ReaderOptions has)", f.Name, f.Type)
		}
	}
	// A 3-byte limit on SSE events makes the Client's read fail at once,
	// but only if the limit reaches the reader.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", transport.MediaTypeSSE)
		io.WriteString(w, "data: {\"type\":\"RUN_STARTED\",\"threadId\":\"t\",\"runId\":\"r\"}\n\n")
	}))
	defer srv.Close()
	c, err := transport.NewClient(srv.URL, transport.ClientOptions{MaxEventSize: 3})
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Run(context.Background(), &event.RunAgentInput{ThreadID: "t", RunID: "r"})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := r.Next(); !errors.Is(err, transport.ErrEventTooLarge) {
		t.Errorf("Next with ClientOptions.MaxEventSize 3: %v, want ErrEventTooLarge", err)
	}
}
