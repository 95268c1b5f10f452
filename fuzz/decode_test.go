package fuzz

import (
	"bytes"
	"errors"
	"slices"
	"sort"
	"testing"
	"time"

	"github.com/agwire/agwire/codec"
	"github.com/agwire/agwire/event"
)

// Decode bounds. codec.Codec.MemoryBudget bounds what decoding a frame
// allocates for the event: by default 32 bytes per frame byte plus 1 MiB.
// The decoder's own working memory (its copy of the frame, spans, the
// error it returns) comes on top; decodePerByte and decodeFloor leave room
// for it. A tight budget (2 bytes per byte) must hold just as well.
const (
	decodePerByte = codec.DefaultMemoryBudget + 8
	decodeFloor   = 1<<20 + allocSlack
	tightBudget   = 2
	tightPerByte  = tightBudget + 8
)

// decodeTimeBound is a deliberately generous bound on the time one decode
// may take, checked only while fuzzing (never in the seed run, which must
// not depend on the machine's speed): it catches super-linear work on the
// larger inputs the fuzzer grows, not small slowdowns.
func decodeTimeBound(n int) time.Duration {
	return time.Second + time.Duration(n)*20*time.Microsecond
}

// decodeSentinels are the errors a decode may wrap (the codec's doc).
var decodeSentinels = []error{
	codec.ErrMalformed, codec.ErrUnknownEvent, codec.ErrNonFinite, event.ErrTooDeep, codec.ErrBudget,
	codec.ErrUnsafeInteger,
}

// decodeSentinel returns the first of decodeSentinels err wraps, or nil.
func decodeSentinel(err error) error {
	for _, s := range decodeSentinels {
		if errors.Is(err, s) {
			return s
		}
	}
	return nil
}

// addWireSeeds adds the golden frames, the attack seeds and, in the seed
// run, the big attack seeds, minus those named in skip.
func addWireSeeds(f *testing.F, skip ...string) {
	for _, w := range goldenWires(f) {
		f.Add(w)
	}
	names := func(m map[string][]byte) []string {
		var out []string
		for k := range m {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	small := attackSeeds()
	for _, k := range names(small) {
		f.Add(small[k])
	}
	if !fuzzing() {
		big := bigAttackSeeds()
		for _, k := range names(big) {
			if !slices.Contains(skip, k) {
				f.Add(big[k])
			}
		}
	}
}

// FuzzDecode: codec.Unmarshal of arbitrary bytes never panics and never
// modifies its input; it fails only with a *codec.Error wrapping one of
// decodeSentinels, at an offset inside the input, and with no event; the
// bytes it allocates stay under decodePerByte per input byte plus
// decodeFloor with the default budget, and under tightPerByte per byte plus
// decodeFloor with MemoryBudget 2 (which then refuses with ErrBudget
// rather than exceed it). While fuzzing, one decode also stays under
// decodeTimeBound. A decoded event marshals to JSON, and AppendJSON gives
// that very JSON; it re-encodes, and the re-encoding decodes to the same
// JSON.
func FuzzDecode(f *testing.F) {
	addWireSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		orig := bytes.Clone(data)
		var ev event.Event
		var err error
		start := time.Now()
		alloc := allocated(func() { ev, err = codec.Unmarshal(data) })
		elapsed := time.Since(start)
		if !bytes.Equal(orig, data) {
			t.Fatal("Unmarshal modified its input")
		}
		if bound := uint64(decodePerByte*len(data) + decodeFloor); alloc > bound {
			t.Fatalf("decoding %d bytes allocated %d bytes (%.1f per byte), bound %d (%v)", len(data), alloc,
				float64(alloc)/float64(max(1, len(data))), bound, err)
		}
		if fuzzing() && elapsed > decodeTimeBound(len(data)) {
			t.Fatalf("decoding %d bytes took %v, bound %v", len(data), elapsed, decodeTimeBound(len(data)))
		}
		tight := codec.Codec{MemoryBudget: tightBudget}
		var err2 error
		alloc2 := allocated(func() { _, err2 = tight.Unmarshal(data) })
		if bound := uint64(tightPerByte*len(data) + decodeFloor); alloc2 > bound {
			t.Fatalf("with MemoryBudget %d, decoding %d bytes allocated %d bytes, bound %d (%v)", tightBudget, len(data), alloc2, bound, err2)
		}
		if err2 != nil && !errors.Is(err2, codec.ErrBudget) && decodeSentinel(err2) != decodeSentinel(err) {
			t.Fatalf("a tighter budget changed the error from %v to %v", err, err2)
		}
		if err2 == nil && err != nil {
			t.Fatalf("a tighter budget accepts what the default refuses: %v", err)
		}
		if err != nil {
			var ce *codec.Error
			if !errors.As(err, &ce) || decodeSentinel(err) == nil {
				t.Fatalf("error %T %v is not a *codec.Error with a decode sentinel", err, err)
			}
			if ev != nil {
				t.Fatal("an event together with an error")
			}
			if ce.Offset < -1 || ce.Offset >= max(1, len(data)) {
				t.Fatalf("error offset %d outside the %d-byte input: %v", ce.Offset, len(data), err)
			}
			return
		}
		j := mustMarshal(t, ev)
		if out, err := codec.AppendJSONFromWire(nil, data); err != nil || !bytes.Equal(out, j) {
			t.Fatalf("AppendJSON = %s, %v; event.Marshal = %s", out, err, j)
		}
		w, err := codec.Append(nil, ev)
		if err != nil {
			t.Fatalf("a decoded event does not re-encode: %v\nevent %s", err, j)
		}
		ev2, err := codec.Unmarshal(w)
		if err != nil {
			t.Fatalf("the re-encoding does not decode: %v\nwire %x", err, w)
		}
		if j2 := mustMarshal(t, ev2); !bytes.Equal(j, j2) {
			t.Fatalf("decode → encode → decode changed the event\nfirst  %s\nsecond %s", j, j2)
		}
	})
}
