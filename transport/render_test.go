package transport

import (
	"bytes"
	"hash/maphash"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// TestSharedJSON: responses rendering the same wire bytes with the same
// codec at the same time share one rendering, equal bytes in another slice
// included; another codec, or other bytes under the same hash, get their
// own; the last release forgets it.
func TestSharedJSON(t *testing.T) {
	wire, err := codec.Codec{}.Append(nil, &event.TextMessageContent{MessageID: "m", Delta: strings.Repeat("hello ", 20_000)})
	if err != nil {
		t.Fatal(err)
	}
	want, err := codec.Codec{}.AppendJSONFromWire(nil, wire)
	if err != nil {
		t.Fatal(err)
	}
	held := renderingsHeld()
	r1, release1 := sharedJSON(codec.Codec{}, wire)
	r2, release2 := sharedJSON(codec.Codec{}, bytes.Clone(wire))
	if r1 != r2 || !bytes.Equal(r1.json, want) || r1.err != nil {
		t.Fatalf("two renderings of one event: shared %v, JSON right %v, err %v", r1 == r2, bytes.Equal(r1.json, want), r1.err)
	}
	r3, release3 := sharedJSON(codec.Codec{NonFiniteAsNull: true}, wire)
	if r3 == r1 {
		t.Error("another codec's rendering was shared")
	}
	if n := renderingsHeld() - held; n != 2 {
		t.Errorf("%d renderings held, want 2", n)
	}

	// Other bytes of the same length whose hash were the same: not shared.
	other := bytes.Clone(wire)
	other[len(other)-1] ^= 'h' ^ 'j'
	key := renderKey{hash: maphash.Bytes(renderings.seed, other), n: len(other), opts: optionsOf(codec.Codec{})}
	fake := &rendering{key: key, wire: wire, done: make(chan struct{}), json: []byte("wrong"), refs: 1}
	close(fake.done)
	renderings.mu.Lock()
	renderings.m[key] = append(renderings.m[key], fake)
	renderings.mu.Unlock()
	r4, release4 := sharedJSON(codec.Codec{}, other)
	if r4 == fake || bytes.Equal(r4.json, []byte("wrong")) || r4.err != nil {
		t.Errorf("a hash collision shared the other bytes' rendering")
	}
	release4()
	fake.release()

	// A codec that is told what its decoding skips renders alone.
	skipping := codec.Codec{Skipped: func(event.Type, string) {}}
	r5, release5 := sharedJSON(skipping, wire)
	if r5 == r1 || !bytes.Equal(r5.json, want) || renderingsHeld()-held != 2 {
		t.Errorf("a codec with Skipped: shared %v, JSON right %v, %d held", r5 == r1, bytes.Equal(r5.json, want), renderingsHeld()-held)
	}
	release5()

	release1()
	release2()
	release3()
	if n := renderingsHeld() - held; n != 0 {
		t.Errorf("%d renderings held after every release", n)
	}
}

// renderingsHeld returns the number of renderings held, for the tests.
func renderingsHeld() int {
	renderings.mu.Lock()
	defer renderings.mu.Unlock()
	n := 0
	for _, list := range renderings.m {
		n += len(list)
	}
	return n
}

// TestRenderOptionsCoverCodec: every field of codec.Codec is in a
// rendering's key (renderOptions) or makes a codec render alone (Skipped):
// a field added to the codec must be added here, or two codecs that render
// differently would share a rendering.
func TestRenderOptionsCoverCodec(t *testing.T) {
	var got []string
	for f := range reflect.TypeFor[codec.Codec]().Fields() {
		got = append(got, f.Name)
	}
	want := []string{"Profile", "LossyNumbers", "NonFiniteAsNull", "MaxDepth", "DropUnknownFields", "UnsafeIntegers", "MemoryBudget", "Skipped"}
	if !slices.Equal(got, want) {
		t.Errorf("codec.Codec has fields %v; renderOptions covers %v: add the new ones to it (optionsOf)", got, want)
	}
	if n := reflect.TypeFor[renderOptions]().NumField(); n != len(want)-1 {
		t.Errorf("renderOptions has %d fields, want %d", n, len(want)-1)
	}
}
