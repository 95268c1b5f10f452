package transport_test

import (
	"reflect"
	"testing"

	"github.com/agwire/agwire/codec"
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
		reflect.TypeFor[transport.FollowOptions](): {"Heartbeat", "CORS", "ErrorLog", "Authorize", "ReconnectGrace"},
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
