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
		reflect.TypeFor[transport.ServerOptions](),
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
